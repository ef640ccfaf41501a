//! What each sample is (its self category, its passes, its place outside
//! passes), and samples grouped into report rows.
//!
//! Each sample has a *self* category (its leaf function's, or with
//! [`Attribution::Caller`] the nearest compiler caller's when the leaf is
//! generic library code) and an *inclusive* set (every category on its stack,
//! once); likewise an innermost pass and the set of passes on its stack. One
//! grouping algorithm serves every `--by`: category, symbol, binary, thread,
//! process and pass.

use hashbrown::{HashMap, HashSet};
use rayon::prelude::*;

use super::pass::{Outside, OutsidePass, PassId, Passes, outside_pass};
use crate::binary::DsoId;
use crate::process::{ProcessId, ThreadId};
use crate::profile::{Profile, SampleFilter, is_compiler};
use crate::rules::{CategoryId, FunctionRef, RuleTable};
use crate::stacks::SampleKey;
use crate::symbolize::SymbolId;

/// How a sample's self category is chosen (`report --attribution`).
/// `--help` names the values without the notes below (`help = None`), as
/// the option's own help explains them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Attribution {
    /// The leaf function's category, exactly.
    #[default]
    #[value(help = None::<&str>)]
    Leaf,
    /// Generic library work (allocation, memcpy, hashing, uniquing, the
    /// kernel…) is charged to the nearest caller with a compiler category.
    #[value(help = None::<&str>)]
    Caller,
}

/// What report rows are (`report --by`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Grouping {
    #[default]
    Category,
    Symbol,
    Dso,
    Thread,
    Process,
    Pass,
}

/// The key of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum RowKey {
    Category(CategoryId),
    Symbol(SymbolId),
    Dso(DsoId),
    Thread(ThreadId),
    Process(ProcessId),
    Pass(PassId),
    /// Samples outside every pass.
    OutsidePass(OutsidePass),
}

/// What a row's "top" column lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Detail {
    Symbol(SymbolId),
    Category(CategoryId),
}

/// One row's totals.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowTotals {
    pub self_samples: u64,
    pub inclusive_samples: u64,
    /// Self samples of the row split by detail (symbols or categories).
    pub details: HashMap<Detail, u64>,
    /// Self samples of the row split by innermost pass (or place outside passes).
    pub passes: HashMap<RowKey, u64>,
}

/// Samples grouped into rows.
pub(crate) struct Grouped {
    /// Samples the filter kept.
    pub samples: u64,
    /// Of those, samples of the compiler process with a pass on their stack:
    /// the span that mlir-timing's `root` covers.
    pub in_pass_manager: u64,
    pub rows: HashMap<RowKey, RowTotals>,
}

/// Every symbol classified once: its category, and its role for passes.
pub(crate) struct Classes<'a> {
    pub table: &'a RuleTable,
    pub categories: Vec<CategoryId>,
    pub passes: Passes,
}

impl<'a> Classes<'a> {
    pub(crate) fn new(profile: &Profile, table: &'a RuleTable) -> Classes<'a> {
        Classes {
            table,
            categories: classify_symbols(profile, table),
            passes: Passes::find(profile),
        }
    }

    pub(crate) fn category_of(&self, symbol: SymbolId) -> CategoryId {
        self.categories[symbol.index()]
    }
}

/// What one sample (or several with the same key) is.
pub(super) struct Facts {
    /// The symbols of the stack, leaf first, up to the thread-pool task
    /// runner when the sample ran a task.
    pub symbols: Vec<SymbolId>,
    /// The leaf function.
    pub leaf: Option<SymbolId>,
    pub self_category: CategoryId,
    /// The passes on the stack, outermost first.
    pub passes: Vec<PassId>,
    /// The innermost pass, or the place of a sample outside every pass.
    pub place: RowKey,
    pub thread: ThreadId,
    pub process: ProcessId,
    /// True for samples of the native compiler process.
    pub in_compiler: bool,
}

/// Works out what the samples of `key` are.
pub(super) fn facts(
    profile: &Profile,
    classes: &Classes<'_>,
    attribution: Attribution,
    key: &SampleKey,
) -> Facts {
    let mut symbols = Vec::new();
    profile.symbols_leaf_first(key.stack, &mut symbols);
    let task_cut = classes.passes.task_cut(&symbols);
    if let Some(cut) = task_cut {
        symbols.truncate(cut);
    }
    let leaf = profile.leaf_function(key.stack);
    let table = classes.table;
    let self_category = leaf.map_or(table.other(), |leaf| {
        let category = classes.category_of(leaf);
        match attribution {
            Attribution::Leaf => category,
            Attribution::Caller => charged_category(table, &classes.categories, category, &symbols),
        }
    });
    let mut passes = Vec::new();
    classes.passes.on_stack(&symbols, &mut passes);
    let thread = key.thread;
    let process = profile.processes.thread(thread).process;
    let in_compiler = is_compiler(profile.processes.image(process));
    let image = profile.processes.image(process);
    let main_thread = profile.processes.thread(thread).tid == image.pid;
    let place = match passes.last() {
        Some(&innermost) => RowKey::Pass(innermost),
        None => RowKey::OutsidePass(outside_pass(
            table,
            &classes.categories,
            &symbols,
            Outside {
                in_compiler,
                in_task: task_cut.is_some() || !main_thread,
                managed: classes.passes.managed(&symbols),
            },
        )),
    };
    Facts {
        symbols,
        leaf,
        self_category,
        passes,
        place,
        thread,
        process,
        in_compiler,
    }
}

/// The category of every symbol, indexed by [`SymbolId`]; each classified
/// once, spread over the cores.
pub(super) fn classify_symbols(profile: &Profile, table: &RuleTable) -> Vec<CategoryId> {
    profile
        .symbols
        .symbols
        .par_iter()
        .map(|symbol| {
            let dso = profile.store.get(symbol.dso);
            table.classify(FunctionRef {
                name: &symbol.name,
                dso: &dso.name,
                kernel: dso.kind == crate::binary::DsoKind::Kernel,
            })
        })
        .collect()
}

/// Groups the samples `filter` keeps into rows of `grouping`.
pub(crate) fn group(
    profile: &Profile,
    classes: &Classes<'_>,
    grouping: Grouping,
    attribution: Attribution,
    filter: &SampleFilter,
) -> Grouped {
    let mut grouped = Grouped {
        samples: 0,
        in_pass_manager: 0,
        rows: HashMap::new(),
    };
    let mut inclusive: HashSet<RowKey> = HashSet::new();
    for (key, count) in profile.samples(filter) {
        let facts = facts(profile, classes, attribution, key);
        grouped.samples += count;
        if facts.in_compiler && !facts.passes.is_empty() {
            grouped.in_pass_manager += count;
        }
        let leaf = facts.leaf;
        let self_category = facts.self_category;
        let (self_key, detail) = match grouping {
            Grouping::Category => (
                Some(RowKey::Category(self_category)),
                leaf.map(Detail::Symbol),
            ),
            Grouping::Symbol => (
                leaf.map(RowKey::Symbol),
                Some(Detail::Category(self_category)),
            ),
            Grouping::Dso => (
                leaf.map(|leaf| RowKey::Dso(profile.symbols.get(leaf).dso)),
                leaf.map(Detail::Symbol),
            ),
            Grouping::Thread => (
                Some(RowKey::Thread(facts.thread)),
                Some(Detail::Category(self_category)),
            ),
            Grouping::Process => (
                Some(RowKey::Process(facts.process)),
                Some(Detail::Category(self_category)),
            ),
            Grouping::Pass => (Some(facts.place), Some(Detail::Category(self_category))),
        };
        inclusive.clear();
        match grouping {
            Grouping::Category => inclusive.extend(
                facts
                    .symbols
                    .iter()
                    .map(|symbol| RowKey::Category(classes.category_of(*symbol))),
            ),
            Grouping::Symbol => inclusive.extend(facts.symbols.iter().copied().map(RowKey::Symbol)),
            Grouping::Dso => inclusive.extend(
                facts
                    .symbols
                    .iter()
                    .map(|symbol| RowKey::Dso(profile.symbols.get(*symbol).dso)),
            ),
            Grouping::Pass => inclusive.extend(facts.passes.iter().copied().map(RowKey::Pass)),
            Grouping::Thread | Grouping::Process => {}
        }
        inclusive.extend(self_key);
        if let Some(self_key) = self_key {
            let row = grouped.rows.entry(self_key).or_default();
            row.self_samples += count;
            if let Some(detail) = detail {
                *row.details.entry(detail).or_default() += count;
            }
            *row.passes.entry(facts.place).or_default() += count;
        }
        for row_key in &inclusive {
            grouped.rows.entry(*row_key).or_default().inclusive_samples += count;
        }
    }
    grouped
}

/// With caller attribution: the category of the nearest caller (walking from
/// the leaf) whose category is a compiler category; the leaf's own category
/// when the leaf is not generic or no such caller exists.
fn charged_category(
    table: &RuleTable,
    categories: &[CategoryId],
    leaf_category: CategoryId,
    leaf_first: &[SymbolId],
) -> CategoryId {
    if !table.category(leaf_category).generic {
        return leaf_category;
    }
    leaf_first
        .iter()
        .map(|symbol| categories[symbol.index()])
        .find(|&category| !table.category(category).generic && category != table.other())
        .unwrap_or(leaf_category)
}
