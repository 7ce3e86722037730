//! Source sites: where in a program each record comes from.
//!
//! A record may carry a *site id*, an index into its trace's site table. A site is a
//! one-line label: `FILE:LINE:COL` for a captured WGSL access (the file as named on the
//! command line, 1-based line and column), `pc 0x0a30 LDS.U.32` for an instruction of
//! an imported CUDA trace, or any other text without a line end. The text format writes
//! the table as comment lines before the header,
//!
//! ```text
//! # site 0 transpose.wgsl:17:5
//! # site 1 transpose.wgsl:19:24
//! block,thread,step,op,addr,bytes,gap,dep,wait,site
//! 0,0,0,st,0,4,3,0,,0
//! ```
//!
//! ids numbered from 0 in order; the binary format keeps the same table after its
//! header (see [`crate::binary`]).
//!
//! ```
//! use traces::site::{parse_table_line, SourceLocation};
//!
//! assert_eq!(parse_table_line("# site 0 k.wgsl:12:5"), Some(Ok((0, "k.wgsl:12:5"))));
//! assert_eq!(parse_table_line("# a comment"), None);
//! let at = SourceLocation::parse("dir/k.wgsl:12:5").unwrap();
//! assert_eq!((at.file, at.line, at.column), ("dir/k.wgsl", 12, 5));
//! assert!(SourceLocation::parse("pc 0x0a30 LDS.U.32").is_none());
//! ```

/// The site of a record that has none.
pub const NO_SITE: u32 = u32::MAX;

/// The most entries a site table may have (ids are below it, so [`NO_SITE`] is never one).
pub const MAX_SITES: usize = 1 << 24;

/// What starts a site table line of the text format.
pub const TABLE_PREFIX: &str = "# site ";

/// A site table line's id and label; `None` for a line that is not one (any other
/// comment), `Some(Err(problem))` for one that starts like one but does not parse.
pub fn parse_table_line(line: &str) -> Option<Result<(u32, &str), &'static str>> {
    let rest = line.strip_prefix(TABLE_PREFIX)?;
    let rest = rest.trim_start();
    let (id, label) = rest.split_once([' ', '\t']).unwrap_or((rest, ""));
    let Ok(id) = id.parse::<u32>() else {
        return Some(Err("expected `# site ID LABEL` with ID a non-negative integer"));
    };
    let label = label.trim();
    if label.is_empty() {
        return Some(Err("expected `# site ID LABEL`: the label is missing"));
    }
    Some(Ok((id, label)))
}

/// Writes `sites` as the text format's table lines (`# site ID LABEL`); a line end in a
/// label is written as a space.
pub fn write_table<W: std::io::Write>(sites: &[String], mut out: W) -> std::io::Result<()> {
    for (id, label) in sites.iter().enumerate() {
        writeln!(out, "{TABLE_PREFIX}{id} {}", label.replace(['\n', '\r'], " "))?;
    }
    Ok(())
}

/// A label of the form `FILE:LINE:COL`, parsed: where in a source file a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLocation<'a> {
    /// The file, as the label names it.
    pub file: &'a str,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
}

impl<'a> SourceLocation<'a> {
    /// `FILE:LINE:COL` (the last two colons split it, so a file may hold colons);
    /// `None` for any other label.
    pub fn parse(label: &'a str) -> Option<SourceLocation<'a>> {
        let (rest, column) = label.rsplit_once(':')?;
        let (file, line) = rest.rsplit_once(':')?;
        let number = |s: &str| s.parse::<u32>().ok().filter(|&n| n > 0 && !s.starts_with('+'));
        (!file.is_empty()).then_some(())?;
        Some(SourceLocation { file, line: number(line)?, column: number(column)? })
    }
}
