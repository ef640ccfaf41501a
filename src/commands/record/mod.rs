//! `compile-perf record`: records the command under perf (see
//! [`crate::recorder`]), then reads the recording and fills the run
//! directory with the report (text, JSON and the HTML page) and the
//! flamegraphs (all processes, the compiler process, inverted), prints the
//! category table, and marks `run.json` finished.
//!
//! With `--repeat N`, the command is recorded N times into `DIR/run-1` …
//! `DIR/run-N` (each a run directory as above), and the report of the runs
//! together, with the spread of each category's share from run to run, goes
//! to `DIR/report.txt`, `DIR/report.json` and stdout. `DIR/run.json` lists
//! the runs, so that `--force` knows DIR as a run directory and `diff` reads
//! it as one side.
//!
//! With `--history`, each run is added to the history store as it finishes,
//! as `history add` adds it (`commands/keep`), from its `run.json`,
//! recording and `report.json` as they are in memory (the recording is read
//! again only after `--alloc`: the store keeps CPU shares); a run that
//! cannot be added stays in its directory, and the exit code is the history
//! error's.

mod series;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{ArgGroup, Args};

use super::args::{RulesFileArg, cores, default_run_dir, heading};
use super::draw::{
    FlamegraphRequest, PAGE_PICTURES, PageRun, flamegraph_picture, html_report, save_flamegraph,
};
use super::keep::facts::RunInputs;
use super::keep::{Keep, Keeper, StoreArgs, TagArgs};
use super::{
    Config, Run, alike_executables, finish, heap_reading, load_recording, load_rules,
    memory_section, own_recording, page_actions, rss_join, stdout_colors, write_report,
    write_report_json,
};
use crate::actions::ActionsMode;
use crate::attribute::{Attribution, Classes};
use crate::defaults;
use crate::error::{EXIT_INTERRUPTED, Error};
use crate::output::{Output, write_output};
use crate::profile::SampleFilter;
use crate::recorder::{CallGraph, RateRequest, RecordOptions, Recorded, record};
use crate::report::breakdown::{BreakdownOptions, breakdown};
use crate::report::run_facts::notices;
use crate::report::summary::lost_samples_warning;
use crate::report::table::{Colors, TextFormat};
use crate::run_dir::{RatePlan, RunDir, RunJson, RunStatus, StreamChoice, Streams};
use category_rules::RuleTable;
use perfdata::Input;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  Record into compile-perf-runs/<timestamp>/: perf.data, report, flamegraphs, run.json:
    compile-perf record -- iree-compile model.mlir -o model.vmfb
  Three runs with iree-compile's pass timers, reported together:
    compile-perf record --repeat 3 --mlir-timing -o runs/base -- iree-compile model.mlir -o m.vmfb
  Three runs, each kept in the history store under a key as it finishes (CI on main):
    compile-perf record --repeat 3 --history --key model=m --commit $GIT_SHA -- iree-compile m.mlir -o m.vmfb";

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("history_tags").multiple(true).requires("history")
    .args(["db", "keys", "commit", "branch", "machine", "labels"])))]
pub(crate) struct RecordArgs {
    /// The run directory. Default is compile-perf-runs/<timestamp>.
    #[arg(long, short, value_name = "DIR", help_heading = heading::OUTPUT)]
    output: Option<PathBuf>,
    /// Replace the run directory if it exists.
    #[arg(long, help_heading = heading::OUTPUT)]
    force: bool,
    /// Samples per second. Default is 499, lowered when --budget asks.
    #[arg(long = "freq", value_name = "HZ", help_heading = heading::PERF)]
    frequency: Option<u32>,
    /// How perf collects stacks: dwarf (whole stacks in iree-compile) or fp.
    #[arg(long, value_enum, default_value_t, help_heading = heading::PERF)]
    call_graph: CallGraph,
    /// Bytes of stack copied per sample with --call-graph dwarf. Default is
    /// 65528, lowered when --budget asks and the frequency is at its lowest.
    #[arg(long, value_name = "BYTES", help_heading = heading::PERF)]
    stack_size: Option<u32>,
    /// The raw data rate to stay under, in MB/s across all cores: the
    /// frequency and then the stack size are lowered to fit (an explicit
    /// --freq or --stack-size wins).
    #[arg(long, value_name = "MB_PER_S", default_value_t = defaults::BUDGET_MB_PER_S,
          value_parser = clap::value_parser!(u64).range(1..),
          help_heading = heading::PERF)]
    budget: u64,
    /// How perf writes the recording: one stream, or one per CPU (perf's
    /// --threads, a perf.data directory). Default is per-cpu on more than
    /// one core.
    #[arg(long, value_enum, value_name = "STREAMS", help_heading = heading::PERF)]
    streams: Option<Streams>,
    /// The event to sample. Default: hardware cycles, or cpu-clock where the
    /// machine has no hardware counters (VMs, containers).
    #[arg(long, value_name = "EVENT", help_heading = heading::PERF)]
    event: Option<String>,
    /// Also sample page faults (`page-faults/period=64/`): the report then
    /// shows memory first touched by category and by pass. (`--memory` is
    /// its former name.)
    #[arg(long, alias = "memory", help_heading = heading::RECORDING)]
    page_faults: bool,
    /// Record allocations instead of CPU time: uprobes on libc's malloc,
    /// calloc and realloc (operator new calls malloc); every call asking for
    /// at least --alloc-min-bytes is a sample, weighted by its size.
    #[arg(long, conflicts_with_all = ["page_faults", "event"], help_heading = heading::RECORDING)]
    alloc: bool,
    /// With --alloc: the smallest request recorded, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = defaults::ALLOC_MIN_BYTES,
          value_parser = clap::value_parser!(u64).range(1..),
          help_heading = heading::RECORDING)]
    alloc_min_bytes: u64,
    /// Also sample the live heap: the heap sampler library is preloaded
    /// into the compile and samples allocations by bytes (one per
    /// --heap-rate bytes on average), with their frees; `report --heap`
    /// then says what is live at the RSS peak, by stack, category and pass.
    #[arg(long, conflicts_with = "alloc", help_heading = heading::RECORDING)]
    heap: bool,
    /// With --heap: the mean bytes allocated between two samples.
    #[arg(long, value_name = "BYTES", default_value_t = defaults::HEAP_RATE_BYTES,
          value_parser = clap::value_parser!(u64).range(1..),
          help_heading = heading::RECORDING)]
    heap_rate: u64,
    /// Pass ARG on to `perf record`. Repeatable.
    #[arg(long = "perf-arg", value_name = "ARG", allow_hyphen_values = true,
          help_heading = heading::PERF)]
    perf_args: Vec<String>,
    /// Record the command N times, into DIR/run-1 … DIR/run-N, and report
    /// the runs together, with the spread of each category's share.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          help_heading = heading::RECORDING)]
    repeat: Option<u32>,
    /// Add `--mlir-timing --mlir-timing-display=tree --mlir-output-format=json`
    /// to the iree-compile command and keep its pass timers as
    /// DIR/mlir-timing.json, which `report --by pass` joins with the samples.
    #[arg(long, help_heading = heading::RECORDING)]
    mlir_timing: bool,
    /// Turn on iree-compile's action profiler and keep the interval of every
    /// pass run and pattern applied as DIR/actions.bin, for `report --by
    /// pattern|unit`. MODE times (the default) cost the compile 1.04–1.2×
    /// its time here; units also turns on the action log, which names the
    /// IR unit of each pass run, and runs the compile on one thread (the log
    /// is not safe for threads): 2.7× on a small model, but about 25–35×
    /// on a real one, whose log is many GB (bert-mlm-2l: 15.5 GB, about 50×
    /// its input); record warns with the input's size before it runs.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1,
          default_missing_value = "times", require_equals = true,
          help_heading = heading::RECORDING)]
    actions: Option<ActionsMode>,
    /// Do not explain const-eval. By default an iree-compile command that
    /// writes no MLIR text also prints the module before and after
    /// const-eval's JitGlobalsPass, constants elided, into DIR/consteval-ir
    /// (its cost is within the compile's run-to-run noise), and the globals
    /// const-eval computed are kept as DIR/consteval.json: each with its
    /// inputs, the ops applied and the bytes it added to the module.
    #[arg(long, help_heading = heading::RECORDING)]
    no_consteval: bool,
    /// Neither the live status line nor the summary on stderr (warnings
    /// still print).
    #[arg(long, short, help_heading = heading::OUTPUT)]
    quiet: bool,
    /// Add each run to the history store as it finishes, as `history add`
    /// does (a run that cannot be added stays in its directory; exit 50–52).
    #[arg(long, help_heading = heading::STORE)]
    history: bool,
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    tags: TagArgs,
    #[command(flatten)]
    rules: RulesFileArg,
    /// The command to record, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

impl RecordArgs {
    pub(crate) fn into_config(self) -> Config {
        let record = RecordOptions {
            command: self.command,
            output_dir: self.output.unwrap_or_else(default_run_dir),
            force: self.force,
            rate: RatePlan::choose(RateRequest {
                frequency: self.frequency,
                stack_size: self.stack_size,
                budget_bytes_per_s: self.budget.saturating_mul(1_000_000),
                call_graph: self.call_graph,
                cores: cores(),
            }),
            call_graph: self.call_graph,
            streams: StreamChoice::new(
                self.streams
                    .unwrap_or_else(|| Streams::default_for(cores())),
                self.streams.is_some(),
                &self.perf_args,
            ),
            event: self.event,
            perf_args: self.perf_args,
            page_faults: self.page_faults,
            alloc_min_bytes: self.alloc.then_some(self.alloc_min_bytes),
            heap_rate: self.heap.then_some(self.heap_rate),
            repeat: self.repeat,
            mlir_timing: self.mlir_timing,
            actions: self.actions,
            quiet: self.quiet,
            status_label: None,
            kernel_symbols: true,
            consteval: !self.no_consteval,
        };
        let history = self.history.then(|| Keep {
            tags: self.tags.tags(&self.store.keys),
            db: self.store.db,
        });
        Config::new(
            Record { record, history },
            None,
            self.quiet,
            self.rules.file,
        )
    }
}

/// `record`'s settings: the recording, and the store its runs go to.
#[derive(Debug)]
struct Record {
    record: RecordOptions,
    history: Option<Keep>,
}

impl Run for Record {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(
            config,
            &self.record,
            &mut Keeper::new(self.history.as_ref()),
        )
    }
}

/// Records, then reports. The exit code is the command's when it failed.
fn run(config: &Config, options: &RecordOptions, keeper: &mut Keeper) -> Result<u8, Error> {
    // Rules compile before the compile is recorded: a bad file fails fast.
    let rules = load_rules(config.rules_file.as_deref())?;
    if let Some(times) = options.repeat {
        return series::run_series(config, options, times, &rules, keeper);
    }
    let recorded = record(options)?;
    let failed = failed(&recorded);
    let alloc = options.alloc_min_bytes.is_some();
    let code = report_recording(config, recorded, &rules, false, alloc, keeper)?;
    Ok(keeper.exit_code(code, failed))
}

/// Whether the compile of a recording failed or was interrupted.
fn failed(recorded: &Recorded) -> bool {
    recorded.run.interrupted || recorded.run.exit.is_some_and(|exit| exit.shell_code() != 0)
}

/// Bytes asked for are charged to the caller of the allocator.
fn attribution_of(alloc: bool) -> Attribution {
    if alloc {
        Attribution::Caller
    } else {
        Attribution::Leaf
    }
}

/// Reads the recording and makes the run directory's reports, then hands
/// the run to `keeper` (`--history`) as it is in memory. One run of a
/// series (`--repeat`) does not print its table: the set's report follows.
fn report_recording(
    config: &Config,
    mut recorded: Recorded,
    rules: &RuleTable,
    in_series: bool,
    alloc: bool,
    keeper: &mut Keeper,
) -> Result<u8, Error> {
    let read = own_recording(crate::progress::shown(config.quiet), alloc);
    let input = Input::Path(recorded.perf_data.clone());
    let run_dir = RunDir::open(&recorded.dir);
    let profile = match load_recording(&input, &read, &run_dir, &SampleFilter::default()) {
        Ok(profile) => profile,
        Err(error) => {
            recorded
                .run
                .notes
                .push(format!("the recording cannot be read: {error}"));
            recorded.save()?;
            return Err(error);
        }
    };
    let mut classes = Classes::new(&profile, rules);
    let (actions, actions_notice) = page_actions(&run_dir, &profile, &mut classes);
    let actions = actions.map(Arc::new);
    if let Some(notice) = actions_notice {
        recorded.run.notes.push(notice);
    }
    let (alike, alike_notice) = alike_executables(&run_dir);
    if let Some(notice) = alike_notice {
        recorded.run.notes.push(notice);
    }
    let attribution = attribution_of(alloc);
    let run = Some(recorded.run.clone());
    let run_notices = notices(&profile, run.as_ref());
    let mut breakdown = breakdown(
        &profile,
        &classes,
        BreakdownOptions {
            attribution,
            actions: actions.clone(),
            alike: alike.clone(),
            ..BreakdownOptions::default()
        },
    );
    let (rss, rss_notice) = rss_join(&run_dir, &profile, &classes, &SampleFilter::default());
    let mut run_notices = run_notices;
    run_notices.extend(rss_notice);
    let (consteval, consteval_notice) = run_dir.consteval();
    run_notices.extend(consteval_notice);
    breakdown.set_consteval(consteval.clone());
    breakdown.set_run(run.clone(), run_notices.clone());
    breakdown.set_rss(rss.clone());
    let dir = recorded.dir.clone();
    let file = |name: &str| Output::File(dir.join(name));
    let memory = memory_section(
        &input,
        &read,
        &run_dir,
        &profile,
        rules,
        &SampleFilter::default(),
        attribution,
    )?;
    let table = Some(TextFormat::Table);
    write_report(
        &file("report.txt"),
        &breakdown,
        memory.clone(),
        table,
        Colors::Plain,
    )?;
    // Kept for the history store as written.
    let mut report_json = Vec::new();
    write_output(&file("report.json"), |out| {
        write_report_json(&mut report_json, &breakdown, memory.clone(), None)?;
        out.write_all(&report_json)
    })?;
    let mut outputs = vec!["report.txt", "report.json"];
    // The files, and the page's pictures among them (the page does not
    // draw the compiler alone again: see `PAGE_PICTURES`).
    let [flamegraph, icicle] = PAGE_PICTURES;
    let drawings = [
        (
            "flamegraph.svg",
            false,
            false,
            defaults::MIN_WIDTH_PERCENT,
            Some(flamegraph.caption),
        ),
        (
            "compiler.svg",
            true,
            false,
            defaults::MIN_WIDTH_PERCENT,
            None,
        ),
        (
            "flamegraph-inverted.svg",
            false,
            true,
            defaults::INVERTED_MIN_WIDTH_PERCENT,
            Some(icicle.caption),
        ),
    ];
    let mut svgs = Vec::new();
    for (name, compiler_only, inverted, min_width, caption) in drawings {
        let request = FlamegraphRequest {
            run_facts: run.as_ref().map(RunJson::short_line),
            ..FlamegraphRequest::whole(file(name), inverted, min_width)
        };
        let filter = SampleFilter {
            compiler_only,
            ..SampleFilter::default()
        };
        let drawn = flamegraph_picture(&request, &filter, &profile, &classes, None)
            .and_then(|picture| save_flamegraph(&request, picture));
        match drawn {
            Ok(svg) => {
                outputs.push(name);
                if let Some(caption) = caption {
                    svgs.push((caption.to_owned(), svg));
                }
            }
            Err(Error::NothingToDraw { reason }) => recorded
                .run
                .notes
                .push(format!("{name} not drawn: {reason}")),
            Err(error) => return Err(error),
        }
    }
    let heap_profile = match heap_reading(&input, &read, &run_dir, &profile) {
        Some(Ok(heap_profile)) => Some(heap_profile),
        Some(Err(error)) => {
            let note = format!("the live heap cannot be read: {error}");
            recorded.run.notes.push(note);
            None
        }
        None => None,
    };
    let heap_classes = heap_profile
        .as_ref()
        .map(|heap_profile| Classes::new(heap_profile, rules));
    let page = html_report(
        &profile,
        &classes,
        &SampleFilter::default(),
        attribution,
        &PageRun {
            facts: run.as_ref(),
            notices: &run_notices,
            rss: rss.as_ref(),
            actions: actions.as_deref(),
            alike: &alike,
            heap: heap_profile.as_ref().zip(heap_classes.as_ref()),
            consteval: consteval.as_ref(),
        },
        svgs,
    );
    write_output(&file("report.html"), |out| out.write_all(page.as_bytes()))?;
    outputs.push("report.html");
    if !in_series {
        write_report(&Output::Stdout, &breakdown, memory, table, stdout_colors())?;
    }
    recorded
        .run
        .outputs
        .extend(outputs.iter().map(|name| (*name).to_owned()));
    recorded.run.notes.extend(run_notices);
    recorded.run.lost_samples = Some(profile.counts.lost.samples());
    recorded.run.instrumentation = crate::report::instrumentation::facts(&profile);
    recorded.run.notes.extend(lost_samples_warning(&profile));
    recorded.run.status = RunStatus::Finished;
    recorded.run.finished = true;
    recorded.save()?;
    eprintln!("compile-perf: the run is in {}", dir.display());
    if crate::heap::heap_events(&profile.info).is_some() {
        eprintln!(
            "compile-perf: the live heap at the RSS peak: compile-perf report {} --heap",
            dir.display()
        );
    }

    let summary_code = finish(config, &profile, run.as_ref())?;
    let inputs = RunInputs {
        dir: &dir,
        run_dir: &run_dir,
        run: &recorded.run,
        // The store keeps CPU shares: a reading of the allocations is no use.
        profile: (!alloc).then_some(&profile),
        report: String::from_utf8(report_json).ok(),
    };
    keeper.add(inputs, failed(&recorded), rules);
    let command_code = recorded.run.exit.map_or(0, |exit| exit.shell_code());
    Ok(match (recorded.run.interrupted, command_code) {
        (true, _) => EXIT_INTERRUPTED,
        (false, 0) => summary_code,
        (false, code) => u8::try_from(code).unwrap_or(1),
    })
}
