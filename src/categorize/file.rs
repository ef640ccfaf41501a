//! Parses rule files (the built-in `rules.toml` and `--rules FILE.toml`) into
//! a [`RuleTable`], with errors that give the line and column.

use std::ops::Range;

use super::NamePattern;
use serde::Deserialize;
use toml::Spanned;

use super::{Category, OTHER, Rule, RuleTable, Space};

/// A rule file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{origin}:{line}:{column}: {message}")]
pub struct RulesError {
    pub origin: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

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
    examples: Vec<String>,
}

/// Parses `text`. With `base`, the file extends it: categories with a known
/// id are updated, new ones are added before `other`, and the file's rules go
/// in front of the base's.
pub fn parse_table(
    text: &str,
    origin: &str,
    base: Option<RuleTable>,
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

    let (mut categories, base_rules) = match base {
        Some(table) => (table.categories, table.rules),
        None => (Vec::new(), Vec::new()),
    };
    for entry in file.category {
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
        let compile =
            |pattern: &Option<Spanned<String>>| -> Result<Option<NamePattern>, RulesError> {
                pattern
                    .as_ref()
                    .map(|pattern| {
                        NamePattern::new(pattern.get_ref()).map_err(|error| {
                            error_at(Some(pattern.span()), format!("bad regex: {error}"))
                        })
                    })
                    .transpose()
            };
        let (line, _) = line_and_column(text, entry.category.span().start);
        rules.push(Rule {
            category: super::CategoryId(category as u16),
            symbol: compile(&entry.symbol)?,
            dso: compile(&entry.dso)?,
            space: entry.space,
            examples: entry.examples,
            origin: format!("{origin} rule {} (line {line})", index + 1),
        });
    }
    rules.extend(base_rules);
    Ok(RuleTable::new(categories, rules))
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
}
