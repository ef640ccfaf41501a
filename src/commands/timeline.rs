//! `compile-perf timeline`: category shares over the compile, its phases
//! and busy threads, as an SVG or as JSON.

use clap::ValueEnum;

use super::{Config, Reading, finish, rss_join, rules_and_profile};
use crate::attribute::{Classes, timeline};
use crate::error::Error;
use crate::output::write_output;
use crate::render::timeline_svg;
use crate::report::timeline_json;
use crate::run_dir::RunJson;

/// What `timeline` was asked for.
#[derive(Clone, Debug)]
pub(crate) struct TimelineOptions {
    pub(crate) format: TimelineFormat,
    /// How many time slices. Default is [`crate::defaults::TIMELINE_SLICES`].
    pub(crate) slices: usize,
}

/// Formats of `timeline`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimelineFormat {
    #[default]
    Svg,
    Json,
}

/// Draws (or writes as JSON) the timeline of the samples the filter keeps.
pub(crate) fn run(
    config: &Config,
    reading: &Reading,
    options: &TimelineOptions,
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
    let run = run_dir.run.as_ref();
    let facts = run.map(RunJson::short_line);
    write_output(&config.output, |out| match options.format {
        TimelineFormat::Json => {
            let document = timeline_json::to_json(&timeline, &rules, command, rss.as_ref());
            serde_json::to_writer_pretty(&mut *out, &document)?;
            writeln!(out)
        }
        TimelineFormat::Svg => out.write_all(
            timeline_svg::render(&timeline, &rules, &command, facts.as_deref(), rss.as_ref())
                .as_bytes(),
        ),
    })?;
    finish(config, &profile, run)
}
