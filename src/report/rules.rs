//! `compile-perf rules`: the effective category table, categories then rules
//! in the order they are tried.

use std::io::Write;

use super::table::{Cell, Colors, Column, Table, TextFormat, write_table};
use category_rules::{RuleTable, Space};

/// Writes the categories and the ordered rules of `table`.
pub(crate) fn write_rules(
    table: &RuleTable,
    format: TextFormat,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let categories = Table {
        columns: vec![
            Column::left("id"),
            Column::left("name"),
            Column::left("color"),
            Column::left("generic"),
            Column::left("description"),
        ],
        rows: table
            .categories
            .iter()
            .map(|category| {
                vec![
                    Cell {
                        text: category.id.clone(),
                        color: Some(category.color.clone()),
                        ink: None,
                    },
                    category.name.clone().into(),
                    category.color.clone().into(),
                    if category.generic { "yes" } else { "" }.to_owned().into(),
                    category.description.clone().into(),
                ]
            })
            .collect(),
    };
    let rules = Table {
        columns: vec![
            Column::right("#"),
            Column::left("category"),
            Column::left("symbol"),
            Column::left("dso"),
            Column::left("space"),
            Column::left("from"),
        ],
        rows: table
            .rules
            .iter()
            .enumerate()
            .map(|(index, rule)| {
                vec![
                    (index + 1).to_string().into(),
                    table.category(rule.category).id.clone().into(),
                    rule.symbol
                        .as_ref()
                        .map_or("", |regex| regex.as_str())
                        .to_owned()
                        .into(),
                    rule.dso
                        .as_ref()
                        .map_or("", |regex| regex.as_str())
                        .to_owned()
                        .into(),
                    match rule.space {
                        Some(Space::Kernel) => "kernel",
                        Some(Space::User) => "user",
                        None => "",
                    }
                    .to_owned()
                    .into(),
                    rule.origin.clone().into(),
                ]
            })
            .collect(),
    };
    writeln!(out, "Categories:")?;
    write_table(&categories, format, Colors::Plain, out)?;
    writeln!(
        out,
        "\nRules, first match wins (unmatched functions are in \"other\"):"
    )?;
    write_table(&rules, format, Colors::Plain, out)
}
