//! Validation of P_ Shared (the shared file pointer, independent calls)
//! on several processes, where no process knows where its bytes land:
//! every process writes the bytes of its portion's place (the pattern at
//! `pos1 + k·X`), so a checked block (the repetitions are in lockstep
//! under `--check`: each ends with the sync triple) must hold every
//! process's portion exactly once, in some order; and a read must have
//! found a stretch of the file's pattern, wherever it starts.

use super::file::{pattern, portion};

/// The wrong bytes of block `k` of a shared-pointer write on `np`
/// processes: the block is cut into the processes' portions, each matched
/// once, in whatever order they landed.
pub fn block_errors(block: &[u8], k: usize, np: usize) -> u64 {
    let x = block.len();
    let base = (k * x) as u64;
    let mut left: Vec<(usize, usize)> = (0..np)
        .map(|r| portion(r, np, x))
        .filter(|p| p.1 > 0)
        .collect();
    let mut at = 0;
    while at < x {
        let hit = left.iter().position(|&(first, len)| {
            at + len <= x
                && block[at..at + len]
                    .iter()
                    .enumerate()
                    .all(|(i, &b)| b == pattern(base + (first + i) as u64))
        });
        let Some(i) = hit else { break };
        at += left.swap_remove(i).1;
    }
    (x - at) as u64
}

/// The inverse of the pattern's multiplier modulo 2^32.
fn inverse() -> u32 {
    let a: u32 = 2_654_435_761;
    let mut inv = a;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(a.wrapping_mul(inv)));
    }
    inv
}

/// Whether `got` is the pattern from some offset of a file of
/// `file_len` bytes: the offset read back from four of its bytes (each
/// alignment tried), or searched for in a short read.
pub fn found_in_file(got: &[u8], file_len: u64) -> bool {
    let n = got.len() as u64;
    if n == 0 {
        return true;
    }
    let holds = |o: u64| {
        o + n <= file_len
            && got
                .iter()
                .enumerate()
                .all(|(i, &b)| b == pattern(o + i as u64))
    };
    if got.len() < 8 {
        return (0..=file_len.saturating_sub(n)).any(holds);
    }
    (0..4usize).any(|a| {
        let w = u32::from_le_bytes([got[a], got[a + 1], got[a + 2], got[a + 3]]);
        let q = (w ^ 0x5a5a_a5a5).wrapping_mul(inverse()) as u64;
        // got[a] is the first byte of the word q: the read starts a bytes
        // before it; the file may exceed 2^34 bytes only by wrapping.
        (q * 4).checked_sub(a as u64).is_some_and(holds)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(from: u64, n: usize) -> Vec<u8> {
        (0..n as u64).map(|i| pattern(from + i)).collect()
    }

    #[test]
    fn a_block_of_portions_in_any_order_is_clean() {
        let (x, k, np) = (20, 3, 3);
        let base = (k * x) as u64;
        let parts: Vec<Vec<u8>> = (0..np)
            .map(|r| {
                let (f, l) = portion(r, np, x);
                pat(base + f as u64, l)
            })
            .collect();
        let block: Vec<u8> = [2, 0, 1].iter().flat_map(|&r| parts[r].clone()).collect();
        assert_eq!(block_errors(&block, k, np), 0);
        let mut bad = block.clone();
        bad[9] ^= 1;
        assert!(block_errors(&bad, k, np) > 0);
        // A portion twice, another missing.
        let twice: Vec<u8> = [0, 0, 2].iter().flat_map(|&r| parts[r].clone()).collect();
        assert!(block_errors(&twice[..x.min(twice.len())], k, np) > 0 || twice.len() != x);
    }

    #[test]
    fn a_read_is_found_wherever_it_starts() {
        for from in [0u64, 1, 6, 4099, 1 << 20] {
            for n in [1, 5, 8, 13, 64] {
                assert!(found_in_file(&pat(from, n), (1 << 21) as u64), "{from} {n}");
            }
        }
        let mut bad = pat(4099, 64);
        bad[30] ^= 0x10;
        assert!(!found_in_file(&bad, 1 << 21));
        // Beyond the file: not found.
        assert!(!found_in_file(&pat(100, 16), 50));
    }
}
