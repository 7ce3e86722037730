//! A study file read, checked and expanded into hardware x workload cells, with their
//! costs and their keys.
//!
//! Every problem is found before anything runs and reported at once, each with the
//! study file, its line and its field: the study's own (`configs::study`), each
//! generator's parameters, each trace file's presence, and each cell whose workload
//! cannot run on its hardware (an access beyond its shared memory, say: a generated
//! workload is checked against every hardware configuration here; a trace file is
//! checked as it is simulated). Such a cell is refused, or skipped where the study says
//! `on_unfit: skip`.

use crate::error::{Error, Result};
use crate::output::Inputs;
use configs::study::{invalid, key, workload_path, HardwareCell, OnUnfit, Seg, Source, Study, WorkloadCell};
use std::collections::BTreeMap;
use std::path::Path;
use traces::generators::GenError;
use traces::Trace;

/// A study file read and expanded into cells, with every cell's estimated cost.
pub struct Expanded {
    /// The study as written.
    pub study: Study,
    /// Its hardware cells (presets x hardware fields), by index.
    pub hardware: Vec<HardwareCell>,
    /// Its workloads, by index.
    pub workloads: Vec<WorkloadCell>,
    /// Fingerprint of the study text: journals and results carry it.
    pub hash: String,
    /// Estimated cost of each cell, by id (see `configs::study::cell_costs`).
    pub costs: Vec<u64>,
    /// The generators' traces (built to count their records); `None` for trace files,
    /// which are read only by a shard that simulates them.
    pub generated: Vec<Option<Trace>>,
    /// Cells that cannot run on their hardware, by id, with why (`on_unfit: skip`).
    pub skipped: BTreeMap<usize, String>,
}

/// A stable fingerprint (XXH3, 128 bits, as 32 hex digits) of `parts`, each
/// length-prefixed: the same on every platform and every Rust version.
pub fn fingerprint(parts: &[&[u8]]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    format!("{:032x}", h.digest128())
}

/// The fingerprint of a file's bytes and their count, read a block at a time.
pub fn file_fingerprint(path: &Path) -> Result<String> {
    use std::io::Read;
    crate::files::require_regular(path, "a study's `file:` workload")?;
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, "cannot read", e))?;
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io(path, "cannot read", e))?;
        if n == 0 {
            break;
        }
        len += n as u64;
        h.update(&buf[..n]);
    }
    Ok(format!("{len}:{:032x}", h.digest128()))
}

impl Expanded {
    /// Reads and expands the study at `path` (declared one of `inputs`, with the trace
    /// files it names); every problem at once (see the module comment).
    pub fn read(path: &Path, inputs: &Inputs) -> Result<Expanded> {
        inputs.declare(path);
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, "cannot read", e))?;
        let file = path.display().to_string();
        let mut study = Study::parse(&text, &file)?;
        let src = Source { file: &file, text: &text };
        // config files among the presets, relative to the study's folder: read here (a
        // regular file, bounded), handed to the study, and part of its fingerprint
        let mut read_problems = Vec::new();
        let mut config_texts = Vec::new();
        for (entry, config) in study.config_files(path) {
            inputs.declare(&config);
            let what = format!("config file `{entry}` of the study");
            match crate::files::read_regular(&config, &what, &sim_core::limits::SOURCE_BYTES) {
                Ok(text) => {
                    config_texts.push(format!("{entry}\n{text}"));
                    study.add_config(&entry, &config.display().to_string(), text);
                }
                Err(e) => read_problems.push((entry, format!("{}: {e}", src.at(&[key("presets")])))),
            }
        }
        let ex = study.expand(src);
        let mut problems = ex.problems;
        // (a file that cannot be read is reported with why, not again as a config not read)
        for (entry, problem) in read_problems {
            problems.retain(|p| !p.contains(&format!("config file `{entry}` was not read")));
            problems.push(problem);
        }
        let mut generated = Vec::with_capacity(ex.workloads.len());
        let mut records = Vec::with_capacity(ex.workloads.len());
        for (w, &spec) in ex.workloads.iter().zip(&ex.spec_of) {
            match w {
                WorkloadCell::Gen { gen, params } => match traces::generators::generate(gen, params) {
                    Ok(trace) => {
                        records.push(trace.len() as u64);
                        generated.push(Some(trace));
                    }
                    Err(e) => {
                        problems.push(format!("{}: {e}", src.at(&gen_path(spec, &e))));
                        records.push(0);
                        generated.push(None);
                    }
                },
                WorkloadCell::File(f) => {
                    inputs.declare(Path::new(f));
                    match configs::study::estimated_file_records(Path::new(f)) {
                        Ok(n) => records.push(n),
                        Err(e) => {
                            let why = match e {
                                configs::ConfigError::Io { source, .. } => source.to_string(),
                                e => e.to_string(),
                            };
                            problems.push(format!(
                                "{}: `{f}`: cannot read: {why}",
                                src.at(&workload_path(spec, &["file"]))
                            ));
                            records.push(0);
                        }
                    }
                    generated.push(None);
                }
            }
        }
        if problems.is_empty() && (ex.hardware.is_empty() || ex.workloads.is_empty()) {
            problems.push(format!(
                "{file}: the study has no cells: it needs at least one preset and one workload"
            ));
        }
        // every generated workload against every hardware configuration
        let mut skipped = BTreeMap::new();
        let mut unfit = Vec::new();
        for (h, hw) in ex.hardware.iter().enumerate() {
            for (w, trace) in generated.iter().enumerate() {
                let Some(trace) = trace else { continue };
                if let Err(e) = crate::check::check_records(trace, &hw.hardware, None) {
                    let id = h * ex.workloads.len() + w;
                    // (the check's message names the trace: the generator and its parameters)
                    let why = format!("on {}: {e}", describe(hw));
                    unfit.push((id, ex.spec_of[w], why.clone()));
                    skipped.insert(id, why);
                }
            }
        }
        if study.on_unfit == OnUnfit::Refuse && !unfit.is_empty() {
            problems.push(format!(
                "{}: {} cells cannot run on their hardware (listed below); `on_unfit: skip` skips them and reports them instead",
                file,
                unfit.len()
            ));
            for (id, spec, why) in &unfit {
                problems.push(format!("{}: cell {id} {why}", src.at(&[key("workloads"), Seg::Index(*spec)])));
            }
        }
        if !problems.is_empty() {
            return Err(invalid(&file, problems).into());
        }
        let costs = configs::study::cell_costs(ex.hardware.len(), &records);
        let mut parts: Vec<&[u8]> = vec![b"study", text.as_bytes()];
        parts.extend(config_texts.iter().map(|t| t.as_bytes()));
        let hash = fingerprint(&parts);
        Ok(Expanded {
            study,
            hardware: ex.hardware,
            workloads: ex.workloads,
            hash,
            costs,
            generated,
            skipped,
        })
    }

    /// Every cell, by id.
    pub fn cells(&self) -> usize {
        self.costs.len()
    }

    /// The key of each cell of `cells` (ids): what its result is computed from, for the
    /// journal. It covers the study (its fingerprint), the build of banksim that computes
    /// it (`build`: the caller's version and identity), and for a trace file its size and
    /// the fingerprint of its content (each file read once, only for these cells).
    pub fn cell_keys(
        &self,
        build: &str,
        cells: impl IntoIterator<Item = usize>,
    ) -> Result<BTreeMap<usize, String>> {
        let n = self.workloads.len().max(1);
        let mut by_workload: BTreeMap<usize, String> = BTreeMap::new();
        let mut out = BTreeMap::new();
        for id in cells {
            let w = id % n;
            let k = match by_workload.entry(w) {
                std::collections::btree_map::Entry::Occupied(e) => e.get().clone(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    let input = match &self.workloads[w] {
                        WorkloadCell::File(f) => file_fingerprint(Path::new(f))?,
                        WorkloadCell::Gen { .. } => "generated".to_string(),
                    };
                    e.insert(fingerprint(&[self.hash.as_bytes(), build.as_bytes(), input.as_bytes()])).clone()
                }
            };
            out.insert(id, k);
        }
        Ok(out)
    }
}

/// A hardware cell in words: `g80` or `h100 with banks = 16`.
fn describe(hw: &HardwareCell) -> String {
    if hw.values.is_empty() {
        return hw.preset.clone();
    }
    let shown: Vec<String> = hw.values.iter().map(|(f, v)| format!("{f} = {v}")).collect();
    format!("{} with {}", hw.preset, shown.join(", "))
}

/// The field of workload `spec` that a generator's error is about.
fn gen_path(spec: usize, e: &GenError) -> Vec<Seg> {
    match e {
        GenError::UnknownParam { param, .. } => workload_path(spec, &["params", param]),
        GenError::BadValue { param, .. } => workload_path(spec, &["params", param]),
        _ => workload_path(spec, &["gen"]),
    }
}
