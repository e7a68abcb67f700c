//! mpiGraph's matrices and the search for a slow host or link (pure
//! functions, unit-tested on synthetic matrices).
//!
//! The outlier rule (also in docs/suites/mpigraph.md):
//!
//! 1. Every value is a receive bandwidth of an ordered pair of ranks (the
//!    receiver's side: the data has arrived). Pairs are split by class:
//!    *inter* (the ranks on different hosts) and *intra* (the same host);
//!    the two classes are never compared with each other.
//! 2. A **link** A–B between two hosts is the median of the values of all
//!    rank pairs between A and B, both ways; a host's **intra** value is the
//!    median of the values between its own ranks.
//! 3. A **host**'s inter value is the median of its links. A host is an
//!    outlier when its value is *well below* its peers, the links among the
//!    other hosts: below m / 2, m their median, and, where there are three
//!    of them or more, below m − 3 σ, σ = 1.4826 × their MAD. A host's intra
//!    value is compared in the same way with the other hosts' intra values.
//! 4. A **link** is an outlier when neither of its hosts is one (a slow
//!    host explains its slow links) and it is well below the links between
//!    the hosts that are not outliers (the same test, three links or more).
//!
//! "Well below" needs a factor of 2 and a robust 3σ, so that the noise of a
//! busy machine (tens of percent) is not a finding; with two hosts there
//! are no peers, and nothing can say which of the two is slow.
//!
//! A finding must repeat ([`repeated_outliers`]): every pair is measured
//! R times (the repetitions of each step in R = 5 consecutive blocks, one
//! matrix per block). A host or link is named when it is below half its
//! peers' median in each of the R matrices (a one-sided sign test: by
//! chance 2^−R, 3 % for R = 5) *and* below half its peers on the matrix of
//! the medians over the R blocks, where the noise of single blocks has
//! averaged out; a link (one pair's figure, where the pattern's own
//! contention shows) must there also be below m − 3σ. Its figures are
//! that matrix's.
//! Found below half its peers in 2 .. R−1 blocks, or in all R but within
//! its peers' spread on the medians, the run is too noisy to decide and
//! says so (named nowhere, listed as undecided); found in one, it is noise.

use serde::Serialize;

use crate::stats;

/// The values of every ordered pair of ranks; `None` on the diagonal or
/// where nothing was measured. `m[i][j]`: rank i with rank j.
pub type Matrix = Vec<Vec<Option<f64>>>;

/// A finding: a host or a link whose bandwidth falls well below its peers'.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outlier {
    /// "host" or "link".
    pub kind: &'static str,
    /// "inter" (between hosts) or "intra" (within one host).
    pub class: &'static str,
    pub hosts: Vec<String>,
    pub mbytes_per_sec: f64,
    pub ratio_to_median: f64,
}

/// Median of the values (NaN when there are none).
fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    stats::percentile(&s, 50.0)
}

/// Whether `x` is well below its `peers` (the rule above): below half
/// their median and (when `strict`), with three peers or more, below
/// median − 3σ. Returns the peers' median when it is.
fn well_below(x: f64, peers: &[f64], strict: bool) -> Option<f64> {
    let mut s: Vec<f64> = peers.iter().copied().filter(|v| v.is_finite()).collect();
    if s.is_empty() || !x.is_finite() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let m = stats::percentile(&s, 50.0);
    let sigma = if strict && s.len() >= 3 {
        stats::MAD_TO_SIGMA * stats::mad(&s)
    } else {
        0.0
    };
    (x < m / 2.0 && x < m - 3.0 * sigma).then_some(m)
}

/// A finding some but not all repeated measurements show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Undecided {
    pub kind: &'static str,
    pub class: &'static str,
    pub hosts: Vec<String>,
    /// In how many of the repeated measurements it was found.
    pub found_in: usize,
    pub of: usize,
}

impl Undecided {
    /// "host node3 (inter) in 3 of 5".
    pub fn describe(&self) -> String {
        format!(
            "{} {} ({}) in {} of {}",
            self.kind,
            self.hosts.join(" - "),
            self.class,
            self.found_in,
            self.of
        )
    }
}

/// The findings of repeated measurements.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// Found in every repeated measurement.
    pub named: Vec<Outlier>,
    /// Found in more than one, not in all: too noisy to decide.
    pub undecided: Vec<Undecided>,
}

/// The repeatable findings of the repeated bandwidth matrices `each` (the
/// rule at the top). With fewer than two matrices nothing repeats: every
/// finding of the one matrix is undecided.
pub fn repeated_outliers(each: &[Matrix], hosts: &[String]) -> Verdict {
    let r = each.len();
    let found: Vec<Vec<Outlier>> = each.iter().map(|m| find(m, hosts, Strict::None)).collect();
    let central = find(&medians(each), hosts, Strict::Links);
    // Distinct findings in order of first appearance.
    let mut keys: Vec<&Outlier> = Vec::new();
    for o in found.iter().flatten() {
        if !keys.iter().any(|k| same(k, o)) {
            keys.push(o);
        }
    }
    let mut v = Verdict::default();
    for k in keys {
        let hits: Vec<&Outlier> = found
            .iter()
            .filter_map(|f| f.iter().find(|o| same(o, k)))
            .collect();
        let n = hits.len();
        let confirmed = central.iter().find(|o| same(o, k));
        if let (true, Some(c)) = (r >= 2 && n == r, confirmed) {
            v.named.push(c.clone());
        } else if n >= 2 || r < 2 {
            v.undecided.push(Undecided {
                kind: k.kind,
                class: k.class,
                hosts: k.hosts.clone(),
                found_in: n,
                of: r,
            });
        }
    }
    // Hosts first, as `outliers` orders them.
    v.named.sort_by_key(|o| o.kind != "host");
    v
}

/// The element-wise median of the matrices (None where none has a value).
fn medians(each: &[Matrix]) -> Matrix {
    let Some(first) = each.first() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|i| {
            (0..first[i].len())
                .map(|j| {
                    let v: Vec<f64> = each
                        .iter()
                        .filter_map(|m| m.get(i)?.get(j).copied()?)
                        .collect();
                    (!v.is_empty()).then(|| median(&v))
                })
                .collect()
        })
        .collect()
}

/// The same host or link, the same class.
fn same(a: &Outlier, b: &Outlier) -> bool {
    a.kind == b.kind && a.class == b.class && a.hosts == b.hosts
}

pub use crate::engine::placement::host_index;

/// The host × host summary: the median of the rank pairs between two hosts
/// (both ways) off the diagonal, and within one host on it (`None` where a
/// host has a single rank).
pub fn host_summary(m: &Matrix, hosts: &[String]) -> (Vec<String>, Matrix) {
    let (names, of) = host_index(hosts);
    let h = names.len();
    let mut cells: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); h]; h];
    for (i, row) in m.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            if let (Some(v), true) = (v, i != j) {
                let (a, b) = (of[i].min(of[j]), of[i].max(of[j]));
                cells[a][b].push(*v);
            }
        }
    }
    let mut out = vec![vec![None; h]; h];
    for a in 0..h {
        for b in a..h {
            let md = median(&cells[a][b]);
            if md.is_finite() {
                out[a][b] = Some(md);
                out[b][a] = Some(md);
            }
        }
    }
    (names, out)
}

/// The outliers of a bandwidth matrix (rule above), hosts first.
pub fn outliers(m: &Matrix, hosts: &[String]) -> Vec<Outlier> {
    find(m, hosts, Strict::All)
}

/// Where the 3σ test applies besides the factor 2.
#[derive(Clone, Copy, PartialEq)]
enum Strict {
    None,
    /// Links only: a host's figure is already the median of its links.
    Links,
    All,
}

/// [`outliers`], with the 3σ test where `strict` says.
fn find(m: &Matrix, hosts: &[String], strict: Strict) -> Vec<Outlier> {
    let hosts_strict = strict == Strict::All;
    let links_strict = strict != Strict::None;
    let (names, summary) = host_summary(m, hosts);
    let h = names.len();
    let mut found = Vec::new();
    // Inter: each host's median link.
    let host_inter: Vec<f64> = (0..h)
        .map(|a| {
            let links: Vec<f64> = (0..h)
                .filter(|&b| b != a)
                .filter_map(|b| summary[a][b])
                .collect();
            median(&links)
        })
        .collect();
    // The links among the hosts other than `a`.
    let others = |a: usize| -> Vec<f64> {
        let mut v = Vec::new();
        for b in (0..h).filter(|&b| b != a) {
            for c in (b + 1..h).filter(|&c| c != a) {
                v.extend(summary[b][c]);
            }
        }
        v
    };
    let mut slow = vec![false; h];
    for a in 0..h {
        if let Some(md) = well_below(host_inter[a], &others(a), hosts_strict) {
            slow[a] = true;
            found.push(Outlier {
                kind: "host",
                class: "inter",
                hosts: vec![names[a].clone()],
                mbytes_per_sec: host_inter[a],
                ratio_to_median: host_inter[a] / md,
            });
        }
    }
    // Intra: each host's own pairs, compared with the other hosts'.
    let intra: Vec<Option<f64>> = (0..h).map(|a| summary[a][a]).collect();
    for a in 0..h {
        let peers: Vec<f64> = (0..h)
            .filter(|&b| b != a)
            .filter_map(|b| intra[b])
            .collect();
        if let Some(x) = intra[a] {
            if let Some(md) = well_below(x, &peers, hosts_strict) {
                found.push(Outlier {
                    kind: "host",
                    class: "intra",
                    hosts: vec![names[a].clone()],
                    mbytes_per_sec: x,
                    ratio_to_median: x / md,
                });
            }
        }
    }
    // Links between hosts that are not slow themselves.
    let mut links: Vec<(usize, usize, f64)> = Vec::new();
    for a in 0..h {
        for b in a + 1..h {
            if let (Some(v), false, false) = (summary[a][b], slow[a], slow[b]) {
                links.push((a, b, v));
            }
        }
    }
    let values: Vec<f64> = links.iter().map(|l| l.2).collect();
    for &(a, b, v) in links.iter().filter(|_| values.len() >= 3) {
        if let Some(md) = well_below(v, &values, links_strict) {
            found.push(Outlier {
                kind: "link",
                class: "inter",
                hosts: vec![names[a].clone(), names[b].clone()],
                mbytes_per_sec: v,
                ratio_to_median: v / md,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A matrix over `per` ranks per host: `inter(a, b)` between hosts,
    /// `intra` within one.
    fn synthetic(
        per: &[usize],
        inter: impl Fn(usize, usize) -> f64,
        intra: f64,
    ) -> (Matrix, Vec<String>) {
        let hosts: Vec<usize> = per
            .iter()
            .enumerate()
            .flat_map(|(h, &n)| vec![h; n])
            .collect();
        let n = hosts.len();
        let m = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        (i != j).then(|| {
                            if hosts[i] == hosts[j] {
                                intra
                            } else {
                                inter(hosts[i], hosts[j])
                            }
                        })
                    })
                    .collect()
            })
            .collect();
        let names = hosts.iter().map(|h| format!("node{}", h + 1)).collect();
        (m, names)
    }

    /// A little deterministic noise: ±15 % by position.
    fn noisy(base: f64, a: usize, b: usize) -> f64 {
        base * (1.0 + 0.15 * (((a * 7 + b * 13) % 5) as f64 - 2.0) / 2.0)
    }

    #[test]
    fn a_healthy_cluster_has_no_outliers() {
        for per in [
            vec![1, 1, 1],
            vec![1, 1, 1, 1],
            vec![2, 2, 2, 2],
            vec![3, 3, 3, 3, 3],
        ] {
            let (m, h) = synthetic(&per, |a, b| noisy(1900.0, a, b), 9000.0);
            assert_eq!(outliers(&m, &h), vec![], "{per:?}");
        }
    }

    #[test]
    fn a_shaped_host_is_the_one_finding() {
        // Four hosts, node3's link shaped to 47.7 MB/s.
        let (m, h) = synthetic(
            &[1, 1, 1, 1],
            |a, b| {
                if a == 2 || b == 2 {
                    46.0
                } else {
                    noisy(1900.0, a, b)
                }
            },
            0.0,
        );
        let o = outliers(&m, &h);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!((o[0].kind, o[0].class), ("host", "inter"));
        assert_eq!(o[0].hosts, vec!["node3"]);
        assert!((o[0].mbytes_per_sec - 46.0).abs() < 1e-9);
        assert!(o[0].ratio_to_median < 0.1);
        // Three hosts, one rank each, the unshaped links slowed by a busy
        // machine to 90 MB/s and the shaped ones to 12: node3 alone.
        let (m, h) = synthetic(
            &[1, 1, 1],
            |a, b| if a == 2 || b == 2 { 12.0 } else { 90.0 },
            0.0,
        );
        let o = outliers(&m, &h);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].hosts, vec!["node3"]);
        // Three hosts, two ranks each: the same.
        let (m, h) = synthetic(
            &[2, 2, 2],
            |a, b| if a == 2 || b == 2 { 46.0 } else { 1900.0 },
            9000.0,
        );
        let o = outliers(&m, &h);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].hosts, vec!["node3"]);
    }

    #[test]
    fn a_slow_link_between_healthy_hosts() {
        let (m, h) = synthetic(
            &[1, 1, 1, 1],
            |a, b| {
                if (a, b) == (0, 1) || (a, b) == (1, 0) {
                    300.0
                } else {
                    noisy(1900.0, a, b)
                }
            },
            0.0,
        );
        let o = outliers(&m, &h);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].kind, "link");
        assert_eq!(o[0].hosts, vec!["node1", "node2"]);
    }

    #[test]
    fn intra_and_inter_are_compared_apart() {
        // Shared memory at 9000 MB/s within hosts, TCP at 1900 between:
        // neither class is an outlier of the other.
        let (m, h) = synthetic(&[2, 2, 2], |_, _| 1900.0, 9000.0);
        assert!(outliers(&m, &h).is_empty());
        // One host's shared memory is slow: an intra finding, nothing else.
        let (mut m, h) = synthetic(&[2, 2, 2], |_, _| 1900.0, 9000.0);
        m[2][3] = Some(1000.0);
        m[3][2] = Some(1000.0);
        let o = outliers(&m, &h);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!((o[0].kind, o[0].class), ("host", "intra"));
        assert_eq!(o[0].hosts, vec!["node2"]);
    }

    #[test]
    fn two_hosts_cannot_tell_which_is_slow() {
        let (m, h) = synthetic(&[2, 2], |_, _| 46.0, 9000.0);
        assert!(outliers(&m, &h).is_empty());
        // Nor is a factor below 2 a finding.
        let (m, h) = synthetic(
            &[1, 1, 1, 1],
            |a, b| if a == 0 || b == 0 { 1100.0 } else { 1900.0 },
            0.0,
        );
        assert!(outliers(&m, &h).is_empty());
    }

    /// `r` repeated matrices of four hosts, one rank each: node3 shaped
    /// to 46 MB/s in the measurements `shaped` says, and the pair
    /// node1–node2 at 300 in those `slow_link` says.
    fn repeats(
        r: usize,
        shaped: impl Fn(usize) -> bool,
        slow_link: impl Fn(usize) -> bool,
    ) -> (Vec<Matrix>, Vec<String>) {
        let mut names = Vec::new();
        let ms = (0..r)
            .map(|i| {
                let (m, h) = synthetic(
                    &[1, 1, 1, 1],
                    |a, b| {
                        if shaped(i) && (a == 2 || b == 2) {
                            46.0
                        } else if slow_link(i) && a + b == 1 {
                            300.0
                        } else {
                            noisy(1900.0 + 10.0 * i as f64, a, b)
                        }
                    },
                    0.0,
                );
                names = h;
                m
            })
            .collect();
        (ms, names)
    }

    #[test]
    fn a_consistently_slow_host_is_named() {
        let (ms, h) = repeats(5, |_| true, |_| false);
        let v = repeated_outliers(&ms, &h);
        assert_eq!(v.undecided, vec![]);
        assert_eq!(v.named.len(), 1, "{v:?}");
        assert_eq!(v.named[0].hosts, vec!["node3"]);
        assert!((v.named[0].mbytes_per_sec - 46.0).abs() < 1e-9);
    }

    #[test]
    fn one_noisy_sample_is_not_named() {
        // node1–node2 slow in one measurement of five: noise, nothing said;
        // node3 slow in all: named alone.
        let (ms, h) = repeats(5, |_| true, |i| i == 3);
        let v = repeated_outliers(&ms, &h);
        assert_eq!(v.named.len(), 1, "{v:?}");
        assert_eq!(v.named[0].hosts, vec!["node3"]);
        assert_eq!(v.undecided, vec![]);
        // The one matrix alone would have named the link.
        assert!(outliers(&ms[3], &h).iter().any(|o| o.kind == "link"));
    }

    #[test]
    fn too_noisy_to_decide_says_so() {
        // node3 slow in 3 of 5 measurements: not named, undecided.
        let (ms, h) = repeats(5, |i| i % 2 == 0, |_| false);
        let v = repeated_outliers(&ms, &h);
        assert_eq!(v.named, vec![]);
        assert_eq!(v.undecided.len(), 1, "{v:?}");
        assert_eq!(v.undecided[0].describe(), "host node3 (inter) in 3 of 5");
        // A healthy cluster: nothing either way.
        let (ms, h) = repeats(5, |_| false, |_| false);
        assert_eq!(repeated_outliers(&ms, &h), Verdict::default());
        // One measurement cannot repeat: its findings stay undecided.
        let (ms, h) = repeats(1, |_| true, |_| false);
        let v = repeated_outliers(&ms, &h);
        assert_eq!((v.named.len(), v.undecided.len()), (0, 1));
    }

    #[test]
    fn a_shaped_host_among_noisy_peers_is_named_and_their_slow_link_is_not() {
        // As measured on four namespace hosts under load: node4 shaped
        // (17 MB/s), the unshaped links noisy from block to block (40 to
        // 160) and node2–node3 always slower (35), within its peers' spread.
        let peers = [
            [150.0, 90.0, 35.0],
            [60.0, 160.0, 30.0],
            [100.0, 105.0, 40.0],
            [140.0, 120.0, 33.0],
            [80.0, 150.0, 36.0],
        ];
        let ms: Vec<Matrix> = peers
            .iter()
            .map(|p| {
                synthetic(
                    &[1, 1, 1, 1],
                    |a, b| match (a.min(b), a.max(b)) {
                        (_, 3) => 17.0,
                        (0, 1) => p[0],
                        (0, 2) => p[1],
                        _ => p[2],
                    },
                    0.0,
                )
                .0
            })
            .collect();
        let h: Vec<String> = (1..=4).map(|i| format!("node{i}")).collect();
        let v = repeated_outliers(&ms, &h);
        assert_eq!(v.named.len(), 1, "{v:?}");
        assert_eq!(v.named[0].hosts, vec!["node4"]);
        assert!((v.named[0].mbytes_per_sec - 17.0).abs() < 1e-9);
        // The slow link is below half its peers in some blocks only, and
        // within their spread: undecided at most, never named.
        assert!(v.undecided.iter().all(|u| u.kind == "link"), "{v:?}");
        // In one block alone the 3σ test on three noisy peers misses node4.
        assert!(ms.iter().any(|m| outliers(m, &h).is_empty()));
    }

    #[test]
    fn the_host_summary_takes_medians() {
        let (m, h) = synthetic(&[2, 1], |_, _| 100.0, 500.0);
        let (names, s) = host_summary(&m, &h);
        assert_eq!(names, vec!["node1", "node2"]);
        assert_eq!(s[0][0], Some(500.0));
        assert_eq!(s[0][1], Some(100.0));
        assert_eq!(s[1][0], Some(100.0));
        assert_eq!(s[1][1], None);
    }
}
