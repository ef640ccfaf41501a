//! Names every unique frame once: symbol tables of the binaries, inline
//! frames from DWARF, kernel symbols, demangling, and `lib.so+0x…` for what
//! cannot be resolved.
//!
//! Frames resolve to interned [`SymbolId`]s, so later stages compare and
//! count integers, not strings.

mod demangle;
mod inline;
mod kernel;
mod symtab;

use std::collections::HashMap;
use std::sync::Arc;

pub use demangle::demangle;
pub use kernel::{KernelSymbols, KernelSymbolsUnavailable, RecordedKernel};

use crate::binary::{DsoId, DsoKind, Store};
use crate::stacks::FrameId;
use crate::unwind::FrameKey;
use inline::InlineInfo;
use symtab::SymbolTable;

/// Index of an interned symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolId(pub u32);

/// A function as reports show it.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// The demangled name, or `lib.so+0x…` when unresolved.
    pub name: String,
    /// The raw name in the symbol table, when it differs from `name`.
    pub mangled: Option<String>,
    pub dso: DsoId,
    /// False when the name is only the binary and an offset.
    pub resolved: bool,
}

/// The symbols of every frame of a recording.
pub struct Symbols {
    pub symbols: Vec<Symbol>,
    /// Per frame, its symbols with the innermost inlined function first.
    pub frame_symbols: Vec<Vec<SymbolId>>,
    /// Why kernel frames could not be named, if they could not.
    pub kernel_unavailable: Option<KernelSymbolsUnavailable>,
}

impl Symbols {
    pub fn get(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id.0 as usize]
    }

    /// The symbols of a frame, innermost first.
    pub fn of_frame(&self, frame: FrameId) -> &[SymbolId] {
        &self.frame_symbols[frame.0 as usize]
    }

    /// The function a frame's address is in, as the symbol table names it;
    /// inlined functions (from DWARF) are not counted here, as in
    /// `perf report --no-inline`.
    pub fn function_of_frame(&self, frame: FrameId) -> SymbolId {
        *self
            .of_frame(frame)
            .last()
            .expect("every frame resolves to at least one symbol")
    }
}

/// Resolves frames, loading what each binary needs on first use.
struct Resolver<'a> {
    store: &'a Store,
    tables: HashMap<DsoId, Option<SymbolTable>>,
    inline: HashMap<DsoId, Option<InlineInfo>>,
    kernel: Result<KernelSymbols, KernelSymbolsUnavailable>,
    symbols: Vec<Symbol>,
    symbol_ids: HashMap<(DsoId, String), SymbolId>,
    /// Symbol ids by (binary, symbol start), so each hit symbol is demangled once.
    by_start: HashMap<(DsoId, u64), SymbolId>,
}

/// Resolves every frame in `frames` (indexed by [`FrameId`]).
pub fn symbolize(frames: &[FrameKey], store: &Store, kernel: &RecordedKernel<'_>) -> Symbols {
    let needs_kernel = frames.iter().any(|frame| frame.dso == store.kernel());
    let kernel = if needs_kernel {
        KernelSymbols::load(kernel)
    } else {
        Err(KernelSymbolsUnavailable::Unverifiable)
    };
    let mut resolver = Resolver {
        store,
        tables: HashMap::new(),
        inline: HashMap::new(),
        kernel,
        symbols: Vec::new(),
        symbol_ids: HashMap::new(),
        by_start: HashMap::new(),
    };
    let frame_symbols = frames
        .iter()
        .map(|frame| resolver.resolve(*frame))
        .collect();
    Symbols {
        symbols: resolver.symbols,
        frame_symbols,
        kernel_unavailable: if needs_kernel {
            resolver.kernel.err()
        } else {
            None
        },
    }
}

impl Resolver<'_> {
    fn resolve(&mut self, frame: FrameKey) -> Vec<SymbolId> {
        let dso = self.store.get(frame.dso);
        match dso.kind {
            DsoKind::Kernel => {
                let name = match &self.kernel {
                    Ok(symbols) => symbols.lookup(frame.lookup).map(str::to_owned),
                    Err(_) => None,
                };
                let resolved = name.is_some();
                vec![self.intern(
                    frame.dso,
                    name.unwrap_or_else(|| "[kernel]".to_owned()),
                    None,
                    resolved,
                )]
            }
            DsoKind::Unknown => vec![self.intern(frame.dso, "[unknown]".to_owned(), None, false)],
            DsoKind::Vdso | DsoKind::File => self.resolve_in_file(frame),
        }
    }

    fn resolve_in_file(&mut self, frame: FrameKey) -> Vec<SymbolId> {
        let table = self.tables.entry(frame.dso).or_insert_with(|| {
            let dso = self.store.get(frame.dso);
            let image = self
                .store
                .debug_image(frame.dso)
                .filter(|_| dso.image.is_some());
            // A debug file's full .symtab beats a stripped file's .dynsym.
            image
                .and_then(|debug| SymbolTable::read(Arc::clone(debug)))
                .filter(|table| table.len() > 0)
                .or_else(|| {
                    dso.image
                        .as_ref()
                        .and_then(|image| SymbolTable::read(Arc::clone(image)))
                })
        });
        let hit = table
            .as_ref()
            .and_then(|table| table.lookup(frame.lookup))
            .map(|hit| (String::from_utf8_lossy(hit.name).into_owned(), hit.start));
        let Some((raw, start)) = hit else {
            let name = format!("{}+{:#x}", self.store.get(frame.dso).name, frame.lookup);
            return vec![self.intern(frame.dso, name, None, false)];
        };
        let outer = match self.by_start.get(&(frame.dso, start)) {
            Some(&id) => id,
            None => {
                let name = demangle(&raw);
                let mangled = (name != raw).then_some(raw);
                let id = self.intern(frame.dso, name, mangled, true);
                self.by_start.insert((frame.dso, start), id);
                id
            }
        };
        let mut chain = self.inlined_at(frame);
        chain.push(outer);
        chain
    }

    /// The inlined functions at a frame, innermost first, without the outer function.
    fn inlined_at(&mut self, frame: FrameKey) -> Vec<SymbolId> {
        let info = self.inline.entry(frame.dso).or_insert_with(|| {
            let dso = self.store.get(frame.dso);
            let image = dso.image.as_ref()?;
            if image.has_dwarf {
                InlineInfo::load(image)
            } else {
                self.store
                    .debug_image(frame.dso)
                    .and_then(|debug| InlineInfo::load(debug))
            }
        });
        let Some(info) = info else {
            return Vec::new();
        };
        let mut names = info.frames(frame.lookup);
        names.pop(); // the outer function; the symbol table names it
        names
            .into_iter()
            .map(|name| self.intern(frame.dso, name, None, true))
            .collect()
    }

    fn intern(
        &mut self,
        dso: DsoId,
        name: String,
        mangled: Option<String>,
        resolved: bool,
    ) -> SymbolId {
        let key = (dso, name);
        if let Some(&id) = self.symbol_ids.get(&key) {
            return id;
        }
        let id = SymbolId(self.symbols.len() as u32);
        self.symbols.push(Symbol {
            name: key.1.clone(),
            mangled,
            dso,
            resolved,
        });
        self.symbol_ids.insert(key, id);
        id
    }
}
