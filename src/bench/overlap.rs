//! How much of a non-blocking operation's time computation hid, in percent,
//! as the two suites that report it define it. Shared by CRESTA's scenario
//! 3 and the OSU non-blocking benchmarks. All times in the same unit.
//!
//! * t_pure: the operation alone (issue + wait, no computation);
//! * t_cpu: the computation done while it was in flight;
//! * t_overall: issue + computation + wait;
//! * t_test: the part of t_cpu spent in MPI_Test calls (0 where none are made).

/// OSU Micro-Benchmarks 7:
/// `max(0, 100 − 100·(t_overall − (t_cpu − t_test)) / t_pure)`.
pub fn osu(t_pure: f64, t_cpu: f64, t_test: f64, t_overall: f64) -> Option<f64> {
    (t_pure > 0.0 && [t_cpu, t_test, t_overall].iter().all(|v| v.is_finite()))
        .then(|| (100.0 - 100.0 * (t_overall - (t_cpu - t_test)) / t_pure).max(0.0))
}

/// IMB-NBC:
/// `100·max(0, min(1, (t_pure + t_cpu − t_overall) / min(t_pure, t_cpu)))`.
pub fn imb_nbc(t_pure: f64, t_cpu: f64, t_overall: f64) -> Option<f64> {
    let hidden = t_pure.min(t_cpu);
    (hidden > 0.0 && t_overall.is_finite())
        .then(|| 100.0 * ((t_pure + t_cpu - t_overall) / hidden).clamp(0.0, 1.0))
}

/// IMB-NBC 2021's tables (IMB_output.c), of the figures of the rank with
/// the largest t_overall:
/// `100·max(0, min(1, (t_pure + t_cpu − t_overall) / max(t_pure, t_cpu)))`.
pub fn imb_nbc_output(t_pure: f64, t_cpu: f64, t_overall: f64) -> Option<f64> {
    let longer = t_pure.max(t_cpu);
    (longer > 0.0 && t_overall.is_finite())
        .then(|| 100.0 * ((t_pure + t_cpu - t_overall) / longer).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn full_overlap_is_100_and_none_is_0() {
        // Fully hidden: the whole thing takes as long as the computation.
        assert!(near(osu(10.0, 50.0, 0.0, 50.0), 100.0));
        assert!(near(imb_nbc(10.0, 50.0, 50.0), 100.0));
        // Nothing hidden: operation and computation one after the other.
        assert!(near(osu(10.0, 50.0, 0.0, 60.0), 0.0));
        assert!(near(imb_nbc(10.0, 50.0, 60.0), 0.0));
        // Worse than serial is still 0.
        assert!(near(osu(10.0, 50.0, 0.0, 75.0), 0.0));
        assert!(near(imb_nbc(10.0, 50.0, 75.0), 0.0));
    }

    #[test]
    fn partial_overlap_differs_between_the_definitions() {
        // t_pure 10, t_cpu 50, t_overall 56: 4 of the 10 were hidden.
        assert!(near(osu(10.0, 50.0, 0.0, 56.0), 40.0));
        // IMB-NBC divides by min(t_pure, t_cpu): the same 40%.
        assert!(near(imb_nbc(10.0, 50.0, 56.0), 40.0));
        // Computation shorter than the operation: t_pure 50, t_cpu 10, t_overall 56.
        // OSU: 100 − 100·(56 − 10)/50 = 8%; IMB-NBC: (50 + 10 − 56)/10 = 40%.
        assert!(near(osu(50.0, 10.0, 0.0, 56.0), 8.0));
        assert!(near(imb_nbc(50.0, 10.0, 56.0), 40.0));
        // Overlap beyond the computation: IMB-NBC caps at 100%, OSU does not.
        assert!(near(imb_nbc(50.0, 10.0, 45.0), 100.0));
        assert!(near(osu(50.0, 10.0, 0.0, 45.0), 30.0));
    }

    #[test]
    fn imb_nbc_output_divides_by_the_longer() {
        // IMB-NBC's fixture row (Ibcast, 8 bytes): 0.80, 0.66, 0.34 -> 30.31%.
        let o = imb_nbc_output(0.66, 0.34, 0.80).unwrap();
        assert!((o - 30.30).abs() < 0.01, "{o}");
        // All of t_pure 10 hidden in t_cpu 50: 10/50 of the longer.
        assert!(near(imb_nbc_output(10.0, 50.0, 50.0), 20.0));
        assert!(near(imb_nbc_output(10.0, 50.0, 60.0), 0.0));
        assert!(near(imb_nbc_output(40.0, 40.0, 40.0), 100.0));
        // 4 of t_cpu 10 hidden behind t_pure 50: 4/50, not 4/10.
        assert!(near(imb_nbc_output(50.0, 10.0, 56.0), 8.0));
        assert_eq!(imb_nbc_output(0.0, 0.0, 1.0), None);
        assert_eq!(imb_nbc_output(1.0, 1.0, f64::NAN), None);
    }

    #[test]
    fn test_calls_count_against_the_computation() {
        // 5 of the 50 of computation were MPI_Test calls.
        assert!(near(osu(10.0, 50.0, 5.0, 50.0), 50.0));
    }

    #[test]
    fn undefined_without_a_reference() {
        assert_eq!(osu(0.0, 5.0, 0.0, 5.0), None);
        assert_eq!(imb_nbc(0.0, 5.0, 5.0), None);
        assert_eq!(imb_nbc(5.0, 0.0, 5.0), None);
        assert_eq!(osu(5.0, f64::NAN, 0.0, 5.0), None);
    }
}
