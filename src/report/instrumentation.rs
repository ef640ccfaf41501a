//! What the recording's own instrumentation cost: its samples by kind, as
//! `run.json`, the report's JSON and its header line state them.

use crate::attribute::{percent, round2, runs::seconds_per_sample};
use crate::profile::Profile;
use crate::run_dir::{InstrumentKindFacts, InstrumentationFacts};

/// The instrumentation's samples in `profile`, or `None` when it has none.
pub(crate) fn facts(profile: &Profile) -> Option<InstrumentationFacts> {
    let cost = &profile.instrumentation;
    let samples = cost.total();
    (samples > 0).then(|| InstrumentationFacts {
        samples,
        percent_of_samples: round2(percent(samples, profile.counts.samples)),
        cpu_seconds: seconds_per_sample(profile).map(|seconds| round2(seconds * samples as f64)),
        counted: cost.counted,
        kinds: (cost.by_kind().into_iter())
            .map(|(kind, samples)| InstrumentKindFacts {
                kind: kind.id().to_owned(),
                what: kind.description().to_owned(),
                samples,
            })
            .collect(),
    })
}

/// What the report says of the instrumentation's samples, after
/// `instrumentation: ` in its header and in the HTML page's facts.
pub(crate) fn sentence(facts: &InstrumentationFacts) -> String {
    let cpu = facts
        .cpu_seconds
        .map_or(String::new(), |seconds| format!(", {seconds:.1} CPU s"));
    let kinds: Vec<String> = (facts.kinds.iter())
        .map(|kind| format!("{} {}", kind.what, kind.samples))
        .collect();
    let how = if facts.counted {
        "counted in the category Instrumentation, under the passes they ran in \
         (--with-instrumentation)"
    } else {
        "set aside: in no share, table or picture (--with-instrumentation counts them)"
    };
    format!(
        "{} samples ({:.1}% of the recording's{cpu}) were the recording's own \
         instrumentation, not the compile's: {}; {how}",
        facts.samples,
        facts.percent_of_samples,
        kinds.join(", ")
    )
}

/// The line `instrumentation: …` of the report's header and of the summary
/// on stderr; `None` when the profile has no instrumentation.
pub(crate) fn line(profile: &Profile) -> Option<String> {
    facts(profile).map(|facts| format!("instrumentation: {}", sentence(&facts)))
}
