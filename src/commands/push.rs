//! `compile-perf push`: the profile sent to a Grafana Pyroscope server
//! through its HTTP ingest API (see [`crate::push`]), as pprof (labelled as
//! `export --format pprof` labels it) or folded stacks. The application
//! name carries labels: those `run.json` knows (the compiler version, the
//! input file, the host) and the `--label`s given, which win. The time
//! range is the run's, from `run.json`, or else the span of the samples
//! ending when the recording was last written.

use std::time::{SystemTime, UNIX_EPOCH};

use clap::ValueEnum;

use super::{Config, Reading, finish, rules_and_profile};
use crate::attribute::Classes;
use crate::error::Error;
use crate::export::pprof::PprofFacts;
use crate::export::{Samples, pprof};
use crate::profile::{LoadOptions, Profile};
use crate::push::{BasicAuth, Ingest, IngestBody, PushFailure, push};
use crate::report::collapse::write_folded;
use crate::run_dir::RunJson;
use perfdata::Input;

/// The environment variables that hold basic-auth credentials.
const USER_VARIABLE: &str = "PYROSCOPE_BASIC_AUTH_USER";
const PASSWORD_VARIABLE: &str = "PYROSCOPE_BASIC_AUTH_PASSWORD";

/// What `push` was asked for.
#[derive(Clone, Debug)]
pub(crate) struct PushOptions {
    /// The server, e.g. `http://localhost:4040`.
    pub(crate) url: String,
    /// The application name.
    pub(crate) app: String,
    /// `--label KEY=VALUE`s, in the order given.
    pub(crate) labels: Vec<(String, String)>,
    pub(crate) format: PushFormat,
}

/// What `push` sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum PushFormat {
    /// Gzipped pprof with category, pass, thread and process labels.
    #[default]
    Pprof,
    /// Folded stacks.
    Folded,
}

/// Sends the profile and reports the server's answer.
pub(crate) fn run(config: &Config, reading: &Reading, options: &PushOptions) -> Result<u8, Error> {
    let failed = |reason: String| Error::Push {
        url: options.url.clone(),
        reason,
    };
    let auth = basic_auth().map_err(failed)?;
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let load = &reading.load;
    let run = run_dir.run.as_ref();
    let filter = &reading.filter;
    let mut bytes = Vec::new();
    let body = match options.format {
        PushFormat::Pprof => {
            let classes = Classes::new(&profile, &rules);
            let samples = Samples::new(&profile, &classes, filter);
            let facts = PprofFacts {
                start_unix_nanos: run.and_then(RunJson::start_unix_nanos),
            };
            pprof::write(&samples, &facts, &mut bytes)
                .map_err(|error| failed(error.to_string()))?;
            IngestBody::Pprof(bytes)
        }
        PushFormat::Folded => {
            write_folded(&profile, filter, &mut bytes)
                .map_err(|error| failed(error.to_string()))?;
            IngestBody::Folded(bytes)
        }
    };
    let (from, until) = time_range(load, run, &profile);
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
                options.format.name(),
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

impl PushFormat {
    fn name(self) -> &'static str {
        match self {
            PushFormat::Pprof => "pprof",
            PushFormat::Folded => "folded stacks",
        }
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
fn time_range(load: &LoadOptions, run: Option<&RunJson>, profile: &Profile) -> (u64, u64) {
    let span = profile.counts.duration_seconds().ceil().max(1.0) as u64;
    if let Some((start, run)) = run.and_then(|run| Some((run.start_unix_nanos()?, run))) {
        let wall = run
            .wall_seconds
            .map_or(span, |wall| wall.ceil().max(1.0) as u64);
        let from = u64::try_from(start / 1_000_000_000).unwrap_or(0);
        return (from, from + wall);
    }
    let end = match &load.input {
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

#[cfg(test)]
mod tests {
    use super::*;

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
