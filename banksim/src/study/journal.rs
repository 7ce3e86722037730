//! The journal of a sweep's finished cells (`cells.jsonl`): read back to resume.

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

/// Finished cells of an earlier run with the same study; a torn last line (a kill in
/// mid-write) is ignored.
pub fn read_journal(path: &Path, hash: &str) -> Result<BTreeMap<usize, Map<String, Value>>> {
    let mut done = BTreeMap::new();
    let Ok(f) = std::fs::File::open(path) else { return Ok(done) };
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("{}: cannot read", path.display()))?;
        let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
        if i == 0 {
            if v["hash"] != hash {
                bail!(
                    "{}: progress of a different version of the study; use --fresh to start over or another --out",
                    path.display()
                );
            }
            continue;
        }
        if let (Some(id), Some(row)) = (v["cell"].as_u64(), v["row"].as_object()) {
            done.insert(id as usize, row.clone());
        }
    }
    Ok(done)
}
