//! The binaries a recording maps: each file found, mapped and checked against
//! the build id the recording states, once.
//!
//! A [`DsoId`] names one binary for the whole run, however many processes map
//! it. A binary that cannot be found, or whose build id differs, stays in the
//! table with its [`DsoProblem`], so its frames still show as `name+0x…` and
//! the problem reaches the user.

mod elf;
mod locate;

use hashbrown::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

pub(crate) use elf::{ElfImage, SectionBytes};
pub(crate) use locate::{SearchPaths, hex};

crate::index::index_type! {
    /// Index of a binary in the [`Store`].
    pub(crate) struct DsoId(u32);
}

/// What kind of code a [`Dso`] stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DsoKind {
    /// A file on disk: an executable or shared library.
    File,
    /// The kernel image and its modules.
    Kernel,
    /// The kernel-provided `[vdso]`, which has no file.
    Vdso,
    /// Code outside any known mapping (JIT code, or a mapping perf missed).
    Unknown,
}

/// Why a binary's symbols are not used.
#[derive(Debug)]
pub(crate) enum DsoProblem {
    /// No candidate file exists.
    Missing,
    /// Files exist, but none has the build id the recording states.
    BuildIdMismatch {
        path: PathBuf,
        expected: Vec<u8>,
        found: Option<Vec<u8>>,
    },
    /// The file exists but is not a readable ELF file.
    Unreadable(String),
}

/// One binary of the recording.
pub(crate) struct Dso {
    /// The path as the recording names it.
    pub recorded_path: String,
    /// The file name alone, as reports show it.
    pub name: String,
    pub kind: DsoKind,
    /// The build id the recording states, if it states one.
    pub expected_build_id: Option<Vec<u8>>,
    /// The build id in the MMAP2 record that mapped it, if any (part of its
    /// key in the [`Store`]).
    pub mmap_build_id: Option<Vec<u8>>,
    /// The file, when it was found and matches.
    pub image: Option<Arc<ElfImage>>,
    pub problem: Option<DsoProblem>,
    /// The separate debug file, looked up on first need.
    debug_image: OnceLock<Option<Arc<ElfImage>>>,
}

impl Dso {
    fn new(recorded_path: &str, kind: DsoKind) -> Dso {
        Dso {
            recorded_path: recorded_path.to_owned(),
            name: file_name(recorded_path),
            kind,
            expected_build_id: None,
            mmap_build_id: None,
            image: None,
            problem: None,
            debug_image: OnceLock::new(),
        }
    }
}

/// All binaries of a run, found through [`SearchPaths`].
pub(crate) struct Store {
    dsos: Vec<Dso>,
    by_path: HashMap<(String, Option<Vec<u8>>), DsoId>,
    search: SearchPaths,
    header_build_ids: HashMap<String, Vec<u8>>,
    kernel: DsoId,
    vdso: DsoId,
    unknown: DsoId,
}

impl Store {
    /// A store that checks files against `header_build_ids` (recorded path → id).
    pub(crate) fn new(search: SearchPaths, header_build_ids: HashMap<String, Vec<u8>>) -> Store {
        let mut store = Store {
            dsos: Vec::new(),
            by_path: HashMap::new(),
            search,
            header_build_ids,
            kernel: DsoId::new(0),
            vdso: DsoId::new(1),
            unknown: DsoId::new(2),
        };
        store.kernel = store.push(Dso::new("[kernel.kallsyms]", DsoKind::Kernel));
        store.vdso = store.push(Dso::new("[vdso]", DsoKind::Vdso));
        store.unknown = store.push(Dso::new("[unknown]", DsoKind::Unknown));
        let kernel_build_id = store.header_build_ids.get("[kernel.kallsyms]").cloned();
        store.dsos[store.kernel.index()].expected_build_id = kernel_build_id;
        store
    }

    fn push(&mut self, dso: Dso) -> DsoId {
        self.dsos.push(dso);
        DsoId::new(self.dsos.len() - 1)
    }

    pub(crate) fn kernel(&self) -> DsoId {
        self.kernel
    }

    pub(crate) fn unknown(&self) -> DsoId {
        self.unknown
    }

    pub(crate) fn get(&self, id: DsoId) -> &Dso {
        &self.dsos[id.index()]
    }

    /// Every binary, with its id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (DsoId, &Dso)> {
        (0u32..).map(DsoId).zip(&self.dsos)
    }

    /// The binary for a user-space code mapping of `path`, found and loaded on
    /// first sight. Code without a file (JIT code in `//anon`, `memfd:`
    /// mappings, `[heap]`…) maps to the `[unknown]` binary.
    pub(crate) fn intern_mapping(&mut self, path: &str, mmap_build_id: Option<&[u8]>) -> DsoId {
        if path == "[vdso]" {
            return self.vdso;
        }
        let anonymous = ["//anon", "/memfd:", "/dev/zero", "/SYSV"];
        if !path.starts_with('/') || anonymous.iter().any(|prefix| path.starts_with(prefix)) {
            return self.unknown;
        }
        let key = (path.to_owned(), mmap_build_id.map(<[u8]>::to_vec));
        if let Some(&id) = self.by_path.get(&key) {
            return id;
        }
        let expected = mmap_build_id
            .map(<[u8]>::to_vec)
            .or_else(|| self.header_build_ids.get(path).cloned());
        let mut dso = Dso::new(path, DsoKind::File);
        match self.find(path, expected.as_deref()) {
            Ok(image) => dso.image = Some(Arc::new(image)),
            Err(problem) => dso.problem = Some(problem),
        }
        dso.expected_build_id = expected;
        dso.mmap_build_id = mmap_build_id.map(<[u8]>::to_vec);
        let id = self.push(dso);
        self.by_path.insert(key, id);
        id
    }

    fn find(&self, recorded: &str, expected: Option<&[u8]>) -> Result<ElfImage, DsoProblem> {
        let candidates = self.search.binary_candidates(Path::new(recorded));
        let mut first_mismatch = None;
        let mut unreadable = None;
        for candidate in &candidates {
            if !candidate.is_file() {
                continue;
            }
            let image = match ElfImage::open(candidate) {
                Ok(image) => image,
                Err(error) => {
                    unreadable.get_or_insert(error.to_string());
                    continue;
                }
            };
            match expected {
                Some(expected) if !same_build_id(image.build_id.as_deref(), expected) => {
                    first_mismatch.get_or_insert(DsoProblem::BuildIdMismatch {
                        path: candidate.clone(),
                        expected: expected.to_vec(),
                        found: image.build_id.clone(),
                    });
                }
                _ => return Ok(image),
            }
        }
        Err(first_mismatch
            .or(unreadable.map(DsoProblem::Unreadable))
            .unwrap_or(DsoProblem::Missing))
    }

    /// The separate debug file of a binary (by build id or `.gnu_debuglink`), if any.
    pub(crate) fn debug_image(&self, id: DsoId) -> Option<&Arc<ElfImage>> {
        let dso = self.get(id);
        dso.debug_image
            .get_or_init(|| {
                let image = dso.image.as_ref()?;
                if image.has_dwarf {
                    return None;
                }
                self.search
                    .debug_candidates(
                        &image.path,
                        image.build_id.as_deref(),
                        image.debuglink.as_deref(),
                    )
                    .iter()
                    .filter(|candidate| candidate.is_file())
                    .filter_map(|candidate| ElfImage::open(candidate).ok())
                    .find(|debug| match (&image.build_id, &debug.build_id) {
                        (Some(binary), Some(debug)) => same_build_id(Some(debug), binary),
                        _ => true,
                    })
                    .map(Arc::new)
            })
            .as_ref()
    }
}

/// Build ids compare equal ignoring the zero padding perf may add.
pub(crate) fn same_build_id(found: Option<&[u8]>, expected: &[u8]) -> bool {
    fn trimmed(id: &[u8]) -> &[u8] {
        let end = id
            .iter()
            .rposition(|&byte| byte != 0)
            .map_or(0, |last| last + 1);
        &id[..end]
    }
    found.is_some_and(|found| trimmed(found) == trimmed(expected))
}

fn file_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_owned()
}
