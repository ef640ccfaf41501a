//! The command line: the list of commands ([`Command`]), each with the
//! `…Args` its file in `commands` parses and the examples its help ends
//! with, and their resolution into a [`Config`]: each command's
//! `into_config`. `--help`, the man pages (`man`) and the shell completions
//! (`completions`) are all made from this one definition, which is why
//! `man`'s own argument ([`man_arg`]) and the completions' definition come
//! from here.

mod examples;
mod man_arg;

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser, Subcommand};

use crate::commands::Config;
use crate::commands::cache::{self, CacheAction};
use crate::commands::collapse::{self, CollapseArgs};
use crate::commands::completions::{self, CompletionsArgs};
use crate::commands::diff::{self, DiffArgs};
use crate::commands::executables::{self, ExecutablesArgs};
use crate::commands::export::{self, ExportArgs};
use crate::commands::flamegraph::{self, FlamegraphArgs};
use crate::commands::history::{self, HistoryArgs};
use crate::commands::man;
use crate::commands::measure::MeasureArgs;
use crate::commands::push::{self, PushArgs};
use crate::commands::record::{self, RecordArgs};
use crate::commands::report::{self, ReportArgs};
use crate::commands::rules::{self, RulesArgs};
use crate::commands::timeline::{self, TimelineArgs};
use crate::commands::top::{self, TopArgs};

use examples::styled;
use man_arg::ManArgs;

/// The widest help: clap wraps `--help` at the terminal's width, but never
/// wider than this (and at this width when the output is not a terminal).
const MAX_HELP_WIDTH: usize = 100;

/// Profile iree-compile: read perf.data, unwind, symbolize, and tell which
/// part of the compiler the time went to.
#[derive(Debug, Parser)]
#[command(name = "compile-perf", version, about, max_term_width = MAX_HELP_WIDTH,
          after_help = styled(examples::TOP))]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    /// Parses `args` (the program's name first) as [`Parser::parse_from`]
    /// does, and exits the same way on a bad command line; `record` followed
    /// by a command without `--` gets a tip to put `--` before it.
    pub fn parse_with_tips(args: impl IntoIterator<Item = OsString>) -> Cli {
        let args: Vec<OsString> = args.into_iter().collect();
        Cli::try_parse_from(&args).unwrap_or_else(|mut error| {
            let record = args.get(1).is_some_and(|arg| arg == "record");
            if record && error.kind() == ErrorKind::UnknownArgument {
                error.insert(
                    ContextKind::Suggested,
                    ContextValue::StyledStrs(vec![
                        "put `--` before the command to record: compile-perf record [OPTIONS] -- COMMAND [ARGS]..."
                            .into(),
                    ]),
                );
            }
            error.exit()
        })
    }

    /// Resolves the parsed arguments into a [`Config`].
    pub fn into_config(self) -> Config {
        match self.command {
            Command::Record(args) => args.into_config(),
            Command::Report(args) => args.into_config(),
            Command::Flamegraph(args) => args.into_config(),
            Command::Timeline(args) => args.into_config(),
            Command::Top(args) => args.into_config(),
            Command::Collapse(args) => args.into_config(),
            Command::Diff(args) => args.into_config(),
            Command::Export(args) => args.into_config(),
            Command::Push(args) => args.into_config(),
            Command::Executables(args) => args.into_config(),
            Command::History(args) => args.into_config(),
            Command::Rules(args) => args.into_config(),
            Command::Cache(action) => action.into_config(),
            Command::Completions(args) => args.into_config(Cli::command()),
            Command::Man(args) => args.into_config(),
            Command::Measure(args) => args.into_config(),
        }
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Run a command (iree-compile) under perf, then write the report and flamegraphs.
    #[command(after_help = styled(record::EXAMPLES))]
    Record(RecordArgs),
    /// Where the samples went, by category (or symbol, binary, thread, process).
    #[command(after_help = styled(report::EXAMPLES))]
    Report(ReportArgs),
    /// Draw a flamegraph SVG coloured by category.
    #[command(after_help = styled(flamegraph::EXAMPLES))]
    Flamegraph(FlamegraphArgs),
    /// Draw category shares over the course of the compile, with its phases and busy threads.
    #[command(after_help = styled(timeline::EXAMPLES))]
    Timeline(TimelineArgs),
    /// List the functions with the most samples, self and inclusive.
    #[command(after_help = styled(top::EXAMPLES))]
    Top(TopArgs),
    /// Write folded stacks (`root;…;leaf count`) for inferno or FlameGraph.
    #[command(after_help = styled(collapse::EXAMPLES))]
    Collapse(CollapseArgs),
    /// Compare two compiles (or two sets of runs): how each category's share
    /// moved, and whether the move is beyond run-to-run noise.
    #[command(after_help = styled(diff::EXAMPLES))]
    Diff(DiffArgs),
    /// Write the profile for another tool: pprof, Firefox Profiler, speedscope,
    /// Chrome trace (pass spans) or folded stacks.
    #[command(after_help = styled(export::EXAMPLES))]
    Export(ExportArgs),
    /// Send the profile to a Grafana Pyroscope server (HTTP ingest API).
    #[command(after_help = styled(push::EXAMPLES))]
    Push(PushArgs),
    /// Compile each executable (dispatch) of a compile alone under perf, with
    /// a timeout, and rank them by compile time.
    #[command(after_help = styled(executables::EXAMPLES))]
    Executables(ExecutablesArgs),
    /// Keep runs in a store (SQLite, or PostgreSQL for a team), show their
    /// trends, and judge a run against them (`add`, `show`, `check`).
    #[command(after_help = styled(history::EXAMPLES))]
    History(HistoryArgs),
    /// Print the effective category rule table.
    #[command(after_help = styled(rules::EXAMPLES))]
    Rules(RulesArgs),
    /// Show (`info`) or empty (`clear`) the caches of symbols and recordings.
    #[command(subcommand, after_help = styled(cache::EXAMPLES))]
    Cache(CacheAction),
    /// Print the completion script of a shell (bash, zsh or fish) on stdout.
    #[command(after_help = styled(completions::EXAMPLES))]
    Completions(CompletionsArgs),
    /// Print the man page (roff) of compile-perf or of one of its commands on stdout.
    #[command(after_help = styled(man::EXAMPLES))]
    Man(ManArgs),
    /// Run a command and write its exit status and peak RSS to a file
    /// (used by `record` inside perf).
    #[command(hide = true)]
    Measure(MeasureArgs),
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::Cli;
    use crate::commands::man::EXAMPLES_HEADING;
    use category_rules::RuleTable;

    /// The example command lines of `command`'s help: its lines that start
    /// with `compile-perf`, as words, up to a shell's `>`, `|` or `&&`.
    fn example_lines(command: &clap::Command) -> Vec<Vec<String>> {
        let help = command
            .get_after_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(
            help.starts_with(EXAMPLES_HEADING),
            "`{}`'s help ends with examples: {help:?}",
            command.get_name()
        );
        help.lines()
            .map(str::trim)
            .filter(|line| line.starts_with("compile-perf "))
            .map(|line| {
                line.split_whitespace()
                    .take_while(|word| !matches!(*word, ">" | "|" | "&&"))
                    .map(str::to_owned)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_example_in_the_help_parses_as_the_command_it_is_shown_under() {
        let top = Cli::command();
        let mut checked = 0;
        for line in example_lines(&top) {
            Cli::try_parse_from(&line)
                .unwrap_or_else(|error| panic!("{}: {error}", line.join(" ")));
            checked += 1;
        }
        for command in top.get_subcommands().filter(|c| !c.is_hide_set()) {
            let lines = example_lines(command);
            assert!(
                lines.len() >= 2,
                "`{}` shows two examples or more",
                command.get_name()
            );
            for line in lines {
                assert_eq!(
                    line.get(1).map(String::as_str),
                    Some(command.get_name()),
                    "an example of `{}` runs it: {}",
                    command.get_name(),
                    line.join(" ")
                );
                Cli::try_parse_from(&line)
                    .unwrap_or_else(|error| panic!("{}: {error}", line.join(" ")));
                checked += 1;
            }
        }
        assert!(checked >= 30, "{checked} examples checked");
    }

    #[test]
    fn every_help_wraps_within_100_columns() {
        let mut top = Cli::command();
        top.build();
        let mut commands = vec![top.clone()];
        commands.extend(top.get_subcommands().cloned());
        for mut command in commands {
            for help in [command.render_help(), command.render_long_help()] {
                for line in help.to_string().lines() {
                    assert!(
                        line.chars().count() <= 100,
                        "`{}`: {line}",
                        command.get_name()
                    );
                }
            }
        }
    }

    #[test]
    fn man_takes_a_visible_command_and_no_other() {
        assert!(Cli::try_parse_from(["compile-perf", "man", "report"]).is_ok());
        assert!(Cli::try_parse_from(["compile-perf", "man"]).is_ok());
        for name in ["measure", "help", "reprot"] {
            let error = Cli::try_parse_from(["compile-perf", "man", name])
                .expect_err("not a command with a page");
            assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue, "{name}");
        }
    }

    #[test]
    fn flamegraph_help_lists_every_built_in_category_id() {
        let mut command = Cli::command();
        let help = command
            .find_subcommand_mut("flamegraph")
            .expect("flamegraph is a command")
            .render_long_help()
            .to_string();
        let listed = help
            .split("Built-in ids:")
            .nth(1)
            .expect("the help lists the ids")
            .split("\n\n")
            .next()
            .unwrap_or_default();
        let listed: Vec<&str> = listed
            .split(',')
            .map(|id| id.trim().trim_end_matches('.'))
            .collect();
        let table = RuleTable::builtin();
        let ids: Vec<&str> = table.categories.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(listed, ids);
    }
}
