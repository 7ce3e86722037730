//! The results of a sweep or merge: the columns, each cell's row, and results.csv and
//! results.json (each written atomically).

use crate::error::{Error, Result};
use crate::output::{write_atomically, Inputs};
use configs::study::{Study, WorkloadCell};
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
        let names = ["cell", "preset"]
            .iter()
            .map(|s| s.to_string())
            .chain(hw_fields.iter().cloned())
            .chain(["workload".to_string()])
            .chain(params.iter().cloned())
            .chain(metrics.map(|m| m.to_string()))
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
        row
    }
}

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

/// Writes results.csv and results.json, each atomically; `total` is the study's number
/// of cells (results.json keeps it as `cells`, so that `merge` can tell an incomplete
/// set of shards without the study file).
#[allow(clippy::too_many_arguments)]
pub fn write_results(
    out: &Path,
    inputs: &Inputs,
    name: &str,
    hash: &str,
    columns: &[String],
    rows: &[Map<String, Value>],
    study: &Study,
    total: Option<u64>,
) -> Result<()> {
    let csv_path = out.join("results.csv");
    write_atomically(&csv_path, inputs, |f| -> Result<()> {
        let cannot = |source| Error::Csv { path: csv_path.clone(), source };
        let mut w = csv::Writer::from_writer(f);
        w.write_record(columns).map_err(cannot)?;
        for row in rows {
            w.write_record(columns.iter().map(|c| cell_text(row.get(c)))).map_err(cannot)?;
        }
        w.flush().map_err(|e| Error::io(&csv_path, "cannot write", e))?;
        Ok(())
    })?;
    let plot = study.plot.as_ref().map(|p| json!({"x": p.x, "y": p.y, "split": p.split, "series": p.series}));
    let doc = json!({"study": name, "hash": hash, "question": study.question, "plot": plot, "cells": total, "columns": columns, "rows": rows});
    let json_path = out.join("results.json");
    write_atomically(&json_path, inputs, |f| -> Result<()> {
        serde_json::to_writer_pretty(f, &doc)
            .map_err(|source| Error::Json { path: json_path.clone(), source })
    })
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
