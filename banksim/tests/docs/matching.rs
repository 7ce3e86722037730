//! A shown output against what a command prints: `...` on a line of its own stands for any
//! lines (none too), `[..]` for any text within a line.
//!
//! The printed lines are aligned to the shown ones: each stretch of shown lines between
//! `...` lines is placed on the printed lines it resembles most (in order, its length
//! kept). The output *shaped* like the shown one (the printed lines where they were placed,
//! `...` where the shown output has it, a shown line kept where it matches) is what a
//! diff shows, so that a changed number shows as one changed line, and what an overwrite
//! writes back, so that lines left out stay left out.

/// The wildcard line and the wildcard within a line.
const ANY_LINES: &str = "...";
const ANY_TEXT: &str = "[..]";

/// Whether `line` is `pattern`, where each `[..]` of `pattern` stands for any text.
pub fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split(ANY_TEXT);
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for p in middle {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// How much printed `line` resembles shown `pattern`: 4 where it matches, 3 where only
/// its digits differ, else up to 2 for the share of its words in common.
fn resemblance(pattern: &str, line: &str) -> f64 {
    if line_matches(pattern, line) {
        return 4.0;
    }
    let shape = |s: &str| -> String {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .collect()
    };
    if shape(pattern) == shape(line) {
        return 3.0;
    }
    let (a, b): (Vec<&str>, Vec<&str>) =
        (pattern.split_whitespace().collect(), line.split_whitespace().collect());
    let common = a.iter().filter(|w| b.contains(w)).count();
    2.0 * common as f64 / a.len().max(b.len()).max(1) as f64
}

/// A shown output compared with a printed one.
pub struct Compared {
    /// Whether the printed output matches the shown one.
    pub matches: bool,
    /// The printed output in the shape of the shown one (see the module's comment); the
    /// whole printed output where it cannot be placed.
    pub shaped: String,
}

/// `printed` compared with `shown` (each line ending with a newline).
pub fn compare(shown: &str, printed: &str) -> Compared {
    let actual: Vec<&str> = printed.lines().collect();
    let lines: Vec<&str> = shown.lines().collect();
    // stretches of shown lines between wildcard lines
    let mut stretches: Vec<Vec<&str>> = vec![Vec::new()];
    for l in &lines {
        if *l == ANY_LINES {
            if !stretches.last().unwrap().is_empty() {
                stretches.push(Vec::new());
            }
        } else {
            stretches.last_mut().unwrap().push(l);
        }
    }
    if stretches.last().is_some_and(|s| s.is_empty()) {
        stretches.pop();
    }
    let leading = lines.first() == Some(&ANY_LINES);
    let trailing = lines.last() == Some(&ANY_LINES);
    let whole = || Compared { matches: false, shaped: printed.to_string() };
    if stretches.is_empty() {
        // nothing shown, or only `...`
        let matches = leading || actual.is_empty();
        return Compared { matches, shaped: if matches { shown.to_string() } else { printed.to_string() } };
    }
    let n = actual.len();
    let k = stretches.len();
    let score = |i: usize, p: usize| -> f64 {
        stretches[i].iter().zip(&actual[p..]).map(|(s, a)| resemblance(s, a)).sum()
    };
    // best[i][p]: the best total for stretches 0..=i with stretch i starting at line p
    let mut best = vec![vec![f64::NEG_INFINITY; n + 1]; k];
    let mut from = vec![vec![0usize; n + 1]; k];
    for i in 0..k {
        let len = stretches[i].len();
        for p in 0..=n {
            if p + len > n || (i == 0 && !leading && p != 0) || (i == k - 1 && !trailing && p + len != n) {
                continue;
            }
            if i == 0 {
                best[0][p] = score(0, p);
                continue;
            }
            let prev_len = stretches[i - 1].len();
            let prev = (0..=p.saturating_sub(prev_len))
                .filter(|&q| q + prev_len <= p)
                .max_by(|&a, &b| best[i - 1][a].total_cmp(&best[i - 1][b]));
            if let Some(q) = prev.filter(|&q| best[i - 1][q].is_finite()) {
                best[i][p] = best[i - 1][q] + score(i, p);
                from[i][p] = q;
            }
        }
    }
    let Some(mut p) = (0..=n)
        .filter(|&p| best[k - 1][p].is_finite())
        .max_by(|&a, &b| best[k - 1][a].total_cmp(&best[k - 1][b]))
    else {
        return whole();
    };
    let mut starts = vec![0; k];
    for i in (0..k).rev() {
        starts[i] = p;
        p = from[i][p];
    }
    // a stretch placed on lines mostly unlike it: the output changed beyond its numbers
    if (0..k).any(|i| score(i, starts[i]) < stretches[i].len() as f64) {
        return whole();
    }
    let mut matches = true;
    let mut shaped = String::new();
    if leading {
        shaped.push_str("...\n");
    }
    for (i, stretch) in stretches.iter().enumerate() {
        if i > 0 {
            shaped.push_str("...\n");
        }
        for (s, a) in stretch.iter().zip(&actual[starts[i]..]) {
            let same = line_matches(s, a);
            matches &= same;
            shaped.push_str(if same { s } else { a });
            shaped.push('\n');
        }
    }
    if trailing {
        shaped.push_str("...\n");
    }
    // lines the wildcards would have to drop: printed lines before the first stretch or
    // after the last where the shown output has no `...` there are excluded above
    Compared { matches, shaped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_within_a_line() {
        assert!(line_matches("a [..] c", "a b b c"));
        assert!(line_matches("[..]", ""));
        assert!(line_matches("x[..]", "xyz"));
        assert!(!line_matches("a [..] c", "a b d"));
        assert!(!line_matches("abc", "abcd"));
        assert!(!line_matches("ab[..]ba", "aba"));
    }

    #[test]
    fn lines_left_out_match_any_lines() {
        let shown = "head\n...\nrow 2 = 4\n...\n";
        assert!(compare(shown, "head\nrow 1 = 1\nrow 2 = 4\nrow 3 = 9\n").matches);
        assert!(compare(shown, "head\nrow 2 = 4\n").matches);
        assert!(!compare(shown, "head\nrow 1 = 1\n").matches);
        assert!(!compare("head\n", "head\nmore\n").matches);
        assert!(compare("...\n", "anything\n").matches);
        assert!(compare("", "").matches && !compare("", "x\n").matches);
    }

    #[test]
    fn a_changed_number_keeps_the_shape() {
        let shown = "head [..]\n...\nrow 2 = 4\nrow 3 = 9\n...\n";
        let c = compare(shown, "head 7\nrow 1 = 1\nrow 2 = 5\nrow 3 = 9\nrow 4 = 16\n");
        assert!(!c.matches);
        assert_eq!(c.shaped, "head [..]\n...\nrow 2 = 5\nrow 3 = 9\n...\n");
        // unlike anything shown: the whole output
        let c = compare(shown, "something else entirely\n");
        assert_eq!((c.matches, c.shaped.as_str()), (false, "something else entirely\n"));
    }
}
