//! The bad-input catalog: every malformed trace, config, study or argument gives a
//! non-zero exit, a message naming the place and the problem, and never a panic.

mod common;

use std::path::Path;
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
        what: "run --out folder (banksim's) holding the input as requests.csv",
        files: &[(".banksim-sweep", b"made by banksim\n"), ("requests.csv", trace!("0,0,0,ld,0,4\n"))],
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
