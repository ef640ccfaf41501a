//! Parses rule files (the built-in `rules.toml` and `--rules FILE.toml`) into
//! a [`RuleTable`], with errors that give the line and column.

use std::ops::Range;

use hashbrown::HashMap;

use super::{NamePattern, PatternError};
use serde::Deserialize;
use toml::Spanned;

use super::RulesError;
use super::{Category, OTHER, Rule, RuleTable, Space};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(default)]
    category: Vec<CategoryEntry>,
    #[serde(default)]
    rule: Vec<RuleEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CategoryEntry {
    id: Spanned<String>,
    name: Option<String>,
    color: Option<Spanned<String>>,
    description: Option<String>,
    generic: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    category: Spanned<String>,
    symbol: Option<Spanned<String>>,
    dso: Option<Spanned<String>>,
    space: Option<Space>,
    #[serde(default)]
    examples: Vec<Spanned<String>>,
}

/// Parses `text`. With `base`, the file extends it: categories with a known
/// id are updated, new ones are added before `other`, and the file's rules go
/// in front of the base's; each example of the file's rules must then be put
/// in its rule's category by the extended table.
///
/// Refused, at the line and column of the mistake: a category id that is
/// empty or defined twice in the file, a rule with nothing to match on (no
/// `symbol`, `dso` or `space`: it would take every sample), an unknown
/// category, a bad regex or colour. Patterns are made by `pattern`:
/// [`NamePattern::new`] checks them now, [`NamePattern::known_good`] (for
/// the built-in table) when first matched.
pub(super) fn parse_table(
    text: &str,
    origin: &str,
    base: Option<RuleTable>,
    pattern: fn(&str) -> Result<NamePattern, PatternError>,
) -> Result<RuleTable, RulesError> {
    let error_at = |span: Option<Range<usize>>, message: String| {
        let (line, column) = line_and_column(text, span.map_or(0, |span| span.start));
        RulesError {
            origin: origin.to_owned(),
            line,
            column,
            message,
        }
    };
    let file: RulesFile =
        toml::from_str(text).map_err(|error| error_at(error.span(), error.message().to_owned()))?;

    let extends_base = base.is_some();
    let (mut categories, base_rules) = match base {
        Some(table) => (table.categories, table.rules),
        None => (Vec::new(), Vec::new()),
    };
    // Line of each id this file defines, for a second definition's error.
    let mut defined_here: HashMap<String, usize> = HashMap::new();
    for entry in file.category {
        let id = entry.id.get_ref();
        if id.trim().is_empty() {
            return Err(error_at(
                Some(entry.id.span()),
                "a category id must not be empty".to_owned(),
            ));
        }
        let (line, _) = line_and_column(text, entry.id.span().start);
        if let Some(first) = defined_here.insert(id.clone(), line) {
            return Err(error_at(
                Some(entry.id.span()),
                format!("category {id:?} is already defined at line {first} of this file"),
            ));
        }
        let color = match &entry.color {
            Some(color) if !is_hex_color(color.get_ref()) => {
                return Err(error_at(
                    Some(color.span()),
                    format!("colour {:?} is not of the form #rrggbb", color.get_ref()),
                ));
            }
            Some(color) => Some(color.get_ref().to_lowercase()),
            None => None,
        };
        match categories
            .iter_mut()
            .find(|known| known.id == *entry.id.get_ref())
        {
            Some(known) => {
                known.name = entry.name.unwrap_or_else(|| known.name.clone());
                known.color = color.unwrap_or_else(|| known.color.clone());
                known.description = entry
                    .description
                    .unwrap_or_else(|| known.description.clone());
                known.generic = entry.generic.unwrap_or(known.generic);
            }
            None => {
                let Some(color) = color else {
                    return Err(error_at(
                        Some(entry.id.span()),
                        format!("new category {:?} needs a color", entry.id.get_ref()),
                    ));
                };
                let category = Category {
                    name: entry.name.unwrap_or_else(|| entry.id.get_ref().clone()),
                    id: entry.id.into_inner(),
                    color,
                    description: entry.description.unwrap_or_default(),
                    generic: entry.generic.unwrap_or(false),
                };
                // `other` stays last, where reports expect it.
                let at = categories
                    .iter()
                    .position(|known| known.id == OTHER)
                    .unwrap_or(categories.len());
                categories.insert(at, category);
            }
        }
    }
    if !categories.iter().any(|category| category.id == OTHER) {
        return Err(error_at(
            None,
            format!("the table must define the category {OTHER:?}"),
        ));
    }

    let mut rules = Vec::with_capacity(file.rule.len() + base_rules.len());
    let mut example_spans = Vec::with_capacity(file.rule.len());
    for (index, entry) in file.rule.into_iter().enumerate() {
        let category = categories
            .iter()
            .position(|known| known.id == *entry.category.get_ref())
            .ok_or_else(|| {
                error_at(
                    Some(entry.category.span()),
                    format!(
                        "rule names the unknown category {:?}",
                        entry.category.get_ref()
                    ),
                )
            })?;
        if entry.symbol.is_none() && entry.dso.is_none() && entry.space.is_none() {
            return Err(error_at(
                Some(entry.category.span()),
                "this rule has no `symbol`, `dso` or `space` to match on, so it would \
                 take every sample"
                    .to_owned(),
            ));
        }
        let compile =
            |written: &Option<Spanned<String>>| -> Result<Option<NamePattern>, RulesError> {
                written
                    .as_ref()
                    .map(|written| {
                        pattern(written.get_ref()).map_err(|error| {
                            error_at(Some(written.span()), format!("bad regex: {error}"))
                        })
                    })
                    .transpose()
            };
        let (line, _) = line_and_column(text, entry.category.span().start);
        example_spans.push(entry.examples.iter().map(Spanned::span).collect::<Vec<_>>());
        rules.push(Rule {
            category: super::CategoryId::new(category),
            symbol: compile(&entry.symbol)?,
            dso: compile(&entry.dso)?,
            space: entry.space,
            examples: entry
                .examples
                .into_iter()
                .map(Spanned::into_inner)
                .collect(),
            origin: format!("{origin} rule {} (line {line})", index + 1),
        });
    }
    rules.extend(base_rules);
    let table = RuleTable::new(categories, rules);
    if extends_base {
        for (rule, spans) in table.rules.iter().zip(example_spans) {
            for (example, span) in rule.examples.iter().zip(spans) {
                if let Some(problem) = table.misplaced_example(rule, example) {
                    return Err(error_at(Some(span), problem));
                }
            }
        }
    }
    Ok(table)
}

fn is_hex_color(text: &str) -> bool {
    text.len() == 7 && text.starts_with('#') && text[1..].chars().all(|c| c.is_ascii_hexdigit())
}

/// 1-based line and column of byte `offset` in `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |newline| newline + 1) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::super::{FunctionRef, RuleTable};

    fn function(name: &str) -> FunctionRef<'_> {
        FunctionRef {
            name,
            dso: "libIREECompiler.so",
            kernel: false,
        }
    }

    #[test]
    fn a_user_file_adds_renames_and_goes_first() {
        let user = r##"
[[category]]
id = "lexer"
name = "Tokenizer"

[[category]]
id = "my-pass"
name = "My pass"
color = "#123456"

[[rule]]
category = "my-pass"
symbol = "^mlir::Lexer::lexString"
"##;
        let table = RuleTable::with_user_rules(user, "mine.toml").unwrap();
        let lexer = table.find("lexer").unwrap();
        assert_eq!(table.category(lexer).name, "Tokenizer");
        let lex_string = function("mlir::Lexer::lexString(char const*)");
        assert_eq!(table.category(table.classify(lex_string)).id, "my-pass");
        assert_eq!(
            table
                .category(table.classify(function("mlir::Lexer::lexToken()")))
                .id,
            "lexer"
        );
        assert_eq!(table.categories.last().unwrap().id, "other");
    }

    #[test]
    fn errors_give_line_and_column() {
        let syntax = "[[rule]]\ncategory = \"lexer\"\nsymbol = \n";
        let error = RuleTable::with_user_rules(syntax, "bad.toml").unwrap_err();
        assert_eq!(
            (error.origin.as_str(), error.line),
            ("bad.toml", 3),
            "{error}"
        );

        let unknown = "[[rule]]\ncategory = \"nope\"\n";
        let error = RuleTable::with_user_rules(unknown, "bad.toml").unwrap_err();
        assert_eq!((error.line, error.column), (2, 12), "{error}");
        assert!(error.message.contains("unknown category"));

        let regex = "[[rule]]\ncategory = \"lexer\"\nsymbol = \"(unclosed\"\n";
        let error = RuleTable::with_user_rules(regex, "bad.toml").unwrap_err();
        assert_eq!(error.line, 3, "{error}");
        assert!(error.message.contains("bad regex"));
    }

    /// `(line, column, message)` of the error `text` gives as a user file.
    fn refusal(text: &str) -> (usize, usize, String) {
        let error =
            RuleTable::with_user_rules(text, "mine.toml").expect_err("the file must be refused");
        assert_eq!(error.origin, "mine.toml");
        (error.line, error.column, error.message)
    }

    #[test]
    fn a_category_defined_twice_in_one_file_is_refused() {
        let twice = "[[category]]\nid = \"mine\"\ncolor = \"#000000\"\n\n\
                     [[category]]\nid = \"mine\"\ncolor = \"#ffffff\"\n";
        let (line, column, message) = refusal(twice);
        assert_eq!((line, column), (6, 6), "{message}");
        assert!(
            message.contains("\"mine\" is already defined at line 2"),
            "{message}"
        );

        // A built-in id, renamed twice, is the same mistake.
        let renamed_twice = "[[category]]\nid = \"lexer\"\nname = \"A\"\n\
                             [[category]]\nid = \"lexer\"\nname = \"B\"\n";
        assert_eq!(refusal(renamed_twice).0, 5);
    }

    #[test]
    fn an_empty_category_id_is_refused() {
        for id in ["\"\"", "\"  \""] {
            let text = format!("[[category]]\nid = {id}\ncolor = \"#000000\"\n");
            let (line, column, message) = refusal(&text);
            assert_eq!((line, column), (2, 6), "{message}");
            assert!(message.contains("must not be empty"), "{message}");
        }
    }

    #[test]
    fn a_rule_with_nothing_to_match_on_is_refused() {
        let text = "[[rule]]\ncategory = \"lexer\"\nexamples = [\"x f\"]\n";
        let (line, column, message) = refusal(text);
        assert_eq!((line, column), (2, 12), "{message}");
        assert!(
            message.contains("no `symbol`, `dso` or `space`"),
            "{message}"
        );
        // A side alone is something to match on (the built-in kernel rule).
        let kernel = "[[rule]]\ncategory = \"kernel\"\nspace = \"kernel\"\n";
        assert!(RuleTable::with_user_rules(kernel, "mine.toml").is_ok());
    }

    #[test]
    fn a_user_rule_whose_example_lands_elsewhere_is_refused() {
        // The rule does not match its own example.
        let unmatched = "[[rule]]\ncategory = \"lexer\"\nsymbol = '^mlir::Lexer::'\n\
                         examples = [\"libIREECompiler.so mlir::Token::getKind()\"]\n";
        let (line, column, message) = refusal(unmatched);
        assert_eq!((line, column), (4, 13), "{message}");
        assert!(
            message.contains("\"libIREECompiler.so mlir::Token::getKind()\""),
            "{message}"
        );

        // An earlier rule of the same file takes the example into another category.
        let shadowed = "[[rule]]\ncategory = \"parser\"\nsymbol = '^mlir::'\n\n\
                        [[rule]]\ncategory = \"lexer\"\nsymbol = '^mlir::Lexer::'\n\
                        examples = [\"libIREECompiler.so mlir::Lexer::lexToken()\", \
                                    \"libIREECompiler.so mlir::Lexer::lexString(char const*)\"]\n";
        let (line, _, message) = refusal(shadowed);
        assert_eq!(line, 8, "{message}");
        assert!(
            message.contains("\"libIREECompiler.so mlir::Lexer::lexToken()\" is put in category \"parser\" by mine.toml rule 1 (line 2)"),
            "{message}"
        );

        // Examples that land where their rule says are accepted.
        let good = "[[rule]]\ncategory = \"lexer\"\nsymbol = '^mlir::Lexer::'\n\
                    examples = [\"libIREECompiler.so mlir::Lexer::lexToken()\"]\n";
        assert!(RuleTable::with_user_rules(good, "mine.toml").is_ok());
    }
}
