//! The shared-memory window in the generic address space, and a lane address's offset
//! in it.

/// Where the shared window lies in the generic address space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    base: Option<u64>,
}

/// Shared windows are aligned to at least this (bytes) in the generic address space.
const WINDOW_ALIGN: u64 = 1 << 24;

/// A lane address in the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Offset {
    /// Offset from the base, or an address that was an offset already.
    Plain(u32),
    /// No base known: the address modulo [`WINDOW_ALIGN`].
    Wrapped(u32),
}

impl Window {
    /// A window at `base` (0 means unknown).
    pub(crate) fn new(base: Option<u64>) -> Window {
        Window { base: base.filter(|&b| b != 0) }
    }

    /// Whether `addr` is a generic address (as opposed to a plain offset).
    pub(crate) fn is_generic(&self, addr: u64) -> bool {
        addr > u32::MAX as u64 || self.base.is_some_and(|b| addr >= b)
    }

    /// Whether a generic `addr` lies in the window (always, when the base is unknown).
    pub(crate) fn contains(&self, addr: u64) -> bool {
        match self.base {
            Some(b) => addr >= b && addr - b <= u32::MAX as u64,
            None => addr > u32::MAX as u64,
        }
    }

    /// Whether `addr`, traced for a cp.async (`LDGSTS`), is its shared destination rather
    /// than its global source: in the window (the base known), or a plain 32-bit offset.
    /// With no base known a generic address could be either, and is taken as global.
    pub(crate) fn is_copy_destination(&self, addr: u64) -> bool {
        addr <= u32::MAX as u64 || self.base.is_some_and(|b| addr >= b && addr - b <= u32::MAX as u64)
    }

    /// The shared-memory offset of `addr`, or why there is none.
    pub(crate) fn offset(&self, addr: u64) -> Result<Offset, String> {
        if let Some(b) = self.base {
            if addr >= b {
                return u32::try_from(addr - b).map(Offset::Plain).map_err(|_| {
                    format!("is {:#x} bytes past the shared base {b:#x}: beyond any shared memory", addr - b)
                });
            }
        }
        if let Ok(a) = u32::try_from(addr) {
            return Ok(Offset::Plain(a));
        }
        match self.base {
            Some(b) => Err(format!(
                "is below the shared base {b:#x} and not a 32-bit offset: not a shared-memory address (wrong --shmem-base?)"
            )),
            None => Ok(Offset::Wrapped((addr % WINDOW_ALIGN) as u32)),
        }
    }
}
