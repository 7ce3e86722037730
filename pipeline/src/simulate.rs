//! The bank model over warp requests held in memory: loading a trace into requests, the
//! totals by op, each request's outcome, and the picture of the worst request.

use super::error::Result;
use sim_core::engine::RequestTiming;
use sim_core::{stats::Summary, BankModel, Hardware, Outcome};
use traces::{RequestRef, Requests, Trace};

/// A trace's warp requests, for what needs them all (the cycle engine, the per-request
/// outputs), and its number of records.
pub struct Loaded<R = Requests> {
    /// The trace's name (its path).
    pub source: String,
    /// Records read.
    pub records: u64,
    /// The warp requests, in (block, warp, step) order.
    pub requests: R,
    /// Their bank-model totals, where the loader took them on the way (else
    /// [`summarize`] makes a pass over the requests).
    pub summary: Option<Summary>,
}

/// `trace` checked against `hw` ([`crate::check::check_records`], threads below
/// `threads_per_block` where given) and grouped into its warp requests.
pub fn checked_requests(trace: &Trace, hw: &Hardware, threads_per_block: Option<u32>) -> Result<Requests> {
    crate::check::check_records(trace, hw, threads_per_block)?;
    Ok(Requests::group(trace, hw.warp)?)
}

/// Groups `trace` (generated or read) into requests and returns their totals.
pub fn summarize_trace(hw: &Hardware, trace: &Trace) -> Result<(Requests, Summary)> {
    let requests = Requests::group(trace, hw.warp)?;
    let summary = summarize(hw, &requests, |_, _, _| {});
    Ok((requests, summary))
}

/// Bank-model totals of `requests`; `each` sees every request with its index and outcome,
/// in order.
pub fn summarize(
    hw: &Hardware,
    requests: &Requests,
    mut each: impl FnMut(usize, &RequestRef<'_>, Outcome),
) -> Summary {
    let mut model = BankModel::new(hw);
    let mut summary = Summary::default();
    for (i, r) in requests.iter().enumerate() {
        let o = model.evaluate(&r.warp_request());
        summary.add(r.op, r.lanes.len(), o);
        each(i, &r, o);
    }
    summary
}

/// The engine timing of each request, by index, from timings sorted by request index;
/// `None` for requests the engine has no timing for.
pub fn timings_by_index<'a>(
    timings: &'a [RequestTiming],
) -> impl FnMut(usize) -> Option<&'a RequestTiming> + 'a {
    let mut it = timings.iter().peekable();
    move |i| it.next_if(|t| t.index as usize == i)
}

/// The index of the first request with the most wavefronts; `None` for no requests.
pub fn worst_request(hw: &Hardware, requests: &Requests) -> Option<usize> {
    let mut model = BankModel::new(hw);
    requests
        .iter()
        .enumerate()
        .max_by_key(|(i, r)| (model.evaluate(&r.warp_request()).wavefronts, std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}
