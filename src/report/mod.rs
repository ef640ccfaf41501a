//! Writes results: folded stacks, the `top` and `report` tables and JSON, and
//! the summary printed on stderr. Data goes to the writer it is given;
//! diagnostics only to the summary.

pub(crate) mod artifacts;
pub(crate) mod breakdown;
pub(crate) mod collapse;
pub(crate) mod consteval;
pub(crate) mod diff;
pub(crate) mod executables;
pub(crate) mod heap;
pub(crate) mod instrumentation;
pub(crate) mod memory;
pub(crate) mod repeat;
pub(crate) mod rules;
pub(crate) mod run_diff;
pub(crate) mod run_facts;
pub(crate) mod summary;
pub(crate) mod table;
pub(crate) mod timeline_json;
pub(crate) mod top;

pub(crate) use crate::attribute::round2;
