//! Integers and sections of a perf.data in the file's byte order.

/// Size of a `perf_file_section` (offset, size).
pub(super) const SECTION_SIZE: u64 = 16;

/// A `perf_file_section`: where something lives in the file.
#[derive(Clone, Copy, Debug)]
pub(super) struct Section {
    pub(super) offset: u64,
    pub(super) size: u64,
}

impl Section {
    /// The offset just past it; `None` when that overflows.
    pub(super) fn end(self) -> Option<u64> {
        self.offset.checked_add(self.size)
    }
}

/// Reads integers of the file's byte order out of a byte slice.
#[derive(Clone, Copy, Debug)]
pub(super) struct ByteOrder {
    pub(super) big_endian: bool,
}

impl ByteOrder {
    #[inline]
    pub(super) fn u16(self, bytes: &[u8], at: usize) -> Option<u16> {
        let raw: [u8; 2] = bytes.get(at..at + 2)?.try_into().ok()?;
        Some(if self.big_endian {
            u16::from_be_bytes(raw)
        } else {
            u16::from_le_bytes(raw)
        })
    }

    #[inline]
    pub(super) fn u32(self, bytes: &[u8], at: usize) -> Option<u32> {
        let raw: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if self.big_endian {
            u32::from_be_bytes(raw)
        } else {
            u32::from_le_bytes(raw)
        })
    }

    #[inline]
    pub(super) fn u64(self, bytes: &[u8], at: usize) -> Option<u64> {
        let raw: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
        Some(if self.big_endian {
            u64::from_be_bytes(raw)
        } else {
            u64::from_le_bytes(raw)
        })
    }

    pub(super) fn put_u64(self, bytes: &mut [u8], at: usize, value: u64) {
        let raw = if self.big_endian {
            value.to_be_bytes()
        } else {
            value.to_le_bytes()
        };
        bytes[at..at + 8].copy_from_slice(&raw);
    }

    pub(super) fn section(self, bytes: &[u8], at: usize) -> Option<Section> {
        Some(Section {
            offset: self.u64(bytes, at)?,
            size: self.u64(bytes, at + 8)?,
        })
    }
}
