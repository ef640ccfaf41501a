//! compile-perf: profiles of iree-compile, from perf.data to answers.
//!
//! The pipeline runs one way:
//! [`perfdata`] reads records → [`process`] tracks processes and mappings →
//! [`unwind`] turns samples into frames → [`stacks`] interns them →
//! [`symbolize`] names each unique frame once → [`categorize`] sorts
//! functions into parts of the compiler → [`attribute`] totals →
//! [`report`] and [`render`] format, and [`output`] writes the files.
//! [`binary`] finds and maps the ELF files.

pub mod attribute;
pub mod binary;
pub mod cli;
pub mod error;
pub mod fold;
pub mod output;
pub mod perfdata;
pub mod process;
pub mod profile;
pub mod recorder;
pub mod render;
pub mod report;
pub mod rules;
pub mod stacks;
pub mod symbolize;
pub mod unwind;

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use cli::{Action, ColorChoice, Config};
use error::Error;
use output::{Output, write_output};
use perfdata::InputEnd;
use profile::Profile;
use rules::RuleTable;

/// Runs one command; returns the exit code its warnings call for.
pub fn run(config: &Config) -> Result<u8, Error> {
    let filter = &config.filter;
    match &config.action {
        Action::Measure { command, into } => {
            let code =
                recorder::measure::measure(command, into).map_err(|source| Error::Output {
                    target: into.display().to_string(),
                    source,
                })?;
            Ok(u8::try_from(code).unwrap_or(1))
        }
        Action::Record(options) => {
            // Rules compile before the compile is recorded: a bad file fails fast.
            let rules = load_rules(config.rules_file.as_deref())?;
            let recorded = recorder::record(options)?;
            report_recording(config, recorded, &rules)
        }
        Action::Rules { format } => {
            let rules = load_rules(config.rules_file.as_deref())?;
            write_output(&config.output, |out| {
                report::rules::write_rules(&rules, *format, out)
            })?;
            Ok(0)
        }
        Action::Collapse => {
            let profile = load_profile(config)?;
            write_output(&config.output, |out| {
                report::collapse::write_folded(&profile, filter, out)
            })?;
            finish(config, &profile)
        }
        Action::Top { limit, json } => {
            let profile = load_profile(config)?;
            let top = report::top::top_report(&profile, *limit, filter);
            write_output(&config.output, |out| {
                if *json {
                    report::top::write_json(&top, out)
                } else {
                    report::top::write_table(&top, out)
                }
            })?;
            finish(config, &profile)
        }
        Action::Report {
            format,
            grouping,
            attribution,
            color,
            flamegraph,
        } => {
            let (rules, profile) = rules_and_profile(config)?;
            // The flamegraph's stacks need no categories: they are made
            // while the symbols are classified.
            let (classes, prepared) = rayon::join(
                || attribute::Classes::new(&profile, &rules),
                || {
                    flamegraph.is_some().then(|| {
                        render::flamegraph::all_stacks(&profile, filter, DEFAULT_MIN_WIDTH)
                    })
                },
            );
            let colors = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => config.output == Output::Stdout && stdout_wants_color(),
            };
            // The flamegraph is drawn on a thread of its own while the table
            // is built and written, and while the recording's memory is
            // given back.
            let drawing = flamegraph
                .as_ref()
                .map(|svg| {
                    let request = FlamegraphRequest {
                        output: Output::File(svg.clone()),
                        category: None,
                        pass: None,
                        inverted: false,
                        min_width: DEFAULT_MIN_WIDTH,
                        folded_out: None,
                    };
                    let picture =
                        flamegraph_picture(&request, filter, &profile, &classes, prepared)?;
                    Ok::<_, Error>(std::thread::spawn(move || {
                        save_flamegraph(&request, picture)
                    }))
                })
                .transpose()?;
            let reported = (|| {
                let options = report::breakdown::ReportOptions {
                    grouping: *grouping,
                    attribution: *attribution,
                    filter: filter.clone(),
                };
                let breakdown = report::breakdown::breakdown(&profile, &classes, options);
                let memory = memory_section(load_options(config), &profile, &rules, filter)?;
                write_report(&config.output, &breakdown, memory, *format, colors)?;
                finish(config, &profile)
            })();
            drop(classes);
            drop(profile);
            drop(rules);
            let drawn = drawing.map_or(Ok(()), |drawing| {
                drawing.join().expect("drawing a flamegraph does not panic")
            });
            let code = reported?;
            drawn?;
            Ok(code)
        }
        Action::Timeline { json, buckets } => {
            let (rules, profile) = rules_and_profile(config)?;
            let classes = attribute::Classes::new(&profile, &rules);
            let timeline = attribute::timeline(&profile, &classes, filter, *buckets);
            if timeline.slices.is_empty() {
                return Err(Error::NothingToDraw {
                    reason: "no samples (check --pid, --process and --compiler)".to_owned(),
                });
            }
            let command = profile.profiled_command();
            write_output(&config.output, |out| {
                if *json {
                    let document = report::timeline_json::to_json(&timeline, &rules, command);
                    serde_json::to_writer_pretty(&mut *out, &document)?;
                    writeln!(out)
                } else {
                    out.write_all(
                        render::timeline_svg::render(&timeline, &rules, &command).as_bytes(),
                    )
                }
            })?;
            finish(config, &profile)
        }
        Action::Flamegraph {
            category,
            pass,
            inverted,
            min_width,
            folded_out,
        } => {
            let (rules, profile) = rules_and_profile(config)?;
            let request = FlamegraphRequest {
                output: config.output.clone(),
                category: category.clone(),
                pass: pass.clone(),
                inverted: *inverted,
                min_width: *min_width,
                folded_out: folded_out.clone(),
            };
            let drawn_whole = category.is_none() && pass.is_none() && !inverted;
            let (classes, prepared) = rayon::join(
                || attribute::Classes::new(&profile, &rules),
                || {
                    drawn_whole.then(|| {
                        render::flamegraph::all_stacks(&profile, filter, DEFAULT_MIN_WIDTH)
                    })
                },
            );
            let picture = flamegraph_picture(&request, filter, &profile, &classes, prepared)?;
            save_flamegraph(&request, picture)?;
            finish(config, &profile)
        }
    }
}

/// True when stdout is a terminal and `NO_COLOR` is not set.
fn stdout_wants_color() -> bool {
    std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

/// After `record`: reads the recording and fills the run directory with the
/// report (text and JSON) and the flamegraphs (all processes, the compiler
/// process, inverted), prints the category table, and marks `run.json`
/// finished. The exit code is the command's when it failed.
fn report_recording(
    config: &Config,
    mut recorded: recorder::Recorded,
    rules: &RuleTable,
) -> Result<u8, Error> {
    let load = profile::LoadOptions {
        input: perfdata::Input::Path(recorded.perf_data.clone()),
        event: None,
        symfs: Vec::new(),
        debug_roots: vec![PathBuf::from(profile::DEFAULT_DEBUG_ROOT)],
        salvage: false,
    };
    let profile = match profile::load(&load) {
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
    let classes = attribute::Classes::new(&profile, rules);
    let breakdown = report::breakdown::breakdown(
        &profile,
        &classes,
        report::breakdown::ReportOptions::default(),
    );
    let dir = recorded.dir.clone();
    let file = |name: &str| Output::File(dir.join(name));
    let memory = memory_section(&load, &profile, rules, &profile::SampleFilter::default())?;
    let table = Some(report::table::TextFormat::Table);
    write_report(
        &file("report.txt"),
        &breakdown,
        memory.clone(),
        table,
        false,
    )?;
    write_report(
        &file("report.json"),
        &breakdown,
        memory.clone(),
        None,
        false,
    )?;
    let mut outputs = vec!["report.txt", "report.json"];
    // The icicle of leaf callers splits into many thin frames: at 0.1 px an
    // iree-compile icicle is tens of MB, at 0.5 px about a hundred KB.
    let drawings = [
        ("flamegraph.svg", false, false, DEFAULT_MIN_WIDTH),
        ("compiler.svg", true, false, DEFAULT_MIN_WIDTH),
        ("flamegraph-inverted.svg", false, true, 0.5),
    ];
    for (name, compiler_only, inverted, min_width) in drawings {
        let request = FlamegraphRequest {
            output: file(name),
            category: None,
            pass: None,
            inverted,
            min_width,
            folded_out: None,
        };
        let filter = profile::SampleFilter {
            compiler_only,
            ..profile::SampleFilter::default()
        };
        let drawn = flamegraph_picture(&request, &filter, &profile, &classes, None)
            .and_then(|picture| save_flamegraph(&request, picture));
        match drawn {
            Ok(()) => outputs.push(name),
            Err(Error::NothingToDraw { reason }) => recorded
                .run
                .notes
                .push(format!("{name} not drawn: {reason}")),
            Err(error) => return Err(error),
        }
    }
    write_report(
        &Output::Stdout,
        &breakdown,
        memory,
        table,
        stdout_wants_color(),
    )?;
    recorded
        .run
        .outputs
        .extend(outputs.iter().map(|name| (*name).to_owned()));
    recorded.run.status = recorder::RunStatus::Finished;
    recorded.run.finished = true;
    recorded.save()?;
    eprintln!("compile-perf: the run is in {}", dir.display());

    let summary_code = finish(config, &profile)?;
    let command_code = recorded.run.exit.map_or(0, |exit| exit.shell_code());
    Ok(match (recorded.run.interrupted, command_code) {
        (true, _) => 130,
        (false, 0) => summary_code,
        (false, code) => u8::try_from(code).unwrap_or(1),
    })
}

/// Writes a report as text (`format`) or, without one, as JSON; the memory
/// section follows when the recording has one.
fn write_report(
    output: &Output,
    breakdown: &report::breakdown::Breakdown<'_>,
    memory: Option<report::memory::MemoryJson>,
    format: Option<report::table::TextFormat>,
    colors: bool,
) -> Result<(), Error> {
    write_output(output, |out| match format {
        Some(format) => {
            breakdown.write_text(format, colors, out)?;
            if let Some(memory) = &memory {
                writeln!(out)?;
                report::memory::write_text(memory, format, out)?;
            }
            Ok(())
        }
        None => {
            let mut json = breakdown.to_json();
            json.memory = memory;
            serde_json::to_writer_pretty(&mut *out, &json)?;
            writeln!(out)
        }
    })
}

/// The memory section, when the recording has a page-fault event: a second
/// reading of the recording, for that event.
fn memory_section(
    load: &profile::LoadOptions,
    profile: &Profile,
    rules: &RuleTable,
    filter: &profile::SampleFilter,
) -> Result<Option<report::memory::MemoryJson>, Error> {
    let Some(event) = report::memory::fault_event(profile) else {
        return Ok(None);
    };
    let faults = profile::load(&profile::LoadOptions {
        event: Some(event),
        ..load.clone()
    })?;
    let peak_rss = match &load.input {
        perfdata::Input::Path(path) => report::memory::peak_rss_beside(path),
        perfdata::Input::Stdin => None,
    };
    Ok(Some(report::memory::memory_report(
        &faults, rules, filter, peak_rss,
    )))
}

/// The recording a command reads (every command but `rules` has one).
fn load_options(config: &Config) -> &profile::LoadOptions {
    config
        .load
        .as_ref()
        .expect("the command line gives every command but `rules` a recording")
}

/// Reads the recording of a command that has one.
fn load_profile(config: &Config) -> Result<Profile, Error> {
    profile::load(load_options(config))
}

/// Frames narrower than this percentage of the width are left out of flamegraphs.
pub const DEFAULT_MIN_WIDTH: f64 = 0.1;

/// One flamegraph to draw.
struct FlamegraphRequest {
    output: Output,
    category: Option<String>,
    /// An MLIR pass name, as `report --by pass` prints it.
    pass: Option<String>,
    inverted: bool,
    min_width: f64,
    folded_out: Option<PathBuf>,
}

/// What `request` draws, ready for inferno. `prepared` holds every stack
/// `filter` keeps, made beforehand; it is used when it suits the request.
fn flamegraph_picture(
    request: &FlamegraphRequest,
    filter: &profile::SampleFilter,
    profile: &Profile,
    classes: &attribute::Classes<'_>,
    prepared: Option<render::flamegraph::Drawable<'_>>,
) -> Result<render::flamegraph::Picture, Error> {
    let rules = classes.table;
    let category = request
        .category
        .as_deref()
        .map(|wanted| {
            rules.find(wanted).ok_or_else(|| Error::UnknownCategory {
                wanted: wanted.to_owned(),
                available: rules
                    .categories
                    .iter()
                    .map(|category| category.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
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
                    available: classes.passes.names().join(", "),
                })
        })
        .transpose()?;
    let options = render::flamegraph::FlamegraphOptions {
        category,
        pass,
        inverted: request.inverted,
        min_width: request.min_width,
        keep_folded: request.folded_out.is_some(),
        filter: filter.clone(),
    };
    match prepared {
        Some(drawable) if drawable.suits(&options) => {
            render::flamegraph::picture_of(profile, classes, &options, drawable)
        }
        _ => render::flamegraph::picture(profile, classes, &options),
    }
    .ok_or_else(|| Error::NothingToDraw {
        reason: "no samples to draw (check --category, --pid, --process and --compiler)".to_owned(),
    })
}

/// Draws `picture` and writes it, and its folded stacks, where `request` says.
fn save_flamegraph(
    request: &FlamegraphRequest,
    picture: render::flamegraph::Picture,
) -> Result<(), Error> {
    let rendered = picture.draw().map_err(|source| Error::Output {
        target: request.output.name(),
        source,
    })?;
    if let Some(path) = &request.folded_out {
        write_output(&Output::File(path.clone()), |out| {
            rendered
                .folded
                .iter()
                .try_for_each(|line| writeln!(out, "{line}"))
        })?;
    }
    write_output(&request.output, |out| out.write_all(&rendered.svg))
}

/// Prints the summary and turns how the input ended into the result.
fn finish(config: &Config, profile: &Profile) -> Result<u8, Error> {
    let summary = report::summary::summarize(profile);
    let mut stderr = std::io::stderr().lock();
    let shown = if config.quiet {
        report::summary::Summary {
            lines: Vec::new(),
            ..summary
        }
    } else {
        summary
    };
    // The summary is a diagnostic; failing to print it must not fail the run.
    let _ = report::summary::write_summary(&shown, &mut stderr);

    let input = profile.input_name.clone();
    let samples = profile.counts.samples;
    match &profile.input_end {
        InputEnd::Complete => Ok(shown.exit_code),
        InputEnd::CutShort { bytes, reason } => Err(Error::StreamCutShort {
            input,
            bytes: *bytes,
            reason,
            samples,
        }),
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
            Ok(error::EXIT_TRUNCATED)
        }
    }
}

/// The rule table and the recording. The rules compile on another core
/// while the recording loads; a bad rules file is the error reported, once
/// the load is over.
fn rules_and_profile(config: &Config) -> Result<(RuleTable, Profile), Error> {
    std::thread::scope(|scope| {
        let rules = scope.spawn(|| load_rules(config.rules_file.as_deref()));
        let profile = load_profile(config);
        let rules = rules.join().expect("compiling the rules does not panic")?;
        Ok((rules, profile?))
    })
}

/// The longest `--rules` file read (the built-in table has 40 KB).
const MAX_RULES_FILE_BYTES: u64 = 16 << 20;

/// The built-in rule table, extended by `file` when given.
fn load_rules(file: Option<&Path>) -> Result<RuleTable, Error> {
    use std::io::Read;
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
