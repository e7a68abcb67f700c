//! What a suite adds to the report: its parts, found by the suite's name.

use crate::report::{ModelPoint, PartTable};
use crate::results::{BenchResult, Row};

/// A suite's parts of the HTML report.
#[derive(Clone, Copy)]
pub struct ReportParts {
    /// Tables derived from one result (COMMTEST's fits and LogGP).
    pub tables: Option<fn(&BenchResult) -> Vec<PartTable>>,
    /// The model fitted to a result's rows, at one row (COMMTEST's fits),
    /// drawn as a line beside the measured series.
    pub model: Option<fn(&BenchResult, &Row) -> Option<ModelPoint>>,
    /// Numeric parameters that name rather than measure (CRESTA's
    /// scenario): they split series, never an axis of a figure.
    pub identifiers: &'static [&'static str],
}

impl ReportParts {
    pub const NONE: ReportParts = ReportParts {
        tables: None,
        model: None,
        identifiers: &[],
    };
}

/// Each suite's parts of the report by the suite's name (of a result):
/// the registry's answer, which the commands pass down (the report
/// imports no suite and no registry); [`ReportParts::NONE`] for a suite
/// the build does not know.
pub type PartsOf = fn(&str) -> ReportParts;
