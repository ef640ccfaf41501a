//! Inline frames from DWARF, through addr2line, for binaries that carry debug
//! info (in the file itself or in a separate debug file).

use std::sync::Arc;

use object::{Object, ObjectSection};

use crate::binary::ElfImage;

type Reader = gimli::EndianReader<gimli::RunTimeEndian, Arc<[u8]>>;

/// The DWARF of one binary, ready for lookups.
pub struct InlineInfo {
    context: addr2line::Context<Reader>,
}

impl InlineInfo {
    /// Loads the DWARF sections of `image`; `None` when it has no usable DWARF.
    pub fn load(image: &ElfImage) -> Option<InlineInfo> {
        let file = object::read::elf::ElfFile64::<object::Endianness>::parse(image.data()).ok()?;
        let endian = if file.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            let bytes: Arc<[u8]> = file
                .section_by_name(id.name())
                .and_then(|section| section.uncompressed_data().ok())
                .map_or_else(|| Arc::from(&[][..]), |data| Arc::from(&*data));
            Ok(Reader::new(bytes, endian))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        let context = addr2line::Context::from_dwarf(dwarf).ok()?;
        Some(InlineInfo { context })
    }

    /// The function names at `address`, innermost inlined function first.
    /// Empty when DWARF does not cover the address.
    pub fn frames(&self, address: u64) -> Vec<String> {
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
