//! `compile-perf flamegraph`: the category-coloured flamegraph, whole or
//! cut to a category or a pass, upright or as an icicle; or of the passes
//! alone (`--passes-only`).

use std::path::PathBuf;

use super::draw::{FlamegraphRequest, flamegraph_picture, save_flamegraph};
use super::{Config, Reading, finish, leave_to_exit, rules_and_profile};
use crate::attribute::Classes;
use crate::defaults;
use crate::error::Error;
use crate::render::flamegraph::{MaxDepth, all_stacks};
use crate::run_dir::RunJson;

/// What `flamegraph` was asked for.
#[derive(Clone, Debug)]
pub(crate) struct FlamegraphOptions {
    pub(crate) category: Option<String>,
    pub(crate) pass: Option<String>,
    pub(crate) inverted: bool,
    /// Only pass frames and the places outside passes.
    pub(crate) passes_only: bool,
    /// Default is [`defaults::MIN_WIDTH_PERCENT`].
    pub(crate) min_width: f64,
    /// How deep stacks are drawn. Default is [`MaxDepth::Auto`].
    pub(crate) max_depth: MaxDepth,
    pub(crate) folded_out: Option<PathBuf>,
}

/// Draws the flamegraph `options` ask for.
pub(crate) fn run(
    config: &Config,
    reading: &Reading,
    options: &FlamegraphOptions,
) -> Result<u8, Error> {
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let run = run_dir.run.as_ref();
    let request = FlamegraphRequest {
        output: config.output.clone(),
        category: options.category.clone(),
        pass: options.pass.clone(),
        inverted: options.inverted,
        passes_only: options.passes_only,
        min_width: options.min_width,
        max_depth: options.max_depth,
        folded_out: options.folded_out.clone(),
        run_facts: run.map(RunJson::short_line),
    };
    let drawn_whole = options.category.is_none()
        && options.pass.is_none()
        && !options.inverted
        && !options.passes_only;
    // The whole picture's stacks need no categories: they are made while
    // the symbols are classified.
    let (classes, prepared) = rayon::join(
        || Classes::new(&profile, &rules),
        || {
            drawn_whole.then(|| {
                all_stacks(
                    &profile,
                    &reading.filter,
                    defaults::MIN_WIDTH_PERCENT,
                    options.max_depth,
                )
            })
        },
    );
    let picture = flamegraph_picture(&request, &reading.filter, &profile, &classes, prepared)?;
    save_flamegraph(&request, picture)?;
    let code = finish(config, &profile, run);
    leave_to_exit(classes);
    leave_to_exit(profile);
    code
}
