//! COMMTEST's inputs by name (the seed lists them: total message size,
//! minimum packet length, number of iterations, communication protocols,
//! SWAP or SENDRECV, distance between communicating nodes, all nodes or
//! node zero and its partners):
//!
//! ```text
//! mpirun -np 4 mpibench commtest size=2M min=2K iterations=20 protocols=(0,3),(1,0) swap distance=1 all
//! ```
//!
//! NAME=VALUE pairs and single words, in any order, names case-insensitive;
//! mpibench options (`-n`, `--json`, `--check`, `--stats`, ...) may be mixed in.

use crate::bench::commtest::{self, protocol, Pairs, Prepost};
use crate::cli::RunArgs;
use crate::units::parse_size;

pub const HELP: &str = "COMMTEST inputs (NAME=VALUE or a word, any order):
  size=V        total message size V per experiment, e.g. 2M (default 2M; alias volume=)
  min=M         minimum packet length: V goes as 1, 2, 4, ... packets of at least M bytes
                (default 2K; alias minpacket=); V must be a multiple of M
  iterations=N  experiments per packet count (default 20; alias iter=)
  protocols=L   (i,j) codes, e.g. (0,3),(1,0), or all, unordered, ordered (default all 21)
  swap | sendrecv | both
                SWAP: r exchanges with r XOR d; SENDRECV: r sends to r+d, receives from r-d
                (default both)
  distance=D    partner distance d, 1 <= d < P (default 1)
  all | zero    all pairs (cycles) at once, or node zero and its partners only (default all)
  prepost | prepost=both
                the second program: receives preposted one message ahead (default: the first)
  loggp         also measure LogGP (L, o_s, o_r, g, G) between rank 0 and rank d
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats, -q.
Example: mpirun -np 4 mpibench commtest size=2M min=2K iterations=20 protocols=(0,3),(1,0) swap distance=1 all";

/// The inputs as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// The names as typed of size=, min=, iterations= (e.g. volume, minpacket, iter).
    pub typed: [String; 3],
    pub size: usize,
    pub min: usize,
    pub iterations: usize,
    pub protocols: Option<protocol::Codes>,
    pub swap: bool,
    pub sendrecv: bool,
    pub distance: usize,
    pub zero: bool,
    pub prepost: Prepost,
    pub loggp: bool,
}

impl Default for Inputs {
    fn default() -> Inputs {
        Inputs {
            typed: ["size".into(), "min".into(), "iterations".into()],
            size: commtest::DEFAULT_VOLUME,
            min: commtest::DEFAULT_MIN_PACKET,
            iterations: 20,
            protocols: None,
            swap: true,
            sendrecv: true,
            distance: commtest::DEFAULT_DISTANCE,
            zero: false,
            prepost: Prepost::Off,
            loggp: false,
        }
    }
}

fn count(name: &str, v: &str) -> Result<usize, String> {
    v.parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{name}= needs a positive integer, not '{v}'"))
}

impl Inputs {
    pub fn parse(tokens: &[String]) -> Result<Inputs, String> {
        let mut p = Inputs::default();
        let mut pattern: Option<(bool, bool)> = None;
        for tok in tokens {
            let (typed, value) = match tok.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (tok.as_str(), None),
            };
            let name = typed.to_ascii_lowercase();
            // A size as typed: one line naming the input, never 0.
            let bytes = |v: &str| -> Result<usize, String> {
                match parse_size(v) {
                    Ok(0) => Err(format!("{typed}={v}: must be at least 1 byte")),
                    Ok(n) => Ok(n),
                    Err(e) => Err(format!("{typed}={v}: {e}")),
                }
            };
            match (name.as_str(), value) {
                ("size" | "volume", Some(v)) => {
                    p.size = bytes(v)?;
                    p.typed[0] = typed.to_string();
                }
                ("min" | "minpacket" | "min_packet", Some(v)) => {
                    p.min = bytes(v)?;
                    p.typed[1] = typed.to_string();
                }
                ("iterations" | "iter", Some(v)) => {
                    p.iterations = count(typed, v)?;
                    p.typed[2] = typed.to_string();
                }
                ("protocols", Some(v)) => p.protocols = Some(protocol::parse_list(v)?),
                ("distance", Some(v)) => p.distance = count(typed, v)?,
                ("prepost", Some(v)) => {
                    p.prepost = match v.to_ascii_lowercase().as_str() {
                        "on" | "yes" => Prepost::On,
                        "off" | "no" => Prepost::Off,
                        "both" => Prepost::Both,
                        _ => return Err(format!("prepost= takes on, off or both, not '{v}'")),
                    }
                }
                ("prepost", None) => p.prepost = Prepost::On,
                ("swap", None) => pattern = Some((true, pattern.is_some_and(|x| x.1))),
                ("sendrecv", None) => pattern = Some((pattern.is_some_and(|x| x.0), true)),
                ("both", None) => pattern = Some((true, true)),
                ("all", None) => p.zero = false,
                ("zero", None) => p.zero = true,
                ("loggp", None) => p.loggp = true,
                (n, Some(_)) => {
                    return Err(format!(
                        "unknown COMMTEST input '{n}=' (known: size, min, iterations, protocols, distance, prepost; see mpibench commtest --help)"
                    ))
                }
                (n, None) => {
                    return Err(format!(
                        "unknown COMMTEST input '{n}' (known words: swap, sendrecv, both, all, zero, prepost, loggp; see mpibench commtest --help)"
                    ))
                }
            }
        }
        if let Some((s, r)) = pattern {
            p.swap = s;
            p.sendrecv = r;
        }
        Ok(p)
    }

    /// The inputs as one line for the table header.
    pub fn line(&self) -> String {
        let protocols = self.protocols.as_ref().map_or("all".to_string(), |c| {
            c.0.iter()
                .filter_map(|&n| protocol::by_number(n))
                .map(|p| p.code())
                .collect::<Vec<_>>()
                .join(",")
        });
        let pattern = match (self.swap, self.sendrecv) {
            (true, true) => "both",
            (true, false) => "swap",
            _ => "sendrecv",
        };
        let prepost = match self.prepost {
            Prepost::Off => "",
            Prepost::On => " prepost",
            Prepost::Both => " prepost=both",
        };
        format!(
            "size={} min={} iterations={} protocols={protocols} {pattern} distance={} {}{prepost}{}",
            self.size,
            self.min,
            self.iterations,
            self.distance,
            if self.zero { "zero" } else { "all" },
            if self.loggp { " loggp" } else { "" }
        )
    }
}

/// The run that COMMTEST's inputs ask for.
pub fn parse(params: &[String]) -> Result<RunArgs, String> {
    let (own, opts) = crate::frontend::split_options(params);
    let p = Inputs::parse(&own)?;
    let mut args = crate::frontend::parse_options(&opts)?;
    args.suite = Some(commtest::SUITE.to_string());
    let mut names = Vec::new();
    if p.swap {
        names.push("SWAP".to_string());
    }
    if p.sendrecv {
        names.push("SENDRECV".to_string());
    }
    if p.loggp {
        names.push("loggp".to_string());
    }
    args.benchmarks = names;
    args.knobs.volume = Some(p.size);
    args.reps.iter = Some(p.iterations);
    let c = args
        .suites
        .get_mut::<crate::bench::commtest::CommtestArgs>();
    c.min_packet = Some(p.min);
    c.protocols = p.protocols.clone();
    c.distance = Some(p.distance);
    c.communicating = Some(if p.zero { Pairs::Zero } else { Pairs::All });
    c.prepost = Some(p.prepost);
    args.front.frontend = Some(p.line());
    // Errors name the inputs as typed (min=1, not --min-packet 1).
    let [size, min, iterations] = &p.typed;
    for (ours, theirs, v) in [
        ("--volume", size, p.size),
        ("--min-packet", min, p.min),
        ("--iter", iterations, p.iterations),
        ("--distance", &"distance".to_string(), p.distance),
    ] {
        crate::frontend::spelled(&mut args, format!("{ours} {v}"), format!("{theirs}={v}"));
        crate::frontend::spelled(&mut args, ours, format!("{theirs}="));
    }
    Ok(args)
}

/// This front end for `mpibench commtest`.
pub const FRONTEND: crate::frontend::FrontEnd = crate::frontend::FrontEnd {
    subcommand: "commtest",
    listed: Some(&crate::frontend::Listed {
        about: "COMMTEST's inputs by name: mpibench commtest volume=2M minpacket=2K iterations=20 protocols=all swap distance=1 all",
        order: 21,
        value_name: "INPUT",
        arg_help: "COMMTEST inputs (NAME=VALUE and words) and mpibench options (-n, --json, --check, ...)",
        after_help: HELP,
    }),
    usage: "mpibench commtest [INPUT]...",
    help: HELP,
    parse,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_seeds_inputs_by_name() {
        let a = parse(&v(
            "size=2M min=2K iterations=5 protocols=(0,3),(1,0) swap distance=2 zero",
        ))
        .unwrap();
        assert_eq!(a.suite.as_deref(), Some("commtest"));
        assert_eq!(a.benchmarks, vec!["SWAP"]);
        assert_eq!(a.knobs.volume, Some(2 << 20));
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .min_packet,
            Some(2048)
        );
        assert_eq!(a.reps.iter, Some(5));
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .protocols
                .clone()
                .unwrap()
                .0,
            vec![3, 100]
        );
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .distance,
            Some(2)
        );
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .communicating,
            Some(Pairs::Zero)
        );
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .prepost,
            Some(Prepost::Off)
        );
        assert_eq!(
            a.front.frontend.as_deref(),
            Some("size=2097152 min=2048 iterations=5 protocols=(0,3),(1,0) swap distance=2 zero")
        );
    }

    #[test]
    fn defaults_words_and_options() {
        let a = parse(&v(
            "-n 3 SendRecv prepost=both --json r.json Volume=64K loggp --check",
        ))
        .unwrap();
        assert_eq!(a.launch.np, Some(3));
        assert!(a.check);
        assert_eq!(a.out.json.as_deref(), Some(std::path::Path::new("r.json")));
        assert_eq!(a.benchmarks, vec!["SENDRECV", "loggp"]);
        assert_eq!(a.knobs.volume, Some(64 << 10));
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .prepost,
            Some(Prepost::Both)
        );
        let a = parse(&[]).unwrap();
        assert_eq!(a.benchmarks, vec!["SWAP", "SENDRECV"]);
        assert_eq!(a.knobs.volume, Some(2 << 20));
        assert_eq!(a.reps.iter, Some(20));
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .communicating,
            Some(Pairs::All)
        );
        let a = parse(&v("swap sendrecv prepost")).unwrap();
        assert_eq!(a.benchmarks, vec!["SWAP", "SENDRECV"]);
        assert_eq!(
            a.suites
                .get::<crate::bench::commtest::CommtestArgs>()
                .prepost,
            Some(Prepost::On)
        );
    }

    #[test]
    fn plan_errors_name_the_inputs_as_typed() {
        let plan = |s: &str| {
            crate::plan::Plan::build(&parse(&v(s)).unwrap(), vec![], 2, 2)
                .unwrap_err()
                .to_string()
        };
        let e = plan("volume=64M minpacket=1");
        assert!(e.starts_with("minpacket=1: "), "{e}");
        assert!(e.contains("67108864 packets") && !e.contains("--"), "{e}");
        let e = plan("distance=3");
        assert!(e.starts_with("distance=3 must be at least 1"), "{e}");
    }

    #[test]
    fn bad_inputs_are_one_line_errors() {
        for (args, want) in [
            ("size=abc", "invalid message size"),
            ("volume=0", "volume=0: must be at least 1 byte"),
            ("MinPacket=0", "MinPacket=0: must be at least 1 byte"),
            ("iter=0", "iter= needs a positive integer"),
            ("iterations=0", "positive integer"),
            ("protocols=(2,0)", "unknown protocol code"),
            ("prepost=maybe", "on, off or both"),
            ("colour=red", "unknown COMMTEST input 'colour='"),
            ("sideways", "unknown COMMTEST input 'sideways'"),
            ("--nosuch", "unexpected argument"),
        ] {
            let e = parse(&v(args)).unwrap_err();
            assert!(e.contains(want), "{args}: {e}");
            assert!(!e.contains('\n'), "{args}: {e}");
        }
    }
}
