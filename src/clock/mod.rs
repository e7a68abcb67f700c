//! Timers and clock synchronisation.

pub mod model;
pub mod sync;
