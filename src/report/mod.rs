//! Writes results: folded stacks, the `top` and `report` tables and JSON, and
//! the summary printed on stderr. Data goes to the writer it is given;
//! diagnostics only to the summary.

pub mod breakdown;
pub mod collapse;
pub mod memory;
pub mod rules;
pub mod summary;
pub mod table;
pub mod timeline_json;
pub mod top;

/// `value` rounded to two decimals, as JSON reports print percentages.
pub fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}
