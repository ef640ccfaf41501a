//! The category rule table: which part of the compiler a function belongs to.
//!
//! Categories and rules are data: `rules.toml` is compiled in, and a user file
//! (`--rules FILE.toml`, same format) can add categories, rename or recolour
//! them, and put its own rules in front. Rules are tried in order and the
//! first match wins; a function no rule matches is in `other`.
//!
//! ```
//! use category_rules::{FunctionRef, RuleTable};
//!
//! let table = RuleTable::builtin();
//! let function = FunctionRef {
//!     name: "mlir::Lexer::lexToken()",
//!     dso: "libIREECompiler.so",
//!     kernel: false,
//! };
//! assert_eq!(table.category(table.classify(function)).id, "lexer");
//! ```

mod error;
mod file;
mod pattern;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use xxhash_rust::xxh3::xxh3_64;

pub use error::RulesError;
pub use pattern::{NamePattern, PatternCache, PatternError};

/// The built-in rule table, as written in `rules.toml`.
pub const BUILTIN_RULES: &str = include_str!("rules.toml");

/// The id every unmatched function gets.
pub const OTHER: &str = "other";

/// The id of the containers' category (`SmallVector`, `DenseMap`,
/// `std::vector`…): in an allocation profile, caller attribution charges
/// what they ask for to the code that owns them.
pub const CONTAINERS: &str = "adt";

/// The id of the category of the recording's own instrumentation (the
/// action profiler, the IR printer, the heap sampler): found by a frame
/// anywhere on a sample's stack, not by a rule on its leaf.
pub const INSTRUMENTATION: &str = "instrumentation";

/// Index of a category in a [`RuleTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CategoryId(u16);

impl CategoryId {
    /// The id of the category at `index` of its table.
    #[inline]
    pub fn new(index: usize) -> CategoryId {
        CategoryId(index as u16)
    }

    /// The position in its table.
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// One category: what reports call it and how they colour it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Category {
    /// Short stable id, such as `apfloat`.
    pub id: String,
    /// Display name, such as `APFloat/APInt`.
    pub name: String,
    /// `#rrggbb`.
    pub color: String,
    /// One line on what it covers.
    pub description: String,
    /// Library work (allocation, memcpy, hashing, the kernel…) that
    /// `--attribution caller` charges to the compiler code calling it.
    pub generic: bool,
}

/// Which side of the kernel boundary a rule applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    /// The kernel's code (`[kernel.kallsyms]`, modules).
    Kernel,
    /// Programs and their libraries.
    User,
}

/// One rule: a function whose name (and binary, and side) match is in `category`.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The category of what the rule matches.
    pub category: CategoryId,
    /// Regex on the demangled function name; `None` matches every name.
    pub symbol: Option<NamePattern>,
    /// Regex on the binary's file name; `None` matches every binary.
    pub dso: Option<NamePattern>,
    /// Kernel or user code only; `None` matches both.
    pub space: Option<Space>,
    /// Real function names (from real recordings) the rule is meant for.
    pub examples: Vec<String>,
    /// Where the rule was written, for `compile-perf rules` and errors.
    pub origin: String,
}

/// A function to classify.
#[derive(Clone, Copy, Debug)]
pub struct FunctionRef<'a> {
    /// The demangled function name.
    pub name: &'a str,
    /// The binary's file name (`libIREECompiler.so`, `[kernel.kallsyms]`).
    pub dso: &'a str,
    /// True for kernel code.
    pub kernel: bool,
}

/// The ordered rules and the categories they name.
#[derive(Clone, Debug)]
pub struct RuleTable {
    /// Every category, `other` among them.
    pub categories: Vec<Category>,
    /// The rules, in the order they are tried.
    pub rules: Vec<Rule>,
    other: CategoryId,
    /// A hash of the rule text the table was made from (the built-in
    /// table's, then a user file's): the key of the cached categories.
    fingerprint: u64,
}

impl RuleTable {
    /// The built-in table. It is parsed and its patterns compiled once per
    /// process; later calls (each `with_user_rules`) get a copy.
    pub fn builtin() -> RuleTable {
        static BUILTIN: OnceLock<RuleTable> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                let mut table =
                    file::parse_table(BUILTIN_RULES, "built-in rules.toml", None, |pattern| {
                        Ok(NamePattern::known_good(pattern))
                    })
                    .expect("the built-in rules.toml is valid; a unit test parses it");
                table.fingerprint = xxh3_64(BUILTIN_RULES.as_bytes());
                table
            })
            .clone()
    }

    /// The built-in table extended by a user file's text.
    pub fn with_user_rules(text: &str, origin: &str) -> Result<RuleTable, RulesError> {
        let builtin = RuleTable::builtin();
        let mut hashed = builtin.fingerprint.to_le_bytes().to_vec();
        hashed.extend_from_slice(text.as_bytes());
        let mut table = file::parse_table(text, origin, Some(builtin), NamePattern::new)?;
        table.fingerprint = xxh3_64(&hashed);
        Ok(table)
    }

    /// A hash of the rule text this table was made from.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Compiles the patterns left for their first match (the built-in
    /// ones), so that matching names does not wait for them.
    pub fn compile_patterns(&self) {
        for rule in &self.rules {
            for pattern in rule.symbol.iter().chain(&rule.dso) {
                pattern.compile_now();
            }
        }
    }

    fn new(categories: Vec<Category>, rules: Vec<Rule>) -> RuleTable {
        let other = categories
            .iter()
            .position(|category| category.id == OTHER)
            .expect("tables always define `other`");
        RuleTable {
            categories,
            rules,
            other: CategoryId::new(other),
            fingerprint: 0,
        }
    }

    /// The category with this id.
    pub fn category(&self, id: CategoryId) -> &Category {
        &self.categories[id.index()]
    }

    /// The category with this id string.
    /// The category with this id (`rewrite`) or name (`Pattern rewriting`),
    /// either in any case.
    pub fn find(&self, id_or_name: &str) -> Option<CategoryId> {
        self.categories
            .iter()
            .position(|category| {
                category.id.eq_ignore_ascii_case(id_or_name)
                    || category.name.eq_ignore_ascii_case(id_or_name)
            })
            .map(CategoryId::new)
    }

    /// Every category id and name, for a "did you mean" of one not found.
    pub fn ids_and_names(&self) -> impl Iterator<Item = &str> {
        self.categories
            .iter()
            .flat_map(|category| [category.id.as_str(), category.name.as_str()])
    }

    /// The category of functions no rule matches.
    pub fn other(&self) -> CategoryId {
        self.other
    }

    /// The index of the first rule matching `function`. Rules are tried one
    /// by one: most patterns are anchored and reject a name at once, which
    /// beats an overlapping search of all patterns together.
    pub fn first_match(&self, function: FunctionRef<'_>) -> Option<usize> {
        self.rules.iter().position(|rule| rule.matches(function))
    }

    /// The category of `function`: the first matching rule's, else `other`.
    pub fn classify(&self, function: FunctionRef<'_>) -> CategoryId {
        self.first_match(function)
            .map_or(self.other, |index| self.rules[index].category)
    }

    /// The category of each of `functions`, the same as [`classify`](Self::classify)
    /// gives one by one, on all of rayon's threads. Each thread takes the
    /// next rule in order and runs it over every name no earlier rule has
    /// matched yet: a rule's automaton is built once, by one thread, and
    /// stays in its CPU's cache over the names; the threads work on
    /// neighbouring rules, so few names are tried against a rule after an
    /// earlier one matched them. Each name ends with its earliest matching
    /// rule, whichever thread found it and when. A rule that no name still
    /// needs is skipped before its automaton is built: with no names (every
    /// one's category cached) none is built.
    pub fn classify_all(&self, functions: &[FunctionRef<'_>]) -> Vec<CategoryId> {
        let earliest: Vec<AtomicUsize> = (functions.iter())
            .map(|_| AtomicUsize::new(usize::MAX))
            .collect();
        let next_rule = AtomicUsize::new(0);
        rayon::broadcast(|_| {
            loop {
                let index = next_rule.fetch_add(1, Ordering::Relaxed);
                let Some(rule) = self.rules.get(index) else {
                    break;
                };
                // A name's earliest rule only moves earlier, so one matched
                // before this rule needs no more of them.
                if !(earliest.iter()).any(|earliest| earliest.load(Ordering::Relaxed) > index) {
                    continue;
                }
                let mut caches = rule.caches();
                for (function, earliest) in functions.iter().zip(&earliest) {
                    if earliest.load(Ordering::Relaxed) > index
                        && rule.matches_with(&mut caches, *function)
                    {
                        earliest.fetch_min(index, Ordering::Relaxed);
                    }
                }
            }
        });
        (earliest.iter())
            .map(|earliest| {
                (self.rules.get(earliest.load(Ordering::Relaxed)))
                    .map_or(self.other, |rule| rule.category)
            })
            .collect()
    }

    /// What is wrong with `example` (a `"DSO FUNCTION"` example of `rule`):
    /// `rule` does not match it, or the table puts it in another category.
    /// `None` when the table puts it in `rule`'s category.
    fn misplaced_example(&self, rule: &Rule, example: &str) -> Option<String> {
        let function = example_function(example);
        if !rule.matches(function) {
            return Some(format!("the rule does not match its example {example:?}"));
        }
        let category = self.classify(function);
        (category != rule.category).then(|| {
            format!(
                "example {example:?} is put in category {:?} by {}, not in the rule's {:?}",
                self.category(category).id,
                self.first_match(function)
                    .map_or("no rule", |first| self.rules[first].origin.as_str()),
                self.category(rule.category).id,
            )
        })
    }
}

/// The function an example names: `"DSO FUNCTION"` (the binary's file name,
/// a space, the demangled name); `[kernel.kallsyms]` is the kernel.
fn example_function(example: &str) -> FunctionRef<'_> {
    let (dso, name) = example.split_once(' ').unwrap_or(("", example));
    FunctionRef {
        name,
        dso,
        kernel: dso == "[kernel.kallsyms]",
    }
}

impl Rule {
    /// True when the name, the binary and the side match.
    pub fn matches(&self, function: FunctionRef<'_>) -> bool {
        self.matches_with(&mut self.caches(), function)
    }

    /// The caches of the rule's patterns, for [`matches_with`](Self::matches_with).
    fn caches(&self) -> RuleCaches {
        RuleCaches {
            symbol: self.symbol.as_ref().map(NamePattern::cache),
            dso: self.dso.as_ref().map(NamePattern::cache),
        }
    }

    /// [`matches`](Self::matches), with the rule's caches kept over many functions.
    fn matches_with(&self, caches: &mut RuleCaches, function: FunctionRef<'_>) -> bool {
        self.accepts(&mut caches.dso, function)
            && (self.symbol.as_ref().zip(caches.symbol.as_mut()))
                .is_none_or(|(symbol, cache)| symbol.is_match_with(cache, function.name.as_bytes()))
    }

    /// True when the binary and side match.
    fn accepts(&self, cache: &mut Option<PatternCache>, function: FunctionRef<'_>) -> bool {
        let dso_matches = (self.dso.as_ref().zip(cache.as_mut()))
            .is_none_or(|(dso, cache)| dso.is_match_with(cache, function.dso.as_bytes()));
        let space_matches = match self.space {
            None => true,
            Some(Space::Kernel) => function.kernel,
            Some(Space::User) => !function.kernel,
        };
        dso_matches && space_matches
    }
}

/// The lazy DFA states of a rule's patterns.
struct RuleCaches {
    symbol: Option<PatternCache>,
    dso: Option<PatternCache>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_table_parses_and_has_the_required_categories() {
        let table = RuleTable::builtin();
        for id in [
            "lexer",
            "parser",
            "apfloat",
            "bufferization",
            "folding",
            OTHER,
        ] {
            assert!(table.find(id).is_some(), "missing category {id}");
        }
    }

    /// A batch is classified as its functions are one by one: the rules'
    /// examples, and names no rule matches.
    #[test]
    fn a_batch_is_classified_as_each_function_alone() {
        let table = RuleTable::builtin();
        let mut examples: Vec<&str> = (table.rules.iter())
            .flat_map(|rule| rule.examples.iter().map(String::as_str))
            .collect();
        examples.extend([
            "libfoo.so no_rule_matches_this",
            "[kernel.kallsyms] schedule",
        ]);
        let functions: Vec<FunctionRef<'_>> = examples
            .iter()
            .map(|example| example_function(example))
            .collect();
        let one_by_one: Vec<CategoryId> = functions
            .iter()
            .map(|&function| table.classify(function))
            .collect();
        assert_eq!(table.classify_all(&functions), one_by_one);
        assert!(one_by_one.contains(&table.other()));
        assert!(table.classify_all(&[]).is_empty());
    }

    /// A report whose names' categories are all cached classifies none, and
    /// builds no automaton for them.
    #[test]
    fn no_names_build_no_automaton() {
        let table = file::parse_table(BUILTIN_RULES, "built-in rules.toml", None, |pattern| {
            Ok(NamePattern::known_good(pattern))
        })
        .expect("the built-in table parses");
        assert!(table.classify_all(&[]).is_empty());
        let patterns = || (table.rules.iter()).flat_map(|rule| rule.symbol.iter().chain(&rule.dso));
        assert!(patterns().count() > 10);
        assert!(patterns().all(|pattern| !pattern.is_compiled()));
        table.classify_all(&[example_function("libfoo.so no_rule_matches_this")]);
        assert!(
            patterns().all(NamePattern::is_compiled),
            "a name no rule matches tries them all"
        );
    }

    /// Every built-in rule fires on the real function names written beside it,
    /// and the whole table (first match wins) puts them in its category.
    #[test]
    fn every_builtin_rule_fires_on_its_real_examples() {
        let table = RuleTable::builtin();
        for rule in &table.rules {
            assert!(!rule.examples.is_empty(), "{} has no example", rule.origin);
            for example in &rule.examples {
                if let Some(problem) = table.misplaced_example(rule, example) {
                    panic!("{}: {problem}", rule.origin);
                }
            }
        }
    }
}
