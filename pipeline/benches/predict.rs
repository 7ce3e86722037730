//! `banksim predict`'s time outside the capture: for every variant of a kernel suite,
//! the prediction from its family's reference (the reference's measured time given, its
//! cost of an operation solved, the no-conflict run), as `predict --reference` makes it from two
//! captured traces, timed; and the same with every block simulated (`--full`), which
//! must agree (the one-SM shortcut is exact).
//!
//! ```sh
//! CAPTURE_ONLY=1 validate/run_gpu_suite.sh CAPS      # the suite's captures (lavapipe is fine)
//! cargo bench -p banksim-pipeline --features gpu --bench predict -- --traces CAPS/traces
//! cargo bench -p banksim-pipeline --features gpu --bench predict -- --suite validate/suite_unseen.csv --traces UCAPS/traces
//! ```
//! Prints one row per variant (seconds for the prediction, its agreement with the full
//! simulation) and the slowest.

use clap::Parser;
use pipeline::kernel::{predict, Dispatch, Extent};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
struct Args {
    /// The suite (`label,family,role,blocks,scale`; a family's first variant is its
    /// reference).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../validate/suite.csv"))]
    suite: PathBuf,
    /// Captured traces, LABEL.csv per variant.
    #[arg(long)]
    traces: PathBuf,
    /// Measured times (`label`, `median_us`): the reference's is given to the solve
    /// (10 ms where a reference has none).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../validate/results/h100/measure.csv"))]
    measured: PathBuf,
    /// Preset.
    #[arg(long, default_value = "h100")]
    config: String,
    /// Also time every variant with every block simulated.
    #[arg(long, default_value_t = true)]
    full: bool,
    #[arg(long, hide = true)]
    bench: bool,
}

fn main() {
    let args = Args::parse();
    let hw = configs::load(&args.config).expect("a preset");
    let rows = validate::suite::read_suite(&args.suite).expect("a suite");
    let load = |label: &str| {
        let trace = traces::read_any(&args.traces.join(format!("{label}.csv"))).expect("a captured trace");
        pipeline::simulate::checked_requests(&trace, &hw, None).expect("requests")
    };
    let (measured, _) = validate::suite::read_measured(&args.measured).expect("measured times");
    let mut references = std::collections::HashMap::new();
    let (mut worst, mut worst_label, mut worst_diff) = (0.0f64, String::new(), 0.0f64);
    println!("{:<28} {:>8} {:>10} {:>10} {:>9}", "variant", "blocks", "seconds", "full s", "agree");
    for row in &rows {
        let reference = references.entry(row.family.clone()).or_insert_with(|| row.label.clone()).clone();
        let dispatch =
            |label: &str| Dispatch { requests: load(label), extent: Extent::default(), blocks: row.blocks };
        let (target, refd) = (dispatch(&row.label), dispatch(&reference));
        let reference_us = measured.get(&reference).map_or(10_000.0, |m| m.us);
        let t = Instant::now();
        let fast = predict(&hw, target, Some((refd, reference_us)), false).expect("a prediction");
        let secs = t.elapsed().as_secs_f64();
        let (mut full_secs, mut agree) = (f64::NAN, f64::NAN);
        if args.full {
            let t = Instant::now();
            let full = predict(&hw, dispatch(&row.label), Some((dispatch(&reference), reference_us)), true)
                .expect("a prediction");
            full_secs = t.elapsed().as_secs_f64();
            agree = fast.us / full.us - 1.0;
            if agree.abs() > worst_diff.abs() {
                worst_diff = agree;
            }
        }
        if secs > worst {
            (worst, worst_label) = (secs, row.label.clone());
        }
        println!(
            "{:<28} {:>8} {:>10.3} {:>10.3} {:>+8.3}%",
            row.label,
            row.blocks,
            secs,
            full_secs,
            100.0 * agree
        );
    }
    println!(
        "slowest: {worst_label} {worst:.3} s; largest difference from the full simulation {:+.4}%",
        100.0 * worst_diff
    );
}
