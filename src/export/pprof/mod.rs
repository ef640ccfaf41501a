//! pprof: the gzipped `profile.proto` that `go tool pprof`, Pyroscope and
//! Parca read. Two sample types, `samples/count` and `cpu/nanoseconds`
//! (samples × the sampling period); every sample labelled with its
//! `category` (the leaf function's, by the name reports show) and
//! `category_id` (the id `--category` and rules files use), `pass` (the
//! innermost pass, or the place outside passes), `thread` and `process`
//! (and the numbers `pid` and `tid`); when the run recorded MLIR's actions
//! (`record --actions`), also `pattern` and `unit`, the rows of `report
//! --by pattern` and `--by unit` the sample counts in. Functions carry their demangled names
//! (the symbol table's raw name as the system name); mappings carry the
//! binary's path and build id and say `has_functions`, so pprof does not
//! try to symbolize again, and the range of addresses their locations are
//! in (the binary's executable segment, in the file's own addresses, as
//! the locations are; or, without the binary, the locations' own range).
//! Inlined functions are lines of their location, innermost first.

mod proto;

use std::io::{self, Write};

use flate2::Compression;
use flate2::write::GzEncoder;
use hashbrown::HashMap;
use prost::Message;

use super::{Labelled, Samples};
use crate::binary::{DsoId, hex};
use crate::fold::TRUNCATED_FRAME;
use crate::process::ProcessId;
use crate::stacks::FrameId;
use crate::symbolize::SymbolId;
use proto::{Function, Label, Line, Location, Mapping, Profile, Sample, ValueType};

/// When and what was recorded, beyond what the recording says.
#[derive(Clone, Debug, Default)]
pub(crate) struct PprofFacts {
    /// When the first sample was taken, in nanoseconds since the Unix epoch.
    pub start_unix_nanos: Option<i64>,
}

/// Writes `samples` as a gzipped pprof profile.
pub(crate) fn write(
    samples: &Samples<'_>,
    facts: &PprofFacts,
    out: &mut dyn Write,
) -> io::Result<()> {
    let profile = build(samples, facts);
    let mut gzip = GzEncoder::new(out, Compression::default());
    gzip.write_all(&profile.encode_to_vec())?;
    gzip.finish()?;
    Ok(())
}

/// The profile message of `samples`.
fn build(samples: &Samples<'_>, facts: &PprofFacts) -> Profile {
    let mut builder = Builder::default();
    builder.strings.intern("");
    let nanoseconds = samples.nanoseconds_per_sample();
    let value_type = |builder: &mut Builder, kind: &str, unit: &str| ValueType {
        r#type: builder.strings.intern(kind),
        unit: builder.strings.intern(unit),
    };
    let count = value_type(&mut builder, "samples", "count");
    let cpu = nanoseconds.map(|_| value_type(&mut builder, "cpu", "nanoseconds"));
    let period_type = cpu.clone().unwrap_or_else(|| count.clone());
    let mut sample_type = vec![count];
    sample_type.extend(cpu);
    let keys = LabelKeys::new(&mut builder);
    // pprof takes the first mapping for the main binary.
    if let Some(executable) = main_executable(samples) {
        builder.mapping(samples, executable);
    }
    let mut sample = Vec::with_capacity(samples.stacks.len());
    for stack in &samples.stacks {
        let mut value = vec![count_value(stack.count)];
        if let Some(nanoseconds) = nanoseconds {
            value.push((stack.count as f64 * nanoseconds).round() as i64);
        }
        sample.push(Sample {
            location_id: builder.locations_leaf_first(samples, stack),
            value,
            label: keys.labels(&mut builder, samples, stack),
        });
    }
    builder.cover_locations();
    let comment = vec![builder.strings.intern(&samples.profile.profiled_command())];
    let default_sample_type = sample_type.last().map_or(0, |kind| kind.r#type);
    Profile {
        sample_type,
        sample,
        mapping: builder.mappings,
        location: builder.locations,
        function: builder.functions,
        time_nanos: facts.start_unix_nanos.unwrap_or(0),
        duration_nanos: i64::try_from(samples.last_time() - samples.first_time()).unwrap_or(0),
        period: nanoseconds.map_or(1, |nanoseconds| nanoseconds.round() as i64),
        period_type: Some(period_type),
        comment,
        default_sample_type,
        string_table: builder.strings.table,
    }
}

/// The executable of the process with the most samples.
fn main_executable(samples: &Samples<'_>) -> Option<DsoId> {
    let processes = &samples.profile.processes;
    let mut per_process: HashMap<ProcessId, u64> = HashMap::new();
    for stack in &samples.stacks {
        *per_process
            .entry(processes.thread(stack.key.thread).process)
            .or_default() += stack.count;
    }
    let (&busiest, _) = per_process
        .iter()
        .max_by_key(|(process, count)| (**count, std::cmp::Reverse(**process)))?;
    let executable = processes.image(busiest).executable.as_deref()?;
    samples
        .profile
        .store
        .iter()
        .find(|(_, dso)| dso.recorded_path == executable)
        .map(|(id, _)| id)
}

fn count_value(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The string table: each string once, its index in the table.
#[derive(Default)]
struct Strings {
    table: Vec<String>,
    index: HashMap<String, i64>,
}

impl Strings {
    fn intern(&mut self, text: &str) -> i64 {
        if let Some(&at) = self.index.get(text) {
            return at;
        }
        let at = self.table.len() as i64;
        self.table.push(text.to_owned());
        self.index.insert(text.to_owned(), at);
        at
    }
}

/// The tables of the profile, each entry made once (pprof ids start at 1).
#[derive(Default)]
struct Builder {
    strings: Strings,
    mappings: Vec<Mapping>,
    mapping_ids: HashMap<DsoId, u64>,
    locations: Vec<Location>,
    location_ids: HashMap<FrameId, u64>,
    truncated_location: Option<u64>,
    functions: Vec<Function>,
    function_ids: HashMap<SymbolId, u64>,
}

impl Builder {
    /// The locations of a stack, leaf first; a stack that stops early ends
    /// in a `[truncated]` location, as folded stacks begin with one.
    fn locations_leaf_first(&mut self, samples: &Samples<'_>, stack: &Labelled) -> Vec<u64> {
        let profile = samples.profile;
        let mut ids: Vec<u64> = profile
            .stacks
            .frames_leaf_first(stack.key.stack)
            .map(|frame| self.location(samples, frame))
            .collect();
        if stack.truncated {
            ids.push(self.truncated_location());
        }
        ids
    }

    fn location(&mut self, samples: &Samples<'_>, frame: FrameId) -> u64 {
        if let Some(&id) = self.location_ids.get(&frame) {
            return id;
        }
        let profile = samples.profile;
        let key = profile.stacks.frames[frame.index()];
        let mapping_id = self.mapping(samples, key.dso);
        let line = profile
            .symbols
            .of_frame(frame)
            .iter()
            .map(|&symbol| Line {
                function_id: self.function(samples, symbol),
                line: 0,
            })
            .collect();
        let id = self.locations.len() as u64 + 1;
        self.locations.push(Location {
            id,
            mapping_id,
            address: key.lookup,
            line,
        });
        self.location_ids.insert(frame, id);
        id
    }

    fn truncated_location(&mut self) -> u64 {
        if let Some(id) = self.truncated_location {
            return id;
        }
        let function_id = self.functions.len() as u64 + 1;
        let name = self.strings.intern(TRUNCATED_FRAME);
        self.functions.push(Function {
            id: function_id,
            name,
            system_name: name,
            filename: 0,
        });
        let id = self.locations.len() as u64 + 1;
        self.locations.push(Location {
            id,
            mapping_id: 0,
            address: 0,
            line: vec![Line {
                function_id,
                line: 0,
            }],
        });
        self.truncated_location = Some(id);
        id
    }

    fn mapping(&mut self, samples: &Samples<'_>, dso: DsoId) -> u64 {
        if let Some(&id) = self.mapping_ids.get(&dso) {
            return id;
        }
        let binary = samples.profile.store.get(dso);
        let build_id = binary
            .expected_build_id
            .clone()
            .or_else(|| {
                binary
                    .image
                    .as_ref()
                    .and_then(|image| image.build_id.clone())
            })
            .map_or(0, |id| self.strings.intern(&hex(&id)));
        // The locations' addresses are the file's own (SVMA), so the
        // mapping is the executable segment as the file states it.
        let segment = (binary.image.as_ref())
            .and_then(|image| image.segments.iter().find(|segment| segment.executable));
        let id = self.mappings.len() as u64 + 1;
        self.mappings.push(Mapping {
            id,
            memory_start: segment.map_or(0, |segment| segment.svma),
            memory_limit: segment.map_or(0, |segment| segment.svma + segment.file_size),
            file_offset: segment.map_or(0, |segment| segment.file_offset),
            filename: self.strings.intern(&binary.recorded_path),
            build_id,
            has_functions: true,
            has_filenames: false,
            has_line_numbers: false,
            has_inline_frames: true,
        });
        self.mapping_ids.insert(dso, id);
        id
    }

    /// Widens every mapping to hold the addresses of its locations: a
    /// mapping without its binary gets their range, and one whose segment
    /// misses some (another build's addresses) grows to hold them.
    fn cover_locations(&mut self) {
        for location in &self.locations {
            let Some(mapping) = (location.mapping_id.checked_sub(1))
                .and_then(|index| self.mappings.get_mut(index as usize))
            else {
                continue;
            };
            if mapping.memory_start == 0 && mapping.memory_limit == 0 {
                mapping.memory_start = location.address;
                mapping.memory_limit = location.address + 1;
            } else {
                mapping.memory_start = mapping.memory_start.min(location.address);
                mapping.memory_limit = mapping.memory_limit.max(location.address + 1);
            }
        }
    }

    fn function(&mut self, samples: &Samples<'_>, symbol: SymbolId) -> u64 {
        if let Some(&id) = self.function_ids.get(&symbol) {
            return id;
        }
        let named = samples.profile.symbols.get(symbol);
        let name = self.strings.intern(&named.name);
        let system_name = named
            .mangled
            .as_deref()
            .map_or(name, |mangled| self.strings.intern(mangled));
        let id = self.functions.len() as u64 + 1;
        self.functions.push(Function {
            id,
            name,
            system_name,
            filename: 0,
        });
        self.function_ids.insert(symbol, id);
        id
    }
}

/// The string-table indexes of the label keys.
struct LabelKeys {
    category: i64,
    category_id: i64,
    pass: i64,
    thread: i64,
    process: i64,
    pid: i64,
    tid: i64,
    pattern: i64,
    unit: i64,
}

impl LabelKeys {
    fn new(builder: &mut Builder) -> LabelKeys {
        let mut key = |name| builder.strings.intern(name);
        LabelKeys {
            category: key("category"),
            category_id: key("category_id"),
            pass: key("pass"),
            thread: key("thread"),
            process: key("process"),
            pid: key("pid"),
            tid: key("tid"),
            pattern: key("pattern"),
            unit: key("unit"),
        }
    }

    fn labels(&self, builder: &mut Builder, samples: &Samples<'_>, stack: &Labelled) -> Vec<Label> {
        let thread = stack.key.thread;
        let (process, pid) = samples.process_of(thread);
        let tid = samples.profile.processes.thread(thread).tid;
        let mut text = |key: i64, value: &str| Label {
            key,
            str: builder.strings.intern(value),
            num: 0,
            num_unit: 0,
        };
        let number = |key: i64, value: i32| Label {
            key,
            str: 0,
            num: i64::from(value),
            num_unit: 0,
        };
        let mut labels = vec![
            text(
                self.category,
                &samples.classes.table.category(stack.category).name,
            ),
            text(self.category_id, samples.category_id(stack.category)),
            text(self.pass, samples.place_name(stack.place)),
            text(self.thread, samples.thread_name(thread)),
            text(self.process, process),
            number(self.pid, pid),
            number(self.tid, tid),
        ];
        if let Some(places) = stack.actions {
            for (key, row) in [(self.pattern, places.pattern), (self.unit, places.unit)] {
                if let Some(name) = samples.action_row_name(row) {
                    labels.push(text(key, &name));
                }
            }
        }
        labels
    }
}
