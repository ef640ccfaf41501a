//! The command line explains itself: every `-h` and `--help` fits in 100
//! columns, on a wide terminal and piped; each command's help shows its
//! headings and ends with examples; `completions` prints a script that names
//! every command; the man pages in `man/` are what the binary prints now.

mod common;

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

use common::{TempDir, bin, repo_root};

/// The widest line any help may have.
const MAX_WIDTH: usize = 100;

/// The headings each command's help groups its options under, besides
/// "Options" (and "Arguments"); every command ends with "Examples".
const HEADINGS: &[(&str, &[&str])] = &[
    (
        "record",
        &["Output", "perf", "Recording", "Store", "Categories"],
    ),
    ("report", &["Samples", "Reading", "Output", "Categories"]),
    (
        "flamegraph",
        &["Samples", "Reading", "Output", "Categories"],
    ),
    ("timeline", &["Samples", "Reading", "Output", "Categories"]),
    ("top", &["Samples", "Reading", "Output"]),
    ("collapse", &["Samples", "Reading", "Output"]),
    (
        "diff",
        &["Samples", "Reading", "Output", "CI gate", "Categories"],
    ),
    ("export", &["Samples", "Reading", "Output", "Categories"]),
    ("push", &["Samples", "Reading", "Output", "Categories"]),
    ("executables", &["Output", "perf", "Categories"]),
    ("history", &[]),
    ("rules", &["Categories", "Output"]),
    ("cache", &[]),
    ("completions", &[]),
    ("man", &[]),
];

/// How the terminal width is made known to the binary: by `COLUMNS` (stdout
/// is a pipe, so clap reads the variable), or not at all.
#[derive(Clone, Copy, Debug)]
enum Width {
    Columns200,
    Unknown,
}

/// `compile-perf ARGS` with stdout piped; its stdout. Panics unless it exits 0.
fn stdout_of(args: &[&str], width: Width) -> String {
    let mut command = Command::new(bin());
    command
        .args(args)
        .stdin(Stdio::null())
        .env_remove("CLICOLOR_FORCE");
    match width {
        Width::Columns200 => command.env("COLUMNS", "200"),
        Width::Unknown => command.env_remove("COLUMNS"),
    };
    let output = command.output().expect("compile-perf runs");
    assert!(
        output.status.success(),
        "compile-perf {} ({width:?}): {}\n{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the output is UTF-8")
}

/// The names a help's "Commands:" section lists, without `help`.
fn listed_commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.strip_prefix("  "))
        .filter(|line| !line.starts_with(' '))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The top-level commands `compile-perf --help` lists.
fn commands() -> Vec<String> {
    listed_commands(&stdout_of(&["--help"], Width::Unknown))
}

/// Every command's words: the top (none), each command, each command's own
/// commands (`cache info`), and the hidden `measure`.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = vec![vec![], vec!["measure".to_owned()]];
    for name in commands() {
        let help = stdout_of(&[&name, "--help"], Width::Unknown);
        for sub in listed_commands(&help) {
            paths.push(vec![name.clone(), sub]);
        }
        paths.push(vec![name]);
    }
    paths
}

#[test]
fn no_line_of_any_help_is_wider_than_100_columns() {
    let mut too_wide = Vec::new();
    let mut helps = 0;
    for path in command_paths() {
        for flag in ["-h", "--help"] {
            for width in [Width::Columns200, Width::Unknown] {
                let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
                args.push(flag);
                let help = stdout_of(&args, width);
                helps += 1;
                for line in help.lines() {
                    let columns = line.chars().count();
                    if columns > MAX_WIDTH {
                        too_wide.push(format!(
                            "compile-perf {} ({width:?}), {columns} columns: {line}",
                            args.join(" ")
                        ));
                    }
                }
            }
        }
    }
    assert!(helps >= 60, "{helps} helps read");
    assert!(too_wide.is_empty(), "{}", too_wide.join("\n"));
}

#[test]
fn help_wraps_to_100_columns_not_to_one_long_line() {
    // The flamegraph's --category help is several sentences long: wrapped,
    // its lines fill most of the 100 columns instead of running to 400.
    let help = stdout_of(&["flamegraph", "--help"], Width::Columns200);
    let widest = help.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!((80..=MAX_WIDTH).contains(&widest), "widest line: {widest}");
}

#[test]
fn every_command_shows_its_headings_and_examples() {
    let listed = commands();
    let known: Vec<String> = HEADINGS.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(
        listed, known,
        "each command's headings are in HEADINGS, in --help's order"
    );
    for (name, headings) in HEADINGS {
        for flag in ["-h", "--help"] {
            let help = stdout_of(&[name, flag], Width::Unknown);
            let shown: Vec<&str> = help
                .lines()
                .filter_map(|line| line.strip_suffix(':'))
                .filter(|line| !line.starts_with(' ') && !line.is_empty())
                .collect();
            for heading in headings.iter().chain(&["Options", "Examples"]) {
                assert!(
                    shown.contains(heading),
                    "`compile-perf {name} {flag}` shows the heading {heading:?}; it shows {shown:?}"
                );
            }
        }
    }
    let top = stdout_of(&["--help"], Width::Unknown);
    assert!(top.contains("\nExamples:\n"), "{top}");
}

#[test]
fn completions_of_bash_zsh_and_fish_name_every_command() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell], Width::Unknown);
        assert!(
            script.lines().count() > 20,
            "{shell}: a script, not {script:?}"
        );
        for command in &commands {
            assert!(
                script.contains(command.as_str()),
                "the {shell} script names `{command}`"
            );
        }
    }
    // bash itself reads the bash script without a syntax error.
    let dir = TempDir::new("cli-help-bash");
    let path = dir.join("compile-perf.bash");
    std::fs::write(&path, stdout_of(&["completions", "bash"], Width::Unknown)).unwrap();
    let status = Command::new("bash").arg("-n").arg(&path).status().unwrap();
    assert!(status.success(), "bash -n {}: {status}", path.display());
}

#[test]
fn the_committed_man_pages_are_what_the_binary_prints_now() {
    let fix = "run scripts/man.sh and commit man/";
    let man_dir = repo_root().join("man");
    let mut expected = vec![("compile-perf.1".to_owned(), vec!["man".to_owned()])];
    for command in commands() {
        expected.push((
            format!("compile-perf-{command}.1"),
            vec!["man".to_owned(), command],
        ));
    }
    let committed: BTreeSet<String> = std::fs::read_dir(&man_dir)
        .unwrap_or_else(|error| panic!("{}: {error}; {fix}", man_dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let wanted: BTreeSet<String> = expected.iter().map(|(file, _)| file.clone()).collect();
    assert_eq!(
        committed, wanted,
        "the pages in man/ are one per command; {fix}"
    );
    for (file, args) in &expected {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let printed = stdout_of(&args, Width::Unknown);
        let page = std::fs::read_to_string(man_dir.join(file)).unwrap();
        assert!(
            page == printed,
            "man/{file} is not what `compile-perf {}` prints now; {fix}",
            args.join(" ")
        );
        assert!(page.contains(".SH EXAMPLES"), "man/{file} has examples");
    }
}
