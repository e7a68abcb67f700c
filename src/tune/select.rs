//! The samples of a launch (its `--raw` file) and the choices made from
//! them: the fastest algorithm per collective, process count and size, kept
//! only when it beats the default significantly; and the check that the
//! rules file makes no size significantly slower.

use std::collections::BTreeMap;

use crate::stats::percentile;
use crate::stats_test::greater;

/// A point: benchmark, process count, bytes.
pub type Point = (String, usize, u64);

/// Per point, the time of each repetition in µs: the slowest rank's.
pub type Samples = BTreeMap<Point, Vec<f64>>;

/// A choice must be at least this much faster than the default (and the
/// rules file may be at most this much slower before a size is reverted):
/// the guidelines' margin.
pub const MARGIN: f64 = 1.05;

/// The significance level of one-sided Mann–Whitney tests; the choice
/// among n algorithms tests each at ALPHA / n (Bonferroni).
pub const ALPHA: f64 = 0.05;

/// Samples from a `--raw` CSV (rank, benchmark, processes, bytes,
/// repetition, start_s, end_s): per repetition, the slowest rank's time.
pub fn read_raw(text: &str) -> Result<Samples, String> {
    let mut reps: BTreeMap<(Point, u64), f64> = BTreeMap::new();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    for rec in r.records() {
        let rec = rec.map_err(|e| format!("raw samples: {e}"))?;
        let field = |i: usize| rec.get(i).unwrap_or("");
        // A loop-timed row has no repetition number: not a sample.
        let Ok(rep) = field(4).parse::<u64>() else {
            continue;
        };
        let num = |i: usize| {
            field(i)
                .parse::<f64>()
                .map_err(|_| format!("raw samples: bad number '{}'", field(i)))
        };
        let p = field(2)
            .parse::<usize>()
            .map_err(|_| "raw samples: bad process count")?;
        let bytes = field(3)
            .parse::<u64>()
            .map_err(|_| "raw samples: bad bytes")?;
        let us = (num(6)? - num(5)?) * 1e6;
        let slot = reps
            .entry(((field(1).to_string(), p, bytes), rep))
            .or_insert(us);
        *slot = slot.max(us);
    }
    let mut out = Samples::new();
    for ((point, _), us) in reps {
        out.entry(point).or_default().push(us);
    }
    Ok(out)
}

/// The median of samples (0 for none).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    percentile(&s, 50.0)
}

/// Per point, the samples of the launch with the lower median.
pub fn faster_of(a: Samples, mut b: Samples) -> Samples {
    a.into_iter()
        .map(|(pt, va)| match b.remove(&pt) {
            Some(vb) if median(&vb) < median(&va) => (pt, vb),
            _ => (pt, va),
        })
        .collect()
}

/// What was chosen at one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    /// Index into the candidates of the fastest one (by median), if any.
    pub fastest: Option<usize>,
    /// Its one-sided p-value of "the default is slower".
    pub p: Option<f64>,
    /// True when the fastest one replaces the default.
    pub chosen: bool,
}

/// The fastest candidate, chosen when its median beats the default's by
/// [`MARGIN`] and the default is significantly slower (p < ALPHA / n).
/// Anything else, a tie included, keeps the default.
pub fn pick(default: &[f64], candidates: &[&[f64]]) -> Pick {
    let fastest = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_empty())
        .min_by(|a, b| median(a.1).total_cmp(&median(b.1)))
        .map(|(i, _)| i);
    let Some(i) = fastest else {
        return Pick {
            fastest: None,
            p: None,
            chosen: false,
        };
    };
    let p = greater(default, candidates[i]);
    let n = candidates.iter().filter(|c| !c.is_empty()).count() as f64;
    let chosen = !default.is_empty()
        && median(candidates[i]) * MARGIN < median(default)
        && p.is_some_and(|p| p < ALPHA / n);
    Pick { fastest, p, chosen }
}

/// With the rules file loaded, is this point significantly slower than the
/// default (median above it by [`MARGIN`], one-sided p < ALPHA)? The p-value when so.
pub fn slower(after: &[f64], before: &[f64]) -> Option<f64> {
    let p = greater(after, before)?;
    (median(after) > median(before) * MARGIN && p < ALPHA).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_rows_become_the_slowest_ranks_times() {
        let csv = "rank,benchmark,processes,bytes,repetition,start_s,end_s\n\
                   0,Allreduce,2,8,0,0.000001,0.000003\n\
                   1,Allreduce,2,8,0,0.000001,0.000005\n\
                   0,Allreduce,2,8,1,0.000010,0.000011\n\
                   1,Allreduce,2,8,1,0.000010,0.000012\n\
                   0,Bcast,2,8,loop,0.0,1.0\n";
        let s = read_raw(csv).unwrap();
        assert_eq!(s.len(), 1);
        let v = &s[&("Allreduce".to_string(), 2, 8)];
        assert_eq!(v.len(), 2);
        assert!(
            (v[0] - 4.0).abs() < 1e-6 && (v[1] - 2.0).abs() < 1e-6,
            "{v:?}"
        );
        assert!(read_raw(
            "rank,benchmark,processes,bytes,repetition,start_s,end_s\n0,A,x,8,0,0,1\n"
        )
        .is_err());
    }

    fn around(m: f64) -> Vec<f64> {
        (0..20).map(|i| m + (i % 5) as f64 * 0.01 * m).collect()
    }

    #[test]
    fn the_fastest_is_chosen_only_when_clearly_faster() {
        let d = around(10.0);
        // Clearly faster: chosen.
        let p = pick(&d, &[&around(12.0), &around(5.0)]);
        assert_eq!(p.fastest, Some(1));
        assert!(p.chosen && p.p.unwrap() < 0.01);
        // Faster by less than the margin: a tie keeps the default.
        let p = pick(&d, &[&around(9.8)]);
        assert_eq!(p.fastest, Some(0));
        assert!(!p.chosen);
        // Nothing faster.
        assert!(!pick(&d, &[&around(20.0)]).chosen);
        // No candidate measured.
        assert_eq!(pick(&d, &[&[]]).fastest, None);
        // Too few samples for significance.
        assert!(!pick(&[10.0], &[&[5.0]]).chosen);
    }

    #[test]
    fn each_point_keeps_its_faster_launch() {
        let pt = |b: u64| ("Bcast".to_string(), 2usize, b);
        let a = Samples::from([(pt(8), vec![2.0, 2.0]), (pt(64), vec![1.0])]);
        let b = Samples::from([(pt(8), vec![1.0, 1.0]), (pt(64), vec![3.0])]);
        let f = faster_of(a, b);
        assert_eq!(f[&pt(8)], [1.0, 1.0]);
        assert_eq!(f[&pt(64)], [1.0]);
    }

    #[test]
    fn slower_needs_margin_and_significance() {
        let before = around(10.0);
        assert!(slower(&around(12.0), &before).is_some());
        assert!(slower(&around(10.2), &before).is_none());
        assert!(slower(&around(8.0), &before).is_none());
    }
}
