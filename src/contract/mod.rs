//! The benchmark contract: what benchmarks, methods, the engine and the
//! results share, and nothing of the layers that use it.
//!
//! A [`Benchmark`] declares what it is ([`Info`]: name, suite, rank rule,
//! axes, element type, figures, placement) and, for each point of its sweep,
//! builds a [`Kernel`] outside the timed region. The kernel owns (or borrows
//! from the engine's arena) everything one repetition touches, frees what it
//! created on drop, and does nothing in [`Kernel::run`] but the measured MPI
//! calls. Timing, repetitions, synchronisation, statistics and output belong
//! to the engine and the methods (`crate::method`), which reach the kernel's
//! type through [`kernel::Measure`].
//!
//! Most benchmarks are buffer patterns (`crate::bench::buf::Pattern`): one
//! small file with the pattern, its buffer needs and what a correct receive
//! buffer holds; `crate::bench::buf` turns them into kernels.

pub mod axis;
pub mod benchmark;
pub mod definitions;
pub mod figure;
pub mod info;
pub mod kernel;
pub mod method;
pub mod placement;
pub mod reps;
pub mod sink;

pub use axis::{Axes, Axis, Point, SweepCx};
pub use benchmark::{Arena, Benchmark, Setup};
pub use definitions::Definitions;
pub use figure::{mbytes_per_sec, Combine, Figure};
pub use info::{Class, Info, Pace, RankRule};
pub use kernel::{Kernel, Side};
pub use method::Method;
pub use placement::{Placement, Role};
pub use reps::{IterPolicy, RepsDefault, Split};
pub use sink::RawSink;
