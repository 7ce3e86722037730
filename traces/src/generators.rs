//! Parametric trace generators for the access patterns people study, addressed by name
//! and integer parameters so that the command line (`banksim gen tile pad=1`) and
//! sweeps (`pad: "0..=32"`) build them the same way, without writing files.
//!
//! ```
//! use std::collections::BTreeMap;
//! let params = BTreeMap::from([("pad".to_string(), 1)]);
//! let trace = traces::generators::generate("tile", &params).unwrap();
//! assert_eq!(trace.source, "tile(rows=16, cols=16, pad=1, width=4, column=1, swizzle=0)");
//! assert!(traces::generators::generate("tile", &BTreeMap::from([("padding".into(), 1)])).is_err());
//! ```

use crate::record::{Record, Trace};
use sim_core::Op;
use std::collections::BTreeMap;

/// A generator's parameter: name, default, meaning.
pub type Param = (&'static str, i64, &'static str);

/// Every generator with its parameters and their defaults.
pub const GENERATORS: &[(&str, &str, &[Param])] = &[
    (
        "strided",
        "one warp request per step: lane t accesses element offset + t*stride",
        &[
            ("threads", 32, "threads in the block"),
            ("stride", 1, "elements between consecutive threads"),
            ("offset", 0, "first element"),
            ("width", 4, "bytes per access (1, 2, 4, 8, 16)"),
            ("store", 0, "1: stores instead of loads"),
        ],
    ),
    (
        "tile",
        "a rows x cols tile stored row-wise (sh[ty][tx]), a barrier, then read column-wise (sh[tx][ty]) or row-wise",
        &[
            ("rows", 16, "tile rows (threads = rows * cols, tx = t % cols, ty = t / cols)"),
            ("cols", 16, "tile columns"),
            ("pad", 0, "elements of padding per row (pitch = cols + pad)"),
            ("width", 4, "bytes per element"),
            ("column", 1, "1: read sh[tx][ty] (column access), 0: read sh[ty][tx]"),
            ("swizzle", 0, "XOR-swizzle bits: column index ^= row mod 2^swizzle"),
        ],
    ),
    (
        "reduction",
        "tree reduction of a tile in shared memory, every step with its barrier",
        &[
            ("tile", 512, "elements (threads = tile / 2)"),
            ("interleaved", 1, "1: index = 2*s*tid (interleaved), 0: index = tid (sequential)"),
        ],
    ),
    (
        "scan",
        "Blelloch work-efficient scan (up-sweep and down-sweep) of n elements",
        &[("n", 512, "elements (threads = n / 2)"), ("padded", 0, "1: index + index / 32 (CONFLICT_FREE_OFFSET)")],
    ),
    (
        "aos",
        "each thread reads every field of its struct of k 4-byte words, one field per step",
        &[
            ("k", 4, "4-byte words per struct"),
            ("soa", 0, "1: structure of arrays (field f of thread t at f*threads + t)"),
            ("threads", 32, "threads in the block"),
        ],
    ),
    (
        "gemm",
        "tiled GEMM shared-tile loader: As[m][k + skew] filled with width-byte vectors, then read down its columns; Bs[k][n + skew] filled and read along rows",
        &[
            ("m", 64, "rows of As (tile M)"),
            ("n", 64, "columns of Bs (tile N)"),
            ("k", 16, "columns of As / rows of Bs (tile K)"),
            ("skew", 0, "elements of padding per row"),
            ("width", 16, "bytes per access: 4 or 16 (128-bit)"),
            ("threads", 256, "threads in the block"),
        ],
    ),
    (
        "ldmatrix",
        "a tensor-core operand tile read fragment by fragment as ldmatrix.x4 reads it (one warp, `ldsm` records): each lane a 16-byte row of an 8x16-byte matrix, 8 lanes a matrix, the tile stored as a TMA swizzle mode stores it (one box per span of a row)",
        &[
            ("rows", 64, "stored rows (K-major: M, MN-major: K), a multiple of 16"),
            ("cols", 64, "elements per stored row (K-major: K, MN-major: M); a row a multiple of 32 bytes"),
            ("width", 2, "bytes per element (1, 2 or 4)"),
            ("major", 0, "0: K-major (ldmatrix), 1: MN-major (ldmatrix.trans: the same row addresses, lanes in its order), 2: both, a K-major tile then an MN-major one after it (a GEMM's A and B)"),
            ("tma", 0, "the TMA swizzle mode the tile is stored in, by its CUtensorMapSwizzle value: 0 NONE, 1 32B, 2 64B, 3 128B, 4 128B_ATOM_32B, 5 128B_ATOM_32B_FLIP_8B, 6 128B_ATOM_64B"),
        ],
    ),
    (
        "random",
        "uniformly random element indices",
        &[
            ("threads", 32, "threads in the block"),
            ("range", 1024, "elements to draw from"),
            ("width", 4, "bytes per access"),
            ("steps", 1, "requests per thread"),
            ("seed", 1, "random seed"),
        ],
    ),
];

/// A generator could not be built from its name and parameters.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// No generator has this name.
    #[error("unknown generator `{kind}`: known generators are {}", known.join(", "))]
    UnknownKind {
        /// The name asked for.
        kind: String,
        /// The known names.
        known: Vec<&'static str>,
    },
    /// The generator has no such parameter.
    #[error("generator `{kind}` has no parameter `{param}`: its parameters are {}", known.join(", "))]
    UnknownParam {
        /// Generator.
        kind: String,
        /// The parameter given.
        param: String,
        /// Its parameters.
        known: Vec<&'static str>,
    },
    /// The parameters put an access beyond the 32-bit address space.
    #[error("generator `{kind}`: thread {thread}'s address {addr} + {bytes} bytes is beyond 2^32 - 1 with {params}: no shared memory reaches that far")]
    Address {
        /// Generator, with its parameters.
        kind: String,
        /// The parameters as given.
        params: String,
        /// The first thread whose access does not fit.
        thread: u32,
        /// Its address, computed in 64 bits.
        addr: u64,
        /// Its width.
        bytes: u32,
    },
    /// A parameter value is out of range.
    #[error("generator `{kind}`: `{param}` = {value}: {expected}")]
    BadValue {
        /// Generator.
        kind: String,
        /// Parameter.
        param: &'static str,
        /// Value given.
        value: i64,
        /// What is allowed.
        expected: String,
    },
}

/// The parameters of generator `kind`.
pub fn params_of(kind: &str) -> Option<&'static [Param]> {
    GENERATORS.iter().find(|g| g.0 == kind).map(|g| g.2)
}

/// Builds generator `kind` with `params` (missing ones take their defaults).
pub fn generate(kind: &str, params: &BTreeMap<String, i64>) -> Result<Trace, GenError> {
    let spec = params_of(kind).ok_or_else(|| GenError::UnknownKind {
        kind: kind.into(),
        known: GENERATORS.iter().map(|g| g.0).collect(),
    })?;
    if let Some(p) = params.keys().find(|p| !spec.iter().any(|s| s.0 == p.as_str())) {
        return Err(GenError::UnknownParam {
            kind: kind.into(),
            param: p.clone(),
            known: spec.iter().map(|s| s.0).collect(),
        });
    }
    let get = |name: &'static str, lo: i64, hi: i64| -> Result<u32, GenError> {
        let def = spec.iter().find(|s| s.0 == name).expect("declared parameter").1;
        let value = params.get(name).copied().unwrap_or(def);
        if value < lo || value > hi {
            return Err(GenError::BadValue {
                kind: kind.into(),
                param: name,
                value,
                expected: format!("expected {lo} to {hi}"),
            });
        }
        Ok(value as u32)
    };
    let width = |name| -> Result<u32, GenError> {
        let w = get(name, 1, 16)?;
        if !sim_core::is_valid_width(w as u8) {
            return Err(GenError::BadValue {
                kind: kind.into(),
                param: name,
                value: w as i64,
                expected: "expected 1, 2, 4, 8 or 16".into(),
            });
        }
        Ok(w)
    };
    let name = format!(
        "{kind}({})",
        spec.iter()
            .map(|s| format!("{}={}", s.0, params.get(s.0).copied().unwrap_or(s.1)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut g = Builder { trace: Trace::new(name), beyond: None };
    match kind {
        "strided" => {
            let (threads, stride, offset, w) = (
                get("threads", 1, 4096)?,
                get("stride", 0, 1 << 20)?,
                get("offset", 0, 1 << 20)?,
                width("width")?,
            );
            let op = if get("store", 0, 1)? == 1 { Op::Store } else { Op::Load };
            for t in 0..threads {
                g.access(t, 0, op, (offset as u64 + t as u64 * stride as u64) * w as u64, w);
            }
        }
        "tile" => {
            let (rows, cols, pad, w) =
                (get("rows", 1, 64)?, get("cols", 1, 64)?, get("pad", 0, 256)?, width("width")?);
            let (column, swizzle) = (get("column", 0, 1)?, get("swizzle", 0, 10)?);
            let pitch = cols + pad;
            let mask = (1u32 << swizzle) - 1;
            let at = |row: u32, col: u32| (row * pitch + (col ^ (row & mask)) % cols) * w;
            for t in 0..rows * cols {
                let (tx, ty) = (t % cols, t / cols);
                g.access(t, 0, Op::Store, at(ty, tx), w);
                g.barrier(t, 1);
                let addr = if column == 1 { at(tx % rows, ty % cols) } else { at(ty, tx) };
                g.access(t, 2, Op::Load, addr, w);
            }
        }
        "reduction" => {
            let tile = get("tile", 2, 1 << 16)?;
            let interleaved = get("interleaved", 0, 1)? == 1;
            let threads = tile / 2;
            // every thread runs the same program: steps are program positions, a thread
            // that skips an instruction has no record for its step
            let mut step = 0;
            let mut s = if interleaved { 1 } else { tile / 2 };
            while (interleaved && s < tile) || (!interleaved && s > 0) {
                for t in 0..threads {
                    let idx = if interleaved { 2 * s * t } else { t };
                    let active = if interleaved { idx + s < tile } else { t < s };
                    if active {
                        g.access(t, step, Op::Load, idx * 4, 4);
                        g.access(t, step + 1, Op::Load, (idx + s) * 4, 4);
                        g.access(t, step + 2, Op::Store, idx * 4, 4);
                    }
                    g.barrier(t, step + 3);
                }
                step += 4;
                s = if interleaved { s * 2 } else { s / 2 };
            }
        }
        "scan" => {
            let n = get("n", 2, 1 << 16)?;
            if !n.is_power_of_two() {
                return Err(GenError::BadValue {
                    kind: kind.into(),
                    param: "n",
                    value: n as i64,
                    expected: "expected a power of two".into(),
                });
            }
            let padded = get("padded", 0, 1)? == 1;
            let idx = |x: u32| if padded { x + x / 32 } else { x } * 4;
            let threads = n / 2;
            let mut step = 0;
            let mut offset = 1;
            let mut d = n / 2;
            while d > 0 {
                for t in 0..threads {
                    g.barrier(t, step);
                    if t < d {
                        let (ai, bi) = (offset * (2 * t + 1) - 1, offset * (2 * t + 2) - 1);
                        g.access(t, step + 1, Op::Load, idx(ai), 4);
                        g.access(t, step + 2, Op::Load, idx(bi), 4);
                        g.access(t, step + 3, Op::Store, idx(bi), 4);
                    }
                }
                step += 4;
                offset *= 2;
                d /= 2;
            }
            let mut d = 1;
            while d < n {
                offset /= 2;
                for t in 0..threads {
                    g.barrier(t, step);
                    if t < d {
                        let (ai, bi) = (offset * (2 * t + 1) - 1, offset * (2 * t + 2) - 1);
                        g.access(t, step + 1, Op::Load, idx(ai), 4);
                        g.access(t, step + 2, Op::Load, idx(bi), 4);
                        g.access(t, step + 3, Op::Store, idx(ai), 4);
                        g.access(t, step + 4, Op::Store, idx(bi), 4);
                    }
                }
                step += 5;
                d *= 2;
            }
        }
        "aos" => {
            let (k, soa, threads) = (get("k", 1, 64)?, get("soa", 0, 1)? == 1, get("threads", 1, 4096)?);
            for t in 0..threads {
                for f in 0..k {
                    let elem = if soa { f * threads + t } else { t * k + f };
                    g.access(t, f, Op::Load, elem * 4, 4);
                }
            }
        }
        "gemm" => {
            let (m, n, kk) = (get("m", 1, 256)?, get("n", 1, 256)?, get("k", 1, 256)?);
            let (skew, w, threads) = (get("skew", 0, 64)?, width("width")?, get("threads", 1, 1024)?);
            let v = w / 4;
            // the error blames the first parameter that is wrong
            let bad = [
                ("width", w as i64, !(w == 4 || w == 16)),
                ("k", kk as i64, kk % v != 0),
                ("n", n as i64, n % v != 0),
                ("skew", skew as i64, skew % v != 0),
            ];
            if let Some(&(param, value, _)) = bad.iter().find(|b| b.2) {
                return Err(GenError::BadValue {
                    kind: kind.into(),
                    param,
                    value,
                    expected: if param == "width" {
                        "expected 4 or 16 (bytes per access)".into()
                    } else {
                        format!("expected a multiple of {v} elements, so that {w}-byte vectors stay aligned")
                    },
                });
            }
            let (pa, pb) = (kk + skew, n + skew);
            let b_base = m * pa;
            // fill As and Bs with v-float vectors: vector j of a tile goes to thread
            // j mod threads, in round j / threads (its step)
            let mut step = 0;
            for (rows, cols, pitch, base) in [(m, kk, pa, 0), (kk, n, pb, b_base)] {
                let vectors = rows * cols / v;
                for j in 0..vectors {
                    let e = j * v;
                    g.access(
                        j % threads,
                        step + j / threads,
                        Op::Store,
                        (base + (e / cols) * pitch + e % cols) * 4,
                        w,
                    );
                }
                step += vectors.div_ceil(threads);
            }
            for t in 0..threads {
                g.barrier(t, step);
            }
            step += 1;
            // compute: for each k-vector, read As[t % m][kv..kv+v] (down the columns of As)
            // and Bs[kv][(t * v) % n ..] (along a row of Bs)
            for kv in (0..kk).step_by(v as usize) {
                for t in 0..threads {
                    g.access(t, step, Op::Load, ((t % m) * pa + kv) * 4, w);
                    g.access(t, step + 1, Op::Load, (b_base + kv * pb + (t * v) % n) * 4, w);
                }
                step += 2;
            }
        }
        "ldmatrix" => {
            let (rows, cols, w) = (get("rows", 16, 4096)?, get("cols", 1, 4096)?, get("width", 1, 4)?);
            let (majors, tma) = (get("major", 0, 2)?, get("tma", 0, 6)?);
            let mode = sim_core::layout::TmaSwizzle::from_value(tma as i64).expect("0 to 6");
            let row_bytes = cols * w;
            // one TMA box per `inner` bytes of a row: the whole row, or the mode's span
            let inner = mode.span().map_or(row_bytes, |s| s.min(row_bytes));
            let bad = [
                ("width", w as i64, w == 3, "expected 1, 2 or 4 (bytes per element)".to_string()),
                ("rows", rows as i64, rows % 16 != 0, "expected a multiple of 16 (two 8-row matrices)".into()),
                (
                    "tma",
                    tma as i64,
                    mode.unit() < 16,
                    format!("{} exchanges 8-byte halves: a 16-byte matrix row would be split", mode.name()),
                ),
                (
                    "cols",
                    cols as i64,
                    row_bytes % 32 != 0 || row_bytes % inner != 0,
                    format!(
                        "expected rows of a multiple of 32 bytes (two 16-byte matrix rows) and of {}'s span: {row_bytes} bytes",
                        mode.name()
                    ),
                ),
            ];
            if let Some((param, value, _, expected)) = bad.into_iter().find(|b| b.2) {
                return Err(GenError::BadValue { kind: kind.into(), param, value, expected });
            }
            // where byte b of row r is stored: boxes of `inner` bytes a row one after
            // another (CuTe's tile_to_shape of a swizzle atom), each swizzled; a row
            // address is its 16-byte unit (FLIP_8B exchanges the halves within it)
            let tile = rows * row_bytes;
            let at = |r: u32, b: u32| mode.map((b / inner) * rows * inner + r * inner + b % inner) & !15;
            // fragment (fr, fc): 16 rows from 16 * fr, 32 bytes from 32 * fc; ldmatrix.x4
            // takes lane l's row address for matrix l / 8, row l % 8. K-major (the A
            // operand as CUTLASS's SM75_U32x4_LDSM_N reads it): row l % 16, chunk l / 16;
            // .trans (MN-major): row l % 8 + 8 * (l / 16), chunk (l / 8) % 2
            // (one `ldsm` record per row address, 16 bytes each)
            let mut step = 0;
            let order: &[u32] = match majors {
                0 => &[0],
                1 => &[1],
                _ => &[0, 1],
            };
            for (t, &major) in order.iter().enumerate() {
                // each tile's reads are a site of their own, named by the operand layout
                let first = g.trace.records.len();
                g.trace
                    .sites
                    .push(if major == 0 { "K-major (ldmatrix)" } else { "MN-major (ldmatrix.trans)" }.into());
                for fr in 0..rows / 16 {
                    for fc in 0..row_bytes / 32 {
                        for l in 0..32u32 {
                            let (r, chunk) = if major == 0 {
                                (l % 16, l / 16)
                            } else {
                                (l % 8 + 8 * (l / 16), (l / 8) % 2)
                            };
                            let addr = t as u64 * tile as u64 + at(16 * fr + r, 32 * fc + 16 * chunk) as u64;
                            g.access(l, step, Op::MatrixLoad, addr, 16);
                        }
                        step += 1;
                    }
                }
                for r in &mut g.trace.records[first..] {
                    r.site = t as u32;
                }
            }
        }
        "random" => {
            let (threads, range, w) = (get("threads", 1, 4096)?, get("range", 1, 1 << 20)?, width("width")?);
            let (steps, seed) = (get("steps", 1, 4096)?, get("seed", 0, i64::from(u32::MAX))?);
            let mut x = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for t in 0..threads {
                for s in 0..steps {
                    // xorshift64*: deterministic across platforms
                    x ^= x >> 12;
                    x ^= x << 25;
                    x ^= x >> 27;
                    let r = (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) % range as u64;
                    g.access(t, s, Op::Load, r as u32 * w, w);
                }
            }
        }
        _ => unreachable!("kinds are checked above"),
    }
    match g.beyond {
        Some((thread, addr, bytes)) => {
            let params = g.trace.source.clone();
            Err(GenError::Address { kind: kind.into(), params, thread, addr, bytes })
        }
        None => Ok(g.trace),
    }
}

/// A generator's trace, built a record at a time; addresses come computed in 64 bits,
/// and the first that does not fit 32 bits (with its width) is kept for the error.
struct Builder {
    trace: Trace,
    /// The first access beyond the address space: thread, address, width.
    beyond: Option<(u32, u64, u32)>,
}

impl Builder {
    fn access(&mut self, thread: u32, step: u32, op: Op, addr: impl Into<u64>, bytes: u32) {
        let addr: u64 = addr.into();
        let Some(addr) = u32::try_from(addr).ok().filter(|a| a.checked_add(bytes).is_some()) else {
            self.beyond.get_or_insert((thread, addr, bytes));
            return;
        };
        self.trace.push(Record {
            block: 0,
            thread,
            step,
            op,
            addr,
            bytes: bytes as u8,
            gap: 0,
            dep: None,
            wait: None,
            site: crate::NO_SITE,
        });
    }

    fn barrier(&mut self, thread: u32, step: u32) {
        self.trace.push(Record {
            block: 0,
            thread,
            step,
            op: Op::Barrier,
            addr: 0,
            bytes: 0,
            gap: 0,
            dep: None,
            wait: None,
            site: crate::NO_SITE,
        });
    }
}
