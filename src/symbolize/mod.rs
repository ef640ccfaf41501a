//! Names every unique frame once: symbol tables of the binaries, inline
//! frames from DWARF, kernel symbols, demangling, and `lib.so+0x…` for what
//! cannot be resolved. `pass_names.rs` reads the names MLIR's pass timers
//! give a binary's pass classes.
//!
//! Frames resolve to interned [`SymbolId`]s, so later stages compare and
//! count integers, not strings.

mod ahead;
mod demangle;
mod inline;
mod kernel;
mod memo;
mod pass_names;
mod symtab;

use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use rayon::prelude::*;

pub(crate) use ahead::NamingAhead;
pub(crate) use demangle::demangle;
pub(crate) use kernel::{
    KernelSymbols, KernelSymbolsUnavailable, RecordedKernel, keep_kernel_symbols_beside,
};
pub(crate) use memo::NamedAhead;
pub(crate) use pass_names::declared_pass_names;

use crate::binary::{DsoId, DsoKind, ElfImage, Store, hex};
use crate::cache::{BinaryEntry, Cache};
use crate::stacks::FrameId;
use crate::unwind::FrameKey;
use inline::InlineSlot;
use memo::EntryAhead;

crate::index::index_type! {
    /// Index of an interned symbol.
    pub(crate) struct SymbolId(u32);
}

/// A function as reports show it.
#[derive(Clone, Debug)]
pub(crate) struct Symbol {
    /// The demangled name, or `lib.so+0x…` when unresolved.
    pub name: String,
    /// The raw name in the symbol table, when it differs from `name`.
    pub mangled: Option<String>,
    pub dso: DsoId,
    /// False when the name is only the binary and an offset.
    pub resolved: bool,
}

/// The symbols of every frame of a recording.
pub(crate) struct Symbols {
    pub symbols: Vec<Symbol>,
    /// Every frame's symbols, innermost inlined function first, one frame's
    /// after another's: flat, so that walking a stack reads few places.
    frame_symbol_ids: Vec<SymbolId>,
    /// Per frame, where its symbols start and end in `frame_symbol_ids`.
    frame_spans: Vec<(u32, u32)>,
    /// Why kernel frames could not be named, if they could not.
    pub kernel_unavailable: Option<KernelSymbolsUnavailable>,
}

impl Symbols {
    pub(crate) fn get(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id.index()]
    }

    /// The symbols of a frame, innermost first.
    pub(crate) fn of_frame(&self, frame: FrameId) -> &[SymbolId] {
        let (start, end) = self.frame_spans[frame.index()];
        &self.frame_symbol_ids[start as usize..end as usize]
    }

    /// The function a frame's address is in, as the symbol table names it;
    /// inlined functions (from DWARF) are not counted here, as in
    /// `perf report --no-inline`.
    pub(crate) fn function_of_frame(&self, frame: FrameId) -> SymbolId {
        *self
            .of_frame(frame)
            .last()
            .expect("every frame resolves to at least one symbol")
    }
}

/// Interns symbols so that each (binary, name) pair has one id.
#[derive(Default)]
struct Interner {
    symbols: Vec<Symbol>,
    /// Ids, hashed by their symbol's binary and name.
    ids: HashTable<SymbolId>,
    hasher: DefaultHashBuilder,
}

impl Interner {
    fn intern(&mut self, dso: DsoId, named: Named) -> SymbolId {
        let hash = self.hasher.hash_one((dso, named.name.as_str()));
        let symbols = &self.symbols;
        let same = |id: &SymbolId| {
            let symbol = &symbols[id.index()];
            symbol.dso == dso && symbol.name == named.name
        };
        if let Some(&id) = self.ids.find(hash, same) {
            return id;
        }
        let id = SymbolId::new(self.symbols.len());
        self.symbols.push(Symbol {
            name: named.name,
            mangled: named.mangled,
            dso,
            resolved: named.resolved,
        });
        let (symbols, hasher) = (&self.symbols, &self.hasher);
        self.ids.insert_unique(hash, id, |id| {
            let symbol = &symbols[id.index()];
            hasher.hash_one((symbol.dso, symbol.name.as_str()))
        });
        id
    }
}

/// A frame's name before interning.
#[derive(Clone, Debug)]
struct Named {
    name: String,
    mangled: Option<String>,
    resolved: bool,
}

impl Named {
    fn unresolved(name: String) -> Named {
        Named {
            name,
            mangled: None,
            resolved: false,
        }
    }
}

/// The names of one binary's frames: per frame, the indexes of its names
/// in `names`, innermost inlined function first. A name that many frames
/// share (their function's) is there once.
struct NameChains {
    names: Vec<Named>,
    chains: Vec<Vec<u32>>,
}

impl NameChains {
    /// One name for each frame, in order.
    fn one_each(names: Vec<Named>) -> NameChains {
        let chains = (0..names.len() as u32).map(|at| vec![at]).collect();
        NameChains { names, chains }
    }

    /// Adds `named`; returns its index.
    fn push(&mut self, named: Named) -> u32 {
        self.names.push(named);
        (self.names.len() - 1) as u32
    }
}

/// A binary and the indexes of its frames.
type FrameGroup = (DsoId, Vec<usize>);

/// What naming a binary's frames reads: its name as reports show it, its
/// file and its separate debug file, when they were found.
struct BinaryFiles {
    name: String,
    image: Option<Arc<ElfImage>>,
    debug: Option<Arc<ElfImage>>,
}

impl BinaryFiles {
    fn of(store: &Store, dso: DsoId) -> BinaryFiles {
        let entry = store.get(dso);
        BinaryFiles {
            name: entry.name.clone(),
            image: entry.image.clone(),
            debug: entry.image.as_ref().and(store.debug_image(dso)).cloned(),
        }
    }
}

/// A load of the kernel's symbols running on another thread.
pub(crate) type KernelLoading = JoinHandle<Result<KernelSymbols, KernelSymbolsUnavailable>>;

/// Where the kernel's symbols come from: a load already started (while the
/// recording streamed), or one started when a kernel frame is not in the
/// cache.
pub(crate) struct KernelSource {
    pub recorded: RecordedKernel,
    pub started: Mutex<Option<KernelLoading>>,
}

impl KernelSource {
    fn load(&self, cache: &Cache) -> Result<KernelSymbols, KernelSymbolsUnavailable> {
        let started = self.started.lock().map(|mut slot| slot.take());
        match started {
            Ok(Some(loading)) => loading
                .join()
                .unwrap_or(Err(KernelSymbolsUnavailable::Unverifiable)),
            _ => KernelSymbols::load(&self.recorded, cache),
        }
    }

    /// The cache key of the recorded kernel's names: its build id (or,
    /// when the recording has none, its release) and where its text was
    /// (kernel addresses move with each boot).
    pub(crate) fn cache_key(&self) -> Option<String> {
        let text = self.recorded.text_address?;
        let kernel = match (&self.recorded.build_id, &self.recorded.release) {
            (Some(build_id), _) => hex(build_id),
            (None, Some(release)) => release
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect(),
            (None, None) => return None,
        };
        Some(format!("kernel-{kernel}-{text:x}"))
    }
}

/// Resolves every frame in `frames` (indexed by [`FrameId`]), asking
/// `cache` first for the names of each binary's (and the kernel's) frames,
/// or, for a binary in `named_ahead`, the entry named while the recording
/// was read.
///
/// Binaries are resolved in parallel, largest first, and the names of a
/// large one are demangled in parallel; ids are then assigned in binary
/// order, so the result does not depend on the number of threads.
pub(crate) fn symbolize(
    frames: &[FrameKey],
    store: &Store,
    kernel: &KernelSource,
    cache: &Cache,
    mut named_ahead: NamedAhead,
) -> Symbols {
    let mut by_dso: HashMap<DsoId, Vec<usize>> = HashMap::new();
    for (index, frame) in frames.iter().enumerate() {
        by_dso.entry(frame.dso).or_default().push(index);
    }
    let mut groups: Vec<FrameGroup> = by_dso.into_iter().collect();
    groups.sort_unstable_by_key(|(dso, indexes)| (std::cmp::Reverse(indexes.len()), *dso));
    let groups: Vec<(FrameGroup, Option<EntryAhead>)> = (groups.into_iter())
        .map(|group| {
            let ahead = named_ahead.remove(&group.0);
            (group, ahead)
        })
        .collect();

    let kernel_unavailable = OnceLock::new();
    let resolve_group = |(dso, indexes): &FrameGroup,
                         mut ahead: Option<EntryAhead>|
     -> NameChains {
        let lookups: Vec<u64> = indexes.iter().map(|&index| frames[index].lookup).collect();
        let unresolved_in = |address: u64| format!("{}+{:#x}", store.get(*dso).name, address);
        match store.get(*dso).kind {
            DsoKind::Kernel => memo::resolve_with_memo(
                cache,
                kernel.cache_key(),
                None,
                &lookups,
                |_| "[kernel]".to_owned(),
                |missing, _| {
                    let loaded = kernel.load(cache);
                    let names = resolve_kernel(missing.iter().copied(), &loaded);
                    let keep = loaded.is_ok();
                    let _ = kernel_unavailable.set(loaded.err());
                    memo::Resolved {
                        names: NameChains::one_each(names),
                        functions: Vec::new(),
                        keep,
                    }
                },
            ),
            DsoKind::Unknown => NameChains::one_each(
                (lookups.iter())
                    .map(|_| Named::unresolved("[unknown]".to_owned()))
                    .collect(),
            ),
            DsoKind::Vdso | DsoKind::File => {
                // The context the frames named ahead parsed units into.
                let mut inline = (ahead.as_mut())
                    .map(|ahead| std::mem::take(&mut ahead.inline))
                    .unwrap_or_default();
                memo::resolve_with_memo(
                    cache,
                    memo::binary_key(store, *dso),
                    ahead,
                    &lookups,
                    unresolved_in,
                    |missing, known| {
                        resolve_in_file(&BinaryFiles::of(store, *dso), missing, known, &mut inline)
                    },
                )
            }
        }
    };
    // Larger binaries start first; rayon balances the rest, including the
    // demangling inside a binary. Ids are then assigned in binary order.
    let mut resolved: Vec<(FrameGroup, NameChains)> = groups
        .into_par_iter()
        .with_max_len(1)
        .map(|(group, ahead)| {
            let names = resolve_group(&group, ahead);
            (group, names)
        })
        .collect();
    resolved.sort_unstable_by_key(|((dso, _), _)| *dso);

    let mut interner = Interner::default();
    let chain_lengths = (resolved.iter())
        .flat_map(|(_, names)| names.chains.iter().map(Vec::len))
        .sum();
    let mut frame_symbol_ids = Vec::with_capacity(chain_lengths);
    let mut frame_spans = vec![(0, 0); frames.len()];
    for ((dso, indexes), NameChains { names, chains }) in resolved {
        // Each name is interned at its first use, and given up to the interner.
        let mut names: Vec<Option<Named>> = names.into_iter().map(Some).collect();
        let mut ids: Vec<Option<SymbolId>> = vec![None; names.len()];
        for (&index, chain) in indexes.iter().zip(chains) {
            let start = frame_symbol_ids.len() as u32;
            for at in chain {
                let at = at as usize;
                frame_symbol_ids.push(*ids[at].get_or_insert_with(|| {
                    let named = names[at].take().expect("a name is interned once");
                    interner.intern(dso, named)
                }));
            }
            frame_spans[index] = (start, frame_symbol_ids.len() as u32);
        }
    }
    Symbols {
        symbols: interner.symbols,
        frame_symbol_ids,
        frame_spans,
        kernel_unavailable: kernel_unavailable.into_inner().flatten(),
    }
}

fn resolve_kernel(
    lookups: impl Iterator<Item = u64>,
    kernel: &Result<KernelSymbols, KernelSymbolsUnavailable>,
) -> Vec<Named> {
    let symbols = kernel.as_ref().ok();
    lookups
        .map(
            |address| match symbols.and_then(|symbols| symbols.lookup(address)) {
                Some(name) => Named {
                    name: name.to_owned(),
                    mangled: None,
                    resolved: true,
                },
                None => Named::unresolved("[kernel]".to_owned()),
            },
        )
        .collect()
}

/// Resolves the frames of one binary at `sorted` (distinct) addresses: one
/// pass over its symbol table for all of them, then inline frames from
/// DWARF where it exists. Functions `known` from the cache are not
/// demangled again.
fn resolve_in_file(
    files: &BinaryFiles,
    sorted: &[u64],
    known: &BinaryEntry,
    inline: &mut InlineSlot,
) -> memo::Resolved {
    let debug = files.debug.as_ref();
    // A debug file's full .symtab beats a stripped file's .dynsym.
    let hits = debug
        .and_then(|debug| symtab::lookup_sorted(debug, sorted))
        .or_else(|| {
            files
                .image
                .as_ref()
                .and_then(|image| symtab::lookup_sorted(image, sorted))
        })
        .unwrap_or_else(|| vec![None; sorted.len()]);
    let dwarf_image = files
        .image
        .as_ref()
        .filter(|image| image.has_dwarf)
        .or(debug);
    let mut inline = inline.get(dwarf_image.map(|image| &**image));

    // Each function is named once; demangling is spread over the cores.
    let mut functions: Vec<(u64, &[u8])> = hits
        .iter()
        .flatten()
        .map(|hit| (hit.start, hit.name))
        .collect();
    functions.sort_unstable_by_key(|(start, _)| *start);
    functions.dedup_by_key(|(start, _)| *start);
    let known_names: Vec<Option<Named>> = functions
        .iter()
        .map(|(start, _)| memo::known_function(known, *start))
        .collect();
    let function_names: Vec<Named> = functions
        .par_iter()
        .zip(&known_names)
        .map(|((_, raw), known)| {
            if let Some(known) = known {
                return known.clone();
            }
            let raw = String::from_utf8_lossy(raw);
            let name = demangle(&raw);
            let mangled = (name != raw).then(|| raw.into_owned());
            Named {
                name,
                mangled,
                resolved: true,
            }
        })
        .collect();
    let function_index = |start: u64| -> u32 {
        functions
            .binary_search_by_key(&start, |(function_start, _)| *function_start)
            .expect("every hit's function was named") as u32
    };
    let new_functions = (functions.iter().zip(&known_names).enumerate())
        .filter(|(_, (_, known))| known.is_none())
        .map(|(at, ((start, _), _))| (*start, at as u32))
        .collect();

    // The functions' names first, in `functions`' order.
    let mut names = NameChains {
        names: function_names,
        chains: Vec::with_capacity(sorted.len()),
    };
    for (&address, hit) in sorted.iter().zip(&hits) {
        let Some(hit) = hit else {
            let stub = files
                .image
                .as_ref()
                .and_then(|image| symtab::plt_stub_target(image, address));
            let named = match stub {
                Some(target) => Named {
                    name: format!("{}@plt", demangle(&target)),
                    mangled: Some(format!("{target}@plt")),
                    resolved: true,
                },
                None => Named::unresolved(format!("{}+{:#x}", files.name, address)),
            };
            let chain = vec![names.push(named)];
            names.chains.push(chain);
            continue;
        };
        let mut chain: Vec<u32> = Vec::new();
        if let Some(info) = &mut inline {
            for name in info.inlined(address) {
                chain.push(names.push(Named {
                    name,
                    mangled: None,
                    resolved: true,
                }));
            }
        }
        chain.push(function_index(hit.start));
        names.chains.push(chain);
    }
    memo::Resolved {
        names,
        functions: new_functions,
        keep: true,
    }
}
