//! Writes results: folded stacks, the `top` table and JSON, and the summary
//! printed on stderr. Data goes to the writer it is given; diagnostics only to
//! the summary.

pub mod collapse;
pub mod summary;
pub mod top;
