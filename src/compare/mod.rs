//! Comparing compiles: the runs of each side reduced to `report`'s rows
//! ([`runs`]), the rows side by side and judged against run-to-run noise
//! ([`diff`]), written as tables and JSON ([`format`]), the CI gate
//! ([`gate`]), and the report of several runs of one compile
//! ([`aggregate`]).

pub mod aggregate;
pub mod diff;
pub mod format;
pub mod gate;
pub mod runs;
