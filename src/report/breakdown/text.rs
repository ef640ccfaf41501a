//! The report as text: a header saying what was profiled, the rows as one
//! table (aligned text, Markdown or CSV), and the samples per process.

use std::io::Write;

use hashbrown::HashMap;

use super::{Breakdown, TEXT_TOP, attribution_name, mebibytes, scope_words};
use crate::attribute::rss::MemoryPeak;
use crate::attribute::{Grouping, RowKey, RowName, TopColumn, percent};
use crate::mlir_timing::TimerKind;
use crate::report::summary::lost_samples_warning;
use crate::report::table::{Cell, Colors, Column, Table, TextFormat, write_table};
use crate::report::{artifacts, instrumentation};
use crate::short_name;

/// Longest symbol name shown in the text table's top symbols.
const TEXT_SYMBOL_WIDTH: usize = 70;
/// Longest symbol name shown as a row of `--by symbol`.
const SYMBOL_ROW_WIDTH: usize = 100;

impl Breakdown<'_> {
    fn header_lines(&self) -> Vec<String> {
        let profile = self.profile;
        let scope = scope_words(&self.options.filter);
        let mut lines = vec![format!("command: {}", profile.profiled_command())];
        if let Some(run) = &self.run {
            lines.push(format!("run: {}", run.summary_line()));
        }
        lines.extend([
            format!(
                "event: {}, {} {} over {:.2} s, {:.1}% of stacks unwound to a thread root",
                profile.event,
                self.samples(),
                profile.unit,
                profile.counts.duration_seconds(),
                self.unwind.complete_percent()
            ),
            format!(
                "scope: {scope}; rows: {}; attribution: {}",
                self.options.grouping.name(),
                attribution_name(self.options.attribution)
            ),
        ]);
        lines.extend(instrumentation::line(profile));
        let credited = self.grouped.credited;
        if self.options.grouping == Grouping::Pass && credited > 0 {
            let to = match self.options.actions {
                Some(_) => {
                    "(a pass; its output's verification, `<pass> (verify)`, by the run's \
                     actions; or the pass manager)"
                }
                None => "(a pass, or the pass manager)",
            };
            lines.push(format!(
                "credited: {credited} samples ({:.1}%) of thread-pool work, credited to what \
                 the main thread was in {to}: the `credited` column",
                percent(credited, self.samples())
            ));
        }
        lines.extend(self.nested_line());
        if let Some(join) = &self.options.actions {
            let agreement = join.agreement;
            lines.push(format!(
                "actions: {} intervals on {} threads, on perf's clock; {:.1}% of the main \
                 thread's samples in a pass fall in an interval of that pass ({} of {})",
                join.actions.intervals(),
                join.actions.threads.len(),
                agreement.percent(),
                agreement.agreeing,
                agreement.samples
            ));
        }
        if let Some(utilization) = &self.utilization {
            lines.push(format!(
                "threads: on average {:.2} busy{}; {:.0}% of the time only one thread was busy",
                utilization.mean_busy_threads,
                utilization
                    .cpus
                    .map_or(String::new(), |cpus| format!(" of {cpus} CPUs")),
                utilization.serial_share * 100.0
            ));
        }
        if let Some((peak, anon_peak)) = self.memory_peaks() {
            let rss = self.rss.as_ref().expect("a peak comes from the RSS");
            let place = |peak: &MemoryPeak| {
                let phase = peak
                    .phase
                    .map_or(String::new(), |phase| format!(" (phase: {})", phase.name()));
                format!("at {:.2} s, in {}{phase}", peak.seconds, peak.place_name)
            };
            let anon = match anon_peak {
                Some(anon_peak) if anon_peak.seconds == peak.seconds => {
                    "; anonymous memory peaked then too".to_owned()
                }
                Some(anon_peak) => format!(
                    "; anonymous memory peaked at {} {}",
                    mebibytes(anon_peak.anon_bytes as f64),
                    place(anon_peak)
                ),
                None => String::new(),
            };
            let grown: Vec<String> = self
                .growth_top()
                .into_iter()
                .map(|(pass, growth)| format!("{pass} +{}", mebibytes(growth as f64)))
                .collect();
            let grown = if grown.is_empty() {
                String::new()
            } else {
                format!("; anonymous memory grew most in: {}", grown.join(", "))
            };
            lines.push(format!(
                "memory: RSS of {} ({}) peaked at {} ({} anonymous, {} mapped files) {}{anon}{grown}",
                rss.name,
                rss.pid,
                mebibytes(peak.bytes as f64),
                mebibytes(peak.anon_bytes as f64),
                mebibytes(peak.file_bytes as f64),
                place(peak),
            ));
        }
        lines.extend(
            self.consteval
                .as_ref()
                .map(crate::report::consteval::summary_line),
        );
        lines.extend(self.finding_lines());
        lines.extend(lost_samples_warning(profile).map(|warning| format!("warning: {warning}")));
        lines.extend(
            self.notices
                .iter()
                .map(|notice| format!("notice: {notice}")),
        );
        lines
    }

    fn main_table(&self, top_width: usize) -> Table {
        let grouping = self.options.grouping;
        let top_header = match grouping.top_column() {
            TopColumn::Symbols => "top symbols",
            TopColumn::Categories => "top categories",
        };
        let by_pass = grouping == Grouping::Pass;
        let with_pass = grouping.shows_top_pass();
        let with_rss = by_pass && self.rss.is_some();
        let with_credit = by_pass && self.grouped.credited > 0;
        let with_timers = by_pass && self.timers.is_some();
        let samples = self.samples();
        let in_pass_manager = self.grouped.in_pass_manager;
        let shown_rows = self.shown_symbol_rows(top_width);
        let rows = self
            .rows()
            // Rows that would read 0 / 0.0% / 0.0% say nothing.
            .filter(|(_, row)| {
                row.self_samples > 0 || percent(row.inclusive_samples, samples) >= 0.05
            })
            .map(|(key, row)| {
                let RowName { name: label, color } = self.label(key);
                let label = match shown_rows.get(&key) {
                    Some(shown) => shown.clone(),
                    None => label,
                };
                let top = self.top_details(row, TEXT_TOP);
                let names: Vec<&str> = top.iter().map(|(name, _)| name.as_str()).collect();
                let top = short_name::distinct(&names, top_width)
                    .into_iter()
                    .zip(&top)
                    .map(|(name, (_, count))| format!("{name} ({count})"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut cells = vec![
                    Cell {
                        text: label,
                        color,
                        ink: None,
                    },
                    row.self_samples.to_string().into(),
                    format!("{:.1}%", percent(row.self_samples, samples)).into(),
                    format!("{:.1}%", percent(row.inclusive_samples, samples)).into(),
                ];
                if with_credit {
                    cells.push(match row.credited_samples {
                        0 => String::new().into(),
                        credited => credited.to_string().into(),
                    });
                }
                if by_pass {
                    cells.push(match key {
                        RowKey::Pass(_) => {
                            format!("{:.1}%", percent(row.inclusive_samples, in_pass_manager))
                                .into()
                        }
                        _ => String::new().into(),
                    });
                }
                if with_timers {
                    cells.extend(self.timer_cells(key, row.inclusive_samples));
                }
                if with_rss {
                    let figures = match key {
                        RowKey::Pass(pass) => self
                            .rss
                            .as_ref()
                            .and_then(|rss| rss.passes.get(&pass).copied()),
                        _ => None,
                    };
                    let mib = |bytes: f64| format!("{:.1}", bytes / f64::from(1 << 20));
                    match figures {
                        Some(figures) => {
                            let growth =
                                |bytes: i64| format!("{:+.1}", bytes as f64 / f64::from(1 << 20));
                            cells.extend([
                                mib(figures.start_bytes as f64).into(),
                                growth(figures.anon_growth_bytes).into(),
                                growth(figures.file_growth_bytes).into(),
                                mib(figures.max_bytes as f64).into(),
                            ])
                        }
                        None => cells.extend((0..4).map(|_| String::new().into())),
                    }
                }
                if with_pass {
                    cells.push(self.top_pass(row).into());
                }
                cells.push(top.into());
                cells
            })
            .collect();
        let mut columns = vec![
            Column::left(grouping.name()),
            Column::right("self"),
            Column::right("self%"),
            Column::right("incl%"),
        ];
        if with_credit {
            columns.push(Column::right("credited"));
        }
        if by_pass {
            columns.push(Column::right("incl% of passes"));
        }
        if with_timers {
            columns.extend([
                Column::right("runs"),
                Column::right("timer s"),
                Column::right("user s"),
                Column::right("CPU s"),
                Column::right("CPU/user"),
            ]);
        }
        if with_rss {
            columns.extend([
                Column::right("RSS start MiB"),
                Column::right("anon growth MiB"),
                Column::right("file growth MiB"),
                Column::right("max MiB"),
            ]);
        }
        if with_pass {
            columns.push(Column::left("top pass"));
        }
        columns.push(Column::left(top_header));
        Table { columns, rows }
    }

    /// A pass's timers: how many the tree has (each a run of the pass, on
    /// one op or many), their wall and user seconds, its CPU seconds and
    /// the CPU its timers time over their user seconds (blank where there
    /// is no timer).
    fn timer_cells(&self, key: RowKey, inclusive_samples: u64) -> [Cell; 5] {
        let cpu = match key {
            RowKey::Pass(_) => self.cpu_seconds(inclusive_samples),
            _ => None,
        };
        let timer = self.timer_of(key);
        let timed = self.cpu_seconds(self.timed_samples(key, inclusive_samples));
        let ratio = timer
            .zip(timed)
            .filter(|(timer, _)| timer.user_seconds > 0.0)
            .map(|(timer, cpu)| format!("{:.2}", cpu / timer.user_seconds));
        let seconds = |seconds: Option<f64>| seconds.map_or(String::new(), |s| format!("{s:.3}"));
        [
            timer
                .map_or(String::new(), |timer| timer.timers.to_string())
                .into(),
            seconds(timer.map(|timer| timer.wall_seconds)).into(),
            seconds(timer.map(|timer| timer.user_seconds)).into(),
            seconds(cpu).into(),
            ratio.unwrap_or_default().into(),
        ]
    }

    /// MLIR's timers of no pass on the stacks, as rows of their own.
    fn timer_only_table(&self) -> Option<Table> {
        let timers = self.timers.as_ref()?;
        Some(Table {
            columns: vec![
                Column::left("timer with no pass frame on the stacks"),
                Column::left("kind"),
                Column::right("timers"),
                Column::right("timer s"),
                Column::right("user s"),
            ],
            rows: timers
                .timer_only
                .iter()
                .map(|timer| {
                    let kind = match timer.kind {
                        TimerKind::Pass => "pass",
                        TimerKind::Pipeline => "pipeline",
                        TimerKind::Analysis => "analysis",
                    };
                    vec![
                        timer.name.clone().into(),
                        kind.to_owned().into(),
                        timer.timers.to_string().into(),
                        format!("{:.3}", timer.wall_seconds).into(),
                        format!("{:.3}", timer.user_seconds).into(),
                    ]
                })
                .collect(),
        })
    }

    /// With `--by symbol`, each symbol row's shown name: shortened as the top
    /// symbols are, and told apart, by their binary if need be (none in CSV,
    /// whose names stay whole).
    fn shown_symbol_rows(&self, top_width: usize) -> HashMap<RowKey, String> {
        if self.options.grouping != Grouping::Symbol || top_width == usize::MAX {
            return HashMap::new();
        }
        let keys: Vec<RowKey> = self.rows().map(|(key, _)| key).collect();
        let labels: Vec<String> = keys.iter().map(|key| self.label(*key).name).collect();
        let names: Vec<&str> = labels.iter().map(String::as_str).collect();
        let mut shown = short_name::distinct(&names, SYMBOL_ROW_WIDTH);
        // Functions of one name in two binaries (PLT stubs, static copies)
        // are told apart by their binary.
        let mut uses: HashMap<String, usize> = HashMap::new();
        for name in &shown {
            *uses.entry(name.clone()).or_default() += 1;
        }
        for (name, key) in shown.iter_mut().zip(&keys) {
            if let (Some(2..), RowKey::Symbol(id)) = (uses.get(name.as_str()), key) {
                let dso = self.profile.symbols.get(*id).dso;
                name.push_str(&format!(" ({})", self.profile.store.get(dso).name));
            }
        }
        keys.into_iter().zip(shown).collect()
    }

    /// Writes the report as text, Markdown or CSV.
    pub(crate) fn write_text(
        &self,
        format: TextFormat,
        colors: Colors,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        if format == TextFormat::Csv {
            write_table(&self.main_table(usize::MAX), format, Colors::Plain, out)?;
            // Timers with no pass frame follow as a second table.
            if let Some(timers) = self.timer_only_table() {
                writeln!(out)?;
                write_table(&timers, format, Colors::Plain, out)?;
            }
            return Ok(());
        }
        let markdown = format == TextFormat::Markdown;
        for line in self.header_lines() {
            if markdown {
                writeln!(out, "- {line}")?;
            } else {
                writeln!(out, "{line}")?;
            }
        }
        writeln!(out)?;
        write_table(&self.main_table(TEXT_SYMBOL_WIDTH), format, colors, out)?;
        if let Some(timers) = self.timer_only_table() {
            writeln!(out)?;
            write_table(&timers, format, Colors::Plain, out)?;
        }
        let processes = self.process_table();
        if processes.rows.len() > 1 {
            writeln!(out)?;
            write_table(&processes, format, Colors::Plain, out)?;
        }
        if let Some(run) = &self.run {
            artifacts::write_text(&run.artifacts, format, out)?;
        }
        crate::report::consteval::write_text(self.consteval.as_ref(), format, out)
    }

    /// With rows of passes: how the passes of a nested compiler
    /// (const-eval's JIT) were found, and how many samples they hold.
    fn nested_line(&self) -> Option<String> {
        if self.options.grouping != Grouping::Pass {
            return None;
        }
        let passes = &self.classes.passes;
        let (mut owner, mut samples, mut credited) = (None, 0, 0);
        for (key, row) in self.rows() {
            let RowKey::Pass(pass) = key else { continue };
            if let Some(parent) = passes.parent(pass) {
                owner = Some(parent);
                samples += row.self_samples;
                credited += row.credited_samples;
            }
        }
        let owner = passes.name(owner?);
        Some(format!(
            "nested: {owner} compiles a module of its own (const-eval's JIT): its pipeline's \
             passes are rows `{owner} > …`, {samples} samples ({:.1}%): {} with {owner} on \
             their stack, {credited} on other threads while the main thread was in {owner} \
             (credited)",
            percent(samples, self.samples()),
            samples - credited,
        ))
    }

    /// Samples per process image, with their top categories.
    fn process_table(&self) -> Table {
        let by_process = crate::attribute::group(
            self.profile,
            self.classes,
            Grouping::Process,
            self.options.attribution,
            &self.options.filter,
            self.options.actions.as_deref(),
        );
        let mut rows: Vec<_> = by_process.rows.iter().collect();
        rows.sort_by(|a, b| (b.1.self_samples, a.0).cmp(&(a.1.self_samples, b.0)));
        let samples = by_process.samples;
        Table {
            columns: vec![
                Column::left("process"),
                Column::right(self.profile.unit),
                Column::right("share"),
                Column::left("top categories"),
            ],
            rows: rows
                .into_iter()
                .map(|(key, row)| {
                    let label = self.label(*key).name;
                    let top = self
                        .top_details(row, TEXT_TOP)
                        .into_iter()
                        .map(|(name, count)| format!("{name} ({count})"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    vec![
                        label.into(),
                        row.self_samples.to_string().into(),
                        format!("{:.1}%", percent(row.self_samples, samples)).into(),
                        top.into(),
                    ]
                })
                .collect(),
        }
    }
}
