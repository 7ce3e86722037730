//! Files whose paths come from data, not from the command line: the source files a
//! trace's site labels name, a study's `file:` workloads. Only a regular file is opened
//! (a FIFO would block the reader forever, a device such as `/dev/zero` never ends), and
//! a source file is read up to a bound ([`sim_core::limits::SOURCE_BYTES`]).

use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;

/// That `path` (named `what` in the error, e.g. "site label `k.wgsl:3:5` of t.csv") is a
/// regular file, following symbolic links, before anything opens it.
pub fn require_regular(path: &Path, what: &str) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read", e))?;
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::Input(format!(
        "{}: {what} is {}, not a regular file: refused (a FIFO would wait for a writer forever, a device may never end)",
        path.display(),
        kind(&meta.file_type())
    )))
}

/// The text of the regular file at `path` (named `what` in errors), at most `max` bytes.
pub fn read_regular(path: &Path, what: &str, max: &sim_core::limits::Limit) -> Result<String> {
    require_regular(path, what)?;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, "cannot read", e))?;
    let mut text = String::new();
    file.take(max.max.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(|e| Error::io(path, "cannot read", e))?;
    max.check(|| format!("{}: {what}", path.display()), text.len() as u64)?;
    Ok(text)
}

/// A temporary folder whose name starts with `prefix`, made and registered for removal
/// on a signal in one step ([`crate::output::cleanup::register_made`]).
pub fn make_folder(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    crate::output::cleanup::register_made(|| {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        let path = dir.path().to_path_buf();
        Ok((dir, path))
    })
}

/// Forgets a temporary folder removed.
pub fn folder_gone(path: &Path) {
    crate::output::cleanup::unregister(path);
}

/// The hooks of `traces::sort::BlockSorter::track_folder`: the sort's folder of runs
/// is registered for removal on a signal as it is made.
pub const SORT_FOLDERS: traces::sort::FolderHooks =
    traces::sort::FolderHooks { make: make_folder, gone: folder_gone };

/// A temporary folder under the system's temporary directory, removed when dropped and,
/// registered with [`crate::output::cleanup`], when the program is interrupted.
pub struct TempFolder(Option<tempfile::TempDir>);

impl TempFolder {
    /// A new folder whose name starts with `prefix`.
    pub fn new(prefix: &str) -> Result<TempFolder> {
        let dir = make_folder(prefix)
            .map_err(|e| Error::io(std::env::temp_dir(), "cannot make a temporary folder in", e))?;
        Ok(TempFolder(Some(dir)))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.0.as_ref().expect("held until dropped").path()
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let path = dir.path().to_path_buf();
            drop(dir);
            folder_gone(&path);
        }
    }
}

/// What a file that is not a regular one is, in words.
fn kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused_and_a_long_file_is_over_its_limit() {
        let e = require_regular(Path::new("/dev/zero"), "the source").unwrap_err();
        assert!(e.to_string().contains("/dev/zero: the source is a character device"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = require_regular(dir.path(), "the source").unwrap_err();
        assert!(e.to_string().contains("is a folder"), "{e}");
        let small = sim_core::limits::Limit { name: "SMALL", max: 4, unit: "bytes", applies_to: "" };
        let f = dir.path().join("f.txt");
        std::fs::write(&f, "12345").unwrap();
        let e = read_regular(&f, "the source", &small).unwrap_err();
        assert!(e.to_string().contains("about 5 bytes, above the limit of 4 (SMALL"), "{e}");
        std::fs::write(&f, "1234").unwrap();
        assert_eq!(read_regular(&f, "the source", &small).unwrap(), "1234");
    }
}
