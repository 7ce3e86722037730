//! The bank model: one warp request in, wavefronts out.
//!
//! ```text
//!  lanes  0  1  2  3 ...        the crossbar's phases: lanes per phase by width
//!         |  |  |  |            (H100: 32 lanes for <= 4 B, 16 for 8 B, 8 for 16 B;
//!         v  v  v  v             doubled for loads whose lanes pair up), or its
//!                                explicit lane groups (CDNA 3 b128 loads)
//!  words  addr / bank_bytes     a lane touches ceil(bytes / bank_bytes) words
//!  banks  mapping(word)         linear or XOR swizzle
//!  cost   per phase: the busiest bank's number of distinct words (multicast),
//!         lanes (serialize), or the CC 1.x broadcast-word schedule; over the
//!         bank ports, rounded up
//! ```
//! A request's wavefronts are the sum over its phases; its ideal is the number of
//! phases with an active lane; conflicts = max(0, wavefronts - ideal).
//!
//! The parts, each building on those listed before it:
//! - [`global`]: global accesses, one wavefront per 128-byte line;
//! - [`pair_merge`]: the load pair-merge rule (phases of twice the lanes);
//! - [`general`]: the general path (every rule, mapping and bank count; the picture);
//! - [`closed_form`]: costs of keys in arithmetic progression, with no count;
//! - [`counter`]: the fast path's per-phase count of words per bank;
//! - `avx2`, `avx512` (x86-64 only) and [`simd`]: the SIMD kernels of one phase, and
//!   which of them this CPU runs;
//! - [`phase`]: the fast path's phase loop and the cost of one phase;
//! - [`fast`]: the fast path (at most 64 banks, `Multicast` or `Serialize`; explicit
//!   lane groups gathered into group order);
//! - [`period`], [`affine_memo`], [`slice_memo`]: the period of a mapping, and the
//!   exact memos of affine requests' and whole slices' outcomes keyed by it;
//! - [`bank_model`]: [`BankModel`] and its entry points for one warp request;
//! - [`masked_eval`], [`slice_eval`]: its entry points for a request given by its lane
//!   mask, and for a slice of up to 64 lanes.

mod affine_memo;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod bank_model;
mod closed_form;
mod counter;
mod fast;
mod general;
mod global;
mod masked_eval;
mod pair_merge;
mod period;
mod phase;
mod simd;
mod slice_eval;
mod slice_memo;

pub use bank_model::BankModel;
pub(crate) use global::{distinct_units, GLOBAL_LINE_BYTES};
pub use slice_memo::SliceTicket;
