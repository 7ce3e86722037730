//! An output folder (of `sweep`, a shard, `merge`, `sweep --slurm`, `report -o`, `run
//! --out`): banksim writes into a folder only if banksim made it, and one command at a
//! time.
//!
//! - **Its mark.** A folder banksim makes, or finds empty, gets the marker file
//!   [`MARKER`]; a folder that holds other files and no marker is refused, so files
//!   banksim did not write (a `results.csv`, a `cells.jsonl` of someone else's) are
//!   never changed.
//! - **One writer.** The command holds the marker locked (an advisory lock of the
//!   operating system, released when the process ends, however it ends); a second
//!   command on the same folder is refused at once, with a message that says why.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The marker file of a folder banksim made.
pub const MARKER: &str = ".banksim-sweep";

/// What the marker file says.
const MARKER_TEXT: &str =
    "This folder holds the output of banksim (a sweep, a merge, a report or a run). banksim writes into a \
folder only if this file is there, and holds it locked while it writes.\n";

/// A sweep folder, held (locked) until dropped.
#[derive(Debug)]
pub struct SweepFolder {
    path: PathBuf,
    /// The marker, locked.
    _lock: File,
}

impl SweepFolder {
    /// Makes the folder `dir` (or adopts it: empty, or with banksim's marker) and locks it.
    pub fn open(dir: &Path) -> Result<SweepFolder> {
        match std::fs::symlink_metadata(dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::io(dir, "cannot create the output folder", e))?;
            }
            Err(e) => return Err(Error::io(dir, "cannot read the output folder", e)),
            Ok(m) if !m.is_dir() => {
                return Err(Error::Input(format!(
                    "{}: not a folder (a sweep writes a folder of files: choose a new or empty folder)",
                    dir.display()
                )))
            }
            Ok(_) => {}
        }
        let marker = dir.join(MARKER);
        // decided from one listing: another banksim making the folder at the same moment
        // makes the marker before anything else
        let entries: Vec<std::ffi::OsString> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, "cannot read the output folder", e))?
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        if !entries.is_empty() && !entries.iter().any(|n| n == MARKER) {
            return Err(Error::Input(format!(
                "{}: holds files that banksim did not write (it has no {MARKER}, the mark of a folder banksim made); \
                 banksim changes no file it did not write: choose a new or empty folder (if an older banksim wrote this one, create {} to adopt it)",
                dir.display(),
                marker.display()
            )));
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&marker)
            .map_err(|e| Error::io(&marker, "cannot create", e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(Error::Input(format!(
                    "{}: another banksim command is writing to this folder (it holds {} locked); wait for it to end, or choose another output folder",
                    dir.display(),
                    marker.display()
                )))
            }
            // a file system without locks (rare): go on unlocked
            Err(TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {}
            Err(TryLockError::Error(e)) => return Err(Error::io(&marker, "cannot lock", e)),
        }
        if file.metadata().map_err(|e| Error::io(&marker, "cannot read", e))?.len() == 0 {
            file.write_all(MARKER_TEXT.as_bytes()).map_err(|e| Error::io(&marker, "cannot write", e))?;
        }
        Ok(SweepFolder { path: dir.to_path_buf(), _lock: file })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `name` in the folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_made_adopted_or_refused_and_held_by_one() {
        let tmp = tempfile::Builder::new().prefix("banksim-folder-").tempdir().unwrap();
        let new = tmp.path().join("new");
        let held = SweepFolder::open(&new).unwrap();
        assert!(new.join(MARKER).is_file());
        let err = SweepFolder::open(&new).unwrap_err().to_string();
        assert!(err.contains("another banksim command") && err.contains("new"), "{err}");
        drop(held);
        SweepFolder::open(&new).unwrap();
        let foreign = tmp.path().join("foreign");
        std::fs::create_dir(&foreign).unwrap();
        std::fs::write(foreign.join("results.csv"), "mine").unwrap();
        let err = SweepFolder::open(&foreign).unwrap_err().to_string();
        assert!(err.contains("did not write") && err.contains(MARKER), "{err}");
        assert_eq!(std::fs::read_to_string(foreign.join("results.csv")).unwrap(), "mine");
        assert!(!foreign.join(MARKER).exists());
        let file = tmp.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert!(SweepFolder::open(&file).unwrap_err().to_string().contains("not a folder"));
    }
}
