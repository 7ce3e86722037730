//! Study files: the cartesian product of hardware (presets × overridden fields) and
//! workloads (generators with parameter ranges, or trace files), as RON.
//!
//! ```ron
//! (
//!     name: "tile16",
//!     question: "Which padding makes a 16x16 tile's column read conflict-free?",
//!     presets: ["h100"],
//!     hardware: {"banks": [16, 32, 64], "warp": [16, 32, 64]},
//!     workloads: [(gen: "tile", params: {"pad": "0..=32"})],
//!     plot: (x: "pad", y: ["ld_per_request"]),
//! )
//! ```
//! A parameter is a number, a list `[1, 2, 4]`, or a range `"0..=32"` / `"0..=64:4"`
//! (with a step). A hardware value is a number or RON text (`"Xor(shift: 5, mask: 31)"`).
//! A crossbar field is named by its path: `"crossbar.width": [64, 128, 256]`.

use crate::{parse_config, preset_names, preset_source, ConfigError};
use serde::Deserialize;
use sim_core::Hardware;
use std::collections::BTreeMap;

/// A hardware field's value in a study: a number or RON text.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum AxisValue {
    /// A number.
    Int(i64),
    /// RON text, e.g. `Multicast` or `Xor(shift: 5, mask: 31)`.
    Text(String),
}

impl AxisValue {
    /// The value as RON text.
    pub fn ron(&self) -> String {
        match self {
            AxisValue::Int(i) => i.to_string(),
            AxisValue::Text(t) => t.clone(),
        }
    }
}

/// A generator parameter's values.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Values {
    /// One value.
    One(i64),
    /// A list of values.
    List(Vec<i64>),
    /// A range `"a..=b"`, `"a..b"`, optionally `:step`.
    Range(String),
}

/// The most values one range may give.
pub const MAX_RANGE_VALUES: i128 = 100_000;

/// The most cells a study may have (hardware configurations × workloads), checked
/// before any cell is made.
pub const MAX_CELLS: u128 = 1_000_000;

impl Values {
    /// How many values: what [`Values::expand`] gives, counted without making them.
    pub fn count(&self) -> Result<u128, String> {
        match self {
            Values::One(_) => Ok(1),
            Values::List(v) if v.is_empty() => Err("an empty list".into()),
            Values::List(v) => Ok(v.len() as u128),
            Values::Range(_) => self.range().map(|(a, end, step)| ((end - a) / step + 1) as u128),
        }
    }

    /// The values, in order.
    pub fn expand(&self) -> Result<Vec<i64>, String> {
        match self {
            Values::One(v) => Ok(vec![*v]),
            Values::List(v) if v.is_empty() => Err("an empty list".into()),
            Values::List(v) => Ok(v.clone()),
            Values::Range(_) => {
                let (a, end, step) = self.range()?;
                Ok((a..=end).step_by(step as usize).map(|v| v as i64).collect())
            }
        }
    }

    /// A range's first and last value and its step (checked: at most
    /// [`MAX_RANGE_VALUES`] values, computed without overflow).
    fn range(&self) -> Result<(i128, i128, i128), String> {
        match self {
            Values::Range(s) => {
                let bad = || format!("`{s}`: expected a range like \"0..=32\" or \"0..=64:4\"");
                let (range, step) = match s.split_once(':') {
                    Some((r, st)) => (r, st.trim().parse::<i64>().map_err(|_| bad())?),
                    None => (s.as_str(), 1),
                };
                let (a, b, inclusive) = if let Some((a, b)) = range.split_once("..=") {
                    (a, b, true)
                } else if let Some((a, b)) = range.split_once("..") {
                    (a, b, false)
                } else {
                    return Err(bad());
                };
                let a = a.trim().parse::<i64>().map_err(|_| bad())? as i128;
                let b = b.trim().parse::<i64>().map_err(|_| bad())? as i128;
                let (step, end) = (step as i128, if inclusive { b } else { b - 1 });
                if step <= 0 || end < a {
                    return Err(bad());
                }
                let n = (end - a) / step + 1;
                if n > MAX_RANGE_VALUES {
                    return Err(format!(
                        "`{s}`: {n} values, above the limit of {MAX_RANGE_VALUES} values a range may give"
                    ));
                }
                Ok((a, end, step))
            }
            _ => unreachable!("only ranges have bounds"),
        }
    }
}

/// One workload entry: a generator with parameter values, or a trace file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Generator name (see `banksim gen --list`).
    #[serde(default)]
    pub gen: Option<String>,
    /// Generator parameters.
    #[serde(default)]
    pub params: BTreeMap<String, Values>,
    /// A trace file instead of a generator.
    #[serde(default)]
    pub file: Option<String>,
}

/// Which columns the report plots.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// Parameter on the x axis.
    pub x: String,
    /// Metrics on the y axis, one chart each.
    pub y: Vec<String>,
    /// A hardware field or parameter to split charts by (one chart per value).
    #[serde(default)]
    pub split: Option<String>,
    /// Parameters that tell lines apart within a chart (besides the hardware).
    #[serde(default)]
    pub series: Vec<String>,
}

/// A study file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// Name (used for the default output folder).
    pub name: String,
    /// The question the study answers (shown in its report).
    #[serde(default)]
    pub question: String,
    /// Presets to start from.
    pub presets: Vec<String>,
    /// Hardware fields to vary: field name → values.
    #[serde(default)]
    pub hardware: BTreeMap<String, Vec<AxisValue>>,
    /// Workloads.
    pub workloads: Vec<WorkloadSpec>,
    /// Also run the cycle engine for each cell.
    #[serde(default)]
    pub cycles: bool,
    /// Plot layout for `banksim report`.
    #[serde(default)]
    pub plot: Option<PlotSpec>,
}

/// One hardware configuration of a study.
#[derive(Clone, Debug)]
pub struct HardwareCell {
    /// Preset it starts from.
    pub preset: String,
    /// Overridden fields, in the study's axis order.
    pub values: Vec<(String, String)>,
    /// The validated hardware.
    pub hardware: Hardware,
}

/// One workload of a study: a generator with concrete parameters, or a file.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadCell {
    /// A generator and its parameters.
    Gen {
        /// Generator name.
        gen: String,
        /// Parameters.
        params: BTreeMap<String, i64>,
    },
    /// A trace file.
    File(String),
}

impl Study {
    /// Parses a study from RON text; `file` is used in messages.
    pub fn parse(text: &str, file: &str) -> Result<Study, ConfigError> {
        crate::ron_options().from_str(text).map_err(|e| ConfigError::Parse {
            file: file.into(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        })
    }

    /// Reads a study file.
    pub fn read(path: &std::path::Path) -> Result<Study, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Io { path: path.into(), source })?;
        Study::parse(&text, &path.display().to_string())
    }

    /// The study's number of cells (hardware configurations × workloads), counted
    /// without making them; an error above [`MAX_CELLS`] (the counts are checked, so no
    /// product overflows).
    pub fn cell_count(&self, file: &str) -> Result<u128, ConfigError> {
        let too_many = |what: String| {
            ConfigError::Invalid {
            file: file.into(),
            violations: vec![format!(
                "{file}: {what}: above the limit of {MAX_CELLS} cells a study may have (presets x hardware values x workloads); split it into several studies"
            )],
        }
        };
        let mul = |a: u128, b: u128| a.checked_mul(b).filter(|&n| n <= MAX_CELLS);
        let mut hardware = self.presets.len() as u128;
        for (field, values) in &self.hardware {
            hardware = mul(hardware, values.len() as u128)
                .ok_or_else(|| too_many(format!("the hardware axes up to `{field}` alone")))?;
        }
        let mut workloads = 0u128;
        for (i, w) in self.workloads.iter().enumerate() {
            let mut n = 1u128;
            for (name, values) in &w.params {
                let Ok(k) = values.count() else { continue }; // reported by workload_cells
                n = mul(n, k).ok_or_else(|| too_many(format!("`workloads[{i}]` up to `{name}` alone")))?;
            }
            workloads = workloads.saturating_add(n);
        }
        let cells = hardware.checked_mul(workloads).filter(|&n| n <= MAX_CELLS);
        cells.ok_or_else(|| too_many(format!("{hardware} hardware configurations x {workloads} workloads")))
    }

    /// Every hardware configuration (presets × axes), validated; all problems at once.
    pub fn hardware_cells(&self, file: &str) -> Result<Vec<HardwareCell>, ConfigError> {
        self.cell_count(file)?;
        let mut violations = Vec::new();
        if self.presets.is_empty() {
            violations.push(format!("{file}: `presets`: name at least one preset"));
        }
        let axes: Vec<(&String, &Vec<AxisValue>)> = self.hardware.iter().collect();
        for (field, values) in &axes {
            if values.is_empty() {
                violations.push(format!("{file}: `hardware.{field}`: an empty list of values"));
            }
            if let Some((section, _)) = field.split_once('.') {
                if section != "crossbar" {
                    violations.push(format!(
                        "{file}: `hardware.{field}`: only the crossbar's fields may be named by path (`crossbar.width`, `crossbar.ports`, ...)"
                    ));
                }
            }
        }
        if !violations.is_empty() {
            return Err(ConfigError::Invalid { file: file.into(), violations });
        }
        let mut out = Vec::new();
        for preset in &self.presets {
            if preset_source(preset).is_none() {
                violations.push(format!(
                    "{file}: `presets`: unknown preset `{preset}`; known presets are {}",
                    preset_names().join(", ")
                ));
                continue;
            }
            for combo in product(&axes.iter().map(|a| a.1.len()).collect::<Vec<_>>()) {
                let values: Vec<(String, String)> =
                    axes.iter().zip(&combo).map(|((f, vs), &i)| ((*f).clone(), vs[i].ron())).collect();
                let src = override_source(preset, &values);
                let what = format!("{file}: hardware {src}");
                match parse_config(&src, &what) {
                    Ok(hardware) => out.push(HardwareCell { preset: preset.clone(), values, hardware }),
                    Err(ConfigError::Invalid { violations: v, .. }) => violations.extend(v),
                    Err(e) => violations.push(e.to_string()),
                }
            }
        }
        if violations.is_empty() {
            Ok(out)
        } else {
            Err(ConfigError::Invalid { file: file.into(), violations })
        }
    }

    /// Every workload (generators × parameter products, files), in study order.
    pub fn workload_cells(&self, file: &str) -> Result<Vec<WorkloadCell>, ConfigError> {
        self.cell_count(file)?;
        let mut violations = Vec::new();
        let mut out = Vec::new();
        for (i, w) in self.workloads.iter().enumerate() {
            match (&w.gen, &w.file) {
                (Some(gen), None) => {
                    let mut axes = Vec::new();
                    for (name, values) in &w.params {
                        match values.expand() {
                            Ok(v) => axes.push((name.clone(), v)),
                            Err(e) => violations.push(format!("{file}: `workloads[{i}].params.{name}`: {e}")),
                        }
                    }
                    for combo in product(&axes.iter().map(|a| a.1.len()).collect::<Vec<_>>()) {
                        let params =
                            axes.iter().zip(&combo).map(|((n, vs), &k)| (n.clone(), vs[k])).collect();
                        out.push(WorkloadCell::Gen { gen: gen.clone(), params });
                    }
                }
                (None, Some(f)) if w.params.is_empty() => out.push(WorkloadCell::File(f.clone())),
                _ => violations
                    .push(format!("{file}: `workloads[{i}]`: give either `gen` (with `params`) or `file`")),
            }
        }
        if violations.is_empty() {
            Ok(out)
        } else {
            Err(ConfigError::Invalid { file: file.into(), violations })
        }
    }
}

/// The user-config source of one hardware cell: `preset` with the axes' `values`; a
/// field named by path (`crossbar.ports`) goes into its section (`crossbar: (ports: 2)`).
fn override_source(preset: &str, values: &[(String, String)]) -> String {
    let mut src = format!("(base: {preset:?}");
    let mut crossbar = Vec::new();
    for (f, v) in values {
        match f.strip_prefix("crossbar.") {
            Some(inner) => crossbar.push(format!("{inner}: {v}")),
            None => src += &format!(", {f}: {v}"),
        }
    }
    if !crossbar.is_empty() {
        src += &format!(", crossbar: ({})", crossbar.join(", "));
    }
    src + ")"
}

/// All index combinations of axes with `lens` values each, last axis fastest.
fn product(lens: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &n in lens {
        out = out.into_iter().flat_map(|c| (0..n).map(move |i| [c.clone(), vec![i]].concat())).collect();
    }
    out
}

/// About how many bytes a text trace spends per record (`0,17,3,ld,4400,4` and its
/// newline; 17 to 19 for the generators' traces).
const TEXT_BYTES_PER_RECORD: u64 = 18;
/// About how many bytes a binary trace (`.bsim`, `.bin`) spends per record: its columns
/// take 0.2 (a warp on consecutive words) to 1.7 (random addresses) bytes a lane.
const BINARY_BYTES_PER_RECORD: u64 = 1;
/// How much smaller than the text an `.xz`-compressed trace is, about (5.5 for random
/// addresses, more for regular patterns).
const XZ_RATIO: u64 = 8;

/// What a cell costs besides its records, counted in records: building the model,
/// grouping, writing its journal line. Measured on one core: a cell of 32 records takes
/// about 40 µs (8000 such cells), a record about 0.23 µs (cells of a million records),
/// so the fixed part is worth about 150 records (300 with the cycle engine).
pub const CELL_OVERHEAD_RECORDS: u64 = 256;

/// A trace file's estimated number of records, from its size on disk alone (it is not
/// read, so a shard does not open files it will not simulate): the size over about 18
/// bytes a record for text, 1 for the binary format (`.bsim`, `.bin`), and 8 times as
/// many for `.xz`. Only the ratios between workloads matter, for balancing shards.
pub fn estimated_file_records(path: &std::path::Path) -> Result<u64, ConfigError> {
    let bytes =
        std::fs::metadata(path).map_err(|source| ConfigError::Io { path: path.into(), source })?.len();
    let lower = path.to_string_lossy().to_ascii_lowercase();
    let (stem, xz) = match lower.strip_suffix(".xz") {
        Some(stem) => (stem, XZ_RATIO),
        None => (lower.as_str(), 1),
    };
    let per_record = if stem.ends_with(".bsim") || stem.ends_with(".bin") {
        BINARY_BYTES_PER_RECORD
    } else {
        TEXT_BYTES_PER_RECORD
    };
    Ok(bytes.saturating_mul(xz) / per_record)
}

/// The estimated cost of every cell, in cell-id order (id = hardware index × workloads +
/// workload index, as `banksim sweep` numbers cells): its workload's records plus
/// [`CELL_OVERHEAD_RECORDS`]. The hardware does not enter: the model's work per record
/// is about the same on any bank count or warp size.
pub fn cell_costs(hardware_cells: usize, workload_records: &[u64]) -> Vec<u64> {
    let per_workload: Vec<u64> =
        workload_records.iter().map(|r| r.saturating_add(CELL_OVERHEAD_RECORDS)).collect();
    (0..hardware_cells).flat_map(|_| per_workload.iter().copied()).collect()
}

/// A study's cells split into shards of about equal estimated cost.
///
/// Greedy longest-processing-time first: cells go out by decreasing cost (ties: lower
/// cell id first), each to the shard with the least cost so far (ties: lower shard
/// index). It depends only on the costs, so every shard of a sweep computes the same
/// plan on its own; no shard's total exceeds the best possible split by more than one
/// cell's cost (and 4/3 of the optimum at worst). With equal costs it is round robin,
/// cell `i` to shard `i mod n`.
///
/// ```
/// use configs::study::ShardPlan;
/// // one big cell and six small ones on 3 shards: the big one runs alone
/// let plan = ShardPlan::balance(&[10, 1, 1, 30, 1, 1, 1, 1], 3);
/// assert_eq!(plan.cells(0), [3]);
/// assert_eq!(plan.cells(1), [0]);
/// assert_eq!(plan.cells(2), [1, 2, 4, 5, 6, 7]);
/// assert_eq!(plan.cost, [30, 10, 6]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardPlan {
    /// The shard of each cell, by cell id.
    pub shard_of: Vec<usize>,
    /// Each shard's estimated cost: the sum of its cells' costs.
    pub cost: Vec<u64>,
}

impl ShardPlan {
    /// Splits cells with these costs (by cell id) into `shards` shards (0 is taken as 1).
    pub fn balance(costs: &[u64], shards: usize) -> ShardPlan {
        use std::cmp::Reverse;
        let shards = shards.max(1);
        let mut order: Vec<usize> = (0..costs.len()).collect();
        order.sort_by_key(|&id| (Reverse(costs[id]), id));
        // min-heap of (cost so far, shard)
        let mut heap: std::collections::BinaryHeap<Reverse<(u64, usize)>> =
            (0..shards).map(|s| Reverse((0, s))).collect();
        let mut shard_of = vec![0; costs.len()];
        let mut cost = vec![0; shards];
        for id in order {
            let Reverse((load, s)) = heap.pop().expect("at least one shard");
            shard_of[id] = s;
            cost[s] = load.saturating_add(costs[id]);
            heap.push(Reverse((cost[s], s)));
        }
        ShardPlan { shard_of, cost }
    }

    /// The number of shards.
    pub fn shards(&self) -> usize {
        self.cost.len()
    }

    /// The cells of `shard`, by ascending id.
    pub fn cells(&self, shard: usize) -> Vec<usize> {
        (0..self.shard_of.len()).filter(|&id| self.shard_of[id] == shard).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_costs_go_round_robin() {
        let plan = ShardPlan::balance(&[5; 10], 3);
        assert_eq!(plan.shard_of, (0..10).map(|i| i % 3).collect::<Vec<_>>());
        assert_eq!(plan.cost, [20, 15, 15]);
    }

    #[test]
    fn shards_are_balanced_by_cost_not_count() {
        // 2 hardware cells x (one workload of 100k records, eight of 1k)
        let mut records = vec![100_000];
        records.extend([1_000; 8]);
        let costs = cell_costs(2, &records);
        assert_eq!(costs.len(), 18);
        assert_eq!(costs[0], 100_000 + CELL_OVERHEAD_RECORDS);
        assert_eq!(costs[9], costs[0]);
        let plan = ShardPlan::balance(&costs, 4);
        // the two big cells run on shards of their own, the 16 small ones share the rest
        assert_eq!(plan.cells(0), [0]);
        assert_eq!(plan.cells(1), [9]);
        assert_eq!(plan.cells(2).len() + plan.cells(3).len(), 16);
        assert_eq!(plan.cost.iter().sum::<u64>(), costs.iter().sum::<u64>());
        let by_count: Vec<u64> = (0..4)
            .map(|s| costs.iter().enumerate().filter(|(i, _)| i % 4 == s).map(|(_, c)| c).sum())
            .collect();
        assert!(plan.cost.iter().max() < by_count.iter().max(), "{:?} vs {by_count:?}", plan.cost);
    }

    #[test]
    fn every_cell_is_in_exactly_one_shard_and_no_shard_is_over_the_bound() {
        // a deterministic spread of costs; the LPT bound: max <= mean + largest cell
        let costs: Vec<u64> = (0..200u64).map(|i| (i * 7919) % 1013 + 1).collect();
        for shards in [1, 2, 3, 7, 16, 200, 300] {
            let plan = ShardPlan::balance(&costs, shards);
            assert_eq!(plan.shards(), shards);
            let mut all: Vec<usize> = (0..shards).flat_map(|s| plan.cells(s)).collect();
            all.sort();
            assert_eq!(all, (0..200).collect::<Vec<_>>());
            let total: u64 = costs.iter().sum();
            let max = *plan.cost.iter().max().unwrap();
            assert!(max <= total / shards as u64 + 1013, "{shards} shards: {max}");
            assert_eq!(plan, ShardPlan::balance(&costs, shards), "deterministic");
        }
        assert_eq!(ShardPlan::balance(&costs, 0).shards(), 1);
        assert!(ShardPlan::balance(&[], 4).shard_of.is_empty());
    }

    #[test]
    fn file_estimates_follow_size_and_format() {
        let tmp = tempfile::Builder::new().prefix("banksim-study-est-").tempdir().unwrap();
        let dir = tmp.path();
        let (text, xz, bin) = (dir.join("t.csv"), dir.join("t.csv.xz"), dir.join("t.BSIM"));
        for p in [&text, &xz, &bin] {
            std::fs::write(p, vec![b'0'; 1800]).unwrap();
        }
        assert_eq!(estimated_file_records(&text).unwrap(), 100);
        assert_eq!(estimated_file_records(&xz).unwrap(), 800);
        assert_eq!(estimated_file_records(&bin).unwrap(), 1800);
        let err = estimated_file_records(&dir.join("missing.csv")).unwrap_err().to_string();
        assert!(err.contains("missing.csv") && err.contains("cannot read"), "{err}");
    }
}
