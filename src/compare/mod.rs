//! Comparing compiles: the runs of each side reduced to `report`'s rows
//! ([`runs`]), the rows side by side and judged against run-to-run noise
//! ([`diff`]), written as tables and JSON ([`format`]), and the CI gate
//! ([`gate`]).

pub mod diff;
pub mod format;
pub mod gate;
pub mod runs;
