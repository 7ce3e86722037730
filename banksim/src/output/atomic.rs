//! The one way the tool writes a file: into a temporary file in the same folder, renamed
//! into place when everything was written, so an interrupted or failed run never leaves a
//! truncated result (the temporary file is removed when the write is abandoned).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// A file that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Its temporary file could not be made (a missing or read-only folder, say).
    #[error("{}: cannot create", path.display())]
    Create {
        /// The file asked for.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It could not be opened to append to.
    #[error("{}: cannot open", path.display())]
    Open {
        /// The file asked for.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Writing it, or renaming it into place, failed.
    #[error("{}: cannot write", path.display())]
    Write {
        /// The file asked for.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// An output file being written: a temporary file in the target's folder until
/// [`AtomicFile::commit`] renames it into place. Dropped without a commit, it is removed.
pub struct AtomicFile {
    path: PathBuf,
    writer: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `path` (8 KiB buffer).
    pub fn create(path: &Path) -> Result<AtomicFile, OutputError> {
        AtomicFile::with_capacity(path, 8 * 1024)
    }

    /// Starts writing `path` with a buffer of `capacity` bytes.
    pub fn with_capacity(path: &Path, capacity: usize) -> Result<AtomicFile, OutputError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(path.file_name().unwrap_or_default());
        prefix.push(".");
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            // as `File::create` makes files: readable by others where the umask allows
            use std::os::unix::fs::PermissionsExt;
            b.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let file =
            b.tempfile_in(dir).map_err(|e| OutputError::Create { path: path.into(), source: plain(e) })?;
        Ok(AtomicFile { path: path.into(), writer: BufWriter::with_capacity(capacity, file) })
    }

    /// The file asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the file to disk and renames it into place.
    pub fn commit(self) -> Result<(), OutputError> {
        let write = |source| OutputError::Write { path: self.path.clone(), source };
        let file = self.writer.into_inner().map_err(|e| write(e.into_error()))?;
        file.as_file().sync_all().map_err(write)?;
        file.persist(&self.path).map_err(|e| write(e.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

/// The OS error alone, without the temporary file's (random) name that `tempfile` adds
/// (as `... at path "DIR/.NAME.XXXXXX.tmp"`).
fn plain(e: std::io::Error) -> std::io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    let text = e.to_string();
    match text.rfind(" at path \"") {
        Some(i) => std::io::Error::new(e.kind(), &text[..i]),
        None => e,
    }
}

/// Writes `path` with `write` through an [`AtomicFile`] and returns what `write` returns;
/// a failed `write` leaves no file (and an existing one as it was).
pub fn write_atomically<T, E: From<OutputError>>(
    path: &Path,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, E>,
) -> Result<T, E> {
    let mut f = AtomicFile::create(path)?;
    let out = write(&mut f)?;
    f.commit()?;
    Ok(out)
}

/// Appends `lines` to the file at `path` (created when missing, then starting with
/// `header`): a log that grows one entry at a time, such as `banksim measure --csv`, where
/// replacing the file would lose another process's rows.
pub fn append(path: &Path, header: &str, lines: &str) -> Result<(), OutputError> {
    let new = !path.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| OutputError::Open { path: path.into(), source })?;
    let mut text = String::new();
    if new {
        text.push_str(header);
        text.push('\n');
    }
    text.push_str(lines);
    f.write_all(text.as_bytes()).map_err(|source| OutputError::Write { path: path.into(), source })
}
