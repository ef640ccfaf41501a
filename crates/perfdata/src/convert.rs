//! Conversion of what linux-perf-data parses into the pipeline's plain
//! types: the header into [`RecordingInfo`], and event records into
//! [`Record`]s.

use std::panic::{AssertUnwindSafe, catch_unwind};

use linux_perf_data::linux_perf_event_reader::{
    ClockId, CpuMode, EventRecord, Mmap2FileId, PerfClock, PerfEventType, RawData, RawEventRecord,
    RecordType, SamplingPolicy, SoftwareCounterType,
};
use linux_perf_data::{DsoKey, PerfFile};

use super::{
    EventInfo, HeaderBuildId, Mapping, Record, RecordingInfo, Sample, SampleMode, UserRegs,
};

/// x86-64 `perf_regs` indexes of the registers the unwinder needs.
const REG_BP: u64 = 6;
const REG_SP: u64 = 7;
const REG_IP: u64 = 8;

pub(super) fn recording_info(perf_file: &PerfFile) -> RecordingInfo {
    let events = perf_file
        .event_attributes()
        .iter()
        .map(|attr| {
            let is_dummy = matches!(
                attr.attr.type_,
                PerfEventType::Software(SoftwareCounterType::Dummy)
            );
            EventInfo {
                name: attr
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| event_type_name(&attr.attr.type_)),
                is_sampling: !is_dummy
                    && !matches!(attr.attr.sampling_policy, SamplingPolicy::NoSampling),
                frequency: match attr.attr.sampling_policy {
                    SamplingPolicy::Frequency(hz) if hz > 0 => Some(hz),
                    _ => None,
                },
                period: match attr.attr.sampling_policy {
                    SamplingPolicy::Period(period) => Some(period.get()),
                    _ => None,
                },
                monotonic_clock: matches!(attr.attr.clock, PerfClock::ClockId(ClockId::Monotonic)),
            }
        })
        .collect();
    let build_ids = perf_file
        .build_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|(key, info)| HeaderBuildId {
            path: match key {
                DsoKey::Kernel => "[kernel.kallsyms]".to_owned(),
                _ => String::from_utf8_lossy(&info.path).into_owned(),
            },
            build_id: info.build_id,
        })
        .collect();
    RecordingInfo {
        events,
        perf_command: perf_file
            .cmdline()
            .ok()
            .flatten()
            .map(|args| args.into_iter().map(str::to_owned).collect()),
        os_release: perf_file.os_release().ok().flatten().map(str::to_owned),
        cpus_online: perf_file
            .nr_cpus()
            .ok()
            .flatten()
            .map(|cpus| cpus.nr_cpus_online),
        build_ids,
    }
}

fn event_type_name(event_type: &PerfEventType) -> String {
    match event_type {
        PerfEventType::Software(SoftwareCounterType::CpuClock) => "cpu-clock".to_owned(),
        PerfEventType::Software(SoftwareCounterType::TaskClock) => "task-clock".to_owned(),
        PerfEventType::Software(SoftwareCounterType::PageFaults) => "page-faults".to_owned(),
        other => format!("{other:?}"),
    }
}

/// Decodes one event record and hands it to `handle` if the pipeline uses
/// it; the error says why it cannot be decoded.
pub(super) fn deliver(
    attr_index: usize,
    record: &RawEventRecord<'_>,
    handle: &mut impl FnMut(Record<'_>),
) -> Result<(), String> {
    let parsed = catch_unwind(AssertUnwindSafe(|| record.parse()));
    let event = match parsed {
        Ok(Ok(event)) => event,
        Ok(Err(error)) => return Err(format!("undecodable record: {error}")),
        Err(_) => return Err("the perf.data parser rejected a malformed record".to_owned()),
    };
    if let Some(record) = convert(attr_index, event, record) {
        handle(record);
    }
    Ok(())
}

fn convert<'a>(
    event_index: usize,
    event: EventRecord<'a>,
    record: &RawEventRecord<'a>,
) -> Option<Record<'a>> {
    Some(match event {
        EventRecord::Sample(sample) => {
            let user_regs = sample.user_regs.and_then(|regs| {
                Some(UserRegs {
                    ip: regs.get(REG_IP)?,
                    sp: regs.get(REG_SP)?,
                    bp: regs.get(REG_BP)?,
                })
            });
            let user_stack = match sample.user_stack {
                Some((RawData::Single(bytes), dynamic_size)) => {
                    &bytes[..bytes.len().min(dynamic_size as usize)]
                }
                _ => &[],
            };
            Record::Sample(Sample {
                event_index,
                pid: sample.pid.unwrap_or(-1),
                tid: sample.tid.unwrap_or(-1),
                time: (sample.timestamp.or_else(|| record.timestamp())).unwrap_or(0),
                ip: sample.ip.unwrap_or(0),
                mode: match sample.cpu_mode {
                    CpuMode::Kernel => SampleMode::Kernel,
                    CpuMode::User => SampleMode::User,
                    _ => SampleMode::Other,
                },
                callchain: sample.callchain,
                user_regs,
                user_stack,
                period: sample.period,
                raw: match sample.raw {
                    Some(RawData::Single(bytes)) => bytes,
                    _ => &[],
                },
            })
        }
        EventRecord::Comm(comm) => Record::Comm {
            pid: comm.pid,
            tid: comm.tid,
            name: single(comm.name),
            is_exec: comm.is_execve,
        },
        EventRecord::Fork(fork) => Record::Fork {
            pid: fork.pid,
            ppid: fork.ppid,
            tid: fork.tid,
            parent_tid: fork.ptid,
        },
        EventRecord::Mmap(mmap) if mmap.is_executable => Record::Mmap(Mapping {
            pid: mmap.pid,
            start: mmap.address,
            len: mmap.length,
            file_offset: mmap.page_offset,
            path: single(mmap.path),
            build_id: None,
            is_kernel: mmap.cpu_mode == CpuMode::Kernel,
        }),
        // The kernel's own MMAP2 (`[kernel.kallsyms]_text`) comes without
        // PROT_EXEC; it is kept for the kernel text address it states.
        EventRecord::Mmap2(mmap)
            if mmap.protection & PROT_EXEC != 0 || mmap.cpu_mode == CpuMode::Kernel =>
        {
            Record::Mmap(Mapping {
                pid: mmap.pid,
                start: mmap.address,
                len: mmap.length,
                file_offset: mmap.page_offset,
                path: single(mmap.path),
                build_id: match mmap.file_id {
                    Mmap2FileId::BuildId(id) => Some(id),
                    Mmap2FileId::InodeAndVersion(_) => None,
                },
                is_kernel: mmap.cpu_mode == CpuMode::Kernel,
            })
        }
        EventRecord::Lost(lost) => {
            let (time, cpu) = loss_time_and_cpu(record);
            Record::Lost {
                count: lost.count,
                time,
                cpu,
            }
        }
        // PERF_RECORD_LOST_SAMPLES: samples dropped by the PMU or the kernel.
        EventRecord::Raw(raw) if raw.record_type == RecordType::LOST_SAMPLES => {
            let lost = raw.data.get(0..8)?.as_slice();
            let (time, cpu) = loss_time_and_cpu(record);
            Record::LostSamples {
                count: u64::from_le_bytes(lost.as_ref().try_into().ok()?),
                time,
                cpu,
            }
        }
        _ => return None,
    })
}

/// The time and the CPU of a lost-records record, from its `sample_id_all`
/// trailer. perf's own records, written at the end, have a zero trailer: a
/// zero time is no time, and then the CPU is not known either.
fn loss_time_and_cpu(record: &RawEventRecord<'_>) -> (Option<u64>, Option<u32>) {
    let common = record.common_data().unwrap_or_default();
    match common.timestamp.filter(|&time| time > 0) {
        Some(time) => (Some(time), common.cpu),
        None => (None, None),
    }
}

/// `PROT_EXEC` from `<sys/mman.h>`.
const PROT_EXEC: u32 = 4;

/// Records come from one contiguous buffer, so their strings are one slice.
fn single(data: RawData<'_>) -> &[u8] {
    match data {
        RawData::Single(bytes) => bytes,
        RawData::Split(first, _) => first,
    }
}
