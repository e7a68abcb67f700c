//! Which definitions the `imb` benchmarks follow: the seed's PMB-MPI1 v2.2,
//! or IMB-MPI1 2021 (IMB 2019 and later, built without `-DIMB2018`).
//!
//! The two differ in a few definitions, each held where it belongs:
//!
//! * timing of collectives: PMB times the loop of repetitions after one
//!   barrier; IMB 2021 times each call and puts `MPI_Barrier` between every
//!   two calls (`-sync 1`, its default) — [`Definitions::method`];
//! * Reduce_scatter: PMB splits X/4 floats among the ranks, IMB 2021 gives
//!   every rank X/4 (Q·X/4 in all) — two benchmark files of the same name,
//!   one per definitions ([`crate::contract::Info::default_in`]);
//! * the benchmarks IMB-MPI1 has beyond PMB (Reduce_local, Gather, ...),
//!   in IMB's default list only;
//! * reductions at sizes that are not whole floats: PMB reduces X/4 (a
//!   partial float is dropped), IMB 2021 rounds X up to whole floats
//!   ([`Definitions::points`]);
//! * the warm-up at the largest length (PMB §5.2.5; IMB 2021 has none);
//! * Mbytes/sec: PMB's MB is 2^20 bytes, IMB 2021 prints MB = 10^6 bytes
//!   (the JSON keeps 2^20; the IMB-2021 table converts).

use serde::{Deserialize, Serialize};

use super::{Class, Info, Method, Point};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Definitions {
    /// Pallas MPI Benchmarks PMB-MPI1 v2.2 (the seed).
    #[default]
    Pmb,
    /// Intel MPI Benchmarks IMB-MPI1 2021.
    Imb2021,
}

impl Definitions {
    /// Both, for benchmarks whose definition is the same under each.
    pub const BOTH: &'static [Definitions] = &[Definitions::Pmb, Definitions::Imb2021];

    pub fn name(self) -> &'static str {
        match self {
            Definitions::Pmb => "pmb",
            Definitions::Imb2021 => "imb2021",
        }
    }

    /// The timing method these definitions give a benchmark (None: its
    /// suite's default). IMB 2021 times each call of a collective with a
    /// message (`-sync 1`: synchronised before every call; `-sync 0`: once,
    /// then back to back); its Barrier and the transfers keep the loop.
    pub fn method(self, info: &Info, call_sync: bool) -> Option<Method> {
        match self {
            Definitions::Pmb => None,
            Definitions::Imb2021 => {
                (info.class == Class::Collective && info.sized()).then_some(if call_sync {
                    Method::PerCall
                } else {
                    Method::PerCallOnce
                })
            }
        }
    }

    /// Whether these definitions round a benchmark's lengths up to whole
    /// elements: IMB 2021 does for reductions and for any element type a
    /// run chose (its unit: the size of -red_data_type for reductions, of
    /// -data_type otherwise).
    pub fn rounds(self, info: &Info) -> bool {
        self == Definitions::Imb2021
            && info.elem.size() > 1
            && (info.reduction || info.datatype.is_some())
    }

    /// The points a benchmark runs under these definitions: IMB 2021 rounds
    /// the lengths of reductions (and of a chosen element type) up to whole
    /// elements (a float for 1, 2 or 3 bytes), so that no length moves a
    /// partial element; lengths that meet are run once.
    pub fn points(self, info: &Info, points: Vec<Point>) -> Vec<Point> {
        let k = info.elem.size();
        if !self.rounds(info) {
            return points;
        }
        let mut out: Vec<Point> = Vec::with_capacity(points.len());
        for mut p in points {
            p.bytes = p.bytes.div_ceil(k) * k;
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// PMB §5.2.5 runs a few repetitions at the largest length first; IMB 2021 does not.
    pub fn warm_largest(self, suite_default: usize) -> usize {
        match self {
            Definitions::Pmb => suite_default,
            Definitions::Imb2021 => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb;

    #[test]
    fn imb2021_times_collectives_per_call() {
        let i = |n| imb::find(n).unwrap().info();
        let d = Definitions::Imb2021;
        assert_eq!(d.method(i("Bcast"), true), Some(Method::PerCall));
        assert_eq!(d.method(i("Allreduce"), false), Some(Method::PerCallOnce));
        assert_eq!(d.method(i("Barrier"), true), None);
        assert_eq!(d.method(i("PingPong"), true), None);
        assert_eq!(d.method(i("Sendrecv"), true), None);
        assert_eq!(Definitions::Pmb.method(i("Bcast"), true), None);
        assert_eq!(d.warm_largest(2), 0);
        assert_eq!(Definitions::Pmb.warm_largest(2), 2);
    }

    #[test]
    fn imb2021_rounds_reduction_lengths_up_to_whole_floats() {
        let pts = |v: &[usize]| v.iter().map(|&x| Point::bytes(x)).collect::<Vec<_>>();
        let ar = imb::find("Allreduce").unwrap().info();
        let d = Definitions::Imb2021;
        assert_eq!(d.points(ar, pts(&[0, 1, 2, 4, 8, 9])), pts(&[0, 4, 8, 12]));
        assert_eq!(
            Definitions::Pmb.points(ar, pts(&[0, 1, 2])),
            pts(&[0, 1, 2])
        );
        let bc = imb::find("Bcast").unwrap().info();
        assert_eq!(d.points(bc, pts(&[0, 1, 2])), pts(&[0, 1, 2]));
        // IMB-MPI1 -data_type double: transfers round up to whole doubles,
        // 1, 2, 4 and 8 bytes are one length of 8 (IMB's unit_size).
        let typed = Info {
            elem: crate::comm::Elem::Double,
            datatype: Some("MPI_DOUBLE"),
            ..*bc
        };
        assert!(d.rounds(&typed));
        assert_eq!(
            d.points(&typed, pts(&[0, 1, 2, 4, 8, 16, 20])),
            pts(&[0, 8, 16, 24])
        );
        assert!(!Definitions::Pmb.rounds(&typed));
        // An element type of its own that no run chose (IMB-MT's ints) stays.
        let own = Info {
            elem: crate::comm::Elem::Int,
            ..*bc
        };
        assert!(!d.rounds(&own));
    }

    #[test]
    fn names_round_trip() {
        for d in Definitions::BOTH {
            let s = serde_json::to_string(d).unwrap();
            assert_eq!(s, format!("\"{}\"", d.name()));
            use clap::ValueEnum;
            assert_eq!(Definitions::from_str(d.name(), true).unwrap(), *d);
        }
    }
}
