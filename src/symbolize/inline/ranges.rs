//! The address ranges of a binary's DWARF units, functions and inlined
//! functions, read with gimli as addr2line reads them.

use std::cmp::Ordering;

use gimli::{AttributeValue, DebugInfoOffset, UnitOffset};
use hashbrown::HashMap;

use super::{Inlined, Reader};

/// The address ranges of the units of `dwarf` with code, by start, and the
/// offset of every unit in order. A unit's ranges are its `.debug_aranges`
/// entries; a unit without any is read for the ranges its first entry
/// states (addr2line reads every unit so, which on libpython cost a
/// quarter of naming its frames).
pub(super) fn unit_ranges(
    dwarf: &gimli::Dwarf<Reader>,
) -> (Vec<(gimli::Range, DebugInfoOffset)>, Vec<DebugInfoOffset>) {
    let mut aranges: HashMap<DebugInfoOffset, Vec<gimli::Range>> = HashMap::new();
    let mut headers = dwarf.debug_aranges.headers();
    while let Ok(Some(header)) = headers.next() {
        let ranges = aranges.entry(header.debug_info_offset()).or_default();
        let mut entries = header.entries();
        while let Some(Ok(arange)) = entries.next().transpose() {
            if arange.length() != 0 {
                ranges.push(arange.range());
            }
        }
    }
    let mut ranges = Vec::new();
    let mut unit_offsets = Vec::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Some(offset) = header.debug_info_offset() else {
            continue;
        };
        unit_offsets.push(offset);
        if matches!(
            header.type_(),
            gimli::UnitType::Type { .. }
                | gimli::UnitType::SplitType { .. }
                | gimli::UnitType::Partial
        ) {
            continue;
        }
        let unit_ranges = match aranges.remove(&offset).filter(|ranges| !ranges.is_empty()) {
            Some(from_aranges) => from_aranges,
            None => own_ranges(dwarf, header).unwrap_or_default(),
        };
        ranges.extend(unit_ranges.into_iter().map(|range| (range, offset)));
    }
    ranges.sort_by_key(|(range, _)| range.begin);
    (ranges, unit_offsets)
}

/// The ranges the first entry of the unit of `header` states; `None` when
/// the unit cannot be read.
fn own_ranges(
    dwarf: &gimli::Dwarf<Reader>,
    header: gimli::UnitHeader<Reader>,
) -> Option<Vec<gimli::Range>> {
    let unit = dwarf.unit(header).ok()?;
    let unit = gimli::UnitRef::new(dwarf, &unit);
    let mut entries = unit.entries_raw(None).ok()?;
    let abbrev = entries.read_abbreviation().ok()??;
    let mut found = Vec::new();
    (read_ranges(unit, &mut entries, abbrev).ok()?)
        .for_each(unit, |range| found.push(range))
        .ok()?;
    Some(found)
}

/// Where `range` is against `address`, for a binary search.
pub(super) fn compare(range: &gimli::Range, address: u64) -> Ordering {
    if address < range.begin {
        Ordering::Greater
    } else if address >= range.end {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// The ranges of every function (`DW_TAG_subprogram`) of `unit` with an
/// address, sorted by start.
pub(super) fn functions(
    unit: gimli::UnitRef<'_, Reader>,
) -> gimli::Result<Vec<(gimli::Range, UnitOffset)>> {
    let mut functions = Vec::new();
    let mut entries = unit.entries_raw(None)?;
    while !entries.is_empty() {
        let offset = entries.next_offset();
        let Some(abbrev) = entries.read_abbreviation()? else {
            continue;
        };
        if abbrev.tag() == gimli::DW_TAG_subprogram {
            let ranges = read_ranges(unit, &mut entries, abbrev)?;
            ranges.for_each(unit, |range| functions.push((range, offset)))?;
        } else {
            entries.skip_attributes(abbrev.attributes())?;
        }
    }
    functions.sort_unstable_by_key(|(range, _)| range.begin);
    Ok(functions)
}

/// The functions inlined into the function at `function`, at any depth,
/// sorted by depth, then by start.
pub(super) fn inlined_functions(
    unit: gimli::UnitRef<'_, Reader>,
    function: UnitOffset,
) -> gimli::Result<Vec<Inlined>> {
    let mut entries = unit.entries_raw(Some(function))?;
    let function_depth = entries.next_depth();
    if let Some(abbrev) = entries.read_abbreviation()? {
        entries.skip_attributes(abbrev.attributes())?;
    }
    let mut inlined = Vec::new();
    // The DIE depths of the inlined functions the walk is inside.
    let mut open: Vec<isize> = Vec::new();
    loop {
        let depth = entries.next_depth();
        if depth <= function_depth || entries.is_empty() {
            break;
        }
        let offset = entries.next_offset();
        let Some(abbrev) = entries.read_abbreviation()? else {
            continue;
        };
        while open.last().is_some_and(|&inside| depth <= inside) {
            open.pop();
        }
        match abbrev.tag() {
            gimli::DW_TAG_subprogram => {
                entries.skip_attributes(abbrev.attributes())?;
                while entries.next_depth() > depth {
                    if let Some(abbrev) = entries.read_abbreviation()? {
                        entries.skip_attributes(abbrev.attributes())?;
                    }
                }
            }
            gimli::DW_TAG_inlined_subroutine => {
                let ranges = read_ranges(unit, &mut entries, abbrev)?;
                let inline_depth = open.len();
                ranges.for_each(unit, |range| {
                    inlined.push(Inlined {
                        range,
                        depth: inline_depth,
                        entry: offset,
                    })
                })?;
                open.push(depth);
            }
            _ => entries.skip_attributes(abbrev.attributes())?,
        }
    }
    inlined.sort_unstable_by(|a, b| {
        a.depth
            .cmp(&b.depth)
            .then(a.range.begin.cmp(&b.range.begin))
    });
    Ok(inlined)
}

/// An entry's address attributes.
#[derive(Default)]
struct Ranges {
    low_pc: Option<u64>,
    high_pc: Option<u64>,
    size: Option<u64>,
    ranges: Option<gimli::RangeListsOffset<usize>>,
}

impl Ranges {
    /// Calls `add` with each non-empty range, as addr2line reads them.
    fn for_each(
        &self,
        unit: gimli::UnitRef<'_, Reader>,
        mut add: impl FnMut(gimli::Range),
    ) -> gimli::Result<()> {
        let mut add_range = |range: gimli::Range| {
            if range.begin < range.end {
                add(range);
            }
        };
        if let Some(offset) = self.ranges {
            let mut list = unit.ranges(offset)?;
            while let Some(range) = list.next()? {
                add_range(range);
            }
        } else if let (Some(begin), Some(end)) = (self.low_pc, self.high_pc) {
            add_range(gimli::Range { begin, end });
        } else if let (Some(begin), Some(size)) = (self.low_pc, self.size) {
            add_range(gimli::Range {
                begin,
                end: begin.wrapping_add(size),
            });
        }
        Ok(())
    }
}

/// Reads the attributes of the entry whose abbreviation was just read,
/// keeping its address ones.
fn read_ranges(
    unit: gimli::UnitRef<'_, Reader>,
    entries: &mut gimli::EntriesRaw<'_, Reader>,
    abbrev: &gimli::Abbreviation,
) -> gimli::Result<Ranges> {
    let mut ranges = Ranges::default();
    for spec in abbrev.attributes() {
        let attr = entries.read_attribute(*spec)?;
        match (attr.name(), attr.value()) {
            (gimli::DW_AT_low_pc, AttributeValue::Addr(value)) => ranges.low_pc = Some(value),
            (gimli::DW_AT_low_pc, AttributeValue::DebugAddrIndex(index)) => {
                ranges.low_pc = Some(unit.address(index)?);
            }
            (gimli::DW_AT_high_pc, AttributeValue::Addr(value)) => ranges.high_pc = Some(value),
            (gimli::DW_AT_high_pc, AttributeValue::DebugAddrIndex(index)) => {
                ranges.high_pc = Some(unit.address(index)?);
            }
            (gimli::DW_AT_high_pc, AttributeValue::Udata(size)) => ranges.size = Some(size),
            (gimli::DW_AT_ranges, value) => ranges.ranges = unit.attr_ranges_offset(value)?,
            _ => {}
        }
    }
    Ok(ranges)
}
