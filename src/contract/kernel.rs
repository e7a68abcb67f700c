//! What one repetition does ([`Kernel`]), and the hook through which the
//! timed loops above the contract are monomorphised per kernel type.

use super::figure::Figure;
use super::Method;

/// What one repetition does, and nothing else.
pub trait Kernel {
    /// One repetition: the measured MPI calls only.
    fn run(&mut self, rep: usize);

    /// Before a checked repetition, untimed: fill send data, poison receive buffers.
    fn prepare(&mut self, _rep: usize) {}

    /// Before the synchronisation of every repetition timed alone, untimed
    /// (after `prepare`): e.g. COMMTEST's prepost of the first receive. A
    /// kernel whose `run` is called without it (warm-up, loop timing) does
    /// it inside `run`.
    fn stage(&mut self, _rep: usize) {}

    /// After a checked repetition, untimed: the number of wrong elements received.
    fn verify(&mut self, _rep: usize) -> u64 {
        0
    }

    /// `--corrupt` test hook: damage received data after a repetition.
    fn corrupt(&mut self) {}

    /// The reference of delay subtraction: the delay alone, without the operation.
    fn reference(&mut self, _rep: usize) {}

    /// Split-completion timing (mpiGraph): starts the repetition's sends and
    /// receives without waiting for them (default: the whole repetition).
    fn start(&mut self, rep: usize) {
        self.run(rep)
    }

    /// Split-completion timing: whether this rank's sends (or receives) of
    /// the repetition begun by [`Kernel::start`] have completed; MPI test
    /// calls only (default: done, since `start` ran the whole repetition).
    fn test(&mut self, _side: Side) -> bool {
        true
    }

    /// Figures this rank measured besides the method's times since the last
    /// call, which resets them (e.g. the calc time a CRESTA scenario
    /// achieved). The engine drops those of the warm-up and puts the others,
    /// combined over the ranks that report them, into the row's `params`.
    fn figures(&mut self) -> Vec<Figure> {
        Vec::new()
    }

    /// Before the synchronisation of a batch of repetitions, untimed (IMB-EXT's
    /// aggregate modes: the MPI_Win_fence that opens the epoch).
    fn open(&mut self) {}

    /// After the repetitions of a batch, inside its clock pair: what
    /// completes them all at once (IMB-EXT's aggregate modes: the closing
    /// MPI_Win_fence). Methods that time each repetition alone call it after
    /// each one, inside its clock pair.
    fn close(&mut self) {}

    /// Whether `close` costs a time of its own once per batch, beside the
    /// repetitions' (a file's sync): batches of unequal sizes then differ
    /// in pace by nature, and are not compared for disturbances.
    fn closes_at_a_cost(&self) -> bool {
        false
    }

    /// Untimed repetitions before the timed ones, where the kernel needs
    /// more than the policy's warm-up (a user's `--warmup` still wins):
    /// IMB-IO's iteration calibration runs a whole pass over the same
    /// blocks before the timed one, so that its timed writes overwrite
    /// blocks the file already holds.
    fn warm_reps(&self, _planned: usize) -> Option<usize> {
        None
    }

    /// The most timed repetitions this point allows, whatever the policy
    /// plans (IMB's non-aggregate modes: MSGS_NONAGGR). IMB's policy takes
    /// it in place of its own most, as IMB takes MSGS_NONAGGR in place of
    /// MSGSPERSAMPLE (`-iter 50` still gives 100 non-aggregate repetitions).
    fn most_reps(&self) -> Option<usize> {
        None
    }

    /// After the warm-up and before the timed repetitions, on every rank of
    /// the group, outside every timed region: the repetitions the point
    /// plans (before `--time` caps them). A kernel that measures a reference
    /// loop of its own first (IMB-NBC's pure loop of as many repetitions as
    /// the overlapped one) runs it here.
    fn planned(&mut self, _reps: usize) {}

    /// Runs `method` on this kernel: dispatched once per batch, and
    /// monomorphised per kernel type so that the timed loop calls `run`
    /// directly.
    fn measure(&mut self, method: Method, cx: &mut Cx<'_>, batch: &Batch) -> Samples {
        <Timer as Measure>::measure(method, self, cx, batch)
    }
}

/// The two halves of a split-completion repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Send,
    Recv,
}

/// The timed loops, which live above the contract (`crate::method`
/// implements this trait for [`Timer`]). The contract names them only
/// through it, so that [`Kernel::measure`] is instantiated for every kernel
/// type (no dynamic dispatch between two clock reads) while the contract
/// imports nothing of the layers that time it.
pub trait Measure {
    /// The real context of the timed loops (clock, barrier, synchronisation).
    type Cx<'a>;
    /// The repetitions of one batch.
    type Batch;
    /// What one rank measured.
    type Samples;

    /// Runs `method` on kernel `k`.
    fn measure<K: Kernel + ?Sized>(
        method: Method,
        k: &mut K,
        cx: &mut Self::Cx<'_>,
        b: &Self::Batch,
    ) -> Self::Samples;
}

/// The type the method layer implements [`Measure`] for.
pub enum Timer {}

/// The context of a timed batch ([`Measure::Cx`]).
pub type Cx<'a> = <Timer as Measure>::Cx<'a>;
/// The repetitions of one batch ([`Measure::Batch`]).
pub type Batch = <Timer as Measure>::Batch;
/// What one rank measured in a batch ([`Measure::Samples`]).
pub type Samples = <Timer as Measure>::Samples;
