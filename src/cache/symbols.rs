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
    /// Frame lookup address → its names, innermost inlined function first
    /// (indexes into `names`), sorted by address.
    pub frames: Vec<(u64, Vec<u32>)>,
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
