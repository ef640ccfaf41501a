//! The table writer's tests: every format, fitting and splitting.
use super::*;

fn sample() -> Table {
    Table {
        columns: vec![Column::left("category"), Column::right("self%")],
        rows: vec![
            vec![
                Cell {
                    text: "Lexer".to_owned(),
                    color: Some("#1f77b4".to_owned()),
                    ink: None,
                },
                Cell {
                    text: "12.5%".to_owned(),
                    color: None,
                    ink: Some(Ink::Red),
                },
            ],
            vec!["a|b, \"c\"".to_owned().into(), "1.0%".to_owned().into()],
            vec!["f<int>_*".to_owned().into(), "0.5%".to_owned().into()],
        ],
    }
}

fn render(format: TextFormat, colors: Colors) -> String {
    let mut out = Vec::new();
    write_table(&sample(), format, colors, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn every_format_renders_the_same_rows() {
    assert_eq!(
        render(TextFormat::Table, Colors::Plain),
        "category  self%\n■ Lexer   12.5%\na|b, \"c\"   1.0%\nf<int>_*   0.5%\n"
    );
    let coloured = render(TextFormat::Table, Colors::Ansi);
    assert!(coloured.contains("\x1b[38;2;31;119;180m■\x1b[0m Lexer"));
    assert!(coloured.contains("\x1b[31m12.5%\x1b[0m\n"), "{coloured:?}");
    assert_eq!(
        render(TextFormat::Markdown, Colors::Plain),
        "| category | self% |\n|---|---:|\n| Lexer | 12.5% |\n| a\\|b, \"c\" | 1.0% |\n| f&lt;int&gt;\\_\\* | 0.5% |\n"
    );
    assert_eq!(
        render(TextFormat::Csv, Colors::Plain),
        "category,self%\nLexer,12.5%\n\"a|b, \"\"c\"\"\",1.0%\nf<int>_*,0.5%\n"
    );
}

#[test]
fn a_wide_table_is_fitted_by_cutting_its_widest_text_columns() {
    let long = "mlir::detail::OpToOpPassAdaptor::runOnOperationAsyncImpl(bool)::$_0";
    let table = Table {
        columns: vec![
            Column::left("symbol"),
            Column::right("samples"),
            Column::left("top passes"),
        ],
        rows: vec![vec![
            long.to_owned().into(),
            "1234".to_owned().into(),
            "CanonicalizerPass (1000), CSE (234)".to_owned().into(),
        ]],
    };
    let render = |max| {
        let mut out = Vec::new();
        write_aligned(&table, Colors::Plain, max, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    let whole = render(None);
    assert!(whole.contains(long), "{whole}");
    let fitted = render(Some(80));
    for line in fitted.lines() {
        assert!(line.chars().count() <= 80, "{line:?} is wider than 80");
    }
    // The widest text column is cut first, down to the name column's floor.
    assert!(fitted.contains(&format!("{}…  ", &long[..39])), "{fitted}");
    assert!(
        fitted.contains("  CanonicalizerPass (1000), CS…"),
        "{fitted}"
    );
    // Numbers are never cut; text stops at its narrowest.
    let narrowest = render(Some(10));
    assert!(narrowest.contains("1234"), "{narrowest}");
    assert!(narrowest.contains("CanonicalizerPa…"), "{narrowest}");
}

#[test]
fn a_table_of_too_many_numbers_is_split_each_part_with_the_names() {
    let mut columns = vec![Column::left("pass")];
    let headers = [
        "self", "self%", "incl%", "credited", "runs", "timer s", "CPU s", "max MiB",
    ];
    columns.extend(headers.iter().map(|header| Column::right(header)));
    let row: Vec<Cell> = std::iter::once("JitGlobalsPass > ApplyPatternsPass".to_owned())
        .chain(
            headers
                .iter()
                .map(|header| format!("{:>w$}", 7, w = header.len())),
        )
        .map(Cell::from)
        .collect();
    let table = Table {
        columns,
        rows: vec![row],
    };
    let mut out = Vec::new();
    write_aligned(&table, Colors::Plain, Some(60), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let parts: Vec<&str> = text.split("\n\n").collect();
    assert!(parts.len() >= 2, "{text}");
    for part in &parts {
        assert!(part.starts_with("pass "), "{part}");
        assert!(
            part.contains("JitGlobalsPass > ApplyPatternsPass"),
            "{part}"
        );
    }
    assert!(
        text.lines().all(|line| line.chars().count() <= 60),
        "{text}"
    );
    for header in headers {
        let once = text.matches(&format!(" {header}  ")).count()
            + text.matches(&format!(" {header}\n")).count();
        assert_eq!(once, 1, "{header}: {text}");
    }
}
