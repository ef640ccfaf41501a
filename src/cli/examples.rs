//! How the examples each command's `--help` ends with (clap's
//! `after_help`; each command's are its file's `EXAMPLES`) are shown, which
//! `man` prints as the page's EXAMPLES; and the top command's. Each is a
//! line that says what it does, then the command line, indented; the unit
//! tests in `cli` parse every line that starts with `compile-perf` (up to a
//! `>` or `|`), so a renamed flag fails them.

use clap::builder::StyledStr;
use clap::builder::styling::Styles;

use crate::commands::man::EXAMPLES_HEADING;

/// `examples` under the heading `man` reads them by, styled like "Options:".
pub(super) fn styled(examples: &str) -> StyledStr {
    let styles = Styles::styled();
    let header = styles.get_header();
    format!("{header}{EXAMPLES_HEADING}{header:#}\n{examples}").into()
}

pub(super) const TOP: &str =
    "  Record a compile into a run directory (the report and flamegraphs land there too):
    compile-perf record -o runs/example -- iree-compile model.mlir -o model.vmfb
  Where its time went, by MLIR pass:
    compile-perf report runs/example --by pass";
