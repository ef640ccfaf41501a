//! Names frames while the recording is still being read. Reading a `-z`
//! recording keeps one core on zstd and leaves the other's reader thread
//! waiting for it part of the time; a thread that runs only then names the
//! frames found so far, so that fewer are left to name once the read ends.
//!
//! It names them as a later report names frames its cache entry lacks: it
//! starts from the binary's cache entry and adds the frames it names, and
//! [`symbolize`](super::symbolize) takes that entry in place of the
//! cache's. So the names are the same whichever frames were named ahead.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};

use hashbrown::HashMap;

use super::inline::InlineSlot;
use super::memo::{EntryAhead, NamedAhead, binary_key, cached_entry, extended};
use super::{BinaryFiles, resolve_in_file};
use crate::binary::{DsoId, DsoKind, Store};
use crate::cache::Cache;
use crate::unwind::FrameKey;

/// New frames gathered before they are handed to the naming thread: a
/// pass over libIREECompiler's symbol table costs the same for one address
/// as for thousands.
const BATCH_FRAMES: usize = 512;

/// New frames of binaries with a file, and how to read the binaries not
/// described before.
struct Batch {
    binaries: Vec<(DsoId, BinaryFiles, Option<String>)>,
    frames: Vec<FrameKey>,
}

/// The naming thread, and what the reader has handed it.
pub(crate) struct NamingAhead {
    batches: Option<Sender<Batch>>,
    /// Set when the read has ended: the thread stops after the binary it
    /// is naming, and the rest is named on all cores.
    finished: Arc<AtomicBool>,
    named: Receiver<NamedAhead>,
    /// One thread, so that demangling in parallel stays on it.
    _pool: rayon::ThreadPool,
    /// Frames of the stack table handed on so far.
    handed: usize,
    described: Vec<bool>,
}

impl NamingAhead {
    /// Starts the thread; `None` when it cannot be started, and everything
    /// is then named after the read.
    pub(crate) fn start(cache: &Cache) -> Option<NamingAhead> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "naming-ahead".to_owned())
            .start_handler(|_| run_when_idle())
            // Rayon aborts the process on a panic in a spawned job unless a
            // handler takes it. Here nothing is lost with the thread: its
            // frames are named after the read, as without it.
            .panic_handler(|_| {})
            .build()
            .ok()?;
        let (batches, batches_in) = channel();
        let (named_out, named) = channel();
        let finished = Arc::new(AtomicBool::new(false));
        let (cache, stop) = (cache.clone(), Arc::clone(&finished));
        pool.spawn(move || {
            let _ = named_out.send(name_batches(&batches_in, &stop, &cache));
        });
        Some(NamingAhead {
            batches: Some(batches),
            finished,
            named,
            _pool: pool,
            handed: 0,
            described: Vec::new(),
        })
    }

    /// Hands on the frames added to `frames` since the last batch, once
    /// there are enough of them.
    pub(crate) fn offer(&mut self, frames: &[FrameKey], store: &Store) {
        if frames.len() < self.handed + BATCH_FRAMES {
            return;
        }
        let Some(batches) = &self.batches else {
            return;
        };
        let mut batch = Batch {
            binaries: Vec::new(),
            frames: Vec::with_capacity(frames.len() - self.handed),
        };
        for frame in &frames[self.handed..] {
            let dso = store.get(frame.dso);
            if !matches!(dso.kind, DsoKind::File | DsoKind::Vdso) || dso.image.is_none() {
                continue;
            }
            let index = frame.dso.index();
            if self.described.len() <= index {
                self.described.resize(index + 1, false);
            }
            if !self.described[index] {
                self.described[index] = true;
                let files = BinaryFiles::of(store, frame.dso);
                batch
                    .binaries
                    .push((frame.dso, files, binary_key(store, frame.dso)));
            }
            batch.frames.push(*frame);
        }
        self.handed = frames.len();
        if batches.send(batch).is_err() {
            self.batches = None;
        }
    }

    /// Stops the thread after the binary it is naming, and takes what it
    /// named.
    pub(crate) fn finish(mut self) -> NamedAhead {
        self.stop();
        self.named.recv().unwrap_or_default()
    }

    fn stop(&mut self) {
        self.finished.store(true, Ordering::Relaxed);
        self.batches = None;
    }
}

impl Drop for NamingAhead {
    /// A read that failed stops the thread too.
    fn drop(&mut self) {
        self.stop();
    }
}

/// Puts the calling thread in Linux's idle scheduling class, so that it
/// runs only when a core would otherwise idle; best effort. (At nice 19
/// instead, it still delayed the reader: the read took 14 ms longer.)
fn run_when_idle() {
    // SAFETY: a plain system call on the calling thread (pid 0), with a
    // valid parameter.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
    }
}

/// The thread: names each batch's new frames, binary by binary, on top of
/// each binary's cache entry, until the read ends.
fn name_batches(batches: &Receiver<Batch>, finished: &AtomicBool, cache: &Cache) -> NamedAhead {
    let mut binaries: HashMap<DsoId, (BinaryFiles, Option<String>)> = HashMap::new();
    let mut named = NamedAhead::new();
    let mut pending: HashMap<DsoId, Vec<u64>> = HashMap::new();
    while let Ok(batch) = batches.recv() {
        let mut add = |batch: Batch| {
            for (dso, files, key) in batch.binaries {
                binaries.insert(dso, (files, key));
            }
            for frame in batch.frames {
                pending.entry(frame.dso).or_default().push(frame.lookup);
            }
        };
        add(batch);
        while let Ok(batch) = batches.try_recv() {
            add(batch);
        }
        // The binaries with the most new frames first.
        let mut by_count: Vec<(DsoId, Vec<u64>)> = pending.drain().collect();
        by_count
            .sort_unstable_by_key(|(dso, addresses)| (std::cmp::Reverse(addresses.len()), *dso));
        for (dso, mut addresses) in by_count {
            if finished.load(Ordering::Relaxed) {
                return named;
            }
            let Some((files, key)) = binaries.get(&dso) else {
                continue;
            };
            let ahead = named.entry(dso).or_insert_with(|| EntryAhead {
                entry: cached_entry(cache, key.as_deref()),
                grown: false,
                inline: InlineSlot::default(),
            });
            addresses.retain(|&address| ahead.entry.usable_chain_at(address).is_none());
            addresses.sort_unstable();
            addresses.dedup();
            if addresses.is_empty() {
                continue;
            }
            let resolved = resolve_in_file(files, &addresses, &ahead.entry, &mut ahead.inline);
            let entry = std::mem::take(&mut ahead.entry);
            ahead.entry = extended(entry, &addresses, resolved);
            ahead.grown = true;
        }
    }
    named
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use object::{Object, ObjectSymbol, SymbolKind};

    use super::*;
    use crate::binary::SearchPaths;
    use crate::stacks::FrameId;
    use crate::symbolize::{KernelSource, RecordedKernel, Symbols, symbolize};

    impl NamingAhead {
        /// Waits until every batch handed on is named.
        fn finish_when_named(mut self) -> NamedAhead {
            self.batches = None;
            self.named.recv().unwrap_or_default()
        }
    }

    /// Every frame's names, innermost first, as (name, mangled name, resolved).
    fn names_of(
        frames: &[FrameKey],
        symbols: &Symbols,
    ) -> Vec<Vec<(String, Option<String>, bool)>> {
        (0..frames.len())
            .map(|frame| {
                (symbols.of_frame(FrameId::new(frame)).iter())
                    .map(|&id| {
                        let symbol = symbols.get(id);
                        (symbol.name.clone(), symbol.mangled.clone(), symbol.resolved)
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn frames_named_ahead_have_the_names_they_get_after_the_read() {
        // This test binary: a symbol table, and DWARF with inline frames.
        let exe = std::env::current_exe().expect("the test binary has a path");
        let mut store = Store::new(SearchPaths::new(Vec::new(), Vec::new()), HashMap::new());
        let dso = store.intern_mapping(exe.to_str().expect("a UTF-8 path"), None);
        let image = store
            .get(dso)
            .image
            .clone()
            .expect("the test binary is readable");
        let elf = object::File::parse(image.data()).expect("the test binary is ELF");
        let mut addresses: Vec<u64> = (elf.symbols())
            .filter(|symbol| symbol.kind() == SymbolKind::Text && symbol.size() > 16)
            .map(|symbol| symbol.address() + symbol.size() / 2)
            .collect();
        addresses.sort_unstable();
        addresses.dedup();
        // Three batches and a rest that stays for after the read, in an
        // order that is not the addresses'.
        let count = 3 * BATCH_FRAMES + BATCH_FRAMES / 2;
        assert!(addresses.len() >= count, "{} functions", addresses.len());
        let step = addresses.len() / count;
        let mut frames: Vec<FrameKey> = (0..count)
            .map(|at| FrameKey {
                dso,
                lookup: addresses[at * step],
            })
            .collect();
        frames.reverse();
        frames.swap(0, count / 2);

        let cache = Cache::from_env(false);
        let kernel = KernelSource {
            recorded: RecordedKernel::default(),
            started: Mutex::new(None),
        };
        let after_the_read = symbolize(&frames, &store, &kernel, &cache, NamedAhead::new());

        let mut naming = NamingAhead::start(&cache).expect("a thread starts");
        for seen in 1..=frames.len() {
            naming.offer(&frames[..seen], &store);
        }
        let named = naming.finish_when_named();
        let entry = &named.get(&dso).expect("the binary was named ahead").entry;
        let handed = &frames[..3 * BATCH_FRAMES];
        assert!(
            (handed.iter()).all(|frame| entry.chain_at(frame.lookup).is_some()),
            "every frame handed on was named ahead"
        );
        assert!(
            (frames[3 * BATCH_FRAMES..].iter()).all(|frame| entry.chain_at(frame.lookup).is_none()),
            "the rest was not handed on"
        );
        let ahead = symbolize(&frames, &store, &kernel, &cache, named);

        let inlined = (0..frames.len())
            .filter(|&frame| after_the_read.of_frame(FrameId::new(frame)).len() > 1)
            .count();
        assert!(inlined > 0, "some frames have inline frames");
        let (named_ahead, named_after) = (
            names_of(&frames, &ahead),
            names_of(&frames, &after_the_read),
        );
        let differing = (0..frames.len()).find(|&at| named_ahead[at] != named_after[at]);
        assert_eq!(
            differing.map(|at| (at, &named_ahead[at], &named_after[at])),
            None,
            "the first frame named otherwise ahead than after"
        );
        let all_names = |symbols: &Symbols| -> Vec<String> {
            symbols
                .symbols
                .iter()
                .map(|symbol| symbol.name.clone())
                .collect()
        };
        assert_eq!(
            all_names(&ahead),
            all_names(&after_the_read),
            "ids in the same order"
        );
    }
}
