//! Several runs of one compile (`record --repeat`) added up: each row's
//! share of all the runs' samples together with its share run by run, and
//! the runs' facts side by side (wall and CPU time, peak RSS, the peak of
//! anonymous memory and the place it fell in), with their medians and
//! ranges, so that a report of the series says how much the runs agree.

use std::path::PathBuf;

use hashbrown::HashMap;

use super::run_diff::Spread;
use super::runs::RunRows;
use super::{percent, round2};

/// One run of the series: its rows and what its run directory says of it.
#[derive(Clone, Debug)]
pub(crate) struct SeriesRun {
    pub rows: RunRows,
    /// The compile's wall time (`run.json`).
    pub wall_seconds: Option<f64>,
    /// The peak RSS of the compile (`run.json`).
    pub peak_rss_bytes: Option<u64>,
    /// The most anonymous memory of the compiler (`memory.json`), and the
    /// pass or place it fell in.
    pub anon_peak: Option<(u64, String)>,
}

/// One row of the series, added up.
#[derive(Clone, Debug)]
pub(crate) struct SeriesRow {
    pub id: String,
    pub name: String,
    pub color: Option<String>,
    pub self_samples: u64,
    /// Of all the runs' samples together.
    pub self_percent: f64,
    /// Run by run.
    pub self_percent_runs: Vec<f64>,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    pub inclusive_percent_runs: Vec<f64>,
}

/// One run's facts in the series, added up.
#[derive(Clone, Debug)]
pub(crate) struct SeriesRunFacts {
    pub input: PathBuf,
    pub samples: u64,
    pub lost_samples: u64,
    pub cpu_seconds: Option<f64>,
    pub wall_seconds: Option<f64>,
    pub peak_rss_bytes: Option<u64>,
    pub anon_peak_bytes: Option<u64>,
    pub anon_peak_place: Option<String>,
}

/// The spread of a fact over the runs; `None` when a run lacks it.
fn spread_of(values: impl IntoIterator<Item = Option<f64>>) -> Option<Spread> {
    Spread::of(values.into_iter().collect::<Option<_>>()?)
}

/// Several runs of one compile, added up.
#[derive(Clone, Debug)]
pub(crate) struct SeriesTotals {
    pub command: String,
    pub runs: Vec<SeriesRunFacts>,
    pub samples: u64,
    /// Samples the kernel lost, of all the runs together.
    pub lost_samples: u64,
    /// CPU seconds per run: the median of the runs.
    pub cpu_seconds: Option<f64>,
    pub wall_seconds: Option<Spread>,
    pub peak_rss_bytes: Option<Spread>,
    pub anon_peak_bytes: Option<Spread>,
    /// The place the anonymous peak fell in most often, and in how many runs.
    pub anon_peak_place: Option<(String, usize)>,
    /// By self share of all the samples, then inclusive share.
    pub rows: Vec<SeriesRow>,
}

/// Adds up `runs` of `command`; shares are rounded as `report` prints them.
pub(crate) fn add_up(command: String, runs: &[SeriesRun]) -> SeriesTotals {
    let samples: u64 = runs.iter().map(|run| run.rows.samples).sum();
    let mut keys: Vec<&String> = runs.iter().flat_map(|run| run.rows.rows.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut rows: Vec<SeriesRow> = keys
        .into_iter()
        .map(|key| {
            let shown = runs
                .iter()
                .find_map(|run| run.rows.rows.get(key))
                .expect("a key comes from some run");
            let per_run = |inclusive: bool| -> Vec<u64> {
                runs.iter()
                    .map(|run| {
                        run.rows.rows.get(key).map_or(0, |row| {
                            if inclusive {
                                row.inclusive_samples
                            } else {
                                row.self_samples
                            }
                        })
                    })
                    .collect()
            };
            let shares = |counts: &[u64]| -> Vec<f64> {
                counts
                    .iter()
                    .zip(runs)
                    .map(|(&count, run)| round2(percent(count, run.rows.samples)))
                    .collect()
            };
            let (own, inclusive) = (per_run(false), per_run(true));
            let (own_total, inclusive_total) = (own.iter().sum(), inclusive.iter().sum());
            SeriesRow {
                id: key.clone(),
                name: shown.name.clone(),
                color: shown.color.clone(),
                self_samples: own_total,
                self_percent: round2(percent(own_total, samples)),
                self_percent_runs: shares(&own),
                inclusive_samples: inclusive_total,
                inclusive_percent: round2(percent(inclusive_total, samples)),
                inclusive_percent_runs: shares(&inclusive),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        (b.self_samples, b.inclusive_samples, &a.id).cmp(&(
            a.self_samples,
            a.inclusive_samples,
            &b.id,
        ))
    });
    let cpu_of = |run: &SeriesRun| run.rows.seconds(run.rows.samples);
    SeriesTotals {
        command,
        runs: runs
            .iter()
            .map(|run| SeriesRunFacts {
                input: run.rows.input.clone(),
                samples: run.rows.samples,
                lost_samples: run.rows.lost_samples,
                cpu_seconds: cpu_of(run).map(round2),
                wall_seconds: run.wall_seconds,
                peak_rss_bytes: run.peak_rss_bytes,
                anon_peak_bytes: run.anon_peak.as_ref().map(|(bytes, _)| *bytes),
                anon_peak_place: run.anon_peak.as_ref().map(|(_, place)| place.clone()),
            })
            .collect(),
        samples,
        lost_samples: runs.iter().map(|run| run.rows.lost_samples).sum(),
        cpu_seconds: spread_of(runs.iter().map(cpu_of)).map(|spread| round2(spread.median)),
        wall_seconds: spread_of(runs.iter().map(|run| run.wall_seconds)),
        peak_rss_bytes: spread_of(runs.iter().map(|run| run.peak_rss_bytes.map(|b| b as f64))),
        anon_peak_bytes: spread_of(
            runs.iter()
                .map(|run| run.anon_peak.as_ref().map(|(bytes, _)| *bytes as f64)),
        ),
        anon_peak_place: most_common(runs.iter().filter_map(|run| run.anon_peak.as_ref())),
        rows,
    }
}

/// The place most runs' anonymous peak fell in (the first seen, on a tie),
/// and how many runs.
fn most_common<'a>(peaks: impl Iterator<Item = &'a (u64, String)>) -> Option<(String, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (_, place) in peaks {
        match index.get(place.as_str()) {
            Some(&at) => counts[at].1 += 1,
            None => {
                index.insert(place, counts.len());
                counts.push((place, 1));
            }
        }
    }
    counts
        .into_iter()
        .reduce(|best, next| if next.1 > best.1 { next } else { best })
        .map(|(place, runs)| (place.to_owned(), runs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribute::runs::RowCounts;

    fn run(samples: u64, lexer: u64, seconds_per_sample: Option<f64>) -> SeriesRun {
        run_losing(samples, lexer, seconds_per_sample, 0)
    }

    fn run_losing(
        samples: u64,
        lexer: u64,
        seconds_per_sample: Option<f64>,
        lost_samples: u64,
    ) -> SeriesRun {
        let mut rows = HashMap::new();
        rows.insert(
            "lexer".to_owned(),
            RowCounts {
                name: "Lexer".to_owned(),
                color: None,
                self_samples: lexer,
                inclusive_samples: lexer + 1,
            },
        );
        SeriesRun {
            rows: RunRows {
                input: PathBuf::from("perf.data"),
                samples,
                lost_samples,
                seconds_per_sample,
                rows,
            },
            wall_seconds: None,
            peak_rss_bytes: None,
            anon_peak: None,
        }
    }

    #[test]
    fn runs_add_up_and_keep_their_own_shares() {
        let runs = [run(1000, 200, Some(0.002)), run(3000, 300, Some(0.002))];
        let total = add_up("iree-compile".to_owned(), &runs);
        assert_eq!(total.samples, 4000);
        let lexer = &total.rows[0];
        assert_eq!(lexer.self_samples, 500);
        assert_eq!(lexer.self_percent, 12.5);
        assert_eq!(lexer.self_percent_runs, [20.0, 10.0]);
        assert_eq!(lexer.inclusive_percent_runs, [20.1, 10.03]);
        // 2 ms per sample: 2 s and 6 s, a median of 4 s per run.
        assert_eq!(total.cpu_seconds, Some(4.0));
        let unknown = [run(1000, 200, Some(0.002)), run(1000, 200, None)];
        assert_eq!(add_up(String::new(), &unknown).cpu_seconds, None);
    }

    #[test]
    fn samples_lost_add_up_and_each_run_keeps_its_own() {
        let runs = [run_losing(1000, 200, None, 7), run(3000, 300, None)];
        let total = add_up("iree-compile".to_owned(), &runs);
        assert_eq!(total.lost_samples, 7);
        let per_run: Vec<u64> = total.runs.iter().map(|run| run.lost_samples).collect();
        assert_eq!(per_run, [7, 0]);
    }

    #[test]
    fn the_runs_facts_have_medians_ranges_and_the_usual_place_of_the_peak() {
        let facts = [
            (3.0, 100, "JitGlobalsPass"),
            (2.0, 300, "InlinerPass"),
            (4.0, 200, "JitGlobalsPass"),
        ];
        let runs: Vec<SeriesRun> = facts
            .iter()
            .map(|&(wall, anon, place)| SeriesRun {
                wall_seconds: Some(wall),
                peak_rss_bytes: Some(anon + 1000),
                anon_peak: Some((anon, place.to_owned())),
                ..run(1000, 10, None)
            })
            .collect();
        let total = add_up(String::new(), &runs);
        let figures = |spread: Option<Spread>| spread.map(|s| (s.median, s.min(), s.max()));
        assert_eq!(figures(total.wall_seconds), Some((3.0, 2.0, 4.0)));
        assert_eq!(
            figures(total.peak_rss_bytes),
            Some((1200.0, 1100.0, 1300.0))
        );
        assert_eq!(figures(total.anon_peak_bytes), Some((200.0, 100.0, 300.0)));
        assert_eq!(
            total.anon_peak_place,
            Some(("JitGlobalsPass".to_owned(), 2))
        );
        // One run without a wall time: no spread of it.
        let mut partial = runs.clone();
        partial[1].wall_seconds = None;
        assert!(add_up(String::new(), &partial).wall_seconds.is_none());
    }
}
