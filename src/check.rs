//! Validation of every transfer (`--check`): fill patterns derived from
//! (sender, repetition, size) and their verification, always outside the
//! timed region.

use crate::bench::{Expect, Segment};

/// Base byte of a sender's pattern for one repetition and size.
fn base(sender: usize, rep: usize, x: usize) -> u8 {
    let h = (sender as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((rep as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
        .wrapping_add((x as u64).wrapping_mul(0x1656_67B1_9E37_79F9));
    ((h >> 56) as u8) ^ (sender as u8).wrapping_mul(37)
}

/// The byte a sender puts at offset `i` of its send buffer.
#[inline]
pub fn byte_at(b: u8, i: usize) -> u8 {
    b.wrapping_add(i as u8) ^ ((i >> 8) as u8) ^ ((i >> 16) as u8).wrapping_mul(3)
}

/// The float a sender puts at element `i` (small integers, so sums are exact).
#[inline]
pub fn float_at(sender: usize, rep: usize, i: usize) -> f32 {
    ((sender + rep + i) % 16) as f32
}

/// Fills a send buffer with the byte pattern of `sender`.
pub fn fill_bytes(buf: &mut [u8], sender: usize, rep: usize, x: usize) {
    let b = base(sender, rep, x);
    for (i, v) in buf.iter_mut().enumerate() {
        *v = byte_at(b, i);
    }
}

/// Fills a send buffer with the float pattern of `sender`.
pub fn fill_floats(buf: &mut [f32], sender: usize, rep: usize) {
    for (i, v) in buf.iter_mut().enumerate() {
        *v = float_at(sender, rep, i);
    }
}

/// Overwrites a receive buffer with a value no sender produces in this repetition,
/// so that a transfer that did not happen is caught.
pub fn poison(bytes: &mut [u8], rep: usize, x: usize) {
    let b = base(usize::MAX, rep, x);
    for (i, v) in bytes.iter_mut().enumerate() {
        *v = !byte_at(b, i);
    }
}

/// Poisons a float receive buffer (sums are never negative).
pub fn poison_floats(buf: &mut [f32]) {
    buf.fill(-1.0);
}

/// Checks one receive buffer; returns the number of wrong bytes or elements.
pub fn verify(
    expect: &Expect,
    rbuf: &[u8],
    rfloats: &[f32],
    q: usize,
    rep: usize,
    x: usize,
) -> u64 {
    match expect {
        Expect::Nothing => 0,
        Expect::Bytes(segs) => segs.iter().map(|s| verify_segment(s, rbuf, rep, x)).sum(),
        Expect::FloatSum { first, count } => {
            let mut bad = 0;
            for j in 0..*count {
                let want: f32 = (0..q).map(|s| float_at(s, rep, first + j)).sum();
                if rfloats.get(j) != Some(&want) {
                    bad += 1;
                }
            }
            bad
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut recv = send[x..].to_vec();
        let e = Expect::Bytes(vec![Segment {
            offset: 0,
            len: x,
            sender: 3,
            sender_offset: x,
        }]);
        assert_eq!(verify(&e, &recv, &[], 4, 7, x), 0);
        recv[10] ^= 1;
        recv[999] ^= 0x80;
        assert_eq!(verify(&e, &recv, &[], 4, 7, x), 2);
        // Data from the wrong repetition is caught.
        let mut stale = vec![0u8; x];
        fill_bytes(&mut stale, 3, 6, x);
        assert!(verify(&e, &stale, &[], 4, 6 + 1, x) > 0);
    }

    #[test]
    fn poison_never_matches() {
        let x = 300;
        let mut r = vec![0u8; x];
        poison(&mut r, 2, x);
        for s in 0..8 {
            let e = Expect::Bytes(vec![Segment {
                offset: 0,
                len: x,
                sender: s,
                sender_offset: 0,
            }]);
            assert!(verify(&e, &r, &[], 8, 2, x) > x as u64 / 2);
        }
    }

    #[test]
    fn float_sums_are_exact() {
        let q = 5;
        let n = 40;
        let mut sum = vec![0f32; n];
        for s in 0..q {
            let mut v = vec![0f32; n];
            fill_floats(&mut v, s, 9);
            for (a, b) in sum.iter_mut().zip(&v) {
                *a += b;
            }
        }
        let e = Expect::FloatSum { first: 0, count: n };
        assert_eq!(verify(&e, &[], &sum, q, 9, 4 * n), 0);
        let e2 = Expect::FloatSum {
            first: 10,
            count: 5,
        };
        assert_eq!(verify(&e2, &[], &sum[10..15], q, 9, 4 * n), 0);
        sum[0] += 1.0;
        assert_eq!(verify(&e, &[], &sum, q, 9, 4 * n), 1);
        let mut p = vec![0f32; n];
        poison_floats(&mut p);
        assert_eq!(verify(&e, &[], &p, q, 9, 4 * n), n as u64);
    }
}
