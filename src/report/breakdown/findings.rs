//! The report's findings (see [`crate::attribute::findings`]): a line each
//! in the text and Markdown reports (and the HTML page's facts), a
//! `findings` list in JSON.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::Breakdown;
use crate::attribute::findings::{
    DuplicatedExecutables, DuplicatedSetup, Findings, HotSpot, HotSpotScope, Papercut, Serialized,
};
use crate::attribute::runs::seconds_per_sample;
use crate::attribute::{Classes, RowKey};
use crate::executable_sources::{Likeness, diff_command, listed_names};
use crate::profile::Profile;
use crate::report::round2;
use crate::short_name;

/// How many findings the text report lists (JSON lists them all).
const TEXT_FINDINGS: usize = 5;
/// How many of the passes that rebuilt setup a finding names.
const NAMED_OWNERS: usize = 3;
/// The width a hot spot's function names are shortened to in text (JSON
/// keeps them whole).
const HOT_SPOT_NAME_WIDTH: usize = 60;

/// One finding, as JSON.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct FindingJson {
    /// `serialized`, `duplicated`, `papercuts` or `hot_spot`.
    pub kind: Cow<'static, str>,
    /// Wall seconds of a serialized stretch; CPU seconds of duplicated
    /// setup, of duplicated executables' units, of papercuts and of a hot
    /// spot's functions (null when
    /// the event does not count time, or the actions name no units).
    pub seconds: Option<f64>,
    /// What it is, as the text report says it.
    pub text: String,
    /// The command that shows it.
    pub command: String,
    #[serde(flatten)]
    pub evidence: Evidence,
}

/// What a finding rests on.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Evidence {
    Serialized {
        start_seconds: f64,
        end_seconds: f64,
        /// Its share of the compile's wall time.
        wall_percent: f64,
        /// The pass (or place outside passes) most of its samples were in.
        place: String,
        place_percent: f64,
        phase: Option<Cow<'static, str>>,
        busy_threads: f64,
        cpus: u32,
        /// The most that running its work on every CPU could save.
        saving_at_most_seconds: f64,
    },
    Duplicated {
        samples: u64,
        percent: f64,
        /// The passes that did it, by samples, most first.
        passes: Vec<OwnerJson>,
    },
    DuplicatedExecutables {
        likeness: Likeness,
        executables: Vec<String>,
        /// Their dumped sources.
        sources: Vec<String>,
        /// Each one's samples in its IR unit; null when the actions name
        /// no units.
        unit_samples: Option<Vec<u64>>,
        /// Of those, all but the largest one's.
        repeated_samples: Option<u64>,
    },
    Papercuts {
        /// The category's id and name.
        category: String,
        category_name: String,
        samples: u64,
        percent: f64,
        /// How many passes its samples are in, and the largest of them.
        pass_count: usize,
        largest_passes: Vec<OwnerJson>,
    },
    HotSpot {
        /// What its functions hold most of: `category` or `place`.
        within: Cow<'static, str>,
        /// The category's id, or the place outside passes.
        scope: String,
        scope_samples: u64,
        /// The functions, full names, with their samples in the scope.
        functions: Vec<OwnerJson>,
        samples: u64,
        /// Their share of all the samples.
        percent: f64,
        /// The pass (or place) most of their samples were in.
        place: OwnerJson,
    },
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct OwnerJson {
    pub name: String,
    pub samples: u64,
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
        let (profile, classes) = (self.profile, self.classes);
        let serialized = self.findings.serialized.iter().map(|finding| FindingJson {
            kind: "serialized".into(),
            seconds: Some(round2(finding.seconds())),
            text: serialized_text(classes, finding),
            command: serialized_command(profile, classes, finding),
            evidence: Evidence::Serialized {
                start_seconds: round2(finding.start_seconds),
                end_seconds: round2(finding.end_seconds),
                wall_percent: round2(finding.wall_share * 100.0),
                place: classes
                    .place_name(finding.place)
                    .unwrap_or_default()
                    .to_owned(),
                place_percent: round2(finding.place_share * 100.0),
                phase: finding.phase.map(|phase| phase.name().into()),
                busy_threads: round2(finding.busy_threads),
                cpus: finding.cpus,
                saving_at_most_seconds: round2(finding.saving_at_most_seconds),
            },
        });
        let duplicated = self.findings.duplicated.iter().map(|setup| FindingJson {
            kind: "duplicated".into(),
            seconds: samples_seconds(profile, setup.samples).map(round2),
            text: duplicated_text(profile, setup),
            command: duplicated_command(profile),
            evidence: Evidence::Duplicated {
                samples: setup.samples,
                percent: round2(setup.share * 100.0),
                passes: owners_json(&setup.owners, usize::MAX),
            },
        });
        let executables = self.findings.executables.iter().map(|found| FindingJson {
            kind: "duplicated".into(),
            seconds: found
                .samples
                .as_ref()
                .and_then(|samples| samples_seconds(profile, samples.iter().sum()))
                .map(round2),
            text: executables_text(profile, found),
            command: executables_command(profile, found),
            evidence: Evidence::DuplicatedExecutables {
                likeness: found.group.likeness,
                executables: found.group.names.clone(),
                sources: sources(found),
                unit_samples: found.samples.clone(),
                repeated_samples: found.repeated_samples(),
            },
        });
        let papercuts = self.findings.papercuts.iter().map(|papercut| {
            let category = classes.table.category(papercut.category);
            FindingJson {
                kind: "papercuts".into(),
                seconds: samples_seconds(profile, papercut.samples).map(round2),
                text: papercut_text(profile, classes, papercut),
                command: papercut_command(profile, classes, papercut),
                evidence: Evidence::Papercuts {
                    category: category.id.clone(),
                    category_name: category.name.clone(),
                    samples: papercut.samples,
                    percent: round2(papercut.share * 100.0),
                    pass_count: papercut.passes.len(),
                    largest_passes: owners_json(&papercut.passes, NAMED_OWNERS),
                },
            }
        });
        let hot_spots = self.findings.hot_spots.iter().map(|spot| {
            let (within, scope) = match spot.scope {
                HotSpotScope::Category(category) => {
                    ("category", classes.table.category(category).id.clone())
                }
                HotSpotScope::Outside(outside) => ("place", outside.name().to_owned()),
            };
            FindingJson {
                kind: "hot_spot".into(),
                seconds: samples_seconds(profile, spot.samples()).map(round2),
                text: hot_spot_text(profile, classes, spot),
                command: hot_spot_command(profile),
                evidence: Evidence::HotSpot {
                    within: within.into(),
                    scope,
                    scope_samples: spot.scope_samples,
                    functions: owners_json(&spot.functions, usize::MAX),
                    samples: spot.samples(),
                    percent: round2(spot.share * 100.0),
                    place: OwnerJson {
                        name: spot.place.0.clone(),
                        samples: spot.place.1,
                    },
                },
            }
        });
        serialized
            .chain(duplicated)
            .chain(executables)
            .chain(hot_spots)
            .chain(papercuts)
            .collect()
    }
}

/// The findings as lines of text (`duplicated: …`, `hot spot: …`,
/// `papercuts: …`, `serialized: …`): duplicated setup and executables
/// first, then the hot spots, the papercuts, then the longest serialized stretches, the first
/// [`TEXT_FINDINGS`] in all.
pub(crate) fn finding_lines(
    profile: &Profile,
    classes: &Classes<'_>,
    findings: &Findings,
) -> Vec<String> {
    let duplicated = findings.duplicated.iter().map(|setup| {
        format!(
            "{}; see: {}",
            duplicated_text(profile, setup),
            duplicated_command(profile)
        )
    });
    let executables = findings.executables.iter().map(|found| {
        format!(
            "{}; see: {}",
            executables_text(profile, found),
            executables_command(profile, found)
        )
    });
    let serialized = findings.serialized.iter().map(|finding| {
        format!(
            "{}; see: {}",
            serialized_text(classes, finding),
            serialized_command(profile, classes, finding)
        )
    });
    let papercuts = findings.papercuts.iter().map(|papercut| {
        format!(
            "{}; see: {}",
            papercut_text(profile, classes, papercut),
            papercut_command(profile, classes, papercut)
        )
    });
    let hot_spots = findings.hot_spots.iter().map(|spot| {
        format!(
            "{}; see: {}",
            hot_spot_text(profile, classes, spot),
            hot_spot_command(profile)
        )
    });
    duplicated
        .chain(executables)
        .chain(hot_spots)
        .chain(papercuts)
        .chain(serialized)
        .take(TEXT_FINDINGS)
        .collect()
}

fn serialized_text(classes: &Classes<'_>, finding: &Serialized) -> String {
    let phase = finding
        .phase
        .map_or(String::new(), |phase| format!(", phase {}", phase.name()));
    format!(
        "serialized: {:.1} s ({:.1}–{:.1} s, {:.0}% of the wall time) with {:.2} busy compiler \
         threads of {} CPUs, {:.0}% in {}{phase}; on {} CPUs its work could take up to {:.1} s \
         less",
        finding.seconds(),
        finding.start_seconds,
        finding.end_seconds,
        finding.wall_share * 100.0,
        finding.busy_threads,
        finding.cpus,
        finding.place_share * 100.0,
        classes
            .place_name(finding.place)
            .unwrap_or_default()
            .to_owned(),
        finding.cpus,
        finding.saving_at_most_seconds,
    )
}

fn duplicated_text(profile: &Profile, setup: &DuplicatedSetup) -> String {
    let seconds = cpu_seconds_words(profile, setup.samples);
    let named: Vec<String> = setup
        .owners
        .iter()
        .take(NAMED_OWNERS)
        .map(|(name, samples)| format!("{name} {samples}"))
        .collect();
    format!(
        "duplicated: setup rebuilt per pass instance (pattern sets built and freed, passes' \
         initialize()) is {:.1}% of the samples ({} {}{seconds}) in {} passes; most in {}",
        setup.share * 100.0,
        setup.samples,
        profile.unit,
        setup.owners.len(),
        named.join(", ")
    )
}

fn executables_text(profile: &Profile, found: &DuplicatedExecutables) -> String {
    let samples = match (&found.samples, found.repeated_samples()) {
        (Some(samples), Some(repeated)) => {
            let total: u64 = samples.iter().sum();
            let cpu = samples_seconds(profile, total)
                .map_or_else(String::new, |seconds| format!(" ({seconds:.1} CPU s)"));
            format!(
                ": {total} {}{cpu} in their IR units, {repeated} of them beyond the largest one's",
                profile.unit
            )
        }
        _ => String::new(),
    };
    format!(
        "duplicated: {} executables {} ({}) were codegen'd one by one{samples}",
        found.group.names.len(),
        found.group.likeness.words(),
        listed_names(&found.group.names)
    )
}

/// The command that shows duplicated executables: the report by IR unit
/// when the actions name units, else the diff of two of their sources.
fn executables_command(profile: &Profile, found: &DuplicatedExecutables) -> String {
    match found.samples {
        Some(_) => format!("compile-perf report {} --by unit", profile.input_name),
        None => diff_command(&sources(found)).unwrap_or_default(),
    }
}

fn sources(found: &DuplicatedExecutables) -> Vec<String> {
    found
        .group
        .files
        .iter()
        .map(|file| file.display().to_string())
        .collect()
}

fn papercut_text(profile: &Profile, classes: &Classes<'_>, papercut: &Papercut) -> String {
    let largest: Vec<String> = papercut
        .passes
        .iter()
        .take(NAMED_OWNERS)
        .map(|(name, samples)| format!("{name} {samples}"))
        .collect();
    format!(
        "papercuts: {} is {:.1}% of the samples ({} {}{}) spread over {} passes, none with \
         more than {:.0}% of it; the largest: {}",
        classes.table.category(papercut.category).name,
        papercut.share * 100.0,
        papercut.samples,
        profile.unit,
        cpu_seconds_words(profile, papercut.samples),
        papercut.passes.len(),
        papercut.passes.first().map_or(0.0, |(_, samples)| {
            100.0 * *samples as f64 / papercut.samples.max(1) as f64
        }),
        largest.join(", ")
    )
}

fn hot_spot_text(profile: &Profile, classes: &Classes<'_>, spot: &HotSpot) -> String {
    let (scope, place) = match spot.scope {
        HotSpotScope::Category(category) => (
            format!("the {} samples", classes.table.category(category).name),
            format!(", most in {} ({})", spot.place.0, spot.place.1),
        ),
        HotSpotScope::Outside(outside) => {
            (format!("the samples in {}", outside.name()), String::new())
        }
    };
    let names: Vec<String> = (spot.functions.iter())
        .map(|(name, samples)| format!("{} {samples}", short_name::fit(name, HOT_SPOT_NAME_WIDTH)))
        .collect();
    let who = match spot.functions.as_slice() {
        [(name, _)] => format!("{} holds", short_name::fit(name, HOT_SPOT_NAME_WIDTH)),
        functions => format!("{} functions hold", functions.len()),
    };
    let listed = match spot.functions.len() {
        1 => String::new(),
        _ => format!(": {}", names.join(", ")),
    };
    format!(
        "hot spot: {who} {:.0}% of {scope} ({} of {}; {:.1}% of all the samples{}){place}{listed}",
        100.0 * spot.samples() as f64 / spot.scope_samples.max(1) as f64,
        spot.samples(),
        spot.scope_samples,
        spot.share * 100.0,
        cpu_seconds_words(profile, spot.samples()),
    )
}

/// The command that shows a hot spot: the compiler's functions, most
/// first.
fn hot_spot_command(profile: &Profile) -> String {
    format!(
        "compile-perf report {} --by symbol --compiler",
        profile.input_name
    )
}

/// The command that shows a papercut: the flamegraph of its category.
fn papercut_command(profile: &Profile, classes: &Classes<'_>, papercut: &Papercut) -> String {
    format!(
        "compile-perf flamegraph {} --category {} -o category.svg",
        profile.input_name,
        classes.table.category(papercut.category).id
    )
}

/// The first `most` of `owners` as JSON.
fn owners_json(owners: &[(String, u64)], most: usize) -> Vec<OwnerJson> {
    owners
        .iter()
        .take(most)
        .map(|(name, samples)| OwnerJson {
            name: name.clone(),
            samples: *samples,
        })
        .collect()
}

/// `samples` as CPU seconds, when the event counts time.
fn samples_seconds(profile: &Profile, samples: u64) -> Option<f64> {
    seconds_per_sample(profile).map(|per_sample| per_sample * samples as f64)
}

/// `, N CPU s` of `samples`, or nothing when the event does not count time.
fn cpu_seconds_words(profile: &Profile, samples: u64) -> String {
    samples_seconds(profile, samples)
        .map_or(String::new(), |seconds| format!(", {seconds:.1} CPU s"))
}

/// The command that shows a serialized stretch: the flamegraph of its
/// pass, or the timeline when it is outside passes.
fn serialized_command(profile: &Profile, classes: &Classes<'_>, finding: &Serialized) -> String {
    let input = &profile.input_name;
    match finding.place {
        // A verification row has no frames of its own to draw.
        RowKey::Pass(pass) if !classes.passes.is_verification(pass) => {
            let name = classes.passes.name(pass);
            // `Canonicalizer (initialize)` is one argument.
            let name = match name.contains(' ') {
                true => format!("'{name}'"),
                false => name.to_owned(),
            };
            format!("compile-perf flamegraph {input} --pass {name} -o pass.svg")
        }
        _ => format!("compile-perf timeline {input} -o timeline.svg"),
    }
}

/// The command that shows setup rebuilt per pass instance: the
/// flamegraph, searched for the functions that build pattern sets.
fn duplicated_command(profile: &Profile) -> String {
    format!(
        "compile-perf flamegraph {} -o flame.svg, then search it for \
         FrozenRewritePatternSet|initialize",
        profile.input_name
    )
}
