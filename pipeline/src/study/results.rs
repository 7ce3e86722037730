//! The results of a sweep or merge: the columns, each cell's row, and results.csv and
//! results.json (each written atomically).

use crate::error::{Error, Result};
use crate::output::{AtomicFile, Inputs};
use configs::study::{OnUnfit, Study, WorkloadCell};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The result columns: cell, preset, hardware fields, workload, parameters, metrics.
pub struct Columns {
    /// Every column, in order.
    pub names: Vec<String>,
    hw_fields: Vec<String>,
    params: Vec<String>,
}

const METRICS: [&str; 14] = [
    "requests",
    "lanes",
    "wavefronts",
    "ideal",
    "conflicts",
    "per_request",
    "degree",
    "ld_degree",
    "ld_wavefronts",
    "ld_per_request",
    "st_wavefronts",
    "st_per_request",
    "cycles",
    "blocks_per_sm",
];

impl Columns {
    /// The columns of `study` over `workloads`.
    pub fn new(study: &Study, workloads: &[WorkloadCell]) -> Columns {
        let hw_fields: Vec<String> = study.hardware.keys().cloned().collect();
        let mut params = Vec::new();
        let mut seen = BTreeSet::new();
        for w in workloads {
            if let WorkloadCell::Gen { params: p, .. } = w {
                for k in p.keys() {
                    if seen.insert(k.clone()) {
                        params.push(k.clone());
                    }
                }
            }
        }
        let metrics = METRICS.iter().filter(|m| study.cycles || !matches!(**m, "cycles" | "blocks_per_sm"));
        // with `on_unfit: skip`, why a cell was skipped (empty for the cells that ran)
        let skipped = (study.on_unfit == OnUnfit::Skip).then(|| SKIPPED.to_string());
        let names = ["cell", "preset"]
            .iter()
            .map(|s| s.to_string())
            .chain(hw_fields.iter().cloned())
            .chain(["workload".to_string()])
            .chain(params.iter().cloned())
            .chain(metrics.map(|m| m.to_string()))
            .chain(skipped)
            .collect();
        Columns { names, hw_fields, params }
    }

    /// One cell's row.
    pub fn row(
        &self,
        id: usize,
        hw: &configs::study::HardwareCell,
        work: &WorkloadCell,
        metrics: &BTreeMap<&'static str, Value>,
    ) -> Map<String, Value> {
        let mut row = Map::new();
        row.insert("cell".into(), json!(id));
        row.insert("preset".into(), json!(hw.preset));
        for f in &self.hw_fields {
            let v = hw.values.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone()).unwrap_or_default();
            row.insert(f.clone(), v.parse::<i64>().map(Value::from).unwrap_or(Value::String(v)));
        }
        let (name, params) = match work {
            WorkloadCell::Gen { gen, params } => (gen.clone(), Some(params)),
            WorkloadCell::File(f) => (f.clone(), None),
        };
        row.insert("workload".into(), json!(name));
        for p in &self.params {
            row.insert(p.clone(), params.and_then(|ps| ps.get(p)).map_or(Value::Null, |v| json!(v)));
        }
        for (k, v) in metrics {
            row.insert(k.to_string(), v.clone());
        }
        if self.names.iter().any(|n| n == SKIPPED) {
            row.insert(SKIPPED.into(), json!(""));
        }
        row
    }

    /// The row of a cell that was skipped (`on_unfit: skip`): no metrics, and why.
    pub fn skipped_row(
        &self,
        id: usize,
        hw: &configs::study::HardwareCell,
        work: &WorkloadCell,
        why: &str,
    ) -> Map<String, Value> {
        let mut row = self.row(id, hw, work, &BTreeMap::new());
        row.insert(SKIPPED.into(), json!(why));
        row
    }
}

/// The column of why a cell was skipped.
pub const SKIPPED: &str = "skipped";

fn cell_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() => format!("{f:.6}"),
            _ => n.to_string(),
        },
        Some(v) => v.to_string(),
    }
}

/// What results.json says of the results besides their rows.
pub struct Meta<'a> {
    /// The study's name.
    pub name: &'a str,
    /// Its fingerprint.
    pub hash: &'a str,
    /// Its number of cells (kept as `cells`, so that `merge` can tell an incomplete set
    /// of shards without the study file).
    pub total: Option<u64>,
}

/// Writes results.csv and results.json, each atomically (both targets checked before
/// either is written, and both written before either is put in place).
pub fn write_results(
    out: &Path,
    inputs: &Inputs,
    meta: &Meta,
    columns: &[String],
    rows: &[Map<String, Value>],
    study: &Study,
) -> Result<()> {
    // both targets are checked before either is written, and both written before either
    // is put in place
    let csv_path = out.join("results.csv");
    let json_path = out.join("results.json");
    let mut csv_file = AtomicFile::create(&csv_path, inputs)?;
    let json_file = AtomicFile::create(&json_path, inputs)?;
    {
        let cannot = |source| Error::Csv { path: csv_path.clone(), source };
        let mut w = csv::Writer::from_writer(&mut csv_file);
        w.write_record(columns).map_err(cannot)?;
        for row in rows {
            w.write_record(columns.iter().map(|c| cell_text(row.get(c)))).map_err(cannot)?;
        }
        w.flush().map_err(|e| Error::io(&csv_path, "cannot write", e))?;
    }
    let plot = study.plot.as_ref().map(|p| json!({"x": p.x, "y": p.y, "split": p.split, "series": p.series}));
    let doc = json!({"study": meta.name, "hash": meta.hash, "question": study.question, "plot": plot, "cells": meta.total, "columns": columns, "rows": rows});
    let mut json_file = json_file;
    serde_json::to_writer_pretty(&mut json_file, &doc)
        .map_err(|source| Error::Json { path: json_path.clone(), source })?;
    csv_file.commit()?;
    json_file.commit()?;
    Ok(())
}

/// What results.json must hold (more is allowed).
#[derive(Deserialize)]
#[allow(dead_code)] // read to check the fields are there and of their types
struct ResultsDoc {
    study: String,
    hash: String,
    columns: Vec<String>,
    rows: Vec<Map<String, Value>>,
}

/// Reads the results.json at `path` (of a sweep or merge), checked to hold a study name,
/// its fingerprint, the columns and the rows; an error names the file and what is missing
/// or of the wrong type.
pub fn read_results(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, "cannot read", e))?;
    let not =
        |e: serde_json::Error| Error::Input(format!("{}: not the results of a sweep: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).map_err(not)?;
    ResultsDoc::deserialize(&doc).map_err(not)?;
    Ok(doc)
}

/// Shards are assigned by estimated cost, so a missing shard leaves no pattern in the
/// ids: with the study at hand, check that the merged rows are exactly its cells.
pub fn check_complete(
    study: &Study,
    path: &Path,
    rows: &BTreeMap<u64, Map<String, Value>>,
    shards: &[PathBuf],
) -> Result<()> {
    let file = path.display().to_string();
    let cells = (study.hardware_cells(&file)?.len() * study.workload_cells(&file)?.len()) as u64;
    if let Some((&id, _)) = rows.range(cells..).next() {
        return Err(Error::Input(format!(
            "{}: cell {id} is beyond the {cells} cells of {file}: shards of another study?",
            shards[0].display()
        )));
    }
    let missing: Vec<u64> = (0..cells).filter(|c| !rows.contains_key(c)).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(u64::to_string).collect();
        return Err(Error::Input(format!(
            "the {} shards hold {} of the {cells} cells of {file}: missing cells {}{}; is a shard missing, or \
             were the shards run with different counts (--shard I/N)?",
            shards.len(),
            rows.len(),
            shown.join(", "),
            if missing.len() > 10 { ", ..." } else { "" }
        )));
    }
    Ok(())
}
