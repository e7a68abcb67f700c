//! The command line and the environment as the OS gives them: bytes, not
//! necessarily UTF-8. Every command checks both once, before anything else
//! reads them, so that a stray byte is one line naming the argument or the
//! variable (exit 2), never a panic in `std::env::args` or a clap message
//! that does not say which variable it read.
//!
//! The `MPIBENCH_*` variables mpibench reads (docs/options.md, "Environment"):
//!
//! | variable | checked |
//! |---|---|
//! | `MPIBENCH_MPIEXEC` | UTF-8 (empty: unset); the launcher is checked where it is used |
//! | `MPIBENCH_START_DEADLINE` | UTF-8, a positive number of seconds below 10⁹ (empty: unset) |
//! | `MPIBENCH_PHASES` | UTF-8, 0 or 1 (empty: unset) |
//! | `MPIBENCH_TEST_PANIC_RANK`, `MPIBENCH_TEST_FAIL_LAUNCH` | UTF-8, a rank or launch number (test hooks) |
//! | the parent's own (`MPIBENCH_LAUNCHED`, `_PARENT`, `_STDOUT_ID`, `_LAUNCH_OUT`, `_PROGRESS`, `_ARGV0`), `MPIBENCH_TEST_PANIC_MAIN`, `MPIBENCH_DEBUG_SUPERVISE` | UTF-8 |
//!
//! Any other `MPIBENCH_*` variable is ignored by the binary (the scripts
//! read `MPIBENCH_SLURM_DIR`, `MPIBENCH_CLUSTER_*`, `MPIBENCH_LARGE` ...).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// The variables that hold a number, and what the number is.
const NUMBERS: [(&str, Kind); 4] = [
    (crate::supervise::START_DEADLINE_ENV, Kind::Seconds),
    (crate::phases::ENV, Kind::Flag),
    ("MPIBENCH_TEST_PANIC_RANK", Kind::Count),
    ("MPIBENCH_TEST_FAIL_LAUNCH", Kind::Count),
];

#[derive(Clone, Copy)]
enum Kind {
    Seconds,
    Count,
    /// "0" or "1".
    Flag,
}

/// `value` as a shell would show it: printable ASCII as it is, every other
/// byte as `\xNN` (so the line shows where the stray byte is).
pub fn shown(value: &OsStr) -> String {
    value
        .as_bytes()
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                (b as char).to_string()
            } else {
                format!("\\x{b:02X}")
            }
        })
        .collect()
}

/// The arguments as UTF-8 strings, or one line naming the first that is not.
pub fn utf8_args(args: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, String> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|a| {
                let what = if i == 0 {
                    "the program name".to_string()
                } else {
                    format!("argument {i}")
                };
                format!("{what} is not valid UTF-8: '{}'", shown(&a))
            })
        })
        .collect()
}

/// Checks the `MPIBENCH_*` variables among `vars`: one line for the first
/// that is not UTF-8 or does not hold what it must.
pub fn check_vars(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Result<(), String> {
    for (k, v) in vars {
        if !k.as_bytes().starts_with(b"MPIBENCH_") {
            continue;
        }
        let name = k.to_str().ok_or_else(|| {
            format!(
                "an environment variable's name is not valid UTF-8: '{}'",
                shown(&k)
            )
        })?;
        let value = v.to_str().ok_or_else(|| {
            format!(
                "environment variable {name} is not valid UTF-8: '{}'",
                shown(&v)
            )
        })?;
        let Some(&(_, kind)) = NUMBERS.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let t = value.trim();
        if t.is_empty() {
            continue;
        }
        let ok = match kind {
            Kind::Seconds => t
                .parse::<f64>()
                .is_ok_and(|x| x.is_finite() && x > 0.0 && x < 1e9),
            Kind::Count => t.parse::<u64>().is_ok(),
            Kind::Flag => t == "0" || t == "1",
        };
        if !ok {
            let want = match kind {
                Kind::Seconds => "a positive number of seconds",
                Kind::Count => "a whole number",
                Kind::Flag => "0 or 1",
            };
            return Err(format!(
                "environment variable {name}='{value}' is not {want}"
            ));
        }
    }
    Ok(())
}

/// This process's arguments, checked with its environment (see the module).
pub fn checked() -> Result<Vec<String>, String> {
    check_vars(std::env::vars_os())?;
    utf8_args(std::env::args_os())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;

    fn os(b: &[u8]) -> OsString {
        OsString::from_vec(b.to_vec())
    }

    #[test]
    fn a_stray_byte_is_named_with_its_argument() {
        let args = vec![os(b"mpibench"), os(b"run"), os(b"Ping\xffPong")];
        assert_eq!(
            utf8_args(args).unwrap_err(),
            "argument 2 is not valid UTF-8: 'Ping\\xFFPong'"
        );
        assert_eq!(
            utf8_args(vec![os(b"IMB-\x80")]).unwrap_err(),
            "the program name is not valid UTF-8: 'IMB-\\x80'"
        );
        let good = utf8_args(vec![os(b"mpibench"), os("µs".as_bytes())]).unwrap();
        assert_eq!(good, ["mpibench", "µs"]);
    }

    #[test]
    fn variables_are_checked_by_name() {
        let v = |k: &[u8], x: &[u8]| vec![(os(k), os(x))];
        assert_eq!(
            check_vars(v(b"MPIBENCH_MPIEXEC", b"/usr/bin/mpi\xfe")).unwrap_err(),
            "environment variable MPIBENCH_MPIEXEC is not valid UTF-8: '/usr/bin/mpi\\xFE'"
        );
        assert_eq!(
            check_vars(v(b"MPIBENCH_START_DEADLINE", b"abc")).unwrap_err(),
            "environment variable MPIBENCH_START_DEADLINE='abc' is not a positive number of seconds"
        );
        for bad in [&b"-1"[..], b"0", b"inf", b"1e10", b"NaN"] {
            assert!(check_vars(v(b"MPIBENCH_START_DEADLINE", bad)).is_err());
        }
        assert!(check_vars(v(b"MPIBENCH_START_DEADLINE", b" 90 ")).is_ok());
        assert!(check_vars(v(b"MPIBENCH_START_DEADLINE", b"")).is_ok());
        assert!(check_vars(v(b"MPIBENCH_TEST_PANIC_RANK", b"x")).is_err());
        assert!(check_vars(v(b"MPIBENCH_PHASES", b"1")).is_ok());
        assert_eq!(
            check_vars(v(b"MPIBENCH_PHASES", b"yes")).unwrap_err(),
            "environment variable MPIBENCH_PHASES='yes' is not 0 or 1"
        );
        // Others' variables are none of mpibench's business.
        assert!(check_vars(v(b"PATH", b"\xff")).is_ok());
        assert!(check_vars(v(b"MPIBENCH_SLURM_DIR", b"/tmp/x")).is_ok());
        assert!(check_vars(v(b"MPIBENCH_\xff", b"1")).is_err());
    }
}
