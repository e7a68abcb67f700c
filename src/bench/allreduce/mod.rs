//! ALLREDUCE (ORNL, P. H. Worley; the first part of
//! `shared/seeds/004_*.txt`): the allreduce of a vector of doubles with
//! MPI_SUM, short (1 to 1 Ki elements, where message start-ups dominate) and
//! long (up to 16 Mi elements, where bandwidth does), timed for the
//! library's MPI_Allreduce and for the classic algorithms built from
//! point-to-point messages on the same data (`schedule`): recursive
//! doubling, ring (reduce-scatter then allgather), Rabenseifner (recursive
//! halving then doubling) and binomial reduce + broadcast. Every algorithm
//! handles any number of processes. Per length, `derive` names the fastest
//! and how far MPI_Allreduce is from it.
//!
//! With `--check`, every repetition's result is compared with the exact sum
//! of the small integers each rank sends (held in doubles, so any order of
//! summation gives the same bits) and, for the point-to-point algorithms,
//! bit for bit with MPI_Allreduce on the same data.

use anyhow::Result;
use serde_json::json;

use super::{Axis, Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::bench::entry::Entry;
use crate::check::{self, Expect};
use crate::comm::{Buffer, Comm, Elem, Msg};
use crate::contract::axis::{Point, SweepCx};
use crate::method::Method;
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};
use crate::results::Params;
use crate::results::{BenchResult, Best};

pub mod args;
pub mod schedule;
pub mod table;

pub use args::{axes, AllreduceArgs, HEADING};

use schedule::{schedule, Step};

pub const SUITE: &str = "allreduce";

/// The library's MPI_Allreduce and the four classic algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Mpi,
    RecursiveDoubling,
    Ring,
    Rabenseifner,
    Binomial,
}

impl Algorithm {
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Mpi,
        Algorithm::RecursiveDoubling,
        Algorithm::Ring,
        Algorithm::Rabenseifner,
        Algorithm::Binomial,
    ];

    /// The `algorithm` param of rows and the name in `--algorithms`.
    pub fn id(self) -> &'static str {
        match self {
            Algorithm::Mpi => "mpi",
            Algorithm::RecursiveDoubling => "recursive_doubling",
            Algorithm::Ring => "ring",
            Algorithm::Rabenseifner => "rabenseifner",
            Algorithm::Binomial => "binomial",
        }
    }

    pub fn from_id(s: &str) -> Option<Algorithm> {
        let n = s.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        Algorithm::ALL.into_iter().find(|a| a.id() == n)
    }
}

static INFO: Info = Info {
    name: "ALLREDUCE",
    suite: SUITE,
    class: Class::Collective,
    ranks: RankRule::ANY,
    description: "allreduce of n doubles (MPI_SUM): MPI_Allreduce and four point-to-point algorithms",
    elem: Elem::Double,
    axis: Axis::Elems,
    reduction: true,
    variants: &[
        ("mpi", "MPI_Allreduce: the library's own choice"),
        (
            "recursive_doubling",
            "log2 P exchanges of the whole vector (non-powers of two fold the first 2r ranks in pairs)",
        ),
        (
            "ring",
            "reduce-scatter then allgather around a ring: 2(P-1) steps of n/P elements",
        ),
        (
            "rabenseifner",
            "reduce-scatter by recursive halving, allgather by recursive doubling (folded as above)",
        ),
        ("binomial", "binomial-tree reduce to rank 0, then binomial broadcast"),
    ],
    ..Info::DEFAULT
};

pub struct Allreduce;

pub static ALLREDUCE: Allreduce = Allreduce;

fn algorithm_of(p: &Point) -> Algorithm {
    p.str("algorithm")
        .and_then(Algorithm::from_id)
        .unwrap_or(Algorithm::Mpi)
}

fn elems(p: &Point) -> usize {
    p.bytes / 8
}

impl Benchmark for Allreduce {
    fn info(&self) -> &'static Info {
        &INFO
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let algs: Vec<Algorithm> = match cx.axis("algorithm") {
            [] => Algorithm::ALL.to_vec(),
            v => v
                .iter()
                .filter_map(|&i| Algorithm::ALL.get(i as usize).copied())
                .collect(),
        };
        let mut out = Vec::new();
        for &x in cx.sizes.iter().filter(|&&x| x >= 8) {
            for a in &algs {
                out.push(
                    Point::bytes(x / 8 * 8)
                        .with("n", (x / 8) as u64)
                        .with("algorithm", a.id()),
                );
            }
        }
        out
    }

    /// Send, result, temporary and (with --check) reference vectors.
    fn need(&self, p: &Point, _q: usize) -> u64 {
        4 * p.bytes as u64
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        Msg::count_error(Elem::Double, elems(p)).map(|e| format!("ALLREDUCE: {e}"))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let n = elems(p);
        let alg = algorithm_of(p);
        let bytes = 8 * n;
        let bufs = s.arena.take(&[bytes, bytes, bytes])?;
        let [sbuf, rbuf, tmp] = bufs else {
            unreachable!("three buffers")
        };
        let msg = Msg::elems(Elem::Double, n)?;
        let data = Data {
            comm: s.comm,
            n,
            msg,
            sbuf,
            rbuf,
            reference: None,
            library: alg == Algorithm::Mpi,
        };
        if alg == Algorithm::Mpi {
            return Ok(Box::new(Library { d: data }));
        }
        let steps = schedule(alg, s.comm.rank, s.comm.size, n)
            .into_iter()
            .map(Resolved::of)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Box::new(Scheduled {
            d: data,
            tmp,
            steps,
        }))
    }

    fn derive(&self, r: &mut BenchResult) {
        r.figures.best = fastest(r);
    }
}

/// The time of a call: per repetition, the maximum over processes of each
/// one's own elapsed time; its median over the repetitions (with loop
/// timing, the engine's `t_max_us`).
pub fn time(row: &crate::results::Row) -> f64 {
    row.t_median_us.unwrap_or(row.t_max_us)
}

/// Per length: the fastest algorithm, and MPI_Allreduce's time against it.
pub fn fastest(r: &BenchResult) -> Vec<Best> {
    let mut sizes: Vec<usize> = r.rows.iter().map(|x| x.bytes).collect();
    sizes.dedup();
    let mut out = Vec::new();
    for x in sizes {
        let rows: Vec<_> = r
            .rows
            .iter()
            .filter(|w| w.bytes == x && time(w) > 0.0 && w.valid != Some(0))
            .collect();
        let alg = |w: &crate::results::Row| {
            w.params
                .get("algorithm")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        let Some(best) = rows.iter().min_by(|a, b| time(a).total_cmp(&time(b))) else {
            continue;
        };
        let lib = rows.iter().find(|w| alg(w) == Algorithm::Mpi.id());
        let mut at = Params::new();
        at.insert("n".into(), json!(x / 8));
        at.insert("bytes".into(), json!(x));
        out.push(Best {
            at,
            axis: "algorithm".into(),
            winner: alg(best),
            t_us: time(best),
            reference: lib.map(|_| Algorithm::Mpi.id().to_string()),
            reference_us: lib.map(|w| time(w)),
            ratio: lib.map(|w| time(w) / time(best)),
        });
    }
    out
}

/// A step with its messages resolved.
struct Resolved {
    step: Step,
    smsg: Option<Msg>,
    rmsg: Option<Msg>,
}

impl Resolved {
    fn of(step: Step) -> Result<Resolved, crate::comm::Error> {
        let m = |x: Option<schedule::Xfer>| x.map(|x| Msg::elems(Elem::Double, x.len)).transpose();
        Ok(Resolved {
            smsg: m(step.send)?,
            rmsg: m(step.recv)?,
            step,
        })
    }
}

/// The vectors of one point and their validation.
struct Data<'a> {
    comm: &'a Comm,
    n: usize,
    msg: Msg,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    /// MPI_Allreduce's result on the same data (--check, point-to-point algorithms).
    reference: Option<Vec<f64>>,
    library: bool,
}

impl Data<'_> {
    fn prepare(&mut self, rep: usize) {
        let bytes = 8 * self.n;
        let rank = self.comm.rank;
        check::fill(self.sbuf, bytes, Some(Elem::Double), rank, rep, bytes);
        check::poison(self.rbuf, bytes, Some(Elem::Double), rep, bytes);
        if !self.library {
            // Collective: every rank of the group prepares every checked repetition.
            let r = self.reference.get_or_insert_with(|| vec![0.0; self.n]);
            self.comm
                .allreduce(self.sbuf.ptr(), r.as_mut_ptr() as *mut u8, &self.msg);
        }
    }

    fn verify(&mut self, rep: usize) -> u64 {
        let e = Expect::Sum {
            first: 0,
            count: self.n,
        };
        let exact = check::verify(&e, self.rbuf, Elem::Double, self.comm.size, rep, 8 * self.n);
        let got = &self.rbuf.typed::<f64>()[..self.n];
        let unlike = self.reference.as_ref().map_or(0, |r| {
            r.iter()
                .zip(got)
                .filter(|(a, b)| a.to_bits() != b.to_bits())
                .count() as u64
        });
        exact.max(unlike)
    }

    fn corrupt(&mut self) {
        let e = Expect::Sum {
            first: 0,
            count: self.n,
        };
        check::corrupt(&e, self.rbuf, Elem::Double);
    }
}

/// A kernel's validation: that of its vectors (`Data`, field `d`).
macro_rules! data_checks {
    () => {
        fn prepare(&mut self, rep: usize) {
            self.d.prepare(rep);
        }
        fn verify(&mut self, rep: usize) -> u64 {
            self.d.verify(rep)
        }
        fn corrupt(&mut self) {
            self.d.corrupt();
        }
    };
}

/// The library's MPI_Allreduce.
struct Library<'a> {
    d: Data<'a>,
}

impl Kernel for Library<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        let d = &mut self.d;
        d.comm.allreduce(d.sbuf.ptr(), d.rbuf.mut_ptr(), &d.msg);
    }
    data_checks!();
}

/// A point-to-point algorithm: its schedule, run step by step.
struct Scheduled<'a> {
    d: Data<'a>,
    tmp: &'a mut Buffer,
    steps: Vec<Resolved>,
}

const TAG: i32 = 0x52;

impl Kernel for Scheduled<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        let d = &mut self.d;
        let n = d.n;
        // Both buffers hold at least n doubles.
        d.rbuf.bytes_mut()[..8 * n].copy_from_slice(&d.sbuf.bytes()[..8 * n]);
        for r in &self.steps {
            let st = r.step;
            let res = d.rbuf.mut_ptr() as *mut f64;
            let tmp = self.tmp.mut_ptr() as *mut f64;
            let sp = |off: usize| res.wrapping_add(off) as *const u8;
            let rp = |off: usize| {
                if st.combine {
                    tmp as *mut u8
                } else {
                    res.wrapping_add(off) as *mut u8
                }
            };
            match (st.send, &r.smsg, st.recv, &r.rmsg) {
                (Some(s), Some(sm), Some(v), Some(vm)) => {
                    d.comm
                        .sendrecv_msgs(sp(s.off), sm, s.peer, rp(v.off), vm, v.peer, TAG)
                }
                (Some(s), Some(sm), _, _) => d.comm.send(sp(s.off), sm, s.peer, TAG),
                (_, _, Some(v), Some(vm)) => d.comm.recv(rp(v.off), vm, v.peer, TAG),
                _ => {}
            }
            if let (true, Some(v)) = (st.combine, st.recv) {
                // The result holds n doubles with off + len <= n; tmp at least len.
                let dst = &mut d.rbuf.typed_mut::<f64>()[v.off..v.off + v.len];
                let src = &self.tmp.typed::<f64>()[..v.len];
                for (a, b) in dst.iter_mut().zip(src) {
                    *a += *b;
                }
            }
        }
    }
    data_checks!();
}

pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![&ALLREDUCE]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title:
        "ALLREDUCE (ORNL): MPI_Allreduce against recursive doubling, ring, Rabenseifner, binomial",
    entries,
    // The maximum over the processes after a barrier, IMB's repetitions.
    defaults: Defaults {
        method: Method::MaxOverProcesses,
        sizes: "3:27",
        procs: ProcSweep::World,
        ..Suite::PLAIN.defaults
    },
    axes: Some(axes),
    formats: &[(SUITE, &table::Allreduce)],
    help: SuiteHelp {
        heading: Some(HEADING),
        own: None,
        example: "mpibench run -n 4 --suite allreduce --algorithms mpi,ring --sizes 8,64K",
    },
    front: None,
    options: Some(crate::cli::OptionsHook::of::<AllreduceArgs>()),
    ..Suite::PLAIN
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::axis::Axes;

    #[test]
    fn points_pair_every_length_with_every_algorithm() {
        let axes = Axes::new();
        let cx = SweepCx {
            sizes: &[0, 8, 16],
            axes: &axes,
            q: 3,
        };
        let pts = ALLREDUCE.points(&cx);
        assert_eq!(pts.len(), 10);
        assert_eq!(pts[0].u64("n"), Some(1));
        assert_eq!(pts[0].str("algorithm"), Some("mpi"));
        assert_eq!(pts[9].u64("n"), Some(2));
        assert_eq!(pts[9].str("algorithm"), Some("binomial"));
        let mut axes = Axes::new();
        axes.insert("algorithm".into(), vec![2.0]);
        let cx = SweepCx {
            sizes: &[8],
            axes: &axes,
            q: 3,
        };
        assert_eq!(ALLREDUCE.points(&cx)[0].str("algorithm"), Some("ring"));
    }

    #[test]
    fn the_fastest_per_length_and_the_library_against_it() {
        use crate::report::table::fixtures::{result, row};
        let mut rows = Vec::new();
        for (n, times) in [
            (1u64, [5.0, 3.0, 6.0, 7.0, 4.0]),
            (1024, [50.0, 60.0, 40.0, 45.0, 90.0]),
        ] {
            for (a, t) in Algorithm::ALL.iter().zip(times) {
                let mut r = row(8 * n as usize, t);
                r.params.insert("n".into(), json!(n));
                r.params.insert("algorithm".into(), json!(a.id()));
                rows.push(r);
            }
        }
        let r = result("ALLREDUCE", SUITE, "collective", 4, rows);
        let b = fastest(&r);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].winner, "recursive_doubling");
        assert!((b[0].ratio.unwrap() - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(b[1].winner, "ring");
        assert_eq!(b[1].at["n"], 1024);
    }
}
