//! The journal of a sweep's finished cells (`cells.jsonl`): read back to resume.
//!
//! The first line names the study and its fingerprint; each later line is one finished
//! cell: its id, its key (what it was computed from: the study, its trace file's size
//! and content, the build of banksim, see [`super::Expanded::cell_keys`]) and its row.
//! A cell is taken as done only where its key is the one it would have now, so a result
//! computed from another version of a trace file or by another build is computed again.
//!
//! Read tolerantly: a torn last line (a kill in mid-write: no newline at its end) is
//! discarded and the file cut back to the end of the last whole line, so the next entry
//! starts on a line of its own and is never appended onto the torn one. A whole line
//! that is not a journal entry is skipped. Each line is written with one write call, by
//! the one process that holds the sweep folder ([`super::folder`]).

use crate::error::{Error, Result};
use crate::output::Inputs;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One finished cell of a journal.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// What the cell was computed from (none in journals of an older banksim).
    pub key: Option<String>,
    /// Its row.
    pub row: Map<String, Value>,
}

/// The journal's entries: the study fingerprint of its first line, and each finished
/// cell by id (the last line of a cell where there are several). Pure: no file involved
/// (the fuzz target and the tests call it).
pub struct Parsed {
    /// The `hash` of the header line, where the first line is one.
    pub hash: Option<String>,
    /// Finished cells by id.
    pub cells: BTreeMap<usize, Entry>,
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
                let key = v["key"].as_str().map(String::from);
                parsed.cells.insert(id, Entry { key, row: row.clone() });
            }
        }
    }
    parsed
}

/// A journal read back to resume.
pub struct Resumed {
    /// Finished cells by id, each computed from what it would be computed from now.
    pub cells: BTreeMap<usize, Map<String, Value>>,
    /// Cells in the journal computed from other inputs or by another build: not done.
    pub stale: usize,
    /// Bytes of a torn last line that were cut off the file (an interrupted write).
    pub torn: Option<usize>,
}

/// Finished cells of an earlier run with the same study, whose key is `key(id)` (cells
/// without a current key are not taken); a torn last line is dropped from the file (cut
/// back to the last whole line) so that appending starts cleanly.
pub fn read_journal(path: &Path, hash: &str, key: impl Fn(usize) -> Option<String>) -> Result<Resumed> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Resumed { cells: BTreeMap::new(), stale: 0, torn: None })
        }
        Err(e) => return Err(Error::io(path, "cannot read", e)),
    };
    let parsed = parse(&text);
    if parsed.whole > 0 && parsed.hash.as_deref() != Some(hash) {
        return Err(Error::Input(format!(
            "{}: progress of a different version of the study; use --fresh to start over or another --out",
            path.display()
        )));
    }
    let mut torn = None;
    if parsed.whole < text.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, "cannot open to drop its torn last line", e))?;
        f.set_len(parsed.whole as u64).map_err(|e| Error::io(path, "cannot drop its torn last line", e))?;
        torn = Some(text.len() - parsed.whole);
    }
    let mut cells = BTreeMap::new();
    let mut stale = 0;
    for (id, entry) in parsed.cells {
        match (entry.key, key(id)) {
            (Some(k), Some(now)) if k == now => {
                cells.insert(id, entry.row);
            }
            _ => stale += 1,
        }
    }
    Ok(Resumed { cells, stale, torn })
}

/// A journal open to append finished cells to.
pub struct Journal {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl Journal {
    /// Opens (or starts, with its header line) the journal at `path` of study `name` with
    /// fingerprint `hash`; `path` is checked as an output of the command (`inputs`).
    pub fn open(path: &Path, inputs: &Inputs, name: &str, hash: &str) -> Result<Journal> {
        inputs.check_target(path).map_err(crate::output::OutputError::from)?;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, "cannot open", e))?;
        if file.metadata().map_err(|e| Error::io(path, "cannot read", e))?.len() == 0 {
            let header = format!("{}\n", json!({"study": name, "hash": hash}));
            file.write_all(header.as_bytes()).map_err(|e| Error::io(path, "cannot write", e))?;
        }
        Ok(Journal { path: path.to_path_buf(), file: Mutex::new(file) })
    }

    /// Appends cell `id`'s `row`, computed from `key`: one line, one write call.
    pub fn append(&self, id: usize, key: &str, row: &Map<String, Value>) -> Result<()> {
        let mut line = json!({"cell": id, "key": key, "row": row}).to_string();
        line.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(line.as_bytes()).map_err(|e| Error::io(&self.path, "cannot write", e))
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
