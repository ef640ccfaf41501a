//! A rule's pattern on function names, compiled to run fast on long C++
//! names.
//!
//! Many rules are alternations whose branches mix `^`-anchored ones
//! (`^(\w[\w:]* )?mlir::Operation::`) with floating ones (`FoldConstant`).
//! As one regex, a single floating branch makes the engine search the whole
//! name from every position for the anchored branches too. Split in two, the
//! anchored branches stop at the first byte that cannot match, and the
//! floating ones alone can use the engine's literal prefilter. A name matches
//! the pattern exactly when it matches either part.
//!
//! Each part is a lazy DFA of regex-automata, searched for the earliest
//! match only (whether a name matches, not where), the anchored part from
//! the name's first byte only, the floating part with its literal prefix as
//! a prefilter. Its states live in a [`PatternCache`] that the caller keeps
//! over a batch of names, one per thread. That costs a third of compiling
//! the same patterns as `regex::Regex`es, which also build the reverse
//! automata and the other engines a search for where a match is needs.
//!
//! The built-in table's patterns compile when first matched: with the
//! categories of every name cached, a report matches none, and compiling the
//! table's hundreds of patterns was a tenth of such a report's time. Where
//! no categories are cached, they compile while the recording is read
//! ([`crate::RuleTable::compile_patterns`]).

use std::sync::OnceLock;

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::prefilter::Prefilter;
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::ast::{self, Ast};
use regex_syntax::hir::Look;

/// The largest automaton a pattern may compile to: `regex`'s default, so
/// that a runaway pattern in a user's file is an error, not a stall.
const NFA_SIZE_LIMIT: usize = 10 << 20;

/// A name pattern, compiled.
#[derive(Clone, Debug)]
pub struct NamePattern {
    /// The pattern as written.
    source: String,
    /// Compiled now, or when first matched (a built-in pattern).
    compiled: OnceLock<Compiled>,
}

/// A pattern as one part, or as two: its `^`-anchored top-level branches,
/// then the others (see [`part_sources`]).
#[derive(Clone, Debug)]
struct Compiled {
    parts: Vec<Part>,
}

/// Branches of a pattern as one automaton.
#[derive(Clone, Debug)]
struct Part {
    dfa: DFA,
    /// Every match starts at the name's first byte (`^`): the search
    /// starts there only, and stops at the first byte that cannot match.
    anchored: bool,
}

/// The lazy DFA states of one pattern, built as names are matched: keep one
/// per pattern and thread over many names.
#[derive(Clone, Debug)]
pub struct PatternCache {
    /// One per part, in the same order.
    parts: Vec<Cache>,
}

/// A pattern that does not compile: its syntax, or an automaton too large.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PatternError(String);

impl NamePattern {
    /// Compiles `pattern`, so that an error is reported now.
    pub fn new(pattern: &str) -> Result<NamePattern, PatternError> {
        Ok(NamePattern {
            source: pattern.to_owned(),
            compiled: OnceLock::from(Compiled::new(pattern)?),
        })
    }

    /// A pattern known to compile (the built-in table's: a unit test
    /// compiles and runs every one), compiled when first matched.
    pub fn known_good(pattern: &str) -> NamePattern {
        NamePattern {
            source: pattern.to_owned(),
            compiled: OnceLock::new(),
        }
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            Compiled::new(&self.source).expect("a pattern made by known_good compiles")
        })
    }

    /// Compiles the pattern now if it was left for its first match.
    pub fn compile_now(&self) {
        self.compiled();
    }

    /// Whether the pattern has been compiled.
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// A cache for matching names with this pattern.
    pub fn cache(&self) -> PatternCache {
        PatternCache {
            parts: (self.compiled().parts.iter())
                .map(|part| part.dfa.create_cache())
                .collect(),
        }
    }

    /// True when the pattern matches `name`. For one name; many are
    /// matched faster with [`is_match_with`](Self::is_match_with).
    pub fn is_match(&self, name: &[u8]) -> bool {
        self.is_match_with(&mut self.cache(), name)
    }

    /// True when the pattern matches `name`; `cache` is one this pattern
    /// made.
    pub fn is_match_with(&self, cache: &mut PatternCache, name: &[u8]) -> bool {
        (self.compiled().parts.iter())
            .zip(&mut cache.parts)
            .any(|(part, cache)| part.matches(cache, name))
    }
}

impl Part {
    /// Function names are ASCII: byte-level classes (`\w`, `.`) compile to
    /// automata a hundred times smaller than Unicode ones. A part not
    /// anchored gets its literal prefixes, if it has any, as a prefilter.
    fn new(source: &str) -> Result<Part, PatternError> {
        let error = |error: &dyn std::fmt::Display| PatternError(error.to_string());
        let hir = (regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false))
        .build()
        .parse(source)
        .map_err(|e| error(&e))?;
        let anchored = hir.properties().look_set_prefix().contains(Look::Start);
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
            )
            .build_from_hir(&hir)
            .map_err(|e| error(&e))?;
        let prefilter = if anchored {
            None
        } else {
            Prefilter::from_hir_prefix(MatchKind::LeftmostFirst, &hir)
        };
        let dfa = DFA::builder()
            .configure(DFA::config().prefilter(prefilter))
            .build_from_nfa(nfa)
            .map_err(|e| error(&e))?;
        Ok(Part { dfa, anchored })
    }

    /// True when the part matches `name`.
    fn matches(&self, cache: &mut Cache, name: &[u8]) -> bool {
        let anchored = if self.anchored {
            Anchored::Yes
        } else {
            Anchored::No
        };
        let input = Input::new(name).anchored(anchored).earliest(true);
        // A lazy DFA gives up only on a quit byte (none is set), or when its
        // cache is cleared too often (not set either): then the name is
        // taken as not matching, as no other engine is at hand.
        matches!(self.dfa.try_search_fwd(cache, &input), Ok(Some(_)))
    }
}

impl Compiled {
    fn new(pattern: &str) -> Result<Compiled, PatternError> {
        let parts = (part_sources(pattern).iter())
            .map(|source| Part::new(source))
            .collect::<Result<_, _>>()?;
        Ok(Compiled { parts })
    }
}

/// What to compile of `pattern`: the whole, or, when its top-level
/// alternation mixes `^`-anchored branches and others, the anchored ones
/// joined, then the others joined.
fn part_sources(pattern: &str) -> Vec<String> {
    let split = top_level_branches(pattern).filter(|branches| {
        let anchored = branches.iter().filter(|branch| branch.anchored).count();
        anchored > 0 && anchored < branches.len()
    });
    let Some(branches) = split else {
        return vec![pattern.to_owned()];
    };
    let join = |anchored: bool| {
        branches
            .iter()
            .filter(|branch| branch.anchored == anchored)
            .map(|branch| format!("(?:{})", branch.text))
            .collect::<Vec<_>>()
            .join("|")
    };
    vec![join(true), join(false)]
}

/// One branch of a pattern's top-level alternation.
struct Branch<'a> {
    text: &'a str,
    anchored: bool,
}

/// The branches of `pattern`'s top-level alternation (looking through
/// groups around the whole of it), or `None` when splitting could change
/// what it matches: a syntax error (compiling the whole reports it), or
/// flags, which reach across branches.
fn top_level_branches(pattern: &str) -> Option<Vec<Branch<'_>>> {
    let parsed = ast::parse::Parser::new().parse(pattern).ok()?;
    let mut top = &parsed;
    while let Ast::Group(group) = top {
        if let ast::GroupKind::NonCapturing(flags) = &group.kind
            && !flags.items.is_empty()
        {
            return None;
        }
        top = &group.ast;
    }
    let Ast::Alternation(alternation) = top else {
        return None;
    };
    alternation
        .asts
        .iter()
        .map(|branch| {
            let items = match branch {
                Ast::Concat(concat) => concat.asts.as_slice(),
                single => std::slice::from_ref(single),
            };
            if items.iter().any(|item| matches!(item, Ast::Flags(_))) {
                return None;
            }
            let anchored = matches!(
                items.first(),
                Some(Ast::Assertion(assertion)) if assertion.kind == ast::AssertionKind::StartText
                    || assertion.kind == ast::AssertionKind::StartLine
            );
            let span = branch.span();
            Some(Branch {
                text: &pattern[span.start.offset..span.end.offset],
                anchored,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::bytes::RegexBuilder;

    /// Each part's text, and whether it is searched from the first byte only.
    fn parts(pattern: &NamePattern) -> Vec<(String, bool)> {
        let sources = part_sources(pattern.as_str());
        let compiled = pattern.compiled();
        sources
            .into_iter()
            .zip(compiled.parts.iter().map(|part| part.anchored))
            .collect()
    }

    fn part(source: &str, anchored: bool) -> (String, bool) {
        (source.to_owned(), anchored)
    }

    #[test]
    fn mixed_alternations_split_and_others_do_not() {
        let mixed = NamePattern::new(r"(^mlir::(Lexer|Token)::|GetOrCreateOffsetCache)").unwrap();
        assert_eq!(
            parts(&mixed),
            [
                part(r"(?:^mlir::(Lexer|Token)::)", true),
                part("(?:GetOrCreateOffsetCache)", false)
            ]
        );
        let anchored = NamePattern::new(r"^malloc$|^free$").unwrap();
        assert_eq!(parts(&anchored), [part(r"^malloc$|^free$", true)]);
        let flags = NamePattern::new(r"(?i)^foo|bar").unwrap();
        assert_eq!(parts(&flags), [part(r"(?i)^foo|bar", false)]);
        let group_flags = NamePattern::new(r"(?i:^foo|bar)").unwrap();
        assert_eq!(parts(&group_flags), [part(r"(?i:^foo|bar)", false)]);
        // Not split, and not every branch anchored: searched from anywhere.
        let flagged_branch = NamePattern::new(r"^foo|(?i)bar").unwrap();
        assert_eq!(parts(&flagged_branch), [part(r"^foo|(?i)bar", false)]);
        assert!(flagged_branch.is_match(b"x::BAR()"));
        assert!(!flagged_branch.is_match(b"x::foo()"));
        assert_eq!(
            mixed.as_str(),
            r"(^mlir::(Lexer|Token)::|GetOrCreateOffsetCache)"
        );
    }

    #[test]
    fn a_split_pattern_matches_what_the_whole_matches() {
        let patterns = [
            r"(^(\w[\w:]* )?mlir::(Operation::|Value::)|FoldConstant|\bmlir::detail::\w+Impl)",
            r"^mlir::(Lexer|Token)::|GetOrCreateOffsetCache|llvm::SourceMgr::(SrcBuffer::)?getLineNumber",
            r"::~\w*Pass\(\)$|^(\w[\w:<>]* )?mlir::Pass::",
        ];
        let names = [
            "mlir::Operation::getName()",
            "void mlir::Operation::walk<>(foo)",
            "x mlir::Value::getType() const",
            "foo(mlir::Operation::bar)",
            "(anonymous namespace)::FoldConstantBase<int>::fold()",
            "mlir::detail::OpResultImpl::getOwner()",
            "notmlir::detail::OpResultImpl::getOwner()",
            "mlir::Lexer::lexString(char const*)",
            " mlir::Lexer::lexString(char const*)",
            "std::vector<unsigned int>& GetOrCreateOffsetCache<unsigned int>(void*&)",
            "llvm::SourceMgr::SrcBuffer::getLineNumber<unsigned int>(char const*) const",
            "mlir::iree_compiler::FooPass::~FooPass()",
            "mlir::Pass::run()",
            "llvm::APInt::tcShiftLeft(unsigned long*, unsigned int, unsigned int)",
        ];
        for pattern in patterns {
            let whole = RegexBuilder::new(pattern).unicode(false).build().unwrap();
            let split = NamePattern::new(pattern).unwrap();
            assert_eq!(split.compiled().parts.len(), 2, "{pattern}");
            for name in names {
                assert_eq!(
                    split.is_match(name.as_bytes()),
                    whole.is_match(name.as_bytes()),
                    "{pattern} on {name}"
                );
            }
        }
    }

    /// Every built-in rule's pattern, split or not, against every rule's
    /// example names (each rule's own, and the others' as misses).
    #[test]
    fn built_in_patterns_match_as_written_on_every_example() {
        let table = crate::RuleTable::builtin();
        let names: Vec<&str> = table
            .rules
            .iter()
            .flat_map(|rule| &rule.examples)
            .map(|example| {
                example
                    .split_once(' ')
                    .map_or(example.as_str(), |(_, name)| name)
            })
            .collect();
        let every_pattern = table
            .rules
            .iter()
            .flat_map(|rule| [&rule.symbol, &rule.dso]);
        for pattern in every_pattern.flatten() {
            Compiled::new(pattern.as_str()).expect("every built-in pattern compiles");
        }
        for pattern in table.rules.iter().filter_map(|rule| rule.symbol.as_ref()) {
            let whole = RegexBuilder::new(pattern.as_str())
                .unicode(false)
                .build()
                .unwrap();
            for name in &names {
                assert_eq!(
                    pattern.is_match(name.as_bytes()),
                    whole.is_match(name.as_bytes()),
                    "{} on {name}",
                    pattern.as_str()
                );
            }
        }
    }

    #[test]
    fn bad_patterns_report_the_regex_error() {
        let error = NamePattern::new("(unclosed").unwrap_err();
        assert!(error.to_string().contains("unclosed group"), "{error}");
        let huge = NamePattern::new(r"(?:\w{1000}){1000}").unwrap_err();
        assert!(huge.to_string().contains("exceeded limit"), "{huge}");
    }
}
