//! Names kept between runs: the cache's [`BinaryEntry`] of a binary's
//! build id (or of the running kernel) answers the addresses it has seen,
//! and only the others are resolved, then added to it.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use super::inline::InlineSlot;
use super::{NameChains, Named};
use crate::binary::{DsoId, DsoKind, Store, hex};
use crate::cache::{BinaryEntry, Cache, CachedName, Kind};

/// A binary's cache entry (or an empty one) with the frames named ahead,
/// and the binary's inline context, with the units those frames parsed.
pub(crate) struct EntryAhead {
    pub(super) entry: BinaryEntry,
    /// True when frames were added to it.
    pub(super) grown: bool,
    pub(super) inline: InlineSlot,
}

/// The entries named ahead, by binary.
pub(crate) type NamedAhead = HashMap<DsoId, EntryAhead>;

/// The key of a binary's names: its build id, and whether a separate debug
/// file (with its own symbols and inline frames) was used. `None` for a
/// binary without a file or a build id.
pub(super) fn binary_key(store: &Store, dso: DsoId) -> Option<String> {
    let entry = store.get(dso);
    if entry.kind != DsoKind::File {
        return None;
    }
    let build_id = entry.image.as_ref()?.build_id.as_deref()?;
    let debug = if store.debug_image(dso).is_some() {
        "-debug"
    } else {
        ""
    };
    Some(format!("{}{debug}", hex(build_id)))
}

/// What resolving the addresses the entry does not know gave.
pub(super) struct Resolved {
    /// Per address asked, its names.
    pub names: NameChains,
    /// Functions demangled on the way, by start, with their name's index
    /// in `names`.
    pub functions: Vec<(u64, u32)>,
    /// False when the result must not be kept (kernel symbols that could
    /// not be loaded this time).
    pub keep: bool,
}

impl From<CachedName> for Named {
    fn from(cached: CachedName) -> Named {
        Named {
            name: cached.name,
            mangled: cached.mangled,
            resolved: cached.resolved,
        }
    }
}

impl From<Named> for CachedName {
    /// An unresolved name is kept without its text: that names the address,
    /// which each frame gets anew.
    fn from(named: Named) -> CachedName {
        CachedName {
            name: if named.resolved {
                named.name
            } else {
                String::new()
            },
            mangled: named.mangled,
            resolved: named.resolved,
        }
    }
}

/// The names of `lookups`: from the cache entry under `key` (or the one
/// named `ahead` of the read, which began as it) where it has them, from
/// `resolve` (given the sorted, distinct addresses it lacks and the entry)
/// for the rest; the entry is then rewritten with the new ones.
/// `unresolved_name` names an address nothing resolved, as it is shown.
pub(super) fn resolve_with_memo(
    cache: &Cache,
    key: Option<String>,
    ahead: Option<EntryAhead>,
    lookups: &[u64],
    unresolved_name: impl Fn(u64) -> String,
    resolve: impl FnOnce(&[u64], &BinaryEntry) -> Resolved,
) -> NameChains {
    let (mut entry, grown_ahead) = match ahead {
        Some(ahead) => (ahead.entry, ahead.grown),
        None => (cached_entry(cache, key.as_deref()), false),
    };
    let name_count = entry.names.len();
    let known: Vec<bool> = (lookups.iter())
        .map(|&address| entry.usable_chain_at(address).is_some())
        .collect();
    let mut missing: Vec<u64> = (lookups.iter().zip(&known))
        .filter(|(_, known)| !**known)
        .map(|(&address, _)| address)
        .collect();
    missing.sort_unstable();
    missing.dedup();
    let resolved = (!missing.is_empty()).then(|| resolve(&missing, &entry));
    let rewritten = resolved.is_some() || grown_ahead;

    // The new names first, then those of the entry that the lookups use,
    // each once. An entry not rewritten is done with and gives them up;
    // one rewritten keeps them, so they are copied.
    let mut names = NameChains {
        names: resolved
            .as_ref()
            .map(|resolved| resolved.names.names.clone())
            .unwrap_or_default(),
        chains: Vec::with_capacity(lookups.len()),
    };
    let mut entry_names = std::mem::take(&mut entry.names);
    let mut from_entry: Vec<Option<u32>> = vec![None; name_count];
    for (&address, &known) in lookups.iter().zip(&known) {
        let chain: Vec<u32> = if known {
            let in_entry = entry
                .chain_at(address)
                .expect("a known frame is in the entry");
            (in_entry.iter())
                .map(|&index| {
                    let at = index as usize;
                    let cached = &mut entry_names[at];
                    match from_entry[at] {
                        Some(taken) => taken,
                        None if !cached.resolved => {
                            names.push(Named::unresolved(unresolved_name(address)))
                        }
                        None => {
                            let named = if rewritten {
                                Named::from(cached.clone())
                            } else {
                                Named {
                                    name: std::mem::take(&mut cached.name),
                                    mangled: cached.mangled.take(),
                                    resolved: true,
                                }
                            };
                            let taken = names.push(named);
                            from_entry[at] = Some(taken);
                            taken
                        }
                    }
                })
                .collect()
        } else {
            let resolved = resolved.as_ref().expect("missing addresses were resolved");
            let at = missing
                .binary_search(&address)
                .expect("every missing address was resolved");
            resolved.names.chains[at].clone()
        };
        names.chains.push(chain);
    }
    entry.names = entry_names;
    match (key, resolved.filter(|resolved| resolved.keep)) {
        (Some(key), Some(resolved)) => cache.write_with(Kind::Binary, &key, move || {
            extended(entry, &missing, resolved)
        }),
        (Some(key), None) if grown_ahead => cache.write_with(Kind::Binary, &key, move || entry),
        _ => {}
    }
    names
}

/// The cache's entry under `key`, or an empty one.
pub(super) fn cached_entry(cache: &Cache, key: Option<&str>) -> BinaryEntry {
    key.and_then(|key| cache.read(Kind::Binary, key))
        .unwrap_or_default()
}

/// `entry` with the names of `addresses` (sorted) and the new functions
/// added, each distinct name once.
pub(super) fn extended(
    mut entry: BinaryEntry,
    addresses: &[u64],
    resolved: Resolved,
) -> BinaryEntry {
    let mut names = std::mem::take(&mut entry.names);
    let mut functions = std::mem::take(&mut entry.functions);
    let hasher = DefaultHashBuilder::default();
    let hash = |name: &CachedName| hasher.hash_one(name);
    let mut index: HashTable<u32> = HashTable::with_capacity(names.len());
    for (at, name) in names.iter().enumerate() {
        index.insert_unique(hash(name), at as u32, |&at| hash(&names[at as usize]));
    }
    let Resolved {
        names: new,
        functions: new_functions,
        ..
    } = resolved;
    let in_entry: Vec<u32> = (new.names.into_iter())
        .map(|named| {
            let cached = CachedName::from(named);
            let hashed = hash(&cached);
            if let Some(&at) = index.find(hashed, |&at| names[at as usize] == cached) {
                return at;
            }
            let at = names.len() as u32;
            names.push(cached);
            index.insert_unique(hashed, at, |&at| hash(&names[at as usize]));
            at
        })
        .collect();
    let frames: Vec<(u64, Vec<u32>)> = (addresses.iter().zip(&new.chains))
        .map(|(&address, chain)| {
            let chain = chain.iter().map(|&at| in_entry[at as usize]).collect();
            (address, chain)
        })
        .collect();
    for (start, at) in new_functions {
        functions.push((start, in_entry[at as usize]));
    }
    functions.sort_unstable_by_key(|(start, _)| *start);
    functions.dedup_by_key(|(start, _)| *start);
    entry.names = names;
    entry.functions = functions;
    entry.add_frames(&frames);
    entry
}

/// The demangled name of the function at `start`, if the entry has it.
pub(super) fn known_function(entry: &BinaryEntry, start: u64) -> Option<Named> {
    let at = entry
        .functions
        .binary_search_by_key(&start, |(known, _)| *known)
        .ok()?;
    let cached = entry.names.get(entry.functions[at].1 as usize)?;
    Some(Named::from(cached.clone()))
}
