//! Where a field of a RON file is: the line of `workloads[1].params.pad` in a study, so
//! that each problem found after parsing names its line. A small reader of RON's shape
//! (structs, tuples, lists, maps, strings, comments), run on text that already parsed;
//! it never fails, it only finds less.

/// One step of a path into a RON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A struct field, or a map key (a string).
    Key(String),
    /// A list or tuple element.
    Index(usize),
}

/// `name`, as a [`Seg::Key`].
pub fn key(name: &str) -> Seg {
    Seg::Key(name.to_string())
}

/// A value's line (1-based) and its parts.
#[derive(Debug, Default)]
struct Node {
    line: usize,
    children: Vec<(Seg, Node)>,
}

/// Deeper than this, the reader stops (RON's own limit is lower).
const MAX_DEPTH: usize = 256;

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    line: usize,
    /// A comment was seen.
    comment: bool,
}

impl Reader<'_> {
    fn skip_blank(&mut self) {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'/' if self.b.get(self.i + 1) == Some(&b'/') => {
                    self.comment = true;
                    while self.i < self.b.len() && self.b[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b'/' if self.b.get(self.i + 1) == Some(&b'*') => {
                    self.comment = true;
                    self.i += 2;
                    while self.i < self.b.len() && !self.b[self.i..].starts_with(b"*/") {
                        if self.b[self.i] == b'\n' {
                            self.line += 1;
                        }
                        self.i += 1;
                    }
                    self.i = (self.i + 2).min(self.b.len());
                }
                _ => break,
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// A string's contents (after its opening quote).
    fn string(&mut self) -> String {
        let mut out = Vec::new();
        self.i += 1;
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    if let Some(e) = self.peek() {
                        out.push(e);
                        self.i += 1;
                    }
                }
                b'\n' => {
                    self.line += 1;
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    fn ident(&mut self) -> String {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'#') {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.b[start..self.i]).into_owned()
    }

    fn value(&mut self, depth: usize) -> Node {
        self.skip_blank();
        let mut node = Node { line: self.line, children: Vec::new() };
        if depth > MAX_DEPTH {
            self.i = self.b.len();
            return node;
        }
        match self.peek() {
            Some(b'"') => {
                self.string();
            }
            Some(b'(') => self.entries(&mut node, b')', depth),
            Some(b'[') => self.entries(&mut node, b']', depth),
            Some(b'{') => self.entries(&mut node, b'}', depth),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.ident();
                self.skip_blank();
                if self.peek() == Some(b'(') {
                    self.entries(&mut node, b')', depth);
                }
            }
            Some(_) => {
                while self.peek().is_some_and(|c| !b",)]}:\n \t\r/".contains(&c)) {
                    self.i += 1;
                }
            }
            None => {}
        }
        node
    }

    /// The entries of a struct, tuple, list or map, up to `close`.
    fn entries(&mut self, node: &mut Node, close: u8, depth: usize) {
        self.i += 1;
        let mut index = 0;
        loop {
            self.skip_blank();
            match self.peek() {
                None => return,
                Some(c) if c == close => {
                    self.i += 1;
                    return;
                }
                Some(b',') => {
                    self.i += 1;
                    continue;
                }
                Some(b')' | b']' | b'}') => {
                    // a bracket of another kind: malformed, stop here
                    self.i += 1;
                    return;
                }
                _ => {}
            }
            let start = self.i;
            let line = self.line;
            // a field name or map key, then `:`; else an element
            let key = match self.peek() {
                Some(b'"') if close == b'}' => Some(self.string()),
                Some(c) if close == b')' && (c.is_ascii_alphabetic() || c == b'_') => {
                    let name = self.ident();
                    self.skip_blank();
                    if self.peek() == Some(b':') {
                        Some(name)
                    } else {
                        self.i = start;
                        self.line = line;
                        None
                    }
                }
                _ => None,
            };
            match key {
                Some(k) => {
                    self.skip_blank();
                    if self.peek() == Some(b':') {
                        self.i += 1;
                    }
                    let mut child = self.value(depth + 1);
                    child.line = line;
                    node.children.push((Seg::Key(k), child));
                }
                None => {
                    let child = self.value(depth + 1);
                    if close == b'}' {
                        // a map key that is not a string: skip its value
                        self.skip_blank();
                        if self.peek() == Some(b':') {
                            self.i += 1;
                            self.value(depth + 1);
                        }
                    } else {
                        node.children.push((Seg::Index(index), child));
                    }
                    index += 1;
                }
            }
            if self.i == start {
                self.i += 1; // always move on
            }
        }
    }
}

/// The line of the value at `path` in the RON text `text`, or of the deepest part of the
/// path found (`None` where not even the first step is there).
pub fn line_of(text: &str, path: &[Seg]) -> Option<usize> {
    let mut r = Reader { b: text.as_bytes(), i: 0, line: 1, comment: false };
    let root = r.value(0);
    let mut node = &root;
    let mut found = None;
    for seg in path {
        match node.children.iter().find(|(s, _)| s == seg) {
            Some((_, child)) => {
                node = child;
                found = Some(child.line);
            }
            None => break,
        }
    }
    found
}

/// Whether `text` is one RON value and nothing else (no second value after a comma, no
/// comment, no bracket left open or closed too often): what may be put into a config as
/// the value of one field.
pub fn is_one_value(text: &str) -> bool {
    let mut r = Reader { b: text.as_bytes(), i: 0, line: 1, comment: false };
    r.skip_blank();
    if r.peek().is_none() {
        return false;
    }
    if !balanced(text) {
        return false;
    }
    r.value(0);
    r.skip_blank();
    r.i == text.len() && !r.comment
}

/// Brackets matched and strings closed.
fn balanced(text: &str) -> bool {
    let mut stack = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => loop {
                match chars.next() {
                    None => return false,
                    Some('\\') => {
                        chars.next();
                    }
                    Some('"') => break,
                    Some(_) => {}
                }
            },
            '(' | '[' | '{' => stack.push(c),
            ')' | ']' | '}' => {
                let open = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if stack.pop() != Some(open) {
                    return false;
                }
            }
            _ => {}
        }
    }
    stack.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUDY: &str = "(\n    name: \"s\",\n    presets: [\"h100\"],\n    hardware: {\n        \"banks\": [16, 32],\n        \"crossbar.width\": [64],\n    },\n    // a comment: with (brackets\n    workloads: [\n        (gen: \"tile\", params: {\"pad\": \"0..=3\"}),\n        (gen: \"strided\",\n         params: {\"stride\": 1.5}),\n    ],\n)";

    #[test]
    fn fields_keys_and_elements_have_their_lines() {
        assert_eq!(line_of(STUDY, &[key("name")]), Some(2));
        assert_eq!(line_of(STUDY, &[key("hardware"), key("crossbar.width")]), Some(6));
        assert_eq!(line_of(STUDY, &[key("workloads"), Seg::Index(1)]), Some(11));
        let pad = [key("workloads"), Seg::Index(0), key("params"), key("pad")];
        assert_eq!(line_of(STUDY, &pad), Some(10));
        let stride = [key("workloads"), Seg::Index(1), key("params"), key("stride")];
        assert_eq!(line_of(STUDY, &stride), Some(12));
        // the deepest part found
        assert_eq!(line_of(STUDY, &[key("workloads"), Seg::Index(1), key("nothing")]), Some(11));
        assert_eq!(line_of(STUDY, &[key("nothing")]), None);
    }

    #[test]
    fn one_value_only() {
        for ok in ["Linear", "Xor(shift: 5, mask: 31)", "16", "Some((widths: [8], masks: [1]))", "\"a, b\""] {
            assert!(is_one_value(ok), "{ok}");
        }
        for bad in ["Linear, banks: 8", "", "Linear)", "(a", "Linear // x", "1 /* x */", "a b", "\"x"] {
            assert!(!is_one_value(bad), "{bad}");
        }
    }

    #[test]
    fn any_text_is_read_without_a_panic() {
        for t in ["(", "[[[", "{\"a\"", "(a:", "\"", "/*", "((((a: b)))", "{1: 2, \"k\": (x: 3)}", "r#\"x\"#"]
        {
            let _ = line_of(t, &[key("a"), Seg::Index(0)]);
            let _ = is_one_value(t);
        }
    }
}
