//! A study file read and expanded into hardware x workload cells, with their costs.

use crate::error::{Error, Result};
use crate::output::Inputs;
use configs::study::{HardwareCell, Study, WorkloadCell};
use std::path::Path;
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
}

impl Expanded {
    /// Reads and expands the study at `path` (declared one of `inputs`, with the trace
    /// files it names).
    pub fn read(path: &Path, inputs: &Inputs) -> Result<Expanded> {
        inputs.declare(path);
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, "cannot read", e))?;
        let file = path.display().to_string();
        let study = Study::parse(&text, &file)?;
        let hardware = study.hardware_cells(&file)?;
        let workloads = study.workload_cells(&file)?;
        if hardware.is_empty() || workloads.is_empty() {
            return Err(Error::Input(format!(
                "{file}: the study has no cells: it needs at least one preset and one workload"
            )));
        }
        let mut generated = Vec::with_capacity(workloads.len());
        let mut records = Vec::with_capacity(workloads.len());
        for w in &workloads {
            match w {
                WorkloadCell::Gen { gen, params } => {
                    let trace = traces::generators::generate(gen, params)?;
                    records.push(trace.len() as u64);
                    generated.push(Some(trace));
                }
                WorkloadCell::File(f) => {
                    inputs.declare(Path::new(f));
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
