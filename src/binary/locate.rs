//! Finds files on disk: the library a recording names, wherever it has moved
//! (`--symfs`), and the separate debug file that belongs to it.
//!
//! Only paths are produced here; whether a candidate is the right file is
//! decided by its build id, in [`super::Store`].

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Directories are walked this deep when looking for moved files.
const MAX_SEARCH_DEPTH: usize = 12;

/// The places to look for binaries and debug files.
pub(crate) struct SearchPaths {
    /// Extra roots given with `--symfs`; each is both a prefix for the recorded
    /// path and a tree searched by file name.
    symfs: Vec<PathBuf>,
    /// Roots of separate debug files, such as `/usr/lib/debug`.
    debug_roots: Vec<PathBuf>,
    /// File name → paths under the `--symfs` trees, built on first use.
    by_name: OnceLock<HashMap<OsString, Vec<PathBuf>>>,
}

impl SearchPaths {
    pub(crate) fn new(symfs: Vec<PathBuf>, debug_roots: Vec<PathBuf>) -> Self {
        SearchPaths {
            symfs,
            debug_roots,
            by_name: OnceLock::new(),
        }
    }

    /// Candidate files for a path as recorded, most likely first: what the
    /// user pointed at with `--symfs` comes before the recorded path.
    pub(crate) fn binary_candidates(&self, recorded: &Path) -> Vec<PathBuf> {
        let mut candidates = Vec::new();
        for root in &self.symfs {
            candidates.push(join_absolute(root, recorded));
        }
        if let Some(name) = recorded.file_name() {
            candidates.extend(self.named(name.to_os_string()));
        }
        candidates.push(recorded.to_owned());
        dedup_keep_order(candidates)
    }

    /// Candidate separate debug files for `binary`, by build id and by debug link.
    pub(crate) fn debug_candidates(
        &self,
        binary: &Path,
        build_id: Option<&[u8]>,
        debuglink: Option<&str>,
    ) -> Vec<PathBuf> {
        let mut candidates = Vec::new();
        if let Some(id) = build_id.filter(|id| id.len() > 1) {
            let hex = hex(id);
            let relative = format!(".build-id/{}/{}.debug", &hex[..2], &hex[2..]);
            for root in self.all_debug_roots() {
                candidates.push(root.join(&relative));
            }
        }
        if let Some(link) = debuglink {
            let dir = binary.parent().unwrap_or(Path::new("/"));
            candidates.push(dir.join(link));
            candidates.push(dir.join(".debug").join(link));
            for root in self.all_debug_roots() {
                candidates.push(join_absolute(&root, &dir.join(link)));
            }
            candidates.extend(self.named(OsString::from(link)));
        }
        dedup_keep_order(candidates)
    }

    fn all_debug_roots(&self) -> Vec<PathBuf> {
        let mut roots = self.debug_roots.clone();
        for symfs in &self.symfs {
            for root in &self.debug_roots {
                roots.push(join_absolute(symfs, root));
            }
        }
        roots
    }

    fn named(&self, name: OsString) -> Vec<PathBuf> {
        let index = self.by_name.get_or_init(|| {
            let mut index = HashMap::new();
            for root in &self.symfs {
                index_tree(root, 0, &mut index);
            }
            index
        });
        index.get(&name).cloned().unwrap_or_default()
    }
}

/// `root` + `path` even when `path` is absolute (`/symfs` + `/usr/lib/x.so`).
fn join_absolute(root: &Path, path: &Path) -> PathBuf {
    root.join(path.strip_prefix("/").unwrap_or(path))
}

fn index_tree(dir: &Path, depth: usize, index: &mut HashMap<OsString, Vec<PathBuf>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if depth < MAX_SEARCH_DEPTH {
                index_tree(&path, depth + 1, index);
            }
        } else {
            index.entry(entry.file_name()).or_default().push(path);
        }
    }
}

fn dedup_keep_order(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    paths
        .into_iter()
        .filter(|path| seen.insert(path.clone()))
        .collect()
}

/// Lower-case hex of a build id.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
