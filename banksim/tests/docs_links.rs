//! Every relative link in README.md, ARCHITECTURE.md and docs/*.md points at a file that
//! exists, and every `#anchor` at a heading of its target (GitHub's heading ids).
//!
//! `cargo test -p banksim --test docs_links`. Links to web pages (`http:`, `https:`,
//! `mailto:`) are not checked; links inside code blocks and code spans are not links.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Markdown files whose links are checked.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    docs.sort();
    files.extend(docs);
    files.retain(|p| p.is_file());
    files
}

/// The text of each line outside fenced code blocks, with code spans blanked out;
/// `None` for lines inside a fence (and the fences themselves).
fn prose_lines(text: &str) -> Vec<Option<String>> {
    let mut fence: Option<String> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker: String = trimmed.chars().take_while(|&c| c == '`' || c == '~').collect();
        if marker.len() >= 3 && marker.chars().all(|c| c == marker.chars().next().unwrap()) {
            match &fence {
                None => fence = Some(marker),
                Some(open) if marker.starts_with(open.as_str()) && trimmed.trim_end() == marker => {
                    fence = None
                }
                Some(_) => {}
            }
            out.push(None);
            continue;
        }
        if fence.is_some() {
            out.push(None);
            continue;
        }
        // blank out `code spans` (a run of N backticks closes at the next run of N)
        let chars: Vec<char> = line.chars().collect();
        let mut kept = String::with_capacity(line.len());
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '`' {
                let n = chars[i..].iter().take_while(|&&c| c == '`').count();
                let mut j = i + n;
                let mut close = None;
                while j < chars.len() {
                    if chars[j] == '`' {
                        let m = chars[j..].iter().take_while(|&&c| c == '`').count();
                        if m == n {
                            close = Some(j + m);
                            break;
                        }
                        j += m;
                    } else {
                        j += 1;
                    }
                }
                match close {
                    Some(end) => {
                        kept.push_str(&" ".repeat(end - i));
                        i = end;
                    }
                    None => {
                        kept.extend(&chars[i..]);
                        i = chars.len();
                    }
                }
            } else {
                kept.push(chars[i]);
                i += 1;
            }
        }
        out.push(Some(kept));
    }
    out
}

/// `(line number, target)` of every inline link or image `[text](target "title")` and
/// every reference definition `[name]: target`.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in prose_lines(text).into_iter().enumerate() {
        let Some(line) = line else { continue };
        let t = line.trim_start();
        if t.starts_with('[') {
            if let Some(end) = t.find("]:") {
                if let Some(target) = t[end + 2..].split_whitespace().next() {
                    found.push((n + 1, target.trim_matches(['<', '>']).to_string()));
                }
                continue;
            }
        }
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            // the target ends at the `)` that balances the `(`
            let mut depth = 0usize;
            let mut end = None;
            for (k, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        end = Some(k);
                        break;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            let Some(end) = end else { break };
            let inner = after[..end].trim();
            let target = inner.split_whitespace().next().unwrap_or("");
            found.push((n + 1, target.trim_matches(['<', '>']).to_string()));
            rest = &after[end..];
        }
    }
    found
}

/// GitHub's id for a heading: lower case, punctuation dropped (but `-` and `_`), spaces
/// to `-`; a repeated id gets `-1`, `-2`, ...
fn heading_ids(text: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    let mut fence_free = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            fence_free.push(line);
        }
    }
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for line in fence_free {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = line[hashes..].trim().trim_end_matches('#').trim();
        let mut id = String::new();
        for c in title.chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                id.push(c);
            } else if c == ' ' {
                id.push('-');
            }
        }
        let count = seen.entry(id.clone()).or_insert(0);
        if *count > 0 {
            ids.insert(format!("{id}-{count}"));
        } else {
            ids.insert(id.clone());
        }
        *count += 1;
    }
    ids
}

/// Every broken link of `doc` (its text `text`), as `file:line: target: problem`.
fn broken_links(doc: &Path, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let dir = doc.parent().unwrap_or(Path::new("."));
    for (line, target) in links(text) {
        let lower = target.to_ascii_lowercase();
        if target.is_empty() {
            problems.push(format!("{}:{line}: empty link target", doc.display()));
            continue;
        }
        if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() { doc.to_path_buf() } else { dir.join(path) };
        if !file.exists() {
            problems.push(format!("{}:{line}: `{target}`: no such file {}", doc.display(), file.display()));
            continue;
        }
        if let Some(anchor) = anchor {
            if file.extension().is_some_and(|x| x == "md") {
                let target_text = if path.is_empty() {
                    text.to_string()
                } else {
                    fs::read_to_string(&file).unwrap_or_default()
                };
                if !heading_ids(&target_text).contains(anchor) {
                    problems.push(format!(
                        "{}:{line}: `{target}`: no heading with id `{anchor}` in {}",
                        doc.display(),
                        file.display()
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_resolves() {
    let root = repo_root();
    let docs = documents(&root);
    assert!(docs.iter().any(|p| p.ends_with("README.md")), "README.md not found under {}", root.display());
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = fs::read_to_string(doc).unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        checked += links(&text).len();
        problems.extend(broken_links(doc, &text));
    }
    assert!(problems.is_empty(), "{} broken link(s):\n{}", problems.len(), problems.join("\n"));
    eprintln!("docs_links: {checked} links in {} files resolve", docs.len());
}

#[test]
fn the_checker_finds_broken_links() {
    let root = repo_root();
    let doc = root.join("README.md");
    let text = "# Title\n\n## Two words\n\n[ok](README.md) [ok](#two-words) [bad](no/such/file.md)\n\
                [bad anchor](#nowhere) ![img](missing.png) [web](https://example.com/x)\n\
                `[code](not/checked.md)`\n```sh\n[fenced](not/checked.md)\n# not a heading\n```\n\
                [ref]: also/missing.md\n";
    let problems = broken_links(&doc, text);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    for needle in ["no/such/file.md", "#nowhere", "missing.png", "also/missing.md"] {
        assert!(problems.iter().any(|p| p.contains(needle)), "{needle} not reported: {problems:#?}");
    }
    let ids = heading_ids("# The `h100` rule\n## Cycles\n## Cycles\n```\n# x\n```\n");
    assert!(ids.contains("the-h100-rule") && ids.contains("cycles") && ids.contains("cycles-1"), "{ids:?}");
    assert!(!ids.contains("x"));
}
