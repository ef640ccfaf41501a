//! Entries about symbols: what a binary's frames were named (per build id)
//! and what category each symbol is in (per rule table).

use serde::{Deserialize, Serialize};

/// A frame's name as the symbolizer made it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct CachedName {
    pub name: String,
    pub mangled: Option<String>,
    pub resolved: bool,
}

/// The names found in one binary (or one running kernel), for the
/// addresses and functions seen so far. It grows as recordings of the same
/// build hit new addresses.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct BinaryEntry {
    /// Every name once.
    pub names: Vec<CachedName>,
    /// Function start → its demangled name (an index into `names`), sorted
    /// by start: a new address in a known function is not demangled again.
    pub functions: Vec<(u64, u32)>,
    /// Frame lookup addresses, sorted.
    frame_addresses: Vec<u64>,
    /// Per frame, where its names end in `chain_names`; they start where
    /// the frame before's end.
    chain_ends: Vec<u32>,
    /// Each frame's names, innermost inlined function first (indexes into
    /// `names`), one frame after the other. Flat, so that reading an entry
    /// of a build's hundreds of thousands of frames makes three vectors, not
    /// one per frame.
    chain_names: Vec<u32>,
}

impl BinaryEntry {
    /// The names of the frame at `address`, if the entry has the frame.
    pub(crate) fn chain_at(&self, address: u64) -> Option<&[u32]> {
        let at = self.frame_addresses.binary_search(&address).ok()?;
        self.chain(at)
    }

    /// The names of the entry's frame `at`; `None` for a chain outside
    /// `chain_names` (an entry made wrong).
    fn chain(&self, at: usize) -> Option<&[u32]> {
        let start = match at {
            0 => 0,
            _ => *self.chain_ends.get(at - 1)?,
        };
        let end = *self.chain_ends.get(at)?;
        self.chain_names.get(start as usize..end as usize)
    }

    /// Every frame with its names, by address.
    pub(crate) fn frames(&self) -> impl Iterator<Item = (u64, &[u32])> {
        (self.frame_addresses.iter().enumerate())
            .filter_map(|(at, &address)| Some((address, self.chain(at)?)))
    }

    /// Replaces the frames with `frames`, which must be sorted by address,
    /// each address once.
    pub(crate) fn set_frames(&mut self, frames: &[(u64, Vec<u32>)]) {
        self.frame_addresses = frames.iter().map(|(address, _)| *address).collect();
        self.chain_names = frames
            .iter()
            .flat_map(|(_, chain)| chain.iter().copied())
            .collect();
        let mut end = 0;
        self.chain_ends = (frames.iter())
            .map(|(_, chain)| {
                end += chain.len() as u32;
                end
            })
            .collect();
    }
}

/// One symbol's category.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CategoryOf {
    /// The binary's file name, as rules see it.
    pub dso: String,
    pub kernel: bool,
    pub name: String,
    /// The category's index in the rule table the entry is keyed by.
    pub category: u32,
}

/// The categories of the symbols seen so far under one rule table.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct CategoriesEntry {
    /// The number of categories of the table (a check on the key).
    pub category_count: u32,
    pub symbols: Vec<CategoryOf>,
}
