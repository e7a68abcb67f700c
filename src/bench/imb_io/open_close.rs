//! IMB-IO's Open_Close: per repetition, the group opens the file
//! collectively (`MPI_MODE_CREATE | MPI_MODE_RDWR`), writes one byte
//! through its individual file pointer, and closes it. The path and the
//! hints' `MPI_Info` are made once, as IMB-IO's, so that the timed loop
//! holds the three calls only.

use anyhow::Result;

use super::file::Named;
use crate::bench::{Benchmark, Info, Kernel, Setup};
use crate::comm::io::{Opener, Positioning};
use crate::comm::Comm;
use crate::contract::axis::Point;

pub struct OpenClose {
    pub info: &'static Info,
}

impl Benchmark for OpenClose {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn need(&self, _p: &Point, _q: usize) -> u64 {
        1 << 20
    }

    fn derive(&self, r: &mut crate::results::BenchResult) {
        super::file::add_hints(r);
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, _p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let named = Named::agree(s.comm, false)?;
        // The file exists before the first repetition, as IMB's does.
        named.open(s.comm, false)?.close()?;
        Ok(Box::new(OpenCloseKernel {
            comm: s.comm,
            opener: named.opener()?,
            named,
            byte: [0u8; 1],
        }))
    }
}

struct OpenCloseKernel<'a> {
    comm: &'a Comm,
    /// The path and hints, made once (IMB-IO's `c_info->filename`, `->info`).
    opener: Opener,
    named: Named,
    byte: [u8; 1],
}

impl Kernel for OpenCloseKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        let mut f = self
            .opener
            .open(Some(self.comm))
            .unwrap_or_else(|e| e.end_job());
        f.write(Positioning::Individual, false, self.byte.as_ptr(), 1, 0);
        f.close().unwrap_or_else(|e| e.end_job());
    }
}

impl Drop for OpenCloseKernel<'_> {
    fn drop(&mut self) {
        self.comm.barrier();
        self.named.remove();
    }
}
