//! COMMTEST's options of `mpibench run` and their plan axes (the
//! suite-argument layer: the benchmarks import nothing of the command line
//! or the plan).

use super::{
    protocol, Pairs, Prepost, DEFAULT_DISTANCE, DEFAULT_MIN_PACKET, DEFAULT_VOLUME, MAX_PACKETS,
    VOLUME,
};
use crate::cli::{PairsArg, RunArgs};
use crate::contract::axis::Axes;

fn parse_bytes(s: &str) -> Result<usize, String> {
    if s.trim().starts_with('-') {
        return Err(format!(
            "'{s}' is negative: the minimum packet is a size of at least 1 byte (e.g. 64, 2K)"
        ));
    }
    crate::units::parse_size(s).map_err(|e| e.to_string())
}

pub const HEADING: &str = "COMMTEST (--suite commtest)";

/// COMMTEST's options on `mpibench run` (the volume V is `--volume`, or
/// several with `--sizes`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommtestArgs {
    /// The minimum packet length: V goes as 1, 2, 4, ... packets down to it (default 2K).
    #[arg(long, help_heading = HEADING, value_name = "BYTES", allow_negative_numbers = true, value_parser = parse_bytes)]
    pub min_packet: Option<usize>,

    /// The prepost program (receives posted one message ahead): --prepost, --prepost=both, --prepost=off (default off).
    #[arg(
        long,
        help_heading = HEADING,
        value_enum,
        value_name = "WHICH",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "on"
    )]
    pub prepost: Option<Prepost>,

    /// Partner distance d: SWAP pairs r with r XOR d; SENDRECV sends to r+d, receives from r-d; loggp's partner (default 1).
    #[arg(long, help_heading = HEADING, value_name = "D", allow_negative_numbers = true, value_parser = crate::cli::at_least_0)]
    pub distance: Option<usize>,

    /// Whether all nodes are communicating (every pair or cycle at once) or just node zero and its partners (default all).
    #[arg(long, help_heading = HEADING, value_enum, value_name = "WHO")]
    pub communicating: Option<Pairs>,

    /// Protocols, e.g. "(0,3),(1,0)", "0.3,1.10", "unordered", "ordered" (default all 21).
    #[arg(long, help_heading = HEADING, value_name = "LIST", value_parser = protocol::parse_list)]
    pub protocols: Option<protocol::Codes>,
}

impl CommtestArgs {
    /// The first option given, as its flag.
    fn given(&self) -> Option<&'static str> {
        [
            ("--min-packet", self.min_packet.is_some()),
            ("--prepost", self.prepost.is_some()),
            ("--distance", self.distance.is_some()),
            ("--communicating", self.communicating.is_some()),
            ("--protocols", self.protocols.is_some()),
        ]
        .into_iter()
        .find_map(|(f, g)| g.then_some(f))
    }
}

/// COMMTEST's communicating nodes, where `--pairs` names them.
fn communicating(p: PairsArg) -> Option<Pairs> {
    match p {
        PairsArg::All => Some(Pairs::All),
        PairsArg::Zero => Some(Pairs::Zero),
        _ => None,
    }
}

/// The plan's COMMTEST axes from the command line (`Suite::axes`), validated
/// for a world of `world` ranks; the options are refused for other suites.
/// The volumes are `--volume`, else `--sizes`/`--msglog`, else 2 MiB.
pub fn axes(args: &RunArgs, involved: bool, world: usize, mem: u64) -> Result<Axes, String> {
    let c = &*args.suites.get::<crate::bench::commtest::CommtestArgs>();
    let pairs_word = communicating(args.pairs).map(|_| "--pairs all|zero");
    if !involved {
        return match c.given().or(pairs_word) {
            Some(flag) => Err(format!(
                "{flag} is a COMMTEST option: use it with --suite commtest"
            )),
            None => Ok(Axes::new()),
        };
    }
    let communicating = match (c.communicating, communicating(args.pairs)) {
        (Some(a), Some(b)) if a != b => {
            return Err(
                "--communicating and --pairs name different communicating nodes: use one".into(),
            )
        }
        (a, b) => a.or(b),
    };
    if world < 2 {
        return Err(format!(
            "COMMTEST's SWAP, SENDRECV and loggp need at least 2 processes (a partner or a cycle of distinct ranks), this run has {world}"
        ));
    }
    // With --volume, --sizes and --msglog are left to the other suites'
    // benchmarks of the run (e.g. imb/PingPong beside commtest/SWAP).
    let volumes = match (args.knobs.volume, &args.sweep.sizes, &args.sweep.msglog) {
        (Some(v), _, _) => vec![v],
        (None, Some(l), _) => crate::units::parse_sizes(l).map_err(|e| e.to_string())?,
        (None, None, Some(m)) => crate::plan::parse_msglog(m).map_err(|e| e.to_string())?,
        (None, None, None) => vec![DEFAULT_VOLUME],
    };
    let min = c.min_packet.unwrap_or(DEFAULT_MIN_PACKET);
    if min == 0 {
        return Err("--min-packet must be at least 1 byte".into());
    }
    if volumes.contains(&0) {
        return Err("a COMMTEST volume must be at least 1 byte (--msglog includes 0: use --volume or --sizes)".into());
    }
    if let Some(&v) = volumes.iter().find(|&&v| 2 * v as u64 > mem) {
        // A bare `--volume` is MiB; the front end's size= is not.
        let bare = if args.front.frontend.is_some() {
            ""
        } else {
            "; a bare --volume is MiB"
        };
        return Err(format!(
            "the volume {v} bytes needs {} bytes per rank (send and receive), above the memory limit of {mem} bytes (--mem{bare})",
            2 * v as u64
        ));
    }
    // The sweep ends at V / min packets per experiment: bounded up front.
    if let Some(&v) = volumes.iter().find(|&&v| v / min > MAX_PACKETS) {
        return Err(format!(
            "--min-packet {min}: the volume {v} bytes in packets down to {min} bytes is {} packets per experiment, above the limit of {MAX_PACKETS}; use a minimum packet of at least {} bytes",
            v / min,
            v.div_ceil(MAX_PACKETS)
        ));
    }
    if let Some(&v) = volumes.iter().find(|&&v| v % min != 0) {
        return Err(format!(
            "the volume {v} bytes is not a multiple of the minimum packet length {min} bytes"
        ));
    }
    let d = c.distance.unwrap_or(DEFAULT_DISTANCE);
    if d == 0 || d >= world {
        return Err(format!(
            "--distance {d} must be at least 1 and smaller than the {world} processes of this run"
        ));
    }
    let mut a = Axes::new();
    a.insert(VOLUME.into(), volumes.iter().map(|&v| v as f64).collect());
    a.insert("min_packet".into(), vec![min as f64]);
    a.insert("distance".into(), vec![d as f64]);
    a.insert(
        "pairs_zero".into(),
        vec![f64::from(u8::from(communicating == Some(Pairs::Zero)))],
    );
    let prepost = match c.prepost.unwrap_or(Prepost::Off) {
        Prepost::Off => vec![0.0],
        Prepost::On => vec![1.0],
        Prepost::Both => vec![0.0, 1.0],
    };
    a.insert("prepost".into(), prepost);
    if let Some(codes) = &c.protocols {
        a.insert(
            "protocol".into(),
            codes.0.iter().map(|&x| f64::from(x)).collect(),
        );
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_args(line: &str) -> RunArgs {
        use clap::Parser;
        let v = ["mpibench", "run"]
            .into_iter()
            .chain(line.split_whitespace());
        match crate::cli::Cli::try_parse_from(v) {
            Ok(crate::cli::Cli {
                command: crate::cli::Command::Run(a),
            }) => *a,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn options_become_axes_and_bad_ones_one_line_errors() {
        let a = run_args("--suite commtest --volume 64K --min-packet 1K --distance 2 --communicating zero --prepost=both --protocols (0,3),(1,10)");
        let x = axes(&a, true, 4, 1 << 30).unwrap();
        assert_eq!(x["volume"], vec![65536.0]);
        assert_eq!(x["min_packet"], vec![1024.0]);
        assert_eq!(x["distance"], vec![2.0]);
        assert_eq!(x["pairs_zero"], vec![1.0]);
        assert_eq!(x["prepost"], vec![0.0, 1.0]);
        assert_eq!(x["protocol"], vec![3.0, 110.0]);
        // A bare --volume is MiB (IMB's unit); --sizes gives several volumes.
        let x = axes(&run_args("--volume 2"), true, 2, 1 << 30).unwrap();
        assert_eq!(x["volume"], vec![(2 << 20) as f64]);
        let x = axes(&run_args("--sizes 4K,8K"), true, 2, 1 << 30).unwrap();
        assert_eq!(x["volume"], vec![4096.0, 8192.0]);
        let x = axes(&run_args("--volume 4K --sizes 8,3K"), true, 2, 1 << 30).unwrap();
        assert_eq!(x["volume"], vec![4096.0]);
        for (line, world, want) in [
            (
                "--volume 3K",
                4,
                "not a multiple of the minimum packet length 2048",
            ),
            ("--volume 4K --min-packet 0", 4, "at least 1 byte"),
            ("--distance 4", 4, "smaller than the 4 processes"),
            ("--distance 0", 4, "at least 1"),
            ("", 1, "at least 2 processes"),
            ("--msglog 2:4", 2, "--msglog includes 0"),
            ("--volume 1024", 2, "above the memory limit"),
            (
                "--volume 64M --min-packet 1",
                2,
                "--min-packet 1: the volume 67108864 bytes in packets down to 1 bytes is 67108864 packets per experiment, above the limit of 65536; use a minimum packet of at least 1024 bytes",
            ),
        ] {
            let e = axes(&run_args(line), true, world, 1 << 30).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
            assert!(!e.contains('\n'));
        }
        // Other suites refuse COMMTEST's options, and ignore --volume (IMB's).
        let e = axes(&run_args("--distance 2"), false, 4, 1 << 30).unwrap_err();
        assert!(e.contains("--distance is a COMMTEST option"), "{e}");
        assert!(axes(&run_args("--volume 2"), false, 4, 1 << 30)
            .unwrap()
            .is_empty());
    }
}
