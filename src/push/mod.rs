//! Sending a profile to Grafana Pyroscope through its HTTP ingest API
//! (`POST /ingest`, as the "Pyroscope server HTTP API" page of the
//! Pyroscope 1.x documentation describes it): the only module that opens a
//! network connection. It takes the bytes `export` made (gzipped pprof, or
//! folded stacks) and the query that names them; it reads nothing and
//! writes no file.
//!
//! pprof goes as `multipart/form-data`: the profile in the file field
//! `profile`, and a `sample_type_config` that tells the server what our
//! two sample types are. Folded stacks go as the body.

use std::io::Read;
use std::time::Duration;

use base64::Engine;
use ureq::unversioned::multipart::{Form, Part};

use crate::defaults;

/// What is sent.
pub(crate) enum IngestBody {
    /// A gzipped pprof profile.
    Pprof(Vec<u8>),
    /// Folded stacks, `frame;frame;… count` per line.
    Folded(Vec<u8>),
}

/// One ingest request.
pub(crate) struct Ingest {
    /// The server, e.g. `http://localhost:4040`; `/ingest` is added.
    pub url: String,
    /// The application name with its labels: `app{key=value,…}`.
    pub name: String,
    /// When the profile starts and ends, in seconds since the Unix epoch.
    pub from: u64,
    pub until: u64,
    /// Samples per second, when known.
    pub sample_rate: Option<u64>,
    pub body: IngestBody,
}

/// User and password for HTTP basic authentication (Grafana Cloud).
pub(crate) struct BasicAuth {
    pub user: String,
    pub password: String,
}

/// The server's answer to an accepted profile.
#[derive(Debug)]
pub(crate) struct Accepted {
    pub status: u16,
    pub body: String,
}

/// Why a push failed: the server could not be reached, or said no.
#[derive(Debug)]
pub(crate) enum PushFailure {
    /// No answer: refused, unreachable, a bad URL, a TLS failure…
    Unreachable(String),
    /// An answer other than 2xx.
    Refused { status: u16, body: String },
}

/// The `sample_type_config` form field: our two sample types, summed over
/// time, counted in samples as Go's CPU profiles are.
const SAMPLE_TYPE_CONFIG: &str = r#"{"samples":{"units":"samples","aggregation":"sum","display-name":"samples","sampled":true},"cpu":{"units":"samples","aggregation":"sum","display-name":"cpu","sampled":true}}"#;

/// Most of the server's answer kept for the message.
const ANSWER_BYTES: u64 = 64 << 10;

/// Sends `ingest`, with basic authentication when given.
pub(crate) fn push(ingest: &Ingest, auth: Option<&BasicAuth>) -> Result<Accepted, PushFailure> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(
            defaults::PUSH_CONNECT_TIMEOUT_SECONDS,
        )))
        .timeout_global(Some(Duration::from_secs(defaults::PUSH_TIMEOUT_SECONDS)))
        .user_agent(concat!("compile-perf/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let endpoint = format!("{}/ingest", ingest.url.trim_end_matches('/'));
    let format = match ingest.body {
        IngestBody::Pprof(_) => "pprof",
        IngestBody::Folded(_) => "folded",
    };
    let mut request = agent
        .post(&endpoint)
        .query("name", &ingest.name)
        .query("from", ingest.from.to_string())
        .query("until", ingest.until.to_string())
        .query("format", format)
        .query("spyName", "compile-perf");
    if let Some(rate) = ingest.sample_rate {
        request = request.query("sampleRate", rate.to_string());
    }
    if let Some(auth) = auth {
        let token = base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", auth.user, auth.password));
        request = request.header("Authorization", format!("Basic {token}"));
    }
    let sent = match &ingest.body {
        IngestBody::Pprof(profile) => {
            let form = Form::new()
                .part(
                    "profile",
                    named_part(profile, "profile.pb.gz", "application/octet-stream")?,
                )
                .part(
                    "sample_type_config",
                    named_part(
                        SAMPLE_TYPE_CONFIG.as_bytes(),
                        "sample_type_config.json",
                        "application/json",
                    )?,
                );
            request.send(form)
        }
        IngestBody::Folded(stacks) => request
            .header("Content-Type", "text/plain")
            .send(&stacks[..]),
    };
    let mut response = sent.map_err(|error| PushFailure::Unreachable(error.to_string()))?;
    let status = response.status().as_u16();
    let mut body = String::new();
    // The answer is only reported; a body that cannot be read says so.
    if let Err(error) = response
        .body_mut()
        .as_reader()
        .take(ANSWER_BYTES)
        .read_to_string(&mut body)
    {
        body = format!("(the answer could not be read: {error})");
    }
    if (200..300).contains(&status) {
        Ok(Accepted { status, body })
    } else {
        Err(PushFailure::Refused { status, body })
    }
}

/// A form file field.
fn named_part<'a>(bytes: &'a [u8], file: &str, mime: &str) -> Result<Part<'a>, PushFailure> {
    Part::bytes(bytes)
        .file_name(file)
        .mime_str(mime)
        .map_err(|error| PushFailure::Unreachable(error.to_string()))
}
