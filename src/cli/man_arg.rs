//! `man`'s argument: the name of a command of this command line, which only
//! its own definition ([`Cli`]) can list; and the page it names, taken from
//! that definition.

use std::ffi::OsStr;
use std::sync::OnceLock;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory};

use super::Cli;
use crate::commands::Config;
use crate::commands::man::ManPage;

#[derive(Debug, Args)]
pub(super) struct ManArgs {
    /// The command whose page to print. Default is the top page,
    /// compile-perf(1), which lists the others.
    #[arg(value_name = "COMMAND", value_parser = CommandName)]
    command: Option<String>,
}

impl ManArgs {
    pub(super) fn into_config(self) -> Config {
        Config::new(
            ManPage(man_page(self.command.as_deref())),
            None,
            false,
            None,
        )
    }
}

/// The command whose man page `man` prints: the top command, or the one
/// named (the parser took only a visible command's name). It comes from the
/// built definition, where a command's name for pages is `compile-perf-NAME`
/// and its usage `compile-perf NAME`; without `help`, which has no page.
fn man_page(name: Option<&str>) -> clap::Command {
    let mut top = Cli::command().disable_help_subcommand(true);
    top.build();
    if let Some(command) = name.and_then(|name| top.find_subcommand(name)) {
        return command.clone();
    }
    top
}

/// `man`'s COMMAND: the name of a command that `--help` lists, checked and
/// offered to shell completion as a `ValueEnum`'s values are. The names come
/// from [`Cli`]'s own definition, read when a value is parsed (not while the
/// definition is built, which would never end).
#[derive(Clone, Copy, Debug)]
struct CommandName;

impl CommandName {
    /// The names of the commands that are not hidden, in `--help`'s order.
    fn names() -> &'static [String] {
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        NAMES.get_or_init(|| {
            Cli::command()
                .get_subcommands()
                .filter(|command| !command.is_hide_set())
                .map(|command| command.get_name().to_owned())
                .collect()
        })
    }
}

impl TypedValueParser for CommandName {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        PossibleValuesParser::new(Self::names().iter().map(String::as_str))
            .parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Self::names()
                .iter()
                .map(|name| PossibleValue::new(name.as_str())),
        ))
    }
}
