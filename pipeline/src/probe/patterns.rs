//! The access patterns `banksim probe` times: which element of a 4 KiB row each lane
//! of a warp loads, at one access width. Every pattern is designed against the
//! hypotheses of [`super::model`] (banks of 4 or 8 bytes, 16 to 64 of them, lane
//! groups, broadcast, the pair merge): the wavefronts they predict differ by a factor
//! of two or more somewhere, at loads of several wavefronts, where the time of the
//! microbenchmark follows the wavefronts (not the issue of instructions).

/// Bytes of the row a pattern's lanes address (the kernel's rows are this long).
pub const ROW_BYTES: u32 = 4096;

/// The access widths the microbenchmark has entry points for.
pub const WIDTHS: [u32; 3] = [4, 8, 16];

/// What a pattern tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Lane `l` loads element `l * s`: conflicts of degree gcd-like in the stride.
    Stride(u32),
    /// Every lane loads one element.
    Broadcast,
    /// Even lanes load one element, odd lanes another of the same bank (256 bytes on).
    TwoWords,
    /// Blocks of `g` consecutive lanes, each block on distinct words of one bank.
    Blocks(u32),
    /// Lanes `l` and `l ^ k` load one element; the pairs load distinct elements of one
    /// bank (128 bytes apart): a phase costs as many wavefronts as the pairs it holds
    /// whole plus its lanes whose partner is elsewhere, so this tells whether lanes `l`
    /// and `l ^ k` are served together.
    Pairs(u32),
    /// 4-byte words that share 8-byte words' banks but not 4-byte banks (rows of the
    /// given bytes): tells 8-byte banks from twice as many 4-byte banks.
    Halves(u32),
    /// Lanes `l` and `l ^ m` load one element (the pair merge's condition), the pairs in
    /// `r` rows of a bank per group of banks: phases of twice the lanes halve the cost.
    Merge {
        /// The lane XOR mask of the pairs.
        mask: u32,
        /// Rows of a bank the pairs take per group of banks.
        rows: u32,
    },
}

/// One timed pattern: a width and each lane's element (of the width) within the row.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// Its name in the evidence table (`4B stride 2`, `16B pairs ^5`, ...).
    pub name: String,
    /// Access width in bytes (4, 8 or 16).
    pub bytes: u32,
    /// What it tests (`None` for a pattern read back from a file).
    pub kind: Option<Kind>,
    /// Element of lane `l` (below `ROW_BYTES / bytes`), for the lanes of one period;
    /// lane `l` of any warp loads `lanes[l % lanes.len()]`.
    pub lanes: Vec<u32>,
}

impl Pattern {
    /// The lane table the kernel reads: 64 entries, lane `l` at `lanes[l % period]`.
    pub fn table(&self) -> [u32; 64] {
        std::array::from_fn(|l| self.lanes[l % self.lanes.len()])
    }

    /// The byte address (within a row) of each of the period's lanes.
    pub fn addrs(&self) -> Vec<u32> {
        self.lanes.iter().map(|&e| e * self.bytes).collect()
    }
}

/// The patterns for warps of `period` lanes (a power of two from 4 to 64: the adapter's
/// largest subgroup): strides, broadcasts, lane blocks, lane pairs `l ^ k` for every
/// `k` below the period, 4/8-byte word halves and pair-merge probes, at each width.
pub fn patterns(period: u32) -> Vec<Pattern> {
    let n = period;
    let mut out = Vec::new();
    let mut add = |bytes: u32, kind: Kind, lanes: Vec<u32>| {
        let row = ROW_BYTES / bytes;
        if lanes.iter().all(|&e| e < row) {
            out.push(Pattern { name: name(bytes, kind), bytes, kind: Some(kind), lanes });
        }
    };
    for &w in &WIDTHS {
        // elements per 256 and 128 bytes: the same bank on every hypothesis
        let q = 256 / w;
        let half = 128 / w;
        for s in [1, 2, 3, 4, 8, 16, 32, 64] {
            add(w, Kind::Stride(s), (0..n).map(|l| l * s).collect());
        }
        add(w, Kind::Broadcast, vec![0; n as usize]);
        add(w, Kind::TwoWords, (0..n).map(|l| (l & 1) * q).collect());
        for g in [2, 4, 8, 16, 32].into_iter().filter(|&g| g < n) {
            add(w, Kind::Blocks(g), (0..n).map(|l| (l % g) * q + l / g).collect());
        }
        for k in 1..n {
            add(w, Kind::Pairs(k), (0..n).map(|l| pair_index(l, k) * half).collect());
        }
        if w == 4 {
            for rho in [128, 256] {
                add(w, Kind::Halves(rho), (0..n).map(|l| halves(l, rho)).collect());
            }
        } else {
            for mask in [1, 2, 4].into_iter().filter(|&m| m < n) {
                for rows in [4, 8] {
                    let lanes = (0..n).map(|l| {
                        let c = pair_index(l, mask);
                        (c % rows) * q + c / rows
                    });
                    add(w, Kind::Merge { mask, rows }, lanes.collect());
                }
            }
        }
    }
    out
}

/// The index of lane `l`'s pair `{l, l ^ k}` among the pairs of a warp: its lower lane
/// with the highest bit of `k` taken out.
fn pair_index(l: u32, k: u32) -> u32 {
    let top = 31 - k.leading_zeros();
    // the lane of the pair whose bit `top` is clear
    let low = if l & (1 << top) != 0 { l ^ k } else { l };
    (low & ((1 << top) - 1)) | ((low >> (top + 1)) << top)
}

/// Lane `l`'s 4-byte element of the halves pattern on rows of `rho` bytes: lanes 0-7
/// on the low words of even rows, 8-15 on the high words of odd rows (one 8-byte bank,
/// two 4-byte banks), each further 16 lanes 8 bytes on.
fn halves(l: u32, rho: u32) -> u32 {
    let (i, h, block) = (l % 8, (l / 8) % 2, l / 16);
    (rho / 4) * (2 * i + h) + h + 2 * block
}

fn name(bytes: u32, kind: Kind) -> String {
    let what = match kind {
        Kind::Stride(s) => format!("stride {s}"),
        Kind::Broadcast => "broadcast".into(),
        Kind::TwoWords => "two words".into(),
        Kind::Blocks(g) => format!("blocks of {g}"),
        Kind::Pairs(k) => format!("pairs ^{k}"),
        Kind::Halves(rho) => format!("halves {rho}"),
        Kind::Merge { mask, rows } => format!("merge ^{mask} r{rows}"),
    };
    format!("{bytes}B {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_share_their_element_and_nothing_else() {
        for k in 1..32 {
            let idx: Vec<u32> = (0..32).map(|l| pair_index(l, k)).collect();
            for l in 0..32u32 {
                assert_eq!(idx[l as usize], idx[(l ^ k) as usize], "k {k} lane {l}");
                assert!(idx[l as usize] < 16, "k {k} lane {l}: {}", idx[l as usize]);
            }
            let mut seen = idx.clone();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), 16, "k {k}: {idx:?}");
        }
    }

    #[test]
    fn every_pattern_fits_its_row_and_names_are_unique() {
        for n in [4, 8, 16, 32, 64] {
            let ps = patterns(n);
            let mut names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), ps.len(), "period {n}");
            for p in &ps {
                assert_eq!(p.lanes.len(), n as usize);
                assert!(p.lanes.iter().all(|&e| e * p.bytes < ROW_BYTES), "{}", p.name);
            }
            // every lane pair of every width is tested
            for w in WIDTHS {
                let pairs = ps.iter().filter(|p| p.bytes == w && matches!(p.kind, Some(Kind::Pairs(_))));
                assert_eq!(pairs.count() as u32, n - 1, "period {n}, {w} B");
            }
        }
    }

    #[test]
    fn the_stride_sweep_reaches_32_way_at_4_bytes_on_32_lanes() {
        let ps = patterns(32);
        let s32 = ps.iter().find(|p| p.name == "4B stride 32").expect("4B stride 32");
        assert!(s32.addrs().iter().all(|a| a % 128 == 0));
        assert!(ps.iter().all(|p| p.name != "4B stride 64"), "stride 64 does not fit 4 KiB");
    }
}
