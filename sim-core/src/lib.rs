//! The core of banksim: a model of GPU shared-memory banks.
//!
//! Shared memory is split into `n` banks of `m`-byte words; word `w` lives in bank
//! `w mod n` (or a swizzled bank). A warp's request is served in *wavefronts*: in each,
//! every bank delivers one word. Lanes that need different words of one bank are served
//! in different wavefronts — a bank conflict. Lanes reach the banks through the
//! [`Crossbar`] (part of the [`Hardware`]), which serves them in phases (sets of lanes)
//! and says how lanes on one word share it and how many words a bank serves at once.
//!
//! ```text
//!            bank 0   bank 1   bank 2  ...  bank 31
//! word row 0 [  0  ]  [  1  ]  [  2  ] ...  [ 31  ]   <- lane t reads word t:
//! word row 1 [ 32  ]  [ 33  ]  [ 34  ] ...  [ 63  ]      one wavefront
//!   ...                                                <- lane t reads word 32·t:
//!                                                         32 wavefronts (bank 0)
//! ```
//!
//! A tutorial: evaluate a column read of a 32×32 float tile, unpadded and padded.
//!
//! ```
//! use sim_core::{presets_for_tests::h100_like, BankModel, Op, WarpRequest};
//!
//! let hw = h100_like();
//! hw.validate().expect("a valid preset");
//! let mut model = BankModel::new(&hw);
//! let lanes: Vec<u16> = (0..32).collect();
//! // column 3 of a 32x32 float tile: address of element [t][3]
//! let unpadded: Vec<u32> = (0..32).map(|t| (t * 32 + 3) * 4).collect();
//! let padded: Vec<u32> = (0..32).map(|t| (t * 33 + 3) * 4).collect();
//! let req = |addrs| WarpRequest { op: Op::Load, bytes: 4, lanes: &lanes, addrs };
//! assert_eq!(model.evaluate(&req(&unpadded)).wavefronts, 32); // 32-way conflict
//! assert_eq!(model.evaluate(&req(&padded)).wavefronts, 1); // conflict-free
//! assert_eq!(model.evaluate(&req(&unpadded)).conflicts(), 31);
//! ```
//!
//! Architecture invariant: this crate does no file IO and knows no file format; it
//! receives requests as slices and a validated [`Hardware`].
#![warn(missing_docs)]

mod crossbar;
pub mod engine;
mod hardware;
pub mod launch;
pub mod layout;
pub mod limits;
mod mapping;
mod masked;
pub mod memory;
mod model;
mod op;
mod pool;
#[doc(hidden)]
pub mod presets_for_tests;
pub mod replicate;
mod request;
pub mod stats;
mod timing;

pub use crossbar::{Crossbar, LaneGroups, OpRule, OpRules, MAX_PORTS, MAX_WIDTH};
pub use hardware::{Hardware, PairMerge, PhaseLanes, SameWord, Violation};
pub use mapping::BankMapping;
pub use masked::{affine_addrs, tile_addrs, tile_lane, LaneAddrs, MaskedRequest, LANE_NUMBERS};
pub use model::{BankModel, SliceTicket};
pub use op::{is_valid_width, width_index, Op, WIDTHS};
pub use pool::thread_pool;
pub use request::{Cell, Outcome, SliceOutcome, WarpRequest};
pub use timing::{gap_issue_fraction, Occupancy, OpCost, Timing};
