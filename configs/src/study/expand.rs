//! A study checked and expanded into hardware and workload cells: every problem at once,
//! each with the study file, its line and its field.

use super::locate::{is_one_value, key, Seg};
use super::{
    invalid, product, workload_path, Expansion, HardwareCell, Source, Study, WorkloadCell, MAX_CELLS,
};
use crate::{preset_names, preset_source, ConfigError, Overrides};

/// The longest study name.
pub const MAX_NAME: usize = 100;

impl Study {
    /// The study's number of cells (hardware configurations × workloads), counted
    /// without making them; an error above [`MAX_CELLS`] (the counts are checked, so no
    /// product overflows).
    pub fn cell_count(&self, file: &str) -> Result<u128, ConfigError> {
        self.count(Source { file, text: "" }).map_err(|p| invalid(file, vec![p]))
    }

    fn count(&self, src: Source) -> Result<u128, String> {
        let too_many = |at: String, what: String| {
            format!(
                "{at}: {what}: above the limit of {MAX_CELLS} cells a study may have (presets x hardware values x workloads); split it into several studies"
            )
        };
        let mul = |a: u128, b: u128| a.checked_mul(b).filter(|&n| n <= MAX_CELLS);
        let mut hardware = self.presets.len() as u128;
        for (field, values) in &self.hardware {
            hardware = mul(hardware, values.len() as u128).ok_or_else(|| {
                too_many(
                    src.at(&[key("hardware"), key(field)]),
                    format!("the hardware axes up to `{field}` alone"),
                )
            })?;
        }
        let mut workloads = 0u128;
        for (i, w) in self.workloads.iter().enumerate() {
            let mut n = 1u128;
            for (name, values) in &w.params {
                let Ok(k) = values.count() else { continue }; // reported by expand
                n = mul(n, k).ok_or_else(|| {
                    too_many(
                        src.at(&workload_path(i, &["params", name])),
                        format!("`workloads[{i}]` up to `{name}` alone"),
                    )
                })?;
            }
            workloads = workloads.saturating_add(n);
        }
        let cells = hardware.checked_mul(workloads).filter(|&n| n <= MAX_CELLS);
        cells.ok_or_else(|| {
            too_many(
                src.file.to_string(),
                format!("{hardware} hardware configurations x {workloads} workloads"),
            )
        })
    }

    /// Every hardware configuration and workload, with every problem of the study found
    /// without running a generator or reading a trace (those are the caller's).
    pub fn expand(&self, src: Source) -> Expansion {
        let mut out = Expansion::default();
        self.check_name(src, &mut out.problems);
        if let Err(p) = self.count(src) {
            out.problems.push(p);
            return out;
        }
        self.expand_workloads(src, &mut out);
        self.expand_hardware(src, &mut out);
        out
    }

    /// [`Study::expand`], an error listing every problem where there is one.
    pub fn cells(&self, src: Source) -> Result<Expansion, ConfigError> {
        let e = self.expand(src);
        if e.problems.is_empty() {
            Ok(e)
        } else {
            Err(invalid(src.file, e.problems))
        }
    }

    /// Every hardware configuration (presets × axes), validated; all problems at once.
    pub fn hardware_cells(&self, file: &str) -> Result<Vec<HardwareCell>, ConfigError> {
        self.cells(Source { file, text: "" }).map(|e| e.hardware)
    }

    /// Every workload (generators × parameter products, files), in study order.
    pub fn workload_cells(&self, file: &str) -> Result<Vec<WorkloadCell>, ConfigError> {
        self.cells(Source { file, text: "" }).map(|e| e.workloads)
    }

    /// The name is a plain file name: the default output folder is `sweep-NAME`.
    fn check_name(&self, src: Source, problems: &mut Vec<String>) {
        let n = &self.name;
        let bad = n.is_empty()
            || n.len() > MAX_NAME
            || n.starts_with('.')
            || n.chars().any(|c| matches!(c, '/' | '\\' | ':') || c.is_control());
        if bad {
            problems.push(format!(
                "{}: {:?} is not a plain file name (the default output folder is sweep-NAME): give 1 to {MAX_NAME} characters without `/`, `\\`, `:` or control characters, not starting with `.`",
                src.at(&[key("name")]),
                n
            ));
        }
    }

    fn expand_workloads(&self, src: Source, out: &mut Expansion) {
        for (i, w) in self.workloads.iter().enumerate() {
            match (&w.gen, &w.file) {
                (Some(gen), None) => {
                    let mut axes = Vec::new();
                    for (name, values) in &w.params {
                        match values.expand() {
                            Ok(v) => axes.push((name.clone(), v)),
                            Err(e) => out
                                .problems
                                .push(format!("{}: {e}", src.at(&workload_path(i, &["params", name])))),
                        }
                    }
                    for combo in product(&axes.iter().map(|a| a.1.len()).collect::<Vec<_>>()) {
                        let params =
                            axes.iter().zip(&combo).map(|((n, vs), &k)| (n.clone(), vs[k])).collect();
                        out.workloads.push(WorkloadCell::Gen { gen: gen.clone(), params });
                        out.spec_of.push(i);
                    }
                }
                (None, Some(f)) if w.params.is_empty() => {
                    out.workloads.push(WorkloadCell::File(f.clone()));
                    out.spec_of.push(i);
                }
                _ => out.problems.push(format!(
                    "{}: give either `gen` (with `params`) or `file`",
                    src.at(&[key("workloads"), Seg::Index(i)])
                )),
            }
        }
        if self.workloads.is_empty() {
            out.problems.push(format!(
                "{}: the study has no cells: name at least one workload",
                src.at(&[key("workloads")])
            ));
        }
    }

    fn expand_hardware(&self, src: Source, out: &mut Expansion) {
        let problems = &mut out.problems;
        let presets = [key("presets")];
        if self.presets.is_empty() {
            problems.push(format!("{}: the study has no cells: name at least one preset", src.at(&presets)));
        }
        let mut axes_ok = true;
        for (field, values) in &self.hardware {
            let at = src.at(&[key("hardware"), key(field)]);
            if values.is_empty() {
                problems.push(format!("{at}: an empty list of values"));
                axes_ok = false;
            }
            if let Some(problem) = axis_problem(field) {
                problems.push(format!("{at}: {problem}"));
                axes_ok = false;
                continue;
            }
            for v in values {
                let text = v.ron();
                if !is_one_value(&text) {
                    problems.push(format!(
                        "{at}: `{text}` is not one value (RON text of the field's value alone: no `,` after it, no comment)"
                    ));
                    axes_ok = false;
                }
            }
        }
        let axes: Vec<(&String, &Vec<super::AxisValue>)> = self.hardware.iter().collect();
        let combos = product(&axes.iter().map(|a| a.1.len()).collect::<Vec<_>>());
        for preset in &self.presets {
            let base = match (preset_source(preset), self.configs.get(preset)) {
                (Some(s), _) => crate::parse_config(s, preset).ok(),
                (None, Some((file, text))) => match crate::parse_config(text, file) {
                    Ok(hw) => Some(hw),
                    Err(e) => {
                        problems.push(format!("{}: config file `{preset}`: {e}", src.at(&presets)));
                        continue;
                    }
                },
                (None, None) if super::is_config_file(preset) => {
                    problems.push(format!(
                        "{}: config file `{preset}` was not read (a study names config files relative to its own folder)",
                        src.at(&presets)
                    ));
                    continue;
                }
                (None, None) => None,
            };
            let Some(base) = base else {
                problems.push(format!(
                    "{}: unknown preset `{preset}`; known presets are {}, or a config file (`NAME.ron`, relative to the study's folder)",
                    src.at(&presets),
                    preset_names().join(", ")
                ));
                continue;
            };
            if !axes_ok {
                continue;
            }
            for combo in &combos {
                let values: Vec<(String, String)> =
                    axes.iter().zip(combo).map(|((f, vs), &i)| ((*f).clone(), vs[i].ron())).collect();
                match hardware_of(&base, preset, &values) {
                    Ok(hardware) => {
                        out.hardware.push(HardwareCell { preset: preset.clone(), values, hardware })
                    }
                    Err(found) => {
                        let shown: Vec<String> = values.iter().map(|(f, v)| format!("{f} = {v}")).collect();
                        let what = if shown.is_empty() {
                            preset.clone()
                        } else {
                            format!("{preset} with {}", shown.join(", "))
                        };
                        for (field, problem) in found {
                            // the axis the problem is about, else the presets
                            let path = match field.as_deref().and_then(|f| axis_of(f, &values)) {
                                Some(axis) => vec![key("hardware"), key(axis)],
                                None => presets.to_vec(),
                            };
                            let at = src.at(&path);
                            match field {
                                Some(f) => problems.push(format!("{at}: on {what}: `{f}` {problem}")),
                                None => problems.push(format!("{at}: on {what}: {problem}")),
                            }
                        }
                    }
                }
            }
        }
    }
}

/// What is wrong with a hardware axis's name, if anything: a config field (not `base`),
/// or a crossbar field by path (`crossbar.width`).
fn axis_problem(field: &str) -> Option<String> {
    let known: Vec<&str> = crate::FIELDS.iter().copied().filter(|f| *f != "base").collect();
    match field.split_once('.') {
        Some(("crossbar", inner)) if crate::CROSSBAR_FIELDS.contains(&inner) => None,
        Some(("crossbar", _)) => Some(format!(
            "not a crossbar field; expected one of {}",
            crate::CROSSBAR_FIELDS.map(|f| format!("crossbar.{f}")).join(", ")
        )),
        Some(_) => Some(
            "only the crossbar's fields may be named by path (`crossbar.width`, `crossbar.ports`, ...)"
                .into(),
        ),
        None if known.contains(&field) => None,
        None => Some(format!("not a config field; expected one of {}", known.join(", "))),
    }
}

/// The axis of `values` that a problem with config field `field` is about.
fn axis_of<'a>(field: &str, values: &'a [(String, String)]) -> Option<&'a str> {
    let top = field.split('.').next().unwrap_or(field);
    let nested: String = field.split('.').take(2).collect::<Vec<_>>().join(".");
    values.iter().map(|(f, _)| f.as_str()).find(|f| *f == field || *f == nested || *f == top)
}

/// `base` (preset `preset`) with the axes' `values`, validated; else each problem, by the
/// config field it is about where known.
fn hardware_of(
    base: &sim_core::Hardware,
    preset: &str,
    values: &[(String, String)],
) -> Result<sim_core::Hardware, Vec<(Option<String>, String)>> {
    let src = override_source(preset, values);
    let overrides: Overrides =
        crate::ron_options().from_str(&src).map_err(|e| vec![(None, crate::ron_message(&e.code))])?;
    let mut found = Vec::new();
    for (old, new) in overrides.both_spellings() {
        found
            .push((Some(old.to_string()), format!("is also given as `crossbar.{new}`; give one of the two")));
    }
    let mut hw = base.clone();
    overrides.apply(&mut hw);
    if let Some(p) = crate::width_ignored(&overrides, &hw, true) {
        found.push((Some("crossbar.width".into()), p));
    }
    if let Err(vs) = hw.validate() {
        found.extend(vs.into_iter().map(|v| (Some(v.field), v.problem)));
    }
    if found.is_empty() {
        Ok(hw)
    } else {
        Err(found)
    }
}

/// The user-config source of one hardware cell: `preset` with the axes' `values` (each
/// one RON value, checked); a field named by path (`crossbar.ports`) goes into its
/// section (`crossbar: (ports: 2)`).
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
