//! Categorizing: every symbol put in its category once ([`Classes`]), and
//! what each sample is: its self category, its passes, its place outside
//! passes ([`facts`]).
//!
//! Each sample has a *self* category (its leaf function's, or with
//! [`Attribution::Caller`] the nearest compiler caller's when the leaf is
//! generic library code; of an allocation profile, containers such as
//! `SmallVector::grow` are skipped too, so that the bytes go to the code
//! that owns the container) and an *inclusive* set (every category on its
//! stack, once); likewise an innermost pass and the set of passes on its
//! stack. The function charged with the self sample is the one whose
//! category it gets: the leaf, or that caller.

use hashbrown::HashMap;

use super::pass::{Outside, PassId, Passes, outside_pass};
use super::row_key::RowKey;
use crate::cache::{Cache, CategoriesEntry, CategoryOf, Kind};
use crate::process::{ProcessId, ThreadId};
use crate::profile::{Profile, is_compiler, is_linker};
use crate::stacks::SampleKey;
use crate::symbolize::{Symbol, SymbolId};
use category_rules::{CONTAINERS, CategoryId, FunctionRef, INSTRUMENTATION, RuleTable};

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

/// Every symbol classified once: its category, its role for passes, and
/// whether caller attribution passes over it.
pub(crate) struct Classes<'a> {
    pub table: &'a RuleTable,
    pub categories: Vec<CategoryId>,
    pub passes: Passes,
    plumbing: Plumbing,
    /// The category of the recording's own instrumentation, when the table
    /// has it (a sample counted with `--with-instrumentation` is in it).
    instrumentation: Option<CategoryId>,
}

impl<'a> Classes<'a> {
    pub(crate) fn new(profile: &Profile, table: &'a RuleTable) -> Classes<'a> {
        let categories = classify_symbols(profile, table);
        let names = (profile.symbols.symbols.iter()).map(|symbol| symbol.name.as_str());
        let plumbing = Plumbing::new(table, profile.unit == "bytes", &categories, names);
        Classes {
            table,
            categories,
            passes: Passes::find(profile),
            plumbing,
            instrumentation: table.find(INSTRUMENTATION),
        }
    }

    pub(crate) fn category_of(&self, symbol: SymbolId) -> CategoryId {
        self.categories[symbol.index()]
    }

    /// The name of a pass or of a place outside every pass; `None` for
    /// any other row.
    pub(crate) fn place_name(&self, place: RowKey) -> Option<&str> {
        place.place_name(&self.passes)
    }
}

/// What one sample (or several with the same key) is.
pub(crate) struct Facts {
    /// The symbols of the stack, leaf first, up to the thread-pool task
    /// runner when the sample ran a task.
    pub symbols: Vec<SymbolId>,
    /// The leaf function.
    pub leaf: Option<SymbolId>,
    /// The function charged with the self sample: the leaf, or with caller
    /// attribution the caller whose category is the self category.
    pub charged: Option<SymbolId>,
    pub self_category: CategoryId,
    /// The passes on the stack, outermost first.
    pub passes: Vec<PassId>,
    /// The innermost pass, or the place of a sample outside every pass.
    pub place: RowKey,
    pub thread: ThreadId,
    pub process: ProcessId,
    /// True for samples of a compiler process.
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
    let (self_category, charged) = match leaf {
        None => (table.other(), None),
        Some(leaf) => {
            let category = classes.category_of(leaf);
            let caller = match attribution {
                Attribution::Leaf => None,
                Attribution::Caller => charged_caller(
                    &classes.plumbing,
                    table,
                    &classes.categories,
                    category,
                    &symbols,
                ),
            };
            caller.map_or((category, Some(leaf)), |(symbol, category)| {
                (category, Some(symbol))
            })
        }
    };
    // A sample counted with `--with-instrumentation` is the
    // instrumentation's, whatever its leaf.
    let instrumented = (profile.instrumented.as_ref()).and_then(|stacks| stacks.of(key.stack));
    let self_category = match (instrumented, classes.instrumentation) {
        (Some(_), Some(category)) => category,
        _ => self_category,
    };
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
        charged,
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
    let functions: Vec<FunctionRef<'_>> = (profile.symbols.symbols.iter())
        .map(|symbol| function_of(profile, symbol))
        .collect();
    let cached: Vec<Option<CategoryId>> = (functions.iter())
        .map(|function| {
            (known.get(&(function.dso, function.kernel, function.name)))
                .map(|&category| CategoryId::new(category as usize))
        })
        .collect();
    let unknown: Vec<FunctionRef<'_>> = (functions.iter().zip(&cached))
        .filter(|(_, cached)| cached.is_none())
        .map(|(&function, _)| function)
        .collect();
    let mut classified = table.classify_all(&unknown).into_iter();
    let categories: Vec<(CategoryId, bool)> = (cached.iter())
        .map(|cached| match cached {
            Some(category) => (*category, false),
            None => (
                classified.next().expect("one category per unknown name"),
                true,
            ),
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

/// What caller attribution passes over to reach the code that asked:
/// generic library work, Other, and of an allocation profile the
/// containers that grow for their owner (their category, and any method of
/// a container class whatever its category: a rule may name
/// `DenseMap<…ConstEval…>::grow` by its template arguments).
struct Plumbing {
    /// The containers' category, in an allocation profile.
    containers: Option<CategoryId>,
    /// Per symbol, whether it is passed over.
    symbols: Vec<bool>,
}

impl Plumbing {
    /// Decides once for every symbol, of `categories` and `names` (in
    /// symbol order).
    fn new<'n>(
        table: &RuleTable,
        allocations: bool,
        categories: &[CategoryId],
        names: impl Iterator<Item = &'n str>,
    ) -> Plumbing {
        let containers = allocations.then(|| table.find(CONTAINERS)).flatten();
        let mut plumbing = Plumbing {
            containers,
            symbols: Vec::with_capacity(categories.len()),
        };
        for (&category, name) in categories.iter().zip(names) {
            let passed_over = plumbing.charges_leaf(table, category)
                || category == table.other()
                || (allocations && is_container_method(name));
            plumbing.symbols.push(passed_over);
        }
        plumbing
    }

    /// Whether a leaf of `category` is charged to a caller.
    fn charges_leaf(&self, table: &RuleTable, category: CategoryId) -> bool {
        table.category(category).generic || Some(category) == self.containers
    }
}

/// With a leaf that `plumbing` charges to a caller (`leaf_category`), the
/// nearest caller on `leaf_first` that is not plumbing, and its category;
/// `None` when the leaf keeps its samples or no caller is anything else.
fn charged_caller(
    plumbing: &Plumbing,
    table: &RuleTable,
    categories: &[CategoryId],
    leaf_category: CategoryId,
    leaf_first: &[SymbolId],
) -> Option<(SymbolId, CategoryId)> {
    if !plumbing.charges_leaf(table, leaf_category) {
        return None;
    }
    leaf_first
        .iter()
        .find(|symbol| !plumbing.symbols[symbol.index()])
        .map(|&symbol| (symbol, categories[symbol.index()]))
}

/// Classes whose methods grow or copy storage for their owner.
const CONTAINER_CLASSES: [&str; 16] = [
    "llvm::SmallVector",
    "llvm::DenseMap",
    "llvm::DenseSet",
    "llvm::SmallPtrSet",
    "llvm::StringMap",
    "llvm::SmallString",
    "llvm::BumpPtrAllocator",
    "llvm::SpecificBumpPtrAllocator",
    "llvm::MapVector",
    "std::vector<",
    "std::__cxx11::basic_string<",
    "std::basic_string<",
    "std::_Hashtable<",
    "std::_Rb_tree<",
    "std::deque<",
    "std::__new_allocator<",
];

/// Whether the demangled `name` is a method of a container class: its
/// qualified name (after any return type, before the arguments) starts
/// with one of [`CONTAINER_CLASSES`].
fn is_container_method(name: &str) -> bool {
    let mut depth = 0usize;
    let mut qualified_start = 0;
    for (at, byte) in name.bytes().enumerate() {
        match byte {
            b'<' => depth += 1,
            b'>' => depth = depth.saturating_sub(1),
            b'(' if depth == 0 => break,
            b' ' if depth == 0 => qualified_start = at + 1,
            _ => {}
        }
    }
    let qualified = &name[qualified_start..];
    CONTAINER_CLASSES
        .iter()
        .any(|class| qualified.starts_with(class))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caller_attribution_passes_over_plumbing_to_the_owner() {
        let table = RuleTable::builtin();
        let id = |id: &str| table.find(id).unwrap();
        // malloc, under SmallVector::grow, under the parser.
        let categories = [id("malloc"), id("adt"), id("other"), id("parser")];
        let leaf_first: Vec<SymbolId> = (0..4).map(SymbolId::new).collect();
        let plumbing =
            |allocations| Plumbing::new(&table, allocations, &categories, ["f()"; 4].into_iter());
        let charged = |allocations| {
            charged_caller(
                &plumbing(allocations),
                &table,
                &categories,
                categories[0],
                &leaf_first,
            )
        };
        // CPU time in a container is the container's work.
        assert_eq!(charged(false), Some((SymbolId::new(1), id("adt"))));
        // Bytes a container asks for are its owner's.
        assert_eq!(charged(true), Some((SymbolId::new(3), id("parser"))));
        // A leaf that is compiler code keeps its samples.
        assert_eq!(
            charged_caller(
                &plumbing(true),
                &table,
                &categories,
                id("parser"),
                &leaf_first
            ),
            None
        );
    }

    #[test]
    fn a_container_method_is_known_by_its_class_not_its_arguments() {
        assert!(is_container_method(
            "llvm::DenseMapBase<llvm::DenseMap<llvm::StringRef, Foo<ConstEval::X> > >::grow(unsigned int)"
        ));
        assert!(is_container_method(
            "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(int&&)"
        ));
        assert!(is_container_method(
            "llvm::SmallVectorBase<unsigned int>::grow_pod(void*, unsigned long, unsigned long)"
        ));
        assert!(!is_container_method(
            "mlir::Foo<int, llvm::SmallVector<int, 4u> >::build(llvm::SmallVector<int, 4u>&)"
        ));
        assert!(!is_container_method(
            "(anonymous namespace)::TensorLiteralParser::parseElement()"
        ));
        // A container's method under a rule's category is still passed over.
        let table = RuleTable::builtin();
        let id = |id: &str| table.find(id).unwrap();
        let categories = [id("malloc"), id("folding"), id("parser")];
        let leaf_first: Vec<SymbolId> = (0..3).map(SymbolId::new).collect();
        let names = [
            "malloc",
            "llvm::DenseMapBase<X>::grow(unsigned int)",
            "Parser::parse()",
        ];
        let plumbing = Plumbing::new(&table, true, &categories, names.into_iter());
        assert_eq!(
            charged_caller(&plumbing, &table, &categories, categories[0], &leaf_first),
            Some((SymbolId::new(2), id("parser")))
        );
    }
}
