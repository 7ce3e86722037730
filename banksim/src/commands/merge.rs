//! `banksim merge`: join the results of sweep shards into one results.csv and .json.

use anyhow::{bail, Context, Result};
use clap::Args;
use configs::study::Study;
use pipeline::output::Inputs;
use pipeline::study::results::{check_complete, read_results, write_results, Meta};
use pipeline::study::SweepFolder;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Args)]
/// Arguments of `banksim merge`.
pub struct MergeArgs {
    /// Output folders of the shards (each with results.json).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Folder for the merged results.csv and results.json.
    #[arg(short, long, value_name = "DIR")]
    out: PathBuf,
    /// The study file, for the report's plot layout (default: taken from the shards).
    #[arg(long)]
    study: Option<PathBuf>,
    /// Merge the shards given even when they do not hold every cell of the study (by
    /// default an incomplete set is refused: a missing shard would go unnoticed).
    #[arg(long)]
    allow_partial: bool,
}

/// Runs `banksim merge`.
pub fn run(args: &MergeArgs) -> Result<()> {
    let mut rows: BTreeMap<u64, Map<String, Value>> = BTreeMap::new();
    let mut first: Option<Value> = None;
    let inputs = Inputs::new();
    // every file of every shard is an input: no output replaces one
    for dir in &args.shards {
        inputs.declare_folder(dir);
    }
    inputs.declare_all(args.study.as_deref());
    for dir in &args.shards {
        let path = dir.join("results.json");
        if !path.exists() {
            bail!("{}: cannot read: No such file or directory (is the shard finished?)", path.display());
        }
        let doc: Value = read_results(&path)?;
        if let Some(f) = &first {
            if f["hash"] != doc["hash"] || f["columns"] != doc["columns"] {
                bail!("{}: results of a different study than {}", path.display(), args.shards[0].display());
            }
        }
        for row in doc["rows"].as_array().into_iter().flatten() {
            let id =
                row["cell"].as_u64().with_context(|| format!("{}: a row without `cell`", path.display()))?;
            if let Some(prev) = rows.insert(id, row.as_object().cloned().unwrap_or_default()) {
                if Some(&prev) != rows.get(&id) {
                    bail!("{}: cell {id} differs from another shard's", path.display());
                }
            }
        }
        first.get_or_insert(doc);
    }
    let doc = first.expect("at least one shard");
    let columns: Vec<String> = serde_json::from_value(doc["columns"].clone())?;
    let study: Study = match &args.study {
        Some(p) => {
            let study = Study::read(p)?;
            if !args.allow_partial {
                check_complete(&study, p, &rows, &args.shards)?;
            }
            study
        }
        None => Study {
            name: doc["study"].as_str().unwrap_or_default().into(),
            question: doc["question"].as_str().unwrap_or_default().into(),
            presets: vec![],
            hardware: Default::default(),
            workloads: vec![],
            cycles: false,
            plot: serde_json::from_value(doc["plot"].clone()).ok(),
            on_unfit: Default::default(),
            configs: Default::default(),
        },
    };
    // without the study file, the shards say how many cells it has
    let total = doc["cells"].as_u64();
    if args.study.is_none() && !args.allow_partial {
        match total {
            Some(total) => check_count(total, &rows, &args.shards)?,
            None => bail!(
                "{}: results without the study's cell count (written by an older banksim): give --study to check that the shards are complete, or --allow-partial",
                args.shards[0].join("results.json").display()
            ),
        }
    }
    // every check has passed: only now is anything made or written (the folder is
    // banksim's own or new or empty, and held by this command alone)
    let folder = SweepFolder::open(&args.out)?;
    let rows: Vec<_> = rows.into_values().collect();
    let meta = Meta {
        name: doc["study"].as_str().unwrap_or_default(),
        hash: doc["hash"].as_str().unwrap_or_default(),
        total,
    };
    write_results(folder.path(), &inputs, &meta, &columns, &rows, &study)?;
    eprintln!("merged {} cells from {} shards into {}", rows.len(), args.shards.len(), args.out.display());
    Ok(())
}

/// That `rows` are exactly cells `0..total` (the count results.json carries).
fn check_count(total: u64, rows: &BTreeMap<u64, Map<String, Value>>, shards: &[PathBuf]) -> Result<()> {
    if let Some((&id, _)) = rows.range(total..).next() {
        bail!("{}: cell {id} is beyond the study's {total} cells", shards[0].display());
    }
    let missing: Vec<String> =
        (0..total).filter(|c| !rows.contains_key(c)).take(10).map(|c| c.to_string()).collect();
    if !missing.is_empty() {
        bail!(
            "the {} shards hold {} of the study's {total} cells: missing cells {}{}; is a shard missing? (--allow-partial merges them anyway)",
            shards.len(),
            rows.len(),
            missing.join(", "),
            if (total as usize).saturating_sub(rows.len()) > 10 { ", ..." } else { "" }
        );
    }
    Ok(())
}
