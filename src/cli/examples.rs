//! The examples each command's `--help` ends with (clap's `after_help`),
//! which `man` prints as the page's EXAMPLES. Each is a line that says what
//! it does, then the command line, indented; the unit tests in `cli` parse
//! every line that starts with `compile-perf` (up to a `>` or `|`), so a
//! renamed flag fails them.

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

pub(super) const RECORD: &str =
    "  Record into compile-perf-runs/<timestamp>/: perf.data, report, flamegraphs, run.json:
    compile-perf record -- iree-compile model.mlir -o model.vmfb
  Three runs with iree-compile's pass timers, reported together:
    compile-perf record --repeat 3 --mlir-timing -o runs/base -- iree-compile model.mlir -o m.vmfb";

pub(super) const REPORT: &str =
    "  The category table of a run directory, for the native compiler process only:
    compile-perf report runs/example --compiler
  One HTML page with the tables, flamegraphs and timeline:
    compile-perf report perf.data --format html -o report.html";

pub(super) const FLAMEGRAPH: &str = "  The whole compile, coloured by category:
    compile-perf flamegraph perf.data -o flame.svg
  One MLIR pass, rooted at it:
    compile-perf flamegraph perf.data --pass Canonicalizer -o pass.svg";

pub(super) const TIMELINE: &str =
    "  Categories over time, with the phases, busy threads and RSS of a run:
    compile-perf timeline runs/example -o timeline.svg
  The buckets as JSON, 200 of them:
    compile-perf timeline perf.data --format json --buckets 200 -o timeline.json";

pub(super) const TOP_FUNCTIONS: &str =
    "  The 30 functions with the most samples, in the native compiler:
    compile-perf top perf.data --compiler
  The top 50, as JSON:
    compile-perf top perf.data -n 50 --format json";

pub(super) const COLLAPSE: &str = "  Folded stacks for inferno-flamegraph or flamegraph.pl:
    compile-perf collapse perf.data -o out.folded
  From a pipe-mode recording on stdin:
    compile-perf collapse - -o out.folded";

pub(super) const DIFF: &str =
    "  How each category's share moved between two sets of runs of `record --repeat`:
    compile-perf diff runs/text runs/bytecode --compiler
  A CI gate: exit 30 on a regression, and draw the change:
    compile-perf diff runs/main runs/pr --fail-on-regression --flamegraph diff.svg";

pub(super) const EXPORT: &str = "  pprof, with categories and passes as labels (go tool pprof):
    compile-perf export perf.data --format pprof -o cpu.pb.gz --compiler
  The pass spans as a Chrome trace (Perfetto):
    compile-perf export runs/example --format chrome-trace -o passes.trace.json";

pub(super) const PUSH: &str = "  To a local Pyroscope server, the native compiler only:
    compile-perf push perf.data --url http://localhost:4040 --app iree-compile --compiler
  With labels of your own:
    compile-perf push runs/m1 --url http://localhost:4040 --app iree-compile --label branch=main";

pub(super) const EXECUTABLES: &str =
    "  Each executable of a compile compiled alone under perf, and ranked:
    compile-perf executables -o runs/x -- iree-compile model.mlir -o model.vmfb
  Two at a time, each stopped after 60 s:
    compile-perf executables --jobs 2 --timeout 60 -o runs/x -- iree-compile model.mlir -o m.vmfb";

pub(super) const RULES: &str = "  The built-in category rules, first match wins:
    compile-perf rules
  Extended by a file of your own, as Markdown:
    compile-perf rules --rules my-rules.toml --format markdown";

pub(super) const CACHE: &str = "  Where the caches are and what they hold:
    compile-perf cache info
  Empty them:
    compile-perf cache clear";

pub(super) const COMPLETIONS: &str = "  bash (needs the bash-completion package):
    compile-perf completions bash > ~/.local/share/bash-completion/completions/compile-perf
  zsh (with ~/.zfunc in fpath, before compinit):
    compile-perf completions zsh > ~/.zfunc/_compile-perf
  fish:
    compile-perf completions fish > ~/.config/fish/completions/compile-perf.fish";

pub(super) const MAN: &str = "  Read the page of `report`:
    compile-perf man report | man -l -
  Write the top page to a file:
    compile-perf man > compile-perf.1";
