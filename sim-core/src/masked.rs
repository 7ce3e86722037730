//! Warp requests as a lane mask plus addresses (the form binary traces store), and the
//! lane numbers and addresses they stand for.
//!
//! A binary trace stores most requests as `first + stride × lane` (strided accesses,
//! broadcasts) or as tiles ([`LaneAddrs::Tile`]: a step per bit of the lane number), a
//! 64-lane slice of a block at a time; [`MaskedRequest::warps`] cuts a slice into the
//! warp requests of the hardware's warp size, and [`affine_addrs`] and [`tile_addrs`]
//! write out the addresses of an affine or tile request's active lanes.

use crate::op::Op;

/// The addresses of a [`MaskedRequest`]'s active lanes.
#[derive(Clone, Copy, Debug)]
pub enum LaneAddrs<'a> {
    /// Lane `l`'s address is `first + stride × (l − lowest active lane)`. Every address
    /// lies in `0..2^32` (no wrap-around).
    Affine {
        /// Address of the lowest active lane.
        first: u32,
        /// Bytes from one lane to the next.
        stride: i64,
    },
    /// One address per active lane, in lane order.
    Listed(&'a [u32]),
    /// Lane `l`'s address is `origin + Σ_j bit j of l × steps[j]`: a tile of rows and
    /// columns (`smem[ty][tx]` with a power-of-two row of threads), lane pairs or quads on
    /// one word, and strides too. Every lane's address, active or not, lies in `0..2^32`
    /// (so `origin` does). (A warp request's lane numbers are below the warp size, so
    /// the steps of higher bits do not move its lanes: [`MaskedRequest::warps`] keeps
    /// the slice's.)
    Tile {
        /// Address of lane 0 (active or not).
        origin: u32,
        /// Bytes added by each bit of the lane number, lowest bit first.
        steps: &'a [i32; 6],
    },
}

/// One warp request given by its lane mask: the form binary traces store.
#[derive(Clone, Copy, Debug)]
pub struct MaskedRequest<'a> {
    /// Operation.
    pub op: Op,
    /// Access width in bytes (1, 2, 4, 8 or 16).
    pub bytes: u8,
    /// Active lanes (bit `l` for lane `l`), below the warp size; at least one.
    pub mask: u64,
    /// Their addresses.
    pub addrs: LaneAddrs<'a>,
}

/// Lane numbers 0..64; requests with contiguous lanes borrow a slice of it.
pub const LANE_NUMBERS: [u16; 64] = {
    let mut a = [0u16; 64];
    let mut i = 0;
    while i < 64 {
        a[i] = i as u16;
        i += 1;
    }
    a
};

impl<'a> MaskedRequest<'a> {
    /// Active lanes (the length of a `Listed` request's addresses, without counting).
    #[inline]
    pub fn lanes(&self) -> usize {
        match self.addrs {
            LaneAddrs::Listed(a) => a.len(),
            LaneAddrs::Affine { .. } | LaneAddrs::Tile { .. } => self.mask.count_ones() as usize,
        }
    }

    /// Calls `f` with each warp request of a slice of up to 64 lanes (`self.mask` over
    /// 64 lanes; warp `j` holds lanes `j × warp ..`): the warp's index and its request,
    /// with lane numbers within the warp. `warp` is a power of two up to 64. Stops at
    /// `f`'s first error.
    #[inline]
    pub fn warps<E>(
        &self,
        warp: u32,
        mut f: impl FnMut(u32, &MaskedRequest<'a>) -> Result<(), E>,
    ) -> Result<(), E> {
        debug_assert!(warp.is_power_of_two() && warp <= 64);
        let per = 64 >> warp.trailing_zeros();
        let kmask = u64::MAX >> (64 - warp);
        let l0 = self.mask.trailing_zeros();
        let mut skip = 0usize;
        for j in 0..per {
            let low = j * warp;
            let mask = (self.mask >> low) & kmask;
            if mask == 0 {
                continue;
            }
            let addrs = match self.addrs {
                LaneAddrs::Listed(all) => {
                    let n = mask.count_ones() as usize;
                    let listed = &all[skip..skip + n];
                    skip += n;
                    LaneAddrs::Listed(listed)
                }
                LaneAddrs::Affine { first, stride } => {
                    let lane = low + mask.trailing_zeros() - l0;
                    LaneAddrs::Affine {
                        first: first.wrapping_add((stride as u32).wrapping_mul(lane)),
                        stride,
                    }
                }
                // lane `low` is the warp's lane 0 (the bits above the warp's stay)
                LaneAddrs::Tile { origin, steps } => {
                    LaneAddrs::Tile { origin: tile_lane(origin, steps, low), steps }
                }
            };
            f(j, &MaskedRequest { op: self.op, bytes: self.bytes, mask, addrs })?;
        }
        Ok(())
    }
}

/// Writes the addresses of the active lanes of `mask` into `dst` (one per lane, in lane
/// order): lane `l` at `first + stride × (l − lowest lane)`, modulo 2^32.
#[inline]
pub fn affine_addrs(first: u32, stride: u32, mask: u64, dst: &mut [u32]) {
    debug_assert_eq!(dst.len(), mask.count_ones() as usize);
    let l0 = mask.trailing_zeros();
    if (mask >> l0).wrapping_add(1) & (mask >> l0) == 0 {
        // contiguous lanes: a loop over constants, which vectorizes
        for (d, &i) in dst.iter_mut().zip(&LANE_NUMBERS) {
            *d = first.wrapping_add(stride.wrapping_mul(i as u32));
        }
    } else {
        let mut m = mask;
        for d in dst.iter_mut() {
            let l = m.trailing_zeros() - l0;
            m &= m - 1;
            *d = first.wrapping_add(stride.wrapping_mul(l));
        }
    }
}

/// Writes the addresses of the active lanes of `mask` into `dst` (one per lane, in lane
/// order): lane `l` at `origin + Σ_j bit j of l × steps[j]`, modulo 2^32.
#[inline]
pub fn tile_addrs(origin: u32, steps: &[i32; 6], mask: u64, dst: &mut [u32]) {
    debug_assert_eq!(dst.len(), mask.count_ones() as usize);
    // lane l at rows[l / 8] + cols[l % 8]: the sums of bits 3-5 (with the origin) and 0-2
    let sums = |s: &[i32], at: u32| {
        let (a, b, c) = (s[0] as u32, s[1] as u32, s[2] as u32);
        let (ab, ac, bc) = (a.wrapping_add(b), a.wrapping_add(c), b.wrapping_add(c));
        [0, a, b, ab, c, ac, bc, ab.wrapping_add(c)].map(|x: u32| x.wrapping_add(at))
    };
    let (cols, rows) = (sums(&steps[..3], 0), sums(&steps[3..], origin));
    let l0 = mask.trailing_zeros();
    if mask >> l0 == u64::MAX >> (64 - dst.len()) && l0.is_multiple_of(8) && dst.len().is_multiple_of(8) {
        // whole rows of eight lanes (full warps): a vector add a row
        for (d, &r) in dst.chunks_exact_mut(8).zip(&rows[l0 as usize / 8..]) {
            for (d, &c) in d.iter_mut().zip(&cols) {
                *d = r.wrapping_add(c);
            }
        }
    } else {
        let mut m = mask;
        for d in dst.iter_mut() {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            *d = rows[l / 8].wrapping_add(cols[l % 8]);
        }
    }
}

/// The address of lane `lane` of a tile (see [`LaneAddrs::Tile`]), modulo 2^32.
#[inline]
pub fn tile_lane(origin: u32, steps: &[i32; 6], lane: u32) -> u32 {
    steps.iter().enumerate().fold(
        origin,
        |a, (j, &s)| {
            if lane >> j & 1 == 1 {
                a.wrapping_add(s as u32)
            } else {
                a
            }
        },
    )
}

/// The `n` lane numbers of `mask` (`n` its count of ones, at least one) where they are
/// contiguous: a slice of [`LANE_NUMBERS`].
#[inline]
pub(crate) fn contiguous_lanes(mask: u64, n: usize) -> Option<&'static [u16]> {
    debug_assert!(n >= 1 && n == mask.count_ones() as usize);
    let tz = mask.trailing_zeros() as usize;
    (mask >> tz == u64::MAX >> (64 - n)).then(|| &LANE_NUMBERS[tz..tz + n])
}

/// The lane numbers of `mask`, ascending: a slice of [`LANE_NUMBERS`] where they are
/// contiguous, else written into `buf`.
#[inline]
pub(crate) fn lanes_of(mask: u64, buf: &mut [u16; 64]) -> &[u16] {
    let n = mask.count_ones() as usize;
    match contiguous_lanes(mask, n) {
        Some(lanes) => lanes,
        None => write_lanes(mask, n, buf),
    }
}

/// The `n` lane numbers of `mask` (`n` its count of ones), ascending, written into `buf`.
#[inline]
pub(crate) fn write_lanes(mask: u64, n: usize, buf: &mut [u16; 64]) -> &[u16] {
    debug_assert_eq!(n, mask.count_ones() as usize);
    let mut m = mask;
    for b in buf.iter_mut().take(n) {
        *b = m.trailing_zeros() as u16;
        m &= m - 1;
    }
    &buf[..n]
}

/// Room for the lane numbers and addresses of one request of up to 64 lanes, written out
/// lane by lane (a mask's lanes where they are not contiguous, an affine or tile
/// request's addresses).
#[derive(Clone, Debug)]
pub(crate) struct LaneScratch {
    /// Lane numbers.
    pub(crate) lanes: [u16; 64],
    /// Addresses.
    pub(crate) addrs: [u32; 64],
}

impl LaneScratch {
    /// Zeroed room, boxed (it is taken and put back around each use).
    pub(crate) fn boxed() -> Box<LaneScratch> {
        Box::new(LaneScratch { lanes: [0; 64], addrs: [0; 64] })
    }
}
