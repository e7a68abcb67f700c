//! IMB-IO's kernels (IMB 2021.11, `IMB_write.c`, `IMB_read.c`,
//! `IMB_init_file.c`, `IMB_init_transfer.c`, `IMB_open_close.c`).
//!
//! X bytes per repetition, split in 4-byte units among the file's
//! processes (S_: one process; P_ and C_: all of the group; the first ones
//! get one unit more), each process's portion from `pos1`:
//!
//! - Indv: a file view of that portion of every X bytes, the individual
//!   file pointer; Expl: explicit offsets `pos1 + k·X`; Shared: the shared
//!   file pointer (C_: `MPI_File_write_ordered`, in rank order); Priv (and
//!   every S_): a file of each process's own, on `MPI_COMM_SELF`;
//! - writes, aggregate mode: the repetitions' writes, then
//!   `MPI_File_sync`, `MPI_Barrier`, `MPI_File_sync` inside the clock pair
//!   ([`Kernel::close`]); non-aggregate mode: that triple after every write,
//!   at most MSGS_NONAGGR repetitions; reads: aggregate mode only, from a
//!   file the group's first process filled beforehand.
//!
//! Every file of the run is named by the group's first process (a name
//! under `--io-dir` that does not exist: `mpibench-io-<pid>-<n>`, `_<rank>`
//! for private files) and sent to the others, so that every process opens
//! the same path with the same mode; it is deleted (`MPI_File_delete`, and
//! whatever side files the library left beside it) when the kernel goes,
//! and on every ending of the job (`files::register_scratch`).
//!
//! Validation (`--check`): the file's bytes are a function of their offset;
//! a checked write is read back (`MPI_File_read_at`) and compared, a read
//! compared with what it should have found. P_ Shared on several processes
//! lands in an order no process knows: its blocks are matched portion by
//! portion ([`super::shared`]).
//!
//! The non-blocking twins (S_IWrite_Indv ...) run the same kernel: the
//! blocking pass first ([`IoKernel::pure_pass`], t_pure), then the
//! non-blocking calls overlapped with CPU exploitation
//! ([`super::overlapped`]). `--io-sync` drops a file's cached pages after
//! it is filled and after a write benchmark's untimed passes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use anyhow::Result;

use crate::bench::patterns::NONAGGR_AXIS;
use crate::bench::{Benchmark, Info, Kernel, Setup};
use crate::comm::io::{self, Amode, File, Positioning};
use crate::comm::{Buffer, Comm};
use crate::contract::axis::{Point, SweepCx};
use crate::results::BenchResult;

use super::overlapped::{self, Overlap};

/// Row parameter: 1 in aggregate mode, 0 in non-aggregate mode.
pub const MODE_PARAM: &str = "aggregate";
/// Row parameter of non-aggregate rows: their most repetitions.
pub const NONAGGR_PARAM: &str = "msgs_nonaggr";
/// IMB's MSGS_NONAGGR default.
const NONAGGR: u64 = 100;
/// The most repetitions of IMB-IO's untimed sizing pass (the MSGSPERSAMPLE
/// of IMB_settings_io.h, which its calibration reads; -iter does not change it).
const CALIBRATION: usize = 50;
/// IMB's OVERALL_VOL: a read file holds at most this many bytes (or one X).
const VOLUME: usize = 40 << 20;
/// IMB's unit of the split among processes (sizeof(int)).
const UNIT: usize = 4;

/// Write or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Write,
    Read,
}

/// IMB-IO's file pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointer {
    Indv,
    Expl,
    Shared,
    Priv,
}

/// S_ (one process), P_ (all, independent calls), C_ (collective calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Single,
    Parallel,
    Collective,
}

/// One of IMB-IO's blocking benchmarks.
pub struct Io {
    pub info: &'static Info,
    pub access: Access,
    pub pointer: Pointer,
    pub who: Who,
    /// IMB-IO's non-blocking twin (`S_IWrite_Indv` ...): aggregate mode
    /// only, its blocking pass first (t_pure), then the non-blocking calls
    /// overlapped with CPU exploitation (t_ovrl).
    pub nonblocking: bool,
}

/// Process `rank`'s portion of X among `np`: (first byte, length), in
/// 4-byte units, the first ones one unit more, never beyond X.
pub fn portion(rank: usize, np: usize, x: usize) -> (usize, usize) {
    let units = x.div_ceil(UNIT);
    let (base, extra) = (units / np, units % np);
    let first = if rank < extra {
        rank * (base + 1)
    } else {
        rank * base + extra
    } * UNIT;
    let n = if rank < extra { base + 1 } else { base } * UNIT;
    let first = first.min(x);
    (first, n.min(x - first))
}

/// The byte at offset `o` of every benchmark file (and of every write).
#[inline]
pub fn pattern(o: u64) -> u8 {
    let w = ((o >> 2) as u32).wrapping_mul(2_654_435_761) ^ 0x5a5a_a5a5;
    w.to_le_bytes()[(o & 3) as usize]
}

fn fill(buf: &mut [u8], from: u64) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern(from + i as u64);
    }
}

fn nonaggr(cx: &SweepCx) -> u64 {
    cx.axis(NONAGGR_AXIS).first().map_or(NONAGGR, |&n| n as u64)
}

impl Benchmark for Io {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let agg = cx
            .sizes
            .iter()
            .map(|&x| Point::bytes(x).with(MODE_PARAM, 1u64));
        if self.access == Access::Read || self.nonblocking {
            return agg.collect();
        }
        let n = nonaggr(cx);
        let non = cx.sizes.iter().map(move |&x| {
            Point::bytes(x)
                .with(MODE_PARAM, 0u64)
                .with(NONAGGR_PARAM, n)
        });
        agg.chain(non).collect()
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        2 * p.bytes as u64 + (1 << 20)
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        (p.bytes > i32::MAX as usize).then(|| {
            format!(
                "{}: {} bytes exceed one MPI count (IMB-IO's portions are ints)",
                self.info.name, p.bytes
            )
        })
    }

    fn finished(&self, _group: &Comm) {
        let_go();
    }

    fn derive(&self, r: &mut BenchResult) {
        add_hints(r);
        if self.nonblocking {
            overlapped::derive(r);
        }
        if self.access == Access::Read {
            super::memory::flag(r, super::memory::copy_rate());
        }
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let comm = s.comm;
        let x = p.bytes;
        let np = if self.who == Who::Single {
            1
        } else {
            comm.size
        };
        let private = self.pointer == Pointer::Priv || self.who == Who::Single;
        let (pos1, len) = portion(comm.rank.min(np - 1), np, x);
        // IMB-IO makes a file per benchmark, mode and process count.
        let mode = p.u64(MODE_PARAM).unwrap_or(1);
        let key = format!("{} mode {mode} on {np} of {}", self.info.name, comm.size);
        let named = kept_or_agreed(&key, comm, private)?;
        let mut file = named.open(comm, private)?;
        let blocks = VOLUME.checked_div(x).map_or(1, |b| b.max(1));
        let (bufs, _) = (s.arena.take(&[len.max(1), len.max(1)])?, ());
        let (sb, rb) = bufs.split_at_mut(1);
        let (offset, total) = if private { (0, len) } else { (pos1, x) };
        let mut k = IoKernel {
            comm,
            access: self.access,
            pointer: self.pointer,
            collective: self.who == Who::Collective,
            private,
            file: None,
            named,
            key,
            sbuf: &mut sb[0],
            rbuf: &mut rb[0],
            len,
            offset,
            total,
            view: (self.pointer == Pointer::Indv && !private).then_some((pos1, len, x)),
            nonaggr: (p.u64(MODE_PARAM) == Some(0))
                .then(|| p.u64(NONAGGR_PARAM).unwrap_or(NONAGGR) as usize),
            idx: 0,
            blocks: 1,
            most_blocks: blocks,
            corrupt: false,
            nb: None,
        };
        if self.nonblocking {
            k.nb = Some(Overlap::new(k.named.check));
        }
        if self.access == Access::Read {
            k.prefill(&mut file, 1)?;
        }
        file.set_view(k.view)?;
        k.file = Some(file);
        Ok(Box::new(k))
    }
}

/// The serial number of the next file name this process picks.
static SERIAL: AtomicUsize = AtomicUsize::new(0);

/// The hints the library took for the first file the group's first
/// process opened (`MPI_File_get_info`).
static TAKEN: OnceLock<Vec<(String, String)>> = OnceLock::new();

/// Row parameter (on rank 0's rows): the hints the library took.
pub const HINTS_PARAM: &str = "io_hints";

/// Row parameter (on rank 0's rows): whether `--io-sync` was on ("on",
/// "off", or "on, but a tmpfs" where no page can be dropped).
pub const SYNC_PARAM: &str = "io_sync";

/// The hints taken, as a row parameter: an object of strings; and
/// whether `--io-sync` was on.
pub fn add_hints(r: &mut BenchResult) {
    let sync = super::args::sync_state();
    for row in &mut r.rows {
        row.params.insert(SYNC_PARAM.into(), sync.into());
    }
    let Some(t) = TAKEN.get() else { return };
    let obj: serde_json::Map<String, serde_json::Value> = t
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect();
    for row in &mut r.rows {
        row.params
            .insert(HINTS_PARAM.into(), serde_json::Value::Object(obj.clone()));
    }
}

/// A file's agreed name: the directory, the shared name, the hints.
#[derive(Default)]
pub struct Named {
    dir: PathBuf,
    hints: Vec<(String, String)>,
    /// This process's file (the shared name, or its private one).
    path: String,
    /// This process deletes it (the group's first, or a private file's owner).
    owner: bool,
    /// `--check` (the shorter CPU exploitation) and `--io-sync`.
    pub check: bool,
    pub sync: bool,
}

impl Named {
    /// Collective over `comm`: the first process picks a name that exists
    /// nowhere in the directory and sends it, with the directory and the
    /// hints, to the others.
    pub fn agree(comm: &Comm, private: bool) -> Result<Named> {
        let mut bytes = Vec::new();
        if comm.rank == 0 {
            let c = super::args::config();
            let prefix = free_prefix(&c.dir);
            let flags = format!(
                "{}{}",
                if c.check { "c" } else { "" },
                if c.sync { "s" } else { "" }
            );
            let mut parts = vec![c.dir.to_string_lossy().into_owned(), prefix, flags];
            for (k, v) in &c.hints {
                parts.push(k.clone());
                parts.push(v.clone());
            }
            bytes = parts.join("\0").into_bytes();
        }
        comm.bcast_vec(&mut bytes, 0);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut parts = text.split('\0').map(str::to_string);
        let dir = PathBuf::from(parts.next().unwrap_or_else(|| ".".into()));
        let prefix = parts.next().unwrap_or_default();
        let flags = parts.next().unwrap_or_default();
        let rest: Vec<String> = parts.collect();
        let hints = rest
            .chunks(2)
            .filter(|c| c.len() == 2)
            .map(|c| (c[0].clone(), c[1].clone()))
            .collect();
        // ROMIO's shared file pointer lives in a hidden file beside it.
        let hidden = format!(".{prefix}");
        for p in [&prefix, &hidden] {
            crate::files::register_scratch(&dir, p);
            if comm.rank == 0 {
                // The self-launching parent removes them if the job dies.
                crate::link::tell_scratch(&dir, p);
            }
        }
        let name = if private {
            format!("{prefix}_{}", comm.rank)
        } else {
            prefix.clone()
        };
        let path = dir.join(&name).to_string_lossy().into_owned();
        Ok(Named {
            dir,
            hints,
            path,
            owner: private || comm.rank == 0,
            check: flags.contains('c'),
            sync: flags.contains('s'),
        })
    }

    /// The file, opened as IMB-IO opens it: collectively over the group
    /// (`MPI_MODE_CREATE | MPI_MODE_RDWR`), or alone with
    /// `MPI_MODE_UNIQUE_OPEN` (a private file).
    pub fn open(&self, comm: &Comm, private: bool) -> Result<File> {
        let f = if private {
            io::open(None, &self.path, Amode::CreateRdwrUnique, &self.hints)
        } else {
            io::open(Some(comm), &self.path, Amode::CreateRdwr, &self.hints)
        };
        let f = f.map_err(|e| anyhow::anyhow!("{e} (file {})", self.path))?;
        if comm.rank == 0 && TAKEN.get().is_none() {
            let _ = TAKEN.set(f.hints().unwrap_or_default());
        }
        Ok(f)
    }

    /// What opens the file again inside a timed loop (Open_Close), made
    /// once: the path and the hints' `MPI_Info`.
    pub fn opener(&self) -> Result<io::Opener> {
        io::Opener::new(&self.path, Amode::CreateRdwr, &self.hints)
            .map_err(|e| anyhow::anyhow!("{e} (file {})", self.path))
    }

    /// Deletes the file and what the library left beside it (after the
    /// file is closed on every process).
    /// `--io-sync`: drops this process's node's cached pages of the file.
    pub fn drop_cached(&self) {
        let _ = crate::sys::drop_cached_pages(Path::new(&self.path));
    }

    pub fn remove(&self) {
        if !self.owner {
            return;
        }
        let _ = io::delete(&self.path);
        let name = Path::new(&self.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        remove_prefixed(&self.dir, &name);
    }
}

/// A prefix no entry of `dir` starts with.
fn free_prefix(dir: &Path) -> String {
    let names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    loop {
        let n = SERIAL.fetch_add(1, Ordering::Relaxed);
        let p = format!("mpibench-io-{}-{n}", std::process::id());
        // No entry may start with it (nor its hidden twin): removal by
        // prefix then takes only what this run created.
        if !names
            .iter()
            .any(|x| x.starts_with(&p) || x.starts_with(&format!(".{p}")))
        {
            return p;
        }
    }
}

/// Removes `dir/name` and the side files `name.*` and `.name.*` a library
/// leaves (OMPIO's locks and shared-pointer files, ROMIO's `.name.shfp.N`).
fn remove_prefixed(dir: &Path, name: &str) {
    let Ok(d) = std::fs::read_dir(dir) else {
        return;
    };
    for e in d.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        let side = |n: &str| n == name || n.starts_with(&format!("{name}."));
        if side(&n) || n.strip_prefix('.').is_some_and(side) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

struct IoKernel<'a> {
    comm: &'a Comm,
    access: Access,
    pointer: Pointer,
    collective: bool,
    private: bool,
    file: Option<File>,
    named: Named,
    /// What the file is kept under after this point ([`KEPT`]).
    key: String,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    /// This process's bytes per repetition (Locsize).
    len: usize,
    /// Where they start in each repetition's block (pos1; 0 in a private file).
    offset: usize,
    /// Bytes of a repetition's block in the file (X; len in a private file).
    total: usize,
    /// The individual file pointer's view (Indv): first, length, period.
    view: Option<(usize, usize, usize)>,
    nonaggr: Option<usize>,
    /// Blocks done since the file pointers were at 0.
    idx: usize,
    /// Blocks a read file holds.
    blocks: usize,
    /// The most blocks a read file is filled with.
    most_blocks: usize,
    /// `--corrupt`: damage the next comparison's data.
    corrupt: bool,
    /// The non-blocking twins' state.
    nb: Option<Overlap>,
}

impl IoKernel<'_> {
    fn positioning(&self) -> Positioning {
        match self.pointer {
            Pointer::Expl => Positioning::Explicit,
            Pointer::Shared if !self.private => Positioning::Shared,
            _ => Positioning::Individual,
        }
    }

    /// The file offset of this process's part of block `k`.
    fn file_offset(&self, k: usize) -> u64 {
        (self.offset + k * self.total) as u64
    }

    /// The offset of block `k` in the terms of the explicit calls (the
    /// view's: this process's bytes only under Indv's view).
    fn view_offset(&self, k: usize) -> u64 {
        match self.view {
            Some(_) if self.len > 0 => (k * self.len) as u64,
            _ => self.file_offset(k),
        }
    }

    /// Whether a block's place in the file is known to this process.
    fn known(&self) -> bool {
        self.pointer != Pointer::Shared || self.collective || self.private || self.comm.size <= 1
    }

    /// Fills `blocks` blocks of the file with the pattern (its first process,
    /// or each owner of a private file), before the view is set.
    fn prefill(&mut self, file: &mut File, blocks: usize) -> Result<()> {
        let bytes = blocks * self.total;
        if self.named.owner && bytes > 0 {
            let chunk = bytes.min(1 << 20);
            let mut buf = vec![0u8; chunk];
            let mut at = 0;
            while at < bytes {
                let n = chunk.min(bytes - at);
                fill(&mut buf[..n], at as u64);
                file.write(Positioning::Explicit, false, buf.as_ptr(), n, at as u64);
                at += n;
            }
        }
        file.sync();
        self.comm_of_file_barrier();
        file.sync();
        self.drop_cached();
        self.blocks = blocks;
        Ok(())
    }

    /// `--io-sync`: the file's cached pages dropped on every process's
    /// node (after the caller's MPI_File_sync), then a barrier.
    fn drop_cached(&self) {
        if self.named.sync {
            self.named.drop_cached();
            self.comm_of_file_barrier();
        }
    }

    fn comm_of_file_barrier(&self) {
        if !self.private {
            self.comm.barrier();
        }
    }

    fn settle(&mut self) {
        let private = self.private;
        let comm = self.comm;
        if let Some(f) = self.file.as_mut() {
            f.sync();
            if !private {
                comm.barrier();
            }
            f.sync();
        }
    }

    fn rewind(&mut self) {
        let shared = self.positioning() == Positioning::Shared;
        if let Some(f) = self.file.as_mut() {
            if shared {
                f.rewind_shared();
            } else {
                f.rewind();
            }
        }
        self.idx = 0;
    }

    /// P_ Shared on several processes ([`super::shared`]): a write's block
    /// read back whole by the group's first process and matched portion
    /// by portion; a read's data found in the file's pattern.
    fn compare_shared(&mut self, k: usize) -> u64 {
        let n = self.len;
        let corrupt = std::mem::take(&mut self.corrupt);
        if self.access == Access::Read {
            let got = &mut self.rbuf.bytes_mut()[..n];
            if corrupt && n > 0 {
                got[0] ^= 0x5a;
            }
            let file = (self.blocks * self.total) as u64;
            return if super::shared::found_in_file(got, file) {
                0
            } else {
                n as u64
            };
        }
        if self.comm.rank != 0 || self.total == 0 {
            return 0;
        }
        let mut block = vec![0u8; self.total];
        let off = (k * self.total) as u64;
        if let Some(f) = self.file.as_mut() {
            f.read(
                Positioning::Explicit,
                false,
                block.as_mut_ptr(),
                block.len(),
                off,
            );
        }
        if corrupt {
            block[0] ^= 0x5a;
        }
        super::shared::block_errors(&block, k, self.comm.size)
    }

    /// One repetition of a non-blocking twin: the call, one CPU
    /// exploitation, then its MPI_Wait (the end of a split collective).
    #[inline(always)]
    fn overlapped(&mut self) {
        let (pos, n) = (self.positioning(), self.len);
        if self.access == Access::Read && self.idx >= self.blocks {
            if let Some(o) = self.nb.as_mut() {
                o.complete();
            }
            self.rewind();
        }
        let off = self.file_offset(self.idx);
        let (sp, rp) = (self.sbuf.ptr(), self.rbuf.mut_ptr());
        let (Some(f), Some(o)) = (self.file.as_mut(), self.nb.as_mut()) else {
            return;
        };
        let reps = o.exploit.reps;
        let check_shared = self.named.check && pos == Positioning::Shared && !self.collective;
        match (self.access, self.collective) {
            (Access::Write, true) => {
                f.begin_write(pos, sp, n, off);
                super::cpu::product(reps);
                f.end_write(pos, sp);
            }
            (Access::Read, true) => {
                f.begin_read(pos, rp, n, off);
                super::cpu::product(reps);
                f.end_read(pos, rp);
            }
            (Access::Write, false) => {
                o.reqs.push(f.iwrite(pos, sp, n, off));
                super::cpu::product(reps);
                o.complete();
            }
            (Access::Read, false) => {
                o.reqs.push(f.iread(pos, rp, n, off));
                if check_shared {
                    // IMB's CHECK build: the shared pointer's read waited
                    // for at once, then a barrier (OMPIO hung without).
                    o.complete();
                    self.comm.barrier();
                }
                super::cpu::product(reps);
                o.complete();
            }
        }
        self.idx += 1;
    }

    /// A non-blocking twin's blocking pass (IMB-IO's first of the two; the
    /// warm-up runs the non-blocking calls, at their pace):
    /// `reps` blocking repetitions after IMB's two barriers, timed as one
    /// (a write's sync triple inside), t_pure their mean; then the file
    /// pointers back at the start, as IMB's close and reopen leave them.
    fn pure_pass(&mut self, reps: usize) {
        if let Some(o) = self.nb.as_mut() {
            (o.pure, o.blocking) = (None, true);
            o.reqs.reserve(reps);
        }
        self.comm_of_file_barrier();
        self.comm_of_file_barrier();
        let t0 = crate::comm::wtime();
        for i in 0..reps {
            self.run(i);
        }
        self.close();
        let t1 = crate::comm::wtime();
        crate::watchdog::progress(reps);
        if self.access == Access::Write {
            self.drop_cached();
        }
        if let Some(f) = self.file.as_mut() {
            f.set_view(self.view).unwrap_or_else(|e| e.end_job());
        }
        if self.positioning() == Positioning::Shared {
            self.rewind();
        }
        self.idx = 0;
        if let Some(o) = self.nb.as_mut() {
            (o.pure, o.blocking) = (Some((t1 - t0) / reps as f64), false);
        }
    }

    fn compare(&mut self, k: usize) -> u64 {
        if !self.known() {
            return self.compare_shared(k);
        }
        let from = self.file_offset(k);
        let n = self.len;
        let got = &mut self.rbuf.bytes_mut()[..n];
        if std::mem::take(&mut self.corrupt) && n > 0 {
            got[0] ^= 0x5a;
        }
        got.iter()
            .enumerate()
            .filter(|(i, &b)| b != pattern(from + *i as u64))
            .count() as u64
    }
}

impl Kernel for IoKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if self.nb.as_ref().is_some_and(|o| !o.blocking) {
            return self.overlapped();
        }
        let pos = self.positioning();
        let (coll, n) = (self.collective, self.len);
        if self.access == Access::Read && self.idx >= self.blocks {
            self.rewind();
        }
        let off = self.file_offset(self.idx);
        let (sp, rp) = (self.sbuf.ptr(), self.rbuf.mut_ptr());
        let Some(f) = self.file.as_mut() else { return };
        match self.access {
            Access::Write => f.write(pos, coll, sp, n, off),
            Access::Read => f.read(pos, coll, rp, n, off),
        }
        self.idx += 1;
        if self.access == Access::Write && self.nonaggr.is_some() {
            self.settle();
        }
    }

    fn close(&mut self) {
        if let Some(o) = self.nb.as_mut() {
            o.complete();
        }
        if self.access == Access::Write && self.nonaggr.is_none() {
            self.settle();
        }
    }

    fn closes_at_a_cost(&self) -> bool {
        // The aggregate mode's sync, once per batch; the non-blocking
        // twins' MPI_Waitall.
        (self.access == Access::Write && self.nonaggr.is_none()) || self.nb.is_some()
    }

    fn most_reps(&self) -> Option<usize> {
        self.nonaggr
    }

    /// IMB-IO sizes each point's repetitions by running them untimed
    /// (IMB_init_buffers_iter): one, then min(n, 50) (IMB_settings_io.h's
    /// MSGSPERSAMPLE, for a repetition under 20 ms), then rewinds. The
    /// timed writes overwrite the blocks that pass wrote and allocate the
    /// rest, as IMB-IO's do. A 5-repetition warm-up left them allocating
    /// nearly all, 1.5-2.8x IMB-IO's time on ext4 at -iter 50.
    fn warm_reps(&self, planned: usize) -> Option<usize> {
        Some(1 + planned.clamp(1, CALIBRATION))
    }

    /// A read file holds as many blocks as the timed repetitions read (at
    /// most OVERALL_VOL bytes): filled again, the pointers back at 0.
    fn planned(&mut self, reps: usize) {
        if let Some(o) = self.nb.as_mut() {
            o.complete();
        }
        self.settle();
        if self.access == Access::Read {
            let want = reps.clamp(1, self.most_blocks);
            if let Some(mut f) = self.file.take() {
                if want > self.blocks {
                    f.set_view(None).unwrap_or_else(|e| e.end_job());
                    self.prefill(&mut f, want)
                        .unwrap_or_else(|e| crate::comm::Error::Local(e.to_string()).end_job());
                }
                f.set_view(self.view).unwrap_or_else(|e| e.end_job());
                self.file = Some(f);
            }
        } else if let Some(f) = self.file.as_mut() {
            // Writes: the timed ones start at block 0 again.
            f.set_view(self.view).unwrap_or_else(|e| e.end_job());
            self.drop_cached();
        }
        self.idx = 0;
        if self.nb.is_some() {
            self.pure_pass(reps.max(1));
        }
    }

    fn figures(&mut self) -> Vec<crate::bench::Figure> {
        self.nb.as_ref().map(Overlap::figures).unwrap_or_default()
    }

    fn prepare(&mut self, _rep: usize) {
        let from = self.file_offset(self.idx);
        let n = self.len;
        match self.access {
            Access::Write => fill(&mut self.sbuf.bytes_mut()[..n], from),
            Access::Read => self.rbuf.bytes_mut()[..n].fill(0xee),
        }
    }

    fn verify(&mut self, _rep: usize) -> u64 {
        let k = self.idx.saturating_sub(1);
        if self.access == Access::Write {
            self.settle();
            self.drop_cached();
            let (off, n, p) = (self.view_offset(k), self.len, self.rbuf.mut_ptr());
            if let Some(f) = self.file.as_mut() {
                if n > 0 {
                    f.read(Positioning::Explicit, false, p, n, off);
                }
            }
        }
        let bad = self.compare(k);
        self.comm_of_file_barrier();
        bad
    }

    fn corrupt(&mut self) {
        self.corrupt = true;
    }
}

impl Drop for IoKernel<'_> {
    fn drop(&mut self) {
        if let Some(o) = self.nb.as_mut() {
            o.complete();
        }
        drop(self.file.take());
        self.comm_of_file_barrier();
        // Closed on every process: the next point of the same benchmark
        // writes over it; another benchmark, or `finished`, removes it.
        let named = std::mem::take(&mut self.named);
        *KEPT.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((std::mem::take(&mut self.key), named));
    }
}

/// The file a benchmark keeps from point to point on one group, with its
/// key (benchmark and process count). IMB-IO creates its file once per
/// benchmark and process count (IMB_init_file) and opens it again for
/// every size, so each size writes over the pages the smaller sizes left
/// rather than into a new file: a fresh file per point read up to 2.7x
/// slower on a tmpfs (each page allocated inside the timed writes).
static KEPT: Mutex<Option<(String, Named)>> = Mutex::new(None);

/// The kept file when `key` is its key; otherwise a new name agreed over
/// `comm` (the kept one, of another benchmark, removed first: every
/// process closed it at the end of that benchmark's last point).
fn kept_or_agreed(key: &str, comm: &Comm, private: bool) -> Result<Named> {
    let kept = KEPT.lock().unwrap_or_else(|e| e.into_inner()).take();
    match kept {
        Some((k, named)) if k == key => return Ok(named),
        Some((_, other)) => other.remove(),
        None => {}
    }
    Named::agree(comm, private)
}

/// The benchmark's last point is done: its kept file removed.
pub fn let_go() {
    let kept = KEPT.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((_, named)) = kept {
        named.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portions_split_x_in_units_and_never_pass_it() {
        assert_eq!(portion(0, 1, 4096), (0, 4096));
        assert_eq!(portion(0, 2, 4096), (0, 2048));
        assert_eq!(portion(1, 2, 4096), (2048, 2048));
        // 3 units among 2: the first gets one more.
        assert_eq!(portion(0, 2, 12), (0, 8));
        assert_eq!(portion(1, 2, 12), (8, 4));
        // X = 1: one byte, not IMB's four; the others none.
        assert_eq!(portion(0, 2, 1), (0, 1));
        assert_eq!(portion(1, 2, 1), (1, 0));
        assert_eq!(portion(3, 4, 0), (0, 0));
        for np in 1..6 {
            for x in [0, 1, 7, 100, 4097] {
                let total: usize = (0..np).map(|r| portion(r, np, x).1).sum();
                assert_eq!(total, x, "np {np}, x {x}");
            }
        }
    }

    #[test]
    fn the_pattern_depends_on_the_offset() {
        let a: Vec<u8> = (0..64).map(pattern).collect();
        let b: Vec<u8> = (64..128).map(pattern).collect();
        assert_ne!(a, b);
    }
}
