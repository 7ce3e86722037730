//! Temporary files removed when the process is interrupted: every [`super::AtomicFile`]
//! registers its temporary path here while it is open, and on SIGINT or SIGTERM the
//! handler thread removes them all and exits with 128 + the signal (130, 143), as a
//! shell reports a process killed by it. (A file dropped normally removes itself.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

static LIVE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
static INSTALL: Once = Once::new();

/// Notes a temporary file to remove on interruption.
pub fn register(path: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf());
}

/// Forgets a temporary file (renamed into place, or removed).
pub fn unregister(path: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).remove(path);
}

/// Removes every registered temporary file.
pub fn remove_all() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for p in live {
        let _ = std::fs::remove_file(p);
    }
}

/// Installs the SIGINT / SIGTERM handler (once; later calls do nothing). The tool's
/// `main` calls it first thing.
pub fn install_signal_handler() {
    INSTALL.call_once(|| {
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else { return };
            std::thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    // the lock is held by the removal: no file registers in between
                    remove_all();
                    std::process::exit(128 + sig);
                }
            });
        }
    });
}
