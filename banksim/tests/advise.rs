//! The fix advisor on the seed cases, and every figure it reports re-simulated here.

use sim_core::engine::{self, EngineOptions};
use sim_core::layout::{ArrayShape, Layout};
use sim_core::BankModel;
use std::collections::BTreeMap;
use std::process::Command;

type Row = BTreeMap<String, String>;

/// Runs `banksim advise GEN` and returns its CSV rows (rank 0 = as is).
fn advise(gen: &str) -> Vec<Row> {
    advise_with(gen, &[])
}

/// `banksim advise GEN ARGS...`'s CSV rows.
fn advise_with(gen: &str, args: &[&str]) -> Vec<Row> {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("advise.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["advise", gen, "--csv", csv.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut rdr = csv::Reader::from_path(&csv).unwrap();
    let h: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    rdr.records().map(|r| h.iter().cloned().zip(r.unwrap().iter().map(String::from)).collect()).collect()
}

fn num(r: &Row, k: &str) -> u64 {
    r[k].parse().unwrap_or_else(|_| panic!("{k} = {:?}", r[k]))
}

/// A layout as the CSV writes it (what `Layout`'s `Display` writes).
fn parse_layout(s: &str) -> Layout {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// Re-simulates every row: the generator's trace with the row's layout applied to
/// every access, through the bank model and the cycle engine.
fn check_every_figure(gen: &str, rows: &[Row]) {
    let (kind, rest) = gen.split_once(':').unwrap_or((gen, ""));
    let params = rest.split(',').filter(|s| !s.is_empty()).map(|kv| {
        let (k, v) = kv.split_once('=').unwrap();
        (k.to_string(), v.parse::<i64>().unwrap())
    });
    let trace = traces::generators::generate(kind, &params.collect()).unwrap();
    let hw = configs::preset("h100").unwrap();
    for r in rows {
        let shape = ArrayShape {
            base: num(r, "base") as u32,
            rows: num(r, "rows") as u32,
            cols: num(r, "cols") as u32,
            elem: num(r, "elem") as u32,
        };
        let layout = parse_layout(&r["layout"]);
        let mut t = trace.clone();
        for rec in t.records.iter_mut().filter(|x| x.op.is_memory()) {
            rec.addr = layout.map(&shape, rec.addr);
        }
        let reqs = traces::Requests::group(&t, 32).unwrap();
        let mut m = BankModel::new(&hw);
        // a block holds the whole array as laid out, or more where the trace touches more
        let mut smem = shape.base + shape.bytes() + layout.extra_bytes(&shape);
        let (mut wf, mut ideal, mut conflicts) = (0u64, 0u64, 0u64);
        for q in reqs.iter() {
            let o = m.evaluate(&q.warp_request());
            wf += o.wavefronts as u64;
            ideal += o.ideal as u64;
            conflicts += o.conflicts() as u64;
            smem = smem.max(q.addrs.iter().map(|a| a + q.bytes as u32).max().unwrap_or(0));
        }
        let what = format!("{gen} {}", r["layout"]);
        assert_eq!(
            (num(r, "wavefronts"), num(r, "ideal"), num(r, "conflicts")),
            (wf, ideal, conflicts),
            "{what}"
        );
        assert_eq!(num(r, "extra_bytes") as u32, layout.extra_bytes(&shape), "{what}");
        assert_eq!(num(r, "smem_per_block") as u32, smem, "{what}");
        let e = engine::run(&hw, &reqs, &EngineOptions { smem_per_block: Some(smem), ..Default::default() })
            .unwrap();
        assert_eq!((num(r, "cycles"), num(r, "blocks_per_sm")), (e.cycles, e.blocks_per_sm as u64), "{what}");
    }
}

fn best(rows: &[Row]) -> &Row {
    &rows[1]
}

#[test]
fn transpose_32x32_pad_1_or_swizzle_gives_one_wavefront() {
    let gen = "tile:rows=32,cols=32";
    let rows = advise(gen);
    assert_eq!(num(&rows[0], "conflicts"), 31 * 32, "as is: 32 column reads, 31 conflicts each");
    let b = best(&rows);
    assert!(b["layout"] == "pad 1" || b["layout"].starts_with("Swizzle"), "{b:?}");
    assert_eq!((num(b, "conflicts"), num(b, "wavefronts")), (0, num(b, "ideal")));
    let pad1 = rows.iter().find(|r| r["layout"] == "pad 1").unwrap();
    assert_eq!(num(pad1, "conflicts"), 0);
    assert_eq!(num(pad1, "extra_bytes"), 32 * 4);
    check_every_figure(gen, &rows);
}

#[test]
fn tile16_finds_a_conflict_free_padding_on_32_banks() {
    let gen = "tile:rows=16,cols=16";
    let rows = advise(gen);
    // the column read (the hot group) is 8-way as is; padding to a pitch of 18 fixes it
    assert_eq!(num(&rows[0], "hot_conflicts"), 16 * 7 / 2);
    let pads: Vec<&Row> =
        rows.iter().filter(|r| r["layout"].starts_with("pad ") && num(r, "hot_conflicts") == 0).collect();
    assert!(pads.iter().any(|r| r["layout"] == "pad 2"), "pad 2 makes the column read conflict-free");
    assert_eq!(num(best(&rows), "conflicts"), 0, "and some layout fixes loads and stores together");
    check_every_figure(gen, &rows);
}

#[test]
fn gemm_16_byte_tile_finds_a_conflict_free_skew_or_swizzle() {
    let gen = "gemm:width=16";
    let rows = advise(gen);
    assert!(num(&rows[0], "conflicts") > 0);
    assert_eq!(num(best(&rows), "conflicts"), 0, "{:?}", best(&rows));
    // every candidate keeps 16-byte vectors aligned: pads are whole vectors
    for r in rows.iter().filter(|r| r["layout"].starts_with("pad ")) {
        assert_eq!(r["layout"][4..].parse::<u32>().unwrap() % 4, 0, "{}", r["layout"]);
    }
    check_every_figure(gen, &rows);
}

#[test]
fn scan_finds_the_x_plus_x_over_32_padding_or_better() {
    let gen = "scan";
    let rows = advise(gen);
    // rows of 32 elements: pad 1 is CONFLICT_FREE_OFFSET's x + x/32
    let pad1 = rows.iter().find(|r| r["layout"] == "pad 1").unwrap();
    assert!(num(best(&rows), "conflicts") <= num(pad1, "conflicts"));
    assert!(num(pad1, "conflicts") * 10 < num(&rows[0], "conflicts"));
    check_every_figure(gen, &rows);
}

#[test]
fn aos_of_4_words_transposes_to_soa() {
    let gen = "aos:k=4";
    let rows = advise(gen);
    let soa = rows.iter().find(|r| r["layout"].starts_with("transpose")).unwrap();
    assert_eq!(num(soa, "conflicts"), 0);
    assert!(num(&rows[0], "conflicts") > 0);
    check_every_figure(gen, &rows);
}

/// The bank model's conflicts of a generator's trace, as it is.
fn conflicts_of(gen: &str, params: &[(&str, i64)]) -> u64 {
    let params = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let trace = traces::generators::generate(gen, &params).unwrap();
    let hw = configs::preset("h100").unwrap();
    let mut m = BankModel::new(&hw);
    traces::Requests::group(&trace, 32)
        .unwrap()
        .iter()
        .map(|q| m.evaluate(&q.warp_request()).conflicts() as u64)
        .sum()
}

#[test]
fn tma_128b_makes_both_operands_ldmatrix_reads_conflict_free() {
    // a 64 x 64 fp16 tile read with ldmatrix.x4, K-major then MN-major (`major=2`): which
    // TMA swizzle mode leaves no conflict?
    let gen = "ldmatrix:major=2";
    let rows = advise_with(gen, &["--layouts", "tma"]);
    // as is: every 8-lane phase reads one 16-byte column of 8 rows of 128 bytes, all in
    // the same 4 banks (8 wavefronts where 1 would do); 16 requests of 4 phases a tile
    assert_eq!(num(&rows[0], "conflicts"), 2 * 16 * 4 * 7);
    let b = best(&rows);
    assert_eq!((b["layout"].as_str(), num(b, "conflicts")), ("TMA SWIZZLE_128B", 0));
    assert!(b["same_as"].contains("Swizzle<3,4,3> on bytes"), "{b:?}");
    assert!(b["same_as"].contains("Triton vec=8 perPhase=1 maxPhase=8"), "{b:?}");
    // the spans of 32B and 64B are narrower than a row, FLIP_8B splits 16-byte rows
    assert!(!rows.iter().any(|r| r["layout"].ends_with("SWIZZLE_32B") || r["layout"].contains("FLIP")));
    check_every_figure(gen, &rows);
    // the generator's own TMA storage (each mode's chunk formula, boxes of its span)
    // gives the advisor's figures, and 32B / 64B in boxes of 16 / 32 columns are
    // conflict-free too
    for r in &rows[1..] {
        let mode = sim_core::layout::TmaSwizzle::parse(r["layout"].trim_start_matches("TMA ")).unwrap();
        let stored = conflicts_of("ldmatrix", &[("major", 2), ("tma", mode.value() as i64)]);
        assert_eq!(stored, num(r, "conflicts"), "{}", r["layout"]);
    }
    for tma in [1, 2] {
        assert_eq!(conflicts_of("ldmatrix", &[("major", 2), ("tma", tma)]), 0, "tma={tma}");
    }
}

#[test]
fn a_swizzle_that_is_a_tma_mode_is_named_so() {
    let rows = advise("ldmatrix");
    let b = best(&rows);
    assert_eq!((b["layout"].as_str(), num(b, "conflicts")), ("Swizzle<3,3,3>", 0));
    assert!(b["same_as"].starts_with("TMA SWIZZLE_128B = Swizzle<3,4,3> on bytes"), "{b:?}");
    check_every_figure("ldmatrix", &rows);
}
