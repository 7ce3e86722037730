//! The SASS opcode table: which opcodes are shared-memory accesses or barriers, with
//! what width and active lanes.

use sim_core::Op;

/// The name a cp.async (`LDGSTS`) is counted under in [`super::ImportStats::skipped`]
/// where its traced addresses are its global source, not its shared destination.
pub(crate) const GLOBAL_COPY: &str = "LDGSTS (global source address)";

/// What to do with one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A shared-memory access of `bytes` per lane, by lanes below `lanes` only.
    Access { op: Op, bytes: u8, lanes: u32 },
    /// A block barrier.
    Barrier,
    /// Not imported; counted under this name.
    Skip(&'static str),
}

/// Classifies an opcode. `result_used`: whether an `ATOMS` writes a register other than
/// `RZ` (`None` when the format does not say). An error is a shared-memory instruction
/// banksim cannot decode (the reason).
pub(crate) fn classify(opcode: &str, result_used: Option<bool>) -> Result<Kind, String> {
    let base = opcode.split('.').next().unwrap_or("");
    if !matches!(base, "LDS" | "STS" | "ATOMS" | "LDSM" | "STSM" | "LDGSTS" | "BAR") {
        return Ok(Kind::Skip("")); // the common case: no allocation
    }
    let suffix: Vec<&str> = opcode.split('.').skip(1).filter(|t| !t.is_empty()).collect();
    let suffix = suffix.as_slice();
    let kind = match base {
        "LDS" => Kind::Access { op: Op::Load, bytes: width(suffix)?, lanes: 32 },
        "STS" => Kind::Access { op: Op::Store, bytes: width(suffix)?, lanes: 32 },
        "ATOMS" => {
            let op = match result_used {
                Some(true) => Op::Atomic,
                Some(false) => Op::Reduction,
                None if suffix.contains(&"POPC") && suffix.contains(&"INC") => Op::Reduction,
                None => Op::Atomic,
            };
            Kind::Access { op, bytes: width(suffix)?, lanes: 32 }
        }
        "LDSM" => Kind::Access { op: Op::MatrixLoad, bytes: 16, lanes: matrix_lanes(suffix)? },
        "STSM" => Kind::Access { op: Op::MatrixStore, bytes: 16, lanes: matrix_lanes(suffix)? },
        "LDGSTS" => {
            // cp.async.cg is `.BYPASS` (16 bytes only); cp.async.ca of 4, 8 or 16
            let op = if suffix.contains(&"BYPASS") { Op::AsyncCopyBypass } else { Op::AsyncCopy };
            let bytes = width(suffix)?;
            if !op.allows_width(bytes) {
                return Err(format!(
                    "a {}-byte cp.async: banksim models copies of {} bytes",
                    bytes,
                    if op == Op::AsyncCopy { "4, 8 or 16" } else { "16 (`.BYPASS`)" }
                ));
            }
            Kind::Access { op, bytes, lanes: 32 }
        }
        "BAR" if suffix.contains(&"ARV") => Kind::Skip("BAR.ARV"),
        "BAR" => Kind::Barrier,
        _ => Kind::Skip(""),
    };
    Ok(kind)
}

/// Access width from the opcode suffix (Accel-Sim's rule: the first all-digit token, or
/// `U`+digits, is the width in bits; also `S`+digits here), default 4 bytes.
fn width(suffix: &[&str]) -> Result<u8, String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let bits = suffix.iter().find_map(|t| {
        if digits(t) {
            Some(*t)
        } else {
            t.strip_prefix('U').or_else(|| t.strip_prefix('S')).filter(|r| digits(r))
        }
    });
    let Some(bits) = bits else { return Ok(4) };
    match bits.parse::<u32>() {
        Ok(b @ (8 | 16 | 32 | 64 | 128)) => Ok((b / 8) as u8),
        _ => Err(format!(
            "access width of {bits} bits: banksim models 8, 16, 32, 64 and 128-bit shared-memory accesses"
        )),
    }
}

/// Lanes that provide row addresses to `ldmatrix`/`stmatrix`: 8 per matrix.
fn matrix_lanes(suffix: &[&str]) -> Result<u32, String> {
    let shape = suffix.iter().position(|t| *t == "M88" || *t == "MT88").ok_or_else(|| {
        "unsupported matrix shape: banksim decodes the 8x8 shapes `.M88` and `.MT88` (16-byte rows)"
            .to_string()
    })?;
    match suffix.get(shape + 1..).unwrap_or(&[]) {
        [] => Ok(8),
        ["2"] => Ok(16),
        ["4"] => Ok(32),
        other => Err(format!(
            "unsupported matrix count `.{}`: expected none (1 matrix), `.2` or `.4`",
            other.join(".")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_core_opcodes() {
        let access = |op, bytes, lanes| Ok(Kind::Access { op, bytes, lanes });
        assert_eq!(classify("LDSM.16.M88", None), access(Op::MatrixLoad, 16, 8));
        assert_eq!(classify("LDSM.16.MT88.2", None), access(Op::MatrixLoad, 16, 16));
        assert_eq!(classify("STSM.16.M88.4", None), access(Op::MatrixStore, 16, 32));
        assert_eq!(classify("LDGSTS.E", None), access(Op::AsyncCopy, 4, 32));
        assert_eq!(classify("LDGSTS.E.LTC128B.64", None), access(Op::AsyncCopy, 8, 32));
        assert_eq!(classify("LDGSTS.E.128.ZFILL", None), access(Op::AsyncCopy, 16, 32));
        assert_eq!(classify("LDGSTS.E.BYPASS.LTC128B.128", None), access(Op::AsyncCopyBypass, 16, 32));
        assert!(classify("LDGSTS.E.BYPASS.64", None).unwrap_err().contains("16 (`.BYPASS`)"));
        assert!(classify("LDGSTS.E.U16", None).unwrap_err().contains("4, 8 or 16"));
        assert_eq!(classify("LDGDEPBAR", None), Ok(Kind::Skip("")));
    }
}
