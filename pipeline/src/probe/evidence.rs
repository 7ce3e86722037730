//! A probe's measurements as CSV (`banksim probe --csv`), read back by `--from` to run
//! the inference again without the GPU. Lines starting with `#` carry what ran them
//! (`# adapter: ...`, `# warps: 32`, `# smem_per_sm: 49152`, `# timer: ...`); then a
//! header and one row per pattern: its name, width, times (ns), repetitions and the
//! element of each lane of one period (space-separated). The fixed costs are the rows
//! named `4B overhead`, `8B overhead` and `16B overhead`, with no lanes.

use super::patterns::{Pattern, WIDTHS};
use super::{Evidence, ProbeError, Timing, ROW_BYTES};
use std::path::Path;

/// The CSV header.
pub const HEADER: &str = "pattern,bytes,median_ns,q1_ns,q3_ns,reps,lanes";

/// The evidence as CSV text.
pub fn to_csv(e: &Evidence) -> String {
    let mut s = String::from("# banksim probe evidence\n");
    s += &format!("# adapter: {}\n", e.adapter.replace('\n', " "));
    let warps: Vec<String> = e.warps.iter().map(u32::to_string).collect();
    s += &format!("# warps: {}\n# smem_per_sm: {}\n# timer: {}\n", warps.join(" "), e.smem_per_sm, e.timer);
    s += HEADER;
    s.push('\n');
    let row = |name: &str, bytes: u32, t: &Timing, lanes: &[u32]| {
        let lanes: Vec<String> = lanes.iter().map(u32::to_string).collect();
        format!(
            "{name},{bytes},{:.1},{:.1},{:.1},{},{}\n",
            t.median_ns,
            t.q1_ns,
            t.q3_ns,
            t.reps,
            lanes.join(" ")
        )
    };
    for (w, t) in WIDTHS.iter().zip(&e.overhead) {
        s += &row(&format!("{w}B overhead"), *w, t, &[]);
    }
    for (p, t) in e.patterns.iter().zip(&e.times) {
        s += &row(&p.name, p.bytes, t, &p.lanes);
    }
    s
}

/// Reads evidence written by [`to_csv`].
pub fn read(path: &Path) -> Result<Evidence, ProbeError> {
    let text = std::fs::read_to_string(path).map_err(|source| ProbeError::Io {
        path: path.into(),
        what: "cannot read",
        source,
    })?;
    parse(&text, path)
}

/// Parses evidence written by [`to_csv`]; `path` names it in messages.
pub fn parse(text: &str, path: &Path) -> Result<Evidence, ProbeError> {
    let bad = |line: usize, what: String| ProbeError::Parse { path: path.into(), line, what };
    let mut e = Evidence {
        adapter: String::new(),
        warps: Vec::new(),
        smem_per_sm: 0,
        timer: String::new(),
        patterns: Vec::new(),
        times: Vec::new(),
        overhead: [Timing { median_ns: f64::NAN, q1_ns: 0.0, q3_ns: 0.0, reps: 0 }; 3],
    };
    let mut header = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end_matches('\r');
        if let Some(meta) = line.strip_prefix('#') {
            let Some((key, value)) = meta.split_once(':') else { continue };
            let value = value.trim();
            match key.trim() {
                "adapter" => e.adapter = value.to_string(),
                "timer" => e.timer = value.to_string(),
                "smem_per_sm" => {
                    e.smem_per_sm = value
                        .parse()
                        .map_err(|_| bad(n, format!("smem_per_sm: `{value}` is not a number")))?
                }
                "warps" => {
                    e.warps = value
                        .split_whitespace()
                        .map(|w| match w.parse::<u32>() {
                            Ok(w) if w.is_power_of_two() && (4..=64).contains(&w) => Ok(w),
                            _ => Err(bad(n, format!("warps: `{w}` is not a power of two from 4 to 64"))),
                        })
                        .collect::<Result<_, _>>()?
                }
                _ => {}
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        if !header {
            if line != HEADER {
                return Err(bad(n, format!("expected the header `{HEADER}`")));
            }
            header = true;
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 7 {
            return Err(bad(n, format!("expected 7 fields ({HEADER}), found {}", f.len())));
        }
        let num = |i: usize, what: &str| -> Result<f64, ProbeError> {
            match f[i].trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                _ => Err(bad(n, format!("{what}: `{}` is not a time in ns", f[i]))),
            }
        };
        let bytes: u32 =
            f[1].trim().parse().map_err(|_| bad(n, format!("bytes: `{}` is not a number", f[1])))?;
        let Some(w) = WIDTHS.iter().position(|&x| x == bytes) else {
            return Err(bad(n, format!("bytes: {bytes} is not one of 4, 8, 16")));
        };
        let t = Timing {
            median_ns: num(2, "median_ns")?,
            q1_ns: num(3, "q1_ns")?,
            q3_ns: num(4, "q3_ns")?,
            reps: f[5].trim().parse().map_err(|_| bad(n, format!("reps: `{}` is not a number", f[5])))?,
        };
        let name = f[0].trim().to_string();
        if name == format!("{bytes}B overhead") {
            e.overhead[w] = t;
            continue;
        }
        let lanes: Vec<u32> = f[6]
            .split_whitespace()
            .map(|v| v.parse::<u32>().ok().filter(|&v| v * bytes < ROW_BYTES))
            .collect::<Option<_>>()
            .ok_or_else(|| bad(n, format!("lanes: expected elements below {}", ROW_BYTES / bytes)))?;
        if !(lanes.len().is_power_of_two() && (4..=64).contains(&lanes.len())) {
            return Err(bad(
                n,
                format!("lanes: {} of them; expected a power of two from 4 to 64", lanes.len()),
            ));
        }
        if e.patterns.iter().any(|p| p.name == name) {
            return Err(bad(n, format!("pattern `{name}` is given twice")));
        }
        e.patterns.push(Pattern { name, bytes, kind: None, lanes });
        e.times.push(t);
    }
    if !header {
        return Err(bad(
            text.lines().count().max(1),
            format!("no header `{HEADER}`: not a probe's evidence"),
        ));
    }
    if let Some(w) = e.overhead.iter().position(|t| t.median_ns.is_nan()) {
        return Err(bad(1, format!("no `{}B overhead` row", WIDTHS[w])));
    }
    let period = e.patterns.iter().map(|p| p.lanes.len() as u32).max().unwrap_or(0);
    if e.patterns.is_empty() || e.patterns.iter().any(|p| p.lanes.len() as u32 != period) {
        return Err(bad(1, "the patterns must all give lanes of one period".into()));
    }
    if e.warps.is_empty() {
        e.warps = vec![period];
    }
    if e.warps.iter().any(|&w| w > period) {
        return Err(bad(1, format!("warps: above the patterns' period of {period} lanes")));
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_reads_back() {
        let hw = configs::preset("rdna3").unwrap();
        let mut e = super::super::synthesize(&hw, &super::super::patterns::patterns(32), 1.0, 0.05);
        // (kinds are not written: a pattern read back has none)
        for p in &mut e.patterns {
            p.kind = None;
        }
        let text = to_csv(&e);
        let back = parse(&text, Path::new("e.csv")).unwrap();
        assert_eq!(back.patterns, e.patterns);
        assert_eq!(back.warps, e.warps);
        for (a, b) in back.times.iter().zip(&e.times) {
            assert!((a.median_ns - b.median_ns).abs() < 0.06, "{a:?} {b:?}");
        }
        let broken = text.replace("4B stride 2,4,", "4B stride 2,5,");
        let err = parse(&broken, Path::new("e.csv")).unwrap_err().to_string();
        assert!(err.starts_with("e.csv:") && err.contains("bytes: 5"), "{err}");
        let err = parse("pattern,bytes\n", Path::new("x.csv")).unwrap_err().to_string();
        assert!(err.contains("x.csv:1: expected the header"), "{err}");
    }
}
