//! `compile-perf completions SHELL`: the shell's completion script, made by
//! clap_complete from the command line's own definition. `cli` owns that
//! definition and hands it over in [`CompletionsOptions`]; this layer, below
//! `cli`, never imports it.

use clap::ValueEnum;
use clap_complete::Generator;

use crate::commands::Config;
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

/// What `completions` writes.
#[derive(Clone, Debug)]
pub(crate) struct CompletionsOptions {
    pub(crate) shell: Shell,
    /// The whole command line's definition (`Cli`'s), not yet built.
    pub(crate) command: clap::Command,
}

/// Writes the completion script to stdout.
pub(crate) fn run(config: &Config, options: &CompletionsOptions) -> Result<u8, Error> {
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
