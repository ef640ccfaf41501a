//! `compile-perf timeline`: category shares over the compile, its phases
//! and busy threads, as an SVG or as JSON. Of a series of runs (`record
//! --repeat`'s directory), the run of median wall time is drawn, and the
//! picture says so: runs do not share a clock, so they are not added up.

use std::path::PathBuf;

use clap::Args;
use clap::builder::TypedValueParser;

use super::args::{InputArgs, RulesFileArg, heading};
use super::format::{Format, Formats};
use super::series::{median_run, series_line, series_run_dirs};
use super::{Config, Reading, Run, finish, rss_join, rules_and_profile};
use crate::attribute::{Classes, timeline};
use crate::defaults;
use crate::error::Error;
use crate::output::write_output;
use crate::profile::ReadOptions;
use crate::render::timeline_svg;
use crate::report::timeline_json;
use crate::run_dir::{RunJson, series_at};
use perfdata::Input;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  Categories over time, with the phases, busy threads and RSS of a run:
    compile-perf timeline runs/example -o timeline.svg
  The live heap beside the RSS, of a run of `record --heap`:
    compile-perf timeline runs/example --heap -o timeline.svg
  The buckets as JSON, 200 of them:
    compile-perf timeline perf.data --format json --buckets 200 -o timeline.json";

#[derive(Debug, Args)]
pub(crate) struct TimelineArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Where to write (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    output: PathBuf,
    /// svg: the picture; json: the buckets.
    #[arg(long, value_parser = Formats(&[Format::Svg, Format::Json]).try_map(TimelineFormat::of),
          default_value = "svg", help_heading = heading::OUTPUT)]
    format: TimelineFormat,
    /// How many time buckets.
    #[arg(long, value_name = "N", default_value_t = defaults::TIMELINE_SLICES)]
    buckets: usize,
    #[command(flatten)]
    rules: RulesFileArg,
}

impl TimelineArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.input.reading.quiet;
        let timeline = Timeline {
            reading: self.input.into_reading(),
            format: self.format,
            slices: self.buckets,
        };
        Config::new(timeline, Some(self.output), quiet, self.rules.file)
    }
}

/// The formats `timeline` writes. Every match over it names both, so a
/// format added to [`Format`] is a compile error in [`TimelineFormat::of`],
/// never written silently as the SVG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimelineFormat {
    Svg,
    Json,
}

impl TimelineFormat {
    /// `format` as `timeline` writes it, or why it does not.
    fn of(format: Format) -> Result<TimelineFormat, String> {
        match format {
            Format::Svg => Ok(TimelineFormat::Svg),
            Format::Json => Ok(TimelineFormat::Json),
            Format::Table
            | Format::Markdown
            | Format::Csv
            | Format::Html
            | Format::Pprof
            | Format::Firefox
            | Format::Speedscope
            | Format::ChromeTrace
            | Format::Folded => Err(format!("timeline does not write {}", format.name())),
        }
    }
}

/// What `timeline` was asked for.
#[derive(Debug)]
struct Timeline {
    reading: Reading,
    format: TimelineFormat,
    /// How many time slices. Default is [`crate::defaults::TIMELINE_SLICES`].
    slices: usize,
}

impl Run for Timeline {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, &self.reading, self)
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.reading.read)
    }
}

/// Draws (or writes as JSON) the timeline of the samples the filter keeps;
/// of a series of runs, of its run of median wall time.
fn run(config: &Config, reading: &Reading, options: &Timeline) -> Result<u8, Error> {
    let Input::Path(dir) = &reading.input else {
        return draw(config, reading, options, None);
    };
    let Some(series) = series_at(dir) else {
        return draw(config, reading, options, None);
    };
    let runs = series_run_dirs(dir, &series);
    let median = median_run(&runs).ok_or_else(|| Error::NothingToDraw {
        reason: format!("{} holds no run", dir.display()),
    })?;
    let chosen = format!(
        "{}, the run of median wall time of {}",
        median.name,
        series_line(&runs)
    );
    if !config.quiet {
        eprintln!("compile-perf: notice: the timeline of a series draws one run: {chosen}");
    }
    let one_run = Reading {
        input: Input::Path(median.recording.clone()),
        ..reading.clone()
    };
    draw(config, &one_run, options, Some(chosen))
}

/// Draws (or writes as JSON) the timeline of one recording; `chosen` says
/// which run of a series it is.
fn draw(
    config: &Config,
    reading: &Reading,
    options: &Timeline,
    chosen: Option<String>,
) -> Result<u8, Error> {
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let classes = Classes::new(&profile, &rules);
    let timeline = timeline(&profile, &classes, &reading.filter, options.slices);
    if timeline.slices.is_empty() {
        return Err(Error::NothingToDraw {
            reason: "no samples (check --pid, --process and --compiler)".to_owned(),
        });
    }
    let command = profile.profiled_command();
    let (rss, rss_notice) = rss_join(&run_dir, &profile, &classes, &reading.filter);
    if let Some(notice) = rss_notice.filter(|_| !config.quiet) {
        eprintln!("compile-perf: notice: {notice}");
    }
    let heap = crate::attribute::heap::heap_line(&profile, timeline.start_ns);
    let run = run_dir.run.as_ref();
    let facts = match (&chosen, run.map(RunJson::short_line)) {
        (Some(chosen), Some(facts)) => Some(format!("{chosen}; {facts}")),
        (chosen, facts) => chosen.clone().or(facts),
    };
    write_output(&config.output, |out| match options.format {
        TimelineFormat::Json => {
            let mut document =
                timeline_json::to_json(&timeline, &rules, command, rss.as_ref(), heap.as_ref());
            document.run_of_set = chosen.clone();
            serde_json::to_writer_pretty(&mut *out, &document)?;
            writeln!(out)
        }
        TimelineFormat::Svg => out.write_all(
            timeline_svg::render(
                &timeline,
                &rules,
                &command,
                facts.as_deref(),
                rss.as_ref(),
                heap.as_ref(),
            )
            .as_bytes(),
        ),
    })?;
    finish(config, &profile, run)
}
