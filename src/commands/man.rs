//! `compile-perf man [COMMAND]`: the man page (roff) of compile-perf or of
//! one command, made by clap_mangen from the command line's own definition,
//! with the examples of `--help` as its EXAMPLES section. `cli` owns that
//! definition and hands the command over in [`ManPage`]; this layer, below
//! `cli`, never imports it.

use std::io::{self, Write};

use clap_mangen::Man;
use roff::{Roff, bold, roman};

use super::{Config, Run};
use crate::error::Error;
use crate::output::write_output;

/// The heading `--help`'s examples follow (`cli` writes them under it); the
/// lines after it are the examples: a line that says what one does, then the
/// command line, indented further.
pub(crate) const EXAMPLES_HEADING: &str = "Examples:";

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  Read the page of `report`:
    compile-perf man report | man -l -
  Write the top page to a file:
    compile-perf man > compile-perf.1";

/// What `man` writes: the page of this command, taken from the built
/// definition (a command's page is titled `compile-perf-NAME`, and its
/// synopsis reads `compile-perf NAME`).
#[derive(Debug)]
pub(crate) struct ManPage(pub(crate) clap::Command);

impl Run for ManPage {
    /// Writes the man page to stdout.
    fn run(&self, config: &Config) -> Result<u8, Error> {
        write_output(&config.output, |out| render(&self.0, out))?;
        Ok(0)
    }
}

/// The page: clap_mangen's sections (name, synopsis, description, options,
/// commands), then the examples. The version is in the page's footer.
fn render(command: &clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let examples = command.get_after_help().map(ToString::to_string);
    // clap_mangen would print the examples as one filled paragraph under
    // "EXTRA"; they get a section of their own below.
    let page = command
        .clone()
        .after_help(None::<&str>)
        .version(None::<&str>);
    Man::new(page)
        .source(format!("compile-perf {}", env!("CARGO_PKG_VERSION")))
        .manual("compile-perf manual")
        .render(out)?;
    if let Some(examples) = examples {
        // `to_roff` leaves out the preamble `render` wrote, which defines the
        // apostrophe string `Aq` that text lines use for `'`.
        let roff = examples_section(&examples)
            .to_roff()
            .replace('\'', r"\*(Aq");
        out.write_all(roff.as_bytes())?;
    }
    Ok(())
}

/// The EXAMPLES section of the examples `--help` shows: each what-it-does
/// line as a paragraph, each command line in bold, indented and unfilled.
fn examples_section(examples: &str) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXAMPLES"]);
    for line in examples.lines() {
        let text = line.trim();
        if text.is_empty() || text == EXAMPLES_HEADING {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if indent > 2 {
            roff.control("RS", ["4"])
                .control("nf", [])
                .text([bold(text)])
                .control("fi", [])
                .control("RE", []);
        } else {
            roff.control("PP", []).text([roman(text)]);
        }
    }
    roff
}

#[cfg(test)]
mod tests {
    use super::examples_section;

    #[test]
    fn examples_become_paragraphs_with_unfilled_bold_command_lines() {
        let roff = examples_section(
            "Examples:\n  Record a compile:\n    compile-perf record -- iree-compile m.mlir\n",
        )
        .to_roff();
        assert_eq!(
            roff,
            ".SH EXAMPLES\n.PP\nRecord a compile:\n.RS 4\n.nf\n\\fBcompile\\-perf record \\-\\- iree\\-compile m.mlir\\fR\n.fi\n.RE\n"
        );
    }
}
