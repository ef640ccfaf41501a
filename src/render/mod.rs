//! Pictures: flamegraph SVGs rendered by inferno, coloured by category.

pub mod flamegraph;
