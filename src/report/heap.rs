//! The heap section of `--heap` readings (`record --heap`) as text lines:
//! the live heap at the instant read, with its standard error; the pass
//! that holds the most then, and what is still live at the end (never
//! freed), by pass; the live heap against the compiler's RSS growth over
//! its start, as a ratio; and `diff --heap`'s comparison of two sides. The
//! figures (and the JSON `heap_peak`) are `attribute::heap`'s and
//! `attribute::heap_diff`'s.

use std::io::{self, Write};

use crate::attribute::heap::{HeapPeak, PlaceBytes};
use crate::attribute::heap_diff::{HeapPeakDiff, HeapSide, NamedChange};

/// How many passes a line names.
const PASSES_NAMED: usize = 3;

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

fn signed_mib(bytes: i64) -> String {
    format!("{:+.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

fn places_line(places: &[PlaceBytes], total: u64) -> String {
    let named: Vec<String> = (places.iter().take(PASSES_NAMED))
        .map(|place| {
            format!(
                "{} {} ({:.0}%)",
                place.pass,
                mib(place.live_bytes),
                crate::attribute::percent(place.live_bytes, total)
            )
        })
        .collect();
    named.join(", ")
}

/// The heap section as text lines.
pub(crate) fn write_text(heap: &HeapPeak, out: &mut dyn Write) -> io::Result<()> {
    let instant = match &*heap.instant {
        "rss_peak" => "at the RSS peak",
        "heap_peak" => "at its most (no RSS series)",
        _ => "at the time given",
    };
    writeln!(
        out,
        "heap: live {instant}, {:.2} s, in {} ({}): {} ± {} (standard error; {} sampled allocations); the most live heap sampled: {} at {:.2} s",
        heap.seconds,
        heap.process,
        heap.pid,
        mib(heap.live_bytes),
        mib(heap.standard_error_bytes),
        heap.sampled_allocations,
        mib(heap.max_live_bytes),
        heap.max_seconds,
    )?;
    if let Some(pass) = &heap.pass {
        writeln!(
            out,
            "heap: held most by {pass}: {}; by pass: {}",
            mib(heap.pass_live_bytes),
            places_line(&heap.by_pass, heap.live_bytes)
        )?;
    }
    if let (Some(rss), Some(growth), Some(anon)) = (
        heap.rss_bytes,
        heap.rss_growth_bytes,
        heap.anon_growth_bytes,
    ) {
        let ratio = |ratio: Option<f64>| ratio.map_or("-".to_owned(), |r| format!("{r:.2}"));
        writeln!(
            out,
            "heap: RSS then {} ({} over its start; anonymous {}): live heap / RSS growth = {}, / anonymous growth = {} (RSS also counts mapped library pages; the heap does not count memory malloc keeps after a free, arena and page rounding, stacks, mmaps outside malloc)",
            mib(rss),
            signed_mib(growth),
            signed_mib(anon),
            ratio(heap.live_to_rss_growth),
            ratio(heap.live_to_anon_growth),
        )?;
    }
    if let Some(consteval) = &heap.consteval {
        writeln!(
            out,
            "heap: const-eval's globals: {} of {} seen live (a sampled allocation of their size; {} of {}), their values {} of the live heap ({:.0}%), allocated by ConstEval::CompiledBinary::convertVariantToAttribute",
            consteval.globals_alive.len(),
            consteval.globals,
            mib(consteval.alive_bytes),
            mib(consteval.global_bytes),
            mib(consteval.live_bytes),
            consteval.percent_of_live,
        )?;
    }
    let end = &heap.at_end;
    write!(
        out,
        "heap: live at the end (never freed): {} ± {} ({} sampled allocations)",
        mib(end.live_bytes),
        mib(end.standard_error_bytes),
        end.sampled_allocations
    )?;
    if !end.by_pass.is_empty() {
        write!(
            out,
            "; by pass: {}",
            places_line(&end.by_pass, end.live_bytes)
        )?;
    }
    writeln!(out)
}

/// How many passes and categories a line of `diff --heap` names.
const CHANGES_NAMED: usize = 5;

fn side_text(side: &HeapSide) -> String {
    let runs = if side.runs == 1 { "run" } else { "runs' mean" };
    format!(
        "{} ± {} at {:.2} s ({} {runs}; held most by {})",
        mib(side.live_bytes),
        mib(side.standard_error_bytes),
        side.seconds,
        side.runs,
        side.pass.as_deref().unwrap_or("-"),
    )
}

fn changes_line(changes: &[NamedChange]) -> String {
    let named: Vec<String> = (changes.iter().take(CHANGES_NAMED))
        .map(|change| {
            format!(
                "{} {} → {} ({})",
                change.name,
                mib(change.base_live_bytes),
                mib(change.new_live_bytes),
                signed_mib(change.delta_bytes)
            )
        })
        .collect();
    named.join(", ")
}

/// `diff --heap`'s lines: each side's live heap, the change and whether it
/// is beyond the sampling error, and the passes and categories on each side.
pub(crate) fn write_diff_text(diff: &HeapPeakDiff, out: &mut dyn Write) -> io::Result<()> {
    let instant = match &*diff.base.instant {
        "rss_peak" => "at the RSS peak",
        "heap_peak" => "at its most (no RSS series)",
        _ => "at the time given",
    };
    writeln!(out, "heap: live {instant}: base {}", side_text(&diff.base))?;
    writeln!(out, "heap: live {instant}: new  {}", side_text(&diff.new))?;
    let percent = diff
        .delta_percent
        .map_or(String::new(), |percent| format!(" ({percent:+.1}%)"));
    let z = diff
        .z
        .map_or("no sampling error".to_owned(), |z| format!("z = {z:.2}"));
    let verdict = if diff.beyond_error {
        "beyond the sampling error"
    } else {
        "within the sampling error"
    };
    writeln!(
        out,
        "heap: change {}{percent} ± {}; {z}: {verdict} ({})",
        signed_mib(diff.delta_bytes),
        mib(diff.standard_error_bytes),
        diff.test
    )?;
    writeln!(
        out,
        "heap: by pass (base → new): {}",
        changes_line(&diff.by_pass)
    )?;
    writeln!(
        out,
        "heap: by category (base → new): {}",
        changes_line(&diff.by_category)
    )?;
    writeln!(
        out,
        "heap: live at the end (never freed): base {}, new {}",
        mib(diff.base.at_end_bytes),
        mib(diff.new.at_end_bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribute::heap::example_peak;
    use crate::attribute::heap_diff::compare;

    #[test]
    fn diff_lines_state_both_sides_the_change_its_test_and_the_passes() {
        let base = [example_peak(
            100 << 20,
            3 << 20,
            &[("A", 60 << 20), ("B", 40 << 20)],
        )];
        let new = [example_peak(
            120 << 20,
            4 << 20,
            &[("A", 80 << 20), ("B", 40 << 20)],
        )];
        let compared = compare(&base, &new).unwrap();
        let mut out = Vec::new();
        write_diff_text(&compared, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in [
            "heap: live at the RSS peak: base 100.0 MiB ± 3.0 MiB at 2.00 s (1 run; held most by A)\n",
            "heap: live at the RSS peak: new  120.0 MiB ± 4.0 MiB at 2.00 s (1 run; held most by A)\n",
            "heap: change +20.0 MiB (+20.0%) ± 5.0 MiB; z = 4.00: beyond the sampling error (two-sided z test",
            "heap: by pass (base → new): A 60.0 MiB → 80.0 MiB (+20.0 MiB), B 40.0 MiB → 40.0 MiB (+0.0 MiB)\n",
            "heap: by category (base → new): Constant folding 100.0 MiB → 120.0 MiB (+20.0 MiB)\n",
        ] {
            assert!(text.contains(line), "{line} not in {text}");
        }
    }
}
