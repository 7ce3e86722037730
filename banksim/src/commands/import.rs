//! `banksim import`: convert an Accel-Sim kernel trace or NVBit `mem_trace` output into
//! banksim's text trace. Glue only: the formats live in `traces::import`.

use crate::args::{format_for, FormatArg, MemoryArgs};
use crate::progress;
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use pipeline::output::{Inputs, StreamedTrace};
use sim_core::Op;
use std::io::Write;
use std::path::{Path, PathBuf};
use traces::import::{self, Format, ImportStats, Options};

/// Arguments of `banksim import`.
#[derive(Args)]
pub struct ImportArgs {
    /// The tool that wrote INPUT.
    #[arg(long, value_enum)]
    from: Source,
    /// Where to write the trace (CSV, `block,thread,step,op,addr,bytes`; `.bsim`: binary).
    #[arg(short, long, value_name = "OUT.csv")]
    out: PathBuf,
    /// Output format (default: from the output's extension: `.bsim`, `.bin` binary,
    /// else text).
    #[arg(long, value_enum)]
    to: Option<FormatArg>,
    /// Base of the shared-memory window in the generic address space (hex), instead of
    /// the Accel-Sim header's `-shmem base_addr`.
    #[arg(long, value_name = "HEX", value_parser = parse_base)]
    shmem_base: Option<u64>,
    /// nvbit-memtrace: the kernel launch to import (its grid launch id, or its index among
    /// the launches when the output has none).
    #[arg(long, value_name = "ID")]
    kernel: Option<u64>,
    #[command(flatten)]
    memory: MemoryArgs,
    /// The trace: `kernel-N.traceg` (plain or .xz) for accelsim, the tool's stdout for
    /// nvbit-memtrace (plain or .xz); `-` reads standard input.
    ///
    /// The output is written in block order (each block's records in the input's
    /// order). An Accel-Sim trace streams: memory stays bounded whatever its size. A
    /// mem_trace file is held whole (its warps are numbered once the kernel is read).
    input: PathBuf,
}

/// Trace formats `banksim import` reads.
#[derive(Clone, Copy, ValueEnum)]
enum Source {
    /// Accel-Sim's NVBit tracer, post-processed: kernel-N.traceg[.xz].
    Accelsim,
    /// The output of NVBit's mem_trace tool (no active mask; hardware warp slots).
    NvbitMemtrace,
}

fn parse_base(s: &str) -> Result<u64, String> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    u64::from_str_radix(h, 16)
        .map_err(|_| format!("expected a hex address such as 0x7f0000000000, found `{s}`"))
}

/// Runs `banksim import`.
pub fn run(args: &ImportArgs) -> Result<()> {
    let format = match args.from {
        Source::Accelsim => Format::AccelSim,
        Source::NvbitMemtrace => Format::NvbitMemtrace,
    };
    if args.kernel.is_some() && format == Format::AccelSim {
        bail!("--kernel applies to nvbit-memtrace only: an Accel-Sim kernel-N.traceg holds one kernel");
    }
    let opts = Options { shmem_base: args.shmem_base, kernel: args.kernel };
    let inputs = Inputs::new();
    inputs.declare(&args.input);
    let input = traces::Input::open(&args.input)
        .map_err(|source| import::ImportError::Io { path: args.input.clone(), source })?;
    let name = input.name().to_string();
    // records go through a sort by block (bounded memory: sorted runs spill to disk) to
    // the output, written a set of whole blocks at a time
    let bar = progress::bytes(input.file_len(), &format!("importing {name}"));
    let mut sorter = traces::sort::BlockSorter::new(&name, args.memory.bytes())
        .track_folder(pipeline::files::SORT_FOLDERS);
    let reader = bar.wrap_read(input.into_reader());
    let stats = import::read_each(reader, &args.input, &name, format, &opts, &mut |part| {
        sorter.push(&part.records, &part.lines).map_err(|e| import::ImportError::Output(e.into()))
    })?;
    bar.say(format!("writing {}", args.out.display()));
    let mut out = StreamedTrace::create(
        &args.out,
        &inputs,
        format_for(args.to, Some(&args.out)),
        &name,
        false,
        &stats.sites,
    )?;
    if stats.kept.keys().any(|op| op.is_tensor()) {
        out = out.with_tensor_ops();
    }
    let mut records = 0;
    sorter.finish(|blocks| {
        records += blocks.len();
        out.push(&blocks)
    })?;
    out.finish()?;
    drop(bar);
    let mut out = std::io::stdout().lock();
    print_stats(&mut out, &args.input, &args.out, records, &stats)?;
    Ok(())
}

fn print_stats(
    out: &mut dyn Write,
    input: &Path,
    output: &Path,
    records: usize,
    s: &ImportStats,
) -> Result<()> {
    writeln!(out, "{}: {} lines, {} warp instructions read", input.display(), s.lines, s.instructions)?;
    if let Some(k) = &s.kernel {
        let dims = |d: Option<[u32; 3]>| d.map_or("?".to_string(), |[x, y, z]| format!("({x},{y},{z})"));
        let name = if k.name.is_empty() { String::new() } else { format!(" `{}`", k.name) };
        writeln!(out, "kernel {}{name}: grid {} blocks of {} threads", k.id, dims(k.grid), dims(k.block))?;
    }
    let kept: Vec<String> =
        Op::ALL.iter().filter_map(|op| s.kept.get(op).map(|n| format!("{op} {n}"))).collect();
    writeln!(
        out,
        "kept {} shared-memory warp instructions ({}) as {records} records in {}",
        s.kept_total(),
        if kept.is_empty() { "none".to_string() } else { kept.join(", ") },
        output.display()
    )?;
    if s.skipped_total() > 0 {
        let mut skipped: Vec<(&String, &u64)> = s.skipped.iter().collect();
        skipped.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = skipped.iter().take(12).map(|(op, n)| format!("{op} {n}")).collect();
        let more = if skipped.len() > 12 {
            format!(", and {} more opcodes", skipped.len() - 12)
        } else {
            String::new()
        };
        writeln!(out, "skipped {} other instructions: {}{more}", s.skipped_total(), list.join(", "))?;
    }
    if s.masked_off > 0 {
        writeln!(out, "skipped {} shared-memory instructions with no active lane", s.masked_off)?;
    }
    if s.inactive_lanes > 0 {
        writeln!(
            out,
            "took {} lanes as inactive (address outside the shared window, or beyond the block)",
            s.inactive_lanes
        )?;
    }
    if s.wrapped > 0 {
        writeln!(
            out,
            "note: {} addresses had no known shared base and were taken modulo 16 MiB; pass --shmem-base to be exact",
            s.wrapped
        )?;
    }
    if s.other_lines > 0 {
        writeln!(out, "ignored {} lines that are not mem_trace records (program output)", s.other_lines)?;
    }
    if s.kept_total() == 0 {
        writeln!(out, "warning: no shared-memory instructions found; the trace is empty")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pipeline::output::write_atomically;

    fn sample(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/tests/data").join(name)
    }

    /// A fresh folder and its path; the folder goes when the `TempDir` is dropped.
    fn tmp_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new().prefix(&format!("banksim-cmd-import-{name}-")).tempdir().unwrap();
        let path = dir.path().to_path_buf();
        (dir, path)
    }

    fn args(from: Source, input: PathBuf, out: PathBuf) -> ImportArgs {
        ImportArgs {
            from,
            out,
            to: None,
            shmem_base: None,
            kernel: None,
            memory: MemoryArgs { memory: 1024 },
            input,
        }
    }

    #[test]
    fn import_writes_a_trace_that_reads_back_as_imported() {
        let (_tmp, dir) = tmp_dir("ok");
        let out = dir.join("kernel.csv");
        run(&args(Source::Accelsim, sample("accelsim_sample.traceg"), out.clone())).unwrap();
        let written = traces::text::read(&out).unwrap();
        let direct =
            import::read(&sample("accelsim_sample.traceg"), Format::AccelSim, &Options::default()).unwrap();
        // (written in block order, each block's records in the file's order)
        let mut in_block_order = direct.trace.records.clone();
        in_block_order.sort_by_key(|r| r.block);
        assert_ne!(in_block_order, direct.trace.records, "the sample's blocks are not in order");
        assert_eq!(written.records, in_block_order);
        assert_eq!(written.len(), 304);
        // only the output is left in the folder: the temporary file was renamed
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_import_leaves_no_file_and_keeps_an_existing_one() {
        let (_tmp, dir) = tmp_dir("fail");
        let out = dir.join("kernel.csv");
        std::fs::write(&out, "previous").unwrap();
        let e = run(&args(Source::Accelsim, sample("accelsim_broken.traceg"), out.clone())).unwrap_err();
        assert!(format!("{e:#}").contains("accelsim_broken.traceg:12"), "{e:#}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);

        // a writer that fails half way: no temporary file stays behind
        let r = write_atomically(&out, &Inputs::new(), |w| -> Result<()> {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("disk full").into())
        });
        assert!(format!("{:#}", r.unwrap_err()).contains("disk full"));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn kernel_choice_is_for_memtrace_only_and_bad_bases_are_refused() {
        let (_tmp, dir) = tmp_dir("kernel");
        let mut a = args(Source::Accelsim, sample("accelsim_sample.traceg"), dir.join("k.csv"));
        a.kernel = Some(1);
        assert!(run(&a).unwrap_err().to_string().contains("--kernel applies to nvbit-memtrace only"));
        let mut a = args(Source::NvbitMemtrace, sample("memtrace_new.txt"), dir.join("k.csv"));
        a.kernel = Some(1);
        run(&a).unwrap();
        assert_eq!(traces::text::read(&dir.join("k.csv")).unwrap().len(), 96);
        assert_eq!(parse_base("0x7f5a3d000000"), Ok(0x7f5a_3d00_0000));
        assert!(parse_base("zz").unwrap_err().contains("expected a hex address"));
    }
}
