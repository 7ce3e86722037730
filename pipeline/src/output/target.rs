//! What may be written: the checks every output path passes before anything is written.
//!
//! A command lists the files it reads in its own [`Inputs`]; a target is refused when it
//! is one of them (the same canonical path, or the same device and inode: a hard link),
//! or when it exists and is not a regular file (a device, a FIFO, a socket, a symbolic
//! link or a folder), which renaming a file over it would replace. `-` is standard
//! output.
//!
//! A command's outputs are checked against each other too: before anything is read,
//! [`check_distinct`] refuses two outputs on one path (the same file, however spelled),
//! and while the command runs, a file it has already written is refused as the target of
//! another of its outputs (one it derives, say `DIR/requests.csv` of `--out DIR`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The path that means standard output (or input, where a trace is read).
pub const STDIO: &str = "-";

/// Whether `path` is `-`.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// A file read: its canonical path and (on Unix) device and inode.
struct Input {
    canonical: PathBuf,
    id: Option<(u64, u64)>,
}

/// The files one command reads, which no output of it may replace, and the files it has
/// written, which no other output of it may replace. Cloned handles share the lists (an
/// output file keeps one, to check its target again when it is renamed into place); they
/// go when the command's last handle does.
#[derive(Clone, Default)]
pub struct Inputs(Arc<Mutex<Files>>);

/// The files of [`Inputs`].
#[derive(Default)]
struct Files {
    read: Vec<Input>,
    /// What [`identity`] gives for each file written.
    written: Vec<PathBuf>,
}

/// Device and inode of the file at `path` (following links), where it exists.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

impl Inputs {
    /// No inputs yet.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// Records that the command reads `path` (a file, or a folder whose files it reads):
    /// no output may replace it. `-` and paths that do not exist are ignored.
    pub fn declare(&self, path: &Path) {
        if is_stdio(path) {
            return;
        }
        let Ok(canonical) = std::fs::canonicalize(path) else { return };
        let id = file_id(path);
        self.0.lock().unwrap_or_else(|e| e.into_inner()).read.push(Input { canonical, id });
    }

    /// [`Inputs::declare`] for each of `paths`.
    pub fn declare_all<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) {
        for p in paths {
            self.declare(p);
        }
    }

    /// [`Inputs::declare`] for `dir` and every file directly inside it (a folder of
    /// inputs: a run or sweep output read by `report`, a shard read by `merge`).
    pub fn declare_folder(&self, dir: &Path) {
        self.declare(dir);
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| t.is_file()) {
                    self.declare(&e.path());
                }
            }
        }
    }

    /// Whether the output `path` may be written: `-`, a new file, or an existing regular
    /// file that is not one of these inputs.
    pub fn check_target(&self, path: &Path) -> Result<(), TargetError> {
        if is_stdio(path) {
            return Ok(());
        }
        if self.0.lock().unwrap_or_else(|e| e.into_inner()).written.contains(&identity(path)) {
            return Err(TargetError::WrittenTwice { path: path.into() });
        }
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            // does not exist (or cannot be seen: creating it will say why)
            return Ok(());
        };
        if !meta.file_type().is_file() {
            return Err(TargetError::NotRegular { path: path.into(), kind: kind_of(meta.file_type()) });
        }
        let canonical = std::fs::canonicalize(path).ok();
        let id = file_id(path);
        let inputs = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let same = inputs
            .read
            .iter()
            .any(|i| canonical.as_ref().is_some_and(|c| *c == i.canonical) || (id.is_some() && id == i.id));
        if same {
            return Err(TargetError::IsInput { path: path.into() });
        }
        Ok(())
    }

    /// Notes that the command has written `path` (put it in place): no other output of
    /// the command may replace it.
    pub fn mark_written(&self, path: &Path) {
        if !is_stdio(path) {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).written.push(identity(path));
        }
    }

    /// How many inputs are listed.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).read.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The file a path names, whether it exists or not: its canonical path where it exists,
/// else its folder's canonical path with its name, else the path made absolute with `.`
/// and `..` taken out. Two spellings of one file give the same.
pub fn identity(path: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(path) {
        return c;
    }
    let absolute = std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    match (out.parent().and_then(|p| std::fs::canonicalize(p).ok()), out.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => out,
    }
}

/// That no two of a command's outputs, each given as (what names it, e.g. `--per-sm`, its
/// path), are one file, nor both standard output: checked before the command reads or
/// writes anything.
pub fn check_distinct<'a>(outputs: impl IntoIterator<Item = (&'a str, &'a Path)>) -> Result<(), TargetError> {
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for (what, path) in outputs {
        let id = if is_stdio(path) { PathBuf::from(STDIO) } else { identity(path) };
        if let Some((first, _)) = seen.iter().find(|(_, p)| *p == id) {
            return Err(TargetError::SameOutput {
                path: path.into(),
                first: first.to_string(),
                second: what.to_string(),
            });
        }
        seen.push((what, id));
    }
    Ok(())
}

/// Why `path` cannot be written to.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// It is a file this command reads.
    #[error("{}: refusing to write over an input of this command (choose another output path)", path.display())]
    IsInput {
        /// The target.
        path: PathBuf,
    },
    /// Two outputs of the command were given this path.
    #[error("{}: given as both {first} and {second}; each output needs a path of its own (only one of them would be kept)", path.display())]
    SameOutput {
        /// The path.
        path: PathBuf,
        /// The first output that names it.
        first: String,
        /// The second.
        second: String,
    },
    /// The command has already written this file, as another of its outputs.
    #[error("{}: already written by this command as another of its outputs; each output needs a path of its own", path.display())]
    WrittenTwice {
        /// The target.
        path: PathBuf,
    },
    /// It exists and is not a regular file.
    #[error("{}: refusing to replace a {kind} with an output file (only regular files are replaced; use `-` for standard output)", path.display())]
    NotRegular {
        /// The target.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
}

/// What kind of file `t` is, in words.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    if t.is_symlink() {
        "symbolic link"
    } else if t.is_dir() {
        "folder"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_on_one_file_are_refused_however_spelled() {
        let tmp = tempfile::Builder::new().prefix("banksim-target-").tempdir().unwrap();
        let d = tmp.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        let (a, b) = (d.join("x.csv"), d.join("sub/../x.csv"));
        let err = check_distinct([("--a", a.as_path()), ("--b", b.as_path())]).unwrap_err().to_string();
        assert!(err.contains("given as both --a and --b"), "{err}");
        check_distinct([("--a", a.as_path()), ("--b", d.join("y.csv").as_path())]).unwrap();
        let stdout = Path::new(STDIO);
        assert!(check_distinct([("--a", stdout), ("--b", stdout)]).is_err());
    }

    #[test]
    fn a_file_written_by_the_command_is_no_target_of_another_output() {
        let tmp = tempfile::Builder::new().prefix("banksim-target-").tempdir().unwrap();
        let path = tmp.path().join("out.csv");
        let inputs = Inputs::new();
        crate::output::write_atomically(&path, &inputs, |f| -> crate::Result<()> {
            std::io::Write::write_all(f, b"first").map_err(|e| crate::Error::io(&path, "cannot write", e))
        })
        .unwrap();
        let err = inputs.check_target(&tmp.path().join("./out.csv")).unwrap_err().to_string();
        assert!(err.contains("already written by this command"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        // another command (other `Inputs`) may write it
        Inputs::new().check_target(&path).unwrap();
    }

    #[test]
    fn rows_are_appended_only_under_their_own_header() {
        let tmp = tempfile::Builder::new().prefix("banksim-target-").tempdir().unwrap();
        let path = tmp.path().join("log.csv");
        let inputs = Inputs::new();
        crate::output::append(&path, &inputs, "a,b", "1,2\n").unwrap();
        crate::output::append(&path, &Inputs::new(), "a,b", "3,4\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n3,4\n");
        let err = crate::output::append(&path, &Inputs::new(), "a,c", "5,6\n").unwrap_err().to_string();
        assert!(err.contains("its header is `a,b`, not `a,c`"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n3,4\n");
    }
}
