//! Bounded reading of every input file (results JSONs, hostfiles, IMB's
//! `-msglen` and `-input` lists, `--derived indx:FILE`, OSU's
//! `-N graph:FILE`). An input must be a regular file (or `-`, stdin, where
//! the caller allows it) no larger than a cap: a directory, a FIFO, a device
//! such as /dev/zero or a missing file is refused at once with one line,
//! before anything is read, and nothing blocks (a FIFO is never opened).
//! Stdin is read up to the cap and refused beyond it.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

const MIB: u64 = 1 << 20;

/// Results JSONs read by `report`, `plot` and `compare`.
pub const RESULTS_CAP: u64 = 256 * MIB;
/// Hostfiles, size lists, benchmark lists, index files and graph files.
pub const LIST_CAP: u64 = MIB;

/// Whether `-` means stdin for this input.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stdin {
    Allowed,
    NotAllowed,
}

/// "256 MiB", "1 MiB", "512 KiB", "100 bytes".
fn size(n: u64) -> String {
    if n >= MIB && n % MIB == 0 {
        format!("{} MiB", n / MIB)
    } else if n >= 1024 && n % 1024 == 0 {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// What a file that is not regular is, in words.
fn kind(ft: &std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Reads at most `cap` bytes from `r`; an error naming `src` when there is more.
fn take(r: impl Read, cap: u64, what: &str, src: &str) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    r.take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read {what} {src}: {e}"))?;
    if buf.len() as u64 > cap {
        return Err(format!(
            "{what} {src} is larger than the {} limit",
            size(cap)
        ));
    }
    Ok(buf)
}

/// The bytes of input `path` (`what` names it in messages, e.g. "--hostfile"),
/// at most `cap` of them; one-line errors otherwise.
pub fn read_bounded(path: &Path, cap: u64, what: &str, stdin: Stdin) -> Result<Vec<u8>, String> {
    if stdin == Stdin::Allowed && path.as_os_str() == "-" {
        return take(std::io::stdin().lock(), cap, what, "(stdin)");
    }
    let src = format!("'{}'", path.display());
    let not_regular = |ft: &std::fs::FileType| {
        format!("cannot read {what} {src}: {}, not a regular file", kind(ft))
    };
    // Refused before opening: opening a FIFO would block, a device may act.
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {what} {src}: {}", plain(&e)))?;
    if !meta.file_type().is_file() {
        return Err(not_regular(&meta.file_type()));
    }
    if meta.len() > cap {
        return Err(format!(
            "{what} {src} is larger than the {} limit ({})",
            size(cap),
            size_approx(meta.len())
        ));
    }
    // O_NONBLOCK: should the path have become a FIFO since, the open does not wait.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot read {what} {src}: {}", plain(&e)))?;
    let ft = file
        .metadata()
        .map_err(|e| format!("cannot read {what} {src}: {}", plain(&e)))?
        .file_type();
    if !ft.is_file() {
        return Err(not_regular(&ft));
    }
    take(&file as &File, cap, what, &src)
}

/// The text of input `path`: as `read_bounded`, UTF-8, a leading byte order
/// mark dropped.
pub fn read_text(path: &Path, cap: u64, what: &str, stdin: Stdin) -> Result<String, String> {
    let bytes = read_bounded(path, cap, what, stdin)?;
    text(bytes).map_err(|e| {
        let src = if stdin == Stdin::Allowed && path.as_os_str() == "-" {
            "(stdin)".to_string()
        } else {
            format!("'{}'", path.display())
        };
        format!("{what} {src} is not UTF-8 text ({e})")
    })
}

/// UTF-8 text without a leading byte order mark.
pub fn text(mut bytes: Vec<u8>) -> Result<String, std::string::FromUtf8Error> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes)
}

/// An I/O error without Rust's " (os error N)" suffix.
fn plain(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// "1.5 GiB", "300 MiB", "2048 bytes": a size for a message.
fn size_approx(n: u64) -> String {
    let f = n as f64;
    if n >= 1 << 30 {
        format!("{:.1} GiB", f / (1u64 << 30) as f64)
    } else if n >= MIB {
        format!("{:.1} MiB", f / MIB as f64)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn reads_a_regular_file_and_drops_a_bom() {
        let d = tmp();
        let p = d.path().join("h");
        std::fs::write(&p, b"\xEF\xBB\xBFnode1\n").unwrap();
        assert_eq!(
            read_text(&p, LIST_CAP, "--hostfile", Stdin::NotAllowed).unwrap(),
            "node1\n"
        );
        // The bytes are returned as they are.
        assert_eq!(
            read_bounded(&p, LIST_CAP, "--hostfile", Stdin::NotAllowed)
                .unwrap()
                .len(),
            9
        );
    }

    #[test]
    fn refuses_a_file_above_the_cap() {
        let d = tmp();
        let p = d.path().join("big");
        let f = File::create(&p).unwrap();
        f.set_len(LIST_CAP + 1).unwrap(); // sparse
        let e = read_bounded(&p, LIST_CAP, "-msglen", Stdin::NotAllowed).unwrap_err();
        assert!(e.contains("larger than the 1 MiB limit"), "{e}");
        // Exactly the cap is fine.
        f.set_len(LIST_CAP).unwrap();
        assert_eq!(
            read_bounded(&p, LIST_CAP, "-msglen", Stdin::NotAllowed)
                .unwrap()
                .len() as u64,
            LIST_CAP
        );
    }

    #[test]
    fn refuses_directories_devices_fifos_and_missing_files() {
        let d = tmp();
        let e = read_bounded(d.path(), LIST_CAP, "x", Stdin::NotAllowed).unwrap_err();
        assert!(e.ends_with("a directory, not a regular file"), "{e}");
        let e = read_bounded(Path::new("/dev/zero"), LIST_CAP, "x", Stdin::NotAllowed).unwrap_err();
        assert!(e.ends_with("a character device, not a regular file"), "{e}");
        let fifo = d.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let e = read_bounded(&fifo, LIST_CAP, "x", Stdin::NotAllowed).unwrap_err();
        assert!(e.ends_with("a FIFO, not a regular file"), "{e}");
        let e = read_bounded(&d.path().join("nope"), LIST_CAP, "x", Stdin::NotAllowed).unwrap_err();
        assert_eq!(
            e,
            format!(
                "cannot read x '{}': No such file or directory",
                d.path().join("nope").display()
            )
        );
        // `-` is a file name where stdin is not allowed.
        let e = read_bounded(Path::new("-"), LIST_CAP, "x", Stdin::NotAllowed).unwrap_err();
        assert!(e.contains("'-'"), "{e}");
    }

    #[test]
    fn take_stops_at_the_cap() {
        let e = take(std::io::repeat(0), 1000, "x", "(stdin)").unwrap_err();
        assert_eq!(e, "x (stdin) is larger than the 1000 bytes limit");
        assert_eq!(take(&[1u8; 1000][..], 1000, "x", "y").unwrap().len(), 1000);
    }

    #[test]
    fn refuses_invalid_utf8() {
        let d = tmp();
        let p = d.path().join("g");
        std::fs::write(&p, b"0,1\n\xff\n").unwrap();
        let e = read_text(&p, LIST_CAP, "-N graph:FILE", Stdin::NotAllowed).unwrap_err();
        assert!(e.contains("is not UTF-8 text"), "{e}");
    }

    #[test]
    fn sizes() {
        assert_eq!(size(RESULTS_CAP), "256 MiB");
        assert_eq!(size(512 * 1024), "512 KiB");
        assert_eq!(size_approx(3 << 30), "3.0 GiB");
    }
}
