//! cafbench's command line: the executable "runs stand-alone without any
//! flags or input files" (seed, "Execution"), so `mpibench cafbench` runs
//! the three sections (point-to-point, synchronisation, 3-D halo swaps)
//! with the seed's defaults and prints cafbench's section headers. mpibench
//! options may follow (`-n`, `--json`, `--check`, `--window`, `--rma-sync`,
//! `--pingpong`, `--halo-sizes`, ...).

use crate::cli::RunArgs;

pub const HELP: &str =
    "cafbench runs stand-alone without flags: the point-to-point, synchronisation and
3-D halo swap sections with the seed's defaults (ping-pongs up to 64 Ki doubles, strides
128 .. 1, target time 0.5 s; sync overheads 100 x 200 with a 10 us delay; halos n = 10, 50,
100, 150). mpibench options may follow: -n N (self-launch), --json FILE, --csv FILE,
--check, --window create|allocate|dynamic, --rma-sync lockall|fence|pscw,
--pingpong single,multiple,crossing, --sync-kind global,p2p, --halo-sizes LIST,
--delay-us US, --outer N, --inner N, --precision R, -q.
Example: mpiexec -n 4 mpibench cafbench";

/// The run that `mpibench cafbench [options]` asks for.
pub fn parse(params: &[String]) -> Result<RunArgs, String> {
    let (own, opts) = crate::frontend::split_options(params);
    if let Some(x) = own.first() {
        return Err(format!(
            "cafbench takes no parameters, not '{x}' (it runs stand-alone; mpibench options may follow, see mpibench cafbench --help)"
        ));
    }
    let mut args = crate::frontend::parse_options(&opts)?;
    args.suite = Some(super::SUITE.to_string());
    args.front.frontend = Some("cafbench".to_string());
    Ok(args)
}

/// This front end for `mpibench cafbench`.
pub const FRONTEND: crate::frontend::FrontEnd = crate::frontend::FrontEnd {
    subcommand: "cafbench",
    listed: Some(&crate::frontend::Listed {
        about: "The EPCC coarray suite as cafbench runs it, stand-alone without flags: point-to-point, synchronisation and 3-D halo swaps (mpibench options may follow)",
        order: 15,
        value_name: "OPTION",
        arg_help: "mpibench options (-n, --json, --check, --window, --rma-sync, ...)",
        after_help: HELP,
    }),
    usage: "mpibench cafbench [OPTION]...",
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
    fn stand_alone_and_with_options() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.suite.as_deref(), Some("caf"));
        assert!(a.benchmarks.is_empty());
        let a = parse(&v("-n 4 --window allocate --check --halo-sizes 10,20 -q")).unwrap();
        assert_eq!(a.launch.np, Some(4));
        assert_eq!(a.rma.window, vec![crate::cli::WindowKind::Allocate]);
        assert!(a.check && a.quiet);
        assert_eq!(
            a.suites.get::<crate::bench::caf::CafArgs>().halo_sizes,
            vec![10, 20]
        );
        for (args, want) in [
            ("put", "no parameters"),
            ("--window nosuch", "invalid value"),
        ] {
            let e = parse(&v(args)).unwrap_err();
            assert!(e.contains(want), "{args}: {e}");
            assert!(!e.contains('\n'));
        }
    }
}
