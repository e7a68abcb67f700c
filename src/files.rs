//! Output files that no user input can turn into damage.
//!
//! * A regular file, or a path that does not exist yet, is rewritten
//!   atomically: a temporary file in the same directory, then a rename.
//! * A symlink is followed; its target is updated in the target's directory
//!   (the link stays a link).
//! * A character device (such as `/dev/null` or `/dev/full`), a FIFO,
//!   `/dev/stdout` or `/proc/self/fd/N` is never replaced: it is opened and
//!   written in place, once, at the end of the run.
//! * A block device or a socket is refused: writing a disk in place would
//!   destroy it, and a socket cannot be opened as a file.
//! * `-` and every path that is this process's stdout are stdout.
//!
//! Before anything runs, [`validate`] resolves every output of the command
//! line and refuses two outputs that are one file (same resolved path, or
//! same device and inode), an output that is one of the inputs, two on
//! stdout, empty paths, directories and unwritable places.
//!

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

/// Where one output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// This process's standard output (`-`, `/dev/stdout`, or the very file stdout is).
    Stdout,
    /// A regular file or a new one: replaced atomically (temporary file + rename).
    Replace(PathBuf),
    /// A character device or a FIFO: opened and written in place, never replaced.
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

/// The self-launching parent's stdout (`DEV:INO`, when it is a file or a
/// character device): a rank's own stdout is the parent's relay pipe, and
/// `mpibench run -n 2 --raw x > x` must still see that `x` is stdout.
pub const STDOUT_ID_ENV: &str = "MPIBENCH_STDOUT_ID";

/// `DEV:INO` of fd 1 when it is a regular file or a character device (what
/// the parent exports in [`STDOUT_ID_ENV`]).
pub fn stdout_id() -> Option<String> {
    match crate::sys::fd_file(1)? {
        (libc::S_IFREG | libc::S_IFCHR, dev, ino) => Some(format!("{dev}:{ino}")),
        _ => None,
    }
}

fn parse_stdout_id(s: &str) -> Option<(u64, u64)> {
    let (d, i) = s.trim().split_once(':')?;
    Some((d.parse().ok()?, i.parse().ok()?))
}

/// True when (dev, ino) is this process's stdout, or the self-launching
/// parent's (see [`STDOUT_ID_ENV`]).
fn is_stdout_id(id: (u64, u64)) -> bool {
    let parents = std::env::var(STDOUT_ID_ENV)
        .ok()
        .and_then(|v| parse_stdout_id(&v));
    let own = crate::sys::fd_file(1).map(|(_, dev, ino)| (dev, ino));
    parents == Some(id) || own == Some(id)
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

/// A path that can only name a directory: it ends in `/`, `/.` or `/..`.
fn names_directory(p: &Path) -> bool {
    let b = p.as_os_str().as_encoded_bytes();
    b == b"." || b == b".." || b.ends_with(b"/") || b.ends_with(b"/.") || b.ends_with(b"/..")
}

/// Classifies an output path (see the module documentation).
pub fn resolve(path: &Path) -> io::Result<Target> {
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    if path.as_os_str().is_empty() {
        return Err(io::Error::other("the path is empty"));
    }
    let p = follow(path)?;
    match std::fs::metadata(&p) {
        Ok(m) => {
            let t = m.file_type();
            if is_stdout_id((m.dev(), m.ino())) {
                Ok(Target::Stdout)
            } else if t.is_dir() {
                Err(io::Error::other("is a directory"))
            } else if t.is_file() {
                Ok(Target::Replace(p))
            } else if t.is_block_device() {
                Err(io::Error::other(
                    "is a block device: mpibench writes only regular files, character devices, FIFOs and stdout",
                ))
            } else if t.is_socket() {
                Err(io::Error::other(
                    "is a socket: mpibench writes only regular files, character devices, FIFOs and stdout",
                ))
            } else {
                Ok(Target::InPlace(p))
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && !is_fd_link(&p) => {
            if names_directory(path) || names_directory(&p) {
                Err(io::Error::other(
                    "a path ending in '/' names a directory, not a file",
                ))
            } else {
                Ok(Target::Replace(p))
            }
        }
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

/// Writes a set of files into the directory `dir` as a whole: each is
/// written into a temporary directory beside `dir` first, then `dir` is
/// that directory (where it did not exist) or each file is renamed into
/// it. A failure (a full disk) leaves `dir` as it was and nothing behind.
/// A symbolic link as `dir` is followed (a dangling one: its target is
/// created).
pub fn write_set(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    let cannot = |e: io::Error| anyhow::anyhow!("cannot write into '{}': {e}", dir.display());
    let target = follow(dir).map_err(cannot)?;
    let parent = parent_dir(&target).to_path_buf();
    std::fs::create_dir_all(&parent).map_err(cannot)?;
    let tmp = tempfile::Builder::new()
        .prefix(".mpibench-set-")
        .tempdir_in(&parent)
        .map_err(cannot)?;
    for (name, bytes) in files {
        let p = tmp.path().join(name);
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&p)
            .and_then(|mut f| f.write_all(bytes).and_then(|_| f.sync_all()))
            .map_err(|e| anyhow::anyhow!("cannot write '{}': {e}", target.join(name).display()))?;
    }
    match std::fs::symlink_metadata(&target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let kept = tmp.keep();
            std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o755))
                .and_then(|_| std::fs::rename(&kept, &target))
                .map_err(|e| {
                    let _ = std::fs::remove_dir_all(&kept);
                    cannot(e)
                })?;
        }
        Ok(m) if m.is_dir() => {
            for (name, _) in files {
                std::fs::rename(tmp.path().join(name), target.join(name)).map_err(cannot)?;
            }
        }
        Ok(_) => return Err(cannot(io::Error::other("not a directory"))),
        Err(e) => return Err(cannot(e)),
    }
    Ok(())
}

/// The files a set in `dir` would replace that are `inputs` (symbolic
/// links followed): the first, as (input, file name).
pub fn set_overwrites<'a>(
    dir: &Path,
    names: impl IntoIterator<Item = &'a str>,
    inputs: &'a [std::path::PathBuf],
) -> Option<(&'a Path, &'a str)> {
    let ids: Vec<(Identity, &Path)> = inputs
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .map(|p| (input_identity(p), p.as_path()))
        .collect();
    names.into_iter().find_map(|n| {
        let id = input_identity(&dir.join(n));
        ids.iter().find(|(i, _)| *i == id).map(|(_, p)| (*p, n))
    })
}

/// One output of a command line, for [`validate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output<'a> {
    pub flag: &'static str,
    pub path: &'a Path,
    /// A directory that receives files (`--plots`), not a file.
    pub dir: bool,
}

impl<'a> Output<'a> {
    pub fn file(flag: &'static str, path: &'a Path) -> Self {
        Output {
            flag,
            path,
            dir: false,
        }
    }

    pub fn dir(flag: &'static str, path: &'a Path) -> Self {
        Output {
            flag,
            path,
            dir: true,
        }
    }
}

/// Checks every output of a command line (from `RunArgs::outputs`, or the
/// `report`, `plot` and `compare` commands): resolvable, writable, no two on
/// one file, and none on a file the command reads (`inputs`, as (flag,
/// path); an empty flag is a positional input). Creates nothing that stays.
pub fn validate(outputs: &[Output], inputs: &[(&str, &Path)]) -> Result<(), String> {
    let mut seen: Vec<(&str, &Path, Identity)> = Vec::new();
    for o in outputs {
        let (flag, path) = (o.flag, o.path);
        let id = if o.dir {
            check_dir(path)?
        } else {
            let target =
                resolve(path).map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
            check_writable(path, &target)?;
            identity(&target)
        };
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
        if id != Identity::Stdout {
            if let Some((iflag, ipath)) = inputs.iter().find(|(_, p)| input_identity(p) == id) {
                let what = if iflag.is_empty() {
                    "the input".to_string()
                } else {
                    format!("the {iflag} input")
                };
                return Err(format!(
                    "{flag} '{}' would overwrite {what} '{}'; give the output another file",
                    path.display(),
                    ipath.display()
                ));
            }
        }
        seen.push((flag, path, id));
    }
    Ok(())
}

/// The identity of a file that is read (symlinks followed).
fn input_identity(path: &Path) -> Identity {
    identity(&Target::Replace(
        follow(path).unwrap_or_else(|_| path.to_path_buf()),
    ))
}

/// A directory output (`--plots DIR`, `plot -o DIR`): DIR is a directory or
/// can be created (its nearest existing ancestor is a writable directory).
fn check_dir(path: &Path) -> Result<Identity, String> {
    let cannot = |e: io::Error| format!("cannot write into '{}': {e}", path.display());
    if path.as_os_str().is_empty() {
        return Err(cannot(io::Error::other("the path is empty")));
    }
    let p = follow(path).map_err(cannot)?;
    let mut existing = p.as_path();
    let dir = loop {
        match std::fs::metadata(existing) {
            Ok(m) if m.is_dir() => break existing,
            Ok(_) if existing == p => return Err(cannot(io::Error::other("not a directory"))),
            Ok(_) => {
                return Err(cannot(io::Error::other(format!(
                    "'{}' is not a directory",
                    existing.display()
                ))))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && existing != Path::new(".") => {
                existing = parent_dir(existing);
            }
            Err(e) => return Err(cannot(e)),
        }
    };
    probe(dir, &dir.join(".mpibench-probe")).map_err(cannot)?;
    Ok(match std::fs::metadata(&p) {
        Ok(m) => Identity::Inode(m.dev(), m.ino()),
        Err(_) => identity(&Target::Replace(p)),
    })
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
            if crate::sys::writable(&c) {
                Ok(())
            } else {
                Err(cannot(io::Error::last_os_error()))
            }
        }
        Target::Replace(p) => probe(parent_dir(p), p).map_err(cannot),
    }
}

/// Can a file be created in `dir`? An unnamed file where the file system
/// allows it (nothing ever appears), else a named one next to `like`,
/// removed at once.
fn probe(dir: &Path, like: &Path) -> io::Result<()> {
    if unnamed_in(dir)?.is_some() {
        return Ok(());
    }
    let name = temp_name(like);
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&name)?;
    let _ = std::fs::remove_file(&name);
    Ok(())
}

/// An unnamed file in `dir` (O_TMPFILE): nothing appears in the directory
/// until it is linked, so that no kill, not even SIGKILL, leaves a temporary
/// file behind. None where the file system cannot make one.
fn unnamed_in(dir: &Path) -> io::Result<Option<File>> {
    match OpenOptions::new()
        .write(true)
        .mode(0o666)
        .custom_flags(libc::O_TMPFILE)
        .open(dir)
    {
        Ok(f) => Ok(Some(f)),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Gives the unnamed file `f` the name `to` (through /proc/self/fd, which
/// needs no privilege, unlike AT_EMPTY_PATH).
fn link_unnamed(f: &File, to: &Path) -> io::Result<()> {
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", f.as_raw_fd()))?;
    let to = std::ffi::CString::new(to.as_os_str().as_encoded_bytes())?;
    crate::sys::link_following(&from, &to)
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

/// The output locks this process holds (until it exits): see [`lock`].
static LOCKS: Mutex<Vec<std::os::unix::net::UnixListener>> = Mutex::new(Vec::new());

/// Takes an advisory lock on every replaced file among `outputs`, so that
/// a second run writing the same file is refused (usage error) instead of
/// silently replacing the first run's results. The lock is an abstract
/// Unix socket named after the file's directory (device, inode) and name:
/// nothing on disk, released by the kernel when the process ends, however
/// it ends (no stale lock). It holds on one host (one network namespace).
pub fn lock(outputs: &[Output]) -> Result<(), String> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
    for o in outputs.iter().filter(|o| !o.dir) {
        let Ok(Target::Replace(p)) = resolve(o.path) else {
            continue;
        };
        let Ok(dir) = std::fs::metadata(parent_dir(&p)) else {
            continue;
        };
        let name = p.file_name().unwrap_or_default().as_encoded_bytes();
        // FNV-1a of the file name.
        let hash = name.iter().fold(0xcbf29ce484222325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
        });
        let key = format!("mpibench.output.{}.{}.{hash:016x}", dir.dev(), dir.ino());
        let Ok(addr) = SocketAddr::from_abstract_name(key.as_bytes()) else {
            continue;
        };
        match UnixListener::bind_addr(&addr) {
            Ok(l) => LOCKS.lock().unwrap_or_else(|e| e.into_inner()).push(l),
            Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
                let pid = UnixStream::connect_addr(&addr)
                    .ok()
                    .and_then(|s| peer_pid(&s))
                    .map(|p| format!(" (pid {p})"))
                    .unwrap_or_default();
                return Err(format!(
                    "{} '{}' is being written by another mpibench run{pid}; wait for it to end or choose another file",
                    o.flag,
                    o.path.display()
                ));
            }
            Err(_) => {}
        }
    }
    Ok(())
}

/// The pid of the process at the other end of a Unix socket.
fn peer_pid(s: &std::os::unix::net::UnixStream) -> Option<i32> {
    crate::sys::socket_peer_pid(s.as_raw_fd())
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
        Err(e) => Err(anyhow!(stdout_error(e))),
    }
}

/// Stdout was closed when the process started (`>&-`).
static STDOUT_CLOSED_AT_START: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// True when the process started with stdout closed (`>&-`): the standard
/// library has pointed it at /dev/null since.
pub fn stdout_closed_at_start() -> bool {
    STDOUT_CLOSED_AT_START.load(Ordering::Relaxed)
}

/// Runs before the standard library points a closed stdout at /dev/null.
#[used]
#[link_section = ".preinit_array"]
static RECORD_STDOUT: extern "C" fn() = record_stdout;

extern "C" fn record_stdout() {
    if !crate::sys::fd_is_open(1) {
        STDOUT_CLOSED_AT_START.store(true, Ordering::Relaxed);
    }
}

/// The process started with stdout closed (`>&-`): see [`guard_closed_stdout`].
static STDOUT_WAS_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A closed stdout (`>&-`) would lose every table silently (the standard
/// library points it at /dev/null before `main`). Descriptor 1 is pointed
/// at `/dev/full` instead, so that every write to stdout fails and says
/// why ([`stdout_error`]). Call first in `main`.
pub fn guard_closed_stdout() {
    if !stdout_closed_at_start() {
        return;
    }
    STDOUT_WAS_CLOSED.store(true, Ordering::SeqCst);
    crate::sys::point_fd_at(1, c"/dev/full", libc::O_WRONLY | libc::O_CLOEXEC);
}

/// "cannot write to stdout: ..." for an error writing stdout (a closed
/// stdout says so, not the `/dev/full` that stands in for it).
pub fn stdout_error(e: io::Error) -> String {
    if STDOUT_WAS_CLOSED.load(Ordering::SeqCst) {
        "cannot write to stdout: it is closed (Bad file descriptor)".into()
    } else {
        format!("cannot write to stdout: {e}")
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

/// Temporary file + fsync + rename; the temporary file never outlives a
/// failure. The temporary file is unnamed while it is written (see
/// [`unnamed_in`]): a kill leaves nothing behind, except in the moment
/// between giving it its name and the rename.
fn replace(p: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_name(p);
    let result = match unnamed_in(parent_dir(p))? {
        Some(f) => fill(f, p, bytes).and_then(|f| match link_unnamed(&f, &tmp) {
            // No /proc: write it again under a name.
            Err(e) if e.kind() == io::ErrorKind::NotFound && parent_dir(p).is_dir() => {
                fill(create_named(&tmp)?, p, bytes).map(drop)
            }
            r => r,
        }),
        None => create_named(&tmp).and_then(|f| fill(f, p, bytes).map(drop)),
    }
    .and_then(|_| std::fs::rename(&tmp, p));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn create_named(tmp: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(tmp)
}

/// Writes the new contents of `p` into `f`, with the permissions of the
/// file it replaces, and syncs it.
fn fill(mut f: File, p: &Path, bytes: &[u8]) -> io::Result<File> {
    f.write_all(bytes)?;
    match std::fs::symlink_metadata(p) {
        // Keep the permissions of the file being replaced.
        Ok(m) if m.is_file() => {
            f.set_permissions(std::fs::Permissions::from_mode(m.permissions().mode()))?
        }
        // It became something else since it was resolved: never rename over it.
        Ok(_) => return Err(io::Error::other("it is no longer a regular file")),
        Err(_) => {}
    }
    // The last write of an ending races the launcher's SIGKILL (Hydra
    // kills the ranks right after it passed a SIGTERM on, sooner on a
    // loaded machine): it skips the fsync, which only matters if the
    // machine loses power, not if the process is killed.
    if !ENDING_WRITE.load(Ordering::SeqCst) {
        f.sync_all()?;
    }
    Ok(f)
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
                crate::sys::set_blocking(f.as_raw_fd());
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

/// The ending's write is under way (see [`fill`], [`ending_write`]).
static ENDING_WRITE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The writes from here on are an ending's (the run's interrupted or
/// aborted report): they skip the fsync (see [`fill`]).
pub fn ending_write() {
    ENDING_WRITE.store(true, Ordering::SeqCst);
}

/// Scratch files a benchmark creates (IMB-IO's MPI-IO files): every file
/// of a directory whose name starts with a registered prefix, removed by
/// [`remove_scratch`] however the run ends (the benchmark on its way out,
/// and every ending of the job: `signals::end_job`).
static SCRATCH: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

/// Registers the files of `dir` whose names start with `prefix` as scratch.
pub fn register_scratch(dir: &Path, prefix: &str) {
    if let Ok(mut v) = SCRATCH.lock() {
        v.push((dir.to_path_buf(), prefix.to_string()));
    }
}

/// Removes every registered scratch file and forgets the prefixes: the
/// paths it could not remove, with why. Never blocks (an ending on
/// another thread may hold the list: it removes them).
pub fn remove_scratch() -> Vec<String> {
    let Ok(mut v) = SCRATCH.try_lock() else {
        return Vec::new();
    };
    let mut failed = Vec::new();
    for (dir, prefix) in v.drain(..) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            if !name.to_string_lossy().starts_with(&prefix) {
                continue;
            }
            let p = e.path();
            let r = if e.file_type().is_ok_and(|t| t.is_dir()) {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
            match r {
                Err(err) if err.kind() != io::ErrorKind::NotFound => {
                    failed.push(format!("{}: {err}", p.display()))
                }
                _ => {}
            }
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    /// A device node of our own (never a real /dev entry); false (and the
    /// test's device part skipped) without root.
    fn mknod(p: &Path, kind: libc::mode_t, (major, minor): (u32, u32)) -> bool {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mknod(2) on a NUL-terminated path in a temporary directory.
        let ok = unsafe { libc::mknod(c.as_ptr(), kind | 0o600, libc::makedev(major, minor)) } == 0;
        if !ok {
            eprintln!("skipped the device node part: mknod needs root");
        }
        ok
    }

    #[test]
    fn the_parents_stdout_id() {
        assert_eq!(parse_stdout_id("2049:1234"), Some((2049, 1234)));
        for bad in ["", "1", "a:b", "1:", ":2", "-1:2"] {
            assert_eq!(parse_stdout_id(bad), None, "{bad:?}");
        }
        // What the parent exports parses back to fd 1's identity.
        if let Some(id) = stdout_id() {
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            assert_eq!(unsafe { libc::fstat(1, &mut st) }, 0);
            assert_eq!(parse_stdout_id(&id), Some((st.st_dev, st.st_ino)));
        }
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
        let f = Output::file;
        let err = validate(&[f("--json", &a), f("--csv", &a2)], &[]).unwrap_err();
        assert!(err.contains("same file"), "{err}");
        std::fs::write(&a, "").unwrap();
        let hard = d.path().join("hard.json");
        std::fs::hard_link(&a, &hard).unwrap();
        assert!(validate(&[f("--json", &a), f("--raw", &hard)], &[]).is_err());
        let l = d.path().join("l");
        symlink(&a, &l).unwrap();
        assert!(validate(&[f("--csv", &l), f("--json", &a)], &[]).is_err());
        let dash = Path::new("-");
        let err = validate(&[f("--json", dash), f("--csv", dash)], &[]).unwrap_err();
        assert!(err.contains("stdout"), "{err}");
        let b = d.path().join("o.csv");
        assert!(validate(&[f("--json", &a), f("--csv", &b), f("--raw", dash)], &[]).is_ok());
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            3,
            "no probe left"
        );
    }

    #[test]
    fn block_devices_sockets_and_directory_names_are_refused() {
        let d = tmp();
        let sock = d.path().join("sock");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let e = resolve(&sock).unwrap_err().to_string();
        assert!(e.starts_with("is a socket"), "{e}");
        let blk = d.path().join("blk");
        // An unconnected loop minor of our own.
        if mknod(&blk, libc::S_IFBLK, (7, 200)) {
            let e = resolve(&blk).unwrap_err().to_string();
            assert!(e.starts_with("is a block device"), "{e}");
            let err = validate(&[Output::file("--json", &blk)], &[]).unwrap_err();
            assert!(err.contains("is a block device"), "{err}");
            assert!(std::fs::metadata(&blk)
                .unwrap()
                .file_type()
                .is_block_device());
        }
        for p in ["", "new/", "new/.", "new/..", ".", ".."] {
            assert!(resolve(Path::new(p)).is_err(), "{p:?}");
        }
        let new = d.path().join("newdir/");
        let err = validate(&[Output::file("--json", &new)], &[]).unwrap_err();
        assert!(err.contains("names a directory"), "{err}");
        assert!(!d.path().join("newdir").exists());
    }

    #[test]
    fn outputs_never_overwrite_inputs() {
        let d = tmp();
        let hosts = d.path().join("hosts");
        std::fs::write(&hosts, "node1\n").unwrap();
        let l = d.path().join("l");
        symlink(&hosts, &l).unwrap();
        for out in [&hosts, &l] {
            let err =
                validate(&[Output::file("--json", out)], &[("--hostfile", &hosts)]).unwrap_err();
            assert!(
                err.contains("would overwrite the --hostfile input"),
                "{err}"
            );
        }
        let err = validate(&[Output::file("-o", &hosts)], &[("", &hosts)]).unwrap_err();
        assert!(err.contains("would overwrite the input"), "{err}");
        let other = d.path().join("o.json");
        assert!(validate(&[Output::file("--json", &other)], &[("--hostfile", &hosts)]).is_ok());
        assert_eq!(std::fs::read_to_string(&hosts).unwrap(), "node1\n");
    }

    #[test]
    fn directory_outputs_are_checked_like_files() {
        let d = tmp();
        let f = d.path().join("f");
        std::fs::write(&f, "keep").unwrap();
        let err = validate(&[Output::dir("--plots", &f)], &[]).unwrap_err();
        assert!(err.ends_with("not a directory"), "{err}");
        let deep = d.path().join("a/b/c");
        assert!(validate(&[Output::dir("--plots", &deep)], &[]).is_ok());
        assert!(!d.path().join("a").exists(), "nothing created");
        let p = d.path().join("p");
        let err = validate(
            &[Output::file("--json", &p), Output::dir("--plots", &p)],
            &[],
        )
        .unwrap_err();
        assert!(err.contains("same file"), "{err}");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no probe left"
        );
    }

    #[test]
    fn a_second_writer_of_one_file_is_refused() {
        let d = tmp();
        let j = d.path().join("j.json");
        let other = d.path().join("k.json");
        let o = [Output::file("--json", &j)];
        lock(&o).unwrap();
        // Another process would be refused; so is this one a second time.
        let err = lock(&o).unwrap_err();
        assert!(
            err.contains("is being written by another mpibench run (pid"),
            "{err}"
        );
        let via = d.path().join(".").join("j.json");
        assert!(lock(&[Output::file("--csv", &via)]).is_err(), "same file");
        lock(&[Output::file("--json", &other)]).unwrap();
        lock(&[Output::file("--json", Path::new("-"))]).unwrap();
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            0,
            "no lock file"
        );
        LOCKS.lock().unwrap().clear();
        lock(&o).unwrap();
        LOCKS.lock().unwrap().clear();
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
