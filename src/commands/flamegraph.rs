//! `compile-perf flamegraph`: the category-coloured flamegraph, whole or
//! cut to a category or a pass, upright or as an icicle; or of the passes
//! alone (`--passes-only`). Of a series of runs (`record --repeat`'s
//! directory), the runs' pictures are added up into one.

use std::path::{Path, PathBuf};

use clap::Args;

use super::args::{InputArgs, RulesFileArg, heading};
use super::draw::{FlamegraphRequest, flamegraph_by_actions, flamegraph_picture, save_flamegraph};
use super::series::{series_line, series_run_dirs};
use super::{
    Config, Reading, Run, actions_for, finish, leave_to_exit, load_recording, load_rules,
    rules_and_profile,
};
use crate::attribute::{ActionRows, Classes, Grouping};
use crate::defaults;
use crate::error::Error;
use crate::profile::{Profile, ReadOptions};
use crate::render::flamegraph::{Drawable, MaxDepth, Picture, added_up, all_stacks};
use crate::run_dir::{RunDir, RunJson, SeriesJson, series_at};
use perfdata::Input;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  The whole compile, coloured by category:
    compile-perf flamegraph perf.data -o flame.svg
  One MLIR pass, rooted at it:
    compile-perf flamegraph perf.data --pass Canonicalizer -o pass.svg";

#[derive(Debug, Args)]
pub(crate) struct FlamegraphArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The SVG to write (`-` is stdout).
    #[arg(long, short, value_name = "OUT.svg", help_heading = heading::OUTPUT)]
    output: PathBuf,
    /// Keep only stacks with a frame of this category: an id or a name, in any
    /// case (`compile-perf rules` lists them). Built-in ids: lexer, parser,
    /// apfloat, bufferization, folding, rewrite, conversion, canonicalize,
    /// verifier, uniquing, hashing, analysis, affine, printing, pass-manager,
    /// ir, adt, llvm-codegen, llvm-opt, serialization, linker, runtime,
    /// malloc, memops, kernel, python, threading, startup, instrumentation, other.
    #[arg(long, value_name = "ID")]
    category: Option<String>,
    /// Draw one MLIR pass (a name from `report --by pass`): its stacks, rooted at the pass,
    /// and the thread-pool work credited to it (its pipelines run on other threads), under it.
    #[arg(long, value_name = "NAME")]
    pass: Option<String>,
    /// Draw an icicle: each category on top as one bar, its hot functions
    /// below it, and their callers below them.
    #[arg(long)]
    inverted: bool,
    /// Draw only MLIR pass frames (nested as they run) and the places
    /// outside passes, each pass coloured by its main category, with its
    /// self samples' categories in the tooltip; the pass manager's own
    /// frames and every other function are left out.
    #[arg(long, conflicts_with_all = ["category", "pass", "inverted"])]
    passes_only: bool,
    /// Root each stack at the rewrite pattern (or IR unit) its thread was in
    /// when the sample was taken, from MLIR's actions (`record --actions`),
    /// instead of at its thread.
    #[arg(long, value_enum, value_name = "ROWS", conflicts_with = "passes_only")]
    by: Option<ActionRows>,
    /// Leave out frames narrower than this percentage of the picture's width
    /// (inferno's test: 0.1 leaves out frames under 1/1000 of the samples).
    #[arg(long, value_name = "PERCENT", default_value_t = defaults::MIN_WIDTH_PERCENT)]
    min_width: f64,
    /// Cut stacks deeper than DEPTH frames, with one frame `[N deeper frames]` on top for
    /// the rest (samples are all counted). auto: three times the samples' median depth,
    /// at least 64; all: no cut.
    #[arg(long, value_name = "DEPTH", default_value = "auto")]
    max_depth: MaxDepth,
    /// Also write the folded stacks drawn to FILE.
    #[arg(long, value_name = "FILE", help_heading = heading::OUTPUT)]
    folded_out: Option<PathBuf>,
    #[command(flatten)]
    rules: RulesFileArg,
}

impl FlamegraphArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.input.reading.quiet;
        let flamegraph = Flamegraph {
            reading: self.input.into_reading(),
            category: self.category,
            pass: self.pass,
            inverted: self.inverted,
            passes_only: self.passes_only,
            by: self.by,
            min_width: self.min_width,
            max_depth: self.max_depth,
            folded_out: self.folded_out,
        };
        Config::new(flamegraph, Some(self.output), quiet, self.rules.file)
    }
}

/// What `flamegraph` was asked for.
#[derive(Debug)]
struct Flamegraph {
    reading: Reading,
    category: Option<String>,
    pass: Option<String>,
    inverted: bool,
    /// Only pass frames and the places outside passes.
    passes_only: bool,
    /// Roots of MLIR's actions instead of threads.
    by: Option<ActionRows>,
    /// Default is [`defaults::MIN_WIDTH_PERCENT`].
    min_width: f64,
    /// How deep stacks are drawn. Default is [`MaxDepth::Auto`].
    max_depth: MaxDepth,
    folded_out: Option<PathBuf>,
}

impl Run for Flamegraph {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, &self.reading, self)
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.reading.read)
    }
}

impl Flamegraph {
    /// The picture asked for, written to `config`'s output, with `facts`
    /// under its title.
    fn request(&self, config: &Config, facts: Option<String>) -> FlamegraphRequest {
        FlamegraphRequest {
            output: config.output.clone(),
            category: self.category.clone(),
            pass: self.pass.clone(),
            inverted: self.inverted,
            passes_only: self.passes_only,
            min_width: self.min_width,
            max_depth: self.max_depth,
            folded_out: self.folded_out.clone(),
            run_facts: facts,
        }
    }
}

impl Flamegraph {
    /// The picture of one run: rooted at its actions' rows with `--by`, else
    /// as `request` asks (from `prepared` when it suits).
    fn picture(
        &self,
        request: &FlamegraphRequest,
        reading: &Reading,
        profile: &Profile,
        classes: &mut Classes<'_>,
        run_dir: &RunDir,
        prepared: Option<Drawable<'_>>,
    ) -> Result<Picture, Error> {
        let Some(rows) = self.by else {
            return flamegraph_picture(request, &reading.filter, profile, classes, prepared);
        };
        let grouping = match rows {
            ActionRows::Pattern => Grouping::Pattern,
            ActionRows::Unit => Grouping::Unit,
        };
        let join = actions_for(grouping, run_dir, profile, classes, "flamegraph")?
            .expect("--by pattern and --by unit need the run's actions");
        flamegraph_by_actions(request, &reading.filter, profile, classes, &join, rows)
    }
}

/// Draws the flamegraph `options` ask for.
fn run(config: &Config, reading: &Reading, options: &Flamegraph) -> Result<u8, Error> {
    if let Input::Path(dir) = &reading.input {
        if let Some(series) = series_at(dir) {
            return run_series(config, reading, options, dir, &series);
        }
    }
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let run = run_dir.run.as_ref();
    let request = options.request(config, run.map(RunJson::short_line));
    let drawn_whole = options.category.is_none()
        && options.by.is_none()
        && options.pass.is_none()
        && !options.inverted
        && !options.passes_only;
    // The whole picture's stacks need no categories: they are made while
    // the symbols are classified.
    let (mut classes, prepared) = rayon::join(
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
    let picture = options.picture(
        &request,
        reading,
        &profile,
        &mut classes,
        &run_dir,
        prepared,
    )?;
    save_flamegraph(&request, picture)?;
    let code = finish(config, &profile, run);
    leave_to_exit(classes);
    leave_to_exit(profile);
    code
}

/// The flamegraph of a series of runs: each run's picture, added up. Each
/// run's summary goes to stderr; the exit code is the worst of them.
fn run_series(
    config: &Config,
    reading: &Reading,
    options: &Flamegraph,
    dir: &Path,
    series: &SeriesJson,
) -> Result<u8, Error> {
    let runs = series_run_dirs(dir, series);
    if options.passes_only {
        return Err(Error::NothingToDraw {
            reason: format!(
                "--passes-only draws one run (a pass's tooltip splits its samples by category, \
                 which runs do not add up to), and {} holds a series of {} runs: give one of them, \
                 such as {}",
                dir.display(),
                runs.len(),
                dir.join(runs.first().map_or("run-1", |run| run.name.as_str()))
                    .display()
            ),
        });
    }
    let rules = load_rules(config.rules_file.as_deref())?;
    let request = options.request(config, None);
    let mut pictures = Vec::with_capacity(runs.len());
    let mut code = 0;
    for run in &runs {
        let input = Input::Path(run.recording.clone());
        let profile = load_recording(&input, &reading.read, &run.dir, &reading.filter)?;
        let mut classes = Classes::new(&profile, &rules);
        pictures.push(options.picture(
            &request,
            reading,
            &profile,
            &mut classes,
            &run.dir,
            None,
        )?);
        code = code.max(finish(config, &profile, run.dir.run.as_ref())?);
        leave_to_exit(classes);
        leave_to_exit(profile);
    }
    let picture = added_up(pictures, &rules, Some(&series_line(&runs))).ok_or_else(|| {
        Error::NothingToDraw {
            reason: format!("{} holds no run", dir.display()),
        }
    })?;
    save_flamegraph(&request, picture)?;
    Ok(code)
}
