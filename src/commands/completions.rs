//! `compile-perf completions SHELL`: the shell's completion script, made by
//! clap_complete from the command line's own definition. `cli` owns that
//! definition and hands it over to [`CompletionsArgs::into_config`]; this
//! layer, below `cli`, never imports it.

use clap::{Args, ValueEnum};
use clap_complete::Generator;

use super::{Config, Run};
use crate::error::Error;
use crate::output::write_output;

/// The shells `completions` writes a script for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    /// clap_complete's generator of this shell's script.
    fn generator(self) -> clap_complete::Shell {
        match self {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
        }
    }
}

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  bash (needs the bash-completion package):
    compile-perf completions bash > ~/.local/share/bash-completion/completions/compile-perf
  zsh (with ~/.zfunc in fpath, before compinit):
    compile-perf completions zsh > ~/.zfunc/_compile-perf
  fish:
    compile-perf completions fish > ~/.config/fish/completions/compile-perf.fish";

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    shell: Shell,
}

impl CompletionsArgs {
    /// `command` is the whole command line's definition (`Cli`'s), not yet built.
    pub(crate) fn into_config(self, command: clap::Command) -> Config {
        let completions = Completions {
            shell: self.shell,
            command,
        };
        Config::new(completions, None, false, None)
    }
}

/// What `completions` writes.
#[derive(Debug)]
struct Completions {
    shell: Shell,
    /// The whole command line's definition (`Cli`'s), not yet built.
    command: clap::Command,
}

impl Run for Completions {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, self)
    }
}

/// Writes the completion script to stdout.
fn run(config: &Config, options: &Completions) -> Result<u8, Error> {
    let mut command = options.command.clone();
    let name = command.get_name().to_owned();
    command.set_bin_name(name);
    command.build();
    // `try_generate`, not clap_complete's `generate`, which panics when the
    // writer fails (a closed pipe).
    write_output(&config.output, |out| {
        options.shell.generator().try_generate(&command, out)
    })?;
    Ok(0)
}
