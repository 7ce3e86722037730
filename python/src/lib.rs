//! `banksim._banksim`: the compiled half of the Python package `banksim`.
//!
//! The Python half (`banksim/__init__.py`) turns arguments into what these functions take
//! (an `int64` array, a [`PyHardware`]) and their results into a result object or a
//! pandas DataFrame. Everything that decides anything runs in the workspace's crates:
//!
//! - [`PyHardware`]: `configs::load` and `configs::parse_overrides` (keyword arguments
//!   become the RON fields of a config), so errors read as a config file's;
//! - [`simulate_array`]: one warp request per row of a `(requests, lanes)` array, each
//!   checked as `banksim run` checks a trace's records
//!   (`pipeline::check::access_problem`) and evaluated by `BankModel`, with the GIL
//!   released;
//! - [`run_trace`], [`run_text`]: the per-request rows of `banksim run --per-request`,
//!   through the library tier the command runs (`pipeline::stream`), which holds no
//!   state between calls;
//! - [`layouts`]: the layout search of `banksim advise`, a layout applied to addresses,
//!   a layout in CuTe's, Triton's and the TMA's words.

mod layouts;

use numpy::{PyArray1, PyReadonlyArray2};
use pipeline::{check, stream};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};
use sim_core::{BankModel, Hardware, Op, Outcome, WarpRequest, LANE_NUMBERS};
use std::path::Path;

create_exception!(
    _banksim,
    BanksimError,
    PyValueError,
    "Bad input to banksim: a preset, override, array or trace it cannot simulate. The message is the \
     one the `banksim` command prints for the same problem."
);

fn error(e: impl std::fmt::Display) -> PyErr {
    BanksimError::new_err(e.to_string())
}

/// Where keyword overrides come from, in messages (`keyword overrides:1: `banks`: ...`).
const OVERRIDES: &str = "keyword overrides";

/// A validated machine: a preset or RON config file with field overrides.
#[pyclass(name = "Hardware", module = "banksim", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyHardware {
    hw: Hardware,
}

#[pymethods]
impl PyHardware {
    #[new]
    #[pyo3(signature = (preset = None, **overrides), text_signature = "(preset='h100', **overrides)")]
    fn new(
        py: Python<'_>,
        preset: Option<Bound<'_, PyAny>>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let preset = preset.unwrap_or_else(|| PyString::new(py, configs::DEFAULT_PRESET).into_any());
        Ok(PyHardware { hw: machine(&preset, overrides)? })
    }

    /// The preset's or config's name (`+` added where overrides changed it).
    #[getter]
    fn name(&self) -> &str {
        &self.hw.name
    }

    /// Number of banks.
    #[getter]
    fn banks(&self) -> u32 {
        self.hw.banks
    }

    /// Bank word width in bytes.
    #[getter]
    fn bank_bytes(&self) -> u32 {
        self.hw.bank_bytes
    }

    /// Lanes per warp.
    #[getter]
    fn warp(&self) -> u32 {
        self.hw.warp
    }

    /// Shared memory per SM (CU) in bytes: accesses must lie below it.
    #[getter]
    fn smem_per_sm(&self) -> u32 {
        self.hw.smem_per_sm
    }

    /// The machine as a complete RON config file (every field), which `banksim --config`
    /// and `Hardware("file.ron")` read back to the same machine.
    fn to_ron(&self) -> PyResult<String> {
        configs::to_ron(&self.hw, configs::RonStyle::File).map_err(error)
    }

    fn __repr__(&self) -> PyResult<String> {
        let ron = configs::to_ron(&self.hw, configs::RonStyle::Line).map_err(error)?;
        Ok(format!("Hardware{ron}"))
    }
}

/// The machine `preset` names (a preset name, a RON file, or a [`PyHardware`]) with
/// `overrides` applied.
fn machine(preset: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Hardware> {
    let base = if let Ok(h) = preset.cast::<PyHardware>() {
        h.get().hw.clone()
    } else if let Ok(name) = preset.extract::<String>() {
        configs::load(&name).map_err(error)?
    } else if let Ok(path) = preset.extract::<std::path::PathBuf>() {
        configs::load(&path.to_string_lossy()).map_err(error)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "preset: expected a preset name, a RON config file's path or a banksim.Hardware, got {}",
            type_name(preset)
        )));
    };
    match overrides {
        Some(d) if !d.is_empty() => {
            let text = overrides_ron(d)?;
            configs::parse_overrides(&base, &text, OVERRIDES).map_err(|e| match e {
                // (its line and column are the RON text's, which the caller did not write)
                configs::ConfigError::Parse { .. } => error(format!("{e} (the overrides as RON: `{text}`)")),
                e => error(e),
            })
        }
        _ => Ok(base),
    }
}

/// Keyword overrides as the RON fields of a config, on one line: `(banks: 64, ...)`.
fn overrides_ron(d: &Bound<'_, PyDict>) -> PyResult<String> {
    let mut fields = Vec::new();
    for (k, v) in d.iter() {
        let key: String = k.extract()?;
        let value = if matches!(key.as_str(), "name" | "base") && v.is_instance_of::<PyString>() {
            quoted(&v.extract::<String>()?)
        } else {
            ron_value(&key, &v)?
        };
        fields.push(format!("{key}: {value}"));
    }
    Ok(format!("({})", fields.join(", ")))
}

/// A RON string literal.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One override's value as RON: numbers, booleans and `None` as they are, a string as
/// RON text (`"Xor(shift: 5, mask: 7)"`, `"Multicast"`), a dict as a struct, a list or
/// tuple as a sequence.
fn ron_value(key: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if v.is_none() {
        return Ok("None".into());
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(v.extract::<bool>()?.to_string());
    }
    if v.is_instance_of::<PyString>() {
        return v.extract::<String>();
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(format!("{:?}", v.extract::<f64>()?));
    }
    if let Ok(i) = v.extract::<i128>() {
        return Ok(i.to_string());
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut fields = Vec::new();
        for (k, item) in d.iter() {
            let name: String = k.extract()?;
            fields.push(format!("{name}: {}", ron_value(&format!("{key}.{name}"), &item)?));
        }
        return Ok(format!("({})", fields.join(", ")));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items = v.try_iter()?.map(|item| ron_value(key, &item?)).collect::<PyResult<Vec<_>>>()?;
        return Ok(format!("[{}]", items.join(", ")));
    }
    Err(PyTypeError::new_err(format!(
        "override `{key}`: a {} is not a config value: give an int, a bool, None, a str of RON text \
         (e.g. mapping=\"Xor(shift: 5, mask: 7)\"), a dict (a RON struct) or a list",
        type_name(v)
    )))
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "value".into())
}

/// The names of the built-in presets.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    configs::preset_names()
}

/// A numpy array of `uint32` made in Rust.
type U32Array<'py> = Bound<'py, PyArray1<u32>>;

/// The per-request `(wavefronts, ideal, conflicts)` of `addrs`, a `(requests, lanes)` array of byte
/// addresses (-1: inactive lane) with `lanes` equal to the warp size.
#[pyfunction]
fn simulate_array<'py>(
    py: Python<'py>,
    addrs: PyReadonlyArray2<'py, i64>,
    bytes: i64,
    op: &str,
    hardware: &PyHardware,
) -> PyResult<(U32Array<'py>, U32Array<'py>, U32Array<'py>)> {
    let hw = &hardware.hw;
    let op = Op::from_name(op).filter(|op| *op != Op::Barrier).ok_or_else(|| {
        let names: Vec<&str> = Op::ALL.iter().filter(|&&o| o != Op::Barrier).map(|o| o.name()).collect();
        error(format!("`op`: expected one of {}, found `{}`", names.join(", "), op.escape_debug()))
    })?;
    let bytes = u8::try_from(bytes).ok().filter(|&b| op.allows_width(b)).ok_or_else(|| {
        error(match op.widths() {
            [w] => format!("`bytes`: expected {w} bytes for `{op}` (its one width), found {bytes}"),
            [_, _, _] => format!("`bytes`: expected 4, 8 or 16 bytes for `{op}`, found {bytes}"),
            _ => format!("`bytes`: expected an access width of 1, 2, 4, 8 or 16 bytes, found {bytes}"),
        })
    })?;
    let (requests, lanes) = addrs.as_array().dim();
    if lanes != hw.warp as usize {
        return Err(error(format!(
            "addrs has {lanes} lanes per request (shape {requests} x {lanes}) but `{}` has a warp of {} \
             lanes: give one column per lane (-1 for an inactive one), or set warp={lanes}",
            hw.name, hw.warp
        )));
    }
    let flat = addrs.as_slice().map_err(error)?;
    let [wavefronts, ideal, conflicts] =
        py.detach(|| evaluate_rows(hw, op, bytes, flat, lanes)).map_err(error)?;
    Ok((PyArray1::from_vec(py, wavefronts), PyArray1::from_vec(py, ideal), PyArray1::from_vec(py, conflicts)))
}

/// [`simulate_array`]'s loop: each row a warp request, checked and evaluated.
fn evaluate_rows(
    hw: &Hardware,
    op: Op,
    bytes: u8,
    flat: &[i64],
    lanes: usize,
) -> Result<[Vec<u32>; 3], String> {
    let requests = flat.len() / lanes.max(1);
    let mut columns = [(); 3].map(|_| Vec::with_capacity(requests));
    let mut push = |o: Outcome| {
        columns[0].push(o.wavefronts);
        columns[1].push(o.ideal);
        columns[2].push(o.conflicts());
    };
    let mut model = BankModel::new(hw);
    let mut active = vec![0u32; lanes];
    let mut lane_numbers = vec![0u16; lanes];
    // an access is fine where it ends inside shared memory and is aligned (the checks
    // of `access_problem`, which words the message where one fails)
    let last = if op.is_memory() { hw.smem_per_sm as i64 } else { 1 << 32 } - bytes as i64;
    let misaligned = if op.is_memory() { bytes as i64 - 1 } else { 0 };
    // (below 0 where shared memory is smaller than one access: every row takes the slow
    // path, which names the problem)
    let last_u = u64::try_from(last).unwrap_or(0);
    for (r, row) in flat.chunks_exact(lanes).enumerate() {
        // every lane active (no -1, which as u64 is above `last`): checked and converted
        // in loops without branches, and evaluated with the lanes 0..warp borrowed
        if last >= 0 && !row.iter().fold(false, |bad, &a| bad | (a as u64 > last_u) | (a & misaligned != 0)) {
            for (d, &a) in active.iter_mut().zip(row) {
                *d = a as u32;
            }
            push(model.evaluate(&WarpRequest { op, bytes, lanes: &LANE_NUMBERS[..lanes], addrs: &active }));
            continue;
        }
        // some lanes inactive: the mask and the check in one pass, then the active lanes
        // packed by the mask's bits
        let (mut mask, mut bad) = (0u64, last < 0);
        for (l, &a) in row.iter().enumerate() {
            let on = a != -1;
            bad |= on & ((a as u64 > last_u) | (a & misaligned != 0));
            mask |= (on as u64) << l;
        }
        if mask == 0 {
            push(Outcome::default());
            continue;
        }
        if bad {
            let (l, &a) = row
                .iter()
                .enumerate()
                .find(|&(_, &a)| a != -1 && (a < 0 || a > last || a & misaligned != 0))
                .expect("a lane that failed the check");
            return Err(lane_problem(hw, op, bytes, r, l, a));
        }
        let (mut bits, mut n) = (mask, 0);
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            lane_numbers[n] = l as u16;
            active[n] = row[l] as u32;
            n += 1;
            bits &= bits - 1;
        }
        push(model.evaluate(&WarpRequest { op, bytes, lanes: &lane_numbers[..n], addrs: &active[..n] }));
    }
    Ok(columns)
}

/// Why lane `l` of request `r` (address `a`) cannot be simulated, in the words of
/// `banksim run`'s check.
#[cold]
fn lane_problem(hw: &Hardware, op: Op, bytes: u8, r: usize, l: usize, a: i64) -> String {
    let problem = match u32::try_from(a) {
        Ok(addr) => check::access_problem(hw, op, addr, bytes)
            .unwrap_or_else(|| "address + width overflows 32 bits".into()),
        Err(_) => format!(
            "expected a byte address from 0 to 4294967295 (2^32 - 1), or -1 for an inactive lane, found {a}"
        ),
    };
    format!("addrs[{r}, {l}]: {problem}")
}

/// The columns of `banksim run --per-request`: numbers as `int64` arrays, the op codes
/// (`sim_core::Op as u8`) for the Python side to name.
#[derive(Default)]
struct Rows {
    block: Vec<i64>,
    warp: Vec<i64>,
    step: Vec<i64>,
    op: Vec<u8>,
    bytes: Vec<i64>,
    active: Vec<i64>,
    wavefronts: Vec<i64>,
    ideal: Vec<i64>,
    conflicts: Vec<i64>,
}

impl Rows {
    fn take(&mut self, e: &stream::Evaluated) {
        for (r, o) in e.requests.iter().zip(&e.outcomes) {
            self.push(&r, *o);
        }
    }

    fn push(&mut self, r: &traces::RequestRef<'_>, o: Outcome) {
        self.block.push(r.block.into());
        self.warp.push(r.warp.into());
        self.step.push(r.step.into());
        self.op.push(r.op as u8);
        self.bytes.push(r.bytes.into());
        self.active.push(r.lanes.len() as i64);
        self.wavefronts.push(o.wavefronts.into());
        self.ideal.push(o.ideal.into());
        self.conflicts.push(o.conflicts().into());
    }

    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("block", PyArray1::from_vec(py, self.block))?;
        d.set_item("warp", PyArray1::from_vec(py, self.warp))?;
        d.set_item("step", PyArray1::from_vec(py, self.step))?;
        d.set_item("op", PyArray1::from_vec(py, self.op))?;
        d.set_item("bytes", PyArray1::from_vec(py, self.bytes))?;
        d.set_item("active", PyArray1::from_vec(py, self.active))?;
        d.set_item("wavefronts", PyArray1::from_vec(py, self.wavefronts))?;
        d.set_item("ideal", PyArray1::from_vec(py, self.ideal))?;
        d.set_item("conflicts", PyArray1::from_vec(py, self.conflicts))?;
        Ok(d)
    }
}

/// The names of `Op` codes 0, 1, ... (`Op::ALL` is in code order).
#[pyfunction]
fn op_names() -> Vec<&'static str> {
    Op::ALL.iter().map(|op| op.name()).collect()
}

/// Bytes of records a text trace out of block order is sorted with before sorted runs
/// go to a temporary folder (`banksim run --memory`'s default).
const SORT_MEMORY: usize = 1 << 30;

/// The per-request rows of the trace file at `path` (text or binary), as
/// `banksim run --per-request` writes them.
#[pyfunction]
#[pyo3(signature = (path, hardware, threads_per_block = None))]
fn run_trace<'py>(
    py: Python<'py>,
    path: &str,
    hardware: &PyHardware,
    threads_per_block: Option<u32>,
) -> PyResult<Bound<'py, PyDict>> {
    let hw = &hardware.hw;
    let rows = py
        .detach(|| -> pipeline::Result<Rows> {
            let input = stream::open(Path::new(path))?;
            let how = stream::Reading { threads_per_block, ..stream::Reading::new(SORT_MEMORY) };
            let start = || Ok(Rows::default());
            let (rows, _, _) = stream::for_each_evaluated(input, hw, &how, start, |rows, e| {
                rows.take(e);
                Ok::<_, pipeline::Error>(())
            })?;
            Ok(rows)
        })
        .map_err(error)?;
    rows.into_dict(py)
}

/// The per-request rows of a text trace held in memory (`name` for messages), checked
/// and grouped as `banksim run` does a file.
#[pyfunction]
#[pyo3(signature = (text, name, hardware, threads_per_block = None))]
fn run_text<'py>(
    py: Python<'py>,
    text: &[u8],
    name: &str,
    hardware: &PyHardware,
    threads_per_block: Option<u32>,
) -> PyResult<Bound<'py, PyDict>> {
    let hw = &hardware.hw;
    let rows = py
        .detach(|| -> pipeline::Result<Rows> {
            let trace = traces::text::parse(text, name)?;
            let requests = pipeline::simulate::checked_requests(&trace, hw, threads_per_block)?;
            let mut rows = Rows::default();
            pipeline::simulate::summarize(hw, &requests, |_, r, o| rows.push(r, o));
            Ok(rows)
        })
        .map_err(error)?;
    rows.into_dict(py)
}

#[pymodule]
fn _banksim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("BanksimError", m.py().get_type::<BanksimError>())?;
    m.add("DEFAULT_PRESET", configs::DEFAULT_PRESET)?;
    m.add_class::<PyHardware>()?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_array, m)?)?;
    m.add_function(wrap_pyfunction!(op_names, m)?)?;
    m.add_function(wrap_pyfunction!(run_trace, m)?)?;
    m.add_function(wrap_pyfunction!(run_text, m)?)?;
    m.add_function(wrap_pyfunction!(layouts::advise_input, m)?)?;
    m.add_function(wrap_pyfunction!(layouts::layout_map, m)?)?;
    m.add_function(wrap_pyfunction!(layouts::layout_names, m)?)?;
    m.add_function(wrap_pyfunction!(layouts::tma_modes, m)?)?;
    Ok(())
}
