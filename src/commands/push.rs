//! `compile-perf push`: the profile sent to a Grafana Pyroscope server
//! through its HTTP ingest API (see [`crate::push`]), as pprof (labelled as
//! `export --format pprof` labels it) or folded stacks. The application
//! name carries labels: those `run.json` knows (the compiler version, the
//! input file, the host) and the `--label`s given, which win. The time
//! range is the run's, from `run.json`, or else the span of the samples
//! ending when the recording was last written.

use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;
use clap::builder::TypedValueParser;

use super::args::{InputArgs, RulesFileArg};
use super::format::{Format, Formats};
use super::{Config, Reading, Run, finish, page_actions, rules_and_profile};
use crate::attribute::Classes;
use crate::error::Error;
use crate::export::pprof::PprofFacts;
use crate::export::{Samples, pprof};
use crate::profile::{Profile, ReadOptions};
use crate::push::{BasicAuth, Ingest, IngestBody, PushFailure, push};
use crate::report::collapse::write_folded;
use crate::run_dir::RunJson;
use perfdata::Input;

/// The environment variables that hold basic-auth credentials.
const USER_VARIABLE: &str = "PYROSCOPE_BASIC_AUTH_USER";
const PASSWORD_VARIABLE: &str = "PYROSCOPE_BASIC_AUTH_PASSWORD";

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  To a local Pyroscope server, the native compiler only:
    compile-perf push perf.data --url http://localhost:4040 --app iree-compile --compiler
  With labels of your own:
    compile-perf push runs/m1 --url http://localhost:4040 --app iree-compile --label branch=main";

#[derive(Debug, Args)]
pub(crate) struct PushArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The Pyroscope server, e.g. http://localhost:4040 (`/ingest` is added).
    /// Basic auth comes from PYROSCOPE_BASIC_AUTH_USER and PYROSCOPE_BASIC_AUTH_PASSWORD.
    #[arg(long, value_name = "URL")]
    url: String,
    /// The application name the profile is stored under.
    #[arg(long, value_name = "NAME", value_parser = parse_app)]
    app: String,
    /// A label of the profile, besides those run.json gives (compiler_version,
    /// input, host), which it overrides. Repeatable.
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_label)]
    label: Vec<(String, String)>,
    /// What to send.
    #[arg(long, value_parser = Formats(&[Format::Pprof, Format::Folded]).try_map(PushFormat::of),
          default_value = "pprof")]
    format: PushFormat,
    #[command(flatten)]
    rules: RulesFileArg,
}

impl PushArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.input.reading.quiet;
        let push = Push {
            reading: self.input.into_reading(),
            url: self.url,
            app: self.app,
            labels: self.label,
            format: self.format,
        };
        Config::new(push, None, quiet, self.rules.file)
    }
}

/// What `push` was asked for.
#[derive(Debug)]
struct Push {
    reading: Reading,
    /// The server, e.g. `http://localhost:4040`.
    url: String,
    /// The application name.
    app: String,
    /// `--label KEY=VALUE`s, in the order given.
    labels: Vec<(String, String)>,
    format: PushFormat,
}

/// The formats `push` sends. Every match over it names each one, so a
/// format added to [`Format`] is a compile error in [`PushFormat::of`],
/// never sent silently as another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PushFormat {
    Pprof,
    Folded,
}

impl PushFormat {
    /// `format` as `push` sends it, or why it does not.
    fn of(format: Format) -> Result<PushFormat, String> {
        match format {
            Format::Pprof => Ok(PushFormat::Pprof),
            Format::Folded => Ok(PushFormat::Folded),
            Format::Table
            | Format::Markdown
            | Format::Csv
            | Format::Json
            | Format::Html
            | Format::Svg
            | Format::Firefox
            | Format::Speedscope
            | Format::ChromeTrace => Err(format!("push does not send {}", format.name())),
        }
    }

    /// What was sent, for the message that says so.
    fn sent(self) -> &'static str {
        match self {
            PushFormat::Pprof => "pprof",
            PushFormat::Folded => "folded stacks",
        }
    }
}

impl Run for Push {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, &self.reading, self)
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.reading.read)
    }
}

/// Sends the profile and reports the server's answer.
fn run(config: &Config, reading: &Reading, options: &Push) -> Result<u8, Error> {
    let failed = |reason: String| Error::Push {
        url: options.url.clone(),
        reason,
    };
    let auth = basic_auth().map_err(failed)?;
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let run = run_dir.run.as_ref();
    let filter = &reading.filter;
    let mut bytes = Vec::new();
    let body = match options.format {
        PushFormat::Folded => {
            write_folded(&profile, filter, &mut bytes)
                .map_err(|error| failed(error.to_string()))?;
            IngestBody::Folded(bytes)
        }
        PushFormat::Pprof => {
            let mut classes = Classes::new(&profile, &rules);
            let (actions, actions_notice) = page_actions(&run_dir, &profile, &mut classes);
            if let Some(notice) = actions_notice.filter(|_| !config.quiet) {
                eprintln!("compile-perf: notice: {notice}");
            }
            let samples = Samples::new(&profile, &classes, filter, actions.as_ref());
            let facts = PprofFacts {
                start_unix_nanos: run.and_then(RunJson::start_unix_nanos),
            };
            pprof::write(&samples, &facts, &mut bytes)
                .map_err(|error| failed(error.to_string()))?;
            IngestBody::Pprof(bytes)
        }
    };
    let (from, until) = time_range(&reading.input, run, &profile);
    let name = application_name(&options.app, &default_labels(run), &options.labels);
    let ingest = Ingest {
        url: options.url.clone(),
        name,
        from,
        until,
        sample_rate: profile
            .info
            .events
            .iter()
            .find(|event| event.name == profile.event)
            .and_then(|event| event.frequency),
        body,
    };
    match push(&ingest, auth.as_ref()) {
        Ok(accepted) => {
            eprintln!(
                "compile-perf: pushed {} to {}/ingest as {} ({from}–{until}): the server answered {} {}",
                options.format.sent(),
                options.url.trim_end_matches('/'),
                ingest.name,
                accepted.status,
                accepted.body.trim()
            );
            finish(config, &profile, run)
        }
        Err(PushFailure::Unreachable(reason)) => Err(failed(reason)),
        Err(PushFailure::Refused { status, body }) => Err(failed(format!(
            "the server answered {status}: {}",
            body.trim()
        ))),
    }
}

/// Credentials from the environment: both variables, or neither.
fn basic_auth() -> Result<Option<BasicAuth>, String> {
    let user = std::env::var(USER_VARIABLE).ok();
    let password = std::env::var(PASSWORD_VARIABLE).ok();
    match (user, password) {
        (Some(user), Some(password)) => Ok(Some(BasicAuth { user, password })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(format!(
            "{USER_VARIABLE} is set but {PASSWORD_VARIABLE} is not"
        )),
        (None, Some(_)) => Err(format!(
            "{PASSWORD_VARIABLE} is set but {USER_VARIABLE} is not"
        )),
    }
}

/// The labels `run.json` knows: the compiler version, the input file and
/// the host.
fn default_labels(run: Option<&RunJson>) -> Vec<(String, String)> {
    let Some(run) = run else {
        return Vec::new();
    };
    let mut labels = Vec::new();
    if let Some(version) = run.compiler_version_number() {
        labels.push(("compiler_version".to_owned(), version));
    }
    if let Some(input) = run.input_file_name() {
        labels.push(("input".to_owned(), input.to_owned()));
    }
    if let Some(host) = run.hostname() {
        labels.push(("host".to_owned(), host.to_owned()));
    }
    labels
}

/// `app{key=value,…}`: the defaults, overridden by the labels given,
/// sorted by key. Values lose the characters the name syntax uses.
fn application_name(
    app: &str,
    defaults: &[(String, String)],
    given: &[(String, String)],
) -> String {
    let mut labels: Vec<(String, String)> = defaults
        .iter()
        .filter(|(key, _)| !given.iter().any(|(given, _)| given == key))
        .chain(given)
        .map(|(key, value)| (key.clone(), label_value(value)))
        .collect();
    labels.sort();
    let inside = labels
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(",");
    format!("{app}{{{inside}}}")
}

/// A label value without `{`, `}`, `,`, `=`, quotes or spaces.
fn label_value(value: &str) -> String {
    value
        .chars()
        .map(|c| {
            if matches!(c, '{' | '}' | ',' | '=' | '"' | '\'') || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// The profile's start and end, in whole seconds since the Unix epoch:
/// the run's start and wall time from `run.json`; else the span of the
/// samples, ending when the recording was last modified (or now, for
/// stdin).
fn time_range(input: &Input, run: Option<&RunJson>, profile: &Profile) -> (u64, u64) {
    let span = profile.counts.duration_seconds().ceil().max(1.0) as u64;
    if let Some((start, run)) = run.and_then(|run| Some((run.start_unix_nanos()?, run))) {
        let wall = run
            .wall_seconds
            .map_or(span, |wall| wall.ceil().max(1.0) as u64);
        let from = u64::try_from(start / 1_000_000_000).unwrap_or(0);
        return (from, from + wall);
    }
    let end = match input {
        Input::Path(path) => std::fs::metadata(path)
            .and_then(|meta| meta.modified())
            .unwrap_or_else(|_| SystemTime::now()),
        Input::Stdin => SystemTime::now(),
    };
    let until = end
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs_f64().ceil() as u64);
    (until.saturating_sub(span), until)
}

/// An application name: not empty, without the `{`, `}` and `,` of the
/// name syntax.
fn parse_app(text: &str) -> Result<String, String> {
    if text.is_empty() || text.contains(['{', '}', ',', '=']) || text.contains(char::is_whitespace)
    {
        return Err(format!(
            "{text:?} is not an application name (not empty, no spaces, braces, commas or `=`)"
        ));
    }
    Ok(text.to_owned())
}

/// `KEY=VALUE` of `--label`: a key of letters, digits and `_`, not starting
/// with a digit.
fn parse_label(text: &str) -> Result<(String, String), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not KEY=VALUE"))?;
    let key_ok = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !key_ok {
        return Err(format!(
            "{key:?} is not a label name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    Ok((key.to_owned(), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    #[derive(Parser)]
    struct Line {
        #[command(flatten)]
        args: PushArgs,
    }

    #[test]
    fn each_format_push_offers_parses_into_its_own_variant_pprof_by_default() {
        let command = Line::command();
        let offered = command
            .get_arguments()
            .find(|arg| arg.get_id() == "format")
            .map(|arg| arg.get_possible_values())
            .unwrap_or_default();
        let line = |format: Option<&str>| {
            let mut line = vec![
                "push",
                "perf.data",
                "--url",
                "http://localhost:4040",
                "--app",
                "a",
            ];
            line.extend(
                format
                    .map(|format| ["--format", format])
                    .into_iter()
                    .flatten(),
            );
            Line::try_parse_from(line).map(|line| line.args.format)
        };
        let parsed: Vec<PushFormat> = offered
            .iter()
            .map(|value| line(Some(value.get_name())))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(parsed, [PushFormat::Pprof, PushFormat::Folded]);
        assert_eq!(line(None).unwrap(), PushFormat::Pprof);
        assert!(line(Some("firefox")).is_err());
    }

    #[test]
    fn labels_given_win_and_values_lose_the_name_syntax() {
        let defaults = vec![
            ("host".to_owned(), "ci-1".to_owned()),
            ("input".to_owned(), "a model.mlir".to_owned()),
        ];
        let given = vec![
            ("host".to_owned(), "mine".to_owned()),
            ("branch".to_owned(), "a,b".to_owned()),
        ];
        assert_eq!(
            application_name("iree", &defaults, &given),
            "iree{branch=a_b,host=mine,input=a_model.mlir}"
        );
        assert_eq!(application_name("iree", &[], &[]), "iree{}");
    }
}
