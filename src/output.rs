//! Output files that no user input can turn into damage.
//!
//! * A regular file, or a path that does not exist yet, is rewritten
//!   atomically: a temporary file in the same directory, then a rename.
//! * A symlink is followed; its target is updated in the target's directory
//!   (the link stays a link).
//! * Anything else (a device such as `/dev/null` or `/dev/full`, a FIFO, a
//!   socket, `/dev/stdout` or `/proc/self/fd/N`) is never replaced: it is
//!   opened and written in place, once, at the end of the run.
//! * `-` and every path that is this process's stdout are stdout.
//!
//! Before anything runs, [`validate`] resolves every output of the command
//! line and refuses two outputs that are one file (same resolved path, or
//! same device and inode), two on stdout, directories and unwritable places.
//!
//! Rank 0 registers its report outputs here ([`init`]); [`save`] writes them
//! after each benchmark and [`interrupt`] (from the signal thread) writes
//! the last report with status "interrupted". One lock serialises both, so
//! that an interruption never interleaves with a regular save and nothing is
//! written after it.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

use crate::report::{self, csv::Csv, json::Json};
use crate::results::Report;

/// Where one output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// This process's standard output (`-`, `/dev/stdout`, or the very file stdout is).
    Stdout,
    /// A regular file or a new one: replaced atomically (temporary file + rename).
    Replace(PathBuf),
    /// A device, FIFO or socket: opened and written in place, never replaced.
    InPlace(PathBuf),
}

/// Identity of an output for duplicate detection.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    Stdout,
    Inode(u64, u64),
    Path(PathBuf),
}

/// Symlink hops followed before giving up (the kernel's own limit is 40).
const MAX_LINKS: usize = 40;

/// How long a FIFO may lack a reader before its write fails.
const FIFO_READER_WAIT: Duration = Duration::from_secs(30);

fn stdout_inode() -> Option<(u64, u64)> {
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat on fd 1 with a valid out pointer.
    (unsafe { libc::fstat(1, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// Follows symlinks (relative ones against the link's directory) until a
/// non-link or a missing path. Stops at `/proc/*/fd/*` and `/dev/fd/*`,
/// whose "targets" (`pipe:[123]`) are not paths.
fn follow(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if is_fd_link(&p) {
            return Ok(p);
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)?;
                p = if t.is_absolute() {
                    t
                } else {
                    p.parent().unwrap_or(Path::new(".")).join(t)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

fn is_fd_link(p: &Path) -> bool {
    let s = p.to_string_lossy();
    s.starts_with("/dev/fd/")
        || (s.starts_with("/proc/") && p.parent().is_some_and(|d| d.ends_with("fd")))
}

/// Classifies an output path (see the module documentation).
pub fn resolve(path: &Path) -> io::Result<Target> {
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    let p = follow(path)?;
    match std::fs::metadata(&p) {
        Ok(m) => {
            if stdout_inode() == Some((m.dev(), m.ino())) {
                Ok(Target::Stdout)
            } else if m.is_dir() {
                Err(io::Error::other("is a directory"))
            } else if m.is_file() {
                Ok(Target::Replace(p))
            } else {
                Ok(Target::InPlace(p))
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && !is_fd_link(&p) => Ok(Target::Replace(p)),
        Err(e) => Err(e),
    }
}

fn identity(target: &Target) -> Identity {
    match target {
        Target::Stdout => Identity::Stdout,
        Target::Replace(p) | Target::InPlace(p) => match std::fs::metadata(p) {
            Ok(m) => Identity::Inode(m.dev(), m.ino()),
            // A new file: its directory resolved, plus its name.
            Err(_) => Identity::Path(
                parent_dir(p)
                    .canonicalize()
                    .unwrap_or_else(|_| parent_dir(p).to_path_buf())
                    .join(p.file_name().unwrap_or_default()),
            ),
        },
    }
}

fn parent_dir(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Checks every output of the command line (`(flag, path)` pairs, from
/// `RunArgs::outputs`): resolvable, writable, and no two on one file.
/// Creates nothing that stays.
pub fn validate(outputs: &[(&str, &Path)]) -> Result<(), String> {
    let mut seen: Vec<(&str, &Path, Identity)> = Vec::new();
    for &(flag, path) in outputs {
        let target =
            resolve(path).map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
        check_writable(path, &target)?;
        let id = identity(&target);
        if let Some((other, other_path, _)) = seen.iter().find(|(_, _, i)| *i == id) {
            return Err(if id == Identity::Stdout {
                format!(
                    "{other} {} and {flag} {} both write to stdout; give one of them a file",
                    other_path.display(),
                    path.display()
                )
            } else {
                format!(
                    "{other} '{}' and {flag} '{}' are the same file; give each output its own file",
                    other_path.display(),
                    path.display()
                )
            });
        }
        seen.push((flag, path, id));
    }
    Ok(())
}

/// A replaced file needs a writable directory (for the temporary file and
/// the rename); a special file needs write permission.
fn check_writable(path: &Path, target: &Target) -> Result<(), String> {
    let cannot = |e: io::Error| format!("cannot write '{}': {e}", path.display());
    match target {
        Target::Stdout => Ok(()),
        Target::InPlace(p) => {
            let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
                .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
            // SAFETY: access(2) on a NUL-terminated path.
            if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
                Ok(())
            } else {
                Err(cannot(io::Error::last_os_error()))
            }
        }
        Target::Replace(p) => {
            let probe = temp_name(p);
            match OpenOptions::new().write(true).create_new(true).open(&probe) {
                Ok(_) => {
                    let _ = std::fs::remove_file(&probe);
                    Ok(())
                }
                Err(e) => Err(cannot(e)),
            }
        }
    }
}

/// A fresh temporary name next to `p` (hidden, unique within this process).
fn temp_name(p: &Path) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let mut name = OsString::from(".");
    name.push(p.file_name().unwrap_or_default());
    name.push(format!(
        ".tmp.{}.{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    parent_dir(p).join(name)
}

/// Why stdout could not be written: a closed pipe ends the run quietly.
#[derive(Debug, thiserror::Error)]
#[error("stdout is closed")]
pub struct StdoutClosed;

/// Writes to stdout; a closed pipe becomes [`StdoutClosed`].
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        Err(e) => Err(anyhow!(e).context("cannot write to stdout")),
    }
}

/// Writes the whole of `bytes` to `target`.
pub fn write_whole(target: &Target, shown: &Path, bytes: &[u8]) -> Result<()> {
    match target {
        Target::Stdout => write_stdout(bytes),
        Target::Replace(p) => {
            replace(p, bytes).with_context(|| format!("cannot write '{}'", shown.display()))
        }
        Target::InPlace(p) => open_in_place(p)
            .and_then(|mut f| f.write_all(bytes).and_then(|_| f.flush()))
            .with_context(|| format!("cannot write '{}'", shown.display())),
    }
}

/// Temporary file + fsync + rename; the temporary file never outlives a failure.
fn replace(p: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_name(p);
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        match std::fs::symlink_metadata(p) {
            // Keep the permissions of the file being replaced.
            Ok(m) if m.is_file() => {
                f.set_permissions(std::fs::Permissions::from_mode(m.permissions().mode()))?
            }
            // It became something else since it was resolved: never rename over it.
            Ok(_) => return Err(io::Error::other("it is no longer a regular file")),
            Err(_) => {}
        }
        std::fs::rename(&tmp, p)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Opens a special file for writing, without creating or truncating it. A
/// FIFO without a reader would block forever: it is polled for a reader
/// for [`FIFO_READER_WAIT`], then fails.
pub fn open_in_place(p: &Path) -> io::Result<File> {
    let deadline = Instant::now() + FIFO_READER_WAIT;
    loop {
        match OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(p)
        {
            Ok(f) => {
                // Blocking writes from here on (a slow reader must not lose data).
                use std::os::fd::AsRawFd;
                let fd = f.as_raw_fd();
                // SAFETY: fcntl on a file descriptor we own.
                unsafe {
                    let fl = libc::fcntl(fd, libc::F_GETFL);
                    libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK);
                }
                return Ok(f);
            }
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                return Err(io::Error::other(format!(
                    "no process reads this FIFO (waited {} s)",
                    FIFO_READER_WAIT.as_secs()
                )))
            }
            Err(e) => return Err(e),
        }
    }
}

/// A streaming writer (for `--raw`) that follows the same rules: stdout,
/// a special file opened in place, or a regular file created or truncated
/// (never replaced by another node).
pub fn open_stream(path: &Path) -> Result<Box<dyn Write>> {
    let target = resolve(path).with_context(|| format!("cannot write '{}'", path.display()))?;
    Ok(match target {
        Target::Stdout => Box::new(io::stdout()),
        Target::InPlace(p) => Box::new(
            open_in_place(&p).with_context(|| format!("cannot write '{}'", path.display()))?,
        ),
        Target::Replace(p) => Box::new(
            File::create(&p).with_context(|| format!("cannot write '{}'", path.display()))?,
        ),
    })
}

/// True when `path` goes to stdout (`-`, `/dev/stdout`, ...).
pub fn is_stdout(path: &Path) -> bool {
    matches!(resolve(path), Ok(Target::Stdout))
}

/// A report format.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    Json,
    Csv,
    /// The self-contained HTML report (`--report`).
    Html,
}

struct Sink {
    path: PathBuf,
    format: Format,
}

#[derive(Default)]
struct State {
    sinks: Vec<Sink>,
    /// The last report saved, for an interruption to complete.
    last: Option<Report>,
    /// Set once the final (or interrupted) report is written: nothing follows.
    closed: bool,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn state() -> std::sync::MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Rank 0: the report outputs of this run.
pub fn init(outputs: &[(Option<&Path>, Format)]) {
    *state() = Some(State {
        sinks: outputs
            .iter()
            .filter_map(|(p, f)| {
                p.map(|p| Sink {
                    path: p.to_path_buf(),
                    format: *f,
                })
            })
            .collect(),
        ..State::default()
    });
}

fn render(format: Format, r: &Report) -> Result<Vec<u8>> {
    let e: &dyn report::Exporter = match format {
        Format::Json => &Json,
        Format::Csv => &Csv,
        Format::Html => return Ok(report::html::render(std::slice::from_ref(r))?.into_bytes()),
    };
    e.render(r)
}

/// Writes `bytes` to an output that is not a report (the tables of
/// `--output`): replaced files every time, stdout and special files only
/// when `last`.
pub fn write_file(path: &Path, bytes: &[u8], last: bool) -> Result<()> {
    let t = resolve(path).with_context(|| format!("cannot write '{}'", path.display()))?;
    if matches!(t, Target::Replace(_)) || last {
        write_whole(&t, path, bytes)
    } else {
        Ok(())
    }
}

/// Writes every output: replaced files every time, stdout and special files
/// only when `last`. Every output is attempted; the first error is returned.
fn write_all(st: &State, report: &Report, last: bool) -> Result<()> {
    let mut first = Ok(());
    for s in &st.sinks {
        let r = resolve(&s.path)
            .with_context(|| format!("cannot write '{}'", s.path.display()))
            .and_then(|t| {
                if matches!(t, Target::Replace(_)) || last {
                    write_whole(&t, &s.path, &render(s.format, report)?)
                } else {
                    Ok(())
                }
            });
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// Rank 0: saves the report (see [`write_all`]); after an interruption, nothing.
pub fn save(report: &Report, last: bool) -> Result<()> {
    let mut g = state();
    let Some(st) = g.as_mut() else {
        return Ok(());
    };
    if st.closed {
        return Ok(());
    }
    st.last = Some(report.clone());
    st.closed = last;
    write_all(st, report, last)
}

/// Rank 0, from the signal thread: writes the last saved report with
/// `status` ("interrupted", with the signal's name, or "aborted") to every
/// output (stdout and special files included: this is the end). Returns how
/// many results it holds, or None without a report.
pub fn interrupt(status: &str, signal_name: Option<&str>) -> Option<Result<usize>> {
    let mut g = state();
    let st = g.as_mut()?;
    if st.closed {
        return None;
    }
    st.closed = true;
    let mut r = st.last.clone()?;
    r.complete = false;
    r.status = Some(status.into());
    r.interrupted_by = signal_name.map(str::to_string);
    let n = r.results.len();
    Some(write_all(st, &r, true).map(|_| n))
}

/// Rank 0: prints to stdout (tables); the error tells a closed pipe apart.
pub fn print(text: &str) -> Result<()> {
    write_stdout(text.as_bytes())
}

/// Every rank, after each step: agrees on rank 0's write failure, if any.
/// Returns the exit code all ranks end with: 128 + SIGPIPE, quietly, when
/// stdout was closed (`| head`); 3 after one line naming the file and the
/// OS error otherwise. Rank 0 marks the report "interrupted" or "aborted"
/// in the outputs that still work.
pub fn agree(world: &crate::comm::Comm, failure: Option<anyhow::Error>) -> Option<i32> {
    let mine = match &failure {
        None => 0.0,
        Some(e) if e.is::<StdoutClosed>() => 1.0,
        Some(_) => 2.0,
    };
    let worst = world.allreduce_max(mine);
    if worst == 0.0 {
        return None;
    }
    let quiet = worst < 2.0;
    if let Some(e) = failure.filter(|_| !quiet) {
        eprintln!("error: {e:#}");
    }
    if world.rank == 0 {
        let mut g = state();
        if let Some(st) = g.as_mut().filter(|st| !st.closed) {
            st.closed = true;
            if let Some(mut r) = st.last.clone() {
                r.complete = false;
                if quiet {
                    r.status = Some("interrupted".into());
                    r.interrupted_by = Some("SIGPIPE".into());
                } else {
                    r.status = Some("aborted".into());
                }
                // Best effort: the output that failed will likely fail again.
                let _ = write_all(st, &r, false);
            }
        }
    }
    Some(if quiet {
        crate::signals::exit_code(libc::SIGPIPE)
    } else {
        crate::watchdog::EXIT_ABORTED
    })
}

/// The first report output that is a file (for messages).
pub fn first_file() -> Option<PathBuf> {
    state()
        .as_ref()?
        .sinks
        .iter()
        .find(|s| !matches!(resolve(&s.path), Ok(Target::Stdout)))
        .map(|s| s.path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, FileTypeExt};

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn classifies_targets() {
        let d = tmp();
        let f = d.path().join("a.json");
        assert_eq!(resolve(&f).unwrap(), Target::Replace(f.clone()));
        std::fs::write(&f, "x").unwrap();
        assert_eq!(resolve(&f).unwrap(), Target::Replace(f.clone()));
        let l = d.path().join("link.json");
        symlink("a.json", &l).unwrap();
        assert_eq!(
            resolve(&l).unwrap(),
            Target::Replace(d.path().join("a.json"))
        );
        let fifo = d.path().join("p");
        mkfifo(&fifo);
        assert_eq!(resolve(&fifo).unwrap(), Target::InPlace(fifo.clone()));
        assert!(resolve(d.path()).is_err());
        assert_eq!(resolve(Path::new("-")).unwrap(), Target::Stdout);
        let dangling = d.path().join("dangling");
        symlink("sub/new.json", &dangling).unwrap();
        assert_eq!(
            resolve(&dangling).unwrap(),
            Target::Replace(d.path().join("sub/new.json"))
        );
        let looped = d.path().join("loop");
        symlink("loop", &looped).unwrap();
        assert!(resolve(&looped).is_err());
    }

    #[test]
    fn replaces_through_a_symlink_and_keeps_the_link() {
        let d = tmp();
        let real = d.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let l = d.path().join("l.json");
        symlink(&real, &l).unwrap();
        let t = resolve(&l).unwrap();
        write_whole(&t, &l, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&l)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            2,
            "no temporary file left"
        );
    }

    #[test]
    fn failed_replace_leaves_no_temporary_file() {
        let d = tmp();
        let gone = d.path().join("gone/x.json");
        assert!(write_whole(&Target::Replace(gone.clone()), &gone, b"x").is_err());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn duplicates_are_found_by_path_and_inode() {
        let d = tmp();
        let a = d.path().join("o.json");
        let a2 = d.path().join(".").join("o.json");
        let err = validate(&[("--json", &a), ("--csv", &a2)]).unwrap_err();
        assert!(err.contains("same file"), "{err}");
        std::fs::write(&a, "").unwrap();
        let hard = d.path().join("hard.json");
        std::fs::hard_link(&a, &hard).unwrap();
        assert!(validate(&[("--json", &a), ("--raw", &hard)]).is_err());
        let l = d.path().join("l");
        symlink(&a, &l).unwrap();
        assert!(validate(&[("--csv", &l), ("--json", &a)]).is_err());
        let dash = Path::new("-");
        let err = validate(&[("--json", dash), ("--csv", dash)]).unwrap_err();
        assert!(err.contains("stdout"), "{err}");
        let b = d.path().join("o.csv");
        assert!(validate(&[("--json", &a), ("--csv", &b), ("--raw", dash)]).is_ok());
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            3,
            "no probe left"
        );
    }

    #[test]
    fn fifo_without_reader_fails_instead_of_blocking() {
        let d = tmp();
        let fifo = d.path().join("p");
        mkfifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_whole(&Target::InPlace(fifo.clone()), &fifo, b"hello").unwrap();
        assert_eq!(reader.join().unwrap(), "hello");
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
    }
}
