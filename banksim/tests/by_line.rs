//! `banksim run --by-line` prints each line's statistics beside its source and writes
//! them as CSV.

use std::process::Command;

#[test]
fn run_by_line_prints_each_line_beside_its_source() {
    let tmp = tempfile::Builder::new().prefix("banksim-by-line-").tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("k.wgsl"), "// a kernel\ntile[l.x] = 1.0;\nlet v = tile[l.x * 32u];\n").unwrap();
    // one warp: a conflict-free store on line 2, a 32-way column read on line 3
    let mut csv = String::from(
        "# site 0 k.wgsl:2:5\n# site 1 k.wgsl:3:13\nblock,thread,step,op,addr,bytes,gap,dep,wait,site\n",
    );
    for t in 0..32 {
        csv += &format!("0,{t},0,st,{},4,0,,,0\n0,{t},1,ld,{},4,0,,,1\n", 4 * t, 128 * t);
    }
    let path = dir.join("k.csv");
    std::fs::write(&path, csv).unwrap();
    let lines_csv = dir.join("lines.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["run", "--by-line", path.to_str().unwrap(), "--by-line-csv", lines_csv.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let row =
        |n: &str| out.lines().find(|l| l.trim_start().starts_with(&format!("{n} |"))).unwrap().to_string();
    assert!(row("2").ends_with("| tile[l.x] = 1.0;"), "{out}");
    let stats = |l: &str| -> Vec<f64> {
        l.split('|').nth(1).unwrap().split_whitespace().map(|f| f.parse().unwrap()).collect()
    };
    assert_eq!(stats(&row("2")), vec![1.0, 1.0, 1.0, 0.0, 1.0]);
    assert_eq!(stats(&row("3")), vec![1.0, 32.0, 1.0, 31.0, 32.0], "{out}");
    assert!(out.contains("^ fix: pad 1") || out.contains("^ fix: Swizzle"), "{out}");
    let written = std::fs::read_to_string(&lines_csv).unwrap();
    let mut rows = written.lines();
    assert!(rows.next().unwrap().starts_with("file,line,site,ops,requests,wavefronts,ideal,conflicts"));
    let conflicting = rows.find(|l| l.starts_with("k.wgsl,3,")).unwrap();
    assert!(conflicting.contains(",1,32,1,31,"), "{conflicting}");
}
