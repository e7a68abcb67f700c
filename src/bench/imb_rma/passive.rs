//! IMB-RMA's Truly_passive_put (`IMB_rma_passive_put`): whether a put
//! progresses while its target computes. Rank 0 holds a shared lock of
//! rank 1's window (taken when the point's kernel is built); a repetition
//! is `MPI_Put`, `MPI_Win_flush` and `MPI_Barrier` on rank 0, and on rank 1
//! the barrier alone (t_pure: the pure loop, run once the repetitions are
//! planned) or after computing for rank 0's t_pure (t_ovrl: the timed
//! repetitions). A library that moves the data only when the target calls
//! MPI reads t_ovrl near t_pure + the computation.

use anyhow::Result;

use crate::bench::{Benchmark, Combine, Figure, Info, Kernel, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::rma::{Window, WindowKind};
use crate::comm::{self, Buffer, Comm, Msg};
use crate::contract::axis::{Point, SweepCx};

/// Row parameter: rank 0's time per repetition while rank 1 waits (µs).
pub const T_PURE: &str = "t_pure_us";

pub struct TrulyPassive {
    pub info: &'static Info,
}

impl Benchmark for TrulyPassive {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        super::kernel::mode_points(
            &super::kernel::lengths(super::kernel::Op::Put, cx.sizes),
            false,
            cx,
        )
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        4 * p.bytes as u64
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        (p.bytes > i32::MAX as usize).then(|| {
            format!(
                "{}: {} bytes exceed one MPI count (IMB-RMA's lengths are ints)",
                self.info.name, p.bytes
            )
        })
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let x = p.bytes;
        let (win, bufs) = s.arena.window(s.comm, WindowKind::Create, x, &[x.max(1)])?;
        let [sbuf] = bufs else {
            anyhow::bail!("one buffer was asked for");
        };
        let k = PassiveKernel {
            comm: s.comm,
            win,
            sbuf,
            scratch: Buffer::try_new(x.max(1)).map_err(|e| anyhow::anyhow!("{e}"))?,
            msg: Msg::bytes(x)?,
            x,
            origin: s.comm.rank == 0,
            busy: None,
            pure: None,
        };
        if k.origin {
            k.win.lock_shared(1);
        }
        Ok(Box::new(k))
    }
}

struct PassiveKernel<'a> {
    comm: &'a Comm,
    win: &'a mut Window,
    sbuf: &'a mut Buffer,
    scratch: Buffer,
    msg: Msg,
    x: usize,
    origin: bool,
    /// Seconds rank 1 computes before each barrier (rank 0's t_pure), once
    /// the pure loop has run.
    busy: Option<f64>,
    /// Rank 0's t_pure (seconds), to report.
    pure: Option<f64>,
}

impl PassiveKernel<'_> {
    /// Computation for `target` seconds (IMB_cpu_exploit's part).
    #[inline(always)]
    fn compute(target: f64) {
        let t0 = comm::wtime();
        while comm::wtime() - t0 < target {
            std::hint::spin_loop();
        }
    }

    #[inline(always)]
    fn put(&self) {
        self.win
            .put(self.sbuf.ptr(), self.msg.count, self.msg.dt, 1, 0);
        self.win.flush(1);
    }
}

impl Drop for PassiveKernel<'_> {
    fn drop(&mut self) {
        if self.origin {
            self.win.unlock(1);
        }
    }
}

impl Kernel for PassiveKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if self.origin {
            self.put();
        } else if let Some(t) = self.busy {
            Self::compute(t);
        }
        self.comm.barrier();
    }

    /// The pure loop: `reps` repetitions while rank 1 only waits; rank 0's
    /// time per repetition becomes rank 1's computation.
    fn planned(&mut self, reps: usize) {
        let reps = reps.max(1);
        self.busy = None;
        self.comm.barrier();
        let t0 = comm::wtime();
        for i in 0..reps {
            self.run(i);
            crate::watchdog::progress(1);
        }
        let t = (comm::wtime() - t0) / reps as f64;
        let pure = self.comm.bcast_f64(t, 0);
        self.busy = Some(pure);
        self.pure = self.origin.then_some(pure);
    }

    fn figures(&mut self) -> Vec<Figure> {
        match self.pure {
            Some(t) => vec![Figure::new(T_PURE, t * 1e6, Combine::Max)],
            None => Vec::new(),
        }
    }

    fn prepare(&mut self, rep: usize) {
        if self.origin {
            let x = self.x;
            check::fill_bytes(&mut self.sbuf.bytes_mut()[..x], 0, rep, x);
        } else {
            let x = self.x;
            check::fill_bytes(&mut self.win.bytes_mut()[..x], usize::MAX, rep, x);
        }
        // No put of this repetition before the window is laid out.
        self.comm.barrier();
    }

    /// Rank 1's window holds rank 0's bytes (the repetition's barrier
    /// follows the flush).
    fn verify(&mut self, rep: usize) -> u64 {
        if self.origin {
            return 0;
        }
        let x = self.x;
        self.scratch.bytes_mut()[..x].copy_from_slice(&self.win.bytes()[..x]);
        let e = Expect::Bytes(vec![Segment {
            offset: 0,
            len: x,
            sender: 0,
            sender_offset: 0,
        }]);
        check::verify(&e, &self.scratch, crate::comm::Elem::Byte, 2, rep, x)
    }

    fn corrupt(&mut self) {
        if !self.origin && self.x > 0 {
            self.win.bytes_mut()[0] ^= 0x40;
        }
    }
}
