//! The bad-input catalog: every malformed trace, config, study or argument gives a
//! non-zero exit, a message naming the place and the problem, and never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

struct Case {
    what: &'static str,
    /// Files to create in the case's folder: (name, contents).
    files: &'static [(&'static str, &'static [u8])],
    /// Arguments; `{dir}` is replaced by the case's folder.
    args: &'static [&'static str],
    /// Expected exit code.
    code: i32,
    /// Substrings the message must contain; `{dir}` is replaced too.
    needles: &'static [&'static str],
}

const H: &[u8] = b"block,thread,step,op,addr,bytes\n";

macro_rules! trace {
    ($body:expr) => {
        concat!("block,thread,step,op,addr,bytes\n", $body).as_bytes()
    };
}

const CASES: &[Case] = &[
    // ---- traces
    Case {
        what: "empty trace file",
        files: &[("t.csv", b"")],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["{dir}/t.csv", "empty trace"],
    },
    Case {
        what: "truncated line",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n0,1,0,ld"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["{dir}/t.csv:3", "expected 6 fields"],
    },
    Case {
        what: "non-numeric block",
        files: &[("t.csv", trace!("zero,0,0,ld,0,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["{dir}/t.csv:2", "column 1 `block`", "`zero`"],
    },
    Case {
        what: "negative thread",
        files: &[("t.csv", trace!("0,-3,0,ld,0,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "column 2 `thread`"],
    },
    Case {
        what: "unknown op",
        files: &[("t.csv", trace!("0,0,0,lds,0,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "`op`", "ld, st, atom, red, bar, gld, gst"],
    },
    Case {
        what: "width 3",
        files: &[("t.csv", trace!("0,0,0,ld,0,3\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "`bytes`", "1, 2, 4, 8 or 16"],
    },
    Case {
        what: "width 32",
        files: &[("t.csv", trace!("0,0,0,st,0,32\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "`bytes`", "`32`"],
    },
    Case {
        what: "bad hex address",
        files: &[("t.csv", trace!("0,0,0,ld,0x1g,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "`addr`", "`0x1g`"],
    },
    Case {
        what: "address beyond shared memory",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n0,1,0,ld,0x80000,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:3", "beyond", "233472"],
    },
    Case {
        what: "address beyond shared memory (predict on a trace)",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n0,1,0,ld,0x80000,4\n"))],
        args: &["predict", "{dir}/t.csv", "--dispatch", "264"],
        code: 1,
        needles: &["t.csv:3", "beyond", "233472"],
    },
    Case {
        what: "address beyond a small preset's shared memory",
        files: &[("t.csv", trace!("0,0,0,ld,20000,4\n"))],
        args: &["run", "--config", "g80", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "16384", "`g80`"],
    },
    Case {
        what: "misaligned 8-byte access",
        files: &[("t.csv", trace!("0,0,0,ld,0,8\n0,1,0,ld,12,8\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:3", "misaligned 8-byte ld", "0xc"],
    },
    Case {
        what: "misaligned 16-byte store",
        files: &[("t.csv", trace!("0,0,0,st,8,16\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "misaligned 16-byte st"],
    },
    Case {
        what: "mixed ops in one request",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n0,1,0,st,4,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:3", "mixes ops", "line 2"],
    },
    Case {
        what: "mixed widths in one request",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n0,1,0,ld,8,8\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:3", "mixes widths"],
    },
    Case {
        what: "import onto its own input",
        files: &[("m.txt", include_bytes!("../../traces/tests/data/memtrace_new.txt"))],
        args: &["import", "--from", "nvbit-memtrace", "{dir}/m.txt", "--kernel", "1", "--out", "{dir}/m.txt"],
        code: 1,
        needles: &["m.txt: refusing to write over an input of this command"],
    },
    Case {
        what: "capture onto its own kernel",
        files: &[("k.wgsl", include_bytes!("../../validate/kernels/transpose32.wgsl"))],
        args: &["capture", "{dir}/k.wgsl", "--dispatch", "1", "-o", "{dir}/k.wgsl"],
        code: 1,
        needles: &["k.wgsl: refusing to write over an input of this command"],
    },
    Case {
        what: "site id missing from the site table (run --by-line)",
        files: &[(
            "t.csv",
            b"# site 0 k.wgsl:3:5\nblock,thread,step,op,addr,bytes,gap,dep,wait,site\n0,0,0,ld,0,4,0,,,0\n0,1,0,ld,4,4,0,,,2\n",
        )],
        args: &["run", "--by-line", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:4", "column 10 `site`", "expected a site id of the table (0 to 0)", "found `2`"],
    },
    Case {
        what: "malformed site table line",
        files: &[("t.csv", b"# site 1 k.wgsl:3:5\nblock,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n")],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:1", "site table", "expected 0, found 1"],
    },
    Case {
        what: "lanes of one request at two sites",
        files: &[(
            "t.csv",
            b"# site 0 k.wgsl:3:5\n# site 1 k.wgsl:4:5\nblock,thread,step,op,addr,bytes,gap,dep,wait,site\n0,0,0,ld,0,4,0,,,0\n0,1,0,ld,4,4,0,,,1\n",
        )],
        args: &["run", "--by-line", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:5", "mixes sites: site 1 here, site 0 at line 4"],
    },
    Case {
        what: "explain of a kernel that does not parse",
        files: &[("k.wgsl", b"fn main( {\n")],
        args: &["explain", "{dir}/k.wgsl", "--dispatch", "1"],
        code: 1,
        needles: &["k.wgsl"],
    },
    Case {
        what: "duplicate record",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n0,0,0,ld,4,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:3", "already has a record", "line 2"],
    },
    Case {
        what: "thread beyond the block size",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n0,300,0,ld,4,4\n"))],
        args: &["run", "--cycles", "--threads-per-block", "256", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:3", "thread 300", "block size"],
    },
    Case {
        what: "wrong header",
        files: &[("t.csv", b"thread,block,step,op,addr,bytes\n0,0,0,ld,0,4\n")],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:1", "bad header"],
    },
    Case {
        what: "invalid UTF-8",
        files: &[("t.csv", b"block,thread,step,op,addr,bytes\n0,0,0,ld,\xff\xfe,4\n")],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "UTF-8"],
    },
    Case {
        what: "directory instead of a trace",
        files: &[],
        args: &["run", "{dir}"],
        code: 1,
        needles: &["{dir}", "directory"],
    },
    Case {
        what: "missing trace",
        files: &[],
        args: &["run", "{dir}/nope.csv"],
        code: 1,
        needles: &["{dir}/nope.csv", "cannot read"],
    },
    // ---- configs
    Case {
        what: "zero banks",
        files: &[("c.ron", b"(base: \"h100\",\n banks: 0)"), ("t.csv", H)],
        args: &["run", "--config", "{dir}/c.ron", "{dir}/t.csv"],
        code: 1,
        needles: &["c.ron:2", "`banks`", "got 0"],
    },
    Case {
        what: "negative banks",
        files: &[("c.ron", b"(base: \"h100\", banks: -4)"), ("t.csv", H)],
        args: &["run", "--config", "{dir}/c.ron", "{dir}/t.csv"],
        code: 1,
        needles: &["c.ron:1:"],
    },
    Case {
        what: "absurd banks",
        files: &[("c.ron", b"(base: \"h100\", banks: 1000000)"), ("t.csv", H)],
        args: &["run", "--config", "{dir}/c.ron", "{dir}/t.csv"],
        code: 1,
        needles: &["c.ron:1", "`banks`", "1024"],
    },
    Case {
        what: "unknown preset",
        files: &[("t.csv", H)],
        args: &["run", "--config", "h300", "{dir}/t.csv"],
        code: 1,
        needles: &["unknown preset `h300`", "h100, a100"],
    },
    Case {
        what: "unknown config field",
        files: &[("c.ron", b"(base: \"h100\",\n\n bankz: 16)"), ("t.csv", H)],
        args: &["run", "--config", "{dir}/c.ron", "{dir}/t.csv"],
        code: 1,
        needles: &["c.ron:3", "`bankz`", "unknown field"],
    },
    Case {
        what: "empty config",
        files: &[("c.ron", b""), ("t.csv", H)],
        args: &["run", "--config", "{dir}/c.ron", "{dir}/t.csv"],
        code: 1,
        needles: &["c.ron:1:"],
    },
    Case {
        what: "directory as config",
        files: &[("t.csv", H)],
        args: &["run", "--config", "{dir}", "{dir}/t.csv"],
        code: 1,
        needles: &["directory"],
    },
    Case {
        what: "two violations at once",
        files: &[("c.ron", b"(base: \"h100\",\n warp: 3,\n bank_bytes: 5)"), ("t.csv", H)],
        args: &["run", "--config", "{dir}/c.ron", "{dir}/t.csv"],
        code: 1,
        needles: &["c.ron:2: `warp`", "c.ron:3: `bank_bytes`"],
    },
    // ---- studies
    Case {
        what: "study: unknown generator",
        files: &[("s.ron", b"(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"tilez\")])")],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["unknown generator `tilez`", "tile"],
    },
    Case {
        what: "study: unknown generator parameter",
        files: &[(
            "s.ron",
            b"(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"tile\", params: {\"padding\": 1})])",
        )],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["`padding`", "pad"],
    },
    Case {
        what: "study: empty range",
        files: &[(
            "s.ron",
            b"(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"tile\", params: {\"pad\": \"5..=1\"})])",
        )],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["s.ron", "workloads[0].params.pad", "range"],
    },
    Case {
        what: "study: unknown preset",
        files: &[("s.ron", b"(name: \"s\", presets: [\"h300\"], workloads: [(gen: \"tile\")])")],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["s.ron", "unknown preset `h300`"],
    },
    Case {
        what: "study: unknown field",
        files: &[("s.ron", b"(name: \"s\",\n presets: [\"h100\"],\n workloadz: [])")],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["s.ron:3:", "workloadz"],
    },
    Case {
        what: "study: no workloads",
        files: &[("s.ron", b"(name: \"s\", presets: [\"h100\"], workloads: [])")],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["s.ron", "no cells"],
    },
    Case {
        what: "study: bad shard",
        files: &[("s.ron", b"(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"tile\")])")],
        args: &["sweep", "{dir}/s.ron", "--shard", "4/4", "-o", "{dir}/out"],
        code: 1,
        needles: &["--shard `4/4`", "I/N"],
    },
    Case {
        what: "study: invalid hardware value",
        files: &[(
            "s.ron",
            b"(name: \"s\", presets: [\"h100\"], hardware: {\"warp\": [48]}, workloads: [(gen: \"tile\")])",
        )],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["s.ron", "`warp`", "48"],
    },
    // ---- command-line arguments
    Case {
        what: "--warp 0",
        files: &[("t.csv", H)],
        args: &["run", "--warp", "0", "{dir}/t.csv"],
        code: 1,
        needles: &["`warp`", "got 0"],
    },
    Case {
        what: "--threads 0",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n"))],
        args: &["run", "--cycles", "--threads", "0", "{dir}/t.csv"],
        code: 1,
        needles: &["--threads must be at least 1"],
    },
    Case {
        what: "unknown subcommand",
        files: &[],
        args: &["simulate"],
        code: 2,
        needles: &["unrecognized subcommand 'simulate'"],
    },
    Case {
        what: "non-numeric --banks",
        files: &[],
        args: &["run", "--banks", "many", "x.csv"],
        code: 2,
        needles: &["--banks", "many"],
    },
    Case {
        what: "unwritable output",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n"))],
        args: &["run", "{dir}/t.csv", "--per-request", "/proc/banksim/out.csv"],
        code: 1,
        needles: &["/proc/banksim/out.csv", "cannot create"],
    },
    Case {
        what: "generator parameter without a value",
        files: &[],
        args: &["gen", "tile", "pad"],
        code: 1,
        needles: &["`pad`", "NAME=VALUE"],
    },
    Case {
        what: "generator parameter out of range",
        files: &[],
        args: &["gen", "tile", "rows=0"],
        code: 1,
        needles: &["`rows` = 0", "expected 1 to 64"],
    },
    Case {
        what: "advise: neither file nor generator",
        files: &[],
        args: &["advise", "{dir}/missing.csv"],
        code: 1,
        needles: &["missing.csv", "no such trace file"],
    },
    Case {
        what: "advise: bad shape",
        files: &[],
        args: &["advise", "tile", "--shape", "32by32"],
        code: 1,
        needles: &["--shape `32by32`", "ROWSxCOLSxBYTES"],
    },
    Case {
        what: "report: not an output folder",
        files: &[],
        args: &["report", "{dir}", "-o", "{dir}/rep"],
        code: 1,
        needles: &["{dir}", "neither a sweep output"],
    },
    Case {
        what: "merge: shard not finished",
        files: &[],
        args: &["merge", "{dir}/shard-0", "-o", "{dir}/all"],
        code: 1,
        needles: &["shard-0/results.json", "cannot read"],
    },
    // ---- issue 43: outputs, limits, one validation path, error text
    Case {
        what: "run --per-request onto its own input",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n"))],
        args: &["run", "{dir}/t.csv", "--per-request", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv", "refusing to write over an input"],
    },
    Case {
        what: "convert onto its own input",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n"))],
        args: &["convert", "{dir}/t.csv", "{dir}/t.csv"],
        code: 1,
        needles: &["refusing to write over an input"],
    },
    Case {
        what: "run --out folder holding the input as requests.csv",
        files: &[("requests.csv", trace!("0,0,0,ld,0,4\n"))],
        args: &["run", "{dir}/requests.csv", "--out", "{dir}"],
        code: 1,
        needles: &["requests.csv", "refusing to write over an input"],
    },
    Case {
        what: "per-request to a device",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n"))],
        args: &["run", "{dir}/t.csv", "--per-request", "/dev/null"],
        code: 1,
        needles: &["/dev/null", "refusing to replace a device"],
    },
    Case {
        what: "gen -o a folder",
        files: &[],
        args: &["gen", "strided", "-o", "{dir}"],
        code: 1,
        needles: &["refusing to replace a folder"],
    },
    Case {
        what: "study range wider than 2^63",
        files: &[(
            "s.ron",
            b"(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"strided\", params: {\"stride\": \"-9223372036854775808..=9223372036854775807\"})])",
        )],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["s.ron", "`workloads[0].params.stride`", "above the limit"],
    },
    Case {
        what: "study too large",
        files: &[(
            "s.ron",
            b"(name: \"s\", presets: [\"h100\"], hardware: {\"banks\": [16, 32], \"bank_bytes\": [4, 8]}, workloads: [(gen: \"strided\", params: {\"stride\": \"1..=90000\", \"offset\": \"0..=90000\"})])",
        )],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["s.ron", "above the limit of 1000000 cells"],
    },
    Case {
        what: "sweep file workload misaligned",
        files: &[
            ("t.csv", trace!("0,0,0,ld,2,4\n")),
            ("s.ron", b"(name: \"s\", presets: [\"h100\"], workloads: [(file: \"{dir}/t.csv\")])"),
        ],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["t.csv:2", "misaligned"],
    },
    Case {
        what: "sweep file workload beyond shared memory",
        files: &[
            ("t.csv", trace!("0,0,0,ld,4000000,4\n")),
            ("s.ron", b"(name: \"s\", presets: [\"h100\"], workloads: [(file: \"{dir}/t.csv\")])"),
        ],
        args: &["sweep", "{dir}/s.ron", "-o", "{dir}/out"],
        code: 1,
        needles: &["t.csv:2", "beyond the"],
    },
    Case {
        what: "advise misaligned trace",
        files: &[("t.csv", trace!("0,0,0,ld,2,4\n0,1,0,ld,6,4\n"))],
        args: &["advise", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "misaligned"],
    },
    Case {
        what: "thread id 4294967295 with --cycles",
        files: &[("t.csv", trace!("0,4294967295,0,ld,0,4\n"))],
        args: &["run", "--cycles", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "thread 4294967295", "above the limit", "MAX_THREADS_PER_BLOCK"],
    },
    Case {
        what: "--cycles-per-op 1e12",
        files: &[("t.csv", b"block,thread,step,op,addr,bytes,gap,dep\n0,0,0,ld,0,4,5,0\n")],
        args: &["run", "--cycles", "--cycles-per-op", "1e12", "{dir}/t.csv"],
        code: 1,
        needles: &["--cycles-per-op", "above the limit of 1000000"],
    },
    Case {
        what: "gap cycles beyond 32 bits at a large --cycles-per-op",
        files: &[("t.csv", b"block,thread,step,op,addr,bytes,gap,dep\n0,0,0,ld,0,4,4000000000,0\n")],
        args: &["run", "--cycles", "--cycles-per-op", "1000", "{dir}/t.csv"],
        code: 1,
        needles: &["gap of 4000000000", "above the limit of 4294967295"],
    },
    Case {
        what: "gap above 2^32",
        files: &[("t.csv", b"block,thread,step,op,addr,bytes,gap,dep\n0,0,0,ld,0,4,99999999999,0\n")],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "`gap`", "above the limit of 4294967295"],
    },
    Case {
        what: "block id above 2^32",
        files: &[("t.csv", trace!("4294967296,0,0,ld,0,4\n"))],
        args: &["run", "{dir}/t.csv"],
        code: 1,
        needles: &["t.csv:2", "`block`", "above the limit"],
    },
    Case {
        what: "wrong-magic .bsim",
        files: &[("t.bsim", b"\x89BNKSIX\n\x01\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")],
        args: &["run", "{dir}/t.bsim"],
        code: 1,
        needles: &["t.bsim", "not a banksim binary trace"],
    },
    Case {
        what: "wrong-magic .bsim through convert",
        files: &[("t.bsim", b"\x89BNKSIX\n\x01\x00\x00\x00\x40\x00\x00\x00")],
        args: &["convert", "{dir}/t.bsim", "{dir}/t.csv"],
        code: 1,
        needles: &["t.bsim", "not a banksim binary trace"],
    },
    Case {
        what: "gen gemm width=8 blames width",
        files: &[],
        args: &["gen", "gemm", "width=8"],
        code: 1,
        needles: &["`width` = 8"],
    },
    Case {
        what: "missing trace: OS error once",
        files: &[],
        args: &["run", "{dir}/missing.csv"],
        code: 1,
        needles: &["missing.csv: cannot read: No such file or directory"],
    },
    Case {
        what: "--threads far above the cores is capped, with a message",
        files: &[("t.csv", trace!("0,0,0,ld,0,4\n"))],
        args: &["run", "--threads", "100000", "{dir}/t.csv"],
        code: 0,
        needles: &["--threads 100000: capped at"],
    },
];

fn fill(s: &str, dir: &Path) -> String {
    s.replace("{dir}", dir.to_str().unwrap())
}

fn fill_bytes(b: &[u8], dir: &Path) -> Vec<u8> {
    match std::str::from_utf8(b) {
        Ok(s) => fill(s, dir).into_bytes(),
        Err(_) => b.to_vec(),
    }
}

#[test]
fn every_bad_input_fails_cleanly_with_place_and_problem() {
    assert!(CASES.len() >= 30, "the catalog has {} cases", CASES.len());
    let root = tempfile::Builder::new().prefix("banksim-bad-").tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        if (case.args[0] == "report" && !cfg!(feature = "charts"))
            || (matches!(case.args[0], "capture" | "explain") && !cfg!(feature = "gpu"))
        {
            continue; // fails earlier, for want of the feature
        }
        let dir = root.path().join(format!("case{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, body) in case.files {
            std::fs::write(dir.join(name), fill_bytes(body, &dir)).unwrap();
        }
        let args: Vec<String> = case.args.iter().map(|a| fill(a, &dir)).collect();
        let o = Command::new(env!("CARGO_BIN_EXE_banksim")).args(&args).env("CI", "1").output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        if err.contains("panicked") {
            failures.push(format!("{}: panicked: {err}", case.what));
            continue;
        }
        if o.status.code() != Some(case.code) {
            failures.push(format!(
                "{}: exit {:?}, expected {}: {err}",
                case.what,
                o.status.code(),
                case.code
            ));
        }
        for n in case.needles {
            let n = fill(n, &dir);
            if !err.contains(&n) {
                failures.push(format!("{}: message lacks `{n}`: {err}", case.what));
            }
        }
        if err.matches("No such file or directory").count() > 1 {
            failures.push(format!("{}: the OS error is repeated: {err}", case.what));
        }
        // every input intact, nothing left behind
        for (name, body) in case.files {
            if std::fs::read(dir.join(name)).ok() != Some(fill_bytes(body, &dir)) {
                failures.push(format!("{}: input {name} was changed", case.what));
            }
        }
        let stray = common::stray_temporaries(&dir);
        if !stray.is_empty() {
            failures.push(format!("{}: left {stray:?}", case.what));
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}

fn banksim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_banksim")).args(args).env("CI", "1").output().unwrap()
}

/// A fresh folder and its path; the folder goes when the `TempDir` is dropped, so keep it
/// bound until the test ends.
fn case_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::Builder::new().prefix(&format!("banksim-bad-{name}-")).tempdir().unwrap();
    let path = d.path().to_path_buf();
    (d, path)
}

const T: &[u8] = b"block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,ld,4,4\n";

#[cfg(unix)]
#[test]
fn symlink_and_fifo_targets_are_refused_and_left_as_they_are() {
    let (_tmp, dir) = case_dir("special");
    std::fs::write(dir.join("t.csv"), T).unwrap();
    std::fs::write(dir.join("keep.csv"), b"keep").unwrap();
    std::os::unix::fs::symlink(dir.join("keep.csv"), dir.join("link.csv")).unwrap();
    assert!(Command::new("mkfifo").arg(dir.join("ff")).status().unwrap().success());
    for target in ["link.csv", "ff"] {
        let t = dir.join(target);
        for args in [
            vec!["run", dir.join("t.csv").to_str().unwrap(), "--per-request", t.to_str().unwrap()],
            vec!["convert", dir.join("t.csv").to_str().unwrap(), t.to_str().unwrap()],
            vec!["gen", "strided", "-o", t.to_str().unwrap()],
        ] {
            let o = banksim(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("refusing to replace a"), "{args:?}: {err}");
        }
    }
    assert!(std::fs::symlink_metadata(dir.join("link.csv")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(dir.join("keep.csv")).unwrap(), b"keep");
    assert!(common::stray_temporaries(&dir).is_empty());
}

#[test]
fn traces_from_stdin_and_pipes_lose_nothing() {
    use std::io::Write;
    let (_tmp, dir) = case_dir("stdin");
    std::fs::write(dir.join("t.csv"), T).unwrap();
    let bsim = dir.join("t.bsim");
    let o = banksim(&["convert", dir.join("t.csv").to_str().unwrap(), bsim.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_file = banksim(&["run", "--cycles", bsim.to_str().unwrap()]);
    for (input, extra) in [(T.to_vec(), vec![]), (std::fs::read(&bsim).unwrap(), vec!["--cycles"])] {
        let mut args = vec!["run"];
        args.extend(extra.iter().copied());
        args.push("-");
        let mut child = Command::new(env!("CARGO_BIN_EXE_banksim"))
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let o = child.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("<stdin>: 2 records"), "{out}");
        if !extra.is_empty() {
            let want = String::from_utf8_lossy(&from_file.stdout);
            assert_eq!(want.lines().skip(1).collect::<Vec<_>>(), out.lines().skip(1).collect::<Vec<_>>());
        }
    }
}

#[test]
fn a_torn_journal_line_is_dropped_not_appended_onto() {
    let (_tmp, dir) = case_dir("journal");
    let study = dir.join("s.ron");
    std::fs::write(
        &study,
        "(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"strided\", params: {\"stride\": [1, 2, 3, 4]})])",
    )
    .unwrap();
    let out = dir.join("out");
    let (s, o) = (study.to_str().unwrap(), out.to_str().unwrap());
    assert!(banksim(&["sweep", s, "-o", o]).status.success());
    let whole = std::fs::read(out.join("results.csv")).unwrap();
    // keep the header and one cell, then half of the next line
    let journal = std::fs::read_to_string(out.join("cells.jsonl")).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    let torn = format!("{}\n{}\n{}", lines[0], lines[1], &lines[2][..lines[2].len() / 2]);
    std::fs::write(out.join("cells.jsonl"), torn).unwrap();
    std::fs::remove_file(out.join("results.csv")).unwrap();
    let again = banksim(&["sweep", s, "-o", o]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(err.contains("torn last line"), "{err}");
    assert_eq!(std::fs::read(out.join("results.csv")).unwrap(), whole);
    let journal = std::fs::read_to_string(out.join("cells.jsonl")).unwrap();
    assert!(journal.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "{journal}");
    assert!(common::stray_temporaries(&dir).is_empty());
}

#[test]
fn merge_refuses_an_incomplete_set_unless_allowed() {
    let (_tmp, dir) = case_dir("merge");
    let study = dir.join("s.ron");
    std::fs::write(
        &study,
        "(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"strided\", params: {\"stride\": [1, 2, 3, 4]})])",
    )
    .unwrap();
    let s = study.to_str().unwrap();
    let shard = |i: usize| dir.join(format!("shard-{i}")).to_str().unwrap().to_string();
    for i in 0..4 {
        let o = banksim(&["sweep", s, "-o", &shard(i), "--shard", &format!("{i}/4")]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let all = dir.join("all");
    let o = banksim(&["merge", &shard(0), &shard(1), &shard(2), "-o", all.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("3 of the study's 4 cells"), "{err}");
    assert!(!all.join("results.csv").exists());
    let o =
        banksim(&["merge", &shard(0), &shard(1), &shard(2), "-o", all.to_str().unwrap(), "--allow-partial"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = banksim(&["merge", &shard(0), &shard(1), &shard(2), &shard(3), "-o", all.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[cfg(unix)]
#[test]
fn sigterm_leaves_no_temporary_file() {
    let (_tmp, dir) = case_dir("signal");
    let out = dir.join("big.csv");
    // a generator large enough that the write is under way when the signal comes
    let child = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["gen", "random", "threads=1024", "steps=4096", "-o", out.to_str().unwrap()])
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while common::stray_temporaries(&dir).is_empty() && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let o = child.wait_with_output().unwrap();
    if !out.exists() {
        assert_eq!(o.status.code(), Some(143));
    }
    assert!(common::stray_temporaries(&dir).is_empty(), "{:?}", common::stray_temporaries(&dir));
}

/// A file of one line repeated fails at its second record while it is read: an endless
/// stream of it on standard input ends the run (the reader does not hold the whole file
/// before grouping it).
#[test]
fn repeated_lines_fail_at_the_second_record_without_reading_on() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["run", "-"])
        .env("CI", "1")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let line = b"0,0,0,ld,0,4\n".repeat(4096);
    let limit: usize = 1 << 30; // far more than the reader may take before it fails
    let mut written = 0;
    let mut closed = stdin.write_all(H).is_err();
    while !closed && written < limit {
        closed = stdin.write_all(&line).is_err();
        written += line.len();
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("<stdin>:3:") && err.contains("already has a record (line 2)"), "{err}");
    assert!(closed, "the reader took {written} bytes of repeated lines without failing");
}

/// A field of 10 MB is named in the error cut short, with its length, not echoed whole.
#[test]
fn a_huge_field_is_cut_short_in_the_message() {
    let (_tmp, dir) = case_dir("huge");
    let mut text = b"block,thread,step,op,addr,bytes\n0,0,0,ld,".to_vec();
    text.extend(std::iter::repeat_n(b'9', 10_000_000));
    text.extend(b",4\n");
    std::fs::write(dir.join("t.csv"), &text).unwrap();
    let o = banksim(&["run", dir.join("t.csv").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.len() < 1000, "{} bytes of message", err.len());
    assert!(err.contains("t.csv:2: column 5 `addr`") && err.contains("(10000000 bytes in all)"), "{err}");
}

/// A report whose plot spec draws nothing fails, leaving no index behind.
#[cfg(feature = "charts")]
#[test]
fn a_report_that_draws_nothing_fails() {
    let (_tmp, dir) = case_dir("noplot");
    let study = dir.join("s.ron");
    std::fs::write(
        &study,
        r#"(name: "s", presets: ["h100"], workloads: [(gen: "strided", params: {"stride": [1, 2]})],
            plot: (x: "no_such_column", y: ["degree"]))"#,
    )
    .unwrap();
    let out = dir.join("out");
    let o = banksim(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rep = dir.join("rep");
    let o = banksim(&["report", out.to_str().unwrap(), "-o", rep.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing to draw"), "{err}");
    assert!(!rep.join("index.md").exists() && common::stray_temporaries(&dir).is_empty());
}

/// `banksim import -` reads the CUDA trace from standard input, as from the file.
#[test]
fn import_reads_standard_input() {
    use std::io::Write;
    let (_tmp, dir) = case_dir("import-stdin");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/tests/data/memtrace_new.txt");
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    let args = ["import", "--from", "nvbit-memtrace", "--kernel", "1", "--out"];
    let mut from_file = args.to_vec();
    from_file.extend([a.to_str().unwrap(), sample]);
    let o = banksim(&from_file);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut from_stdin = args.to_vec();
    from_stdin.extend([b.to_str().unwrap(), "-"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(&from_stdin)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(sample).unwrap()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}
