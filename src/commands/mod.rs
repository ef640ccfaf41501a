//! The commands, one file each, and what they share: the [`Config`] the
//! command line resolves to, loading the rule table and the recording,
//! writing a report, and the closing summary that turns warnings and how the
//! input ended into the exit code.
//!
//! A command is a function `run(&Config, &Options) -> Result<u8, Error>` over
//! the library's layers; it never parses arguments (that is `cli`) and
//! writes every file through [`crate::output`].

pub(crate) mod args;
pub(crate) mod cache;
pub(crate) mod collapse;
pub(crate) mod completions;
pub(crate) mod diff;
mod draw;
pub(crate) mod executables;
pub(crate) mod export;
pub(crate) mod flamegraph;
pub(crate) mod format;
pub(crate) mod history;
mod joins;
mod keep;

use joins::{actions_for, alike_executables, page_actions, rss_join, timer_join};
pub(crate) mod man;
pub(crate) mod measure;
pub(crate) mod push;
pub(crate) mod record;
pub(crate) mod report;
pub(crate) mod rules;
mod series;
pub(crate) mod timeline;
pub(crate) mod top;

use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::attribute::heap::HeapPeak;
use crate::attribute::{Attribution, categories_cached};
use crate::error::{EXIT_TRUNCATED, Error};
use crate::output::{Output, write_output};
use crate::profile::{Profile, ReadOptions, SampleFilter};
use crate::report::breakdown::Breakdown;
use crate::report::memory::{self, MemoryJson};
use crate::report::run_facts::{notes_lost_samples, notices};
use crate::report::summary::{self, Summary};
use crate::report::table::{Colors, TextFormat, set_line_width};
use crate::run_dir::{RunDir, RunJson};
use category_rules::RuleTable;
use perfdata::{Input, InputEnd};

/// What to do, resolved from the command line: the command with its own
/// settings, and the settings every command shares.
#[derive(Debug)]
pub struct Config {
    pub(crate) command: Box<dyn Run>,
    pub(crate) output: Output,
    pub(crate) quiet: bool,
    /// The `--rules` file, if any.
    pub(crate) rules_file: Option<PathBuf>,
}

impl Config {
    /// `command`, writing to `output` (`None` and `-`: stdout).
    pub(crate) fn new(
        command: impl Run + 'static,
        output: Option<PathBuf>,
        quiet: bool,
        rules_file: Option<PathBuf>,
    ) -> Config {
        Config {
            command: Box::new(command),
            output: Output::from_arg(output),
            quiet,
            rules_file,
        }
    }
}

/// A command with its settings, as its arguments resolve (each command's
/// file has its `…Args`, their `into_config` and this).
pub(crate) trait Run: std::fmt::Debug + Send + Sync {
    /// Runs the command; returns the exit code its warnings call for.
    fn run(&self, config: &Config) -> Result<u8, Error>;

    /// How the command reads recordings, when it reads any.
    fn read_options(&self) -> Option<&ReadOptions> {
        None
    }
}

/// What a command that reads one recording reads, how, and which of its
/// samples it keeps.
#[derive(Clone, Debug)]
pub(crate) struct Reading {
    pub(crate) input: Input,
    pub(crate) read: ReadOptions,
    pub(crate) filter: SampleFilter,
}

/// `--color`: when a table gets colours (swatches, changes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether a table written to `output` gets colours: with `auto`, only
    /// on a terminal, and not when `NO_COLOR` is set.
    fn wanted(self, output: &Output) -> Colors {
        match self {
            ColorChoice::Always => Colors::Ansi,
            ColorChoice::Never => Colors::Plain,
            ColorChoice::Auto if *output == Output::Stdout => stdout_colors(),
            ColorChoice::Auto => Colors::Plain,
        }
    }
}

/// Colours when stdout is a terminal and `NO_COLOR` is not set.
fn stdout_colors() -> Colors {
    let wanted = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
    match wanted {
        true => Colors::Ansi,
        false => Colors::Plain,
    }
}

/// The line width text tables are fitted to for `output`: `COLUMNS` when
/// set (0: as wide as the cells need); else the terminal's width when it
/// goes to one; else [`crate::defaults::TABLE_WIDTH`]. JSON keeps every
/// name whole.
pub(crate) fn fit_tables_to(output: &Output) {
    let terminal = (*output == Output::Stdout)
        .then(|| terminal_size::terminal_size_of(std::io::stdout()))
        .flatten()
        .map(|(terminal_size::Width(width), _)| usize::from(width));
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|value| value.trim().parse::<usize>().ok());
    match (columns, terminal) {
        (Some(0), _) => {}
        (Some(width), _) | (None, Some(width)) => set_line_width(width),
        (None, None) => set_line_width(crate::defaults::TABLE_WIDTH),
    }
}

/// Leaves `value` to the process's exit, which gives its memory back at
/// once: freeing a profile allocation by allocation took 8 ms of a 70 ms
/// report. Entries being written to the cache are waited for by
/// [`crate::run`], not by the handles on the cache left here.
fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// The run directory the recording `input` is in, read once; an empty one
/// for a recording outside a run directory or read from stdin.
fn run_dir_of(input: &Input) -> RunDir {
    match input {
        Input::Path(path) => RunDir::of_recording(path),
        Input::Stdin => RunDir::default(),
    }
}

/// Reads the recording of a command that has one, and its run directory.
fn load_profile(reading: &Reading) -> Result<(Profile, RunDir), Error> {
    let run_dir = run_dir_of(&reading.input);
    Ok((
        load_recording(&reading.input, &reading.read, &run_dir, &reading.filter)?,
        run_dir,
    ))
}

/// Reads a recording, with the command its run's `run.json` names (perf's
/// own command line does not name it: `record` attaches perf to it).
/// With `--heap`, `scope` (the processes the command keeps) sets the clock
/// of the heap's seconds and of `--at`: from the first sample it keeps, as
/// the memory line and the timeline count them.
fn load_recording(
    input: &Input,
    read: &ReadOptions,
    run_dir: &RunDir,
    scope: &SampleFilter,
) -> Result<Profile, Error> {
    let mut profile = crate::profile::load(input, read)?;
    profile.command = run_dir.run.as_ref().map(|run| run.command.join(" "));
    if let Some(instant) = read.heap {
        let series = match &run_dir.rss {
            crate::run_dir::RunFile::Read(series) => Some(series),
            _ => None,
        };
        profile.heap_view = crate::profile::apply_heap_view(&mut profile, series, instant, scope);
    }
    Ok(profile)
}

/// With `record --heap`: the recording read again with `--heap` (the live
/// heap at the RSS peak) for the HTML page's heap section, as `report
/// --heap` reads it; `None` for a recording without the heap sampler's
/// markers.
fn heap_reading(
    input: &Input,
    read: &ReadOptions,
    run_dir: &RunDir,
    profile: &Profile,
) -> Option<Result<Profile, Error>> {
    crate::heap::heap_events(&profile.info)?;
    let read = ReadOptions {
        heap: Some(crate::profile::HeapInstant::Peak),
        ..read.clone()
    };
    Some(load_recording(
        input,
        &read,
        run_dir,
        &SampleFilter::default(),
    ))
}

/// The rule table and the recording. The rules are read (and, when their
/// categories are not cached, compiled) on another core while the
/// recording loads; a bad rules file is the error reported, once the load
/// is over.
fn rules_and_profile(
    config: &Config,
    reading: &Reading,
) -> Result<(RuleTable, Profile, RunDir), Error> {
    std::thread::scope(|scope| {
        let rules = scope.spawn(|| -> Result<RuleTable, Error> {
            let rules = load_rules(config.rules_file.as_deref())?;
            // Without cached categories every name is matched: the patterns
            // compile while the recording is read, on the core the reader
            // leaves half idle.
            if !categories_cached(&reading.read.cache, &rules) {
                rules.compile_patterns();
            }
            Ok(rules)
        });
        let loaded = load_profile(reading);
        let rules = rules.join().expect("compiling the rules does not panic")?;
        let (profile, run_dir) = loaded?;
        Ok((rules, profile, run_dir))
    })
}

/// The longest `--rules` file read (the built-in table has 40 KB).
const MAX_RULES_FILE_BYTES: u64 = 16 << 20;

/// The error for a `--category` (or `--max-increase`) the table does not
/// have, with the closest ids and names.
fn unknown_category(rules: &RuleTable, wanted: &str) -> Error {
    Error::UnknownCategory {
        wanted: wanted.to_owned(),
        closest: crate::suggest::closest(wanted, rules.ids_and_names()),
    }
}

/// How `record` and `executables` read the recordings they made: no
/// `--symfs`, the system's debug files, the caches on; with `progress`, a
/// bar on the terminal; with `alloc`, samples weighted as `record --alloc`'s.
fn own_recording(progress: bool, alloc: bool) -> ReadOptions {
    ReadOptions {
        event: None,
        symfs: Vec::new(),
        debug_roots: vec![PathBuf::from(crate::defaults::DEBUG_ROOT)],
        salvage: false,
        cache: crate::cache::Cache::from_env(true),
        jobs: None,
        alloc,
        heap: None,
        progress,
        with_instrumentation: false,
    }
}

/// The built-in rule table, extended by `file` when given.
fn load_rules(file: Option<&Path>) -> Result<RuleTable, Error> {
    let Some(path) = file else {
        return Ok(RuleTable::builtin());
    };
    let unreadable = |source| Error::ReadRules {
        path: path.to_owned(),
        source,
    };
    // Read at most one byte past the limit: `/dev/zero`, an endless FIFO or a
    // huge file is refused instead of filling memory.
    let mut bytes = Vec::new();
    File::open(path)
        .map_err(unreadable)?
        .take(MAX_RULES_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_RULES_FILE_BYTES {
        return Err(unreadable(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "it is longer than {} MiB, the most a rules file may have",
                MAX_RULES_FILE_BYTES >> 20
            ),
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|error| unreadable(std::io::Error::new(std::io::ErrorKind::InvalidData, error)))?;
    Ok(RuleTable::with_user_rules(
        &text,
        &path.display().to_string(),
    )?)
}

/// Writes a report as text (`format`) or, without one, as JSON; the memory
/// section follows when the recording has one.
fn write_report(
    output: &Output,
    breakdown: &Breakdown<'_>,
    memory: Option<MemoryJson>,
    format: Option<TextFormat>,
    colors: Colors,
) -> Result<(), Error> {
    write_report_with_heap(output, breakdown, memory, None, format, colors)
}

/// [`write_report`], with the heap section of a `--heap` reading.
fn write_report_with_heap(
    output: &Output,
    breakdown: &Breakdown<'_>,
    memory: Option<MemoryJson>,
    heap: Option<HeapPeak>,
    format: Option<TextFormat>,
    colors: Colors,
) -> Result<(), Error> {
    write_output(output, |out| match format {
        Some(format) => {
            breakdown.write_text(format, colors, out)?;
            if let Some(heap) = &heap {
                writeln!(out)?;
                crate::report::heap::write_text(heap, out)?;
            }
            if let Some(memory) = &memory {
                writeln!(out)?;
                memory::write_text(memory, format, out)?;
            }
            Ok(())
        }
        None => write_report_json(out, breakdown, memory, heap),
    })
}

/// Writes a report as JSON (`report.json`), with the memory and heap
/// sections when given.
fn write_report_json(
    out: &mut dyn Write,
    breakdown: &Breakdown<'_>,
    memory: Option<MemoryJson>,
    heap: Option<HeapPeak>,
) -> std::io::Result<()> {
    let mut json = breakdown.to_json();
    json.first_touch = memory;
    json.heap_peak = heap;
    serde_json::to_writer_pretty(&mut *out, &json)?;
    writeln!(out)
}

/// The memory section, when the recording has a page-fault event: a second
/// reading of the recording, for that event.
fn memory_section(
    input: &Input,
    read: &ReadOptions,
    run_dir: &RunDir,
    profile: &Profile,
    rules: &RuleTable,
    filter: &SampleFilter,
    attribution: Attribution,
) -> Result<Option<MemoryJson>, Error> {
    let Some(event) = memory::fault_event(profile) else {
        return Ok(None);
    };
    let faults = load_recording(
        input,
        &ReadOptions {
            event: Some(event),
            ..read.clone()
        },
        run_dir,
        filter,
    )?;
    let peak_rss = run_dir.run.as_ref().and_then(|run| run.peak_rss_bytes);
    Ok(Some(memory::memory_report(
        &faults,
        rules,
        filter,
        peak_rss,
        attribution,
    )))
}

/// Prints the summary and the notices, and turns how the input ended into
/// the result. The run's facts (`run.json`) feed the notices; a lost-samples
/// warning `record` already noted there is not repeated.
fn finish(config: &Config, profile: &Profile, run: Option<&RunJson>) -> Result<u8, Error> {
    let warn_lost = !config.quiet && !run.is_some_and(notes_lost_samples);
    let summary = summary::summarize(profile, warn_lost);
    let mut stderr = std::io::stderr().lock();
    let shown = if config.quiet {
        Summary {
            lines: Vec::new(),
            ..summary
        }
    } else {
        summary
    };
    // The summary is a diagnostic; failing to print it must not fail the run.
    let _ = summary::write_summary(&shown, &mut stderr);
    if !config.quiet {
        for notice in notices(profile, run) {
            let _ = writeln!(stderr, "compile-perf: notice: {notice}");
        }
    }

    let input = profile.input_name.clone();
    let samples = profile.counts.samples;
    match &profile.input_end {
        InputEnd::Complete => Ok(shown.exit_code),
        InputEnd::CutShort { bytes, reason } => Err(Error::Read(perfdata::Error::StreamCutShort {
            input,
            bytes: *bytes,
            reason,
            samples,
        })),
        InputEnd::Corrupt { reason } => Err(Error::CorruptRecords {
            input,
            reason: reason.clone(),
            samples,
        }),
        InputEnd::Salvaged { reason } => {
            let _ = writeln!(
                stderr,
                "compile-perf: warning: {input}: salvaged: {reason}; {samples} samples were read"
            );
            Ok(EXIT_TRUNCATED)
        }
        InputEnd::Unfinished { reason } => {
            let _ = writeln!(
                stderr,
                "compile-perf: warning: {input}: {reason}; the {samples} samples before it were read"
            );
            Ok(shown.exit_code)
        }
    }
}
