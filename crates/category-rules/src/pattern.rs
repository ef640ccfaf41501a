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
//! The built-in table's patterns compile when first matched: with the
//! categories of every name cached, a report matches none, and compiling the
//! table's hundreds of patterns was a tenth of such a report's time. Where
//! no categories are cached, they compile while the recording is read
//! ([`crate::RuleTable::compile_patterns`]).

use std::sync::OnceLock;

use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::ast::{self, Ast};

/// A name pattern, compiled.
#[derive(Clone, Debug)]
pub struct NamePattern {
    /// The pattern as written.
    source: String,
    /// Compiled now, or when first matched (a built-in pattern).
    compiled: OnceLock<Compiled>,
}

/// A pattern's `^`-anchored top-level branches, and the others; either may
/// be absent, never both.
#[derive(Clone, Debug)]
struct Compiled {
    anchored: Option<Regex>,
    floating: Option<Regex>,
}

impl NamePattern {
    /// Compiles `pattern`, so that an error is reported now.
    pub fn new(pattern: &str) -> Result<NamePattern, regex::Error> {
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

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True when the pattern matches `name`.
    pub fn is_match(&self, name: &[u8]) -> bool {
        let compiled = self.compiled();
        compiled
            .anchored
            .as_ref()
            .is_some_and(|regex| regex.is_match(name))
            || compiled
                .floating
                .as_ref()
                .is_some_and(|regex| regex.is_match(name))
    }
}

impl Compiled {
    /// Function names are ASCII: byte-level classes (`\w`, `.`) compile to
    /// automata a hundred times smaller than Unicode ones.
    fn new(pattern: &str) -> Result<Compiled, regex::Error> {
        let compile = |pattern: &str| RegexBuilder::new(pattern).unicode(false).build();
        let split = top_level_branches(pattern).filter(|branches| {
            let anchored = branches.iter().filter(|branch| branch.anchored).count();
            anchored > 0 && anchored < branches.len()
        });
        let Some(branches) = split else {
            let whole = compile(pattern)?;
            let anchored = whole.as_str().starts_with('^');
            return Ok(Compiled {
                anchored: anchored.then(|| whole.clone()),
                floating: (!anchored).then_some(whole),
            });
        };
        let join = |anchored: bool| {
            branches
                .iter()
                .filter(|branch| branch.anchored == anchored)
                .map(|branch| format!("(?:{})", branch.text))
                .collect::<Vec<_>>()
                .join("|")
        };
        Ok(Compiled {
            anchored: Some(compile(&join(true))?),
            floating: Some(compile(&join(false))?),
        })
    }
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

    fn parts(pattern: &NamePattern) -> (Option<&str>, Option<&str>) {
        let compiled = pattern.compiled();
        (
            compiled.anchored.as_ref().map(Regex::as_str),
            compiled.floating.as_ref().map(Regex::as_str),
        )
    }

    #[test]
    fn mixed_alternations_split_and_others_do_not() {
        let mixed = NamePattern::new(r"(^mlir::(Lexer|Token)::|GetOrCreateOffsetCache)").unwrap();
        assert_eq!(
            parts(&mixed),
            (
                Some(r"(?:^mlir::(Lexer|Token)::)"),
                Some("(?:GetOrCreateOffsetCache)")
            )
        );
        let anchored = NamePattern::new(r"^malloc$|^free$").unwrap();
        assert_eq!(parts(&anchored), (Some(r"^malloc$|^free$"), None));
        let flags = NamePattern::new(r"(?i)^foo|bar").unwrap();
        assert_eq!(parts(&flags), (None, Some(r"(?i)^foo|bar")));
        let group_flags = NamePattern::new(r"(?i:^foo|bar)").unwrap();
        assert_eq!(parts(&group_flags), (None, Some(r"(?i:^foo|bar)")));
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
            assert!(
                split.compiled().anchored.is_some() && split.compiled().floating.is_some(),
                "{pattern}"
            );
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
    }
}
