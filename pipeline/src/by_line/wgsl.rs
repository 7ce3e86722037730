//! The advisor's fix in the kernel's own WGSL: the workgroup array's declaration and each
//! access to it rewritten with the kernel's names (`tile[l.x][l.y ^ l.x]` for the
//! transpose's swizzle, `array<array<f32, 33>, 32>` for its padding).
//!
//! The text is read, not compiled: the array is the workgroup variable that starts at
//! the fixed array's first byte (from the capture's layout of workgroup variables, or,
//! for a trace file, the first one the file declares, at byte 0), declared as
//! `array<T, N>` or `array<array<T, C>, R>` with `T` of the array's element size; each
//! access is the variable's first index chain at or after its site's column. Where any
//! of that does not hold, or the layout has no such form, there is no WGSL spelling (the
//! fix is still given as a layout).
//!
//! ```
//! use pipeline::by_line::wgsl::{spell, SharedArray};
//! use sim_core::layout::{ArrayShape, Layout};
//! let src = "var<workgroup> tile: array<array<f32, 32>, 32>;\nfn f() {\n    x = tile[l.x][l.y];\n}\n";
//! let shape = ArrayShape { base: 0, rows: 32, cols: 32, elem: 4 };
//! let vars = [SharedArray { name: "tile".into(), offset: 0, bytes: 4096 }];
//! let swizzle = Layout::Swizzle { bits: 5, base: 0, shift: 5 };
//! let fix = spell(&swizzle, &shape, src, &[(3, 9)], Some(&vars)).unwrap();
//! assert_eq!(fix, ["tile[l.x][l.y ^ l.x] (line 3)"]);
//! let pad = spell(&Layout::Pad { elems: 1 }, &shape, src, &[(3, 9)], Some(&vars)).unwrap();
//! assert_eq!(pad, ["var<workgroup> tile: array<array<f32, 33>, 32>; (line 1; indexing unchanged)"]);
//! ```

use sim_core::layout::{spell as names, ArrayShape, Layout};

/// A workgroup variable as the capture lays it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedArray {
    /// Its name in the shader.
    pub name: String,
    /// Its first byte.
    pub offset: u32,
    /// Its size in bytes.
    pub bytes: u32,
}

/// The declared type: its element's WGSL text and the counts (as written, and as numbers
/// where they are literals), outer first.
struct Declared<'a> {
    /// The line (1-based) and its text.
    line: (usize, &'a str),
    elem: &'a str,
    dims: Vec<(&'a str, Option<u32>)>,
}

/// Bytes of a WGSL element type the advisor can index (scalars, vectors of them,
/// atomics).
fn elem_bytes(t: &str) -> Option<u32> {
    let t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let scalar = |s: &str| match s {
        "f32" | "i32" | "u32" => Some(4),
        "f16" => Some(2),
        _ => None,
    };
    if let Some(inner) = t.strip_prefix("atomic<").and_then(|r| r.strip_suffix('>')) {
        return scalar(inner);
    }
    for (prefix, n) in [("vec2<", 2), ("vec3<", 4), ("vec4<", 4)] {
        if let Some(inner) = t.strip_prefix(prefix).and_then(|r| r.strip_suffix('>')) {
            return scalar(inner).map(|b| b * n);
        }
    }
    scalar(&t)
}

/// An integer literal's value (`32`, `32u`, `32i`).
fn literal(s: &str) -> Option<u32> {
    s.trim().trim_end_matches(['u', 'i']).parse().ok()
}

/// Splits `array<A, B>`'s inside at its top-level comma.
fn array_args(t: &str) -> Option<(&str, &str)> {
    let inner = t.trim().strip_prefix("array<")?.strip_suffix('>')?;
    let mut depth = 0i32;
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => return Some((inner[..i].trim(), inner[i + 1..].trim())),
            _ => {}
        }
    }
    None
}

/// The declaration of workgroup variable `name` in `src`.
fn declaration<'a>(src: &'a str, name: &str) -> Option<Declared<'a>> {
    for (n, text) in src.lines().enumerate() {
        let Some(rest) = text.trim_start().strip_prefix("var<workgroup>") else { continue };
        let Some((var, ty)) = rest.split_once(':') else { continue };
        if var.trim() != name {
            continue;
        }
        let ty = ty.split(';').next()?.trim();
        let (a, count) = array_args(ty)?;
        let (elem, dims) = match array_args(a) {
            Some((e, inner)) => (e, vec![(count, literal(count)), (inner, literal(inner))]),
            None => (a, vec![(count, literal(count))]),
        };
        return Some(Declared { line: (n + 1, text), elem, dims });
    }
    None
}

/// The first workgroup variable `src` declares.
fn first_declared(src: &str) -> Option<&str> {
    src.lines().find_map(|l| l.trim_start().strip_prefix("var<workgroup>")?.split(':').next()).map(str::trim)
}

/// The index chain of `name` at or after byte `from` of `line`: each index's text.
fn indices<'a>(line: &'a str, name: &str, from: usize) -> Option<Vec<&'a str>> {
    let mut at = from.min(line.len());
    loop {
        let i = at + line.get(at..)?.find(name)?;
        let before = line[..i].chars().next_back();
        let boundary = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        let mut rest = &line[i + name.len()..];
        if boundary && rest.trim_start().starts_with('[') {
            let mut out = Vec::new();
            while let Some(r) = rest.trim_start().strip_prefix('[') {
                let mut depth = 0;
                let end = r.char_indices().find(|&(_, c)| {
                    match c {
                        '[' | '(' => depth += 1,
                        ']' | ')' if depth > 0 => depth -= 1,
                        ']' => return true,
                        _ => {}
                    }
                    false
                })?;
                out.push(r[..end.0].trim());
                rest = &r[end.0 + 1..];
            }
            return Some(out);
        }
        at = i + name.len();
    }
}

/// `e` ready to be an operand of a binary operator (parenthesized unless it is a name,
/// a member, an index or a literal).
fn operand(e: &str) -> String {
    let mut depth = 0;
    let simple = e.chars().all(|c| {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        depth > 0 || c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '(' | ')')
    });
    if simple {
        e.to_string()
    } else {
        format!("({e})")
    }
}

/// `mask` as WGSL writes it best: decimal where it is `2^n - 1`, else hex.
fn mask_text(mask: u32) -> String {
    if (mask + 1).is_power_of_two() {
        mask.to_string()
    } else {
        format!("0x{mask:x}")
    }
}

/// A count increased by `add`: the literal's new value, or the expression plus it.
fn grown(count: &(&str, Option<u32>), add: u32) -> String {
    match count.1 {
        Some(n) => (n + add).to_string(),
        None => format!("{} + {add}", count.0),
    }
}

/// The fix of `layout` on `shape` in the kernel's WGSL `src`: the changed declaration or
/// each access rewritten (`sites`: (line, column) of each access to the array), with its
/// line. `vars`: the capture's workgroup variables (`None`: a trace file's, where the
/// array must be the first declared, at byte 0). `None` where it has no such form.
pub fn spell(
    layout: &Layout,
    shape: &ArrayShape,
    src: &str,
    sites: &[(u32, u32)],
    vars: Option<&[SharedArray]>,
) -> Option<Vec<String>> {
    let name = match vars {
        Some(vars) => {
            let v = vars.iter().find(|v| v.offset == shape.base)?;
            (v.bytes == shape.bytes()).then_some(v.name.as_str())?
        }
        None if shape.base == 0 => first_declared(src)?,
        None => return None,
    };
    let decl = declaration(src, name)?;
    if elem_bytes(decl.elem)? != shape.elem {
        return None;
    }
    let (rows, cols) = (shape.rows, shape.cols);
    let two_d = match decl.dims[..] {
        [(_, Some(r)), (_, Some(c))] if r == rows && c == cols => true,
        [(_, n)] if n.is_none_or(|n| n == rows * cols) => false,
        _ => return None,
    };
    let lines: Vec<&str> = src.lines().collect();
    let accesses = || -> Option<Vec<(u32, Vec<&str>)>> {
        let mut out = Vec::new();
        for &(line, col) in sites {
            let text = lines.get((line as usize).checked_sub(1)?)?;
            let from = text.char_indices().nth(col.saturating_sub(1) as usize).map_or(text.len(), |(i, _)| i);
            let idx = indices(text, name, from)?;
            (idx.len() == if two_d { 2 } else { 1 }).then_some(())?;
            if !out.iter().any(|(l, i)| *l == line && *i == idx) {
                out.push((line, idx));
            }
        }
        (!out.is_empty()).then_some(out)
    };
    let decl_line = |ty: String| {
        let (n, text) = decl.line;
        let (head, _) = text.split_once(':')?;
        Some(format!("{}: {ty};", head.trim()))
            .map(|d| format!("{d} (line {n}{})", if two_d { "; indexing unchanged" } else { "" }))
    };
    let rewrite = |f: &dyn Fn(&[&str]) -> Option<String>| -> Option<Vec<String>> {
        accesses()?.iter().map(|(line, idx)| Some(format!("{name}{} (line {line})", f(idx)?))).collect()
    };
    match *layout {
        Layout::Pad { elems } if two_d => decl_line(format!(
            "array<array<{}, {}>, {}>",
            decl.elem,
            grown(&decl.dims[1], elems),
            decl.dims[0].0
        ))
        .map(|d| vec![d]),
        Layout::Pad { elems } => {
            let mut out =
                vec![decl_line(format!("array<{}, {}>", decl.elem, grown(&decl.dims[0], rows * elems)))?];
            let per = if elems == 1 { String::new() } else { format!(" * {elems}") };
            out.extend(rewrite(&|i| Some(format!("[{} + {} / {cols}{per}]", i[0], operand(i[0]))))?);
            Some(out)
        }
        Layout::Transpose if two_d => {
            let mut out = vec![decl_line(format!(
                "array<array<{}, {}>, {}>",
                decl.elem, decl.dims[0].0, decl.dims[1].0
            ))?];
            out.extend(rewrite(&|i| Some(format!("[{}][{}]", i[1], i[0])))?);
            Some(out)
        }
        Layout::Transpose => {
            rewrite(&|i| Some(format!("[{e} % {cols} * {rows} + {e} / {cols}]", e = operand(i[0]))))
        }
        Layout::Swizzle { .. } | Layout::Tma(_) => {
            let (b, m, s) = names::on_elements(layout, shape)?;
            let mask = ((1u32 << b) - 1) << m;
            if two_d {
                // the XOR's source bits in the row index, its target bits in the column
                let k = cols.is_power_of_two().then(|| cols.trailing_zeros())?;
                (m + s >= k && m + b <= k).then_some(())?;
                let sh = m + s - k;
                rewrite(&|i| {
                    let mut t = operand(i[0]);
                    if sh > 0 {
                        t = format!("{t} >> {sh}");
                    }
                    if rows > 1 << (b + sh) {
                        t = format!("{} & {}", operand(&t), mask_text((1 << b) - 1));
                    }
                    if m > 0 {
                        t = format!("{} << {m}", operand(&t));
                    }
                    Some(format!("[{}][{} ^ {}]", i[0], operand(i[1]), operand(&t)))
                })
            } else {
                rewrite(&|i| {
                    let e = operand(i[0]);
                    Some(format!("[{e} ^ (({e} >> {s}) & {})]", mask_text(mask)))
                })
            }
        }
        Layout::Identity => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "var<workgroup> sh: array<f32, 1024>;
fn main() {
    sh[t] = 1.0;
    let v = sh[r * 32u + c] + 2.0;
}
";

    #[test]
    fn a_flat_array_gets_its_index_rewritten() {
        let shape = ArrayShape { base: 0, rows: 32, cols: 32, elem: 4 };
        let sites = [(3, 5), (4, 13)];
        let swz =
            spell(&Layout::Swizzle { bits: 3, base: 2, shift: 3 }, &shape, KERNEL, &sites, None).unwrap();
        assert_eq!(
            swz,
            [
                "sh[t ^ ((t >> 3) & 0x1c)] (line 3)",
                "sh[(r * 32u + c) ^ (((r * 32u + c) >> 3) & 0x1c)] (line 4)"
            ]
        );
        let pad = spell(&Layout::Pad { elems: 1 }, &shape, KERNEL, &sites, None).unwrap();
        assert_eq!(
            pad,
            [
                "var<workgroup> sh: array<f32, 1056>; (line 1)",
                "sh[t + t / 32] (line 3)",
                "sh[r * 32u + c + (r * 32u + c) / 32] (line 4)"
            ]
        );
        // the rewritten index is where the layout puts each element
        for e in [0u32, 5, 33, 517, 1023] {
            let swizzled = e ^ ((e >> 3) & 0x1c);
            let l = Layout::Swizzle { bits: 3, base: 2, shift: 3 };
            assert_eq!(l.map(&shape, e * 4), swizzled * 4);
            assert_eq!(Layout::Pad { elems: 1 }.map(&shape, e * 4), (e + e / 32) * 4);
        }
    }

    #[test]
    fn no_spelling_where_the_text_does_not_say_what_the_array_is() {
        let shape = ArrayShape { base: 0, rows: 32, cols: 32, elem: 4 };
        let swz = Layout::Swizzle { bits: 3, base: 2, shift: 3 };
        // another element size, another base, another variable's bytes, no index there
        assert!(spell(&swz, &ArrayShape { elem: 2, cols: 64, ..shape }, KERNEL, &[(3, 5)], None).is_none());
        assert!(spell(&swz, &ArrayShape { base: 64, ..shape }, KERNEL, &[(3, 5)], None).is_none());
        let vars = [SharedArray { name: "sh".into(), offset: 0, bytes: 8192 }];
        assert!(spell(&swz, &shape, KERNEL, &[(3, 5)], Some(&vars)).is_none());
        assert!(spell(&swz, &shape, KERNEL, &[(2, 1)], None).is_none());
    }
}
