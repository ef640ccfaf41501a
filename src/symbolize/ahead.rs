//! Names frames while the recording is still being read. Reading a `-z`
//! recording keeps one core on zstd and leaves the other's reader thread
//! waiting for it part of the time; a thread that runs only then names the
//! frames found so far, so that fewer are left to name once the read ends.
//!
//! It names them as a later report names frames its cache entry lacks: it
//! starts from the binary's cache entry and adds the frames it names, and
//! [`symbolize`](super::symbolize) takes that entry in place of the
//! cache's. So the names are the same whichever frames were named ahead.
//!
//! The thread runs in Linux's idle class, so on a machine busy with other
//! work it may not run for a long time. The read's end therefore never
//! waits for it: each binary's entry is published after each batch (the
//! lock is held only to swap it), and [`NamingAhead::finish`] takes what was
//! published; a batch still in hand is named again after the read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use hashbrown::HashMap;

use super::inline::InlineSlot;
use super::memo::{EntryAhead, NamedAhead, binary_key, cached_entry, extended};
use super::{BinaryFiles, resolve_in_file};
use crate::binary::{DsoId, DsoKind, Store};
use crate::cache::{BinaryEntry, Cache};
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

/// One binary's names as the thread last published them: the entry, and
/// its inline context while the thread is not using it.
struct Published {
    entry: Arc<BinaryEntry>,
    inline: Option<InlineSlot>,
}

/// What the thread has published, by binary, and whether the read has
/// ended; the reader and the thread share it.
#[derive(Default)]
struct Shared {
    published: Mutex<HashMap<DsoId, Published>>,
    /// Set when the read has ended: the thread stops at its next batch.
    finished: AtomicBool,
}

/// The naming thread, and what the reader has handed it.
pub(crate) struct NamingAhead {
    batches: Option<Sender<Batch>>,
    shared: Arc<Shared>,
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
        let shared = Arc::new(Shared::default());
        let (cache, thread_shared) = (cache.clone(), Arc::clone(&shared));
        pool.spawn(move || name_batches(&batches_in, &thread_shared, &cache));
        Some(NamingAhead {
            batches: Some(batches),
            shared,
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

    /// Stops the thread and takes what it has published, without waiting
    /// for the batch it may be naming.
    pub(crate) fn finish(mut self) -> NamedAhead {
        self.stop();
        let published = match self.shared.published.lock() {
            Ok(mut published) => std::mem::take(&mut *published),
            Err(_) => return NamedAhead::new(),
        };
        (published.into_iter())
            .map(|(dso, published)| {
                let ahead = EntryAhead {
                    // The thread may still hold the entry it started a
                    // batch from: then it is copied.
                    entry: Arc::unwrap_or_clone(published.entry),
                    grown: true,
                    inline: published.inline.unwrap_or_default(),
                };
                (dso, ahead)
            })
            .collect()
    }

    fn stop(&mut self) {
        self.shared.finished.store(true, Ordering::Relaxed);
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
/// each binary's cache entry, and publishes each binary's grown entry,
/// until the read ends.
fn name_batches(batches: &Receiver<Batch>, shared: &Shared, cache: &Cache) {
    let mut binaries: HashMap<DsoId, (BinaryFiles, Option<String>)> = HashMap::new();
    let mut entries: HashMap<DsoId, Arc<BinaryEntry>> = HashMap::new();
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
            if shared.finished.load(Ordering::Relaxed) {
                return;
            }
            let Some((files, key)) = binaries.get(&dso) else {
                continue;
            };
            let entry = entries
                .entry(dso)
                .or_insert_with(|| Arc::new(cached_entry(cache, key.as_deref())));
            addresses.retain(|&address| entry.usable_chain_at(address).is_none());
            addresses.sort_unstable();
            addresses.dedup();
            if addresses.is_empty() {
                continue;
            }
            let Some(mut inline) = take_inline(shared, dso) else {
                return;
            };
            let resolved = resolve_in_file(files, &addresses, entry, &mut inline);
            // Copied when the reader took the entry before this batch.
            let grown = Arc::new(extended(
                Arc::unwrap_or_clone(Arc::clone(entry)),
                &addresses,
                resolved,
            ));
            *entry = Arc::clone(&grown);
            let Ok(mut published) = shared.published.lock() else {
                return;
            };
            let replaced = published.insert(
                dso,
                Published {
                    entry: grown,
                    inline: Some(inline),
                },
            );
            drop(published);
            drop(replaced);
        }
    }
}

/// The inline context of `dso` for the thread to use, taken from what it
/// published (a new one at the binary's first batch); `None` once the
/// read has ended.
fn take_inline(shared: &Shared, dso: DsoId) -> Option<InlineSlot> {
    let mut published = shared.published.lock().ok()?;
    if shared.finished.load(Ordering::Relaxed) {
        return None;
    }
    let slot = (published.get_mut(&dso))
        .and_then(|published| published.inline.take())
        .unwrap_or_default();
    Some(slot)
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
            // The thread's job holds the shared state until it returns.
            while Arc::strong_count(&self.shared) > 1 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            self.finish()
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
