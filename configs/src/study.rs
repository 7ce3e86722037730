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

impl Values {
    /// The values, in order.
    pub fn expand(&self) -> Result<Vec<i64>, String> {
        match self {
            Values::One(v) => Ok(vec![*v]),
            Values::List(v) if v.is_empty() => Err("an empty list".into()),
            Values::List(v) => Ok(v.clone()),
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
                let a: i64 = a.trim().parse().map_err(|_| bad())?;
                let b: i64 = b.trim().parse().map_err(|_| bad())?;
                let end = if inclusive { b } else { b - 1 };
                if step <= 0 || end < a || (end - a) / step > 100_000 {
                    return Err(bad());
                }
                Ok((a..=end).step_by(step as usize).collect())
            }
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

    /// Every hardware configuration (presets × axes), validated; all problems at once.
    pub fn hardware_cells(&self, file: &str) -> Result<Vec<HardwareCell>, ConfigError> {
        let mut violations = Vec::new();
        if self.presets.is_empty() {
            violations.push(format!("{file}: `presets`: name at least one preset"));
        }
        let axes: Vec<(&String, &Vec<AxisValue>)> = self.hardware.iter().collect();
        for (field, values) in &axes {
            if values.is_empty() {
                violations.push(format!("{file}: `hardware.{field}`: an empty list of values"));
            }
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
                let mut src = format!("(base: {preset:?}");
                for (f, v) in &values {
                    src += &format!(", {f}: {v}");
                }
                src += ")";
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

/// All index combinations of axes with `lens` values each, last axis fastest.
fn product(lens: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &n in lens {
        out = out.into_iter().flat_map(|c| (0..n).map(move |i| [c.clone(), vec![i]].concat())).collect();
    }
    out
}
