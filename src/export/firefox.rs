//! The Firefox Profiler's processed format (profiler.firefox.com opens it),
//! written with `fxprof-processed-profile`, samply's crate: one process per
//! process image, one thread per recorded thread, every sample at its real
//! time (from the first sample kept, or from the start of the run when
//! `run.json` says when that was). Every category on the stacks is a
//! category of the profile, with a colour of the profiler's palette: the
//! nearest to its own not yet taken, busiest category first, so that the
//! categories can be told apart while the palette lasts (grey is the
//! profiler's Other); a frame has its function's category, and the leaf
//! frame the sample's self category. Pass spans are interval markers on
//! their thread.

use std::io::{self, Write};
use std::time::{Duration, UNIX_EPOCH};

use fxprof_processed_profile::{
    CategoryColor, CategoryHandle, CategoryPairHandle, CpuDelta, Frame, FrameFlags, FrameInfo,
    MarkerFieldFlags, MarkerFieldFormat, MarkerTiming, Profile, ReferenceTimestamp,
    SamplingInterval, StaticSchemaMarker, StaticSchemaMarkerField, StringHandle, ThreadHandle,
    Timestamp,
};
use hashbrown::HashMap;

use super::Samples;
use super::spans::pass_spans;
use crate::fold::TRUNCATED_FRAME;
use crate::process::{ProcessId, ThreadId};
use category_rules::CategoryId;

/// The profiler's palette, with the RGB of each colour as its style sheet
/// draws it (Photon colours).
const PALETTE: [(CategoryColor, [u8; 3]); 13] = [
    (CategoryColor::LightBlue, [0x75, 0xc5, 0xff]),
    (CategoryColor::Red, [0xff, 0x00, 0x39]),
    (CategoryColor::LightRed, [0xff, 0x84, 0x84]),
    (CategoryColor::Orange, [0xff, 0x94, 0x00]),
    (CategoryColor::Blue, [0x0a, 0x84, 0xff]),
    (CategoryColor::Green, [0x12, 0xbc, 0x00]),
    (CategoryColor::Purple, [0x91, 0x59, 0xff]),
    (CategoryColor::Yellow, [0xff, 0xe9, 0x00]),
    (CategoryColor::Brown, [0x8f, 0x56, 0x2b]),
    (CategoryColor::Magenta, [0xff, 0x1a, 0xd9]),
    (CategoryColor::LightGreen, [0x87, 0xe0, 0x7b]),
    (CategoryColor::Gray, [0xb1, 0xb1, 0xb3]),
    (CategoryColor::DarkGray, [0x4a, 0x4a, 0x4f]),
];

/// The profiler's own category for what has none, which our `Other` maps to.
const PROFILER_OTHER: &str = "Other";

/// Writes `samples` as a Firefox Profiler profile. `start_unix_nanos` is
/// when the run began, if known.
pub(crate) fn write(
    samples: &Samples<'_>,
    start_unix_nanos: Option<i64>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let profile = build(samples, start_unix_nanos);
    serde_json::to_writer(&mut *out, &profile)?;
    writeln!(out)
}

/// One pass span, as a marker.
struct PassMarker {
    name: StringHandle,
    samples: u64,
}

impl StaticSchemaMarker for PassMarker {
    const UNIQUE_MARKER_TYPE_NAME: &'static str = "MlirPass";
    const DESCRIPTION: Option<&'static str> =
        Some("A run of consecutive samples whose stacks pass through this MLIR pass");
    const CHART_LABEL: Option<&'static str> = Some("{marker.name}");
    const TABLE_LABEL: Option<&'static str> = Some("{marker.name} ({marker.data.samples} samples)");
    const FIELDS: &'static [StaticSchemaMarkerField] = &[StaticSchemaMarkerField {
        key: "samples",
        label: "Samples",
        format: MarkerFieldFormat::Integer,
        flags: MarkerFieldFlags::SEARCHABLE,
    }];

    fn name(&self, _profile: &mut Profile) -> StringHandle {
        self.name
    }

    fn category(&self, _profile: &mut Profile) -> CategoryHandle {
        CategoryHandle::OTHER
    }

    fn string_field_value(&self, _field_index: u32) -> StringHandle {
        unreachable!("the pass marker has no string field")
    }

    fn number_field_value(&self, _field_index: u32) -> f64 {
        self.samples as f64
    }
}

fn build(samples: &Samples<'_>, start_unix_nanos: Option<i64>) -> Profile {
    let period = samples.nanoseconds_per_sample().unwrap_or(0.0).round() as u64;
    let reference = start_unix_nanos
        .and_then(|nanos| u64::try_from(nanos).ok())
        .map_or(
            ReferenceTimestamp::from_millis_since_unix_epoch(0.0),
            |nanos| ReferenceTimestamp::from_system_time(UNIX_EPOCH + Duration::from_nanos(nanos)),
        );
    let mut profile = Profile::new(
        &samples.profile.profiled_command(),
        reference,
        SamplingInterval::from_nanos(period.max(1)),
    );
    profile.set_product("iree-compile, profiled by compile-perf");
    profile.set_symbolicated(true);
    let origin = samples.first_time();
    let at = |time: u64| Timestamp::from_nanos_since_reference(time.saturating_sub(origin));

    let table = samples.classes.table;
    let colors = distinct_colors(&category_samples(samples), |id| {
        table.category(id).color.as_str()
    });
    let mut categories: HashMap<CategoryId, CategoryHandle> = HashMap::new();
    let mut category_of = |profile: &mut Profile, id: CategoryId| {
        *categories.entry(id).or_insert_with(|| {
            let category = table.category(id);
            if category.name == PROFILER_OTHER {
                CategoryHandle::OTHER
            } else {
                let color = colors
                    .get(&id)
                    .copied()
                    .unwrap_or_else(|| nearest_color(&category.color, &[]));
                profile.add_category(&category.name, color)
            }
        })
    };

    // Every category on the stacks is a category of the profile, also one
    // that is only an inlined leaf's (the leaf frame shows the sample's
    // self category, that of the function its address is in).
    for stack in &samples.stacks {
        category_of(&mut profile, stack.category);
        for symbol in samples.symbols_root_first(stack) {
            category_of(&mut profile, samples.classes.category_of(symbol));
        }
    }

    let mut processes: HashMap<ProcessId, _> = HashMap::new();
    let mut threads: HashMap<ThreadId, ThreadHandle> = HashMap::new();
    let mut last_time: HashMap<ThreadId, u64> = HashMap::new();
    for &(time, index) in &samples.timed {
        let stack = &samples.stacks[index];
        let thread_id = stack.key.thread;
        let thread = *threads.entry(thread_id).or_insert_with(|| {
            let slot = samples.profile.processes.thread(thread_id);
            let image = samples.profile.processes.image(slot.process);
            let process = *processes
                .entry(slot.process)
                .or_insert_with(|| profile.add_process(&image.name, image.pid as u32, at(time)));
            let handle =
                profile.add_thread(process, slot.tid as u32, at(time), slot.tid == image.pid);
            profile.set_thread_name(handle, &slot.name);
            handle
        });
        let mut frames = Vec::new();
        if stack.truncated {
            let label = profile.intern_string(TRUNCATED_FRAME);
            let other = category_of(&mut profile, table.other());
            frames.push(frame(label, other));
        }
        let symbols = samples.symbols_root_first(stack);
        for (depth, &symbol) in symbols.iter().enumerate() {
            let category = if depth + 1 == symbols.len() {
                stack.category
            } else {
                samples.classes.category_of(symbol)
            };
            let handle = category_of(&mut profile, category);
            let label = profile.intern_string(samples.symbol_name(symbol));
            frames.push(frame(label, handle));
        }
        let stack_handle = profile.intern_stack_frames(thread, frames.into_iter());
        let previous = last_time.insert(thread_id, time);
        let cpu = previous.map_or(period, |previous| period.min(time - previous));
        profile.add_sample(thread, at(time), stack_handle, CpuDelta::from_nanos(cpu), 1);
    }
    for span in pass_spans(samples) {
        let Some(&thread) = threads.get(&span.thread) else {
            continue;
        };
        let name = profile.intern_string(samples.classes.passes.name(span.pass));
        profile.add_marker(
            thread,
            MarkerTiming::Interval(at(span.start), at(span.end)),
            PassMarker {
                name,
                samples: span.samples,
            },
        );
    }
    profile
}

fn frame(label: StringHandle, category: CategoryHandle) -> FrameInfo {
    FrameInfo {
        frame: Frame::Label(label),
        category_pair: CategoryPairHandle::from(category),
        flags: FrameFlags::empty(),
    }
}

/// Every category on the stacks (a frame's or a sample's self category),
/// with the samples whose stacks hold it, busiest first (then by id).
fn category_samples(samples: &Samples<'_>) -> Vec<(CategoryId, u64)> {
    let mut counts: HashMap<CategoryId, u64> = HashMap::new();
    for stack in &samples.stacks {
        let mut seen = vec![stack.category];
        for symbol in samples.symbols_root_first(stack) {
            seen.push(samples.classes.category_of(symbol));
        }
        seen.sort_unstable();
        seen.dedup();
        for id in seen {
            *counts.entry(id).or_default() += stack.count;
        }
    }
    let mut counts: Vec<(CategoryId, u64)> = counts.into_iter().collect();
    counts.sort_unstable_by_key(|&(id, count)| (std::cmp::Reverse(count), id));
    counts
}

/// A palette colour for each category of `busiest_first`: the nearest to
/// its own (`color_of`) among those not taken yet, grey aside (the
/// profiler's Other is grey); once every colour is taken, the nearest.
fn distinct_colors<'a>(
    busiest_first: &[(CategoryId, u64)],
    color_of: impl Fn(CategoryId) -> &'a str,
) -> HashMap<CategoryId, CategoryColor> {
    let mut taken = vec![CategoryColor::Gray];
    let mut colors = HashMap::new();
    for &(id, _) in busiest_first {
        let all_taken = taken.len() >= PALETTE.len();
        let color = nearest_color(color_of(id), if all_taken { &[] } else { &taken });
        taken.push(color);
        colors.insert(id, color);
    }
    colors
}

/// The palette colour nearest to `#rrggbb` but those in `taken`; grey for
/// what does not parse.
fn nearest_color(hex: &str, taken: &[CategoryColor]) -> CategoryColor {
    let Some(rgb) = parse_hex(hex) else {
        return CategoryColor::Gray;
    };
    PALETTE
        .iter()
        .filter(|(color, _)| !taken.contains(color))
        .min_by_key(|(_, palette)| {
            palette
                .iter()
                .zip(rgb)
                .map(|(&a, b)| (i32::from(a) - i32::from(b)).pow(2))
                .sum::<i32>()
        })
        .map_or(CategoryColor::Gray, |(color, _)| *color)
}

fn parse_hex(hex: &str) -> Option<[u8; 3]> {
    let digits = hex.strip_prefix('#')?;
    if digits.len() != 6 {
        return None;
    }
    let channel = |at: usize| u8::from_str_radix(digits.get(at..at + 2)?, 16).ok();
    Some([channel(0)?, channel(2)?, channel(4)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_map_to_the_nearest_of_the_palette() {
        assert_eq!(nearest_color("#1f77b4", &[]), CategoryColor::Blue);
        assert_eq!(nearest_color("#e6550d", &[]), CategoryColor::Orange);
        assert_eq!(nearest_color("#d9d9d9", &[]), CategoryColor::Gray);
        assert_eq!(nearest_color("#2ca02c", &[]), CategoryColor::Green);
        assert_eq!(nearest_color("not a colour", &[]), CategoryColor::Gray);
        // Green taken: another colour, not grey.
        let next = nearest_color("#2ca02c", &[CategoryColor::Green]);
        assert!(![CategoryColor::Green, CategoryColor::Gray].contains(&next));
    }

    #[test]
    fn categories_get_distinct_colours_while_the_palette_lasts() {
        // Fourteen greens: the busiest gets green, the next the nearest
        // colour left, and so on; grey stays the profiler's Other's.
        let categories: Vec<(CategoryId, u64)> = (0..14)
            .map(|index| (CategoryId::new(index), 100 - index as u64))
            .collect();
        let colors = distinct_colors(&categories, |_| "#2ca02c");
        assert_eq!(colors[&CategoryId::new(0)], CategoryColor::Green);
        let mut first_twelve: Vec<CategoryColor> = (0..12)
            .map(|index| colors[&CategoryId::new(index)])
            .collect();
        assert!(!first_twelve.contains(&CategoryColor::Gray));
        first_twelve.sort_by_key(|color| format!("{color:?}"));
        first_twelve.dedup();
        assert_eq!(first_twelve.len(), 12, "twelve distinct colours");
        // Past the palette, the nearest again.
        assert_eq!(colors[&CategoryId::new(13)], CategoryColor::Green);
    }
}
