//! The fix advisor on the seed cases, and every figure it reports re-simulated here.

use sim_core::engine::{self, EngineOptions};
use sim_core::layout::{ArrayShape, Layout};
use sim_core::BankModel;
use std::collections::BTreeMap;
use std::process::Command;

type Row = BTreeMap<String, String>;

/// Runs `banksim advise GEN` and returns its CSV rows (rank 0 = as is).
fn advise(gen: &str) -> Vec<Row> {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("advise.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["advise", gen, "--csv", csv.to_str().unwrap()])
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

fn parse_layout(s: &str) -> Layout {
    if s == "as is" {
        Layout::Identity
    } else if let Some(p) = s.strip_prefix("pad ") {
        Layout::Pad { elems: p.parse().unwrap() }
    } else if let Some(rest) = s.strip_prefix("Swizzle<") {
        let v: Vec<u32> = rest.trim_end_matches('>').split(',').map(|x| x.parse().unwrap()).collect();
        Layout::Swizzle { bits: v[0], base: v[1], shift: v[2] }
    } else {
        assert!(s.starts_with("transpose"), "{s}");
        Layout::Transpose
    }
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
