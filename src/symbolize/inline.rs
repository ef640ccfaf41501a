//! Inline frames from DWARF, through addr2line, for binaries that carry debug
//! info (in the file itself or in a separate debug file).
//!
//! A binary's addr2line context is loaded at the first lookup and then kept
//! ([`InlineSlot`]) while its frames are named, first ahead of the read's
//! end, then after it: addr2line parses a unit's functions and line program
//! when a lookup first lands in it, so each unit is parsed once, however
//! many batches of frames land there.

use gimli::{EndianReader, RunTimeEndian};
use object::{Object, ObjectSection};

use crate::binary::{ElfImage, SectionBytes};

type Reader = EndianReader<RunTimeEndian, SectionBytes>;

/// The DWARF of one binary, read from its mapping (which it keeps), ready
/// for lookups.
pub(super) struct InlineInfo {
    context: addr2line::Context<Reader>,
}

impl InlineInfo {
    /// Reads the DWARF sections of `image`; `None` when it has no usable DWARF.
    /// Compressed sections are skipped, which leaves their frames without inline names.
    fn load(image: &ElfImage) -> Option<InlineInfo> {
        let file = object::read::elf::ElfFile64::<object::Endianness>::parse(image.data()).ok()?;
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let empty = image.bytes_at(0..0)?;
        let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            let bytes = file
                .section_by_name(id.name())
                .and_then(|section| section.file_range())
                .and_then(|(start, size)| {
                    let start = usize::try_from(start).ok()?;
                    image.bytes_at(start..start.checked_add(usize::try_from(size).ok()?)?)
                })
                .unwrap_or_else(|| empty.clone());
            Ok(EndianReader::new(bytes, endian))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        let context = addr2line::Context::from_dwarf(dwarf).ok()?;
        Some(InlineInfo { context })
    }

    /// The function names at `address`, innermost inlined function first.
    /// Empty when DWARF does not cover the address.
    pub(super) fn frames(&self, address: u64) -> Vec<String> {
        let Ok(mut frames) = self.context.find_frames(address).skip_all_loads() else {
            return Vec::new();
        };
        let mut names = Vec::new();
        while let Ok(Some(frame)) = frames.next() {
            let Some(function) = frame.function else {
                continue;
            };
            if let Ok(raw) = function.raw_name() {
                names.push(super::demangle::demangle(&raw));
            }
        }
        names
    }
}

/// A binary's inline context: not looked for yet, or loaded (`None` when
/// the binary has no usable DWARF).
#[derive(Default)]
pub(crate) struct InlineSlot(Option<Option<InlineInfo>>);

impl InlineSlot {
    /// The context of `image`, loaded at the first call.
    pub(super) fn get(&mut self, image: Option<&ElfImage>) -> Option<&InlineInfo> {
        self.0
            .get_or_insert_with(|| image.and_then(InlineInfo::load))
            .as_ref()
    }
}
