//! The blocks of a Markdown page that the docs test runs, and the page rewritten with new
//! outputs.
//!
//! A fenced block whose info string starts with `console` is a transcript: each `$ COMMAND`
//! line (continued on the next line after a trailing `\`) is followed by what it prints,
//! standard output and standard error together, up to the next `$` line or the fence.
//! Words after `console` in the info string:
//! - `gpu`: the block needs a Vulkan adapter (lavapipe will do);
//! - `not-run: REASON`: the block is shown but not run, for the reason given.
//!
//! A fenced block of any language with `file=NAME` in its info string is a file the page
//! shows: it is written as `NAME` into the page's folder before the blocks after it run.

/// A `console` block, or a file the page shows.
#[derive(Debug, PartialEq)]
pub enum Block {
    /// A `console` block.
    Transcript(Transcript),
    /// A block with `file=NAME`: its name and text.
    File { line: usize, name: String, text: String },
}

/// A `console` block: where it is, how it is marked, its commands.
#[derive(Debug, PartialEq)]
pub struct Transcript {
    /// The line of its opening fence (1-based).
    pub line: usize,
    /// Whether it needs a Vulkan adapter (`gpu`).
    pub gpu: bool,
    /// Why it is not run (`not-run: REASON`), where it is not.
    pub not_run: Option<String>,
    /// Its commands in order.
    pub steps: Vec<Step>,
}

/// One `$ COMMAND` and what the page shows it printing.
#[derive(Debug, PartialEq)]
pub struct Step {
    /// The command as the shell reads it (continuation lines joined by newlines).
    pub command: String,
    /// The line of the `$` (1-based).
    pub line: usize,
    /// The shown output's lines: indices `start..end` of the page's lines (0-based).
    pub output: std::ops::Range<usize>,
    /// The shown output, each line ending with a newline.
    pub expected: String,
}

/// The opening or closing fence of a code block on this line: its backticks and its info
/// string.
fn fence(line: &str) -> Option<(usize, &str)> {
    let ticks = line.chars().take_while(|&c| c == '`').count();
    (ticks >= 3).then(|| (ticks, line[ticks..].trim()))
}

/// The blocks of `text` that the docs test uses, in order.
pub fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((ticks, info)) = fence(lines[i]) else {
            i += 1;
            continue;
        };
        let open = i;
        let mut close = open + 1;
        while close < lines.len() && fence(lines[close]).is_none_or(|(t, rest)| t < ticks || !rest.is_empty())
        {
            close += 1;
        }
        let body = open + 1..close;
        let mut words = info.split_whitespace();
        let language = words.next().unwrap_or("");
        let file = info.split_whitespace().find_map(|w| w.strip_prefix("file="));
        if language == "console" {
            let gpu = info.split_whitespace().any(|w| w == "gpu");
            let not_run = info.find("not-run:").map(|at| info[at + "not-run:".len()..].trim().to_string());
            out.push(Block::Transcript(Transcript {
                line: open + 1,
                gpu,
                not_run,
                steps: steps(&lines, body),
            }));
        } else if let Some(name) = file {
            let text: String = lines[body].iter().map(|l| format!("{l}\n")).collect();
            out.push(Block::File { line: open + 1, name: name.to_string(), text });
        }
        i = close + 1;
    }
    out
}

/// The commands of a `console` block whose body is `lines[body]`.
fn steps(lines: &[&str], body: std::ops::Range<usize>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut i = body.start;
    while i < body.end {
        let Some(first) = lines[i].strip_prefix("$ ") else {
            // output before the first command belongs to none: it is a mistake of the page,
            // shown as a command that prints nothing and is expected to print it
            if out.is_empty() {
                out.push(Step { command: String::new(), line: i + 1, output: i..i, expected: String::new() });
            }
            let last = out.last_mut().unwrap();
            last.output.end = i + 1;
            last.expected.push_str(lines[i]);
            last.expected.push('\n');
            i += 1;
            continue;
        };
        let line = i + 1;
        let mut command = first.to_string();
        while command.ends_with('\\') && i + 1 < body.end {
            i += 1;
            command.push('\n');
            command.push_str(lines[i]);
        }
        i += 1;
        out.push(Step { command, line, output: i..i, expected: String::new() });
    }
    out
}

/// `text` with each step's shown output replaced by its new text (`(output range, new
/// text)`, each line of the new text ending with a newline).
pub fn rewrite(text: &str, mut outputs: Vec<(std::ops::Range<usize>, String)>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    outputs.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(text.len());
    let mut next = 0;
    for (range, new) in outputs {
        for l in &lines[next..range.start] {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str(&new);
        next = range.end;
    }
    for l in &lines[next..] {
        out.push_str(l);
        out.push('\n');
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# A page\n\n```csv file=t.csv\nblock,thread\n0,0\n```\n\n\
        ```console gpu\n$ banksim run t.csv\nline 1\n...\n$ banksim a \\\n    b\n```\n\n\
        ```console not-run: needs an H100\n$ banksim measure k.wgsl\n```\n\n```sh\n$ not a transcript\n```\n";

    #[test]
    fn transcripts_files_and_marks_are_read() {
        let b = blocks(PAGE);
        assert_eq!(b.len(), 3, "{b:?}");
        assert_eq!(b[0], Block::File { line: 3, name: "t.csv".into(), text: "block,thread\n0,0\n".into() });
        let Block::Transcript(s) = &b[1] else { panic!("{b:?}") };
        assert!(s.gpu && s.not_run.is_none());
        assert_eq!(s.steps.len(), 2);
        assert_eq!(s.steps[0].command, "banksim run t.csv");
        assert_eq!(s.steps[0].expected, "line 1\n...\n");
        assert_eq!(s.steps[0].output, 9..11);
        assert_eq!(s.steps[1].command, "banksim a \\\n    b");
        assert_eq!(s.steps[1].output, 13..13);
        let Block::Transcript(s) = &b[2] else { panic!("{b:?}") };
        assert_eq!(s.not_run.as_deref(), Some("needs an H100"));
        assert!(!s.gpu);
    }

    #[test]
    fn a_rewrite_replaces_only_the_outputs() {
        let steps = match &blocks(PAGE)[1] {
            Block::Transcript(s) => s.steps.iter().map(|s| s.output.clone()).collect::<Vec<_>>(),
            _ => unreachable!(),
        };
        let new = rewrite(PAGE, vec![(steps[0].clone(), "new\n".into()), (steps[1].clone(), "two\n".into())]);
        assert_eq!(new, PAGE.replace("line 1\n...\n", "new\n").replace("    b\n```", "    b\ntwo\n```"));
        assert_eq!(rewrite(PAGE, Vec::new()), PAGE);
    }
}
