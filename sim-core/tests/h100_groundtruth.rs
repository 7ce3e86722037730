//! The H100 preset against Nsight Compute counts measured on a real H100
//! (`fixtures/h100/`): every pattern is turned into a text trace (store step, barrier,
//! load step), read back through the trace reader, grouped into warps and simulated.

use sim_core::{BankModel, Op};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/h100").join(name)
}

/// One line of a pattern file: `NAME WIDTH NTHREADS | st idx... | ld idx...`.
struct Pattern {
    name: String,
    width: u32,
    store: Vec<i64>,
    load: Vec<i64>,
}

fn patterns(file: &str) -> Vec<Pattern> {
    let text = std::fs::read_to_string(fixture(file)).unwrap();
    text.lines()
        .map(|line| {
            let parts: Vec<&str> = line.split('|').collect();
            let head: Vec<&str> = parts[0].split_whitespace().collect();
            let nums = |s: &str| s.split_whitespace().map(|x| x.parse().unwrap()).collect::<Vec<i64>>();
            let p = Pattern {
                name: head[0].into(),
                width: head[1].parse().unwrap(),
                store: nums(parts[1]),
                load: nums(parts[2]),
            };
            assert_eq!(p.store.len(), head[2].parse::<usize>().unwrap());
            p
        })
        .collect()
}

/// The probe kernel as a text trace: step 0 stores, step 1 is the barrier, step 2 loads.
fn probe_trace(p: &Pattern, store_op: &str) -> String {
    let mut csv = String::from("block,thread,step,op,addr,bytes\n");
    for (t, &i) in p.store.iter().enumerate() {
        if i >= 0 {
            csv += &format!("0,{t},0,{store_op},{},{}\n", i as u32 * p.width, p.width);
        }
    }
    for t in 0..p.store.len() {
        csv += &format!("0,{t},1,bar,0,0\n");
    }
    for (t, &i) in p.load.iter().enumerate() {
        if i >= 0 {
            csv += &format!("0,{t},2,ld,{:#x},{}\n", i as u32 * p.width, p.width);
        }
    }
    csv
}

/// Simulated (wavefronts, conflicts) per op of a text trace on the h100 preset.
fn simulate(csv: &str, name: &str) -> [(u64, u64); 5] {
    let hw = configs::preset("h100").unwrap();
    let trace = traces::text::parse(csv.as_bytes(), name).unwrap();
    let requests = traces::Requests::group(&trace, hw.warp).unwrap();
    let mut model = BankModel::new(&hw);
    let mut out = [(0, 0); 5];
    for r in requests.iter() {
        let o = model.evaluate(&r.warp_request());
        out[r.op as usize].0 += o.wavefronts as u64;
        out[r.op as usize].1 += o.conflicts() as u64;
    }
    out
}

fn check_counts(pattern_file: &str, counts_file: &str) -> usize {
    let pats = patterns(pattern_file);
    let mut rdr = csv::Reader::from_path(fixture(counts_file)).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for (p, row) in pats.iter().zip(rdr.records()) {
        let row = row.unwrap();
        assert_eq!(&row[0], p.name, "counts and patterns out of step");
        let num = |i: usize| row[i].parse::<u64>().unwrap();
        let (ld_wf, ld_cf, st_wf, st_cf) = (num(2), num(3), num(5), num(6));
        let sim = simulate(&probe_trace(p, "st"), &p.name);
        let got = (sim[Op::Load as usize], sim[Op::Store as usize]);
        if got != ((ld_wf, ld_cf), (st_wf, st_cf)) {
            failures.push(format!(
                "{}: ld wavefronts/conflicts {:?} expected ({ld_wf}, {ld_cf}); st {:?} expected ({st_wf}, {st_cf})",
                p.name, got.0, got.1
            ));
        }
        n += 1;
    }
    assert_eq!(n, pats.len(), "every pattern has a row");
    assert!(
        failures.is_empty(),
        "{} of {n} patterns differ from the H100:\n{}",
        failures.len(),
        failures.join("\n")
    );
    n
}

#[test]
fn h100_reproduces_all_215_groundtruth_patterns() {
    assert_eq!(check_counts("patterns.txt", "ncu_counts.csv"), 215);
}

#[test]
fn h100_reproduces_first_batch_of_extra_measurements() {
    assert_eq!(check_counts("patterns_extra.txt", "ncu_counts_extra.csv"), 158);
}

#[test]
fn h100_reproduces_second_batch_of_extra_measurements() {
    assert_eq!(check_counts("patterns_extra2.txt", "ncu_counts_extra2.csv"), 73);
}

fn check_atomics(pattern_file: &str, counts_file: &str) -> usize {
    let pats = patterns(pattern_file);
    let mut rdr = csv::Reader::from_path(fixture(counts_file)).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for row in rdr.records() {
        let row = row.unwrap();
        // atom_f32 is a compare-and-swap loop whose counts depend on retries: not a
        // single request, so not modelled as one.
        let op = match &row[1] {
            "atom_u32" => "atom",
            "atom_u32_noret" => "red",
            _ => continue,
        };
        let p = pats.iter().find(|p| p.name == row[0]).unwrap();
        let only_atomics =
            Pattern { name: p.name.clone(), width: 4, store: p.store.clone(), load: vec![-1; p.store.len()] };
        let sim = simulate(&probe_trace(&only_atomics, op), &p.name);
        let op_index = if op == "atom" { Op::Atomic } else { Op::Reduction } as usize;
        let want = (row[3].parse::<u64>().unwrap(), row[4].parse::<u64>().unwrap());
        if sim[op_index] != want {
            failures.push(format!("{} {op}: {:?} expected {want:?}", p.name, sim[op_index]));
        }
        n += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    n
}

#[test]
fn h100_atomics_serialize_lanes_and_reductions_merge_words() {
    assert_eq!(check_atomics("atom_patterns.txt", "ncu_atom.csv"), 52);
    assert_eq!(check_atomics("atom_patterns_extra.txt", "ncu_atom_extra.csv"), 28);
}
