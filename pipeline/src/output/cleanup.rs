//! The temporary files of output files being written, to remove when the process is
//! interrupted: every [`super::AtomicFile`] registers its temporary path here while it is
//! open and forgets it when renamed or dropped, so the set holds only files being
//! written now. A program's signal handler calls [`remove_all`] (the tool's does on
//! SIGINT and SIGTERM); a file dropped normally removes itself.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static LIVE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Notes a temporary file to remove on interruption.
pub fn register(path: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf());
}

/// Makes a temporary file or folder (`make` gives it and its path) and registers it
/// under the registry's lock: an interruption's [`remove_all`] comes before it is made
/// or after it is registered, never in between.
pub fn register_made<T>(make: impl FnOnce() -> std::io::Result<(T, PathBuf)>) -> std::io::Result<T> {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let (made, path) = make()?;
    live.insert(path);
    Ok(made)
}

/// Forgets a temporary file (renamed into place, or removed).
pub fn unregister(path: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).remove(path);
}

/// Removes every registered temporary file (and forgets them: the lock is held by the
/// removal, so no file registers in between). A registered folder (a sort's runs, see
/// `crate::files::make_folder`) goes with what is in it, tried again while the work
/// still writes into it.
pub fn remove_all() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for p in live {
        if p.is_dir() {
            for _ in 0..10 {
                if std::fs::remove_dir_all(&p).is_ok() || !p.exists() {
                    break;
                }
            }
        } else {
            let _ = std::fs::remove_file(p);
        }
    }
}
