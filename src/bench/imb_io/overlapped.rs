//! IMB-IO's non-blocking benchmarks (IMB 2021.11, `IMB_iwrite_ij`,
//! `IMB_iread_ij`): after the blocking pass of the same repetitions
//! (t_pure, [`super::file`]'s `pure_pass`), each repetition issues the
//! non-blocking call (`MPI_File_iwrite` ...; the collective ones as split
//! collectives, `MPI_File_write_all_begin` ... `_end`), runs one CPU
//! exploitation ([`super::cpu`]), then waits for the call (`MPI_Wait`;
//! the split collective's `_end`), before a write's sync triple in the
//! batch's close. IMB issues every request of a batch before the first
//! exploitation and waits for them all at the end (`MPI_Waitall`); with
//! several requests of the shared file pointer pending, Open MPI 4.1's
//! OMPIO left one of them pending for ever here (P_IRead_Shared on 2
//! processes), and IMB's own CHECK build waits after each such call too.
//!
//! The row's t_ovrl is the loop's largest time over the ranks
//! (`t_max_us`), t_pure the largest blocking time, t_CPU the largest
//! time of one exploitation, and the overlap IMB-IO's (IMB_output.c):
//! `100·max(0, min(1, (t_pure + t_CPU − t_ovrl) / min(t_pure, t_CPU)))`
//! ([`crate::bench::overlap::imb_nbc`]).

use super::cpu::{self, Exploit};
use crate::bench::imb::overlap::{OVERLAP, T_CPU, T_PURE};
use crate::bench::{overlap, Combine, Figure};
use crate::comm::{self, Request};
use crate::results::BenchResult;

/// The overlap's state in a kernel.
pub struct Overlap {
    pub exploit: Exploit,
    /// Seconds per repetition of the blocking pass, once it has run.
    pub pure: Option<f64>,
    /// The independent calls' pending requests.
    pub reqs: Vec<Request>,
    /// The blocking pass is running.
    pub blocking: bool,
}

impl Overlap {
    pub fn new(check: bool) -> Overlap {
        let target = if check {
            cpu::CHECK_TARGET_SECS
        } else {
            cpu::TARGET_SECS
        };
        Overlap {
            exploit: cpu::exploit(target),
            pure: None,
            reqs: Vec::new(),
            blocking: false,
        }
    }

    /// `MPI_Waitall` of the pending requests.
    #[inline(always)]
    pub fn complete(&mut self) {
        if !self.reqs.is_empty() {
            comm::waitall(&mut self.reqs);
            self.reqs.clear();
        }
    }

    pub fn figures(&self) -> Vec<Figure> {
        let Some(pure) = self.pure else {
            return Vec::new();
        };
        vec![
            Figure::new(T_PURE, pure * 1e6, Combine::Max),
            Figure::new(T_CPU, self.exploit.t_cpu_us, Combine::Max),
        ]
    }
}

/// IMB-IO's overlap of every row that has its figures.
pub fn derive(r: &mut BenchResult) {
    for row in &mut r.rows {
        let f = |k: &str| row.params.get(k).and_then(|v| v.as_f64());
        if let (Some(pure), Some(cpu)) = (f(T_PURE), f(T_CPU)) {
            if let Some(o) = overlap::imb_nbc(pure, cpu, row.t_max_us) {
                row.params.insert(OVERLAP.into(), o.into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::row;

    #[test]
    fn the_overlap_divides_by_the_shorter() {
        // P_IWrite_Indv's fixture row (1 process, 0 bytes): 20219.08,
        // 11.80, 1588.98 -> 0.00; C_IRead_Expl's: 1539.28, 0.11 -> 100.
        let mut r = crate::report::table::fixtures::result("x", "imb-io", "collective", 1, vec![]);
        for (ovrl, pure) in [(20219.08, 11.80), (1539.28, 0.11), (1590.0, 10.0)] {
            let mut x = row(0, ovrl);
            x.t_max_us = ovrl;
            x.params.insert(T_PURE.into(), pure.into());
            x.params.insert(T_CPU.into(), 1588.98.into());
            r.rows.push(x);
        }
        derive(&mut r);
        let o: Vec<f64> = r
            .rows
            .iter()
            .map(|x| x.params[OVERLAP].as_f64().unwrap())
            .collect();
        assert_eq!(o[0], 0.0);
        assert_eq!(o[1], 100.0);
        assert!((o[2] - 89.8).abs() < 1e-6, "{o:?}");
    }
}
