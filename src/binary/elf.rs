//! One ELF file, memory-mapped once: its build id, load segments, the
//! sections the unwinder needs, and its debug link.
//!
//! Parsing here reads only headers; section contents stay in the mapping and
//! are handed out as borrowed [`SectionBytes`].

use std::fs::File;
use std::ops::{Deref, Range};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use object::elf::PF_X;
use object::read::elf::{ElfFile64, ProgramHeader};
use object::{Object, ObjectSection};

/// Why a file could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LoadError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a 64-bit ELF file ({source})")]
    NotElf {
        path: PathBuf,
        source: object::Error,
    },
}

/// A byte range of a mapped file, usable as framehop section data and, as
/// it keeps the mapping alive, as the bytes of a gimli reader that owns them.
#[derive(Clone)]
pub(crate) struct SectionBytes {
    map: Arc<Mmap>,
    range: Range<usize>,
}

impl Deref for SectionBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map[self.range.clone()]
    }
}

impl std::fmt::Debug for SectionBytes {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "SectionBytes({:?})", self.range)
    }
}

// SAFETY: the bytes are in a memory map that the `Arc` keeps, which never
// moves or changes while mapped; a clone shares the same map and range.
unsafe impl stable_deref_trait::StableDeref for SectionBytes {}
// SAFETY: as above.
unsafe impl stable_deref_trait::CloneStableDeref for SectionBytes {}

/// Where a section sits in the file and in the stated address space.
#[derive(Clone, Debug)]
pub(crate) struct SectionPlace {
    pub svma: Range<u64>,
    pub file_range: Option<Range<usize>>,
}

/// A `PT_LOAD` segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoadSegment {
    pub file_offset: u64,
    pub svma: u64,
    pub file_size: u64,
    pub executable: bool,
}

/// A parsed, mapped ELF file.
pub(crate) struct ElfImage {
    pub path: PathBuf,
    map: Arc<Mmap>,
    pub build_id: Option<Vec<u8>>,
    pub segments: Vec<LoadSegment>,
    pub text: Option<SectionPlace>,
    pub eh_frame: Option<SectionPlace>,
    pub eh_frame_hdr: Option<SectionPlace>,
    pub debug_frame: Option<SectionPlace>,
    pub got: Option<SectionPlace>,
    /// The file name in `.gnu_debuglink`, if any.
    pub debuglink: Option<String>,
    /// True when the file carries `.debug_info`.
    pub has_dwarf: bool,
}

impl ElfImage {
    /// Maps and parses `path`.
    pub(crate) fn open(path: &Path) -> Result<ElfImage, LoadError> {
        let io_error = |source| LoadError::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io_error)?;
        // SAFETY: the mapping is read-only. A file truncated by another process
        // while mapped would fault; profiled binaries are not rewritten in place
        // while compile-perf runs, the same assumption perf and addr2line make.
        let map = unsafe { Mmap::map(&file) }.map_err(io_error)?;
        let map = Arc::new(map);
        let elf = ElfFile64::<object::Endianness>::parse(&map[..]).map_err(|source| {
            LoadError::NotElf {
                path: path.to_owned(),
                source,
            }
        })?;
        let endian = elf.endian();
        let segments = elf
            .elf_program_headers()
            .iter()
            .filter(|header| header.p_type(endian) == object::elf::PT_LOAD)
            .map(|header| LoadSegment {
                file_offset: header.p_offset(endian),
                svma: header.p_vaddr(endian),
                file_size: header.p_filesz(endian),
                executable: header.p_flags(endian).0 & PF_X.0 != 0,
            })
            .collect();
        let place = |name: &str| {
            elf.section_by_name(name).map(|section| SectionPlace {
                svma: section.address()..section.address() + section.size(),
                file_range: section
                    .file_range()
                    .map(|(offset, size)| offset as usize..(offset + size) as usize),
            })
        };
        Ok(ElfImage {
            path: path.to_owned(),
            build_id: elf.build_id().ok().flatten().map(<[u8]>::to_vec),
            segments,
            text: place(".text"),
            eh_frame: place(".eh_frame"),
            eh_frame_hdr: place(".eh_frame_hdr"),
            debug_frame: place(".debug_frame"),
            got: place(".got"),
            debuglink: elf
                .gnu_debuglink()
                .ok()
                .flatten()
                .map(|(name, _crc)| String::from_utf8_lossy(name).into_owned()),
            has_dwarf: elf.section_by_name(".debug_info").is_some(),
            map,
        })
    }

    /// The whole mapped file.
    pub(crate) fn data(&self) -> &[u8] {
        &self.map
    }

    /// The bytes of a section, when they are in the file.
    pub(crate) fn section_bytes(&self, place: &Option<SectionPlace>) -> Option<SectionBytes> {
        self.bytes_at(place.as_ref()?.file_range.clone()?)
    }

    /// The bytes of the file at `range`, when the file has them.
    pub(crate) fn bytes_at(&self, range: Range<usize>) -> Option<SectionBytes> {
        (range.end <= self.map.len()).then(|| SectionBytes {
            map: Arc::clone(&self.map),
            range,
        })
    }

    /// The difference between stated addresses (SVMA) and the addresses of
    /// the mapping `start..` of file offset `file_offset`.
    ///
    /// It is computed from the executable segment: in lld-linked binaries one
    /// page can back the read-only, executable and writable segments, and the
    /// first segment the page touches gives a bias that is off by a page.
    pub(crate) fn bias_for_mapping(&self, start: u64, file_offset: u64, len: u64) -> Option<u64> {
        let mapped = file_offset..file_offset.saturating_add(len);
        let segment = self
            .segments
            .iter()
            .filter(|segment| segment.executable)
            .find(|segment| {
                segment.file_offset < mapped.end
                    && segment.file_offset + segment.file_size > mapped.start
            })
            .or_else(|| {
                self.segments.iter().find(|segment| {
                    segment.file_offset <= file_offset
                        && file_offset < segment.file_offset + segment.file_size
                })
            })?;
        // avma = start + (offset - file_offset); svma = offset - p_offset + p_vaddr.
        Some(
            start
                .wrapping_sub(file_offset)
                .wrapping_add(segment.file_offset)
                .wrapping_sub(segment.svma),
        )
    }
}
