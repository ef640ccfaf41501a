//! The caches kept between runs, in `$XDG_CACHE_HOME/compile-perf/`
//! (`~/.cache/compile-perf/` by default): what each binary's frames were
//! named, keyed by build id ([`BinaryEntry`]); each symbol's category under
//! a rule table, keyed by the table's hash ([`CategoriesEntry`]); and each
//! recording's unwound stacks, keyed by its path and checked against its
//! identity ([`RecordingEntry`]).
//!
//! Entries are written whole under a temporary name and renamed into place,
//! and read from a memory map. An entry that is
//! damaged, stale or of another version is never trusted: it is ignored
//! with a note on stderr, and the caller's fresh result replaces it. This
//! module only stores and checks bytes; what is in an entry is its user's.

mod entry;
mod recording;
mod symbols;

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde::Serialize;
use serde::de::DeserializeOwned;

pub(crate) use recording::{
    CachedDso, CachedLoss, CachedProcess, CachedSample, CachedThread, Identity, RecordingEntry,
};
pub(crate) use symbols::{BinaryEntry, CachedName, CategoriesEntry, CategoryOf};

/// The kinds of entries, each in its own directory under the cache root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Per build id: the names of a binary's frames.
    Binary,
    /// Per rule table: the category of each symbol.
    Categories,
    /// Per recording: its unwound stacks, threads and processes.
    Recording,
}

impl Kind {
    pub(crate) const ALL: [Kind; 3] = [Kind::Binary, Kind::Categories, Kind::Recording];

    /// The directory of this kind's entries, under the cache root.
    pub(crate) fn directory(self) -> &'static str {
        match self {
            Kind::Binary => "binaries",
            Kind::Categories => "categories",
            Kind::Recording => "recordings",
        }
    }

    fn tag(self) -> u32 {
        match self {
            Kind::Binary => 1,
            Kind::Categories => 2,
            Kind::Recording => 3,
        }
    }
}

/// File name extension of entries.
const EXTENSION: &str = "bin";

/// Where the caches are, or `None` when caching is off (`--no-cache`, or
/// no cache directory can be named).
#[derive(Clone, Debug, Default)]
pub(crate) struct Cache {
    root: Option<PathBuf>,
    writes: Arc<Writes>,
}

/// Entries being written on threads of their own, off the report's path.
/// The last handle on the cache to go waits for them, so that a run ends
/// with its entries in place.
#[derive(Default)]
struct Writes(Mutex<Vec<JoinHandle<()>>>);

impl Writes {
    fn wait(&self) {
        let writing = self.0.lock().map(|mut writes| std::mem::take(&mut *writes));
        for write in writing.unwrap_or_default() {
            // A write that panicked has left no entry; the next run makes it.
            let _ = write.join();
        }
    }
}

impl Drop for Writes {
    fn drop(&mut self) {
        self.wait();
    }
}

impl fmt::Debug for Writes {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str("Writes")
    }
}

impl Cache {
    /// The cache under `$XDG_CACHE_HOME` (or `$HOME/.cache`), unless `enabled` is false.
    pub(crate) fn from_env(enabled: bool) -> Cache {
        Cache {
            root: enabled.then(default_root).flatten(),
            writes: Arc::default(),
        }
    }

    /// Waits for the entries being written. A run ends with this, so that
    /// its entries are in place even where the values holding a handle on
    /// the cache are left to the process's exit.
    pub(crate) fn wait_for_writes(&self) {
        self.writes.wait();
    }

    /// The cache root, when caching is on.
    pub(crate) fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    fn path(&self, kind: Kind, key: &str) -> Option<PathBuf> {
        Some(
            self.root
                .as_ref()?
                .join(kind.directory())
                .join(format!("{key}.{EXTENSION}")),
        )
    }

    /// Whether an entry exists (it may still turn out unusable).
    pub(crate) fn contains(&self, kind: Kind, key: &str) -> bool {
        self.path(kind, key).is_some_and(|path| path.is_file())
    }

    /// The entry of `kind` under `key`, if there is one to trust. A damaged
    /// or foreign entry is reported (and will be replaced by the caller's
    /// next [`Cache::write_with`]).
    pub(crate) fn read<T: DeserializeOwned>(&self, kind: Kind, key: &str) -> Option<T> {
        let path = self.path(kind, key)?;
        let file = File::open(&path).ok()?;
        // SAFETY: entries are only ever replaced by renaming a complete new
        // file over them, never written in place, so the mapped file does
        // not change while it is mapped; a file truncated by anyone else
        // would fail the length and checksum checks before use.
        let map = match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) => map,
            Err(error) => {
                note_ignored(&path, &error.to_string());
                return None;
            }
        };
        match entry::decode(kind.tag(), &map) {
            Ok(value) => Some(value),
            Err(reason) => {
                note_ignored(&path, &reason);
                None
            }
        }
    }

    /// Notes that the entry of `kind` under `key` no longer matches what it
    /// was made from, and is rebuilt.
    pub(crate) fn note_stale(&self, kind: Kind, key: &str, reason: &str) {
        if let Some(path) = self.path(kind, key) {
            note_ignored(&path, reason);
        }
    }

    /// Stores the value `make` returns as the entry of `kind` under `key`,
    /// on a thread of its own: the caller goes on while the entry is made,
    /// encoded and written. A cache that cannot be written costs only
    /// speed: the failure is a note.
    pub(crate) fn write_with<T: Serialize>(
        &self,
        kind: Kind,
        key: &str,
        make: impl FnOnce() -> T + Send + 'static,
    ) {
        let Some(path) = self.path(kind, key) else {
            return;
        };
        let write = std::thread::spawn(move || {
            let written = entry::encode(kind.tag(), &make())
                .map_err(std::io::Error::other)
                .and_then(|bytes| write_whole(&path, &bytes));
            if let Err(error) = written {
                eprintln!(
                    "compile-perf: note: cache entry {} not written: {error}",
                    path.display()
                );
            }
        });
        if let Ok(mut writes) = self.writes.0.lock() {
            writes.push(write);
        }
    }
}

/// Writes `bytes` under a name of this process's beside `path`, then
/// renames it over `path`: readers see the old entry or the new one, never
/// part of one, and processes (or threads) writing the same entry at once
/// do not get in each other's way (the last rename wins).
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().expect("entries are in a directory");
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .expect("entries have names")
        .to_string_lossy();
    // Unique to this process and write: two threads may write one entry.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let number = WRITES.fetch_add(1, Ordering::Relaxed);
    let partial = dir.join(format!(".{name}.partial-{}-{number}", std::process::id()));
    let written = std::fs::write(&partial, bytes).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

fn note_ignored(path: &Path, reason: &str) {
    eprintln!(
        "compile-perf: note: cache entry {} ignored and rebuilt: {reason}",
        path.display()
    );
}

/// `$XDG_CACHE_HOME/compile-perf` when that is an absolute path, else
/// `$HOME/.cache/compile-perf`.
fn default_root() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute());
    let base = xdg.or_else(|| {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|home| home.is_absolute())
            .map(|home| home.join(".cache"))
    })?;
    Some(base.join(crate::defaults::CACHE_DIR_NAME))
}

/// What one kind of entry holds, for `cache info`.
#[derive(Clone, Debug, Default)]
pub(crate) struct KindUsage {
    pub entries: u64,
    pub bytes: u64,
    /// Each entry's file name and size, largest first.
    pub files: Vec<(String, u64)>,
}

impl Cache {
    /// The entries of `kind` and their sizes.
    pub(crate) fn usage(&self, kind: Kind) -> KindUsage {
        let mut usage = KindUsage::default();
        let Some(dir) = self.root.as_ref().map(|root| root.join(kind.directory())) else {
            return usage;
        };
        let Ok(listing) = std::fs::read_dir(dir) else {
            return usage;
        };
        for item in listing.flatten() {
            let Ok(meta) = item.metadata() else { continue };
            if meta.is_file() {
                usage.entries += 1;
                usage.bytes += meta.len();
                usage
                    .files
                    .push((item.file_name().to_string_lossy().into_owned(), meta.len()));
            }
        }
        usage
            .files
            .sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        usage
    }

    /// Removes every entry (the directories of the kinds, nothing else);
    /// returns the entries and bytes removed.
    pub(crate) fn clear(&self) -> std::io::Result<(u64, u64)> {
        let (mut entries, mut bytes) = (0, 0);
        let Some(root) = &self.root else {
            return Ok((0, 0));
        };
        for kind in Kind::ALL {
            let usage = self.usage(kind);
            match std::fs::remove_dir_all(root.join(kind.directory())) {
                Ok(()) => {
                    entries += usage.entries;
                    bytes += usage.bytes;
                }
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(error),
            }
        }
        Ok((entries, bytes))
    }
}
