//! What `banksim probe` prints and writes: the verdict, the evidence table (each
//! pattern's loop time, its ratio to the conflict-free 4-byte load, and the wavefronts
//! and ratio the inferred structure predicts), a field-by-field comparison with a
//! preset, and the probed preset itself (a banksim config whose comment header says
//! what was measured, what was assumed, and carries the evidence).

use super::infer::{ratios, Fit, Inference, Verdict};
use super::model::{predict_hardware, LaneSet};
use super::patterns::WIDTHS;
use super::{Evidence, ProbeError};
use sim_core::{Hardware, Op, SameWord};
use std::fmt::Write;

/// A misfit per pattern (RMS, as a share) above which the summary warns.
pub const POOR_FIT: f64 = 0.15;

/// A preset compared with the probe: its predictions and their fit to the times.
pub struct Compared {
    /// Its name.
    pub name: String,
    /// The machine.
    pub hw: Hardware,
    /// Its wavefronts per pattern.
    pub wavefronts: Vec<f64>,
    /// Their fit to the times.
    pub fit: Fit,
}

/// `hw` (named `name`) against the evidence.
pub fn compare_with(name: &str, hw: &Hardware, e: &Evidence, inf: &Inference) -> Compared {
    let wavefronts = predict_hardware(hw, &e.patterns);
    let z: Vec<f64> = inf.loop_ns.iter().map(|t| t.ln()).collect();
    let fit = super::infer::fit(&z, &wavefronts);
    Compared { name: name.to_string(), hw: hw.clone(), wavefronts, fit }
}

/// The lanes `hw` serves together for loads of `bytes`, as a set of lane offsets: its
/// explicit groups' (the group of lane 0), else consecutive phases.
pub fn lane_set(hw: &Hardware, bytes: u8) -> LaneSet {
    match hw.crossbar.groups_for(Op::Load, bytes) {
        Some(groups) => {
            let first = groups.iter().find(|g| g.contains(&0)).map(Vec::as_slice).unwrap_or(&[]);
            LaneSet(first.iter().filter(|&&l| l < 64).fold(0u64, |m, &l| m | 1 << l))
        }
        None => LaneSet::consecutive(hw.phase_lanes(bytes)),
    }
}

/// `set`'s phases in words: `32 consecutive lanes`, or the group of lane 0 and the
/// offsets that generate the groups.
pub fn describe_lanes(set: LaneSet, warp: u32) -> String {
    if set.is_consecutive() {
        return format!("{} consecutive lanes", set.lanes());
    }
    let first: Vec<String> =
        set.groups(warp).first().map_or(Vec::new(), |g| g.iter().map(u16::to_string).collect());
    let basis: Vec<String> = set.basis().iter().map(u32::to_string).collect();
    format!("groups of {} lanes: {} (lane l with l ^ {})", set.lanes(), first.join(" "), basis.join(", l ^ "))
}

/// `hw`'s pair merge in words.
pub fn describe_merge(hw: &Hardware) -> String {
    match &hw.crossbar.load_pair_merge {
        None => "none".into(),
        Some(pm) => {
            let m: Vec<String> = pm.masks.iter().map(u32::to_string).collect();
            let w: Vec<String> = pm.widths.iter().map(u8::to_string).collect();
            format!("lane pairs l ^ {} at {} B", m.join(", l ^ "), w.join(", "))
        }
    }
}

fn describe_same_word(s: SameWord) -> &'static str {
    match s {
        SameWord::Multicast => "multicast (any lanes, one read)",
        SameWord::Serialize => "serialized (a lane at a time)",
        SameWord::OneBroadcastWord => "one broadcast word per wavefront",
    }
}

/// The verdict in a few lines: the structure found (or that none was), the fit, and
/// what the evidence leaves open.
pub fn summary(e: &Evidence, inf: &Inference, hw: &Hardware) -> String {
    let mut s = String::new();
    let n = e.patterns.len();
    let rms = |f: &Fit| 100.0 * f.rms(n);
    let lr = ratios(&e.patterns, &inf.loop_ns);
    let (lo, hi) = lr.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    if inf.verdict == Verdict::NoBanks {
        let _ = writeln!(
            s,
            "no bank structure seen: no bank structure explains the times much better than one time per \
             access width (ratios {lo:.2} to {hi:.2} of the 4-byte stride-1 load; one time per width fits with \
             RMS {:.1}% per pattern, the best bank structure with RMS {:.1}%). A CPU adapter such as lavapipe \
             has no banks; on a GPU this means the microbenchmark did not reach the shared-memory pipe's \
             bound. No preset is written.",
            100.0 * ((inf.flat_sse / n.max(1) as f64).sqrt().exp() - 1.0),
            rms(&inf.best.fit)
        );
        return s;
    }
    let c = &inf.best.candidate;
    let _ = writeln!(s, "banks: {} of {} bytes (warp {})", c.banks, c.bank_bytes, c.warp);
    for (i, w) in WIDTHS.iter().enumerate() {
        let _ =
            writeln!(s, "lanes served together, {w:>2}-byte loads: {}", describe_lanes(c.lanes[i], c.warp));
    }
    let _ = writeln!(s, "a word read by many lanes: {}", describe_same_word(c.broadcast));
    let _ = writeln!(s, "pair merge of wide loads: {}", describe_merge(hw));
    let _ = writeln!(
        s,
        "fit: RMS {:.1}% per pattern over {n} patterns (ratios {lo:.2} to {hi:.2}), {:.2} us of loop per wavefront (the `loop us` of a load of one), {}; \
         {} hypotheses scored",
        rms(&inf.best.fit),
        inf.best.fit.log_beta.exp() / 1e3,
        match inf.best.fit.floor {
            f if f <= 1.0 => "every load bound by the pipe".to_string(),
            f => format!("loads of fewer than {f} wavefronts bound by something else (issue)"),
        },
        inf.considered
    );
    if inf.best.fit.rms(n) > POOR_FIT {
        let _ = writeln!(
            s,
            "warning: even the best hypothesis misses the times by {:.0}% per pattern: the structure may be \
             outside what banksim's model holds, or the times too noisy (more --reps)",
            rms(&inf.best.fit)
        );
    }
    if let Some(r) = &inf.runner_up {
        let differs = c.differences(&r.candidate);
        let _ = writeln!(
            s,
            "margin: the closest other hypothesis ({}) fits with RMS {:.1}% per pattern",
            if differs.is_empty() {
                "the same fields".to_string()
            } else {
                format!("differs in {}", differs.join(", "))
            },
            rms(&r.fit)
        );
    }
    if inf.undetermined.is_empty() {
        let _ = writeln!(s, "every other hypothesis fits worse by more than one pattern off by 15%");
    } else {
        let _ = writeln!(
            s,
            "not determined: {} ({} other hypotheses fit within one pattern off by 15%)",
            inf.undetermined.join(", "),
            inf.ties.len()
        );
    }
    s
}

/// The evidence table: one line per pattern, with `compare`'s predictions where given.
pub fn table(e: &Evidence, inf: &Inference, compare: Option<&Compared>) -> String {
    let mut s = String::new();
    let measured = ratios(&e.patterns, &inf.loop_ns);
    let fitted = |f: &Fit, w: &[f64]| ratios(&e.patterns, &w.iter().map(|&w| f.time(w)).collect::<Vec<_>>());
    let best = fitted(&inf.best.fit, &inf.best.wavefronts);
    let other = compare.map(|c| (c, fitted(&c.fit, &c.wavefronts)));
    let _ = write!(s, "{:<20}{:>12}{:>9}{:>8}{:>9}", "pattern", "loop us", "ratio", "W", "fit");
    if let Some((c, _)) = &other {
        let _ = write!(s, "{:>9}{:>9}", format!("W {}", short(&c.name)), "fit");
    }
    s.push('\n');
    let banks = inf.verdict == Verdict::Banks;
    for (i, p) in e.patterns.iter().enumerate() {
        let _ = write!(s, "{:<20}{:>12.2}{:>9.2}", p.name, inf.loop_ns[i] / 1e3, measured[i]);
        match banks {
            true => write!(s, "{:>8}{:>9.2}", trim(inf.best.wavefronts[i]), best[i]),
            false => write!(s, "{:>8}{:>9}", "-", "-"),
        }
        .expect("a String takes any text");
        if let Some((c, r)) = &other {
            let _ = write!(s, "{:>9}{:>9.2}", trim(c.wavefronts[i]), r[i]);
        }
        s.push('\n');
    }
    let o: Vec<String> =
        WIDTHS.iter().zip(&e.overhead).map(|(w, t)| format!("{w} B {:.1} us", t.median_ns / 1e3)).collect();
    let _ =
        writeln!(s, "(loop us: the pattern's median time less the dispatch with no loop: {})", o.join(", "));
    s
}

fn short(name: &str) -> String {
    name.chars().take(7).collect()
}

/// A wavefront count: whole where it is.
fn trim(w: f64) -> String {
    if (w - w.round()).abs() < 1e-9 {
        format!("{}", w.round())
    } else {
        format!("{w:.2}")
    }
}

/// The probed machine against `c`, field by field. With no banks seen, the probed
/// column says so on every field (the best hypothesis is no finding).
pub fn fields(probed: &Hardware, c: &Compared, inf: &Inference, patterns: usize) -> String {
    let mut rows: Vec<(String, String, String)> = vec![
        ("warp".into(), probed.warp.to_string(), c.hw.warp.to_string()),
        ("banks".into(), probed.banks.to_string(), c.hw.banks.to_string()),
        ("bank_bytes".into(), probed.bank_bytes.to_string(), c.hw.bank_bytes.to_string()),
    ];
    for w in WIDTHS {
        rows.push((
            format!("lanes, {w}-byte loads"),
            describe_lanes(lane_set(probed, w as u8), probed.warp),
            describe_lanes(lane_set(&c.hw, w as u8), c.hw.warp),
        ));
    }
    rows.push((
        "broadcast (loads)".into(),
        format!("{:?}", probed.crossbar.broadcast),
        format!("{:?}", c.hw.crossbar.broadcast),
    ));
    rows.push(("load_pair_merge".into(), describe_merge(probed), describe_merge(&c.hw)));
    let banks = inf.verdict == Verdict::Banks;
    if !banks {
        for r in &mut rows {
            r.1 = "(no banks seen)".into();
        }
    }
    let mut s = String::new();
    let width = rows.iter().map(|r| r.1.len().max(r.2.len())).max().unwrap_or(0).max(c.name.len()).max(8);
    let _ = writeln!(s, "{:<24}{:<width$}  {}", "field", "probed", c.name);
    let mut differ = 0;
    for (field, a, b) in &rows {
        let mark = match (banks, a == b) {
            (false, _) => "",
            (true, true) => "same",
            (true, false) => "DIFFERS",
        };
        differ += usize::from(a != b);
        let _ = writeln!(s, "{}", format!("{field:<24}{a:<width$}  {b:<width$}  {mark}").trim_end());
    }
    let rms = |f: &Fit| format!("{:.1}%", 100.0 * f.rms(patterns));
    let _ = writeln!(s, "{:<24}{:<width$}  {}", "fit to the times (RMS)", rms(&inf.best.fit), rms(&c.fit));
    if banks {
        let _ = writeln!(s, "{differ} of {} fields differ", rows.len());
    } else {
        let _ = writeln!(s, "no bank structure seen: nothing to compare with `{}`", c.name);
    }
    s
}

/// The probed preset: a comment header (the adapter, what was measured, what was
/// assumed or copied from `base`, the fit and the evidence table) and the machine as
/// RON, which banksim reads back as a config.
pub fn preset(
    e: &Evidence,
    inf: &Inference,
    hw: &Hardware,
    base: Option<&str>,
) -> Result<String, ProbeError> {
    let mut s = String::new();
    let _ = writeln!(s, "// `{}`: shared-memory banks probed by `banksim probe` on {}", hw.name, e.adapter);
    let _ = writeln!(
        s,
        "// ({} patterns; times: {}; docs/probe.md explains the method).",
        e.patterns.len(),
        e.timer
    );
    let _ = writeln!(
        s,
        "// Measured: banks, bank_bytes, crossbar.lanes b4/b8/b16 (and groups where not consecutive), \
         crossbar.broadcast, crossbar.load_pair_merge."
    );
    let _ = writeln!(
        s,
        "// From the adapter: warp (its subgroup size{}).",
        if e.warps.len() > 1 { ", the best fit of several" } else { "" }
    );
    match base {
        Some(b) => {
            let _ = writeln!(
                s,
                "// Copied from preset `{b}`: smem_per_sm, timing, the crossbar's rules of stores, atomics, \
                 reductions and other ops (write_collision, atomic, reduction, groups of ops other than loads, \
                 ...); assumed: lanes b1/b2 as b4, mapping Linear, ports 1, crossbar.width (the 4-byte phase's \
                 bytes)."
            );
        }
        None => {
            let _ = writeln!(
                s,
                "// Assumed: lanes b1/b2 as b4, mapping Linear, ports 1, crossbar.width (the 4-byte phase's bytes), \
                 write_collision Multicast, atomic and reduction Serialize, other ops as loads and stores; \
                 smem_per_sm is the adapter's workgroup memory limit; no timing (counts wavefronts only; \
                 `banksim probe --base PRESET` copies one)."
            );
        }
    }
    for line in summary(e, inf, hw).lines() {
        let _ = writeln!(s, "// {line}");
    }
    let _ = writeln!(s, "// Evidence:");
    for line in table(e, inf, None).lines() {
        let _ = writeln!(s, "//   {line}");
    }
    let ron =
        configs::to_ron(hw, configs::RonStyle::File).map_err(|err| ProbeError::Preset(err.to_string()))?;
    s += &ron;
    s.push('\n');
    // what is written reads back as this machine
    let back = configs::parse_config(&s, &format!("the probed preset `{}`", hw.name))
        .map_err(|err| ProbeError::Preset(err.to_string()))?;
    if back != *hw {
        return Err(ProbeError::Preset("does not read back as the machine probed".into()));
    }
    Ok(s)
}
