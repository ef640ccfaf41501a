//! Looks up many addresses in a binary's function symbols (`.symtab`, or
//! `.dynsym` when the file is stripped) in one pass over the table.
//!
//! A recording hits a few thousand distinct addresses, while libIREECompiler.so
//! has over half a million symbols. So the table is never sorted or copied:
//! each symbol is placed in the gap between the sorted addresses it precedes
//! (found through a table of buckets over the addresses), and each address
//! then takes the nearest symbol at or before it. Names are read from the string table only for symbols that hit.

use object::Endianness;
use object::elf::FileHeader64;
use object::elf::{STB_GLOBAL, STB_WEAK, STT_FUNC, STT_GNU_IFUNC, SymbolBind};
use object::read::elf::{ElfFile64, SectionHeader, Sym, SymbolTable};

use crate::binary::ElfImage;

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Hit<'a> {
    /// The symbol's raw (mangled) name.
    pub name: &'a [u8],
    /// The symbol's start address.
    pub start: u64,
}

/// A function symbol, before its name is read.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    start: u64,
    size: u64,
    name_offset: u32,
    binding: SymbolBind,
    /// The section the symbol is in; a symbol without a size ends with it.
    section: u32,
}

/// How much perf prefers one of several symbols at the same address; higher
/// wins. Mirrors perf's `choose_best_symbol`, so aliases get perf's names.
fn preference(candidate: &Candidate, name: &[u8]) -> (bool, u8, std::cmp::Reverse<usize>, usize) {
    let binding_rank = if candidate.binding == STB_GLOBAL {
        2
    } else if candidate.binding == STB_WEAK {
        0
    } else {
        1
    };
    let underscores = name.iter().take_while(|&&byte| byte == b'_').count();
    (
        candidate.size != 0,
        binding_rank,
        std::cmp::Reverse(underscores),
        name.len(),
    )
}

/// The symbol table the symbolizer reads: `.symtab`, else (a stripped
/// file) `.dynsym`.
fn symbols_of<'f, 'data>(
    elf: &'f ElfFile64<'data, Endianness>,
) -> &'f SymbolTable<'data, FileHeader64<Endianness>> {
    if elf.elf_symbol_table().is_empty() {
        elf.elf_dynamic_symbol_table()
    } else {
        elf.elf_symbol_table()
    }
}

/// The bytes of that symbol table's string table.
fn strings_of<'a>(elf: &ElfFile64<'a, Endianness>, image: &'a ElfImage) -> Option<&'a [u8]> {
    let header = elf
        .elf_section_table()
        .section(symbols_of(elf).string_section())
        .ok()?;
    let start = header.sh_offset(elf.endian()) as usize;
    let end = start.checked_add(header.sh_size(elf.endian()) as usize)?;
    image.data().get(start..end)
}

/// The string table of the symbol table the symbolizer reads.
pub(super) fn symbol_strings(image: &ElfImage) -> Option<&[u8]> {
    let elf = ElfFile64::<Endianness>::parse(image.data()).ok()?;
    strings_of(&elf, image)
}

/// The function containing each of `addresses` (sorted, without duplicates),
/// by the symbol table of `image`. `None` when the file has no function symbols.
///
/// A symbol without a size reaches to the next symbol, as in perf, but not
/// past the end of its section (so `_fini` does not swallow `.plt`).
pub(super) fn lookup_sorted<'a>(
    image: &'a ElfImage,
    addresses: &[u64],
) -> Option<Vec<Option<Hit<'a>>>> {
    let elf = ElfFile64::<Endianness>::parse(image.data()).ok()?;
    let endian = elf.endian();
    let table = symbols_of(&elf);
    let strings = strings_of(&elf, image)?;
    let name_at = |offset: u32| -> &'a [u8] {
        let tail = strings.get(offset as usize..).unwrap_or_default();
        &tail[..memchr::memchr(0, tail).unwrap_or(tail.len())]
    };

    // nearest[i]: the latest-starting symbol in (addresses[i-1], addresses[i]].
    let gaps = Gaps::new(addresses);
    let mut nearest: Vec<Option<Candidate>> = vec![None; addresses.len()];
    let mut any = false;
    for sym in table.symbols() {
        if !matches!(sym.st_type(), STT_FUNC | STT_GNU_IFUNC)
            || sym.st_shndx(endian) == object::elf::SHN_UNDEF
            || sym.st_value(endian) == 0
        {
            continue;
        }
        any = true;
        let candidate = Candidate {
            start: sym.st_value(endian),
            size: sym.st_size(endian),
            name_offset: sym.st_name(endian),
            binding: sym.st_bind(),
            section: u32::from(sym.st_shndx(endian).0),
        };
        let gap = gaps.gap_of(candidate.start);
        let Some(slot) = nearest.get_mut(gap) else {
            continue;
        };
        let replace = match slot {
            None => true,
            Some(current) if candidate.start != current.start => candidate.start > current.start,
            Some(current) => {
                preference(&candidate, name_at(candidate.name_offset))
                    > preference(current, name_at(current.name_offset))
            }
        };
        if replace {
            *slot = Some(candidate);
        }
    }
    if !any {
        return None;
    }

    let sections = elf.elf_section_table();
    let section_end = |index: u32| -> u64 {
        sections
            .section(object::SectionIndex(index as usize))
            .map_or(u64::MAX, |header| {
                header
                    .sh_addr(endian)
                    .saturating_add(header.sh_size(endian))
            })
    };
    let mut carried: Option<Candidate> = None;
    let hits = addresses
        .iter()
        .zip(nearest)
        .map(|(&address, in_gap)| {
            if in_gap.is_some() {
                carried = in_gap;
            }
            let symbol = carried?;
            let end = if symbol.size == 0 {
                section_end(symbol.section)
            } else {
                symbol.start.saturating_add(symbol.size)
            };
            let inside = address < end;
            inside.then(|| Hit {
                name: name_at(symbol.name_offset),
                start: symbol.start,
            })
        })
        .collect();
    Some(hits)
}

/// Finds which gap between sorted addresses a symbol starts in, through a
/// table of buckets over the addresses' range: one bucket's few addresses
/// are searched instead of all of them, half a million times per binary.
struct Gaps<'a> {
    addresses: &'a [u64],
    low: u64,
    shift: u32,
    /// Per bucket, the number of addresses below the bucket's start.
    first: Vec<u32>,
}

impl<'a> Gaps<'a> {
    /// Buckets per table, about.
    const BUCKETS: u64 = 1 << 16;

    fn new(addresses: &'a [u64]) -> Gaps<'a> {
        let (low, high) = match (addresses.first(), addresses.last()) {
            (Some(&low), Some(&high)) => (low, high),
            _ => (0, 0),
        };
        let span = high - low;
        let shift = (u64::BITS - (span / Self::BUCKETS).leading_zeros()).min(63);
        let buckets = (span >> shift) as usize + 2;
        let mut below = 0;
        let first = (0..buckets)
            .map(|bucket| {
                let start = low.saturating_add((bucket as u64) << shift);
                while addresses.get(below).is_some_and(|&address| address < start) {
                    below += 1;
                }
                below as u32
            })
            .collect();
        Gaps {
            addresses,
            low,
            shift,
            first,
        }
    }

    /// How many addresses lie below `start`.
    fn gap_of(&self, start: u64) -> usize {
        if start <= self.low {
            return 0;
        }
        let bucket = ((start - self.low) >> self.shift) as usize;
        let Some(&from) = self.first.get(bucket) else {
            return self.addresses.len();
        };
        let to = self
            .first
            .get(bucket + 1)
            .map_or(self.addresses.len(), |&to| to as usize);
        let from = from as usize;
        from + self.addresses[from..to].partition_point(|&address| address < start)
    }
}

/// Size of an x86-64 PLT entry, and of the header before the first in `.plt`.
const PLT_ENTRY_SIZE: u64 = 16;

/// The raw name of the function a PLT stub jumps to, from the stub's
/// `.rela.plt` relocation (perf shows the stub as `name@plt`). `None` outside
/// `.plt`/`.plt.sec` or for relocations without a symbol (IFUNC resolvers).
pub(super) fn plt_stub_target(image: &ElfImage, address: u64) -> Option<String> {
    let elf = ElfFile64::<object::Endianness>::parse(image.data()).ok()?;
    let endian = elf.endian();
    let sections = elf.elf_section_table();
    // `.plt.sec` (IBT) holds one entry per relocation; `.plt` starts with a header.
    let entry =
        [(".plt.sec", 0), (".plt", 1)]
            .into_iter()
            .find_map(|(name, header_entries)| {
                let (_, header) = sections.section_by_name(endian, name.as_bytes())?;
                let start = header.sh_addr(endian);
                let end = start.saturating_add(header.sh_size(endian));
                (start..end)
                    .contains(&address)
                    .then(|| ((address - start) / PLT_ENTRY_SIZE).checked_sub(header_entries))
            })??;
    let index = usize::try_from(entry).ok()?;
    let (_, rela_header) = sections.section_by_name(endian, b".rela.plt")?;
    let relocations: &[object::elf::Rela64<object::Endianness>] =
        rela_header.data_as_array(endian, image.data()).ok()?;
    let symbol_index = relocations.get(index)?.r_sym(endian, false);
    if symbol_index == 0 {
        return None;
    }
    let dynamic = elf.elf_dynamic_symbol_table();
    let symbol = dynamic
        .symbol(object::SymbolIndex(symbol_index as usize))
        .ok()?;
    let name = dynamic.symbol_name(endian, symbol).ok()?;
    Some(String::from_utf8_lossy(name).into_owned())
}

#[cfg(test)]
mod tests {
    use super::Gaps;

    #[test]
    fn a_gap_is_the_count_of_addresses_below_the_start() {
        let mut next = crate::test_random::xorshift(0x9e37_79b9_7f4a_7c15);
        for (count, spread) in [(0, 1), (1, 1), (7, 40), (5000, 1 << 27), (300, 1 << 40)] {
            let mut addresses: Vec<u64> = (0..count).map(|_| 0x40_0000 + next() % spread).collect();
            addresses.sort_unstable();
            addresses.dedup();
            let gaps = Gaps::new(&addresses);
            let probes = addresses
                .iter()
                .flat_map(|&address| [address.saturating_sub(1), address, address + 1])
                .chain((0..2000).map(|_| 0x40_0000 + next() % (spread + 64)))
                .chain([0, 1, u64::MAX]);
            for start in probes {
                let expected = addresses.partition_point(|&address| address < start);
                assert_eq!(
                    gaps.gap_of(start),
                    expected,
                    "{count} addresses, start {start:#x}"
                );
            }
        }
    }
}
