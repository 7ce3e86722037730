//! Loading a WGSL kernel: parse, validate, choose the entry point, set overrides.

use crate::error::InstrumentError;
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::Module;

/// A parsed and validated kernel with its pipeline-overridable constants resolved.
#[derive(Debug)]
pub struct Loaded {
    /// The module (overrides replaced by constants, and a scalar constant used in a
    /// function by its literal, as the compiler sees it; only the chosen entry point kept
    /// when the module had overrides or several entry points).
    pub module: Module,
    /// Its validation info.
    pub info: ModuleInfo,
    /// The compute entry point.
    pub entry: String,
    /// The WGSL source, for error locations.
    pub source: String,
    /// Its name (a path), for messages.
    pub file: String,
}

fn validator() -> Validator {
    Validator::new(ValidationFlags::all(), Capabilities::all())
}

/// Parses and validates `source`, picks the compute entry point (`entry`, or the only
/// one), and sets `overrides` (name or `@id` → value; every override without a default
/// must be given).
pub fn load(
    source: &str,
    file: &str,
    entry: Option<&str>,
    overrides: &[(String, f64)],
) -> Result<Loaded, InstrumentError> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| InstrumentError::Parse {
        file: file.into(),
        message: e.emit_to_string_with_path(source, file),
    })?;
    let info = validator().validate(&module).map_err(|e| InstrumentError::Invalid {
        file: file.into(),
        message: e.emit_to_string_with_path(source, file),
    })?;
    let found = crate::instrument::compute_entry_points(&module);
    let entry = match entry {
        Some(e) if found.iter().any(|f| f == e) => e.to_string(),
        Some(e) => return Err(InstrumentError::NoEntryPoint { wanted: Some(e.into()), found }),
        None if found.len() == 1 => found[0].clone(),
        None => return Err(InstrumentError::NoEntryPoint { wanted: None, found }),
    };
    check_override_values(&module, overrides)?;
    let constants: naga::back::PipelineConstants = overrides.iter().cloned().collect();
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((naga::ShaderStage::Compute, &entry)),
        &constants,
    )
    .map_err(|e| InstrumentError::Override { message: with_causes(&e) })?;
    let mut module = module.into_owned();
    let inlined = inline_scalar_constants(&mut module);
    let removed = crate::dead_loops::remove(&mut module);
    let info = if resolve_array_sizes(&mut module) | inlined | removed {
        validator().validate(&module).map_err(|e| InstrumentError::Internal {
            message: format!(
                "resolving override-sized arrays, inlining constants and removing loops that run no iteration: {}",
                e.emit_to_string(source)
            ),
        })?
    } else {
        info.into_owned()
    };
    Ok(Loaded { module, info, entry, source: source.into(), file: file.into() })
}

/// Refuses a value its override's type cannot hold exactly (naga would truncate 2.5 to 2
/// for a `u32`, or wrap -1).
fn check_override_values(module: &Module, overrides: &[(String, f64)]) -> Result<(), InstrumentError> {
    for (key, value) in overrides {
        let Some((_, o)) = module.overrides.iter().find(|(_, o)| {
            o.name.as_deref() == Some(key.as_str()) || o.id.is_some_and(|id| id.to_string() == *key)
        }) else {
            continue; // naga names unknown overrides
        };
        let kind = match module.types[o.ty].inner {
            naga::TypeInner::Scalar(s) => s.kind,
            _ => continue,
        };
        let name = o.name.clone().unwrap_or_else(|| key.clone());
        let bad = |expected: &str| {
            Err(InstrumentError::Override { message: format!("`{name}` is {expected}, not {value}") })
        };
        match kind {
            naga::ScalarKind::Uint if value.fract() != 0.0 || *value < 0.0 || *value > u32::MAX as f64 => {
                return bad("a u32 (a whole number from 0 to 2^32 - 1)")
            }
            naga::ScalarKind::Sint
                if value.fract() != 0.0 || *value < i32::MIN as f64 || *value > i32::MAX as f64 =>
            {
                return bad("an i32 (a whole number)")
            }
            naga::ScalarKind::Bool if *value != 0.0 && *value != 1.0 => return bad("a bool (true or false)"),
            _ => {}
        }
    }
    Ok(())
}

/// An error's message followed by its causes, so that a wrapper ("entry point main is
/// invalid") keeps the reason.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let m = c.to_string();
        if !message.contains(&m) {
            message.push_str(": ");
            message.push_str(&m);
        }
        cause = c.source();
    }
    message
}

/// Replaces override-sized array types by constant-sized ones (their overrides are
/// resolved by now), since naga's WGSL writer cannot write the former. Returns whether
/// anything changed.
fn resolve_array_sizes(module: &mut Module) -> bool {
    let pending: Vec<_> = module
        .types
        .iter()
        .filter_map(|(h, t)| match t.inner {
            naga::TypeInner::Array { base, size: size @ naga::ArraySize::Pending(_), stride } => {
                match size.resolve(module.to_ctx()) {
                    Ok(naga::proc::IndexableLength::Known(n)) => Some((h, t.name.clone(), base, n, stride)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    for (h, name, base, n, stride) in &pending {
        let Some(n) = std::num::NonZeroU32::new(*n) else { continue };
        let inner =
            naga::TypeInner::Array { base: *base, size: naga::ArraySize::Constant(n), stride: *stride };
        let mut ty = naga::Type { name: name.clone(), inner };
        // an identical type may exist already: a distinct name keeps the arena unique
        let mut k = 0;
        while module.types.get(&ty).is_some() {
            ty.name = Some(format!("banksim_array{}_{k}", h.index()));
            k += 1;
        }
        module.types.replace(*h, ty);
    }
    !pending.is_empty()
}

/// Reads and loads a WGSL file.
pub fn load_file(
    path: &std::path::Path,
    entry: Option<&str>,
    overrides: &[(String, f64)],
) -> Result<Loaded, InstrumentError> {
    let file = path.display().to_string();
    let source =
        std::fs::read_to_string(path).map_err(|source| InstrumentError::Io { file: file.clone(), source })?;
    load(&source, &file, entry, overrides)
}

/// Writes a module as WGSL (naga's writer may rename identifiers).
pub fn to_wgsl(module: &Module, info: &ModuleInfo) -> Result<String, InstrumentError> {
    naga::back::wgsl::write_string(module, info, naga::back::wgsl::WriterFlags::empty())
        .map_err(|e| InstrumentError::Internal { message: format!("writing WGSL: {e}") })
}

/// The name naga's writer gave the (only) compute entry point of `wgsl`, checking on
/// the way that the written WGSL parses and validates again.
pub fn reparse_entry(wgsl: &str) -> Result<String, InstrumentError> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| InstrumentError::Internal {
        message: format!("the instrumented WGSL does not parse:\n{}", e.emit_to_string(wgsl)),
    })?;
    validator().validate(&module).map_err(|e| InstrumentError::Internal {
        message: format!("the instrumented WGSL does not validate:\n{}", e.emit_to_string(wgsl)),
    })?;
    let found = crate::instrument::compute_entry_points(&module);
    match found.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(InstrumentError::Internal {
            message: format!("the instrumented WGSL has entry points {found:?}"),
        }),
    }
}

/// Replaces every use of a scalar constant in a function (an override's value among
/// them, once resolved) by its literal, as the GPU's compiler sees it: the operation
/// count can then tell `x * 1` or `x + 0`, which the compiler removes, from `x * 2`.
/// Whether anything was replaced.
fn inline_scalar_constants(module: &mut naga::Module) -> bool {
    let literal = |c: naga::Handle<naga::Constant>| match module.global_expressions[module.constants[c].init]
    {
        naga::Expression::Literal(l) => Some(l),
        _ => None,
    };
    let literals: Vec<Option<naga::Literal>> = module.constants.iter().map(|(c, _)| literal(c)).collect();
    let mut any = false;
    let functions = module.functions.iter_mut().map(|(_, f)| f);
    for f in functions.chain(module.entry_points.iter_mut().map(|e| &mut e.function)) {
        for (_, e) in f.expressions.iter_mut() {
            if let naga::Expression::Constant(c) = *e {
                if let Some(l) = literals[c.index()] {
                    *e = naga::Expression::Literal(l);
                    any = true;
                }
            }
        }
    }
    any
}
