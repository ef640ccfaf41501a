//! `compile-perf report`: where the samples went, by category or another
//! grouping, as a table, Markdown, CSV or JSON, or as one self-contained
//! HTML page with the tables, flamegraphs and timeline; with
//! `--flamegraph`, the flamegraph too, from the same reading of the
//! recording.

use std::path::PathBuf;

use clap::ValueEnum;

use super::draw::{
    FlamegraphRequest, PageRun, flamegraph_picture, html_report, report_flamegraphs,
    save_flamegraph,
};
use super::{
    ColorChoice, Config, Reading, ReportFormat, finish, leave_to_exit, memory_section, rss_join,
    rules_and_profile, timer_join, write_report,
};
use crate::attribute::{Attribution, Classes, Grouping};
use crate::defaults;
use crate::error::Error;
use crate::output::{Output, write_output};
use crate::render::flamegraph::{MaxDepth, all_stacks};
use crate::report::breakdown::{BreakdownOptions, breakdown};
use crate::report::run_facts::notices;
use crate::run_dir::RunJson;

/// What `report` was asked for.
#[derive(Clone, Debug)]
pub(crate) struct ReportOptions {
    pub(crate) format: ReportPageFormat,
    pub(crate) grouping: Grouping,
    pub(crate) attribution: Attribution,
    pub(crate) color: ColorChoice,
    /// Also draw the whole flamegraph here.
    pub(crate) flamegraph: Option<PathBuf>,
    /// How deep the flamegraphs draw. Default is [`MaxDepth::Auto`].
    pub(crate) max_depth: MaxDepth,
}

/// The formats of `report`: those of `diff`, and the HTML page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportPageFormat {
    #[default]
    Table,
    Markdown,
    Csv,
    Json,
    /// One self-contained page: the run's facts, the category and pass
    /// tables, the flamegraphs and the timeline.
    Html,
}

impl ReportPageFormat {
    /// The table or JSON format; `None` for the HTML page.
    fn tabular(self) -> Option<ReportFormat> {
        match self {
            ReportPageFormat::Table => Some(ReportFormat::Table),
            ReportPageFormat::Markdown => Some(ReportFormat::Markdown),
            ReportPageFormat::Csv => Some(ReportFormat::Csv),
            ReportPageFormat::Json => Some(ReportFormat::Json),
            ReportPageFormat::Html => None,
        }
    }
}

/// Writes the report, and draws the flamegraph when asked.
pub(crate) fn run(
    config: &Config,
    reading: &Reading,
    options: &ReportOptions,
) -> Result<u8, Error> {
    let filter = &reading.filter;
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let run = run_dir.run.as_ref();
    let Some(format) = options.format.tabular() else {
        let classes = Classes::new(&profile, &rules);
        let flamegraphs = report_flamegraphs(&profile, &classes, filter, options.max_depth)?;
        if let (Some(svg), Some((_, drawn))) = (&options.flamegraph, flamegraphs.first()) {
            write_output(&Output::File(svg.clone()), |out| {
                out.write_all(&drawn.bytes)
            })?;
        }
        let (rss, rss_notice) = rss_join(&run_dir, &profile, &classes, filter);
        if let Some(notice) = rss_notice.as_ref().filter(|_| !config.quiet) {
            eprintln!("compile-perf: notice: {notice}");
        }
        let mut page_notices = notices(&profile, run);
        page_notices.extend(rss_notice);
        let page = html_report(
            &profile,
            &classes,
            filter,
            options.attribution,
            &PageRun {
                facts: run,
                notices: &page_notices,
                rss: rss.as_ref(),
            },
            flamegraphs,
        );
        write_output(&config.output, |out| out.write_all(page.as_bytes()))?;
        return finish(config, &profile, run);
    };
    // The flamegraph's stacks need no categories: they are made while the
    // symbols are classified.
    let (classes, prepared) = rayon::join(
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
        let breakdown_options = BreakdownOptions {
            grouping: options.grouping,
            attribution: options.attribution,
            filter: filter.clone(),
        };
        let mut breakdown = breakdown(&profile, &classes, breakdown_options);
        let (rss, rss_notice) = rss_join(&run_dir, &profile, &classes, filter);
        let (timers, timer_notice) = match options.grouping {
            Grouping::Pass => timer_join(&run_dir, &profile, &classes),
            _ => (None, None),
        };
        let mut report_notices = notices(&profile, run);
        report_notices.extend(rss_notice);
        report_notices.extend(timer_notice);
        breakdown.set_run(run.cloned(), report_notices);
        breakdown.set_timers(timers);
        breakdown.set_rss(rss);
        let memory = memory_section(
            &reading.load,
            &run_dir,
            &profile,
            &rules,
            filter,
            options.attribution,
        )?;
        write_report(&config.output, &breakdown, memory, format.text(), colors)?;
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
