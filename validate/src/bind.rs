//! Buffer contents for the storage and uniform buffers a kernel binds.
//!
//! `--bind GROUP.BINDING=SPEC`, where SPEC is one of
//!
//! | SPEC | contents |
//! | --- | --- |
//! | `zeros:N` | N zero 4-byte words |
//! | `iota:N` | N 4-byte words, word i = i (u32) |
//! | `u32:A,B,...` | those u32 values |
//! | `i32:A,B,...` | those i32 values |
//! | `f32:A,B,...` | those f32 values |
//! | `file:PATH` or `PATH` | the file's bytes |
//!
//! A binding without `--bind` gets zeros: the size of its type, and for a type that ends
//! in a runtime-sized array, one element per invocation of the dispatch.

use crate::error::BindError;
use crate::instrument::{HandleKind, Resource};
use sim_core::limits::BUFFER_BYTES;
use std::path::PathBuf;
use std::str::FromStr;

/// Where a buffer's bytes come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    /// N zero words.
    Zeros(u64),
    /// N words 0, 1, 2, ...
    Iota(u64),
    /// These u32 words.
    U32(Vec<u32>),
    /// These i32 words.
    I32(Vec<i32>),
    /// These f32 words.
    F32(Vec<f32>),
    /// A file's bytes.
    File(PathBuf),
}

/// One `--bind GROUP.BINDING=SPEC`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bind {
    /// Bind group.
    pub group: u32,
    /// Binding.
    pub binding: u32,
    /// Contents.
    pub fill: Fill,
}

impl FromStr for Bind {
    type Err = BindError;

    fn from_str(text: &str) -> Result<Bind, BindError> {
        let err = |expected: &str| BindError::Syntax { text: text.into(), expected: expected.into() };
        let (slot, spec) = text.split_once('=').ok_or_else(|| err("expected GROUP.BINDING=SPEC"))?;
        let (g, b) =
            slot.split_once('.').ok_or_else(|| err("expected GROUP.BINDING before `=`, e.g. 0.1"))?;
        let group = g.trim().parse().map_err(|_| err("GROUP must be a non-negative integer"))?;
        let binding = b.trim().parse().map_err(|_| err("BINDING must be a non-negative integer"))?;
        fn list<T: FromStr>(s: &str) -> Option<Vec<T>> {
            s.split(',').map(|v| v.trim().parse().ok()).collect()
        }
        let count =
            |s: &str| s.trim().parse::<u64>().map_err(|_| err("N must be a word count, e.g. zeros:1024"));
        // (a count's bytes within BUFFER_BYTES before anything is made)
        let words = |n: &str| -> Result<u64, BindError> {
            let n = count(n)?;
            BUFFER_BYTES.check(|| format!("--bind {text}"), n.saturating_mul(4))?;
            Ok(n)
        };
        let fill = match spec.split_once(':') {
            Some(("zeros", n)) => Fill::Zeros(words(n)?),
            Some(("iota", n)) => Fill::Iota(words(n)?),
            Some(("u32", v)) => {
                Fill::U32(list(v).ok_or_else(|| err("u32: expects comma-separated u32 values"))?)
            }
            Some(("i32", v)) => {
                Fill::I32(list(v).ok_or_else(|| err("i32: expects comma-separated i32 values"))?)
            }
            Some(("f32", v)) => {
                Fill::F32(list(v).ok_or_else(|| err("f32: expects comma-separated f32 values"))?)
            }
            Some(("file", p)) => Fill::File(p.into()),
            _ if spec.is_empty() => {
                return Err(err(
                    "expected SPEC after `=`: zeros:N, iota:N, u32:..., i32:..., f32:..., file:PATH",
                ))
            }
            _ => Fill::File(spec.into()),
        };
        Ok(Bind { group, binding, fill })
    }
}

impl Fill {
    fn bytes(&self, group: u32, binding: u32) -> Result<Vec<u8>, BindError> {
        Ok(match self {
            Fill::Zeros(n) => vec![0; *n as usize * 4],
            // (at most BUFFER_BYTES / 4 words, far below 2^32: checked when parsed)
            Fill::Iota(n) => (0..*n).flat_map(|i| (i as u32).to_le_bytes()).collect(),
            Fill::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Fill::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Fill::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Fill::File(p) => {
                use std::io::Read;
                let io = |source| BindError::Io { group, binding, file: p.display().to_string(), source };
                // at most BUFFER_BYTES: a regular file's size said before it is read, any
                // other (a pipe; a device such as /dev/zero never ends) read that far at most
                let what = || format!("--bind {group}.{binding}={}", p.display());
                let meta = std::fs::metadata(p).map_err(io)?;
                if meta.is_file() {
                    BUFFER_BYTES.check(what, meta.len())?;
                }
                let mut bytes = Vec::new();
                std::fs::File::open(p)
                    .and_then(|f| f.take(BUFFER_BYTES.max + 1).read_to_end(&mut bytes))
                    .map_err(io)?;
                BUFFER_BYTES.check(what, bytes.len() as u64)?;
                bytes
            }
        })
    }

    /// Bytes of the contents, without making them (a file's size as the file system
    /// says it; 0 when it cannot say).
    fn len(&self) -> u64 {
        match self {
            Fill::Zeros(n) | Fill::Iota(n) => n * 4,
            Fill::U32(v) => v.len() as u64 * 4,
            Fill::I32(v) => v.len() as u64 * 4,
            Fill::F32(v) => v.len() as u64 * 4,
            Fill::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
        }
    }

    /// A short description, for messages.
    pub fn describe(&self) -> String {
        match self {
            Fill::Zeros(n) => format!("zeros:{n}"),
            Fill::Iota(n) => format!("iota:{n}"),
            Fill::U32(v) => format!("u32 x {}", v.len()),
            Fill::I32(v) => format!("i32 x {}", v.len()),
            Fill::F32(v) => format!("f32 x {}", v.len()),
            Fill::File(p) => p.display().to_string(),
        }
    }
}

/// The bytes of every resource (in `resources` order) and a description of each, from
/// `binds` or the default (zeros; `invocations` elements for a runtime-sized array).
/// Sizes are rounded up to 16 bytes.
pub fn contents(
    resources: &[Resource],
    binds: &[Bind],
    invocations: u64,
) -> Result<Vec<(Vec<u8>, String)>, BindError> {
    for b in binds {
        if !resources.iter().any(|r| r.group == b.group && r.binding == b.binding) {
            return Err(BindError::Unknown {
                group: b.group,
                binding: b.binding,
                known: resources
                    .iter()
                    .map(|r| format!("{}.{} (`{}`)", r.group, r.binding, r.name))
                    .collect(),
            });
        }
    }
    resources
        .iter()
        .map(|r| {
            let given = binds.iter().rev().find(|b| b.group == r.group && b.binding == r.binding);
            if let Some(h) = r.handle {
                if given.is_some() {
                    return Err(BindError::NotABuffer {
                        group: r.group,
                        binding: r.binding,
                        name: r.name.clone(),
                    });
                }
                let what = match h {
                    HandleKind::Sampler { .. } => "a default sampler (nearest filtering)".to_string(),
                    _ => "a zero-filled texture, one texel per invocation along each dimension".to_string(),
                };
                return Ok((Vec::new(), what));
            }
            let (mut bytes, what) = match given {
                Some(b) => {
                    let bytes = b.fill.bytes(r.group, r.binding)?;
                    let needed = r.fixed_size as u64 + r.runtime_stride.map_or(0, |s| s as u64);
                    if (bytes.len() as u64) < needed {
                        return Err(BindError::TooSmall {
                            group: r.group,
                            binding: r.binding,
                            name: r.name.clone(),
                            given: bytes.len() as u64,
                            needed,
                        });
                    }
                    (bytes, b.fill.describe())
                }
                None => {
                    let elems = r.runtime_stride.map_or(0, |_| invocations.max(1));
                    let len = (r.fixed_size as u64)
                        .saturating_add((r.runtime_stride.unwrap_or(0) as u64).saturating_mul(elems));
                    BUFFER_BYTES.check(
                        || {
                            format!(
                                "buffer {}.{} `{}` (unbound: one element per invocation, {elems} invocations of the dispatch)",
                                r.group, r.binding, r.name
                            )
                        },
                        len,
                    )?;
                    let what = match r.runtime_stride {
                        Some(_) => {
                            format!("zeros, {len} bytes ({elems} elements of the runtime-sized array)")
                        }
                        None => format!("zeros, {len} bytes"),
                    };
                    (vec![0; len as usize], what)
                }
            };
            let padded = (bytes.len().max(16)).div_ceil(16) * 16;
            bytes.resize(padded, 0);
            Ok((bytes, what))
        })
        .collect()
}

/// Bytes of every buffer [`contents`] would bind, added up, without making them: the
/// global memory a dispatch of `invocations` can touch (textures and samplers are not
/// counted).
pub fn buffer_bytes(resources: &[Resource], binds: &[Bind], invocations: u64) -> u64 {
    resources
        .iter()
        .filter(|r| r.handle.is_none())
        .map(|r| {
            let given = binds.iter().rev().find(|b| b.group == r.group && b.binding == r.binding);
            let len = match given {
                Some(b) => b.fill.len(),
                None => {
                    let elems = r.runtime_stride.map_or(0, |_| invocations.max(1));
                    r.fixed_size as u64 + r.runtime_stride.unwrap_or(0) as u64 * elems
                }
            };
            len.max(16).div_ceil(16) * 16
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(group: u32, binding: u32, fixed: u32, stride: Option<u32>) -> Resource {
        Resource {
            handle: None,
            group,
            binding,
            name: format!("r{group}{binding}"),
            uniform: false,
            writable: true,
            fixed_size: fixed,
            runtime_stride: stride,
        }
    }

    #[test]
    fn specs_parse() {
        assert_eq!(
            "0.1=zeros:8".parse::<Bind>().unwrap(),
            Bind { group: 0, binding: 1, fill: Fill::Zeros(8) }
        );
        assert_eq!("2.0=u32:1,64".parse::<Bind>().unwrap().fill, Fill::U32(vec![1, 64]));
        assert_eq!("0.0=data.bin".parse::<Bind>().unwrap().fill, Fill::File("data.bin".into()));
        for bad in ["0.1", "x.1=zeros:1", "0=zeros:1", "0.1=zeros:many", "0.1=u32:1,x", "0.1="] {
            assert!(bad.parse::<Bind>().is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn defaults_size_runtime_arrays_by_invocations() {
        let r = [res(0, 0, 8, None), res(0, 1, 16, Some(4))];
        let c = contents(&r, &[], 100).unwrap();
        assert_eq!(c[0].0.len(), 16); // 8 rounded up to 16
        assert_eq!(c[1].0.len(), 416); // 16 + 4 * 100
        assert!(c[1].0.iter().all(|&b| b == 0));
    }

    #[test]
    fn buffer_bytes_adds_up_what_contents_binds() {
        let r = [res(0, 0, 8, None), res(0, 1, 16, Some(4)), res(0, 2, 0, Some(16))];
        for (binds, invocations) in [(vec![], 100), (vec!["0.2=zeros:1000".parse().unwrap()], 7)] {
            let made: usize = contents(&r, &binds, invocations).unwrap().iter().map(|(b, _)| b.len()).sum();
            assert_eq!(buffer_bytes(&r, &binds, invocations), made as u64);
        }
    }

    #[test]
    fn given_contents_are_used_and_checked() {
        let r = [res(0, 0, 8, None)];
        let c = contents(&r, &["0.0=iota:4".parse().unwrap()], 1).unwrap();
        assert_eq!(&c[0].0[..16], &[0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
        assert!(matches!(
            contents(&r, &["0.0=u32:1".parse().unwrap()], 1),
            Err(BindError::TooSmall { needed: 8, .. })
        ));
        assert!(matches!(contents(&r, &["1.0=u32:1".parse().unwrap()], 1), Err(BindError::Unknown { .. })));
    }
}
