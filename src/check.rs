//! Validation of every transfer (`--check`): fill patterns derived from
//! (sender, repetition, size) and their verification, always outside the
//! timed region.

use crate::comm::buffer::Pod;
use crate::comm::{Buffer, Elem};

/// One contiguous piece of a receive buffer and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Offset in the receive buffer (bytes).
    pub offset: usize,
    pub len: usize,
    /// Group rank whose send buffer it came from.
    pub sender: usize,
    /// Offset in the sender's send buffer (bytes).
    pub sender_offset: usize,
}

/// What the receive buffer of one rank must hold after a repetition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Nothing arrives on this rank (Barrier, non-root of Reduce).
    Nothing,
    /// Bytes copied from other ranks' send buffers.
    Bytes(Vec<Segment>),
    /// `count` elements that are the sum over all group ranks of their send
    /// elements `first..first + count`, stored from offset 0.
    Sum { first: usize, count: usize },
    /// `count` elements that are the sum over ranks `0..ranks` of their send
    /// elements `0..count` (a prefix reduction: MPI_Scan on rank r has
    /// `ranks` = r + 1).
    PrefixSum { count: usize, ranks: usize },
}

/// Base byte of a sender's pattern for one repetition and size.
fn base(sender: usize, rep: usize, x: usize) -> u8 {
    let h = (sender as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((rep as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
        .wrapping_add((x as u64).wrapping_mul(0x1656_67B1_9E37_79F9));
    ((h >> 56) as u8) ^ (sender as u8).wrapping_mul(37)
}

/// Byte `i` of `sender`'s pattern for repetition `rep` at size `x` (what
/// [`fill_bytes`] writes there): for data several senders may have
/// written, where any one of them is right.
pub fn pattern_byte(sender: usize, rep: usize, x: usize, i: usize) -> u8 {
    byte_at(base(sender, rep, x), i)
}

/// The byte a sender puts at offset `i` of its send buffer.
#[inline]
pub fn byte_at(b: u8, i: usize) -> u8 {
    b.wrapping_add(i as u8) ^ ((i >> 8) as u8) ^ ((i >> 16) as u8).wrapping_mul(3)
}

/// The small integer a sender puts at element `i` of a reduction (sums stay exact).
#[inline]
pub fn small_at(sender: usize, rep: usize, i: usize) -> u8 {
    ((sender + rep + i) % 16) as u8
}

/// What no origin ever writes into a one-sided target before a transfer.
pub const DOUBLE_POISON: f64 = -1.0;

/// The double an origin holds at element `offset` of its data in
/// repetition `rep` (one-sided transfers: the coarray suite): exact,
/// positive, and distinct per (origin, repetition, offset) up to a 2^-52
/// chance, so that misplaced, stale or foreign data are caught.
#[inline]
pub fn double_at(origin: usize, rep: usize, offset: usize) -> f64 {
    let mut h = (origin as u64)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((rep as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
        .wrapping_add((offset as u64).wrapping_mul(0x1656_67B1_9E37_79F9));
    // splitmix64's finaliser.
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 31;
    (h >> 12) as f64 + 1.0
}

/// Fills a send buffer with the byte pattern of `sender`.
pub fn fill_bytes(buf: &mut [u8], sender: usize, rep: usize, x: usize) {
    let b = base(sender, rep, x);
    for (i, v) in buf.iter_mut().enumerate() {
        *v = byte_at(b, i);
    }
}

/// An element type whose reduction pattern is exact.
trait Small: Pod + PartialEq {
    fn from_small(v: u8) -> Self;
    fn add(self, o: Self) -> Self;
    fn poison() -> Self;
}

impl Small for f32 {
    fn from_small(v: u8) -> f32 {
        f32::from(v)
    }
    fn add(self, o: f32) -> f32 {
        self + o
    }
    fn poison() -> f32 {
        -1.0
    }
}

impl Small for f64 {
    fn from_small(v: u8) -> f64 {
        f64::from(v)
    }
    fn add(self, o: f64) -> f64 {
        self + o
    }
    fn poison() -> f64 {
        -1.0
    }
}

impl Small for i32 {
    fn from_small(v: u8) -> i32 {
        i32::from(v)
    }
    fn add(self, o: i32) -> i32 {
        self.wrapping_add(o)
    }
    fn poison() -> i32 {
        -1
    }
}

impl Small for u8 {
    fn from_small(v: u8) -> u8 {
        v
    }
    fn add(self, o: u8) -> u8 {
        self.wrapping_add(o)
    }
    fn poison() -> u8 {
        0xff
    }
}

fn fill_small<T: Small>(buf: &mut Buffer, len: usize, sender: usize, rep: usize) {
    let n = len / std::mem::size_of::<T>();
    for (i, v) in buf.typed_mut::<T>()[..n].iter_mut().enumerate() {
        *v = T::from_small(small_at(sender, rep, i));
    }
}

fn poison_small<T: Small>(buf: &mut Buffer, len: usize) {
    let n = len / std::mem::size_of::<T>();
    buf.typed_mut::<T>()[..n].fill(T::poison());
}

fn verify_sum<T: Small>(buf: &Buffer, first: usize, count: usize, q: usize, rep: usize) -> u64 {
    let got = buf.typed::<T>();
    (0..count)
        .filter(|&j| {
            let want = (0..q).fold(T::from_small(0), |acc, s| {
                acc.add(T::from_small(small_at(s, rep, first + j)))
            });
            got.get(j) != Some(&want)
        })
        .count() as u64
}

/// Fills the first `len` bytes of a send buffer: the byte pattern for
/// transfers, small integers of type `elem` for reductions.
pub fn fill(
    buf: &mut Buffer,
    len: usize,
    reduction: Option<Elem>,
    sender: usize,
    rep: usize,
    x: usize,
) {
    match reduction {
        None | Some(Elem::Byte) => fill_bytes(&mut buf.bytes_mut()[..len], sender, rep, x),
        Some(Elem::Float) => fill_small::<f32>(buf, len, sender, rep),
        Some(Elem::Double) => fill_small::<f64>(buf, len, sender, rep),
        Some(Elem::Int) => fill_small::<i32>(buf, len, sender, rep),
        // MPI_CHAR sums wrap in two's complement: the same bytes as unsigned.
        Some(Elem::UChar | Elem::Char) => fill_small::<u8>(buf, len, sender, rep),
    }
}

/// Overwrites the first `len` bytes of a receive buffer with values no
/// sender produces in this repetition, so that a transfer that did not
/// happen is caught.
pub fn poison(buf: &mut Buffer, len: usize, reduction: Option<Elem>, rep: usize, x: usize) {
    match reduction {
        None | Some(Elem::Byte) => {
            let b = base(usize::MAX, rep, x);
            for (i, v) in buf.bytes_mut()[..len].iter_mut().enumerate() {
                *v = !byte_at(b, i);
            }
        }
        Some(Elem::Float) => poison_small::<f32>(buf, len),
        Some(Elem::Double) => poison_small::<f64>(buf, len),
        Some(Elem::Int) => poison_small::<i32>(buf, len),
        Some(Elem::UChar | Elem::Char) => poison_small::<u8>(buf, len),
    }
}

/// Checks one receive buffer; returns the number of wrong bytes or elements.
pub fn verify(expect: &Expect, rbuf: &Buffer, elem: Elem, q: usize, rep: usize, x: usize) -> u64 {
    match expect {
        Expect::Nothing => 0,
        Expect::Bytes(segs) => segs
            .iter()
            .map(|s| verify_segment(s, rbuf.bytes(), rep, x))
            .sum(),
        &Expect::Sum { first, count } => match elem {
            Elem::Float => verify_sum::<f32>(rbuf, first, count, q, rep),
            Elem::Double => verify_sum::<f64>(rbuf, first, count, q, rep),
            Elem::Int => verify_sum::<i32>(rbuf, first, count, q, rep),
            Elem::UChar | Elem::Char | Elem::Byte => verify_sum::<u8>(rbuf, first, count, q, rep),
        },
        &Expect::PrefixSum { count, ranks } => {
            let first = Expect::Sum { first: 0, count };
            verify(&first, rbuf, elem, ranks, rep, x)
        }
    }
}

fn verify_segment(s: &Segment, rbuf: &[u8], rep: usize, x: usize) -> u64 {
    let b = base(s.sender, rep, x);
    let Some(got) = rbuf.get(s.offset..s.offset + s.len) else {
        return s.len as u64;
    };
    got.iter()
        .enumerate()
        .filter(|(j, &v)| v != byte_at(b, s.sender_offset + j))
        .count() as u64
}

/// `--corrupt` test hook: damages the first byte or element this rank
/// expects, so that verification must catch it.
pub fn corrupt(expect: &Expect, rbuf: &mut Buffer, elem: Elem) {
    match expect {
        Expect::Bytes(segs) => {
            if let Some(s) = segs.iter().find(|s| s.len > 0) {
                rbuf.bytes_mut()[s.offset] ^= 0x5a;
            }
        }
        Expect::Sum { count, .. } | Expect::PrefixSum { count, .. } if *count > 0 => {
            let k = elem.size();
            rbuf.bytes_mut()[k - 1] ^= 0x40;
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf_from(bytes: &[u8]) -> Buffer {
        let mut b = Buffer::try_new(bytes.len()).unwrap();
        b.bytes_mut().copy_from_slice(bytes);
        b
    }

    #[test]
    fn patterns_differ_by_sender_rep_and_size() {
        let mut a = vec![0u8; 64];
        let mut b = vec![0u8; 64];
        fill_bytes(&mut a, 0, 0, 64);
        for (s, r, x) in [(1, 0, 64), (0, 1, 64), (0, 0, 65)] {
            fill_bytes(&mut b, s, r, x);
            assert_ne!(a, b, "sender {s} rep {r} size {x}");
        }
    }

    #[test]
    fn verify_accepts_exact_copy_and_counts_corruption() {
        let x = 1000;
        let mut send = vec![0u8; 2 * x];
        fill_bytes(&mut send, 3, 7, x);
        let mut recv = buf_from(&send[x..]);
        let e = Expect::Bytes(vec![Segment {
            offset: 0,
            len: x,
            sender: 3,
            sender_offset: x,
        }]);
        assert_eq!(verify(&e, &recv, Elem::Byte, 4, 7, x), 0);
        recv.bytes_mut()[10] ^= 1;
        recv.bytes_mut()[999] ^= 0x80;
        assert_eq!(verify(&e, &recv, Elem::Byte, 4, 7, x), 2);
        // Data from the wrong repetition is caught.
        let mut stale = vec![0u8; x];
        fill_bytes(&mut stale, 3, 6, x);
        assert!(verify(&e, &buf_from(&stale), Elem::Byte, 4, 7, x) > 0);
    }

    #[test]
    fn poison_never_matches() {
        let x = 300;
        let mut r = Buffer::try_new(x).unwrap();
        poison(&mut r, x, None, 2, x);
        for s in 0..8 {
            let e = Expect::Bytes(vec![Segment {
                offset: 0,
                len: x,
                sender: s,
                sender_offset: 0,
            }]);
            assert!(verify(&e, &r, Elem::Byte, 8, 2, x) > x as u64 / 2);
        }
    }

    /// Sums the fill patterns of q senders element-wise, as MPI_SUM would.
    fn reduce<T: Small>(elem: Elem, q: usize, n: usize, rep: usize) -> Buffer {
        let len = n * elem.size();
        let mut sum = Buffer::try_new(len).unwrap();
        for s in 0..q {
            let mut v = Buffer::try_new(len).unwrap();
            fill(&mut v, len, Some(elem), s, rep, len);
            let (a, b) = (sum.typed_mut::<T>(), v.typed::<T>());
            for (x, y) in a.iter_mut().zip(b) {
                *x = x.add(*y);
            }
        }
        sum
    }

    #[test]
    fn sums_are_exact_for_every_element_type() {
        let (q, n, rep) = (5, 40, 9);
        let check = |mut sum: Buffer, elem: Elem| {
            let e = Expect::Sum { first: 0, count: n };
            assert_eq!(verify(&e, &sum, elem, q, rep, 0), 0, "{elem:?}");
            corrupt(&e, &mut sum, elem);
            assert_eq!(verify(&e, &sum, elem, q, rep, 0), 1, "{elem:?}");
            poison(&mut sum, n * elem.size(), Some(elem), rep, 0);
            assert_eq!(verify(&e, &sum, elem, q, rep, 0), n as u64, "{elem:?}");
        };
        check(reduce::<f32>(Elem::Float, q, n, rep), Elem::Float);
        check(reduce::<f64>(Elem::Double, q, n, rep), Elem::Double);
        check(reduce::<i32>(Elem::Int, q, n, rep), Elem::Int);
        check(reduce::<u8>(Elem::UChar, q, n, rep), Elem::UChar);
        check(reduce::<u8>(Elem::Char, q, n, rep), Elem::Char);
    }

    #[test]
    fn doubles_differ_by_origin_rep_and_offset() {
        let a = double_at(0, 0, 0);
        assert!(a >= 1.0 && a.fract() == 0.0);
        for (o, r, x) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
            assert_ne!(double_at(o, r, x), a, "{o} {r} {x}");
        }
        let mut all: Vec<f64> = (0..4)
            .flat_map(|o| (0..50).flat_map(move |r| (0..50).map(move |x| double_at(o, r, x))))
            .collect();
        assert!(all.iter().all(|&v| v != DOUBLE_POISON && v > 0.0));
        all.sort_by(f64::total_cmp);
        all.dedup();
        assert_eq!(all.len(), 4 * 50 * 50);
    }

    #[test]
    fn partial_sums_start_at_first() {
        let (q, n, rep) = (3, 20, 1);
        let all = reduce::<f32>(Elem::Float, q, n, rep);
        let part = buf_from(&all.bytes()[40..60]);
        let e = Expect::Sum {
            first: 10,
            count: 5,
        };
        assert_eq!(verify(&e, &part, Elem::Float, q, rep, 0), 0);
    }
}
