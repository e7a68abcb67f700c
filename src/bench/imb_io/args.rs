//! IMB-IO's own options of `mpibench run` (the suite-argument layer): where
//! the benchmark files go (`--io-dir`) and the MPI-IO hints they are
//! opened with (`--io-hint KEY=VALUE`), checked before anything runs: the
//! directory exists, is a directory and is writable, and its file system
//! holds the largest file the run will write.

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::OnceLock;

use clap::Args;

use crate::cli::RunArgs;
use crate::contract::axis::Axes;

/// The heading of the suite's options in `mpibench run -h`.
pub const HEADING: &str = "IMB-IO (--suite imb-io)";

/// IMB's OVERALL_VOL and MSGSPERSAMPLE defaults.
const VOLUME: u64 = 40 << 20;
const MOST_REPS: u64 = 1000;

/// The suite's own options of `mpibench run` (and `mpibench imb-io`).
#[derive(Debug, Clone, Args, Default)]
pub struct ImbIoArgs {
    /// The directory of IMB-IO's benchmark files (default: the current directory); every file the run creates there is removed when it ends.
    #[arg(long, value_name = "DIR", help_heading = HEADING)]
    pub io_dir: Option<PathBuf>,
    /// An MPI-IO hint the files are opened with (repeatable), e.g. striping_factor=4, cb_nodes=2, romio_cb_write=enable.
    #[arg(long, value_name = "KEY=VALUE", help_heading = HEADING)]
    pub io_hint: Vec<String>,
    /// Honest read figures where the user may: after a read benchmark's file is filled (and after every write benchmark), MPI_File_sync, then drop the file's cached pages (posix_fadvise DONTNEED, no root needed; a tmpfs cannot), outside the timed regions.
    #[arg(long, help_heading = HEADING)]
    pub io_sync: bool,
}

/// Where the files go and their hints, as rank 0 checked them (the other
/// ranks receive them from the group's first rank when a kernel is built).
#[derive(Debug, Clone, Default)]
pub struct IoConfig {
    pub dir: PathBuf,
    pub hints: Vec<(String, String)>,
    /// `--check`: IMB's CHECK build's shorter CPU exploitation.
    pub check: bool,
    /// `--io-sync`.
    pub sync: bool,
}

static CONFIG: OnceLock<IoConfig> = OnceLock::new();

/// The configuration rank 0 checked (the default elsewhere).
pub fn config() -> IoConfig {
    CONFIG.get().cloned().unwrap_or_else(|| IoConfig {
        dir: PathBuf::from("."),
        ..IoConfig::default()
    })
}

/// `--io-sync` as the header and the JSON say it (rank 0's view).
pub fn sync_state() -> &'static str {
    let c = config();
    if !c.sync {
        return "off";
    }
    let on_tmpfs =
        CString::new(c.dir.as_os_str().as_encoded_bytes()).is_ok_and(|p| crate::sys::on_tmpfs(&p));
    if on_tmpfs {
        "on, but the directory is a tmpfs: MPI_File_sync only, its pages cannot be dropped"
    } else {
        "on: MPI_File_sync, then the file's cached pages dropped (posix_fadvise DONTNEED)"
    }
}

fn hints(list: &[String]) -> Result<Vec<(String, String)>, String> {
    list.iter()
        .map(|h| match h.split_once('=') {
            Some((k, v)) if !k.is_empty() && !k.contains('\0') && !v.contains('\0') => {
                Ok((k.to_string(), v.to_string()))
            }
            _ => Err(format!("invalid --io-hint '{h}' (KEY=VALUE)")),
        })
        .collect()
}

/// The largest file the run writes: X bytes per repetition, at most
/// MSGSPERSAMPLE (or -iter) repetitions and OVERALL_VOL bytes but one
/// repetition always (IMB's rule; a read file holds as many).
fn largest_file(args: &RunArgs) -> u64 {
    let sizes: Vec<usize> = match (&args.sweep.msglog, &args.sweep.sizes) {
        (Some(m), _) => crate::plan::parse_msglog(m).unwrap_or_default(),
        (None, Some(s)) => crate::units::parse_sizes(s).unwrap_or_default(),
        _ => vec![4 << 20],
    };
    let vol = args.knobs.volume.map_or(VOLUME, |v| v as u64);
    let most = args.reps.iter.map_or(MOST_REPS, |n| n as u64).max(1);
    sizes
        .iter()
        .map(|&x| {
            let x = x as u64;
            let reps = vol.checked_div(x).map_or(most, |r| most.min(r.max(1)));
            x * reps
        })
        .max()
        .unwrap_or(0)
}

/// Why the directory cannot hold the run's files.
fn check_dir(dir: &PathBuf, need: u64) -> Result<(), String> {
    let shown = dir.display();
    let meta = std::fs::metadata(dir).map_err(|e| format!("--io-dir {shown}: {e}"))?;
    if !meta.is_dir() {
        return Err(format!("--io-dir {shown}: not a directory"));
    }
    let c = CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("--io-dir {shown}: holds a NUL byte"))?;
    if !crate::sys::writable(&c) {
        return Err(format!(
            "--io-dir {shown}: not writable ({})",
            std::io::Error::last_os_error()
        ));
    }
    let free = crate::sys::free_bytes(&c).map_err(|e| format!("--io-dir {shown}: {e}"))?;
    if free < need {
        return Err(format!(
            "--io-dir {shown}: {free} bytes free, the largest benchmark file needs {need} bytes"
        ));
    }
    Ok(())
}

/// The suite's settings, checked (`Suite::axes`): none become axes.
pub fn axes(args: &RunArgs, involved: bool, _world: usize, _mem: u64) -> Result<Axes, String> {
    let a = args.suites.get::<ImbIoArgs>();
    if !involved {
        if a.io_dir.is_some() || !a.io_hint.is_empty() || a.io_sync {
            return Err(
                "--io-dir, --io-hint and --io-sync belong to the imb-io suite (--suite imb-io)"
                    .into(),
            );
        }
        return Ok(Axes::new());
    }
    let dir = a.io_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let hints = hints(&a.io_hint)?;
    check_dir(&dir, largest_file(args))?;
    let _ = CONFIG.set(IoConfig {
        dir,
        hints,
        check: args.check,
        sync: a.io_sync,
    });
    Ok(Axes::new())
}
