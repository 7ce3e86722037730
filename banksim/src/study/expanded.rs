//! A study file read and expanded into hardware x workload cells, with their costs.

use anyhow::{bail, Context, Result};
use configs::study::{HardwareCell, Study, WorkloadCell};
use std::path::Path;
use traces::Trace;

/// A study file read and expanded into cells, with every cell's estimated cost.
pub struct Expanded {
    pub study: Study,
    pub hardware: Vec<HardwareCell>,
    pub workloads: Vec<WorkloadCell>,
    /// Fingerprint of the study text: journals and results carry it.
    pub hash: String,
    /// Estimated cost of each cell, by id (see `configs::study::cell_costs`).
    pub costs: Vec<u64>,
    /// The generators' traces (built to count their records); `None` for trace files,
    /// which are read only by a shard that simulates them.
    pub generated: Vec<Option<Trace>>,
}

impl Expanded {
    /// Reads and expands the study at `path`.
    pub fn read(path: &Path) -> Result<Expanded> {
        crate::output::declare_input(path);
        let text =
            std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let file = path.display().to_string();
        let study = Study::parse(&text, &file)?;
        let hardware = study.hardware_cells(&file)?;
        let workloads = study.workload_cells(&file)?;
        if hardware.is_empty() || workloads.is_empty() {
            bail!("{file}: the study has no cells: it needs at least one preset and one workload");
        }
        let mut generated = Vec::with_capacity(workloads.len());
        let mut records = Vec::with_capacity(workloads.len());
        for w in &workloads {
            match w {
                WorkloadCell::Gen { .. } => {
                    let trace = build_workload(w)?;
                    records.push(trace.len() as u64);
                    generated.push(Some(trace));
                }
                WorkloadCell::File(f) => {
                    records.push(configs::study::estimated_file_records(Path::new(f))?);
                    generated.push(None);
                }
            }
        }
        let costs = configs::study::cell_costs(hardware.len(), &records);
        let hash = format!("{:016x}", fingerprint(&text));
        Ok(Expanded { study, hardware, workloads, hash, costs, generated })
    }

    /// Every cell, by id.
    pub fn cells(&self) -> usize {
        self.costs.len()
    }
}

/// Fingerprint of a study's text.
pub fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// A workload's trace: generated, or read from its file.
pub fn build_workload(w: &WorkloadCell) -> Result<Trace> {
    Ok(match w {
        WorkloadCell::Gen { gen, params } => traces::spec::generate(gen, params)?,
        WorkloadCell::File(path) => {
            crate::output::declare_input(Path::new(path));
            traces::read_any(Path::new(path))?
        }
    })
}
