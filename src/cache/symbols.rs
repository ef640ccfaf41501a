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

    /// The names of the frame at `address`, if the entry has the frame and
    /// its chain points only at names the entry has (one that points past
    /// them was made wrong, and its frame is to be named again).
    pub(crate) fn usable_chain_at(&self, address: u64) -> Option<&[u32]> {
        self.chain_at(address).filter(|chain| {
            chain
                .iter()
                .all(|&index| (index as usize) < self.names.len())
        })
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

    /// Adds the frames of `added` (sorted by address, each once): the
    /// frames are merged as they are, without a vector per frame. An added
    /// frame replaces one the entry has at its address (whose chain could
    /// not be used).
    pub(crate) fn add_frames(&mut self, added: &[(u64, Vec<u32>)]) {
        let count = self.frame_addresses.len() + added.len();
        let mut addresses = Vec::with_capacity(count);
        let mut ends = Vec::with_capacity(count);
        let mut names = Vec::with_capacity(self.chain_names.len());
        let mut push = |address: u64, chain: &[u32]| {
            addresses.push(address);
            names.extend_from_slice(chain);
            ends.push(names.len() as u32);
        };
        let mut added = added.iter().peekable();
        for (at, &address) in self.frame_addresses.iter().enumerate() {
            let mut replaced = false;
            while let Some((new, chain)) = added.next_if(|(new, _)| *new <= address) {
                push(*new, chain);
                replaced = *new == address;
            }
            if let (false, Some(chain)) = (replaced, self.chain(at)) {
                push(address, chain);
            }
        }
        for (new, chain) in added {
            push(*new, chain);
        }
        self.frame_addresses = addresses;
        self.chain_ends = ends;
        self.chain_names = names;
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
