//! Layouts from Python: the advisor's search (`pipeline::layout`, what `banksim advise`
//! runs), a layout applied to byte addresses (`sim_core::layout::Layout::map`), a layout
//! in other libraries' words (`sim_core::layout::spell::also`) and the TMA swizzle modes.
//! Layouts travel as the text `banksim advise` prints (`Swizzle<5,0,5>`, `pad 1`,
//! `TMA SWIZZLE_128B`), read back by `Layout`'s `FromStr`.

use crate::{error, PyHardware};
use numpy::{PyArray1, PyReadonlyArray1};
use pipeline::layout;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sim_core::layout::{spell, ArrayShape, Layout, TmaSwizzle};

/// A layout from its text.
fn parse(text: &str) -> PyResult<Layout> {
    text.parse::<Layout>().map_err(error)
}

/// An array shape from `ROWSxCOLSxBYTES[@BASE]`.
fn shape(text: &str) -> PyResult<ArrayShape> {
    layout::parse_shape(text).map_err(error)
}

/// The layout search of `banksim advise` on `input` (a trace file or a generator
/// `KIND[:NAME=VALUE,...]`), as columns: `shape` (`None`: the generator's, else
/// inferred), `layouts` (`all`, `tma` or layouts separated by `;`), `cycles` to run the
/// cycle engine per candidate. Row 0 is the array as it is.
#[pyfunction]
#[pyo3(signature = (input, hardware, shape = None, layouts = "all", max_pad = 33, cycles = false))]
pub fn advise_input<'py>(
    py: Python<'py>,
    input: &str,
    hardware: &PyHardware,
    shape: Option<&str>,
    layouts: &str,
    max_pad: u32,
    cycles: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let hw = &hardware.hw;
    let given = shape.map(self::shape).transpose()?;
    let named = match layouts {
        "all" => None,
        "tma" => Some(layout::tma_layouts()),
        list => Some(list.split(';').map(parse).collect::<PyResult<Vec<_>>>()?),
    };
    let (shape, base, cands) = py
        .detach(|| -> pipeline::Result<_> {
            let inputs = pipeline::output::Inputs::new();
            let (trace, gen_shape) = layout::load_input(input, &inputs)?;
            pipeline::check::check_records(&trace, hw, None)?;
            let shape = match given.or(gen_shape) {
                Some(s) => s,
                None => layout::infer_shape(&trace, hw)?,
            };
            let cycles = cycles && hw.timing.is_some();
            let (base, cands) = match &named {
                None => {
                    layout::check_pad(&shape, hw, max_pad)?;
                    layout::check_work(max_pad, trace.len())?;
                    layout::search(hw, &trace, &shape, max_pad, cycles)?
                }
                Some(list) => {
                    let s = layout::search_among(hw, &trace, &shape, list, cycles)?;
                    (s.base, s.candidates)
                }
            };
            Ok((shape, base, cands))
        })
        .map_err(error)?;
    let all: Vec<&layout::Candidate> = std::iter::once(&base).chain(&cands).collect();
    let d = PyDict::new(py);
    d.set_item("layout", all.iter().map(|c| c.layout.to_string()).collect::<Vec<_>>())?;
    let col = |f: &dyn Fn(&layout::Candidate) -> u64| -> Vec<u64> { all.iter().map(|c| f(c)).collect() };
    d.set_item("wavefronts", PyArray1::from_vec(py, col(&|c| c.wavefronts)))?;
    d.set_item("ideal", PyArray1::from_vec(py, col(&|c| c.ideal)))?;
    d.set_item("conflicts", PyArray1::from_vec(py, col(&|c| c.conflicts)))?;
    d.set_item("extra_bytes", PyArray1::from_vec(py, col(&|c| c.extra_bytes as u64)))?;
    d.set_item("smem_per_block", PyArray1::from_vec(py, col(&|c| c.smem_per_block as u64)))?;
    if cycles && hw.timing.is_some() {
        d.set_item("cycles", PyArray1::from_vec(py, col(&|c| c.cycles.unwrap_or(0))))?;
    }
    d.set_item("same_as", all.iter().map(|c| spell::also(&c.layout, &shape).join("; ")).collect::<Vec<_>>())?;
    d.set_item("shape", format!("{}x{}x{}@{}", shape.rows, shape.cols, shape.elem, shape.base))?;
    Ok(d)
}

/// Where `layout` stores each byte address of `addrs` of the array `shape` (addresses
/// past it move by the bytes it grows; `-1`, an inactive lane, stays).
#[pyfunction]
pub fn layout_map<'py>(
    py: Python<'py>,
    layout: &str,
    shape: &str,
    addrs: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (l, s) = (parse(layout)?, self::shape(shape)?);
    let out = addrs
        .as_array()
        .iter()
        .map(|&a| match u32::try_from(a) {
            Ok(a) => Ok(l.map(&s, a) as i64),
            Err(_) if a == -1 => Ok(-1),
            Err(_) => Err(error(format!("address {a}: expected 0 to 2^32 - 1, or -1 for an inactive lane"))),
        })
        .collect::<PyResult<Vec<i64>>>()?;
    Ok(PyArray1::from_vec(py, out))
}

/// `layout` on `shape` in other libraries' words (as `banksim advise`'s `same as`), and
/// its text as `banksim` writes it.
#[pyfunction]
pub fn layout_names(layout: &str, shape: &str) -> PyResult<(String, Vec<String>)> {
    let (l, s) = (parse(layout)?, self::shape(shape)?);
    Ok((l.to_string(), spell::also(&l, &s)))
}

/// A TMA mode for Python: name, `CUtensorMapSwizzle` value, span in bytes (0: none), its
/// XORs as CuTe `Swizzle<B,M,S>` on bytes.
type Mode = (&'static str, u32, u32, Vec<(u32, u32, u32)>);

/// Every TMA swizzle mode (see [`Mode`]).
#[pyfunction]
pub fn tma_modes() -> Vec<Mode> {
    TmaSwizzle::ALL.iter().map(|m| (m.name(), m.value(), m.span().unwrap_or(0), m.xors().to_vec())).collect()
}
