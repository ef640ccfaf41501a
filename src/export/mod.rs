//! Other tools' formats: the samples a filter keeps, with their stacks and
//! labels (self category, innermost pass, thread, process), written for
//! pprof (`pprof/`), the Firefox Profiler (`firefox.rs`), speedscope
//! (`speedscope.rs`) and Chrome's trace viewer and Perfetto
//! (`chrome_trace.rs`, from the pass spans of `spans.rs`). Every writer
//! takes one [`Samples`] and writes into a `Write` that `commands` gets
//! from [`crate::output`]; nothing here opens a file.

pub(crate) mod chrome_trace;
pub(crate) mod firefox;
pub(crate) mod pprof;
mod spans;
pub(crate) mod speedscope;

use hashbrown::HashMap;

use crate::attribute::actions::ActionJoin;
use crate::attribute::runs::seconds_per_sample;
use crate::attribute::{
    ActionRows, Attribution, Classes, FoldingStacks, PassId, RowKey, facts, row_name, self_row,
};
use crate::process::{ProcessId, ThreadId};
use crate::profile::{Profile, SampleFilter};
use crate::stacks::SampleKey;
use crate::symbolize::SymbolId;
use category_rules::CategoryId;

/// One distinct stack of a thread, with what its samples are.
pub(crate) struct Labelled {
    pub key: SampleKey,
    /// Samples with this key.
    pub count: u64,
    /// The leaf function's category.
    pub category: CategoryId,
    /// The innermost pass, or the place outside every pass.
    pub place: RowKey,
    /// The passes on the stack, outermost first.
    pub passes: Vec<PassId>,
    /// True when the stack did not reach its thread root.
    pub truncated: bool,
    /// The rewrite pattern and the IR unit its thread was in, when the run
    /// recorded MLIR's actions (`record --actions`).
    pub actions: Option<ActionPlaces>,
}

/// Where a sample was in MLIR's actions: the rows of `report --by pattern`
/// and `--by unit` it counts in as self.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ActionPlaces {
    pub pattern: RowKey,
    pub unit: RowKey,
}

/// The samples a filter keeps, labelled, in the order perf took them.
pub(crate) struct Samples<'a> {
    pub profile: &'a Profile,
    pub classes: &'a Classes<'a>,
    /// Every distinct key, in the order first met in time.
    pub stacks: Vec<Labelled>,
    /// Every sample in time order: perf's timestamp (ns) and its index in `stacks`.
    pub timed: Vec<(u64, usize)>,
    /// The samples kept.
    pub total: u64,
    /// MLIR's actions on perf's clock, which name [`ActionPlaces`].
    pub actions: Option<&'a ActionJoin>,
}

impl<'a> Samples<'a> {
    /// Labels the samples of `profile` that `filter` keeps, with the
    /// pattern and unit of `actions` when given.
    pub(crate) fn new(
        profile: &'a Profile,
        classes: &'a Classes<'a>,
        filter: &SampleFilter,
        actions: Option<&'a ActionJoin>,
    ) -> Samples<'a> {
        let mut index: HashMap<(SampleKey, Option<ActionPlaces>), usize> = HashMap::new();
        let mut stacks: Vec<Labelled> = Vec::new();
        let mut timed = Vec::new();
        let mut kept_process: HashMap<ProcessId, bool> = HashMap::new();
        let mut folding = FoldingStacks::new(profile);
        for sample in &profile.stacks.timeline {
            let process = profile.processes.thread(sample.key.thread).process;
            let kept = *kept_process
                .entry(process)
                .or_insert_with(|| filter.accepts(profile.processes.image(process)));
            if !kept {
                continue;
            }
            let places = actions.map(|join| {
                let tid = profile.processes.thread(sample.key.thread).tid;
                let (time, stack) = (sample.time, sample.key.stack);
                ActionPlaces {
                    pattern: self_row(join, ActionRows::Pattern, &mut folding, tid, time, stack),
                    unit: self_row(join, ActionRows::Unit, &mut folding, tid, time, stack),
                }
            });
            let at = *index.entry((sample.key, places)).or_insert_with(|| {
                let facts = facts(profile, classes, Attribution::Leaf, &sample.key);
                stacks.push(Labelled {
                    key: sample.key,
                    count: 0,
                    category: facts.self_category,
                    place: facts.place,
                    passes: facts.passes,
                    truncated: !profile.reaches_root(&sample.key),
                    actions: places,
                });
                stacks.len() - 1
            });
            stacks[at].count += 1;
            timed.push((sample.time, at));
        }
        let total = timed.len() as u64;
        Samples {
            profile,
            classes,
            stacks,
            timed,
            total,
            actions,
        }
    }

    /// The name of a row of actions (a pattern, a unit, or the place outside
    /// them).
    pub(crate) fn action_row_name(&self, key: RowKey) -> Option<String> {
        self.actions.and_then(|join| row_name(join, key))
    }

    /// The name of a pass or of a place outside every pass.
    pub(crate) fn place_name(&self, place: RowKey) -> &str {
        self.classes
            .place_name(place)
            .expect("a sample's place is a pass or a place outside passes")
    }

    /// The id of a category (`lexer`), as the rule table names it.
    pub(crate) fn category_id(&self, category: CategoryId) -> &str {
        &self.classes.table.category(category).id
    }

    /// A thread's name.
    pub(crate) fn thread_name(&self, thread: ThreadId) -> &str {
        &self.profile.processes.thread(thread).name
    }

    /// A process's name and pid.
    pub(crate) fn process_of(&self, thread: ThreadId) -> (&str, i32) {
        let image = self
            .profile
            .processes
            .image(self.profile.processes.thread(thread).process);
        (&image.name, image.pid)
    }

    /// The functions of a stack, root first, inlined ones included.
    pub(crate) fn symbols_root_first(&self, stack: &Labelled) -> Vec<SymbolId> {
        let mut symbols = Vec::new();
        self.profile
            .symbols_leaf_first(stack.key.stack, &mut symbols);
        symbols.reverse();
        symbols
    }

    /// A function's name.
    pub(crate) fn symbol_name(&self, symbol: SymbolId) -> &str {
        &self.profile.symbols.get(symbol).name
    }

    /// Nanoseconds of the event per sample: the mean period of a clock event,
    /// else one over the sampling frequency; `None` when neither is known.
    pub(crate) fn nanoseconds_per_sample(&self) -> Option<f64> {
        seconds_per_sample(self.profile).map(|seconds| seconds * 1e9)
    }

    /// perf's timestamp of the first sample kept, in nanoseconds.
    pub(crate) fn first_time(&self) -> u64 {
        self.timed.first().map_or(0, |(time, _)| *time)
    }

    /// perf's timestamp of the last sample kept, in nanoseconds.
    pub(crate) fn last_time(&self) -> u64 {
        self.timed.last().map_or(0, |(time, _)| *time)
    }
}
