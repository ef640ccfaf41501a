//! The report's findings (see [`crate::attribute::findings`]): a line each
//! in the text and Markdown reports (and the HTML page's Findings), a
//! `findings` list in JSON.

use serde::Serialize;

use super::Breakdown;
use crate::attribute::findings::Serialized;
use crate::attribute::{Classes, RowKey};
use crate::profile::Profile;
use crate::report::round2;

/// How many findings the text report lists (JSON lists them all).
const TEXT_FINDINGS: usize = 3;

/// One finding, as JSON.
#[derive(Debug, Serialize)]
pub(crate) struct FindingJson {
    /// `serialized`.
    pub kind: &'static str,
    /// How long it lasted, in wall seconds.
    pub seconds: f64,
    pub start_seconds: f64,
    pub end_seconds: f64,
    /// Its share of the compile's wall time.
    pub wall_percent: f64,
    /// The pass (or place outside passes) most of its samples were in, and
    /// their share.
    pub place: String,
    pub place_percent: f64,
    pub phase: Option<&'static str>,
    /// Busy threads on average, of `cpus`.
    pub busy_threads: f64,
    pub cpus: u32,
    /// The most that running its work on every CPU could save.
    pub saving_at_most_seconds: f64,
    /// The command that shows it.
    pub command: String,
}

impl Breakdown<'_> {
    /// The findings as the text report's lines.
    pub(super) fn finding_lines(&self) -> Vec<String> {
        finding_lines(self.profile, self.classes, &self.findings)
            .into_iter()
            .map(|line| format!("finding: {line}"))
            .collect()
    }

    /// The findings as JSON.
    pub(super) fn findings_json(&self) -> Vec<FindingJson> {
        self.findings
            .iter()
            .map(|finding| FindingJson {
                kind: "serialized",
                seconds: round2(finding.seconds()),
                start_seconds: round2(finding.start_seconds),
                end_seconds: round2(finding.end_seconds),
                wall_percent: round2(finding.wall_share * 100.0),
                place: place_name(self.classes, finding.place),
                place_percent: round2(finding.place_share * 100.0),
                phase: finding.phase.map(|phase| phase.name()),
                busy_threads: round2(finding.busy_threads),
                cpus: finding.cpus,
                saving_at_most_seconds: round2(finding.saving_at_most_seconds),
                command: showing_command(self.profile, self.classes, finding),
            })
            .collect()
    }
}

/// The name of a pass, or of a place outside passes.
fn place_name(classes: &Classes<'_>, place: RowKey) -> String {
    match place {
        RowKey::Pass(pass) => classes.passes.name(pass).to_owned(),
        RowKey::OutsidePass(outside) => outside.name().to_owned(),
        _ => String::new(),
    }
}

/// The command that shows a finding: the flamegraph of its pass, or the
/// timeline when it is outside passes.
fn showing_command(profile: &Profile, classes: &Classes<'_>, finding: &Serialized) -> String {
    let input = &profile.input_name;
    match finding.place {
        RowKey::Pass(pass) => format!(
            "compile-perf flamegraph {input} --pass {} -o pass.svg",
            classes.passes.name(pass)
        ),
        _ => format!("compile-perf timeline {input} -o timeline.svg"),
    }
}

/// The findings as lines of text (`serialized: …`), the first
/// [`TEXT_FINDINGS`].
pub(crate) fn finding_lines(
    profile: &Profile,
    classes: &Classes<'_>,
    findings: &[Serialized],
) -> Vec<String> {
    findings
        .iter()
        .take(TEXT_FINDINGS)
        .map(|finding| {
            let phase = finding
                .phase
                .map_or(String::new(), |phase| format!(", phase {}", phase.name()));
            format!(
                "serialized: {:.1} s ({:.1}–{:.1} s, {:.0}% of the wall time) with \
                 {:.2} busy compiler threads of {} CPUs, {:.0}% in {}{phase}; on {} CPUs its \
                 work could take up to {:.1} s less; see: {}",
                finding.seconds(),
                finding.start_seconds,
                finding.end_seconds,
                finding.wall_share * 100.0,
                finding.busy_threads,
                finding.cpus,
                finding.place_share * 100.0,
                place_name(classes, finding.place),
                finding.cpus,
                finding.saving_at_most_seconds,
                showing_command(profile, classes, finding)
            )
        })
        .collect()
}
