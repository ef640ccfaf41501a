//! `compile-perf diff BASE NEW`: reads every run of both sides, writes the
//! comparison, draws the differential flamegraphs, and applies the CI gate.

use std::path::{Path, PathBuf};

use hashbrown::HashMap;

use crate::attribute::{self, Attribution, Grouping};
use crate::cli::{ColorChoice, Config, DiffOptions};
use crate::compare::diff::{Diff, Side, diff};
use crate::compare::format::{Scope, to_json, write_text};
use crate::compare::gate::{EXIT_REGRESSION, failures, write_failures};
use crate::compare::runs::{recordings, run_rows};
use crate::error::Error;
use crate::output::{Output, write_output};
use crate::perfdata::Input;
use crate::render::diff_flamegraph::{DiffStacks, Drawn, Labels, draw};
use crate::report::breakdown::ReportOptions;

/// Runs `diff`; the exit code is the gate's, or the summaries' warnings'.
pub(crate) fn run(config: &Config, options: &DiffOptions) -> Result<u8, Error> {
    let rules = crate::load_rules(config.rules_file.as_deref())?;
    if options.grouping == Grouping::Category {
        for (key, _) in &options.limits.max_increase {
            if rules.find(key).is_none() {
                return Err(Error::UnknownCategory {
                    wanted: key.clone(),
                    available: rules
                        .categories
                        .iter()
                        .map(|category| category.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
    }
    let report = ReportOptions {
        grouping: options.grouping,
        attribution: options.attribution,
        filter: config.filter.clone(),
    };
    let with_folded = options.flamegraph.is_some();
    let mut code = 0;
    let mut read_side = |path: &std::path::Path| -> Result<Side, Error> {
        let mut runs = Vec::new();
        for input in recordings(path)? {
            let load = crate::profile::LoadOptions {
                input: Input::Path(input.clone()),
                ..crate::load_options(config).clone()
            };
            let profile = crate::profile::load(&load)?;
            let classes = attribute::Classes::new(&profile, &rules);
            runs.push(run_rows(input, &profile, &classes, &report, with_folded));
            code = code.max(crate::finish(config, &profile)?);
        }
        Ok(Side {
            name: path.display().to_string(),
            runs,
        })
    };
    let base = read_side(&options.base)?;
    let new = read_side(&options.new)?;
    let floor = options
        .limits
        .max_increase
        .iter()
        .map(|(_, limit)| *limit)
        .fold(options.threshold_pp, f64::min);
    let compared = diff(base, new, options.threshold_pp, floor);
    let scope = Scope {
        by: grouping_name(options.grouping),
        attribution: match options.attribution {
            Attribution::Leaf => "leaf",
            Attribution::Caller => "caller",
        },
        processes: scope_words(&config.filter),
    };
    let colors = match options.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => config.output == Output::Stdout && crate::stdout_wants_color(),
    };
    write_output(&config.output, |out| match options.format {
        Some(format) => write_text(&compared, &scope, format, colors, out),
        None => {
            serde_json::to_writer_pretty(&mut *out, &to_json(&compared, &scope))?;
            writeln!(out)
        }
    })?;
    if let Some(svg) = &options.flamegraph {
        draw_flamegraphs(&compared, svg)?;
    }
    let failed = failures(&compared, &options.limits);
    if failed.is_empty() {
        return Ok(code);
    }
    let mut stderr = std::io::stderr().lock();
    // The summary is a diagnostic; the exit code carries the verdict.
    let _ = write_failures(&failed, &compared, &mut stderr);
    Ok(EXIT_REGRESSION)
}

/// The folded stacks of every run of a side, added up.
fn merged_stacks(side: &Side) -> HashMap<String, u64> {
    let mut merged: HashMap<String, u64> = HashMap::new();
    for folded in side.runs.iter().filter_map(|run| run.folded.as_ref()) {
        for (line, count) in folded {
            *merged.entry_ref(line.as_str()).or_insert(0) += count;
        }
    }
    merged
}

/// The last two parts of a path, enough to tell the sides apart in a title.
fn short_path(path: &str) -> String {
    let parts: Vec<&str> = path.trim_end_matches('/').rsplit('/').take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// `OUT.svg` → `OUT-base.svg`: where BASE's stacks are drawn.
fn base_picture_path(path: &Path) -> PathBuf {
    let stem = path.file_stem().map_or_else(
        || "flamegraph".into(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    let name = match path.extension() {
        Some(extension) => format!("{stem}-base.{}", extension.to_string_lossy()),
        None => format!("{stem}-base"),
    };
    path.with_file_name(name)
}

/// Draws NEW's stacks to `path` and BASE's beside it, coloured by the
/// change, and names the second file on stderr.
fn draw_flamegraphs(compared: &Diff, path: &Path) -> Result<(), Error> {
    let (base, new) = (merged_stacks(&compared.base), merged_stacks(&compared.new));
    let stacks = DiffStacks {
        base: &base,
        new: &new,
        noise: compared.judged.inclusive_noise,
        threshold_pp: compared.judged.threshold_pp,
    };
    let (base_name, new_name) = (
        short_path(&compared.base.name),
        short_path(&compared.new.name),
    );
    let labels = Labels {
        title: format!("compile-perf diff: {new_name} (new) vs {base_name} (base)"),
        base: base_name,
        new: new_name,
    };
    let base_path = base_picture_path(path);
    for (drawn, target) in [
        (Drawn::New, path.to_owned()),
        (Drawn::Base, base_path.clone()),
    ] {
        let output = Output::File(target);
        let svg = draw(&stacks, drawn, &labels, crate::DEFAULT_MIN_WIDTH)
            .map_err(|source| Error::Output {
                target: output.name(),
                source,
            })?
            .ok_or_else(|| Error::NothingToDraw {
                reason: "a side has no samples (check --pid, --process and --compiler)".to_owned(),
            })?;
        write_output(&output, |out| out.write_all(&svg))?;
    }
    eprintln!(
        "compile-perf: base's stacks, coloured the same way: {}",
        base_path.display()
    );
    Ok(())
}

/// The processes a filter keeps, in words.
fn scope_words(filter: &attribute::SampleFilter) -> String {
    if filter.keeps_all() {
        return "all processes".to_owned();
    }
    let mut parts = Vec::new();
    if filter.compiler_only {
        parts.push("the compiler process".to_owned());
    }
    parts.extend(filter.names.iter().map(|name| format!("process {name}")));
    parts.extend(filter.pids.iter().map(|pid| format!("pid {pid}")));
    parts.join(", ")
}

fn grouping_name(grouping: Grouping) -> &'static str {
    match grouping {
        Grouping::Category => "category",
        Grouping::Symbol => "symbol",
        Grouping::Dso => "dso",
        Grouping::Thread => "thread",
        Grouping::Process => "process",
        Grouping::Pass => "pass",
    }
}
