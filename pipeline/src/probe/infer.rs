//! From measured times to a bank structure: every hypothesis of [`super::model`] predicts
//! each pattern's wavefronts with banksim's bank model; the one whose predictions,
//! scaled, best match the measured loop times (least squares on logarithms) wins.
//!
//! The measured loop time of pattern `p` (its time less the dispatch's fixed cost,
//! measured with no loop) is modelled as `beta * max(W(p), floor)`: `beta` the time of
//! a wavefront, `W(p)` the candidate's wavefronts per load, and `floor` the fewest
//! wavefronts' worth of time a load takes when something else (issuing instructions)
//! is slower than the pipe, one of [`FLOORS`]. A candidate's score is the sum of squared
//! differences of logarithms (SSE) at its best `beta` and `floor`.

use super::model::{Candidate, LaneSet, Predictor};
use super::patterns::{Pattern, WIDTHS};
use super::Evidence;
use sim_core::SameWord;

/// The floors tried, in wavefronts.
pub const FLOORS: [f64; 4] = [1.0, 1.25, 1.5, 2.0];

/// Candidates within this much SSE of the best are reported as fitting as well: the
/// squared logarithm of 1.15, one pattern off by 15%.
pub const TIE: f64 = 0.019_53;

/// The most of the flat model's SSE (one time per width) that the best bank structure
/// may leave for a verdict of banks: it must explain three quarters of the scatter.
pub const EXPLAINED: f64 = 0.25;

/// How well one candidate's wavefronts match the measured times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Sum of squared differences of logarithms.
    pub sse: f64,
    /// Logarithm of the time of one wavefront (ns).
    pub log_beta: f64,
    /// The floor (wavefronts) of the best fit.
    pub floor: f64,
}

impl Fit {
    /// The root mean square of the relative misfit per pattern (0.05: 5%).
    pub fn rms(&self, patterns: usize) -> f64 {
        (self.sse / patterns.max(1) as f64).sqrt().exp() - 1.0
    }

    /// The loop time this fit predicts for `wavefronts`, ns.
    pub fn time(&self, wavefronts: f64) -> f64 {
        self.log_beta.exp() * wavefronts.max(self.floor)
    }
}

/// The best fit of predicted `wavefronts` to measured log times `z`.
pub fn fit(z: &[f64], wavefronts: &[f64]) -> Fit {
    let n = z.len().max(1) as f64;
    let mut best = Fit { sse: f64::INFINITY, log_beta: 0.0, floor: 1.0 };
    for floor in FLOORS {
        let u: Vec<f64> = wavefronts.iter().map(|&w| w.max(floor).ln()).collect();
        let log_beta = z.iter().zip(&u).map(|(z, u)| z - u).sum::<f64>() / n;
        let sse = z.iter().zip(&u).map(|(z, u)| (z - u - log_beta).powi(2)).sum::<f64>();
        if sse < best.sse - 1e-12 {
            best = Fit { sse, log_beta, floor };
        }
    }
    best
}

/// A candidate with its fit and predictions.
#[derive(Clone, Debug)]
pub struct Scored {
    /// The hypothesis.
    pub candidate: Candidate,
    /// Its fit.
    pub fit: Fit,
    /// Its wavefronts per pattern.
    pub wavefronts: Vec<f64>,
}

/// What the times say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Times follow a bank structure: the best candidate.
    Banks,
    /// Times do not depend on the pattern beyond its width (no bank structure explains
    /// them much better than one time per width, see [`verdict`]): no banks seen (a CPU
    /// adapter).
    NoBanks,
}

/// The outcome of the search.
#[derive(Clone, Debug)]
pub struct Inference {
    /// Banks or none.
    pub verdict: Verdict,
    /// The best candidate (also with no banks: what fit least badly).
    pub best: Scored,
    /// SSE of "a pattern's time depends on its width alone" ([`flat`]).
    pub flat_sse: f64,
    /// Other candidates within [`TIE`] of the best (consecutive lanes; then, for each
    /// width whose groups were searched, the other lane groups within it).
    pub ties: Vec<Scored>,
    /// The fields the ties leave open.
    pub undetermined: Vec<&'static str>,
    /// The best hypothesis outside the ties: how far the evidence sets the best apart.
    pub runner_up: Option<Scored>,
    /// Candidates scored.
    pub considered: usize,
    /// The loop time of each pattern, ns (measured less the fixed cost).
    pub loop_ns: Vec<f64>,
}

/// The loop time of each pattern: measured less its width's fixed cost (at least 1% of
/// the measured time).
pub fn loop_times(e: &Evidence) -> Vec<f64> {
    e.patterns
        .iter()
        .zip(&e.times)
        .map(|(p, t)| {
            let i = WIDTHS.iter().position(|&w| w == p.bytes).unwrap_or(0);
            (t.median_ns - e.overhead[i].median_ns).max(0.01 * t.median_ns).max(1e-3)
        })
        .collect()
}

/// Lanes per phase tried at each width: powers of two from 2 to the warp.
fn phase_sizes(warp: u32) -> Vec<u32> {
    (1..=6).map(|b| 1u32 << b).filter(|&p| p <= warp).collect()
}

/// Runs the search over every candidate for the evidence's warp sizes.
pub fn infer(e: &Evidence) -> Inference {
    let loop_ns = loop_times(e);
    let z: Vec<f64> = loop_ns.iter().map(|t| t.ln()).collect();
    let mut predictor = Predictor::new(&e.patterns);
    let mut scored: Vec<(Candidate, Fit)> = Vec::new();
    for &warp in &e.warps {
        let sizes = phase_sizes(warp);
        for banks in [16, 32, 64] {
            for bank_bytes in [4, 8] {
                for broadcast in [SameWord::Multicast, SameWord::Serialize, SameWord::OneBroadcastWord] {
                    for merge in [vec![], vec![1], vec![1, 2]] {
                        if merge.iter().any(|&m| m >= warp) {
                            continue;
                        }
                        for &p4 in &sizes {
                            for &p8 in &sizes {
                                for &p16 in &sizes {
                                    let lanes = [p4, p8, p16].map(LaneSet::consecutive);
                                    let c = Candidate {
                                        warp,
                                        banks,
                                        bank_bytes,
                                        broadcast,
                                        merge: merge.clone(),
                                        lanes,
                                    };
                                    let fit = fit(&z, &predictor.all(&c));
                                    scored.push((c, fit));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let mut considered = scored.len();
    let best_sse = scored.iter().map(|s| s.1.sse).fold(f64::INFINITY, f64::min);
    let (near, mut rest): (Vec<_>, Vec<_>) = scored.into_iter().partition(|s| s.1.sse <= best_sse + TIE);
    let mut near: Vec<Scored> = near
        .into_iter()
        .map(|(candidate, fit)| Scored { wavefronts: predictor.all(&candidate), candidate, fit })
        .collect();
    near.sort_by(|a, b| rank(a, b, best_sse));
    let mut best = near.remove(0);
    // lane groups other than runs of consecutive lanes, a width at a time (not where
    // the pair merge serves that width's loads: banksim has no groups there)
    let mut group_ties = Vec::new();
    for i in 0..3 {
        if WIDTHS[i] >= 8 && !best.candidate.merge.is_empty() {
            continue;
        }
        let c = best.candidate.clone();
        let mut alternatives: Vec<Scored> = LaneSet::all(c.warp, c.lanes[i].lanes())
            .into_iter()
            .filter(|s| !s.is_consecutive())
            .map(|s| {
                let mut lanes = c.lanes;
                lanes[i] = s;
                let cand = Candidate { lanes, ..c.clone() };
                let wavefronts = predictor.all(&cand);
                Scored { fit: fit(&z, &wavefronts), candidate: cand, wavefronts }
            })
            .collect();
        considered += alternatives.len();
        alternatives.sort_by(|a, b| a.fit.sse.total_cmp(&b.fit.sse));
        if alternatives.first().is_some_and(|a| a.fit.sse < best.fit.sse - TIE) {
            let winner = alternatives.remove(0);
            let sse = winner.fit.sse;
            let previous = std::mem::replace(&mut best, winner);
            let (kept, dropped): (Vec<_>, Vec<_>) = near.drain(..).partition(|s| s.fit.sse <= sse + TIE);
            near = kept;
            rest.extend(dropped.into_iter().map(|s| (s.candidate, s.fit)));
            if previous.fit.sse <= sse + TIE {
                near.push(previous);
            } else {
                rest.push((previous.candidate, previous.fit));
            }
        }
        let limit = best.fit.sse + TIE;
        let (tied, worse): (Vec<_>, Vec<_>) =
            alternatives.into_iter().partition(|a| a.fit.sse <= limit && a.candidate != best.candidate);
        group_ties.extend(tied);
        if let Some(w) = worse.into_iter().find(|a| a.candidate != best.candidate) {
            rest.push((w.candidate, w.fit));
        }
    }
    near.extend(group_ties);
    let mut undetermined: Vec<&'static str> = Vec::new();
    for t in &near {
        for d in best.candidate.differences(&t.candidate) {
            if !undetermined.contains(&d) {
                undetermined.push(d);
            }
        }
    }
    let limit = best.fit.sse + TIE;
    let runner_up = rest
        .into_iter()
        .filter(|s| s.1.sse > limit && s.0 != best.candidate)
        .min_by(|a, b| a.1.sse.total_cmp(&b.1.sse))
        .map(|(candidate, fit)| Scored { wavefronts: predictor.all(&candidate), candidate, fit });
    let flat_sse = flat(&e.patterns, &z);
    let verdict = verdict(best.fit.sse, flat_sse);
    Inference { verdict, best, flat_sse, ties: near, undetermined, runner_up, considered, loop_ns }
}

/// Banks when the best structure's SSE is below [`EXPLAINED`] of the flat model's (one
/// time per width) and below it by more than [`TIE`]; else no banks. Times that scatter
/// without following the patterns (a busy CPU) are fitted by some structure about as
/// badly as by one time per width: the share keeps noise from passing for banks.
pub fn verdict(best_sse: f64, flat_sse: f64) -> Verdict {
    if best_sse + TIE < flat_sse && best_sse <= EXPLAINED * flat_sse {
        Verdict::Banks
    } else {
        Verdict::NoBanks
    }
}

/// SSE of "a pattern's time depends on its width alone" (each width its own time: a
/// wider load may move more bytes, as on a CPU), on log times `z`.
pub fn flat(patterns: &[Pattern], z: &[f64]) -> f64 {
    WIDTHS
        .iter()
        .map(|&w| {
            let v: Vec<f64> = patterns.iter().zip(z).filter(|(p, _)| p.bytes == w).map(|(_, &z)| z).collect();
            let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
            v.iter().map(|z| (z - mean).powi(2)).sum::<f64>()
        })
        .sum()
}

/// Orders candidates: lower SSE first; among those as good as the best (within a
/// rounding of it), the simpler hypothesis: no pair merge, multicast, lanes that
/// follow from one crossbar width, 32 banks, 4-byte banks, the wider warp.
fn rank(a: &Scored, b: &Scored, best: f64) -> std::cmp::Ordering {
    let exact = |s: &Scored| s.fit.sse <= best + 1e-9 * (1.0 + best);
    let key = |s: &Scored| {
        let c = &s.candidate;
        let broadcast = match c.broadcast {
            SameWord::Multicast => 0,
            SameWord::Serialize => 1,
            SameWord::OneBroadcastWord => 2,
        };
        let banks = match c.banks {
            32 => 0,
            64 => 1,
            _ => 2,
        };
        (c.merge.len(), broadcast, unnatural_lanes(c), banks, c.bank_bytes, u32::MAX - c.warp)
    };
    match (exact(a), exact(b)) {
        (true, true) => key(a).cmp(&key(b)),
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        (false, false) => a.fit.sse.total_cmp(&b.fit.sse),
    }
}

/// How many widths' lanes differ from those of one crossbar width (the 4-byte phase's
/// bytes, as `crossbar.width` gives them).
pub fn unnatural_lanes(c: &Candidate) -> usize {
    let width = c.lanes[0].lanes() * c.bank_bytes.max(4);
    WIDTHS
        .iter()
        .zip(c.lanes)
        .filter(|(&w, s)| s.lanes() != (width / w.max(c.bank_bytes)).clamp(1, c.warp) || !s.is_consecutive())
        .count()
}

/// The patterns' ratio of loop time to that of `base` (the 4-byte stride-1 load, else the
/// first pattern).
pub fn ratios(patterns: &[Pattern], values: &[f64]) -> Vec<f64> {
    let base = patterns.iter().position(|p| p.name == "4B stride 1").unwrap_or(0);
    let b = values.get(base).copied().unwrap_or(1.0);
    values.iter().map(|v| v / b).collect()
}
