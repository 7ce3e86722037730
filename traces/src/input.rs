//! Opening a trace for reading, once: a file, or `-` for standard input (a pipe or FIFO
//! works as well). The first bytes are read into a buffer and kept, so the format is
//! told apart from them ([`Input::format`], the one place that decides it) without
//! reading the input a second time: nothing is lost from a stream that cannot be
//! rewound. A regular file is kept as a file (rewound to its start) so the binary reader
//! can read it by position or map it, and opened again ([`Input::path`]).

use crate::binary::MAGIC;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

/// The path that means standard input.
pub const STDIN: &str = "-";

/// A trace file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// CSV with a header (`block,thread,step,op,addr,bytes[,gap,dep[,wait[,site]]]`).
    Text,
    /// banksim's compact binary format (see [`crate::binary`]).
    Binary,
}

impl TraceFormat {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Text => "text",
            TraceFormat::Binary => "binary",
        }
    }

    /// The format a path's extension names (`.csv`, `.txt`: text; `.bsim`, `.bin`:
    /// binary), if any.
    pub fn from_extension(path: &Path) -> Option<TraceFormat> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("csv" | "txt") => Some(TraceFormat::Text),
            Some("bsim" | "bin") => Some(TraceFormat::Binary),
            _ => None,
        }
    }

    /// The format to write: `to` if given, else the one `path`'s extension names, else
    /// text.
    pub fn choose(to: Option<TraceFormat>, path: Option<&Path>) -> TraceFormat {
        to.or_else(|| path.and_then(TraceFormat::from_extension)).unwrap_or(TraceFormat::Text)
    }
}

/// A trace input, opened, with its first bytes read.
pub struct Input {
    name: String,
    /// The regular file it was opened from (`None`: standard input or a stream).
    path: Option<PathBuf>,
    head: Vec<u8>,
    source: Source,
}

enum Source {
    /// A regular file: its length, the file (positioned after `head`).
    File(std::fs::File, u64),
    /// A stream: standard input, a pipe, a FIFO, a device.
    Stream(Box<dyn Read + Send>),
}

/// Reads into `buf` until it is full or the input ends; the bytes read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// How many first bytes are kept to tell the format (and to see binary garbage).
const HEAD: usize = 64;

impl Input {
    /// Opens `path` (`-`: standard input) and reads its first bytes. A folder is an
    /// error here, not at the first read.
    pub fn open(path: &Path) -> std::io::Result<Input> {
        if path.as_os_str() == STDIN {
            return Input::from_stream(Box::new(std::io::stdin()), "<stdin>");
        }
        let mut file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        let name = path.display().to_string();
        if meta.is_dir() {
            return Err(std::io::Error::other("is a directory, expected a trace file"));
        }
        if !meta.is_file() {
            return Input::from_stream(Box::new(file), &name);
        }
        let mut head = vec![0u8; HEAD];
        let n = read_full(&mut file, &mut head)?;
        head.truncate(n);
        Ok(Input { name, path: Some(path.into()), head, source: Source::File(file, meta.len()) })
    }

    /// The regular file it was opened from, which can be opened again (`None`: standard
    /// input or another stream, which cannot be read twice).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// An input read from `stream`; `name` is used in messages.
    pub fn from_stream(mut stream: Box<dyn Read + Send>, name: &str) -> std::io::Result<Input> {
        let mut head = vec![0u8; HEAD];
        let n = read_full(&mut stream, &mut head)?;
        head.truncate(n);
        Ok(Input { name: name.into(), path: None, head, source: Source::Stream(stream) })
    }

    /// The name used in messages (the path, or `<stdin>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its format, from its first bytes: binary where it starts with the binary trace
    /// magic, or where its first line (as far as the kept head goes) is not text (a NUL
    /// byte, or bytes that are not UTF-8: a binary file, perhaps a damaged binary trace,
    /// that the text reader should not be given, as it would blame the encoding, not the
    /// format, where the binary reader names the wrong magic); text otherwise. Every
    /// reader of either format is chosen by this.
    pub fn format(&self) -> TraceFormat {
        if self.head.starts_with(MAGIC) || self.looks_binary() {
            TraceFormat::Binary
        } else {
            TraceFormat::Text
        }
    }

    /// Whether its first line is not text (see [`Input::format`]).
    fn looks_binary(&self) -> bool {
        let first = self.head.split(|&b| b == b'\n').next().unwrap_or(&[]);
        if first.contains(&0) {
            return true;
        }
        match std::str::from_utf8(first) {
            Ok(_) => false,
            // a character cut by the end of the head is fine
            Err(e) => e.error_len().is_some(),
        }
    }

    /// Whether it is a regular file (which can be read by position and read again).
    pub fn is_file(&self) -> bool {
        matches!(self.source, Source::File(..))
    }

    /// The file's length, for a regular file.
    pub fn file_len(&self) -> Option<u64> {
        match self.source {
            Source::File(_, len) => Some(len),
            Source::Stream(_) => None,
        }
    }

    /// The regular file, for reads by position (which leave its cursor where it is).
    pub fn file(&self) -> Option<&std::fs::File> {
        match &self.source {
            Source::File(f, _) => Some(f),
            Source::Stream(_) => None,
        }
    }

    /// The regular file, rewound to its start, and its length; a stream gives itself
    /// back.
    pub fn into_file(self) -> Result<(std::fs::File, u64, String), Input> {
        match self.source {
            Source::File(mut f, len) => match f.rewind() {
                Ok(()) => Ok((f, len, self.name)),
                Err(_) => Err(Input { source: Source::File(f, len), ..self }),
            },
            s => Err(Input { source: s, ..self }),
        }
    }

    /// The whole input from its first byte, as one reader.
    pub fn into_reader(self) -> Box<dyn Read + Send> {
        let head = std::io::Cursor::new(self.head);
        match self.source {
            Source::File(f, _) => Box::new(head.chain(f)),
            Source::Stream(s) => Box::new(head.chain(s)),
        }
    }
}
