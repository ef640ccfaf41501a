//! `compile-perf cache info|clear`: what the caches hold, and emptying them.

use super::{Config, Run};
use crate::cache::{Cache, Kind};
use crate::error::Error;
use crate::output::{Output, write_output};

/// What `cache` was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::Subcommand)]
pub(crate) enum CacheAction {
    /// Show where the caches are and what they hold.
    Info,
    /// Remove every entry.
    Clear,
}

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  Where the caches are and what they hold:
    compile-perf cache info
  Empty them:
    compile-perf cache clear";

impl CacheAction {
    pub(crate) fn into_config(self) -> Config {
        Config::new(self, None, false, None)
    }
}

impl Run for CacheAction {
    fn run(&self, _config: &Config) -> Result<u8, Error> {
        run(*self)
    }
}

/// Shows or empties the caches.
fn run(action: CacheAction) -> Result<u8, Error> {
    let cache = Cache::from_env(true);
    let Some(root) = cache.root() else {
        eprintln!(
            "compile-perf: no cache: neither XDG_CACHE_HOME nor HOME names an absolute directory"
        );
        return Ok(0);
    };
    match action {
        CacheAction::Info => write_output(&Output::Stdout, |out| {
            writeln!(out, "cache: {}", root.display())?;
            let (mut entries, mut bytes) = (0, 0);
            for kind in Kind::ALL {
                let usage = cache.usage(kind);
                writeln!(
                    out,
                    "{:<11} {:>5} entries {:>10}  {}",
                    kind.directory(),
                    usage.entries,
                    megabytes(usage.bytes),
                    what(kind)
                )?;
                for (name, size) in &usage.files {
                    writeln!(out, "  {:>10}  {name}", megabytes(*size))?;
                }
                entries += usage.entries;
                bytes += usage.bytes;
            }
            writeln!(
                out,
                "{:<11} {entries:>5} entries {:>10}",
                "total",
                megabytes(bytes)
            )
        }),
        CacheAction::Clear => {
            let (entries, bytes) = cache.clear().map_err(|source| Error::Output {
                target: root.display().to_string(),
                source,
            })?;
            write_output(&Output::Stdout, |out| {
                writeln!(
                    out,
                    "removed {entries} entries ({}) from {}",
                    megabytes(bytes),
                    root.display()
                )
            })
        }
    }?;
    Ok(0)
}

fn what(kind: Kind) -> &'static str {
    match kind {
        Kind::Binary => "names of frames, per build id (and per running kernel)",
        Kind::Categories => "categories of symbols, per rule table",
        Kind::Recording => "unwound stacks, threads and processes, per recording",
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}
