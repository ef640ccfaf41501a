//! Inline frames from DWARF, for binaries that carry debug info (in the file
//! itself or in a separate debug file): the names of the functions inlined
//! at an address, read with gimli.
//!
//! Only names are wanted, never files and lines. addr2line, which this
//! module reads DWARF as (the same units, functions, ranges, search and
//! names; a test compares the two on every function of a binary), always
//! works out the source location too, running the line program of every
//! unit it looks in, and it parses every unit to find their ranges: on the
//! pyenv-built libpython those were two thirds of naming its frames. Here a
//! unit's ranges come from `.debug_aranges` where it has them, and line
//! programs are never run.
//!
//! A binary's DWARF is loaded at the first lookup and then kept
//! ([`InlineSlot`]) while its frames are named, first ahead of the read's
//! end, then after it: each unit is parsed once, however many batches of
//! frames land there.

use gimli::{
    AttributeValue, DebugInfoOffset, EndianReader, Reader as _, RunTimeEndian, UnitOffset,
};
use hashbrown::HashMap;
use object::{Object, ObjectSection};

use crate::binary::{ElfImage, SectionBytes};
use ranges::{compare, functions, inlined_functions, unit_ranges};

mod ranges;

type Reader = EndianReader<RunTimeEndian, SectionBytes>;
type Unit = gimli::Unit<Reader>;

/// How deep `DW_AT_abstract_origin` and `DW_AT_specification` are followed
/// for a name (addr2line's limit).
const ORIGIN_DEPTH: usize = 16;

/// The DWARF sections of `image`, read from its mapping.
fn load_dwarf(image: &ElfImage) -> Option<gimli::Dwarf<Reader>> {
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
    gimli::Dwarf::load(load).ok()
}

/// The DWARF of one binary, read from its mapping (which it keeps): the
/// names of functions and inlined functions by address, read from the
/// units' DIEs when first needed.
pub(super) struct InlineInfo {
    dwarf: gimli::Dwarf<Reader>,
    /// The units' address ranges, by start.
    ranges: Vec<(gimli::Range, DebugInfoOffset)>,
    /// The offset of every unit, in order, to find the unit of a reference.
    unit_offsets: Vec<DebugInfoOffset>,
    /// The units parsed so far; `None` for one that cannot be.
    units: HashMap<DebugInfoOffset, Option<Box<ReadUnit>>>,
}

/// A unit, and its functions once looked in.
struct ReadUnit {
    unit: Unit,
    /// Each function's ranges (`DW_TAG_subprogram` with an address), by start.
    functions: Option<Vec<(gimli::Range, UnitOffset)>>,
    /// The inlined functions of each function looked in.
    inlined: HashMap<UnitOffset, Vec<Inlined>>,
}

/// A range of an inlined function, at its depth of inlining (0 for
/// functions inlined into the function itself).
struct Inlined {
    range: gimli::Range,
    depth: usize,
    entry: UnitOffset,
}

impl InlineInfo {
    /// Reads the DWARF sections of `image`; `None` when it has no usable DWARF.
    /// Compressed sections are skipped, which leaves their frames without inline names.
    fn load(image: &ElfImage) -> Option<InlineInfo> {
        let dwarf = load_dwarf(image)?;
        let (ranges, unit_offsets) = unit_ranges(&dwarf);
        (!ranges.is_empty()).then(|| InlineInfo {
            dwarf,
            ranges,
            unit_offsets,
            units: HashMap::new(),
        })
    }

    /// The names of the functions inlined at `address`, innermost first.
    /// Empty when DWARF does not cover the address or nothing is inlined
    /// there. The outer function, which the symbol table names, is dropped
    /// before any name is demangled.
    pub(super) fn inlined(&mut self, address: u64) -> Vec<String> {
        let raw_names = self.raw_frames(address).unwrap_or_default();
        let mut names: Vec<_> = (raw_names.iter())
            .filter_map(|raw| raw.to_string_lossy().ok())
            .collect();
        names.pop();
        (names.iter())
            .map(|name| super::demangle::demangle(name))
            .collect()
    }

    /// The raw names at `address`: the inlined functions innermost first,
    /// then the function. As addr2line, names missing from the DWARF are
    /// left out.
    fn raw_frames(&mut self, address: u64) -> Option<Vec<Reader>> {
        let at = self
            .ranges
            .partition_point(|(range, _)| range.begin <= address);
        let (range, unit_offset) = *self.ranges.get(at.checked_sub(1)?)?;
        if address >= range.end {
            return None;
        }
        let (function, chain) = self.function_and_inlined(unit_offset, address)?;
        let mut names: Vec<Reader> = (chain.iter().rev())
            .filter_map(|&entry| self.name(unit_offset, entry))
            .collect();
        names.extend(self.name(unit_offset, function));
        Some(names)
    }

    /// The function of unit `unit_offset` at `address`, and the functions
    /// inlined there, outermost first.
    fn function_and_inlined(
        &mut self,
        unit_offset: DebugInfoOffset,
        address: u64,
    ) -> Option<(UnitOffset, Vec<UnitOffset>)> {
        let read = unit_in(&self.dwarf, &mut self.units, unit_offset)?;
        let unit = gimli::UnitRef::new(&self.dwarf, &read.unit);
        if read.functions.is_none() {
            read.functions = Some(functions(unit).ok()?);
        }
        let functions = read.functions.as_deref()?;
        let found = functions.binary_search_by(|(range, _)| compare(range, address));
        let function = functions[found.ok()?].1;
        if !read.inlined.contains_key(&function) {
            let inlined = inlined_functions(unit, function).ok()?;
            read.inlined.insert(function, inlined);
        }
        let mut inlined = &read.inlined[&function][..];
        let mut chain = Vec::new();
        loop {
            let depth = chain.len();
            let found = inlined.binary_search_by(|one| {
                one.depth
                    .cmp(&depth)
                    .then_with(|| compare(&one.range, address))
            });
            let Ok(index) = found else {
                break;
            };
            chain.push(inlined[index].entry);
            inlined = &inlined[index + 1..];
        }
        Some((function, chain))
    }

    /// The name of the function or inlined function at `entry` of unit
    /// `unit_offset`, as addr2line names it: its linkage name, else the
    /// first of its name and the name its `DW_AT_abstract_origin` or
    /// `DW_AT_specification` leads to.
    fn name(&mut self, unit_offset: DebugInfoOffset, entry: UnitOffset) -> Option<Reader> {
        let mut linkage_name = None;
        let mut in_order = Vec::new();
        for (attribute, value) in self.attributes(unit_offset, entry)? {
            match attribute {
                NameAttribute::Linkage(name) => linkage_name = Some(name),
                other => in_order.push((other, value)),
            }
        }
        if linkage_name.is_some() {
            return linkage_name;
        }
        for (attribute, value) in in_order {
            match attribute {
                NameAttribute::Name(name) => return Some(name),
                _ => {
                    if let Some(name) = self.name_at(unit_offset, value, ORIGIN_DEPTH) {
                        return Some(name);
                    }
                }
            }
        }
        None
    }

    /// The name of the entry an origin or specification `value` points to,
    /// as addr2line reads it: its first linkage name, else its last name,
    /// else (at most `depth` deep) that of its last origin.
    fn name_at(
        &mut self,
        unit_offset: DebugInfoOffset,
        value: AttributeValue<Reader>,
        depth: usize,
    ) -> Option<Reader> {
        if depth == 0 {
            return None;
        }
        let (unit_offset, entry) = match value {
            AttributeValue::UnitRef(entry) => (unit_offset, entry),
            AttributeValue::DebugInfoRef(offset) => {
                let at = self.unit_offsets.partition_point(|&unit| unit <= offset);
                let unit_offset = *self.unit_offsets.get(at.checked_sub(1)?)?;
                let header = &unit_in(&self.dwarf, &mut self.units, unit_offset)?
                    .unit
                    .header;
                (unit_offset, offset.to_unit_offset(header)?)
            }
            _ => return None,
        };
        let mut name = None;
        let mut origin = None;
        for (attribute, value) in self.attributes(unit_offset, entry)? {
            match attribute {
                NameAttribute::Linkage(linkage_name) => return Some(linkage_name),
                NameAttribute::Name(last) => name = Some(last),
                NameAttribute::Origin => origin = Some(value),
            }
        }
        if name.is_some() {
            return name;
        }
        self.name_at(unit_offset, origin?, depth - 1)
    }

    /// The attributes of `entry` that name it, in their order (names that
    /// are not valid strings left out).
    fn attributes(
        &mut self,
        unit_offset: DebugInfoOffset,
        entry: UnitOffset,
    ) -> Option<Vec<(NameAttribute, AttributeValue<Reader>)>> {
        let read = unit_in(&self.dwarf, &mut self.units, unit_offset)?;
        let unit = gimli::UnitRef::new(&self.dwarf, &read.unit);
        let mut entries = unit.entries_raw(Some(entry)).ok()?;
        let abbrev = entries.read_abbreviation().ok()??;
        let mut found = Vec::new();
        for spec in abbrev.attributes() {
            let attr = entries.read_attribute(*spec).ok()?;
            let string = || unit.attr_string(attr.value()).ok();
            let attribute = match attr.name() {
                gimli::DW_AT_linkage_name | gimli::DW_AT_MIPS_linkage_name => {
                    string().map(NameAttribute::Linkage)
                }
                gimli::DW_AT_name => string().map(NameAttribute::Name),
                gimli::DW_AT_abstract_origin | gimli::DW_AT_specification => {
                    Some(NameAttribute::Origin)
                }
                _ => None,
            };
            found.extend(attribute.map(|attribute| (attribute, attr.value())));
        }
        Some(found)
    }
}

/// The unit of `dwarf` at `offset`, parsed at its first use.
fn unit_in<'a>(
    dwarf: &gimli::Dwarf<Reader>,
    units: &'a mut HashMap<DebugInfoOffset, Option<Box<ReadUnit>>>,
    offset: DebugInfoOffset,
) -> Option<&'a mut ReadUnit> {
    units
        .entry(offset)
        .or_insert_with(|| {
            let header = dwarf.debug_info.header_from_offset(offset).ok()?;
            let unit = dwarf.unit(header).ok()?;
            Some(Box::new(ReadUnit {
                unit,
                functions: None,
                inlined: HashMap::new(),
            }))
        })
        .as_deref_mut()
}

/// An attribute that names a function.
enum NameAttribute {
    Linkage(Reader),
    Name(Reader),
    /// `DW_AT_abstract_origin` or `DW_AT_specification`: the name is the
    /// entry's it points to.
    Origin,
}

/// A binary's inline context: not looked for yet, or loaded (`None` when
/// the binary has no usable DWARF).
#[derive(Default)]
pub(crate) struct InlineSlot(Option<Option<InlineInfo>>);

impl InlineSlot {
    /// The context of `image`, loaded at the first call.
    pub(super) fn get(&mut self, image: Option<&ElfImage>) -> Option<&mut InlineInfo> {
        self.0
            .get_or_insert_with(|| image.and_then(InlineInfo::load))
            .as_mut()
    }
}

#[cfg(test)]
mod tests;
