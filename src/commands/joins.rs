//! The run directory's files joined with a profile, for the commands that
//! show them: the RSS over time (`memory.json`), MLIR's pass timers
//! (`mlir-timing.json`), MLIR's actions (`actions.bin`) and the dumped
//! executables (`sources/`), each with the notice or error to give when the
//! file cannot be used.

use crate::actions::Actions;
use crate::attribute::actions::{ActionJoin, join_actions};
use crate::attribute::rss::RssJoin;
use crate::attribute::timers::TimerJoin;
use crate::attribute::{Classes, Grouping};
use crate::binary::DsoId;
use crate::error::Error;
use crate::executable_sources::Alike;
use crate::profile::{Profile, SampleFilter};
use crate::rss::MEMORY_FILE;
use crate::run_dir::{RunDir, RunFile};
use crate::symbolize::SymbolId;

/// The alike executables among those the compile dumped into the run
/// directory's `sources/`, and a notice when they cannot be read.
pub(super) fn alike_executables(run_dir: &RunDir) -> (Vec<Alike>, Option<String>) {
    match run_dir.alike_executables() {
        RunFile::Absent => (Vec::new(), None),
        RunFile::Read(alike) => (alike, None),
        RunFile::Unreadable(notice) => (Vec::new(), Some(notice)),
    }
}

/// The compiler's RSS over time (`memory.json` of the run directory)
/// joined with the passes of the samples `filter` keeps; and a notice when
/// there is a `memory.json` that cannot be joined.
pub(super) fn rss_join(
    run_dir: &RunDir,
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
) -> (Option<RssJoin>, Option<String>) {
    let series = match &run_dir.rss {
        RunFile::Absent => return (None, None),
        RunFile::Unreadable(notice) => return (None, Some(notice.clone())),
        RunFile::Read(series) => series,
    };
    let monotonic = profile
        .info
        .events
        .iter()
        // `--alloc` counts several events, named `a+b+c`.
        .find(|event| profile.event.split('+').any(|name| name == event.name))
        .is_some_and(|event| event.monotonic_clock);
    if !monotonic {
        return (
            None,
            Some(format!(
                "{MEMORY_FILE} is not joined with the passes: the recording's timestamps are not \
                 on CLOCK_MONOTONIC (record with perf record -k CLOCK_MONOTONIC)"
            )),
        );
    }
    match crate::attribute::rss::join(profile, classes, filter, series) {
        Some(join) => (Some(join), None),
        None => (
            None,
            Some(format!(
                "{MEMORY_FILE}: the recording has no samples of the process it follows"
            )),
        ),
    }
}

/// MLIR's pass timers (`mlir-timing.json` of a run directory of `record
/// --mlir-timing`) joined with the passes on the stacks; and a notice when
/// there is such a file that cannot be read.
pub(super) fn timer_join(
    run_dir: &RunDir,
    profile: &Profile,
    classes: &Classes<'_>,
) -> (Option<TimerJoin>, Option<String>) {
    match &run_dir.timers {
        RunFile::Absent => (None, None),
        RunFile::Unreadable(notice) => (None, Some(notice.clone())),
        RunFile::Read(timers) => (
            Some(crate::attribute::timers::join(
                classes.passes.names(),
                &declared_pass_names(profile, classes),
                timers,
            )),
            None,
        ),
    }
}

/// With `--by pattern|unit`, the actions of the run on perf's clock, which
/// `command` needs; with rows that show passes (`--by pass|thread|process`),
/// the actions when the run has them (they name the pass whose output the
/// pass manager verifies); `None` for the other groupings.
pub(super) fn actions_for(
    grouping: Grouping,
    run_dir: &RunDir,
    profile: &Profile,
    classes: &mut Classes<'_>,
    command: &str,
) -> Result<Option<ActionJoin>, Error> {
    let what = format!("{command} --by {}", grouping.name());
    match (grouping.action_rows(), grouping.credits_pool_work()) {
        // A sample is placed by its time; bytes have no weight there.
        (Some(_), _) if profile.unit != "samples" => Err(Error::NoActions {
            what,
            reason: format!(
                "its rows count CPU samples, and this reading counts {}: drop --alloc or --heap",
                profile.unit
            ),
        }),
        (Some(_), _) => action_join(run_dir, profile, classes, &what).map(Some),
        (None, true) => Ok(page_actions(run_dir, profile, classes).0),
        (None, false) => Ok(None),
    }
}

/// For the HTML page: the run's actions on perf's clock when it recorded
/// them (and the page counts samples), with a notice when its
/// `actions.bin` cannot be read.
pub(super) fn page_actions(
    run_dir: &RunDir,
    profile: &Profile,
    classes: &mut Classes<'_>,
) -> (Option<ActionJoin>, Option<String>) {
    if profile.unit != "samples" {
        return (None, None);
    }
    match run_dir.actions() {
        RunFile::Read(actions) => (Some(joined(profile, classes, actions)), None),
        RunFile::Unreadable(notice) => (None, Some(notice)),
        RunFile::Absent => (None, None),
    }
}

/// MLIR's actions of the run (`actions.bin` of `record --actions`) on
/// perf's clock, for `what` (`report --by pattern`), which needs them.
pub(super) fn action_join(
    run_dir: &RunDir,
    profile: &Profile,
    classes: &mut Classes<'_>,
    what: &str,
) -> Result<ActionJoin, Error> {
    let no_actions = |reason: String| Error::NoActions {
        what: what.to_owned(),
        reason,
    };
    match run_dir.actions() {
        RunFile::Read(actions) => Ok(joined(profile, classes, actions)),
        RunFile::Unreadable(notice) => Err(no_actions(format!(
            "{notice}; record the compile again with `record --actions`"
        ))),
        RunFile::Absent => Err(no_actions(
            "the recording's run directory has no actions.bin; record the compile with \
             `compile-perf record --actions -- iree-compile …`"
                .to_owned(),
        )),
    }
}

/// `actions` put on perf's clock, their passes named as the stacks' are.
fn joined(profile: &Profile, classes: &mut Classes<'_>, actions: Actions) -> ActionJoin {
    let declared = declared_pass_names(profile, classes);
    join_actions(profile, classes, actions, &declared)
}

/// `(class, timer name)` of the pass classes the binaries with pass frames
/// declare (see `symbolize::declared_pass_names`).
pub(super) fn declared_pass_names(
    profile: &Profile,
    classes: &Classes<'_>,
) -> Vec<(String, String)> {
    let mut dsos: Vec<DsoId> = (0..profile.symbols.symbols.len())
        .map(SymbolId::new)
        .filter(|&symbol| classes.passes.pass_of(symbol).is_some())
        .map(|symbol| profile.symbols.get(symbol).dso)
        .collect();
    dsos.sort_unstable();
    dsos.dedup();
    dsos.into_iter()
        .filter_map(|dso| profile.store.get(dso).image.clone())
        .flat_map(|image| crate::symbolize::declared_pass_names(&image))
        .collect()
}
