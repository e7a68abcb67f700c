//! The only module that touches rsmpi and `mpi::ffi`.
//!
//! Everything here takes byte counts as `usize`; messages of 2 GiB and more
//! are sent with a derived contiguous datatype (see [`ByteType`]), so callers
//! never see the `int` count limit of MPI-3.

use std::ffi::{c_int, c_void, CStr};
use std::ptr;

use mpi::ffi;

pub mod buffer;
pub use buffer::Buffer;

extern "C" {
    fn mpibench_mpi_byte() -> ffi::MPI_Datatype;
    fn mpibench_large_count() -> c_int;
    fn mpibench_send_c(
        b: *const c_void,
        n: usize,
        dest: c_int,
        tag: c_int,
        c: ffi::MPI_Comm,
    ) -> c_int;
    fn mpibench_recv_c(b: *mut c_void, n: usize, src: c_int, tag: c_int, c: ffi::MPI_Comm)
        -> c_int;
    fn mpibench_isend_c(
        b: *const c_void,
        n: usize,
        dest: c_int,
        tag: c_int,
        c: ffi::MPI_Comm,
        r: *mut ffi::MPI_Request,
    ) -> c_int;
    fn mpibench_sendrecv_c(
        s: *const c_void,
        n: usize,
        dest: c_int,
        r: *mut c_void,
        src: c_int,
        tag: c_int,
        c: ffi::MPI_Comm,
    ) -> c_int;
    fn mpibench_bcast_c(b: *mut c_void, n: usize, root: c_int, c: ffi::MPI_Comm) -> c_int;
}

/// Whether messages beyond `i32::MAX` bytes go through the MPI-4 `_c`
/// large-count calls (true with MPICH 4) rather than derived datatypes.
pub fn large_count_calls() -> bool {
    unsafe { mpibench_large_count() != 0 }
}

/// A message too large for an `int` count that the library can send with MPI-4 `_c` calls.
#[inline]
fn use_c(n: usize) -> bool {
    n > i32::MAX as usize && large_count_calls()
}

/// `MPI_BYTE`, the datatype PMB uses for every non-reduction benchmark.
pub fn mpi_byte() -> ffi::MPI_Datatype {
    // SAFETY: returns a predefined handle; valid before and after MPI_Init.
    unsafe { mpibench_mpi_byte() }
}

/// `MPI_FLOAT`, the datatype PMB uses for reductions.
pub fn mpi_float() -> ffi::MPI_Datatype {
    unsafe { ffi::RSMPI_FLOAT }
}

fn mpi_sum() -> ffi::MPI_Op {
    unsafe { ffi::RSMPI_SUM }
}

/// `MPI_Wtime`.
#[inline(always)]
pub fn wtime() -> f64 {
    unsafe { ffi::RSMPI_Wtime() }
}

/// `MPI_Get_library_version`: allowed before `MPI_Init`, which the self-launcher uses.
pub fn library_version() -> String {
    let mut buf = vec![0u8; 8192];
    let mut len: c_int = 0;
    unsafe {
        ffi::MPI_Get_library_version(buf.as_mut_ptr() as *mut _, &mut len);
    }
    let s = CStr::from_bytes_until_nul(&buf)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `MPI_Get_version`: the (major, minor) MPI standard version the library implements.
pub fn mpi_version() -> (i32, i32) {
    let (mut a, mut b) = (0, 0);
    unsafe {
        ffi::MPI_Get_version(&mut a, &mut b);
    }
    (a, b)
}

/// `MPI_Get_processor_name`.
pub fn processor_name() -> String {
    let mut buf = vec![0u8; 1024];
    let mut len: c_int = 0;
    unsafe {
        ffi::MPI_Get_processor_name(buf.as_mut_ptr() as *mut _, &mut len);
    }
    String::from_utf8_lossy(&buf[..len.max(0) as usize]).into_owned()
}

/// `MPI_Wtick`.
pub fn wtick() -> f64 {
    unsafe { ffi::RSMPI_Wtick() }
}

/// `MPI_Abort(MPI_COMM_WORLD, code)`: ends every process of the job.
pub fn abort(code: i32) -> ! {
    unsafe {
        ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, code);
    }
    std::process::exit(code)
}

/// A byte count expressed as an MPI (datatype, count) pair.
///
/// Up to `i32::MAX` bytes this is (`MPI_BYTE`, n), exactly as PMB sends.
/// Beyond, it is one element of a committed derived type built from
/// contiguous 1 GiB chunks plus a tail, which works with MPI-3 libraries
/// (Open MPI 4.1) as well as MPI-4 ones.
pub struct ByteType {
    pub dt: ffi::MPI_Datatype,
    pub count: c_int,
    owned: bool,
}

const CHUNK: usize = 1 << 30;

impl ByteType {
    pub fn new(n: usize) -> ByteType {
        if n <= i32::MAX as usize {
            return ByteType {
                dt: mpi_byte(),
                count: n as c_int,
                owned: false,
            };
        }
        ByteType::element(n)
    }

    /// Always one element of a derived type of `n` bytes (n > 0).
    pub fn element(n: usize) -> ByteType {
        if n <= i32::MAX as usize {
            let mut dt = mpi_byte();
            unsafe {
                ffi::MPI_Type_contiguous(n as c_int, mpi_byte(), &mut dt);
                ffi::MPI_Type_commit(&mut dt);
            }
            return ByteType {
                dt,
                count: 1,
                owned: true,
            };
        }
        let q = n / CHUNK;
        let r = n % CHUNK;
        unsafe {
            let mut chunk = ffi::RSMPI_DATATYPE_NULL;
            ffi::MPI_Type_contiguous(CHUNK as c_int, mpi_byte(), &mut chunk);
            let mut body = ffi::RSMPI_DATATYPE_NULL;
            ffi::MPI_Type_contiguous(q as c_int, chunk, &mut body);
            let mut whole = body;
            if r > 0 {
                let lens = [1 as c_int, r as c_int];
                let displs = [0 as ffi::MPI_Aint, (q * CHUNK) as ffi::MPI_Aint];
                let types = [body, mpi_byte()];
                let mut st = ffi::RSMPI_DATATYPE_NULL;
                ffi::MPI_Type_create_struct(
                    2,
                    lens.as_ptr(),
                    displs.as_ptr(),
                    types.as_ptr(),
                    &mut st,
                );
                ffi::MPI_Type_free(&mut body);
                whole = st;
            }
            ffi::MPI_Type_commit(&mut whole);
            ffi::MPI_Type_free(&mut chunk);
            ByteType {
                dt: whole,
                count: 1,
                owned: true,
            }
        }
    }
}

impl Drop for ByteType {
    fn drop(&mut self) {
        if self.owned {
            unsafe {
                ffi::MPI_Type_free(&mut self.dt);
            }
        }
    }
}

/// Element count of `n` floats as a C int; reductions beyond 2^31 floats are refused by the plan.
fn fcount(n: usize) -> c_int {
    assert!(
        n <= i32::MAX as usize,
        "reduction of {n} floats exceeds the MPI count range"
    );
    n as c_int
}

/// A request handle of a nonblocking operation.
pub type Request = ffi::MPI_Request;

pub fn request_null() -> Request {
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

/// `MPI_Waitall` ignoring statuses.
#[inline]
pub fn waitall(reqs: &mut [Request]) {
    unsafe {
        ffi::MPI_Waitall(
            reqs.len() as c_int,
            reqs.as_mut_ptr(),
            ffi::RSMPI_STATUSES_IGNORE,
        );
    }
}

/// `MPI_Wait` ignoring the status.
#[inline]
pub fn wait(req: &mut Request) {
    unsafe {
        ffi::MPI_Wait(req, ffi::RSMPI_STATUS_IGNORE);
    }
}

/// A communicator with its rank and size cached.
#[derive(Clone, Copy)]
pub struct Comm {
    raw: ffi::MPI_Comm,
    pub rank: usize,
    pub size: usize,
}

impl Comm {
    pub fn world() -> Comm {
        Comm::from_raw(unsafe { ffi::RSMPI_COMM_WORLD })
    }

    fn from_raw(raw: ffi::MPI_Comm) -> Comm {
        let (mut r, mut s) = (0, 0);
        unsafe {
            ffi::MPI_Comm_rank(raw, &mut r);
            ffi::MPI_Comm_size(raw, &mut s);
        }
        Comm {
            raw,
            rank: r as usize,
            size: s as usize,
        }
    }

    /// `MPI_Comm_split`; `None` colour means `MPI_UNDEFINED` (no new communicator).
    pub fn split(&self, color: Option<usize>, key: usize) -> Option<Comm> {
        let c = match color {
            Some(c) => c as c_int,
            None => unsafe { ffi::RSMPI_UNDEFINED },
        };
        let mut out = unsafe { ffi::RSMPI_COMM_NULL };
        unsafe {
            ffi::MPI_Comm_split(self.raw, c, key as c_int, &mut out);
        }
        if color.is_none() {
            None
        } else {
            Some(Comm::from_raw(out))
        }
    }

    /// `MPI_Comm_free` (never call on the world communicator).
    pub fn free(mut self) {
        unsafe {
            ffi::MPI_Comm_free(&mut self.raw);
        }
    }

    #[inline]
    pub fn barrier(&self) {
        unsafe {
            ffi::MPI_Barrier(self.raw);
        }
    }

    #[inline]
    pub fn send(&self, buf: *const u8, n: usize, dest: usize, tag: i32) {
        if use_c(n) {
            unsafe { mpibench_send_c(buf as *const c_void, n, dest as c_int, tag, self.raw) };
            return;
        }
        let t = ByteType::new(n);
        unsafe {
            ffi::MPI_Send(
                buf as *const c_void,
                t.count,
                t.dt,
                dest as c_int,
                tag,
                self.raw,
            );
        }
    }

    #[inline]
    pub fn recv(&self, buf: *mut u8, n: usize, src: usize, tag: i32) {
        if use_c(n) {
            unsafe { mpibench_recv_c(buf as *mut c_void, n, src as c_int, tag, self.raw) };
            return;
        }
        let t = ByteType::new(n);
        unsafe {
            ffi::MPI_Recv(
                buf as *mut c_void,
                t.count,
                t.dt,
                src as c_int,
                tag,
                self.raw,
                ffi::RSMPI_STATUS_IGNORE,
            );
        }
    }

    #[inline]
    pub fn isend(&self, buf: *const u8, n: usize, dest: usize, tag: i32) -> Request {
        let mut req = request_null();
        if use_c(n) {
            unsafe {
                mpibench_isend_c(
                    buf as *const c_void,
                    n,
                    dest as c_int,
                    tag,
                    self.raw,
                    &mut req,
                )
            };
            return req;
        }
        let t = ByteType::new(n);
        unsafe {
            ffi::MPI_Isend(
                buf as *const c_void,
                t.count,
                t.dt,
                dest as c_int,
                tag,
                self.raw,
                &mut req,
            );
        }
        req
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn sendrecv(
        &self,
        sbuf: *const u8,
        n: usize,
        dest: usize,
        rbuf: *mut u8,
        src: usize,
        tag: i32,
    ) {
        if use_c(n) {
            unsafe {
                mpibench_sendrecv_c(
                    sbuf as *const c_void,
                    n,
                    dest as c_int,
                    rbuf as *mut c_void,
                    src as c_int,
                    tag,
                    self.raw,
                )
            };
            return;
        }
        let t = ByteType::new(n);
        unsafe {
            ffi::MPI_Sendrecv(
                sbuf as *const c_void,
                t.count,
                t.dt,
                dest as c_int,
                tag,
                rbuf as *mut c_void,
                t.count,
                t.dt,
                src as c_int,
                tag,
                self.raw,
                ffi::RSMPI_STATUS_IGNORE,
            );
        }
    }

    #[inline]
    pub fn bcast(&self, buf: *mut u8, n: usize, root: usize) {
        if use_c(n) {
            unsafe { mpibench_bcast_c(buf as *mut c_void, n, root as c_int, self.raw) };
            return;
        }
        let t = ByteType::new(n);
        unsafe {
            ffi::MPI_Bcast(buf as *mut c_void, t.count, t.dt, root as c_int, self.raw);
        }
    }

    #[inline]
    pub fn allgather(&self, sbuf: *const u8, n: usize, rbuf: *mut u8) {
        let t = ByteType::new(n);
        unsafe {
            ffi::MPI_Allgather(
                sbuf as *const c_void,
                t.count,
                t.dt,
                rbuf as *mut c_void,
                t.count,
                t.dt,
                self.raw,
            );
        }
    }

    /// `MPI_Allgatherv` with counts and displacements in units of the element type of `n` bytes.
    #[inline]
    pub fn allgatherv(
        &self,
        sbuf: *const u8,
        n: usize,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: bool,
    ) {
        let t = if unit {
            ByteType::element(n)
        } else {
            ByteType::new(n)
        };
        unsafe {
            ffi::MPI_Allgatherv(
                sbuf as *const c_void,
                t.count,
                t.dt,
                rbuf as *mut c_void,
                counts.as_ptr(),
                displs.as_ptr(),
                t.dt,
                self.raw,
            );
        }
    }

    #[inline]
    pub fn alltoall(&self, sbuf: *const u8, n: usize, rbuf: *mut u8) {
        let t = ByteType::new(n);
        unsafe {
            ffi::MPI_Alltoall(
                sbuf as *const c_void,
                t.count,
                t.dt,
                rbuf as *mut c_void,
                t.count,
                t.dt,
                self.raw,
            );
        }
    }

    #[inline]
    pub fn reduce_f32(&self, sbuf: *const f32, rbuf: *mut f32, n: usize, root: usize) {
        unsafe {
            ffi::MPI_Reduce(
                sbuf as *const c_void,
                rbuf as *mut c_void,
                fcount(n),
                mpi_float(),
                mpi_sum(),
                root as c_int,
                self.raw,
            );
        }
    }

    #[inline]
    pub fn allreduce_f32(&self, sbuf: *const f32, rbuf: *mut f32, n: usize) {
        unsafe {
            ffi::MPI_Allreduce(
                sbuf as *const c_void,
                rbuf as *mut c_void,
                fcount(n),
                mpi_float(),
                mpi_sum(),
                self.raw,
            );
        }
    }

    #[inline]
    pub fn reduce_scatter_f32(&self, sbuf: *const f32, rbuf: *mut f32, counts: &[c_int]) {
        unsafe {
            ffi::MPI_Reduce_scatter(
                sbuf as *const c_void,
                rbuf as *mut c_void,
                counts.as_ptr(),
                mpi_float(),
                mpi_sum(),
                self.raw,
            );
        }
    }

    /// Maximum of one f64 over the communicator, on every rank.
    pub fn allreduce_max(&self, x: f64) -> f64 {
        let mut out = 0.0f64;
        unsafe {
            ffi::MPI_Allreduce(
                &x as *const f64 as *const c_void,
                &mut out as *mut f64 as *mut c_void,
                1,
                ffi::RSMPI_DOUBLE,
                ffi::RSMPI_MAX,
                self.raw,
            );
        }
        out
    }

    /// Gathers an equal-length f64 record from every rank to `root` (rank-major).
    pub fn gather_f64(&self, rec: &[f64], root: usize) -> Vec<f64> {
        let mut out = if self.rank == root {
            vec![0.0; rec.len() * self.size]
        } else {
            Vec::new()
        };
        let rptr = if self.rank == root {
            out.as_mut_ptr() as *mut c_void
        } else {
            ptr::null_mut()
        };
        unsafe {
            ffi::MPI_Gather(
                rec.as_ptr() as *const c_void,
                rec.len() as c_int,
                ffi::RSMPI_DOUBLE,
                rptr,
                rec.len() as c_int,
                ffi::RSMPI_DOUBLE,
                root as c_int,
                self.raw,
            );
        }
        out
    }

    /// Gathers variable-length f64 vectors to `root`; returns one vector per rank there.
    pub fn gatherv_f64(&self, rec: &[f64], root: usize) -> Vec<Vec<f64>> {
        let lens = self.gather_f64(&[rec.len() as f64], root);
        let counts: Vec<c_int> = lens.iter().map(|&l| l as c_int).collect();
        let mut displs = Vec::with_capacity(counts.len());
        let mut acc = 0;
        for &c in &counts {
            displs.push(acc);
            acc += c;
        }
        let mut all = vec![0.0f64; acc as usize];
        unsafe {
            ffi::MPI_Gatherv(
                rec.as_ptr() as *const c_void,
                rec.len() as c_int,
                ffi::RSMPI_DOUBLE,
                all.as_mut_ptr() as *mut c_void,
                counts.as_ptr(),
                displs.as_ptr(),
                ffi::RSMPI_DOUBLE,
                root as c_int,
                self.raw,
            );
        }
        if self.rank != root {
            return Vec::new();
        }
        counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
            .collect()
    }

    /// Broadcasts a byte vector of any length from `root`.
    pub fn bcast_vec(&self, data: &mut Vec<u8>, root: usize) {
        let mut len = data.len() as u64;
        unsafe {
            ffi::MPI_Bcast(
                &mut len as *mut u64 as *mut c_void,
                1,
                ffi::RSMPI_UINT64_T,
                root as c_int,
                self.raw,
            );
        }
        data.resize(len as usize, 0);
        self.bcast(data.as_mut_ptr(), data.len(), root);
    }

    /// Gathers one string per rank to `root`.
    pub fn gather_strings(&self, s: &str, root: usize) -> Vec<String> {
        let v: Vec<f64> = s.bytes().map(f64::from).collect();
        self.gatherv_f64(&v, root)
            .into_iter()
            .map(|b| {
                String::from_utf8_lossy(&b.iter().map(|&x| x as u8).collect::<Vec<_>>())
                    .into_owned()
            })
            .collect()
    }

    /// Number of ranks sharing this rank's node (`MPI_Comm_split_type` shared).
    pub fn node_size(&self) -> usize {
        let mut out = unsafe { ffi::RSMPI_COMM_NULL };
        unsafe {
            ffi::MPI_Comm_split_type(
                self.raw,
                ffi::RSMPI_COMM_TYPE_SHARED,
                self.rank as c_int,
                ffi::RSMPI_INFO_NULL,
                &mut out,
            );
        }
        let c = Comm::from_raw(out);
        let n = c.size;
        c.free();
        n
    }

    /// Broadcasts one f64 from `root`.
    pub fn bcast_f64(&self, x: f64, root: usize) -> f64 {
        let mut v = x;
        unsafe {
            ffi::MPI_Bcast(
                &mut v as *mut f64 as *mut c_void,
                1,
                ffi::RSMPI_DOUBLE,
                root as c_int,
                self.raw,
            );
        }
        v
    }

    /// Element-wise reduction of an f64 vector in place, on every rank.
    fn allreduce_vec(&self, v: &mut [f64], op: ffi::MPI_Op) {
        if v.is_empty() {
            return;
        }
        let send = v.to_vec();
        unsafe {
            ffi::MPI_Allreduce(
                send.as_ptr() as *const c_void,
                v.as_mut_ptr() as *mut c_void,
                v.len() as c_int,
                ffi::RSMPI_DOUBLE,
                op,
                self.raw,
            );
        }
    }

    pub fn allreduce_max_vec(&self, v: &mut [f64]) {
        self.allreduce_vec(v, unsafe { ffi::RSMPI_MAX });
    }

    pub fn allreduce_min_vec(&self, v: &mut [f64]) {
        self.allreduce_vec(v, unsafe { ffi::RSMPI_MIN });
    }

    /// Sends f64 values (clock exchanges).
    #[inline]
    pub fn send_f64(&self, v: &[f64], dest: usize, tag: i32) {
        self.send(v.as_ptr() as *const u8, 8 * v.len(), dest, tag);
    }

    /// Receives f64 values (clock exchanges).
    #[inline]
    pub fn recv_f64(&self, v: &mut [f64], src: usize, tag: i32) {
        self.recv(v.as_mut_ptr() as *mut u8, 8 * v.len(), src, tag);
    }

    /// A barrier built from point-to-point messages only (the dissemination
    /// algorithm of Hensgen, Finkel and Manber): ceil(log2 n) rounds, in round
    /// k each rank signals rank + 2^k and waits for rank - 2^k. Its exit
    /// skew does not depend on the MPI library's barrier algorithm.
    pub fn dissemination_barrier(&self) {
        self.dissemination(|to, from| {
            let token = [0u8; 1];
            let mut got = [0u8; 1];
            self.sendrecv(token.as_ptr(), 0, to, got.as_mut_ptr(), from, 0x5e);
        });
    }

    /// The rounds of a dissemination barrier: `signal(to, from)` for
    /// distances 1, 2, 4, ... < n.
    fn dissemination(&self, mut signal: impl FnMut(usize, usize)) {
        let n = self.size;
        let mut dist = 1;
        while dist < n {
            signal((self.rank + dist) % n, (self.rank + n - dist) % n);
            dist *= 2;
        }
    }

    /// `MPI_Irecv` of bytes.
    pub fn irecv(&self, buf: *mut u8, n: usize, src: usize, tag: i32) -> Request {
        let t = ByteType::new(n);
        let mut req = request_null();
        unsafe {
            ffi::MPI_Irecv(
                buf as *mut c_void,
                t.count,
                t.dt,
                src as c_int,
                tag,
                self.raw,
                &mut req,
            );
        }
        req
    }

    /// Receives f64 values, sleeping between polls instead of spinning, so
    /// that a waiting rank leaves the cores to ranks that are measuring
    /// (MPI libraries busy-poll, which starves oversubscribed nodes).
    pub fn recv_f64_polite(&self, v: &mut [f64], src: usize, tag: i32) {
        let mut r = [self.irecv(v.as_mut_ptr() as *mut u8, 8 * v.len(), src, tag)];
        wait_polite(&mut r);
    }

    /// A dissemination barrier that sleeps while it waits (see `recv_f64_polite`).
    pub fn polite_barrier(&self) {
        self.dissemination(|to, from| {
            let token = [0u8; 1];
            let mut got = [0u8; 1];
            let mut r = [
                self.irecv(got.as_mut_ptr(), 0, from, 0x5f),
                self.isend(token.as_ptr(), 0, to, 0x5f),
            ];
            wait_polite(&mut r);
        });
    }
}

/// Completes requests, sleeping 20 µs between `MPI_Testall` polls.
pub fn wait_polite(reqs: &mut [Request]) {
    loop {
        let mut flag: c_int = 0;
        unsafe {
            ffi::MPI_Testall(
                reqs.len() as c_int,
                reqs.as_mut_ptr(),
                &mut flag,
                ffi::RSMPI_STATUSES_IGNORE,
            );
        }
        if flag != 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_micros(20));
    }
}
