//! The one way the tool writes a file: into a temporary file in the same folder, renamed
//! into place when everything was written, so an interrupted or failed run never leaves a
//! truncated result (the temporary file is removed when the write is abandoned, and on
//! SIGINT / SIGTERM through [`super::cleanup`]). Every target first passes the command's
//! [`Inputs::check_target`]: never an input of the command, never a device, FIFO, link
//! or folder. `-` writes to standard output.

use super::cleanup;
use super::target::{is_stdio, Inputs, TargetError};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// A file that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The target may not be written (an input, or not a regular file).
    #[error(transparent)]
    Target(#[from] TargetError),
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
    /// A CSV file to append to has another header than the rows to append.
    #[error("{}: its header is `{found}`, not `{expected}`: rows of another kind (or of another version of banksim); append to another file", path.display())]
    Header {
        /// The file.
        path: PathBuf,
        /// Its first line.
        found: String,
        /// The header of the rows.
        expected: String,
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
    sink: Sink,
    /// The command's inputs, which the target is checked against again at the rename.
    inputs: Inputs,
}

/// Where an [`AtomicFile`]'s bytes go.
enum Sink {
    /// A temporary file, renamed into place on commit (forgotten by the cleanup as the
    /// guard drops).
    Temp(BufWriter<NamedTempFile>, Guard),
    /// Standard output (the path `-`).
    Stdout(BufWriter<std::io::Stdout>),
}

/// Forgets a temporary file in [`cleanup`] as it drops (the file itself removes itself,
/// or was renamed).
struct Guard(PathBuf);

impl Drop for Guard {
    fn drop(&mut self) {
        cleanup::unregister(&self.0);
    }
}

/// A temporary file in the target's folder, registered for removal on interruption;
/// `suffix` ends its name (`.tmp`, or `.tmp.png` for writers that go by the extension).
fn temp_beside(path: &Path, suffix: &str, inputs: &Inputs) -> Result<NamedTempFile, OutputError> {
    inputs.check_target(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(suffix);
    #[cfg(unix)]
    {
        // as `File::create` makes files: readable by others where the umask allows
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let file = b.tempfile_in(dir).map_err(|e| OutputError::Create { path: path.into(), source: plain(e) })?;
    cleanup::register(file.path());
    Ok(file)
}

/// Renames the finished temporary file `file` to `path` (checked again: the target may
/// have changed while it was written).
fn persist(file: NamedTempFile, path: &Path, inputs: &Inputs) -> Result<(), OutputError> {
    let temp = file.path().to_path_buf();
    let done = (|| {
        inputs.check_target(path)?;
        file.as_file().sync_all().map_err(|source| OutputError::Write { path: path.into(), source })?;
        file.persist(path).map_err(|e| OutputError::Write { path: path.into(), source: e.error })?;
        inputs.mark_written(path);
        Ok(())
    })();
    cleanup::unregister(&temp);
    done
}

impl AtomicFile {
    /// Starts writing `path` (8 KiB buffer), which may not be one of `inputs`.
    pub fn create(path: &Path, inputs: &Inputs) -> Result<AtomicFile, OutputError> {
        AtomicFile::with_capacity(path, inputs, 8 * 1024)
    }

    /// Starts writing `path` with a buffer of `capacity` bytes (`-`: standard output).
    pub fn with_capacity(path: &Path, inputs: &Inputs, capacity: usize) -> Result<AtomicFile, OutputError> {
        let sink = if is_stdio(path) {
            Sink::Stdout(BufWriter::with_capacity(capacity, std::io::stdout()))
        } else {
            let file = temp_beside(path, ".tmp", inputs)?;
            let guard = Guard(file.path().to_path_buf());
            Sink::Temp(BufWriter::with_capacity(capacity, file), guard)
        };
        Ok(AtomicFile { path: path.into(), sink, inputs: inputs.clone() })
    }

    /// The file asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the file to disk and renames it into place.
    pub fn commit(self) -> Result<(), OutputError> {
        let write = |source| OutputError::Write { path: self.path.clone(), source };
        match self.sink {
            Sink::Stdout(mut w) => w.flush().map_err(write),
            Sink::Temp(w, _guard) => match w.into_inner() {
                Ok(file) => persist(file, &self.path, &self.inputs),
                Err(e) => {
                    let (e, w) = e.into_parts();
                    drop(w);
                    Err(write(e))
                }
            },
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.sink {
            Sink::Temp(w, _) => w.write(buf),
            Sink::Stdout(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Temp(w, _) => w.write_all(buf),
            Sink::Stdout(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Temp(w, _) => w.flush(),
            Sink::Stdout(w) => w.flush(),
        }
    }
}

/// Writes `path` with `write`, which is handed a temporary path beside it that ends in
/// `.tmp.EXT` (EXT being `path`'s extension): for writers that open a path themselves
/// and go by its extension (the chart renderer). Checked, renamed and cleaned up as an
/// [`AtomicFile`]; `-` is refused (such a writer cannot write to standard output).
pub fn write_via_path<T, E: From<OutputError>>(
    path: &Path,
    inputs: &Inputs,
    write: impl FnOnce(&Path) -> Result<T, E>,
) -> Result<T, E> {
    if is_stdio(path) {
        return Err(OutputError::Create {
            path: path.into(),
            source: std::io::Error::other("this output cannot go to standard output"),
        }
        .into());
    }
    let ext = path.extension().map(|e| format!(".tmp.{}", e.to_string_lossy())).unwrap_or(".tmp".into());
    let file = temp_beside(path, &ext, inputs)?;
    let temp = file.path().to_path_buf();
    match write(&temp) {
        Ok(out) => {
            // the writer may have replaced the file: reopen it as the temporary file
            let reopened = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&temp)
                .map(|f| NamedTempFile::from_parts(f, file.into_temp_path()));
            match reopened {
                Ok(f) => persist(f, path, inputs)?,
                Err(source) => {
                    cleanup::unregister(&temp);
                    return Err(OutputError::Write { path: path.into(), source }.into());
                }
            }
            Ok(out)
        }
        Err(e) => {
            cleanup::unregister(&temp);
            drop(file);
            Err(e)
        }
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
    inputs: &Inputs,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, E>,
) -> Result<T, E> {
    let mut f = AtomicFile::create(path, inputs)?;
    let out = write(&mut f)?;
    f.commit()?;
    Ok(out)
}

/// Checks that `lines` with header `header` may be appended to `path` ([`append`]): the
/// target passes [`Inputs::check_target`], and an existing file starts with `header` (an
/// empty one is taken as new). For a command to check before its work.
pub fn check_append(path: &Path, inputs: &Inputs, header: &str) -> Result<(), OutputError> {
    use std::io::{BufRead, Read};
    inputs.check_target(path)?;
    if is_stdio(path) {
        return Ok(());
    }
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(OutputError::Open { path: path.into(), source }),
    };
    let mut first = String::new();
    std::io::BufReader::new(file.take(1 << 16))
        .read_line(&mut first)
        .map_err(|source| OutputError::Open { path: path.into(), source })?;
    let found = first.trim_end_matches(['\n', '\r']);
    if !first.is_empty() && found != header {
        return Err(OutputError::Header {
            path: path.into(),
            found: found.to_string(),
            expected: header.to_string(),
        });
    }
    Ok(())
}

/// Appends `lines` to the file at `path` (created when missing, then starting with
/// `header`; an existing file must start with `header`, see [`check_append`]): a log that
/// grows one entry at a time, such as `banksim measure --csv`, where replacing the file
/// would lose another process's rows. The text is appended with one write call.
pub fn append(path: &Path, inputs: &Inputs, header: &str, lines: &str) -> Result<(), OutputError> {
    check_append(path, inputs, header)?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| OutputError::Open { path: path.into(), source })?;
    let new = f.metadata().map_err(|source| OutputError::Open { path: path.into(), source })?.len() == 0;
    let mut text = String::new();
    if new {
        text.push_str(header);
        text.push('\n');
    }
    text.push_str(lines);
    f.write_all(text.as_bytes()).map_err(|source| OutputError::Write { path: path.into(), source })?;
    inputs.mark_written(path);
    Ok(())
}
