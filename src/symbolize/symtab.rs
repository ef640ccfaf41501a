//! A sorted table of a binary's function symbols, read from `.symtab` (or
//! `.dynsym` when the file is stripped).
//!
//! Only addresses, sizes and name offsets are read up front; a name is read
//! from the string table when a lookup hits it, so the 75 MB string table of
//! libIREECompiler.so is never read whole.

use std::sync::Arc;

use object::elf::{STB_GLOBAL, STB_WEAK, STT_FUNC, STT_GNU_IFUNC, SymbolBind};
use object::read::elf::{ElfFile64, Sym};

use crate::binary::ElfImage;

/// One function symbol.
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: u64,
    end: u64,
    name_offset: u32,
}

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit<'a> {
    /// The symbol's raw (mangled) name.
    pub name: &'a [u8],
    /// The symbol's start address.
    pub start: u64,
}

/// The function symbols of one ELF file.
pub struct SymbolTable {
    image: Arc<ElfImage>,
    entries: Vec<Entry>,
    strings: std::ops::Range<usize>,
}

/// How much perf prefers one of several symbols at the same address; higher wins.
/// Mirrors perf's `choose_best_symbol` so reports name aliases the same way.
fn preference(
    sym_size: u64,
    binding: SymbolBind,
    name: &[u8],
) -> (bool, u8, std::cmp::Reverse<usize>, usize) {
    let binding_rank = if binding == STB_GLOBAL {
        2
    } else if binding == STB_WEAK {
        0
    } else {
        1
    };
    let underscores = name.iter().take_while(|&&byte| byte == b'_').count();
    (
        sym_size != 0,
        binding_rank,
        std::cmp::Reverse(underscores),
        name.len(),
    )
}

impl SymbolTable {
    /// Reads the function symbols of `image`; `None` when it has none.
    pub fn read(image: Arc<ElfImage>) -> Option<SymbolTable> {
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
        let strings_start =
            object::read::elf::SectionHeader::sh_offset(strings_header, endian) as usize;
        let strings_size =
            object::read::elf::SectionHeader::sh_size(strings_header, endian) as usize;
        let strings = strings_start..strings_start.checked_add(strings_size)?;
        if strings.end > image.data().len() {
            return None;
        }
        let string_bytes = &image.data()[strings.clone()];
        let name_at = |offset: u32| -> &[u8] {
            let tail = string_bytes.get(offset as usize..).unwrap_or_default();
            &tail[..memchr::memchr(0, tail).unwrap_or(tail.len())]
        };

        let mut candidates: Vec<(Entry, SymbolBind)> = table
            .symbols()
            .iter()
            .filter(|sym| {
                matches!(sym.st_type(), STT_FUNC | STT_GNU_IFUNC)
                    && sym.st_shndx(endian) != object::elf::SHN_UNDEF
                    && sym.st_value(endian) != 0
            })
            .map(|sym| {
                let start = sym.st_value(endian);
                (
                    Entry {
                        start,
                        end: start.saturating_add(sym.st_size(endian)),
                        name_offset: sym.st_name(endian),
                    },
                    sym.st_bind(),
                )
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        candidates.sort_unstable_by_key(|(entry, _)| entry.start);
        // Keep one symbol per address, the one perf would pick. Comparing names
        // reads them, but only for the few addresses that have aliases.
        let mut entries: Vec<Entry> = Vec::with_capacity(candidates.len());
        let mut best_binding = STB_WEAK;
        for (entry, binding) in candidates {
            match entries.last_mut() {
                Some(last) if last.start == entry.start => {
                    let current = preference(
                        last.end - last.start,
                        best_binding,
                        name_at(last.name_offset),
                    );
                    let challenger =
                        preference(entry.end - entry.start, binding, name_at(entry.name_offset));
                    if challenger > current {
                        *last = entry;
                        best_binding = binding;
                    }
                }
                _ => {
                    entries.push(entry);
                    best_binding = binding;
                }
            }
        }
        // A symbol without a size reaches to the next symbol, as in perf.
        for index in 0..entries.len() {
            if entries[index].end == entries[index].start {
                entries[index].end = entries.get(index + 1).map_or(u64::MAX, |next| next.start);
            }
        }
        Some(SymbolTable {
            image,
            entries,
            strings,
        })
    }

    /// The symbol covering `address`.
    pub fn lookup(&self, address: u64) -> Option<Hit<'_>> {
        let after = self.entries.partition_point(|entry| entry.start <= address);
        let entry = self.entries[..after].last()?;
        if address >= entry.end {
            return None;
        }
        let strings = &self.image.data()[self.strings.clone()];
        let tail = strings.get(entry.name_offset as usize..)?;
        let name = &tail[..memchr::memchr(0, tail).unwrap_or(tail.len())];
        Some(Hit {
            name,
            start: entry.start,
        })
    }

    /// Number of function symbols.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}
