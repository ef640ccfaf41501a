//! Categories per sample, and samples grouped into report rows.
//!
//! Each sample has a *self* category (its leaf function's, or with
//! [`Attribution::Caller`] the nearest compiler caller's when the leaf is
//! generic library code) and an *inclusive* set (every category on its stack,
//! once). One grouping algorithm serves every `--by`: category, symbol,
//! binary, thread and process.

use hashbrown::{HashMap, HashSet};

use super::SampleFilter;
use crate::binary::DsoId;
use crate::categorize::{CategoryId, FunctionRef, RuleTable};
use crate::process::{ProcessId, ThreadId};
use crate::profile::Profile;
use crate::symbolize::SymbolId;

/// How a sample's self category is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Attribution {
    /// The leaf function's category, exactly.
    #[default]
    Leaf,
    /// Generic library work (allocation, memcpy, hashing, uniquing, the
    /// kernel…) is charged to the nearest caller with a compiler category.
    Caller,
}

/// What report rows are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Grouping {
    #[default]
    Category,
    Symbol,
    Dso,
    Thread,
    Process,
}

/// The key of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowKey {
    Category(CategoryId),
    Symbol(SymbolId),
    Dso(DsoId),
    Thread(ThreadId),
    Process(ProcessId),
}

/// What a row's "top" column lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Detail {
    Symbol(SymbolId),
    Category(CategoryId),
}

/// One row's totals.
#[derive(Clone, Debug, Default)]
pub struct RowTotals {
    pub self_samples: u64,
    pub inclusive_samples: u64,
    /// Self samples of the row split by detail (symbols or categories).
    pub details: HashMap<Detail, u64>,
}

/// Samples grouped into rows.
pub struct Grouped {
    /// Samples the filter kept.
    pub samples: u64,
    pub rows: HashMap<RowKey, RowTotals>,
}

/// The category of every symbol, indexed by [`SymbolId`]; each classified once.
pub fn classify_symbols(profile: &Profile, table: &RuleTable) -> Vec<CategoryId> {
    profile
        .symbols
        .symbols
        .iter()
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
pub fn group(
    profile: &Profile,
    table: &RuleTable,
    categories: &[CategoryId],
    grouping: Grouping,
    attribution: Attribution,
    filter: &SampleFilter,
) -> Grouped {
    let mut grouped = Grouped {
        samples: 0,
        rows: HashMap::new(),
    };
    let mut stack_symbols: Vec<SymbolId> = Vec::new();
    let mut inclusive: HashSet<RowKey> = HashSet::new();
    for (key, count) in profile.samples(filter) {
        grouped.samples += count;
        stack_symbols.clear();
        for frame in profile.stacks.frames_leaf_first(key.stack) {
            stack_symbols.extend_from_slice(profile.symbols.of_frame(frame));
        }
        let leaf = key.stack.map(|stack| {
            profile
                .symbols
                .function_of_frame(profile.stacks.node(stack).frame)
        });
        let self_category = leaf.map_or(table.other(), |leaf| {
            let category = categories[leaf.0 as usize];
            match attribution {
                Attribution::Leaf => category,
                Attribution::Caller => {
                    charged_category(table, categories, category, &stack_symbols)
                }
            }
        });
        let thread = key.thread;
        let process = profile.processes.thread(thread).process;

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
                Some(RowKey::Thread(thread)),
                Some(Detail::Category(self_category)),
            ),
            Grouping::Process => (
                Some(RowKey::Process(process)),
                Some(Detail::Category(self_category)),
            ),
        };
        inclusive.clear();
        match grouping {
            Grouping::Category => inclusive.extend(
                stack_symbols
                    .iter()
                    .map(|symbol| RowKey::Category(categories[symbol.0 as usize])),
            ),
            Grouping::Symbol => inclusive.extend(stack_symbols.iter().copied().map(RowKey::Symbol)),
            Grouping::Dso => inclusive.extend(
                stack_symbols
                    .iter()
                    .map(|symbol| RowKey::Dso(profile.symbols.get(*symbol).dso)),
            ),
            Grouping::Thread | Grouping::Process => {}
        }
        inclusive.extend(self_key);
        if let Some(self_key) = self_key {
            let row = grouped.rows.entry(self_key).or_default();
            row.self_samples += count;
            if let Some(detail) = detail {
                *row.details.entry(detail).or_default() += count;
            }
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
        .map(|symbol| categories[symbol.0 as usize])
        .find(|&category| !table.category(category).generic && category != table.other())
        .unwrap_or(leaf_category)
}
