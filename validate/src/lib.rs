//! Trace capture from live wgpu kernels and calibration of the timing model.
//!
//! Placeholder crate: capture and calibration arrive with the validate issue. The H100
//! probe that measured the bank-conflict ground truth lives in `validate/probe/`.
