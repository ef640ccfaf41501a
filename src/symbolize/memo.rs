//! Names kept between runs: the cache's [`BinaryEntry`] of a binary's
//! build id (or of the running kernel) answers the addresses it has seen,
//! and only the others are resolved, then added to it.

use hashbrown::HashMap;

use super::Named;
use crate::binary::{DsoId, DsoKind, Store, hex};
use crate::cache::{BinaryEntry, Cache, CachedName, Kind};

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
    pub chains: Vec<Vec<Named>>,
    /// Functions demangled on the way, by start.
    pub functions: Vec<(u64, Named)>,
    /// False when the result must not be kept (kernel symbols that could
    /// not be loaded this time).
    pub keep: bool,
}

/// The names of `lookups`: from the cache entry under `key` where it has
/// them, from `resolve` (given the sorted, distinct addresses it lacks and
/// the entry) for the rest; the entry is then rewritten with the new ones.
/// `unresolved_name` names an address nothing resolved, as it is shown.
pub(super) fn resolve_with_memo(
    cache: &Cache,
    key: Option<String>,
    lookups: &[u64],
    unresolved_name: impl Fn(u64) -> String,
    resolve: impl FnOnce(&[u64], &BinaryEntry) -> Resolved,
) -> Vec<Vec<Named>> {
    let entry: BinaryEntry = key
        .as_deref()
        .and_then(|key| cache.read(Kind::Binary, key))
        .unwrap_or_default();
    let from_entry = |address: u64| -> Option<Vec<Named>> {
        let at = entry
            .frames
            .binary_search_by_key(&address, |(known, _)| *known)
            .ok()?;
        entry.frames[at]
            .1
            .iter()
            .map(|&index| {
                let cached = entry.names.get(index as usize)?;
                Some(if cached.resolved {
                    Named {
                        name: cached.name.clone(),
                        mangled: cached.mangled.clone(),
                        resolved: true,
                    }
                } else {
                    Named::unresolved(unresolved_name(address))
                })
            })
            .collect()
    };
    let mut chains: Vec<Option<Vec<Named>>> = lookups.iter().map(|&a| from_entry(a)).collect();
    let mut missing: Vec<u64> = lookups
        .iter()
        .zip(&chains)
        .filter(|(_, chain)| chain.is_none())
        .map(|(&address, _)| address)
        .collect();
    if missing.is_empty() {
        return chains.into_iter().flatten().collect();
    }
    missing.sort_unstable();
    missing.dedup();
    let resolved = resolve(&missing, &entry);
    for (chain, &address) in chains.iter_mut().zip(lookups) {
        if chain.is_none() {
            let at = missing
                .binary_search(&address)
                .expect("every missing address was resolved");
            *chain = Some(resolved.chains[at].clone());
        }
    }
    if let Some(key) = key.filter(|_| resolved.keep) {
        cache.write_with(Kind::Binary, &key, move || {
            extended(entry, &missing, resolved)
        });
    }
    chains.into_iter().flatten().collect()
}

/// `entry` with the names of `addresses` (sorted) and the new functions added.
fn extended(entry: BinaryEntry, addresses: &[u64], resolved: Resolved) -> BinaryEntry {
    let BinaryEntry {
        mut names,
        mut functions,
        mut frames,
    } = entry;
    let mut index: HashMap<CachedName, u32> = names
        .iter()
        .enumerate()
        .map(|(at, name)| (name.clone(), at as u32))
        .collect();
    let mut intern = |named: &Named| -> u32 {
        let cached = CachedName {
            name: if named.resolved {
                named.name.clone()
            } else {
                String::new()
            },
            mangled: named.mangled.clone(),
            resolved: named.resolved,
        };
        *index.entry(cached.clone()).or_insert_with(|| {
            names.push(cached);
            (names.len() - 1) as u32
        })
    };
    for (&address, chain) in addresses.iter().zip(&resolved.chains) {
        frames.push((address, chain.iter().map(&mut intern).collect()));
    }
    for (start, named) in &resolved.functions {
        functions.push((*start, intern(named)));
    }
    frames.sort_unstable_by_key(|(address, _)| *address);
    frames.dedup_by_key(|(address, _)| *address);
    functions.sort_unstable_by_key(|(start, _)| *start);
    functions.dedup_by_key(|(start, _)| *start);
    BinaryEntry {
        names,
        functions,
        frames,
    }
}

/// The demangled name of the function at `start`, if the entry has it.
pub(super) fn known_function(entry: &BinaryEntry, start: u64) -> Option<Named> {
    let at = entry
        .functions
        .binary_search_by_key(&start, |(known, _)| *known)
        .ok()?;
    let cached = entry.names.get(entry.functions[at].1 as usize)?;
    Some(Named {
        name: cached.name.clone(),
        mangled: cached.mangled.clone(),
        resolved: cached.resolved,
    })
}
