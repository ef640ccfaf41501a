//! Looks up many addresses in a binary's function symbols (`.symtab`, or
//! `.dynsym` when the file is stripped) in one pass over the table.
//!
//! A recording hits a few thousand distinct addresses, while libIREECompiler.so
//! has over half a million symbols. So the table is never sorted or copied:
//! each symbol is placed, by binary search, in the gap between the sorted
//! addresses it precedes, and each address then takes the nearest symbol at or
//! before it. Names are read from the string table only for symbols that hit.

use object::elf::{STB_GLOBAL, STB_WEAK, STT_FUNC, STT_GNU_IFUNC, SymbolBind};
use object::read::elf::{ElfFile64, SectionHeader, Sym};

use crate::binary::ElfImage;

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit<'a> {
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

/// The function containing each of `addresses` (sorted, without duplicates),
/// by the symbol table of `image`. `None` when the file has no function symbols.
///
/// A symbol without a size reaches to the next symbol, as in perf, but not
/// past the end of its section (so `_fini` does not swallow `.plt`).
pub fn lookup_sorted<'a>(image: &'a ElfImage, addresses: &[u64]) -> Option<Vec<Option<Hit<'a>>>> {
    let elf = ElfFile64::<object::Endianness>::parse(image.data()).ok()?;
    let endian = elf.endian();
    let table = if elf.elf_symbol_table().is_empty() {
        elf.elf_dynamic_symbol_table()
    } else {
        elf.elf_symbol_table()
    };
    let strings_header = elf
        .elf_section_table()
        .section(table.string_section())
        .ok()?;
    let strings_start = strings_header.sh_offset(endian) as usize;
    let strings_end = strings_start.checked_add(strings_header.sh_size(endian) as usize)?;
    let strings: &'a [u8] = image.data().get(strings_start..strings_end)?;
    let name_at = |offset: u32| -> &'a [u8] {
        let tail = strings.get(offset as usize..).unwrap_or_default();
        &tail[..memchr::memchr(0, tail).unwrap_or(tail.len())]
    };

    // nearest[i]: the latest-starting symbol in (addresses[i-1], addresses[i]].
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
        let gap = addresses.partition_point(|&address| address < candidate.start);
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

/// Size of an x86-64 PLT entry, and of the header before the first in `.plt`.
const PLT_ENTRY_SIZE: u64 = 16;

/// The raw name of the function a PLT stub jumps to, from the stub's
/// `.rela.plt` relocation (perf shows the stub as `name@plt`). `None` outside
/// `.plt`/`.plt.sec` or for relocations without a symbol (IFUNC resolvers).
pub fn plt_stub_target(image: &ElfImage, address: u64) -> Option<String> {
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
