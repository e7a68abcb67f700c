//! The imb suite's own options of `mpibench run` as plan axes (the
//! suite-argument layer: the benchmarks import nothing of the command line).

use super::{default_window, patterns};
use crate::cli::RunArgs;
use crate::contract::axis::Axes;

/// The suite's options as plan axes: the window of Uniband and Biband
/// (`--imb-window`, IMB `-window_size`; default by `--definitions`).
pub fn axes(args: &RunArgs, involved: bool, _world: usize, _mem: u64) -> Result<Axes, String> {
    let mut a = Axes::new();
    match (args.knobs.imb_window, involved) {
        (Some(_), false) => {
            return Err(
                "--imb-window is the window of the imb suite's Uniband and Biband: use it with --suite imb"
                    .into(),
            )
        }
        (w, true) => {
            let w = w.unwrap_or_else(|| default_window(args.knobs.definitions.unwrap_or_default()));
            a.insert(patterns::WINDOW_AXIS.into(), vec![w as f64]);
        }
        (None, false) => {}
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb::find;

    #[test]
    fn the_window_follows_the_definitions_or_window_size() {
        use crate::cli::{Cli, Command};
        use crate::contract::axis::SweepCx;
        use clap::Parser;
        let args = |extra: &[&str]| {
            let mut v = vec!["mpibench", "run"];
            v.extend_from_slice(extra);
            match Cli::try_parse_from(v).unwrap().command {
                Command::Run(a) => *a,
                _ => unreachable!(),
            }
        };
        let window = |a: &RunArgs| {
            let axes = axes(a, true, 2, 1 << 30).unwrap();
            let cx = SweepCx {
                sizes: &[0, 8],
                axes: &axes,
                q: 2,
            };
            let pts = find("Biband").unwrap().points(&cx);
            assert_eq!(pts.len(), 2);
            pts[1].u64("window").unwrap()
        };
        assert_eq!(window(&args(&["--definitions", "imb2021"])), 256);
        assert_eq!(window(&args(&[])), 64);
        assert_eq!(window(&args(&["--definitions", "pmb"])), 64);
        assert_eq!(window(&args(&["--imb-window", "16"])), 16);
        // Only with the imb suite; bad values are clap's one-line errors.
        let e = axes(&args(&["--imb-window", "16"]), false, 2, 1 << 30).unwrap_err();
        assert!(e.contains("--suite imb"), "{e}");
        for bad in ["0", "-1", "x", "1048577"] {
            let e = Cli::try_parse_from(["mpibench", "run", "--imb-window", bad]).unwrap_err();
            assert!(e.to_string().contains("1 to 1048576"), "{bad}: {e}");
        }
    }
}
