//! Where `banksim run`'s rows go as requests stream by, without the cycle engine: the
//! `--per-request` CSV and the run folder (`--out`), written request by request, so
//! memory stays bounded whatever the trace's size.

use anyhow::Result;
use pipeline::output::rows::{self, PictureRow, RequestRow};
use pipeline::output::{write_atomically, write_csv, AtomicFile, Inputs};
use pipeline::stream::Evaluated;
use sim_core::{stats::Summary, BankModel, Hardware, Outcome};
use std::path::{Path, PathBuf};
use traces::{RequestRef, Requests};

/// The row of request `r` with its outcome `o`.
pub fn request_row(r: &RequestRef<'_>, o: Outcome) -> RequestRow {
    RequestRow {
        block: r.block,
        warp: r.warp,
        step: r.step,
        op: r.op.name(),
        bytes: r.bytes,
        active: r.lanes.len(),
        wavefronts: o.wavefronts,
        ideal: o.ideal,
        conflicts: o.conflicts(),
    }
}

/// Takes evaluated requests in (block, warp, step) order; its files are committed by
/// [`RequestSink::finish`] only (an error or an interruption leaves none).
pub struct RequestSink {
    /// The `--per-request` file and the run folder's `requests.csv`, as asked.
    files: Vec<csv::Writer<AtomicFile>>,
    /// The run folder.
    folder: Option<PathBuf>,
    /// The run folder, held (locked) while the sink writes into it.
    _held: Option<pipeline::study::SweepFolder>,
    /// The command's inputs, which the run folder's other files may not replace.
    inputs: Inputs,
    summary: Summary,
    requests: u64,
    /// The first request with the most wavefronts (for the run folder's picture).
    worst: Option<(u32, Requests)>,
}

impl RequestSink {
    /// A sink that writes a row per request to `per_request` and, with `folder`, a run
    /// folder for `banksim report` there.
    pub fn create(per_request: Option<&Path>, folder: Option<&Path>, inputs: &Inputs) -> Result<RequestSink> {
        let mut paths: Vec<PathBuf> = per_request.map(Path::to_path_buf).into_iter().collect();
        // a folder banksim made (or an empty one), held until the sink is dropped
        let held = folder.map(pipeline::study::SweepFolder::open).transpose()?;
        if let Some(dir) = folder {
            paths.push(dir.join("requests.csv"));
        }
        let mut files = Vec::new();
        for path in paths {
            let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(AtomicFile::with_capacity(
                &path,
                inputs,
                1 << 20,
            )?);
            w.write_record(rows::REQUEST_HEADER)?;
            files.push(w);
        }
        Ok(RequestSink {
            files,
            folder: folder.map(Path::to_path_buf),
            _held: held,
            inputs: inputs.clone(),
            summary: Summary::default(),
            requests: 0,
            worst: None,
        })
    }

    /// Takes the next requests, in order.
    pub fn take(&mut self, e: &Evaluated) -> Result<()> {
        for (r, &o) in e.requests.iter().zip(&e.outcomes) {
            self.summary.add(r.op, r.lanes.len(), o);
            let row = request_row(&r, o);
            for w in &mut self.files {
                w.serialize(&row)?;
            }
            if self.folder.is_some() && self.worst.as_ref().is_none_or(|(most, _)| o.wavefronts > *most) {
                let mut one = Requests::new(e.requests.warp_size);
                one.push_ref(&r);
                self.worst = Some((o.wavefronts, one));
            }
        }
        self.requests += e.requests.len() as u64;
        Ok(())
    }

    /// Commits the files (and writes the run folder's picture and summary, whose trace
    /// is `source`): the bank-model totals and the number of requests.
    pub fn finish(self, source: &str, hw: &Hardware) -> Result<(Summary, u64)> {
        for w in self.files {
            let f = w.into_inner().map_err(|e| anyhow::anyhow!("{}", e.error()))?;
            f.commit()?;
        }
        if let Some(dir) = &self.folder {
            let worst = self.worst.as_ref().map(|(_, one)| one.get(0));
            write_folder_rest(dir, source, hw, worst, None, &self.inputs)?;
        }
        Ok((self.summary, self.requests))
    }
}

/// The run folder's `picture.csv` (the bank x lane cells of `worst`, where there is a
/// request) and `summary.json` (with the engine's total `cycles` where it ran).
pub fn write_folder_rest(
    dir: &Path,
    source: &str,
    hw: &Hardware,
    worst: Option<RequestRef<'_>>,
    cycles: Option<u64>,
    inputs: &Inputs,
) -> Result<()> {
    let mut what = String::new();
    if let Some(r) = worst {
        let (o, cells) = BankModel::new(hw).picture(&r.warp_request());
        what = format!(
            "block {} warp {} step {} ({} {}-byte, {} wavefronts)",
            r.block, r.warp, r.step, r.op, r.bytes, o.wavefronts
        );
        let rows = cells.into_iter().map(|c| PictureRow {
            wavefront: c.wavefront,
            bank: c.bank,
            lane: c.lane,
            word: c.word,
        });
        write_atomically(&dir.join("picture.csv"), inputs, |f| {
            Ok::<_, anyhow::Error>(write_csv(f, rows::PICTURE_HEADER, rows)?)
        })?;
    }
    let summary = serde_json::json!({
        "trace": source,
        "hardware": hw.name,
        "banks": hw.banks,
        "warp": hw.warp,
        "pipe_cycles_per_wavefront": hw.timing.as_ref().map(|t| t.pipe_cycles_per_wavefront),
        "cycles": cycles,
        "picture": what,
    });
    write_atomically(&dir.join("summary.json"), inputs, |f| {
        Ok::<_, anyhow::Error>(serde_json::to_writer_pretty(f, &summary)?)
    })
}
