//! The journal of a sweep's finished cells (`cells.jsonl`): read back to resume.
//!
//! Read tolerantly: a torn last line (a kill in mid-write: no newline at its end) is
//! discarded and the file cut back to the end of the last whole line, so the next entry
//! starts on a line of its own and is never appended onto the torn one. A whole line
//! that is not a journal entry is skipped.

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The journal's entries: the study fingerprint of its first line, and each finished
/// cell's row by id. Pure: no file involved (the fuzz target and the tests call it).
pub struct Parsed {
    /// The `hash` of the header line, where the first line is one.
    pub hash: Option<String>,
    /// Finished cells by id.
    pub cells: BTreeMap<usize, Map<String, Value>>,
    /// Bytes of whole lines: where a torn last line starts (the text's length if none).
    pub whole: usize,
}

/// Parses journal text (see the module comment for what is skipped).
pub fn parse(text: &[u8]) -> Parsed {
    let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut parsed = Parsed { hash: None, cells: BTreeMap::new(), whole };
    for (i, line) in text[..whole].split(|&b| b == b'\n').enumerate() {
        let Ok(v) = serde_json::from_slice::<Value>(line) else { continue };
        if i == 0 {
            parsed.hash = v["hash"].as_str().map(String::from);
            continue;
        }
        if let (Some(id), Some(row)) = (v["cell"].as_u64(), v["row"].as_object()) {
            if let Ok(id) = usize::try_from(id) {
                parsed.cells.insert(id, row.clone());
            }
        }
    }
    parsed
}

/// A journal read back to resume.
pub struct Resumed {
    /// Finished cells by id.
    pub cells: BTreeMap<usize, Map<String, Value>>,
    /// Bytes of a torn last line that were cut off the file (an interrupted write).
    pub torn: Option<usize>,
}

/// Finished cells of an earlier run with the same study; a torn last line is dropped
/// from the file (cut back to the last whole line) so that appending starts cleanly.
pub fn read_journal(path: &Path, hash: &str) -> Result<Resumed> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Resumed { cells: BTreeMap::new(), torn: None })
        }
        Err(e) => return Err(Error::io(path, "cannot read", e)),
    };
    let parsed = parse(&text);
    let mut torn = None;
    if parsed.whole < text.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, "cannot open to drop its torn last line", e))?;
        f.set_len(parsed.whole as u64).map_err(|e| Error::io(path, "cannot drop its torn last line", e))?;
        torn = Some(text.len() - parsed.whole);
    }
    if parsed.whole > 0 && parsed.hash.as_deref() != Some(hash) {
        return Err(Error::Input(format!(
            "{}: progress of a different version of the study; use --fresh to start over or another --out",
            path.display()
        )));
    }
    Ok(Resumed { cells: parsed.cells, torn })
}
