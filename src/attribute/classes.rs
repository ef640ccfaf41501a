//! Categorizing: every symbol put in its category once ([`Classes`]), and
//! what each sample is: its self category, its passes, its place outside
//! passes ([`facts`]).
//!
//! Each sample has a *self* category (its leaf function's, or with
//! [`Attribution::Caller`] the nearest compiler caller's when the leaf is
//! generic library code) and an *inclusive* set (every category on its
//! stack, once); likewise an innermost pass and the set of passes on its
//! stack.

use hashbrown::HashMap;
use rayon::prelude::*;

use super::pass::{Outside, PassId, Passes, outside_pass};
use super::rows::RowKey;
use crate::cache::{Cache, CategoriesEntry, CategoryOf, Kind};
use crate::process::{ProcessId, ThreadId};
use crate::profile::{Profile, is_compiler, is_linker};
use crate::rules::{CategoryId, FunctionRef, RuleTable};
use crate::stacks::SampleKey;
use crate::symbolize::{Symbol, SymbolId};

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
pub(crate) struct Facts {
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
pub(crate) fn facts(
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
                in_linker: is_linker(image),
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

/// The key of `table`'s categories in the cache.
fn categories_key(table: &RuleTable) -> String {
    format!("{:016x}", table.fingerprint())
}

/// Whether the cache has categories under `table` (of the symbols of
/// earlier reports), so that few names will be matched against its rules.
pub(crate) fn categories_cached(cache: &Cache, table: &RuleTable) -> bool {
    cache.contains(Kind::Categories, &categories_key(table))
}

/// The category of every symbol, indexed by [`SymbolId`]; each classified
/// once, spread over the cores, unless the cache of this rule table's
/// categories has it. New ones are added to that cache.
pub(super) fn classify_symbols(profile: &Profile, table: &RuleTable) -> Vec<CategoryId> {
    let key = categories_key(table);
    let category_count = table.categories.len() as u32;
    let entry: CategoriesEntry = (profile.cache.read(Kind::Categories, &key))
        .filter(|entry: &CategoriesEntry| entry.category_count == category_count)
        .unwrap_or_default();
    let known: HashMap<(&str, bool, &str), u32> = (entry.symbols.iter())
        .filter(|known| known.category < category_count)
        .map(|known| {
            (
                (known.dso.as_str(), known.kernel, known.name.as_str()),
                known.category,
            )
        })
        .collect();
    let categories: Vec<(CategoryId, bool)> = (profile.symbols.symbols.par_iter())
        .map(|symbol| {
            let function = function_of(profile, symbol);
            match known.get(&(function.dso, function.kernel, function.name)) {
                Some(&category) => (CategoryId::new(category as usize), false),
                None => (table.classify(function), true),
            }
        })
        .collect();
    if categories.iter().any(|&(_, new)| new) {
        let mut symbols = entry.symbols.clone();
        for (symbol, &(category, new)) in profile.symbols.symbols.iter().zip(&categories) {
            if new {
                let function = function_of(profile, symbol);
                symbols.push(CategoryOf {
                    dso: function.dso.to_owned(),
                    kernel: function.kernel,
                    name: function.name.to_owned(),
                    category: category.index() as u32,
                });
            }
        }
        let updated = CategoriesEntry {
            category_count,
            symbols,
        };
        profile
            .cache
            .write_with(Kind::Categories, &key, move || updated);
    }
    categories
        .into_iter()
        .map(|(category, _)| category)
        .collect()
}

/// A symbol as the rules see it.
fn function_of<'a>(profile: &'a Profile, symbol: &'a Symbol) -> FunctionRef<'a> {
    let dso = profile.store.get(symbol.dso);
    FunctionRef {
        name: &symbol.name,
        dso: &dso.name,
        kernel: dso.kind == crate::binary::DsoKind::Kernel,
    }
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
