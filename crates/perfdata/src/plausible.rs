//! Checks that a record holds what perf and the kernel write, before the
//! pipeline trusts it: a known record type, a size that matches the fields
//! the event's sample format lays out, process ids the kernel can hand out,
//! and mappings that fit the address space.
//!
//! A damaged size field makes a reader skip good records or read garbage as
//! records; a damaged field inside a record moves samples to other
//! processes or code. Either changes a profile without a trace, so each is
//! reported as corruption instead.

use linux_perf_data::linux_perf_event_reader::constants::PERF_RECORD_MISC_MMAP_BUILD_ID;
use linux_perf_data::linux_perf_event_reader::{
    RawEventRecord, RecordParseInfo, RecordType, SampleFormat,
};

use super::byte_order::ByteOrder;

/// Record types the kernel writes: `PERF_RECORD_MMAP` = 1 to
/// `PERF_RECORD_AUX_OUTPUT_HW_ID` = 21, and 22, which newer kernels add.
/// A damaged type that falls outside is caught; one inside must still pass
/// the checks of its type.
const KERNEL_TYPES: std::ops::RangeInclusive<u32> = 1..=22;
/// Record types perf itself writes: `PERF_RECORD_HEADER_ATTR` = 64 to
/// `PERF_RECORD_COMPRESSED2` = 83 in perf 6.18, and a few more.
const PERF_TYPES: std::ops::RangeInclusive<u32> = 64..=95;
/// The largest pid Linux can hand out (`PID_MAX_LIMIT` on 64-bit).
const PID_MAX_LIMIT: i32 = 4 << 20;
/// User space ends below this on every 64-bit architecture Linux supports
/// (57-bit virtual addresses with five-level page tables).
const USER_SPACE_END: u64 = 1 << 57;
/// The x86-64 vsyscall page: above user space, but listed in
/// `/proc/PID/maps`, so perf's records of processes that already ran when
/// it started (`-p`, `-a`) map it as user code.
const VSYSCALL_START: u64 = 0xffff_ffff_ff60_0000;
/// Mappings start, end and map file offsets at page boundaries.
const PAGE: u64 = 4096;
/// Every `mmap` flag the kernel reports in MMAP2 records lies below this.
const MAP_FLAGS_END: u32 = 1 << 20;
/// `PERF_RECORD_MISC_CPUMODE_MASK`, and the user-space modes in it.
const CPUMODE_MASK: u16 = 7;
const CPUMODE_USER: u16 = 2;
const CPUMODE_GUEST_USER: u16 = 5;
/// perf stamps records in nanoseconds of a clock that starts at boot (or at
/// 1970 with `-k CLOCK_REALTIME`): no record is stamped 146 years later.
const TIME_END: u64 = 1 << 62;
/// The longest build id an MMAP2 record can carry.
const MAX_BUILD_ID: u8 = 20;

/// What makes a record one perf and the kernel do not write; its text says
/// what is wrong, for the reader's corruption error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum Implausible {
    #[error(
        "a record of type {record_type} is stamped {time} ns, more than a century after its \
         clock started"
    )]
    Timestamp { record_type: u32, time: u64 },
    #[error(
        "a SAMPLE record is {bytes} bytes long, but its event's fields (sample_type \
         {sample_type:#x}) take {expected} bytes: its size field is wrong"
    )]
    SampleSize {
        bytes: usize,
        sample_type: u64,
        expected: usize,
    },
    #[error("a SAMPLE record is too short for its event's fields")]
    SampleTooShort,
    #[error(
        "an MMAP2 record states a build id of {bytes} bytes, longer than the {MAX_BUILD_ID} a \
         build id can have"
    )]
    BuildIdTooLong { bytes: u8 },
    #[error(
        "an MMAP2 record states protection {protection:#x} and flags {flags:#x}, which no \
         mapping has"
    )]
    MappingFlags { protection: u32, flags: u32 },
    #[error(
        "an {record} record maps a file whose name starts with byte {first:#04x}, which no path \
         or name the kernel reports starts with"
    )]
    MappedName { record: &'static str, first: u8 },
    #[error(
        "an {record} record maps {len:#x} bytes at {start:#x}, past the end of the address space"
    )]
    PastAddressSpace {
        record: &'static str,
        start: u64,
        len: u64,
    },
    #[error(
        "an {record} record maps user-space code at {start:#x}..{end:#x}, past the end of user \
         space"
    )]
    PastUserSpace {
        record: &'static str,
        start: u64,
        end: u64,
    },
    #[error(
        "an {record} record maps {len:#x} bytes at {start:#x} from file offset \
         {file_offset:#x}, not at page boundaries"
    )]
    NotPageAligned {
        record: &'static str,
        start: u64,
        len: u64,
        file_offset: u64,
    },
    #[error("a {record} record is too short for its fields")]
    TooShort { record: &'static str },
    #[error("a {record} record names process or thread {pid}, an id Linux never hands out")]
    Pid { record: &'static str, pid: i32 },
    #[error("a {record} record of {bytes} bytes has no room for its fields and name")]
    NoRoomForName { record: &'static str, bytes: usize },
    #[error(
        "a {record} record is {bytes} bytes long, but its fields take {expected} bytes: its \
         size field is wrong"
    )]
    Size {
        record: &'static str,
        bytes: usize,
        expected: usize,
    },
}

/// True for a record type perf or the kernel writes.
pub(super) fn is_known_type(record_type: u32) -> bool {
    KERNEL_TYPES.contains(&record_type) || PERF_TYPES.contains(&record_type)
}

/// True for record types only perf writes (they carry no sample fields).
pub(super) fn is_perf_type(record_type: u32) -> bool {
    PERF_TYPES.contains(&record_type)
}

/// What every event record is checked against.
#[derive(Clone, Copy, Debug)]
pub(super) struct RecordRules {
    pub(super) order: ByteOrder,
    /// Whether every event ends its non-sample records with the same
    /// `sample_id` fields, so that those records' sizes can be checked
    /// exactly (otherwise only that they are large enough).
    pub(super) exact_trailers: bool,
}

impl RecordRules {
    /// Checks the event record `record`, parsed as one of its event's; the
    /// error says what is wrong.
    pub(super) fn check(&self, record: &RawEventRecord<'_>) -> Result<(), Implausible> {
        if let Some(time) = record.timestamp().filter(|&time| time >= TIME_END) {
            return Err(Implausible::Timestamp {
                record_type: record.record_type.0,
                time,
            });
        }
        let body = record.data.as_slice();
        let info = &record.parse_info;
        let trailer = match self.exact_trailers {
            true => info.common_data_offset_from_end.map_or(0, usize::from),
            false => 0,
        };
        match record.record_type {
            RecordType::SAMPLE => self.check_sample(&body, info),
            RecordType::MMAP => self.check_mapping(&body, record.misc, 32, trailer, "MMAP"),
            RecordType::MMAP2 => self.check_mmap2(&body, record.misc, trailer),
            RecordType::COMM => {
                self.check_pids(&body, &[0, 4], "COMM")?;
                self.check_named_size(&body, 8, trailer, "COMM")
            }
            RecordType::FORK | RecordType::EXIT => {
                self.check_pids(&body, &[0, 4, 8, 12], "FORK/EXIT")?;
                self.check_fixed_size(body.len(), 24, trailer, "FORK/EXIT")
            }
            RecordType::LOST => self.check_fixed_size(body.len(), 16, trailer, "LOST"),
            RecordType::THROTTLE | RecordType::UNTHROTTLE => {
                self.check_fixed_size(body.len(), 24, trailer, "THROTTLE")
            }
            RecordType::AUX => self.check_fixed_size(body.len(), 24, trailer, "AUX"),
            RecordType::ITRACE_START | RecordType::SWITCH_CPU_WIDE => {
                self.check_pids(&body, &[0, 4], "ITRACE_START/SWITCH")?;
                self.check_fixed_size(body.len(), 8, trailer, "ITRACE_START/SWITCH")
            }
            RecordType::LOST_SAMPLES | RecordType::AUX_OUTPUT_HW_ID => {
                self.check_fixed_size(body.len(), 8, trailer, "LOST_SAMPLES")
            }
            RecordType::SWITCH => self.check_fixed_size(body.len(), 0, trailer, "SWITCH"),
            RecordType::BPF_EVENT => self.check_fixed_size(body.len(), 16, trailer, "BPF_EVENT"),
            // Address, length, type and flags, then the symbol's name.
            RecordType::KSYMBOL => self.check_named_size(&body, 16, trailer, "KSYMBOL"),
            // The cgroup's id, then its path.
            RecordType::CGROUP => self.check_named_size(&body, 8, trailer, "CGROUP"),
            RecordType::NAMESPACES => self.check_namespaces(&body, trailer),
            RecordType::READ => self.check_pids(&body, &[0, 4], "READ"),
            _ => Ok(()),
        }
    }

    fn check_sample(&self, body: &[u8], info: &RecordParseInfo) -> Result<(), Implausible> {
        let Some(expected) = sample_size(body, info, self.order)? else {
            return Ok(());
        };
        if expected != body.len() {
            return Err(Implausible::SampleSize {
                bytes: body.len() + 8,
                sample_type: info.sample_format.bits(),
                expected: expected + 8,
            });
        }
        if info.sample_format.contains(SampleFormat::TID) {
            let at = 8 * info
                .sample_format
                .intersection(SampleFormat::IDENTIFIER | SampleFormat::IP)
                .bits()
                .count_ones() as usize;
            self.check_pids(body, &[at, at + 4], "SAMPLE")?;
        }
        Ok(())
    }

    fn check_mmap2(&self, body: &[u8], misc: u16, trailer: usize) -> Result<(), Implausible> {
        let build_id_len = body.get(32).copied().unwrap_or(0);
        if misc & PERF_RECORD_MISC_MMAP_BUILD_ID != 0 && build_id_len > MAX_BUILD_ID {
            return Err(Implausible::BuildIdTooLong {
                bytes: build_id_len,
            });
        }
        self.check_mapping(body, misc, 64, trailer, "MMAP2")?;
        let protection = self.order.u32(body, 56).expect("checked size");
        let flags = self.order.u32(body, 60).expect("checked size");
        if protection > 7 || flags >= MAP_FLAGS_END {
            return Err(Implausible::MappingFlags { protection, flags });
        }
        Ok(())
    }

    /// MMAP and MMAP2 start with pid, tid, address, length and file offset.
    fn check_mapping(
        &self,
        body: &[u8],
        misc: u16,
        fixed: usize,
        trailer: usize,
        name: &'static str,
    ) -> Result<(), Implausible> {
        self.check_named_size(body, fixed, trailer, name)?;
        self.check_pids(body, &[0, 4], name)?;
        // A path, a bracketed name (`[vdso]`) or a kernel-made name (`anon_inode:…`).
        let first = body[fixed];
        if first != 0 && !(first == b'/' || first == b'[' || first.is_ascii_alphanumeric()) {
            return Err(Implausible::MappedName {
                record: name,
                first,
            });
        }
        let field = |at| self.order.u64(body, at).expect("checked size");
        let (start, len, file_offset) = (field(8), field(16), field(24));
        let Some(end) = start.checked_add(len) else {
            return Err(Implausible::PastAddressSpace {
                record: name,
                start,
                len,
            });
        };
        let mode = misc & CPUMODE_MASK;
        if mode != CPUMODE_USER && mode != CPUMODE_GUEST_USER {
            return Ok(());
        }
        let vsyscall = start == VSYSCALL_START && body[fixed..].starts_with(b"[vsyscall]\0");
        if end > USER_SPACE_END && !vsyscall {
            return Err(Implausible::PastUserSpace {
                record: name,
                start,
                end,
            });
        }
        if (start | len | file_offset) % PAGE != 0 {
            return Err(Implausible::NotPageAligned {
                record: name,
                start,
                len,
                file_offset,
            });
        }
        Ok(())
    }

    /// NAMESPACES: pid, tid, a count, then that many (device, inode) pairs.
    fn check_namespaces(&self, body: &[u8], trailer: usize) -> Result<(), Implausible> {
        self.check_pids(body, &[0, 4], "NAMESPACES")?;
        let count = self.order.u64(body, 8).unwrap_or(u64::MAX);
        let fields = usize::try_from(count)
            .ok()
            .and_then(|count| count.checked_mul(16)?.checked_add(16))
            .unwrap_or(usize::MAX);
        self.check_fixed_size(body.len(), fields, trailer, "NAMESPACES")
    }

    /// The u32 process or thread ids at `offsets` of `body` must be ones
    /// Linux can hand out (-1 stands for none).
    fn check_pids(
        &self,
        body: &[u8],
        offsets: &[usize],
        name: &'static str,
    ) -> Result<(), Implausible> {
        for &at in offsets {
            let Some(raw) = self.order.u32(body, at) else {
                return Err(Implausible::TooShort { record: name });
            };
            let pid = raw as i32;
            if !(-1..=PID_MAX_LIMIT).contains(&pid) {
                return Err(Implausible::Pid { record: name, pid });
            }
        }
        Ok(())
    }

    /// A record of `fixed` bytes of fields, a NUL-terminated name padded to
    /// 8 bytes, and the `sample_id` trailer.
    fn check_named_size(
        &self,
        body: &[u8],
        fixed: usize,
        trailer: usize,
        name: &'static str,
    ) -> Result<(), Implausible> {
        let text = body
            .len()
            .checked_sub(fixed + trailer)
            .map(|end| &body[fixed..fixed + end]);
        let Some(nul) = text.and_then(|text| text.iter().position(|&byte| byte == 0)) else {
            return Err(Implausible::NoRoomForName {
                record: name,
                bytes: body.len() + 8,
            });
        };
        let padded = (nul + 1).next_multiple_of(8);
        self.check_fixed_size(body.len(), fixed + padded, trailer, name)
    }

    fn check_fixed_size(
        &self,
        len: usize,
        fields: usize,
        trailer: usize,
        name: &'static str,
    ) -> Result<(), Implausible> {
        let expected = fields.saturating_add(trailer);
        let fits = if self.exact_trailers {
            len == expected
        } else {
            len >= fields
        };
        if fits {
            Ok(())
        } else {
            Err(Implausible::Size {
                record: name,
                bytes: len + 8,
                expected: expected.saturating_add(8),
            })
        }
    }
}

/// The size a sample's body must have, walked from its fields in the
/// kernel's order (`perf_output_sample`), or `None` for formats whose size
/// depends on flags linux-perf-event-reader drops (`READ`, `BRANCH_STACK`).
fn sample_size(
    body: &[u8],
    info: &RecordParseInfo,
    order: ByteOrder,
) -> Result<Option<usize>, Implausible> {
    let format = info.sample_format;
    if format.intersects(SampleFormat::READ | SampleFormat::BRANCH_STACK) {
        return Ok(None);
    }
    let too_short = || Implausible::SampleTooShort;
    let mut at = 8 * format
        .intersection(
            SampleFormat::IDENTIFIER
                | SampleFormat::IP
                | SampleFormat::TID
                | SampleFormat::TIME
                | SampleFormat::ADDR
                | SampleFormat::ID
                | SampleFormat::STREAM_ID
                | SampleFormat::CPU
                | SampleFormat::PERIOD,
        )
        .bits()
        .count_ones() as usize;
    // A count or size field, then that many bytes (`unit` each).
    let counted = |at: &mut usize, unit: usize, field: usize| -> Result<u64, Implausible> {
        let count = match field {
            4 => order.u32(body, *at).map(u64::from),
            _ => order.u64(body, *at),
        }
        .ok_or_else(too_short)?;
        let bytes = usize::try_from(count)
            .ok()
            .and_then(|count| count.checked_mul(unit))
            .and_then(|bytes| bytes.checked_add(*at + field))
            .filter(|&end| end <= body.len())
            .ok_or_else(too_short)?;
        *at = bytes;
        Ok(count)
    };
    if format.contains(SampleFormat::CALLCHAIN) {
        counted(&mut at, 8, 8)?;
    }
    if format.contains(SampleFormat::RAW) {
        counted(&mut at, 1, 4)?;
    }
    let regs = |at: &mut usize, count: u8| -> Result<(), Implausible> {
        let abi = order.u64(body, *at).ok_or_else(too_short)?;
        *at += 8;
        if abi != 0 {
            *at += 8 * usize::from(count);
        }
        Ok(())
    };
    if format.contains(SampleFormat::REGS_USER) {
        regs(&mut at, info.user_regs_count)?;
    }
    if format.contains(SampleFormat::STACK_USER) && counted(&mut at, 1, 8)? != 0 {
        at += 8; // dyn_size
    }
    at += 8 * format
        .intersection(
            SampleFormat::WEIGHT
                | SampleFormat::WEIGHT_STRUCT
                | SampleFormat::DATA_SRC
                | SampleFormat::TRANSACTION,
        )
        .bits()
        .count_ones() as usize;
    if format.contains(SampleFormat::REGS_INTR) {
        regs(&mut at, info.intr_regs_count)?;
    }
    at += 8 * format
        .intersection(
            SampleFormat::PHYS_ADDR
                | SampleFormat::CGROUP
                | SampleFormat::DATA_PAGE_SIZE
                | SampleFormat::CODE_PAGE_SIZE,
        )
        .bits()
        .count_ones() as usize;
    if format.contains(SampleFormat::AUX) {
        counted(&mut at, 1, 8)?;
    }
    Ok(Some(at))
}

#[cfg(test)]
mod tests;
