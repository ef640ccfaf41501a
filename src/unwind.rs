//! Turns each sample into a stack of module-relative frame addresses.
//!
//! User stacks copied with `--call-graph dwarf` are unwound with framehop and
//! the `.eh_frame` of every mapped module; callchains recorded by the kernel
//! (`-g`, and kernel frames always) are taken as they are. Kernel frames go on
//! top of user frames. A walk that stops before the unwinder sees the end of
//! the stack is kept and marked [`Walk::Stopped`]: whether it is whole anyway
//! is decided after symbolization, by the name of its outermost function.

use hashbrown::HashMap;

use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, FrameAddress, Module, Unwinder};
use linux_perf_data::linux_perf_event_reader::constants::{
    PERF_CONTEXT_KERNEL, PERF_CONTEXT_MAX, PERF_CONTEXT_USER,
};

use crate::binary::{DsoId, DsoKind, ElfImage, SectionBytes, Store};
use crate::process::{MappedCode, Processes};
use perfdata::{Sample, SampleMode};

/// Stacks deeper than this are cut (and marked [`Walk::Stopped`]).
const MAX_FRAMES: usize = 4096;

/// A frame, as the module it is in and the address to look up there.
///
/// `lookup` is module-relative: the stated address (SVMA) for a binary that
/// was found, the file offset for one that was not, the kernel address for the
/// kernel. For return addresses it is already the address of the call
/// (return address − 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FrameKey {
    pub dso: DsoId,
    pub lookup: u64,
}

/// How a stack's walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Walk {
    /// The unwinder reached the end of the stack: the thread's root.
    Complete,
    /// The walk stopped without seeing the end (framehop gave up, the stack
    /// copy ran out, or it is a kernel-recorded callchain, which has no end
    /// marker). The stack is whole if its outermost frame is a thread entry
    /// function; `Profile::reaches_root` judges that by name.
    Stopped,
}

/// Per-process framehop unwinders, kept in step with the process records.
#[derive(Default)]
pub(crate) struct Unwinders {
    per_pid: HashMap<i32, UnwinderX86_64<SectionBytes>>,
    cache: CacheX86_64,
    /// How much of the stack copy the unwinds that reached a root read.
    pub(crate) stack_use: StackUse,
}

/// How many bytes of the copied user stack, from the stack pointer up, the
/// unwinds that reached a thread root read: how deep the stacks really are,
/// against the size `record` copies (`--stack-size`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StackUse {
    /// Unwinds by KiB read (1..=64 KiB, the last bucket also holding more).
    by_kib: [u64; STACK_USE_BUCKETS],
    /// The most bytes one unwind read.
    pub(crate) max_bytes: u64,
}

const STACK_USE_BUCKETS: usize = 64;

impl Default for StackUse {
    fn default() -> StackUse {
        StackUse {
            by_kib: [0; STACK_USE_BUCKETS],
            max_bytes: 0,
        }
    }
}

impl StackUse {
    fn add(&mut self, bytes: u64) {
        let bucket = (bytes.saturating_sub(1) / 1024).min(STACK_USE_BUCKETS as u64 - 1);
        self.by_kib[bucket as usize] += 1;
        self.max_bytes = self.max_bytes.max(bytes);
    }

    /// Adds the unwinds `other` counted.
    pub(crate) fn add_all(&mut self, other: &StackUse) {
        for (mine, theirs) in self.by_kib.iter_mut().zip(&other.by_kib) {
            *mine += theirs;
        }
        self.max_bytes = self.max_bytes.max(other.max_bytes);
    }

    /// The unwinds counted.
    pub(crate) fn count(&self) -> u64 {
        self.by_kib.iter().sum()
    }

    /// The bytes that the share `quantile` (0..=1) of the unwinds read at
    /// most, to the KiB above; `None` when none was counted.
    pub(crate) fn quantile_bytes(&self, quantile: f64) -> Option<u64> {
        let count = self.count();
        if count == 0 {
            return None;
        }
        let wanted = ((quantile * count as f64).ceil() as u64).clamp(1, count);
        let mut seen = 0;
        let bucket = self.by_kib.iter().position(|&in_bucket| {
            seen += in_bucket;
            seen >= wanted
        })?;
        Some(((bucket as u64 + 1) * 1024).min(self.max_bytes))
    }
}

impl Unwinders {
    /// A FORK of a new process copies the parent's modules.
    pub(crate) fn on_fork(&mut self, pid: i32, ppid: i32) {
        if pid == ppid {
            return;
        }
        if let Some(parent) = self.per_pid.get(&ppid) {
            let child = parent.clone();
            self.per_pid.insert(pid, child);
        }
    }

    /// An exec replaces the process image and all its modules.
    pub(crate) fn on_exec(&mut self, pid: i32) {
        self.per_pid.remove(&pid);
    }

    /// Registers the unwind tables of a newly mapped binary.
    pub(crate) fn on_mmap(&mut self, pid: i32, code: &MappedCode, image: &ElfImage) {
        let module = Module::new(
            image.path.display().to_string(),
            code.start..code.end,
            code.bias,
            ExplicitModuleSectionInfo {
                base_svma: 0,
                text_svma: image.text.as_ref().map(|place| place.svma.clone()),
                text: image.section_bytes(&image.text),
                eh_frame_svma: image.eh_frame.as_ref().map(|place| place.svma.clone()),
                eh_frame: image.section_bytes(&image.eh_frame),
                eh_frame_hdr_svma: image.eh_frame_hdr.as_ref().map(|place| place.svma.clone()),
                eh_frame_hdr: image.section_bytes(&image.eh_frame_hdr),
                debug_frame: image.section_bytes(&image.debug_frame),
                got_svma: image.got.as_ref().map(|place| place.svma.clone()),
                stubs_svma: None,
                stub_helper_svma: None,
                unwind_info: None,
                text_segment_svma: None,
                text_segment: None,
            },
        );
        self.per_pid.entry(pid).or_default().add_module(module);
    }

    /// Unwinds `sample` into `frames`, leaf first, and says how far it got.
    pub(crate) fn unwind(
        &mut self,
        sample: &Sample<'_>,
        processes: &Processes,
        store: &Store,
        frames: &mut Vec<FrameKey>,
    ) -> Walk {
        frames.clear();
        let kernel = store.kernel();
        let mut user_callchain = Vec::new();
        if let Some(chain) = &sample.callchain {
            let mut context = match sample.mode {
                SampleMode::Kernel => PERF_CONTEXT_KERNEL,
                _ => PERF_CONTEXT_USER,
            };
            let mut first_in_context = true;
            for index in 0..chain.len() {
                let Some(address) = chain.get(index) else {
                    break;
                };
                if address >= PERF_CONTEXT_MAX {
                    context = address;
                    first_in_context = true;
                    continue;
                }
                let lookup = if first_in_context {
                    address
                } else {
                    address.wrapping_sub(1)
                };
                first_in_context = false;
                match context {
                    PERF_CONTEXT_KERNEL => frames.push(FrameKey {
                        dso: kernel,
                        lookup,
                    }),
                    PERF_CONTEXT_USER => user_callchain.push(lookup),
                    _ => {}
                }
            }
        } else if sample.mode == SampleMode::Kernel {
            frames.push(FrameKey {
                dso: kernel,
                lookup: sample.ip,
            });
        }

        if let Some(regs) = sample.user_regs.filter(|_| !sample.user_stack.is_empty()) {
            return self.unwind_user_stack(sample, regs, processes, store, frames);
        }
        if !user_callchain.is_empty() {
            for lookup in user_callchain {
                frames.push(user_frame(processes, store, sample.pid, lookup));
            }
            return Walk::Stopped;
        }
        if sample.mode == SampleMode::User {
            frames.push(user_frame(processes, store, sample.pid, sample.ip));
            return Walk::Stopped;
        }
        if let Some(regs) = sample.user_regs {
            // In the kernel with user registers but no stack copy: one user frame.
            frames.push(user_frame(processes, store, sample.pid, regs.ip));
            return Walk::Stopped;
        }
        // A kernel thread: its kernel callchain is the whole stack.
        if frames.is_empty() {
            Walk::Stopped
        } else {
            Walk::Complete
        }
    }

    fn unwind_user_stack(
        &mut self,
        sample: &Sample<'_>,
        regs: perfdata::UserRegs,
        processes: &Processes,
        store: &Store,
        frames: &mut Vec<FrameKey>,
    ) -> Walk {
        let stack = sample.user_stack;
        let deepest = std::cell::Cell::new(0);
        let mut read_stack = |address: u64| -> Result<u64, ()> {
            let offset = address.checked_sub(regs.sp).ok_or(())? as usize;
            let end = offset.checked_add(8).ok_or(())?;
            let bytes = stack.get(offset..end).ok_or(())?;
            deepest.set(deepest.get().max(end as u64));
            Ok(u64::from_le_bytes(bytes.try_into().map_err(|_| ())?))
        };
        let Some(unwinder) = self.per_pid.get(&sample.pid) else {
            frames.push(user_frame(processes, store, sample.pid, regs.ip));
            return Walk::Stopped;
        };
        let mut iter = unwinder.iter_frames(
            regs.ip,
            UnwindRegsX86_64::new(regs.ip, regs.sp, regs.bp),
            &mut self.cache,
            &mut read_stack,
        );
        let mut depth = 0;
        loop {
            match iter.next() {
                Ok(Some(address)) => {
                    depth += 1;
                    if depth > MAX_FRAMES {
                        return Walk::Stopped;
                    }
                    let lookup = match address {
                        FrameAddress::InstructionPointer(ip) => ip,
                        other => other.address_for_lookup(),
                    };
                    frames.push(user_frame(processes, store, sample.pid, lookup));
                }
                Ok(None) => {
                    self.stack_use.add(deepest.get());
                    return Walk::Complete;
                }
                Err(_) => return Walk::Stopped,
            }
        }
    }
}

/// The frame for a user-space actual address in `pid`.
fn user_frame(processes: &Processes, store: &Store, pid: i32, address: u64) -> FrameKey {
    match processes.mapping_at(pid, address) {
        Some(code) => FrameKey {
            dso: code.dso,
            lookup: address.wrapping_sub(code.bias),
        },
        None => FrameKey {
            dso: store.unknown(),
            lookup: address,
        },
    }
}

/// The bias of a new mapping of `dso` at `start` (file offset `file_offset`).
/// Without the file, addresses are made relative to the file start.
pub(crate) fn mapping_bias(
    store: &Store,
    dso: DsoId,
    start: u64,
    file_offset: u64,
    len: u64,
) -> u64 {
    let entry = store.get(dso);
    match (&entry.image, entry.kind) {
        (Some(image), DsoKind::File) => image
            .bias_for_mapping(start, file_offset, len)
            .unwrap_or(start.wrapping_sub(file_offset)),
        _ => start.wrapping_sub(file_offset),
    }
}

#[cfg(test)]
mod tests {
    use super::StackUse;

    #[test]
    fn stack_use_quantiles_are_the_kib_above_and_never_past_the_deepest() {
        let mut stack_use = StackUse::default();
        assert_eq!(stack_use.quantile_bytes(0.5), None);
        // 98 shallow stacks of 3 KiB, one of 20 KiB, one of 70 KiB (past the
        // last bucket).
        for _ in 0..98 {
            stack_use.add(3000);
        }
        stack_use.add(20 * 1024);
        stack_use.add(70 * 1024);
        assert_eq!(stack_use.count(), 100);
        assert_eq!(stack_use.quantile_bytes(0.5), Some(3 * 1024));
        assert_eq!(stack_use.quantile_bytes(0.99), Some(20 * 1024));
        assert_eq!(stack_use.quantile_bytes(1.0), Some(64 * 1024));
        assert_eq!(stack_use.max_bytes, 70 * 1024);
        let mut one = StackUse::default();
        one.add(100);
        assert_eq!(one.quantile_bytes(0.99), Some(100), "capped at the deepest");
    }
}
