//! Flamegraphs as the commands ask for them (`flamegraph`, `report
//! --flamegraph`, and the three of a `record` run): names resolved into the
//! category and pass to draw, the picture made, drawn and written with its
//! folded stacks; and the HTML report that shows them (`report --format
//! html`, `record`'s `report.html`).

use std::path::PathBuf;

use super::unknown_category;
use hashbrown::HashMap;

use crate::attribute::actions::ActionJoin;
use crate::attribute::findings::findings;
use crate::attribute::rss::RssJoin;
use crate::attribute::{
    ActionRows, Attribution, Classes, FoldingStacks, RowKey, row_name, self_row, timeline,
    unwind_stats,
};
use crate::consteval::ConstEval;
use crate::defaults;
use crate::error::Error;
use crate::executable_sources::Alike;
use crate::fold::fold_under;
use crate::output::{Output, write_output};
use crate::profile::{Profile, SampleFilter};
use crate::render::flamegraph::{
    Drawable, MaxDepth, Picture, PictureOptions, Svg, passes_picture, picture, picture_from,
    picture_of,
};
use crate::render::html::{self, HtmlPage};
use crate::render::timeline_svg;
use crate::report::breakdown::findings::finding_lines;
use crate::report::breakdown::scope_words;
use crate::report::summary::lost_samples_warning;
use crate::run_dir::RunJson;

/// One flamegraph to draw.
pub(super) struct FlamegraphRequest {
    pub(super) output: Output,
    /// A category id, as `compile-perf rules` prints it.
    pub(super) category: Option<String>,
    /// An MLIR pass name, as `report --by pass` prints it.
    pub(super) pass: Option<String>,
    pub(super) inverted: bool,
    /// Only pass frames and the places outside passes.
    pub(super) passes_only: bool,
    pub(super) min_width: f64,
    /// Stacks deeper than this are cut, with a marker frame for the rest.
    pub(super) max_depth: MaxDepth,
    pub(super) folded_out: Option<PathBuf>,
    /// The run's facts (from `run.json`), shown under the title.
    pub(super) run_facts: Option<String>,
}

impl FlamegraphRequest {
    /// The whole picture at `min_width`, written to `output`, cut at the
    /// automatic depth limit.
    pub(super) fn whole(output: Output, inverted: bool, min_width: f64) -> FlamegraphRequest {
        FlamegraphRequest {
            output,
            category: None,
            pass: None,
            inverted,
            passes_only: false,
            min_width,
            max_depth: MaxDepth::Auto,
            folded_out: None,
            run_facts: None,
        }
    }
}

/// What `request` draws, ready to be drawn. `prepared` holds every stack
/// `filter` keeps, made beforehand; it is used when it suits the request.
pub(super) fn flamegraph_picture(
    request: &FlamegraphRequest,
    filter: &SampleFilter,
    profile: &Profile,
    classes: &Classes<'_>,
    prepared: Option<Drawable<'_>>,
) -> Result<Picture, Error> {
    let options = picture_options(request, filter, classes, None)?;
    match prepared {
        _ if options.passes_only => passes_picture(profile, classes, &options),
        Some(drawable) if drawable.suits(&options) => {
            picture_of(profile, classes, &options, drawable)
        }
        _ => picture(profile, classes, &options),
    }
    .ok_or_else(nothing_to_draw)
}

/// What `request` draws with each stack under the row of MLIR's actions
/// (`rows`: the rewrite pattern or IR unit) its thread was in when the
/// sample was taken, instead of under its thread.
pub(super) fn flamegraph_by_actions(
    request: &FlamegraphRequest,
    filter: &SampleFilter,
    profile: &Profile,
    classes: &Classes<'_>,
    join: &ActionJoin,
    rows: ActionRows,
) -> Result<Picture, Error> {
    let roots = match rows {
        ActionRows::Pattern => "rewrite pattern",
        ActionRows::Unit => "IR unit",
    };
    let options = picture_options(request, filter, classes, Some(roots))?;
    let mut names: HashMap<RowKey, String> = HashMap::new();
    let mut folding = FoldingStacks::new(profile);
    let keys: Vec<RowKey> = profile
        .stacks
        .timeline
        .iter()
        .map(|sample| {
            let tid = profile.processes.thread(sample.key.thread).tid;
            let key = self_row(join, rows, &mut folding, tid, sample.time, sample.key.stack);
            names
                .entry(key)
                .or_insert_with(|| row_name(join, key).expect("a row of actions has a name"));
            key
        })
        .collect();
    let stacks = fold_under(profile, filter, |at| names[&keys[at]].as_str());
    picture_from(profile, classes, &options, stacks).ok_or_else(nothing_to_draw)
}

fn nothing_to_draw() -> Error {
    Error::NothingToDraw {
        reason: "no samples to draw (check --category, --pid, --process and --compiler)".to_owned(),
    }
}

/// The picture options of `request`: its category and pass found by name.
fn picture_options(
    request: &FlamegraphRequest,
    filter: &SampleFilter,
    classes: &Classes<'_>,
    roots: Option<&'static str>,
) -> Result<PictureOptions, Error> {
    let rules = classes.table;
    let category = request
        .category
        .as_deref()
        .map(|wanted| {
            rules
                .find(wanted)
                .ok_or_else(|| unknown_category(rules, wanted))
        })
        .transpose()?;
    let pass = request
        .pass
        .as_deref()
        .map(|wanted| {
            classes
                .passes
                .find_name(wanted)
                .ok_or_else(|| Error::UnknownPass {
                    wanted: wanted.to_owned(),
                    closest: crate::suggest::closest(
                        wanted,
                        classes.passes.names().iter().map(String::as_str),
                    ),
                })
        })
        .transpose()?;
    if let Some(pass) = pass.filter(|&pass| classes.passes.is_verification(pass)) {
        return Err(Error::NothingToDraw {
            reason: format!(
                "{} is the pass manager's verification of that pass's output, whose \
                 frames are the verifier's, not the pass's: `report --by pass` counts it, \
                 `flamegraph --category verifier` draws it",
                classes.passes.name(pass)
            ),
        });
    }
    Ok(PictureOptions {
        category,
        pass,
        inverted: request.inverted,
        passes_only: request.passes_only,
        min_width: request.min_width,
        max_depth: request.max_depth,
        keep_folded: request.folded_out.is_some(),
        filter: filter.clone(),
        run_facts: request.run_facts.clone(),
        roots,
    })
}

/// Draws `picture` and writes it, and its folded stacks, where `request`
/// says; returns the SVG.
pub(super) fn save_flamegraph(request: &FlamegraphRequest, picture: Picture) -> Result<Svg, Error> {
    let rendered = picture.draw();
    if let Some(path) = &request.folded_out {
        write_output(&Output::File(path.clone()), |out| {
            rendered
                .folded
                .iter()
                .try_for_each(|line| writeln!(out, "{line}"))
        })?;
    }
    write_output(&request.output, |out| out.write_all(&rendered.svg.bytes))?;
    Ok(rendered.svg)
}

/// The flamegraphs of the HTML report, drawn in memory (see
/// [`PAGE_PICTURES`]) with stacks cut at `max_depth`. A picture with
/// nothing to draw is left out.
pub(super) fn report_flamegraphs(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    max_depth: MaxDepth,
) -> Result<Vec<(String, Svg)>, Error> {
    let mut drawn = Vec::new();
    for picture in PAGE_PICTURES {
        let request = FlamegraphRequest {
            max_depth,
            ..FlamegraphRequest::whole(Output::Stdout, picture.inverted, picture.min_width)
        };
        match flamegraph_picture(&request, filter, profile, classes, None) {
            Ok(picture_drawn) => {
                drawn.push((picture.caption.to_owned(), picture_drawn.draw().svg));
            }
            Err(Error::NothingToDraw { .. }) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(drawn)
}

/// One picture of the HTML report.
#[derive(Clone, Copy, Debug)]
pub(super) struct PagePicture {
    pub(super) caption: &'static str,
    pub(super) inverted: bool,
    pub(super) min_width: f64,
}

/// The HTML report's pictures: the flamegraph and the icicle of the
/// samples the page's tables count, each sample in each once. The compiler
/// process alone (record's `compiler.svg`) is not drawn again beside the
/// flamegraph: it is the flamegraph's widest root, and a click on it
/// zooms to it; drawn too, it doubled the page (the compiler is about 95%
/// of a compile's samples, so the two pictures were nearly the same).
pub(super) const PAGE_PICTURES: [PagePicture; 2] = [
    PagePicture {
        caption: "Flamegraph",
        inverted: false,
        min_width: defaults::MIN_WIDTH_PERCENT,
    },
    PagePicture {
        caption: "Icicle: the hot functions and their callers",
        inverted: true,
        min_width: defaults::INVERTED_MIN_WIDTH_PERCENT,
    },
];

/// What the HTML report shows of the run besides its samples.
pub(super) struct PageRun<'a> {
    /// What `run.json` says, when the recording has one.
    pub(super) facts: Option<&'a RunJson>,
    pub(super) notices: &'a [String],
    /// The RSS joined with the passes, when `memory.json` is there.
    pub(super) rss: Option<&'a RssJoin>,
    /// MLIR's actions on perf's clock, when the run recorded them.
    pub(super) actions: Option<&'a ActionJoin>,
    /// The alike executables the compile dumped into the run directory.
    pub(super) alike: &'a [Alike],
    /// The recording read with `--heap` (the same profile for `report
    /// --heap`, a second reading for `record --heap`) and its classes, when
    /// the run has a heap recording: the page then has the live-heap
    /// section and the timeline its line.
    pub(super) heap: Option<(&'a Profile, &'a Classes<'a>)>,
    /// The globals const-eval computed, when the run kept them.
    pub(super) consteval: Option<&'a ConstEval>,
}

/// The HTML report: what `run` holds (the run's `run.json` facts and the
/// notices), the tables (self categories chosen by `attribution`),
/// `flamegraphs` and the timeline (with the RSS line when `run.rss` is given).
pub(super) fn html_report(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    attribution: Attribution,
    run: &PageRun<'_>,
    flamegraphs: Vec<(String, Svg)>,
) -> String {
    let command = profile.profiled_command();
    let timeline = timeline(profile, classes, filter, defaults::TIMELINE_SLICES);
    let heap_line = run
        .heap
        .and_then(|(heap, _)| crate::attribute::heap::heap_line(heap, timeline.start_ns));
    let heap_peak = run.heap.and_then(|(heap, heap_classes)| {
        crate::attribute::heap::heap_peak(heap, heap_classes, run.consteval)
    });
    let timeline = (!timeline.slices.is_empty()).then(|| {
        timeline_svg::render(
            &timeline,
            classes.table,
            &command,
            None,
            run.rss,
            heap_line.as_ref(),
        )
    });
    let found = findings(profile, classes, filter, run.actions, run.alike);
    let mut facts = run_facts(profile, filter, run.facts, run.notices);
    facts.extend(
        finding_lines(profile, classes, &found)
            .into_iter()
            .map(|line| ("finding".to_owned(), line)),
    );
    let page = HtmlPage {
        facts,
        command,
        flamegraphs,
        timeline,
        attribution,
        artifacts: run
            .facts
            .map_or_else(Vec::new, |facts| facts.artifacts.clone()),
        actions: run.actions,
        heap: heap_peak.as_ref(),
        consteval: run.consteval,
    };
    html::render(&page, profile, classes, filter)
}

/// The facts at the top of the HTML report, the lost-samples warning and
/// the notices.
fn run_facts(
    profile: &Profile,
    filter: &SampleFilter,
    run: Option<&RunJson>,
    notices: &[String],
) -> Vec<(String, String)> {
    let mut facts = Vec::new();
    let mut fact = |label: &str, value: String| facts.push((label.to_owned(), value));
    if let Some(run) = run {
        if let Some(version) = run.compiler_version() {
            fact("compiler", version);
        }
        if !run.start_time.is_empty() {
            fact("started", run.start_time.clone());
        }
        if let Some(wall) = run.wall_seconds {
            fact("wall time", format!("{wall:.2} s"));
        }
        if let Some(rss) = run.peak_rss_bytes {
            fact(
                "peak RSS",
                format!("{:.1} MiB", rss as f64 / (1u64 << 20) as f64),
            );
        }
        match run.exit.map(|exit| (exit.code, exit.signal)) {
            Some((Some(code), _)) => fact("exit", format!("exit code {code}")),
            Some((None, Some(signal))) => fact("exit", format!("killed by signal {signal}")),
            _ => {}
        }
        if let Some(host) = run.hostname() {
            fact("host", host.to_owned());
        }
    }
    if let Some(warning) = lost_samples_warning(profile) {
        fact("warning", warning);
    }
    for notice in notices {
        fact("notice", notice.clone());
    }
    let (unwind, _) = unwind_stats(profile, filter);
    fact("event", profile.event.clone());
    fact(
        "samples",
        format!(
            "{} {} over {:.2} s, {:.1}% of stacks unwound to a thread root",
            unwind.total(),
            profile.unit,
            profile.counts.duration_seconds(),
            unwind.complete_percent()
        ),
    );
    if let Some(cost) = crate::report::instrumentation::facts(profile) {
        fact(
            "instrumentation",
            crate::report::instrumentation::sentence(&cost),
        );
    }
    fact("input", profile.input_name.clone());
    fact("processes", scope_words(filter));
    facts
}
