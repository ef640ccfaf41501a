//! `history html`: the dashboard page of `render::history`, fed from the
//! store: each key's last N runs judged against the N before them
//! (`judge.rs`, as `history check` judges), each run's stored
//! `report.json` read as a report for its headline, and whether its run
//! directory has a `report.html` now.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::Config;
use super::judge::points;
use crate::error::Error;
use crate::history::{HistoryStore, StoredRun};
use crate::output::write_output;
use crate::render::history::{RunReport, page};
use crate::report::breakdown::ReportJson;

/// Writes the page of `runs` (oldest first within a series), their
/// reports read from `store`.
pub(super) fn write(
    config: &Config,
    store: &mut HistoryStore,
    runs: &[StoredRun],
    last: usize,
) -> Result<u8, Error> {
    let points = points(runs, last);
    let mut reports = BTreeMap::new();
    for point in points.values().flatten() {
        let run = point.run;
        let report = store.report(&run.identity)?;
        let report_html =
            (run.path.as_ref()).is_some_and(|path| Path::new(path).join("report.html").is_file());
        let found = RunReport {
            headline: report.as_deref().and_then(headline),
            report_html,
        };
        reports.insert(run.identity.as_str(), found);
    }
    let page = page(&points, &reports, last);
    write_output(&config.output, |out| out.write_all(page.as_bytes()))?;
    Ok(0)
}

/// The headline of a run's `report.json` (see [`ReportJson::headline`]),
/// when it reads as a report.
fn headline(report: &str) -> Option<String> {
    let report: ReportJson = serde_json::from_str(report).ok()?;
    Some(report.headline())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_that_is_no_report_has_no_headline() {
        assert_eq!(headline("not json"), None);
        assert_eq!(headline(r#"{"samples": 1200}"#), None);
    }
}
