//! The coarray suite's own options of `mpibench run` and their plan axes
//! (the suite-argument layer: the benchmarks import nothing of the command
//! line).

use clap::Args;

use super::{halo, PingPongKind, SyncKind, MAX_NDATA};
use crate::cli::RunArgs;
use crate::contract::axis::Axes;

/// The heading of the suite's options in `mpibench run -h`.
pub const HEADING: &str = "coarray (--suite caf)";

/// The coarray suite's own options of `mpibench run` (and `mpibench cafbench`).
#[derive(Debug, Clone, Args, Default)]
pub struct CafArgs {
    /// Coarray ping-pongs: single, multiple, crossing (comma-separated; default: all that the process count allows).
    #[arg(long, help_heading = HEADING, value_enum, value_delimiter = ',', value_name = "KINDS")]
    pub pingpong: Vec<PingPongKind>,

    /// Coarray synchronisation of ping-pongs and halo swaps: global (sync all), p2p (sync images) (default both).
    #[arg(long, help_heading = HEADING, value_enum, value_delimiter = ',', value_name = "KINDS")]
    pub sync_kind: Vec<SyncKind>,

    /// Edge n of the halo swap's n^3 arrays of doubles per rank (default 10,50,100,150).
    #[arg(
        long,
        help_heading = HEADING,
        value_delimiter = ',',
        value_name = "LIST",
        allow_negative_numbers = true
    )]
    pub halo_sizes: Vec<i64>,

    /// Largest ndata of the point-to-point sweeps in doubles, the coarray's size (default 65536 = 512 KiB).
    #[arg(long, help_heading = HEADING, value_name = "N", allow_negative_numbers = true)]
    pub max_ndata: Option<i64>,

    /// Largest stride of the strided sweeps, halved down to 1 (default 128).
    #[arg(long, help_heading = HEADING, value_name = "S", allow_negative_numbers = true)]
    pub max_stride: Option<i64>,
}

/// The suite's settings as plan axes (`Suite::axes`): validated on rank 0,
/// one line per usage error.
pub fn axes(args: &RunArgs, involved: bool, world: usize, mem: u64) -> Result<Axes, String> {
    // Ranges hold whatever the suite (a value out of range is a slip even
    // when no caf benchmark runs).
    if let Some(n) = args
        .suites
        .get::<crate::bench::caf::CafArgs>()
        .max_ndata
        .filter(|n| !(2..=1 << 28).contains(n))
    {
        return Err(format!("--max-ndata {n}: must be from 2 to 2^28 (doubles)"));
    }
    if let Some(d) = args
        .reps
        .delay_us
        .filter(|d| !(d.is_finite() && (0.0..=1e6).contains(d)))
    {
        return Err(format!(
            "--delay-us must be a number of microseconds from 0 to 1000000, not {d}"
        ));
    }
    if !involved {
        return Ok(Axes::new());
    }
    let c = &*args.suites.get::<crate::bench::caf::CafArgs>();
    let mut a = Axes::new();
    for k in &c.pingpong {
        if let Some(why) = k.refuse(world) {
            return Err(why);
        }
    }
    let code = |v: usize| v as f64;
    let mut lists: Vec<(&str, Vec<f64>)> = vec![
        (
            "caf_pingpong",
            c.pingpong.iter().map(|&k| code(k as usize)).collect(),
        ),
        (
            "caf_sync",
            c.sync_kind.iter().map(|&k| code(k as usize)).collect(),
        ),
        (
            "window",
            args.rma.window.iter().map(|&w| code(w as usize)).collect(),
        ),
        (
            "rma_sync",
            args.rma
                .rma_sync
                .iter()
                .map(|&s| code(s as usize))
                .collect(),
        ),
    ];
    for (k, v) in lists.drain(..) {
        // First occurrences, in the order given.
        let mut u: Vec<f64> = Vec::new();
        for x in v {
            if !u.contains(&x) {
                u.push(x);
            }
        }
        if !u.is_empty() {
            a.insert(k.into(), u);
        }
    }
    if let Some(s) = c.max_stride {
        if s < 1 {
            return Err(format!("--max-stride {s}: the stride must be at least 1"));
        }
        a.insert("max_stride".into(), vec![s as f64]);
    }
    if let Some(n) = c.max_ndata {
        if !(2..=1 << 28).contains(&n) {
            return Err(format!("--max-ndata {n}: must be from 2 to 2^28 (doubles)"));
        }
        a.insert("max_ndata".into(), vec![n as f64]);
    }
    let ndata = c.max_ndata.map_or(MAX_NDATA, |n| n as usize);
    if let Some(stride) = c.max_stride.map(|s| s as usize).filter(|&s| s > ndata) {
        return Err(format!(
            "the largest stride ({stride}) exceeds the largest ndata ({ndata}): the strided sweeps need ndata/stride >= 1 elements"
        ));
    }
    if !c.halo_sizes.is_empty() {
        let mut v = Vec::new();
        for &n in &c.halo_sizes {
            if !(1..=100_000).contains(&n) {
                return Err(format!(
                    "--halo-sizes: {n} is not a cube edge from 1 to 100000"
                ));
            }
            let need = halo::bytes(n as usize);
            if need > mem {
                return Err(format!(
                    "--halo-sizes: n = {n} needs {need} bytes per rank for its ({n}+2)^3 doubles, above the memory limit of {mem} bytes (--mem)"
                ));
            }
            v.push(n as f64);
        }
        a.insert("halo_n".into(), v);
    }
    if let Some(d) = args.reps.delay_us {
        if !(d.is_finite() && (0.0..=1e6).contains(&d)) {
            return Err(format!(
                "--delay-us must be a number of microseconds from 0 to 1000000, not {d}"
            ));
        }
        a.insert("delay_us".into(), vec![d]);
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::caf::*;
    use crate::comm::rma::{RmaSync, WindowKind};
    use crate::contract::axis::SweepCx;

    fn args(v: &[&str]) -> RunArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct A {
            #[command(flatten)]
            run: RunArgs,
        }
        let mut all = vec!["x"];
        all.extend_from_slice(v);
        A::try_parse_from(all).unwrap().run
    }

    #[test]
    fn options_become_axes_and_bad_ones_are_refused() {
        let a = axes(
            &args(&[
                "--pingpong",
                "single,multiple",
                "--sync-kind",
                "p2p",
                "--window",
                "dynamic",
                "--rma-sync",
                "pscw",
                "--halo-sizes",
                "10,20",
                "--delay-us",
                "5",
            ]),
            true,
            4,
            1 << 30,
        )
        .unwrap();
        let cx = SweepCx {
            sizes: &[0],
            axes: &a,
            q: 4,
        };
        let s = Settings::of(&cx);
        assert_eq!(s.kinds, vec![PingPongKind::Single, PingPongKind::Multiple]);
        assert_eq!(s.syncs, vec![SyncKind::P2p]);
        assert_eq!(s.combos(), vec![(WindowKind::Dynamic, RmaSync::Pscw)]);
        assert_eq!(s.halo, vec![10, 20]);
        assert_eq!(s.delay_us, 5.0);
        // Defaults without axes.
        let none = Axes::new();
        let d = Settings::of(&SweepCx {
            sizes: &[0],
            axes: &none,
            q: 2,
        });
        assert_eq!(d.kinds.len(), 3);
        assert_eq!(d.halo, HALO_SIZES.to_vec());
        assert_eq!((d.max_ndata, d.max_stride), (MAX_NDATA, MAX_STRIDE));
        assert_eq!(d.combos(), vec![(WindowKind::Create, RmaSync::Lockall)]);
        let m = axes(
            &args(&[
                "--window",
                "create,allocate",
                "--rma-sync",
                "fence,pscw,fence",
            ]),
            true,
            2,
            1 << 30,
        )
        .unwrap();
        let m = Settings::of(&SweepCx {
            sizes: &[0],
            axes: &m,
            q: 2,
        });
        assert_eq!(m.combos().len(), 2 * 2);
        assert_eq!(m.combos()[2], (WindowKind::Allocate, RmaSync::Fence));

        for (v, want) in [
            (vec!["--pingpong", "multiple"], "even number"),
            (vec!["--pingpong", "crossing"], "even number"),
            (vec!["--max-stride", "0"], "at least 1"),
            (vec!["--max-stride", "-3"], "at least 1"),
            (vec!["--max-ndata", "1"], "from 2"),
            (vec!["--halo-sizes", "0"], "cube edge"),
            (vec!["--halo-sizes", "400"], "--mem"),
            (vec!["--delay-us", "-1"], "--delay-us"),
            (vec!["--max-stride", "256", "--max-ndata", "128"], "exceeds"),
        ] {
            let e = axes(&args(&v), true, 3, 64 << 20).unwrap_err();
            assert!(e.contains(want), "{v:?}: {e}");
            assert!(!e.contains('\n'));
        }
        assert!(PingPongKind::Single.refuse(3).is_none());
        assert!(PingPongKind::Multiple.refuse(4).is_none());
        assert!(PingPongKind::Multiple.refuse(2).is_some());
    }
}
