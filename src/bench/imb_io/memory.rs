//! The machine's memory-copy rate, measured once per run on rank 0 (when
//! the first read benchmark's rows are assembled, outside every timed
//! region): the best of three copies of 64 MiB, in IMB's Mbytes/sec (2^20
//! bytes). A read row whose bandwidth exceeds it cannot have come from
//! the file system, nor even from the page cache by one copy: it is
//! flagged (the row's `note` and `memcpy_mbytes_per_sec`, and a line under
//! its table).

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

use crate::results::BenchResult;

/// Row parameter of a flagged read row: the memory-copy rate it exceeds.
pub const MEMCPY_PARAM: &str = "memcpy_mbytes_per_sec";
const BYTES: usize = 64 << 20;

static RATE: OnceLock<f64> = OnceLock::new();

/// The best of three copies of 64 MiB (Mbytes/sec).
pub fn copy_rate() -> f64 {
    *RATE.get_or_init(|| {
        let src = vec![1u8; BYTES];
        let mut dst = vec![0u8; BYTES];
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t0 = Instant::now();
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
            best = best.min(t0.elapsed().as_secs_f64());
        }
        BYTES as f64 / 1_048_576.0 / best.max(1e-9)
    })
}

/// Flags the rows of a read result faster than `rate`; their number.
pub fn flag(r: &mut BenchResult, rate: f64) -> usize {
    let mut n = 0;
    for row in &mut r.rows {
        if row.mbytes_per_sec.is_some_and(|b| b > rate) {
            row.params.insert(MEMCPY_PARAM.into(), rate.into());
            let note = format!(
                "faster than this machine's memory copy ({rate:.0} MB/s): not a file system's figure"
            );
            row.note = Some(match row.note.take() {
                Some(n) => format!("{n}; {note}"),
                None => note,
            });
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::{result, row};

    #[test]
    fn only_rows_above_the_rate_are_flagged() {
        let mut rows = vec![row(1024, 1.0), row(4096, 1.0)];
        rows[0].mbytes_per_sec = Some(500.0);
        rows[1].mbytes_per_sec = Some(5000.0);
        let mut r = result("P_Read_Indv", "imb-io", "parallel transfer", 2, rows);
        assert_eq!(flag(&mut r, 1000.0), 1);
        assert!(r.rows[0].note.is_none());
        assert!(r.rows[1].note.as_ref().unwrap().contains("memory copy"));
        assert_eq!(r.rows[1].params[MEMCPY_PARAM], 1000.0);
    }
}
