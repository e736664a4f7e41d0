//! Space-filling curve keys over two to four columns: each column's values are replaced by
//! their dense rank scaled to [`BITS`] bits (so the curve sees the columns' distributions, not
//! their units, as Delta's Z-order and liquid clustering do), and the coordinates are combined
//! into one key by bit interleaving (Z-order) or by the Hilbert curve (liquid clustering's
//! order). Rows sorted by the key are close in every column at once.

/// Bits per coordinate: four columns of 16 bits fill a `u64`.
pub const BITS: u32 = 16;

/// Which curve combines the coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    ZOrder,
    Hilbert,
}

/// A dense rank (0 for the smallest value, equal values equal) scaled to `BITS` bits.
pub fn scale_rank(rank: u64, max_rank: u64) -> u32 {
    if max_rank == 0 {
        return 0;
    }
    let top = (1u64 << BITS) - 1;
    u32::try_from(rank * top / max_rank).unwrap_or(u32::MAX)
}

/// The key of one row's coordinates (each below `2^BITS`) on `curve`.
pub fn key(curve: Curve, coordinates: &[u32]) -> u64 {
    match curve {
        Curve::ZOrder => interleave(coordinates),
        Curve::Hilbert => {
            let mut x = coordinates.to_vec();
            axes_to_transpose(&mut x);
            interleave(&x)
        }
    }
}

/// Bit interleaving, most significant bits first: bit `b` of coordinate `i` lands at position
/// `b * n + (n - 1 - i)`.
fn interleave(coordinates: &[u32]) -> u64 {
    let n = coordinates.len() as u32;
    let mut out = 0u64;
    for b in (0..BITS).rev() {
        for c in coordinates {
            out = (out << 1) | u64::from((c >> b) & 1);
        }
    }
    debug_assert!(n * BITS <= 64);
    out
}

/// Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004): the
/// coordinates become the transposed Hilbert index, whose interleaved bits are the index.
fn axes_to_transpose(x: &mut [u32]) {
    let n = x.len();
    if n == 0 {
        return;
    }
    let m = 1u32 << (BITS - 1);
    // Inverse undo.
    let mut q = m;
    while q > 1 {
        let p = q - 1;
        for i in 0..n {
            if x[i] & q != 0 {
                x[0] ^= p;
            } else {
                let t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
        q >>= 1;
    }
    // Gray encode.
    for i in 1..n {
        x[i] ^= x[i - 1];
    }
    let mut t = 0;
    let mut q = m;
    while q > 1 {
        if x[n - 1] & q != 0 {
            t ^= q - 1;
        }
        q >>= 1;
    }
    for v in x.iter_mut() {
        *v ^= t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_order_interleaves_the_high_bits_first() {
        let top = 1u32 << (BITS - 1);
        assert_eq!(key(Curve::ZOrder, &[0, 0]), 0);
        assert_eq!(key(Curve::ZOrder, &[top, 0]), 1 << 31);
        assert_eq!(key(Curve::ZOrder, &[0, top]), 1 << 30);
        assert!(key(Curve::ZOrder, &[1, 1]) < key(Curve::ZOrder, &[2, 0]));
    }

    /// Along the Hilbert curve, consecutive keys are neighbours in the grid (one step in one
    /// coordinate): checked on the whole 2-D grid of the lowest bits, where the curve's first
    /// cells lie.
    #[test]
    fn consecutive_hilbert_keys_are_grid_neighbours() {
        let side = 16u32;
        let mut cells: Vec<(u64, u32, u32)> = (0..side)
            .flat_map(|x| (0..side).map(move |y| (key(Curve::Hilbert, &[x, y]), x, y)))
            .collect();
        cells.sort_unstable();
        // The 256 smallest keys are the 16 x 16 corner square, visited cell by cell.
        assert_eq!(cells.first().map(|c| c.0), Some(0));
        for w in cells.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert_eq!(b.0, a.0 + 1, "{a:?} {b:?}");
            assert_eq!(a.1.abs_diff(b.1) + a.2.abs_diff(b.2), 1, "{a:?} {b:?}");
        }
    }

    #[test]
    fn ranks_scale_to_the_whole_range() {
        assert_eq!(scale_rank(0, 0), 0);
        assert_eq!(scale_rank(0, 9), 0);
        assert_eq!(scale_rank(9, 9), (1 << BITS) - 1);
        assert!(scale_rank(4, 9) < scale_rank(5, 9));
    }
}
