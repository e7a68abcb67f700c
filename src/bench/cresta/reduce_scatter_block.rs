//! Reduce_scatter_block: MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block with MPI_SUM, m MPI_UNSIGNED_CHAR to every participant (m bytes: MPI_SUM is not defined on MPI_BYTE).

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};
use crate::comm::Elem;

static BLOCKING: Info = Info {
    name: "Reduce_scatter_block",
    description: "MPI_Reduce_scatter_block (MPI_SUM), m MPI_UNSIGNED_CHAR per participant, in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Ireduce_scatter_block",
    description: "MPI_Ireduce_scatter_block (MPI_SUM), m MPI_UNSIGNED_CHAR per participant, in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    ..INFO
};

pub static REDUCE_SCATTER_BLOCK: Scenario<patterns::ReduceScatterBlock> =
    Scenario(patterns::ReduceScatterBlock(&BLOCKING));
pub static IREDUCE_SCATTER_BLOCK: Scenario<patterns::IreduceScatterBlock> =
    Scenario(patterns::IreduceScatterBlock(&NONBLOCKING));
