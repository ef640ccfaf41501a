//! compile-perf: profiles of iree-compile, from perf.data to answers.
//!
//! The pipeline runs one way:
//! the `perfdata` crate (crates/perfdata) reads records → `process` tracks processes and mappings →
//! `unwind` turns samples into frames → `stacks` interns them →
//! `symbolize` names each unique frame once (`binary` finds and maps the
//! ELF files) → `profile` holds the result and selects samples → the
//! `category-rules` crate (crates/category-rules) says which part of the
//! compiler a function is in → `attribute` totals
//! by category, pass and time → `fold` merges stacks → `report` and
//! `render` format, and `output` writes the files. `recorder` runs perf;
//! `commands` holds one file per command, each with its arguments and
//! their resolution into a [`Config`], and `cli` lists the commands. ARCHITECTURE.md says what each layer may import.
//!
//! The public surface is what the binary uses: [`Cli`], [`Config`] and
//! [`run`]; and [`error`]. The parsers of outside input, the recording
//! reader and the rule table, are crates of their own, which the fuzz
//! targets (`fuzz/`) build against.

mod actions;
mod alloc;
mod artifact;
mod attribute;
mod binary;
mod cache;
mod cli;
mod commands;
mod consteval;
mod defaults;
pub mod error;
mod executable_sources;
mod executables;
mod export;
mod fold;
mod heap;
mod history;
mod index;
mod mlir_timing;
mod output;
mod process;
mod profile;
mod progress;
mod push;
mod recorder;
mod render;
mod report;
mod rss;
mod run_dir;
mod short_name;
mod stacks;
mod stats;
mod suggest;
mod symbolize;
#[cfg(test)]
mod test_random;
mod unwind;

pub use cli::Cli;
pub use commands::Config;

use error::Error;

/// Runs one command; returns the exit code its warnings call for.
pub fn run(config: &Config) -> Result<u8, Error> {
    commands::fit_tables_to(&config.output);
    let outcome = config.command.run(config);
    if let Some(read) = config.command.read_options() {
        read.cache.wait_for_writes();
    }
    outcome
}
