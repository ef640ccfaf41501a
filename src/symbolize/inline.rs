//! Inline frames from DWARF, through addr2line, for binaries that carry debug
//! info (in the file itself or in a separate debug file).

use gimli::{EndianSlice, RunTimeEndian};
use object::{Object, ObjectSection};

use crate::binary::ElfImage;

type Reader<'a> = EndianSlice<'a, RunTimeEndian>;

/// The DWARF of one binary, borrowed from its mapping, ready for lookups.
pub(super) struct InlineInfo<'a> {
    context: addr2line::Context<Reader<'a>>,
}

impl<'a> InlineInfo<'a> {
    /// Reads the DWARF sections of `image`; `None` when it has no usable DWARF.
    /// Compressed sections are skipped, which leaves their frames without inline names.
    pub(super) fn load(image: &'a ElfImage) -> Option<InlineInfo<'a>> {
        let file = object::read::elf::ElfFile64::<object::Endianness>::parse(image.data()).ok()?;
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> Result<Reader<'a>, gimli::Error> {
            let bytes = file
                .section_by_name(id.name())
                .and_then(|section| section.data().ok())
                .unwrap_or_default();
            Ok(EndianSlice::new(bytes, endian))
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
