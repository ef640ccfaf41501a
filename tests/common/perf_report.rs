//! Checking compile-perf against `perf report` and `perf script` on a
//! recording: self counts of the top leaf symbols both ways round, names
//! matched by address where the two name one function differently, the
//! unwinding rate of the native compiler process, and which `-g` stacks
//! reach a thread entry function. Used by the live tests.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use super::symbol_tables::{SymbolTable, symbol_table, unversioned};
use super::{compile_perf, run_ok, truncate};

/// How many leaf symbols are compared with `perf report`.
pub(crate) const TOP: usize = 20;
/// Enough to list every symbol in `top`.
pub(crate) const ALL: &str = "1000000000";
/// `perf report` exactly as the issue states the comparison, without `-i`.
pub(crate) const PERF_REPORT_ARGS: [&str; 11] = [
    "report",
    "--no-children",
    "--sort",
    "dso,sym",
    "-g",
    "none",
    "--no-inline",
    "-F",
    "sample,dso,sym",
    "--stdio",
    "--no-demangle",
];

/// `(dso file name, raw symbol name)`, as `perf report --no-demangle` prints them.
pub(crate) type Key = (String, String);

/// Self sample counts by `(dso, symbol)` from `perf report` (see [`PERF_REPORT_ARGS`]).
///
/// perf report exits 0 even when it gives up on part of the input ("failed
/// to process type: 81"), so its stderr is checked too: an `Err` carries it.
pub(crate) fn perf_report_self(data: &Path) -> Result<BTreeMap<Key, u64>, String> {
    let output = Command::new("perf")
        .args(PERF_REPORT_ARGS)
        .arg("-i")
        .arg(data)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("cannot run perf report: {error}"));
    let text = String::from_utf8_lossy(&output.stdout);
    let errors = String::from_utf8_lossy(&output.stderr);
    // perf 6.1 may stop inside its own `-z` streams: it then exits non-zero
    // or says so on stderr, and its counts are of part of the recording.
    if !output.status.success()
        || ["failed to process", "decompress", "Error:"]
            .iter()
            .any(|sign| errors.contains(sign))
    {
        return Err(format!(
            "perf report did not read all of {} ({}):\n{}",
            data.display(),
            output.status,
            truncate(errors.trim_end(), 2000)
        ));
    }
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        // `  SAMPLES  DSO  [.] SYMBOL`: the symbol is whatever follows the
        // `[.]`/`[k]` marker (mangled names have no spaces; perf pads columns).
        let mut fields = line.split_whitespace();
        let (Some(samples), Some(dso), Some(_marker)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("unexpected perf report line: {line:?}"));
        };
        let samples: u64 = samples
            .parse()
            .map_err(|_| format!("unexpected perf report line: {line:?}"))?;
        let symbol = fields.collect::<Vec<_>>().join(" ");
        // Two different functions may share a name (static functions of two
        // files); perf prints a row for each, and so may we: compare sums.
        *counts.entry((dso.to_owned(), symbol)).or_insert(0) += samples;
    }
    if counts.is_empty() {
        return Err(format!(
            "perf report printed no rows for {}:\n{}\n{}",
            data.display(),
            truncate(&text, 2000),
            truncate(errors.trim_end(), 2000)
        ));
    }
    Ok(counts)
}

/// The full paths of the DSOs with samples, by file name, from `perf report -v`
/// (which prints the long DSO name). Used to look up aliases with `nm`.
pub(crate) fn perf_dso_paths(data: &Path) -> HashMap<String, BTreeSet<PathBuf>> {
    let output = run_ok(
        Command::new("perf")
            .args(PERF_REPORT_ARGS)
            .arg("-v")
            .arg("-i")
            .arg(data),
    );
    let mut paths: HashMap<String, BTreeSet<PathBuf>> = HashMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        if line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let (Some(_samples), Some(path)) = (fields.next(), fields.next()) else {
            continue;
        };
        if path.starts_with('/') {
            let name = Path::new(path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            paths.entry(name).or_default().insert(PathBuf::from(path));
        }
    }
    paths
}

// ---------------------------------------------------------------- compile-perf

/// `compile-perf top DATA --format json --with-instrumentation` of every
/// symbol and every sample, which must exit 0.
pub(crate) fn our_top(data: &Path) -> Value {
    let started = Instant::now();
    let run = compile_perf([
        "top".as_ref(),
        data.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "-n".as_ref(),
        ALL.as_ref(),
        // Every sample of the recording, as perf and the decoders count them.
        "--with-instrumentation".as_ref(),
    ]);
    run.expect_code(0, &format!("compile-perf top {}", data.display()));
    eprintln!(
        "compile-perf top {}: {:.2} s\n{}",
        data.display(),
        started.elapsed().as_secs_f64(),
        run.stderr.trim_end()
    );
    run.json()
}

/// Self sample counts by `(dso, raw name)` from `top --format json`, where the
/// raw name is `mangled` when present, else `symbol`.
pub(crate) fn our_self_counts(json: &Value) -> BTreeMap<Key, u64> {
    let mut counts = BTreeMap::new();
    for entry in json["entries"].as_array().expect("entries is an array") {
        let samples = entry["self_samples"].as_u64().expect("self_samples");
        if samples == 0 {
            continue;
        }
        let dso = entry["dso"].as_str().expect("dso").to_owned();
        let raw = entry["mangled"]
            .as_str()
            .or_else(|| entry["symbol"].as_str())
            .expect("symbol")
            .to_owned();
        *counts.entry((dso, raw)).or_insert(0) += samples;
    }
    counts
}

pub(crate) fn as_u64(value: &Value, what: &str) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("{what} is not a count: {value}"))
}

// ---------------------------------------------------------------- unresolved frames
//
// perf shows a leaf it cannot name as its raw address (`0x000000000e8058e0`,
// relative to the DSO's file), one row per address, and `[unknown]` as the DSO
// when no mapping covers it. compile-perf shows `dso+0x…` with its own offsets,
// `[unknown]`, or `[kernel]`, and may name addresses perf cannot (or fail on
// some perf names). Unresolved rows therefore cannot be matched by name. When
// one is among perf's top 20, the test compares the DSO's unresolved totals:
// compile-perf must leave no more of that DSO's samples unresolved than perf
// does. (Any samples it resolves instead land on named symbols, which the
// both-ways name check below covers.)

pub(crate) fn perf_unresolved(dso: &str, symbol: &str) -> bool {
    dso == "[unknown]" || symbol == "[unknown]" || symbol.starts_with("0x")
}

pub(crate) fn our_unresolved(dso: &str, symbol: &str) -> bool {
    dso == "[unknown]" || symbol.starts_with('[') || symbol.starts_with(&format!("{dso}+0x"))
}

pub(crate) fn unresolved_in(
    counts: &BTreeMap<Key, u64>,
    dso: &str,
    unresolved: fn(&str, &str) -> bool,
) -> u64 {
    counts
        .iter()
        .filter(|((d, symbol), _)| d == dso && unresolved(d, symbol))
        .map(|(_, samples)| samples)
        .sum()
}

// ---------------------------------------------------------------- the comparison

/// Compares compile-perf's self counts with `perf report`'s on `data`.
pub(crate) struct Comparison<'a> {
    data: &'a Path,
    perf: BTreeMap<Key, u64>,
    ours: BTreeMap<Key, u64>,
    paths: Option<HashMap<String, BTreeSet<PathBuf>>>,
    tables: HashMap<String, Result<SymbolTable, String>>,
}

/// How one row compared.
pub(crate) enum Verdict {
    Equal,
    /// Equal once the names at the same address are added up.
    Alias(String),
    /// An unresolved row, checked by its DSO's unresolved total.
    Unresolved(String),
    Differs(String),
}

impl Comparison<'_> {
    /// The samples of both sides on every name at the address(es) of `name` in `dso`.
    fn at_same_address(
        &mut self,
        dso: &str,
        name: &str,
    ) -> Result<(u64, u64, Vec<String>), String> {
        if !self.tables.contains_key(dso) {
            let paths = self.paths.get_or_insert_with(|| perf_dso_paths(self.data));
            let table = symbol_table(dso, paths.get(dso));
            self.tables.insert(dso.to_owned(), table);
        }
        let table = self.tables[dso].as_ref().map_err(Clone::clone)?;
        let addresses = table
            .get(unversioned(name))
            .ok_or_else(|| format!("{name} is not a symbol of {dso} (nm)"))?;
        let mut names = BTreeSet::new();
        let mut sum_at = |counts: &BTreeMap<Key, u64>| -> u64 {
            counts
                .iter()
                .filter(|((d, symbol), _)| {
                    d == dso
                        && table
                            .get(unversioned(symbol))
                            .is_some_and(|other| !other.is_disjoint(addresses))
                })
                .map(|((_, symbol), samples)| {
                    names.insert(symbol.clone());
                    samples
                })
                .sum()
        };
        let perf_at = sum_at(&self.perf);
        let ours_at = sum_at(&self.ours);
        Ok((perf_at, ours_at, names.into_iter().collect()))
    }

    /// Checks one resolved row whose counts are `perf` and `ours`.
    fn check_named(&mut self, dso: &str, name: &str, perf: u64, ours: u64) -> Verdict {
        if perf == ours {
            return Verdict::Equal;
        }
        match self.at_same_address(dso, name) {
            Ok((perf_at, ours_at, names)) if perf_at == ours_at && perf_at > 0 => {
                Verdict::Alias(format!("same address: {}", names.join(" = ")))
            }
            Ok((perf_at, ours_at, names)) => Verdict::Differs(format!(
                "perf {perf_at} vs compile-perf {ours_at} at its address ({})",
                names.join(", ")
            )),
            Err(error) => Verdict::Differs(error),
        }
    }

    fn check_unresolved(&self, dso: &str) -> Verdict {
        let perf = unresolved_in(&self.perf, dso, perf_unresolved);
        let ours = unresolved_in(&self.ours, dso, our_unresolved);
        let note = format!("unresolved in {dso}: perf {perf}, compile-perf {ours}");
        if ours <= perf {
            Verdict::Unresolved(note)
        } else {
            Verdict::Differs(note)
        }
    }
}

/// The `n` rows with the most samples (ties by name, for a stable order).
pub(crate) fn top_rows(
    counts: &BTreeMap<Key, u64>,
    n: usize,
    skip: impl Fn(&Key) -> bool,
) -> Vec<(Key, u64)> {
    let mut rows: Vec<(Key, u64)> = counts
        .iter()
        .filter(|(key, _)| !skip(key))
        .map(|(key, &samples)| (key.clone(), samples))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows.truncate(n);
    rows
}

/// Checks compile-perf against `perf report` on `data`, and returns our JSON.
///
/// - The total sample counts are equal.
/// - Each of perf's top [`TOP`] leaf symbols has the same self count in
///   compile-perf, matched on `(dso, raw name)`, or on the names at the same
///   address (`cfree` vs `free`): see [`Comparison::at_same_address`].
/// - The other way round, each of compile-perf's top [`TOP`] resolved symbols
///   has the same count in perf, so a symbol we credit with extra samples
///   cannot hide.
/// - Unresolved rows: see the comment above [`perf_unresolved`].
pub(crate) fn compare_with_perf_report(data: &Path, label: &str) -> Value {
    let started = Instant::now();
    let perf = perf_report_self(data).unwrap_or_else(|error| panic!("{label}: {error}"));
    let perf_time = started.elapsed().as_secs_f64();
    compare_counts(data, label, perf, perf_time)
}

/// [`compare_with_perf_report`] with perf's counts already read.
pub(crate) fn compare_counts(
    data: &Path,
    label: &str,
    perf: BTreeMap<Key, u64>,
    perf_time: f64,
) -> Value {
    let json = our_top(data);
    let mut comparison = Comparison {
        data,
        ours: our_self_counts(&json),
        perf,
        paths: None,
        tables: HashMap::new(),
    };

    let mut report = String::new();
    let mut failures = 0;
    let perf_total: u64 = comparison.perf.values().sum();
    let our_total = as_u64(&json["samples"], "samples");
    let _ = writeln!(
        report,
        "{label}: {} (perf report took {perf_time:.1} s)\n  total samples: perf report {perf_total}, compile-perf {our_total}",
        data.display()
    );
    if perf_total != our_total {
        failures += 1;
        let _ = writeln!(report, "  MISMATCH: total samples differ");
    }

    let mut checked = BTreeSet::new();
    for (side, rows) in [
        ("perf report's", top_rows(&comparison.perf, TOP, |_| false)),
        (
            "compile-perf's",
            top_rows(&comparison.ours, TOP, |(dso, symbol)| {
                our_unresolved(dso, symbol)
            }),
        ),
    ] {
        let _ = writeln!(
            report,
            "  {side} top {TOP} leaf symbols:\n  {:>4} {:>7} {:>7}  verdict    dso / symbol",
            "rank", "perf", "ours"
        );
        for (rank, ((dso, symbol), _)) in rows.into_iter().enumerate() {
            let key = (dso.clone(), symbol.clone());
            let perf = comparison.perf.get(&key).copied().unwrap_or(0);
            let ours = comparison.ours.get(&key).copied().unwrap_or(0);
            let verdict = if perf_unresolved(&dso, &symbol) {
                comparison.check_unresolved(&dso)
            } else {
                comparison.check_named(&dso, &symbol, perf, ours)
            };
            let (tag, note) = match &verdict {
                Verdict::Equal => ("ok", String::new()),
                Verdict::Alias(note) => ("ok (alias)", note.clone()),
                Verdict::Unresolved(note) => ("ok (unres)", note.clone()),
                Verdict::Differs(note) => ("MISMATCH", note.clone()),
            };
            if matches!(verdict, Verdict::Differs(_)) && checked.insert(key) {
                failures += 1;
            }
            let _ = writeln!(
                report,
                "  {:>4} {perf:>7} {ours:>7}  {tag:<10} {dso} {}{}",
                rank + 1,
                truncate(&symbol, 110),
                if note.is_empty() {
                    String::new()
                } else {
                    format!("\n{:>33}{}", "", truncate(&note, 200))
                }
            );
        }
    }
    eprintln!("{report}");
    assert!(
        failures == 0,
        "{label}: compile-perf disagrees with `perf {} -i {}` on {failures} rows:\n{report}",
        PERF_REPORT_ARGS.join(" "),
        data.display()
    );
    json
}
