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

mod expand;
pub mod locate;
mod values;

pub use values::{AxisValue, Values, MAX_CELLS, MAX_RANGE_VALUES};

use crate::ConfigError;
pub use locate::{key, Seg};
use serde::Deserialize;
use sim_core::Hardware;
use std::collections::{BTreeMap, HashSet};

/// One workload entry: a generator with parameter values, or a trace file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Generator name (see `banksim gen --list`).
    #[serde(default)]
    pub gen: Option<String>,
    /// Generator parameters.
    #[serde(default, deserialize_with = "unique_keys")]
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
    /// Presets to start from: built-in names, or config files (`.ron`) by path relative to
    /// the study file's folder (see [`Study::config_files`]).
    pub presets: Vec<String>,
    /// Hardware fields to vary: field name → values.
    #[serde(default, deserialize_with = "unique_keys")]
    pub hardware: BTreeMap<String, Vec<AxisValue>>,
    /// Workloads.
    pub workloads: Vec<WorkloadSpec>,
    /// Also run the cycle engine for each cell.
    #[serde(default)]
    pub cycles: bool,
    /// Plot layout for `banksim report`.
    #[serde(default)]
    pub plot: Option<PlotSpec>,
    /// What to do with a cell whose workload cannot run on its hardware (an address
    /// beyond its shared memory, say): refuse the study (the default) or skip the cell.
    #[serde(default)]
    pub on_unfit: OnUnfit,
    /// The texts of the config files among the presets, read by the caller
    /// ([`Study::config_files`], [`Study::add_config`]): entry → (the file as messages name
    /// it, its text). An entry that names a file not given here is a problem of the study.
    #[serde(skip)]
    pub configs: BTreeMap<String, (String, String)>,
}

/// Whether an entry of a study's `presets` names a config file (a `.ron` file) rather
/// than a built-in preset.
pub fn is_config_file(entry: &str) -> bool {
    crate::preset_source(entry).is_none() && entry.ends_with(".ron")
}

/// What a sweep does with a cell whose workload cannot run on its hardware.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OnUnfit {
    /// Refuse the study before anything runs, listing the cells.
    #[default]
    Refuse,
    /// Skip those cells: each is reported, and its row in the results says why.
    Skip,
}

/// A map whose keys are each given once (RON would keep the last of a repeated key).
fn unique_keys<'de, D, V>(d: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Visit<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visit<V> {
        type Value = BTreeMap<String, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of names to values, like {\"pad\": \"0..=32\"}")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(k) = map.next_key::<String>()? {
                if out.contains_key(&k) {
                    return Err(serde::de::Error::custom(format!(
                        "`{k}` is given twice; give each name once"
                    )));
                }
                let v = map.next_value()?;
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Visit(std::marker::PhantomData))
}

/// A study file's name and text: where each problem is.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The file, as messages name it.
    pub file: &'a str,
    /// Its text (empty: no lines in messages).
    pub text: &'a str,
}

impl Source<'_> {
    /// `FILE:LINE: `FIELD`: ` for the field at `path` (the line of the deepest part of it
    /// found; the file alone where none is).
    pub fn at(&self, path: &[Seg]) -> String {
        let place = match locate::line_of(self.text, path) {
            Some(line) => format!("{}:{line}", self.file),
            None => self.file.to_string(),
        };
        format!("{place}: `{}`", field_name(path))
    }
}

/// `workloads[1].params.pad` for a path.
pub fn field_name(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if out.is_empty() => out += k,
            Seg::Key(k) => out += &format!(".{k}"),
            Seg::Index(i) => out += &format!("[{i}]"),
        }
    }
    out
}

/// The path of workload `i`'s field `rest`.
pub fn workload_path(i: usize, rest: &[&str]) -> Vec<Seg> {
    let mut p = vec![key("workloads"), Seg::Index(i)];
    p.extend(rest.iter().map(|k| key(k)));
    p
}

/// A study expanded into cells, with every problem found (each `FILE:LINE: `FIELD`:
/// problem`); the cells of a study with problems may be incomplete.
#[derive(Clone, Debug, Default)]
pub struct Expansion {
    /// Hardware configurations (presets x axes), valid ones only.
    pub hardware: Vec<HardwareCell>,
    /// Workloads, in study order.
    pub workloads: Vec<WorkloadCell>,
    /// For each workload, the index of its entry in `workloads` of the study.
    pub spec_of: Vec<usize>,
    /// Every problem.
    pub problems: Vec<String>,
}

/// The most problems a message lists (the rest are counted).
pub const MAX_LISTED: usize = 100;

/// `problems` as the error of `file` (repeated ones once, at most [`MAX_LISTED`]).
pub fn invalid(file: &str, problems: Vec<String>) -> ConfigError {
    let mut seen = HashSet::new();
    let mut violations: Vec<String> = problems.into_iter().filter(|p| seen.insert(p.clone())).collect();
    if violations.len() > MAX_LISTED {
        let more = violations.len() - MAX_LISTED;
        violations.truncate(MAX_LISTED);
        violations.push(format!("... and {more} more problems"));
    }
    ConfigError::Study { file: file.into(), violations }
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
    /// Parses a study from RON text (a leading byte-order mark is skipped); `file` is used
    /// in messages.
    pub fn parse(text: &str, file: &str) -> Result<Study, ConfigError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        crate::ron_options().from_str(text).map_err(|e| crate::parse_error(&e, file))
    }

    /// Reads a study file (and the config files among its presets).
    pub fn read(path: &std::path::Path) -> Result<Study, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Io { path: path.into(), source })?;
        let mut study = Study::parse(&text, &path.display().to_string())?;
        for (entry, file) in study.config_files(path) {
            let text = std::fs::read_to_string(&file)
                .map_err(|source| ConfigError::Io { path: file.clone(), source })?;
            study.add_config(&entry, &file.display().to_string(), text);
        }
        Ok(study)
    }

    /// The config files among the presets, in study order: each entry and its path, relative
    /// to the folder of the study file at `study` (an absolute path as it is). The caller
    /// reads each and hands its text to [`Study::add_config`].
    pub fn config_files(&self, study: &std::path::Path) -> Vec<(String, std::path::PathBuf)> {
        let folder = study.parent().unwrap_or(std::path::Path::new(""));
        self.presets.iter().filter(|p| is_config_file(p)).map(|p| (p.clone(), folder.join(p))).collect()
    }

    /// The text of the config file that presets entry `entry` names (`file`: the file as
    /// messages name it).
    pub fn add_config(&mut self, entry: &str, file: &str, text: String) {
        self.configs.insert(entry.to_string(), (file.to_string(), text));
    }
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
