//! `compile-perf report`: where the samples went, by category or another
//! grouping, as a table, Markdown, CSV or JSON, or as one self-contained
//! HTML page with the tables, flamegraphs and timeline; with
//! `--flamegraph`, the flamegraph too, from the same reading of the
//! recording.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use super::args::{InputArgs, RulesFileArg, heading};
use super::draw::{
    FlamegraphRequest, PageRun, flamegraph_picture, html_report, report_flamegraphs,
    save_flamegraph,
};
use super::format::{Format, Formats};
use super::series::{SeriesReading, read_series};
use super::{
    ColorChoice, Config, Reading, Run, actions_for, alike_executables, finish, leave_to_exit,
    load_rules, memory_section, page_actions, rss_join, rules_and_profile, timer_join,
    write_report_with_heap,
};
use crate::attribute::{Attribution, Classes, Grouping};
use crate::defaults;
use crate::error::Error;
use crate::output::{Output, write_output};
use crate::profile::ReadOptions;
use crate::render::flamegraph::{MaxDepth, all_stacks};
use crate::report::breakdown::{BreakdownOptions, breakdown};
use crate::report::repeat;
use crate::report::run_facts::notices;
use crate::run_dir::{RunJson, SeriesJson, series_at};
use perfdata::Input;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  The category table of a run directory, for the native compiler process only:
    compile-perf report runs/example --compiler
  One HTML page with the tables, flamegraphs and timeline:
    compile-perf report perf.data --format html -o report.html";

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Output format (html: one self-contained page with the tables, flamegraphs and timeline).
    #[arg(long, default_value = "table", help_heading = heading::OUTPUT,
          value_parser = Formats(&[Format::Table, Format::Markdown, Format::Csv, Format::Json,
                                   Format::Html]))]
    format: Format,
    /// What the rows are.
    #[arg(long, value_enum, default_value_t)]
    by: Grouping,
    /// How a sample's self category is chosen: its leaf function's, or the
    /// nearest compiler caller's when the leaf is generic library code.
    /// Default is leaf, and caller with --alloc and --heap.
    #[arg(
        long,
        value_enum,
        default_value_t,
        default_value_ifs([("alloc", "true", "caller"), ("heap", "true", "caller")])
    )]
    attribution: Attribution,
    #[command(flatten)]
    rules: RulesFileArg,
    /// Colour swatches in the table: auto (on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    color: ColorChoice,
    /// Also draw the category flamegraph to OUT.svg, from the same reading of the recording.
    #[arg(long, value_name = "OUT.svg", help_heading = heading::OUTPUT)]
    flamegraph: Option<PathBuf>,
    /// How deep the flamegraphs of --flamegraph and --format html draw: as
    /// `flamegraph --max-depth` (auto, all or a number of frames).
    #[arg(long, value_name = "DEPTH", default_value = "auto", help_heading = heading::OUTPUT)]
    max_depth: MaxDepth,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    output: Option<PathBuf>,
}

impl ReportArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.input.reading.quiet;
        let report = Report {
            reading: self.input.into_reading(),
            format: self.format,
            grouping: self.by,
            attribution: self.attribution,
            color: self.color,
            flamegraph: self.flamegraph,
            max_depth: self.max_depth,
        };
        Config::new(report, self.output, quiet, self.rules.file)
    }
}

/// What `report` was asked for.
#[derive(Debug)]
struct Report {
    reading: Reading,
    /// A table, Markdown, CSV, JSON or the HTML page.
    format: Format,
    grouping: Grouping,
    attribution: Attribution,
    color: ColorChoice,
    /// Also draw the whole flamegraph here.
    flamegraph: Option<PathBuf>,
    /// How deep the flamegraphs draw. Default is [`MaxDepth::Auto`].
    max_depth: MaxDepth,
}

impl Run for Report {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, &self.reading, self)
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.reading.read)
    }
}

/// Writes the report, and draws the flamegraph when asked.
fn run(config: &Config, reading: &Reading, options: &Report) -> Result<u8, Error> {
    if let Input::Path(dir) = &reading.input {
        if let Some(series) = series_at(dir) {
            return report_series(config, reading, options, dir, &series);
        }
    }
    let filter = &reading.filter;
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let run = run_dir.run.as_ref();
    if options.format == Format::Html {
        let mut classes = Classes::new(&profile, &rules);
        let flamegraphs = report_flamegraphs(&profile, &classes, filter, options.max_depth)?;
        if let (Some(svg), Some((_, drawn))) = (&options.flamegraph, flamegraphs.first()) {
            write_output(&Output::File(svg.clone()), |out| {
                out.write_all(&drawn.bytes)
            })?;
        }
        let (rss, rss_notice) = report_rss(&run_dir, &profile, &classes, filter);
        if let Some(notice) = rss_notice.as_ref().filter(|_| !config.quiet) {
            eprintln!("compile-perf: notice: {notice}");
        }
        let (actions, actions_notice) = page_actions(&run_dir, &profile, &mut classes);
        let (alike, alike_notice) = alike_executables(&run_dir);
        let mut page_notices = notices(&profile, run);
        page_notices.extend(rss_notice);
        page_notices.extend(actions_notice);
        page_notices.extend(alike_notice);
        let page = html_report(
            &profile,
            &classes,
            filter,
            options.attribution,
            &PageRun {
                facts: run,
                notices: &page_notices,
                rss: rss.as_ref(),
                actions: actions.as_ref(),
                alike: &alike,
                heap: Some((&profile, &classes)),
                consteval: run_dir.consteval().0.as_ref(),
            },
            flamegraphs,
        );
        write_output(&config.output, |out| out.write_all(page.as_bytes()))?;
        return finish(config, &profile, run);
    }
    // The flamegraph's stacks need no categories: they are made while the
    // symbols are classified.
    let (mut classes, prepared) = rayon::join(
        || Classes::new(&profile, &rules),
        || {
            options.flamegraph.is_some().then(|| {
                all_stacks(
                    &profile,
                    filter,
                    defaults::MIN_WIDTH_PERCENT,
                    options.max_depth,
                )
            })
        },
    );
    let colors = options.color.wanted(&config.output);
    // The flamegraph is drawn on a thread of its own while the table is
    // built and written, and while the recording's memory is given back.
    let drawing = options
        .flamegraph
        .as_ref()
        .map(|svg| {
            let request = FlamegraphRequest {
                run_facts: run.map(RunJson::short_line),
                max_depth: options.max_depth,
                ..FlamegraphRequest::whole(
                    Output::File(svg.clone()),
                    false,
                    defaults::MIN_WIDTH_PERCENT,
                )
            };
            let picture = flamegraph_picture(&request, filter, &profile, &classes, prepared)?;
            Ok::<_, Error>(std::thread::spawn(move || {
                save_flamegraph(&request, picture)
            }))
        })
        .transpose()?;
    let reported = (|| {
        let actions = actions_for(options.grouping, &run_dir, &profile, &mut classes, "report")?
            .map(Arc::new);
        let (alike, alike_notice) = alike_executables(&run_dir);
        let breakdown_options = BreakdownOptions {
            grouping: options.grouping,
            attribution: options.attribution,
            filter: filter.clone(),
            actions,
            alike,
        };
        let (mut breakdown, ((rss, rss_notice), (timers, timer_notice))) = rayon::join(
            || breakdown(&profile, &classes, breakdown_options),
            || {
                let rss = report_rss(&run_dir, &profile, &classes, filter);
                let timers = if options.grouping == Grouping::Pass {
                    timer_join(&run_dir, &profile, &classes)
                } else {
                    (None, None)
                };
                (rss, timers)
            },
        );
        let mut report_notices = notices(&profile, run);
        report_notices.extend(rss_notice);
        report_notices.extend(timer_notice);
        report_notices.extend(alike_notice);
        let (consteval, consteval_notice) = run_dir.consteval();
        report_notices.extend(consteval_notice);
        breakdown.set_consteval(consteval.clone());
        breakdown.set_run(run.cloned(), report_notices);
        breakdown.set_timers(timers);
        breakdown.set_rss(rss);

        let memory = memory_section(
            &reading.input,
            &reading.read,
            &run_dir,
            &profile,
            &rules,
            filter,
            options.attribution,
        )?;
        let heap = crate::attribute::heap::heap_peak(&profile, &classes, consteval.as_ref());
        write_report_with_heap(
            &config.output,
            &breakdown,
            memory,
            heap,
            options.format.text(),
            colors,
        )?;
        finish(config, &profile, run)
    })();
    leave_to_exit(classes);
    leave_to_exit(profile);
    leave_to_exit(rules);
    let drawn = drawing.map_or(Ok(()), |drawing| {
        drawing
            .join()
            .expect("drawing a flamegraph does not panic")
            .map(drop)
    });
    let code = reported?;
    drawn?;
    Ok(code)
}

/// `report` of a series of runs (`record --repeat`'s directory): the runs
/// added up, with their facts and spread, for any grouping.
fn report_series(
    config: &Config,
    reading: &Reading,
    options: &Report,
    dir: &Path,
    series: &SeriesJson,
) -> Result<u8, Error> {
    let one_run = |what: &str| Error::NothingToDraw {
        reason: format!(
            "{what} is made of one run, and {} holds a series of {} runs: give one of them, such as {}",
            dir.display(),
            series.runs.len(),
            dir.join(series.runs.first().map_or("run-1", String::as_str))
                .display()
        ),
    };
    if options.flamegraph.is_some() {
        return Err(one_run("a flamegraph"));
    }
    if options.format == Format::Html {
        return Err(one_run("the HTML page"));
    }
    let rules = load_rules(config.rules_file.as_deref())?;
    let series_reading = SeriesReading {
        read: &reading.read,
        filter: &reading.filter,
        grouping: options.grouping,
        attribution: options.attribution,
        rules: &rules,
    };
    let (report, code) = read_series(config, dir, series, &series_reading, true)?;
    let by = options.grouping.name();
    let colors = options.color.wanted(&config.output);
    write_output(&config.output, |out| match options.format.text() {
        Some(text) => repeat::write_text(&report, by, text, colors, out),
        None => {
            serde_json::to_writer_pretty(&mut *out, &repeat::to_json(&report, by))?;
            writeln!(out)
        }
    })?;
    Ok(code)
}

/// The memory line's RSS join, for a report of samples. A report of bytes
/// (`--heap`, `--alloc`) has none: its samples are allocations, too sparse
/// to say where the compile was at the RSS peak or what each pass grew
/// (they put bert-mlm-2l's peak between passes where its CPU samples put
/// it in JitGlobalsPass); its heap lines state the RSS at their instant.
fn report_rss(
    run_dir: &crate::run_dir::RunDir,
    profile: &crate::profile::Profile,
    classes: &Classes<'_>,
    filter: &crate::profile::SampleFilter,
) -> (Option<crate::attribute::rss::RssJoin>, Option<String>) {
    if profile.unit == "samples" {
        rss_join(run_dir, profile, classes, filter)
    } else {
        (None, None)
    }
}
