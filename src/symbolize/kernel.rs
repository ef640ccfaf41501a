//! Kernel symbols: the copy of kallsyms perf keeps in its build-id cache for
//! the recorded kernel, else the copy `record` keeps beside its recording,
//! else compile-perf's own copy in its cache, else `/proc/kallsyms` when the
//! running kernel is the recorded one (and then compile-perf keeps a copy:
//! `record` runs perf with `--buildid-mmap`, which turns perf's build-id
//! cache off, so perf makes none).
//!
//! Every copy is named by the recorded kernel's build id, so it is the
//! right kernel by construction, and read in a millisecond where
//! `/proc/kallsyms` costs tens. The running kernel's build id comes from
//! `/sys/kernel/notes`. KASLR is undone with the `_text` address perf wrote
//! into its kernel mapping record.

use std::fs::File;
use std::ops::{Deref, Range};
use std::path::{Path, PathBuf};

use crate::binary::hex;
use crate::cache::{Cache, Kind};

/// `NT_GNU_BUILD_ID`.
const NT_GNU_BUILD_ID: u32 = 3;

/// Why kernel frames stay unresolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KernelSymbolsUnavailable {
    /// The recording's kernel differs from the running one.
    OtherKernel,
    /// `/proc/kallsyms` hides addresses (not root, or `kptr_restrict`).
    Hidden,
    /// Neither a build id nor a release names the recorded kernel.
    Unverifiable,
}

/// The kernel's text symbols, shifted to the recording's addresses.
pub(crate) struct KernelSymbols {
    /// The kallsyms text the names are read from.
    text: KallsymsText,
    /// (recorded address, the name's bytes in `text`), sorted by address.
    entries: Vec<(u64, Range<u32>)>,
}

/// What is known about the recorded kernel.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordedKernel {
    pub build_id: Option<Vec<u8>>,
    pub release: Option<String>,
    /// The `_text` address perf noted in its kernel mapping record.
    pub text_address: Option<u64>,
    /// The directory the recording is in, where `record` keeps a copy of
    /// the kernel's symbols ([`keep_kernel_symbols_beside`]).
    pub beside: Option<PathBuf>,
}

/// Kallsyms text: a kept copy, mapped (its pages come straight from the
/// page cache, not copied into fresh memory), or bytes read.
enum KallsymsText {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl KallsymsText {
    /// The copy at `path`, mapped; `None` when it cannot be opened.
    fn map(path: &Path) -> Option<KallsymsText> {
        let file = File::open(path).ok()?;
        // SAFETY: the copies are written whole once (perf's, or `record`'s
        // beside its recording) and never changed in place; the text is
        // only read, and every line is checked as it is parsed.
        unsafe { memmap2::Mmap::map(&file) }
            .ok()
            .map(KallsymsText::Mapped)
    }
}

impl Deref for KallsymsText {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            KallsymsText::Mapped(map) => map,
            KallsymsText::Read(bytes) => bytes,
        }
    }
}

impl From<Vec<u8>> for KallsymsText {
    fn from(bytes: Vec<u8>) -> KallsymsText {
        KallsymsText::Read(bytes)
    }
}

impl KernelSymbols {
    /// Loads the kernel symbols of `recorded`: perf's cached copy for its
    /// build id, else (no usable copy) `/proc/kallsyms` if the running
    /// kernel is the same.
    pub(crate) fn load(
        recorded: &RecordedKernel,
        cache: &Cache,
    ) -> Result<KernelSymbols, KernelSymbolsUnavailable> {
        let perf_copy = recorded
            .build_id
            .as_deref()
            .and_then(|build_id| KallsymsText::map(&cached_kallsyms_path(build_id)?));
        let cache_key = recorded
            .build_id
            .as_deref()
            .map(|build_id| format!("kallsyms-{}", hex(build_id)));
        let own_copy = || {
            let key = cache_key.as_deref()?;
            cache
                .read::<String>(Kind::Binary, key)
                .map(|text| KallsymsText::from(text.into_bytes()))
        };
        let run_copy = || {
            let (dir, build_id) = (recorded.beside.as_deref()?, recorded.build_id.as_deref()?);
            KallsymsText::map(&dir.join(copy_name(build_id)))
        };
        let copy = perf_copy.or_else(run_copy).or_else(own_copy);
        if let Some(symbols) = copy.and_then(|text| Self::parse(text, recorded.text_address).ok()) {
            return Ok(symbols);
        }
        let running_id = running_build_id();
        let same_kernel = match (recorded.build_id.as_deref(), running_id.as_deref()) {
            (Some(recorded), Some(running)) => {
                crate::binary::same_build_id(Some(running), recorded)
            }
            _ => match recorded.release.as_deref() {
                Some(release) => running_release().as_deref() == Some(release),
                None => return Err(KernelSymbolsUnavailable::Unverifiable),
            },
        };
        if !same_kernel {
            return Err(KernelSymbolsUnavailable::OtherKernel);
        }
        let text = std::fs::read("/proc/kallsyms").map_err(|_| KernelSymbolsUnavailable::Hidden)?;
        let symbols = Self::parse(text.into(), recorded.text_address)?;
        if let (Some(key), Ok(text)) = (cache_key, std::str::from_utf8(&symbols.text)) {
            let text = text.to_owned();
            cache.write_with(Kind::Binary, &key, move || text);
        }
        Ok(symbols)
    }

    /// Parses kallsyms text; `recorded_text` is `_text` at recording time.
    /// Lines are `ffffffff81000000 T _text`, a module's end in `\t[name]`.
    fn parse(
        text: KallsymsText,
        recorded_text: Option<u64>,
    ) -> Result<KernelSymbols, KernelSymbolsUnavailable> {
        // kallsyms lines average 44 bytes: room for nearly all of them.
        let mut entries = Vec::with_capacity(text.len() / 40);
        let mut running_text = None;
        let mut line_start = 0;
        while line_start < text.len() {
            let line_end =
                memchr::memchr(b'\n', &text[line_start..]).map_or(text.len(), |at| line_start + at);
            let line = &text[line_start..line_end];
            let name_start = line_start;
            line_start = line_end + 1;
            let Some(space) = memchr::memchr(b' ', line) else {
                continue;
            };
            let (Some(address), Some(&kind), Some(rest)) = (
                hex_address(&line[..space]),
                line.get(space + 1),
                line.get(space + 3..),
            ) else {
                continue;
            };
            let name = &rest[..memchr::memchr(b'\t', rest).unwrap_or(rest.len())];
            if name == b"_text" {
                running_text = Some(address);
            }
            if matches!(kind, b't' | b'T' | b'w' | b'W') {
                let from = name_start + space + 3;
                let (Ok(from), Ok(to)) = (u32::try_from(from), u32::try_from(from + name.len()))
                else {
                    break;
                };
                entries.push((address, from..to));
            }
        }
        if entries.iter().all(|(address, _)| *address == 0) {
            return Err(KernelSymbolsUnavailable::Hidden);
        }
        let shift = match (recorded_text, running_text) {
            (Some(recorded), Some(running)) => recorded.wrapping_sub(running),
            _ => 0,
        };
        for entry in &mut entries {
            entry.0 = entry.0.wrapping_add(shift);
        }
        entries.sort_unstable_by_key(|entry| entry.0);
        Ok(KernelSymbols { text, entries })
    }

    /// The name of the kernel function at `address`.
    pub(crate) fn lookup(&self, address: u64) -> Option<&str> {
        let after = self.entries.partition_point(|(start, _)| *start <= address);
        self.entries[..after].last().and_then(|(_, name)| {
            std::str::from_utf8(&self.text[name.start as usize..name.end as usize]).ok()
        })
    }
}

/// The address a kallsyms line starts with: up to 16 hex digits. (Faster
/// than `u64::from_str_radix` over 122k lines: no UTF-8 check, no radix
/// dispatch.)
fn hex_address(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    digits.iter().try_fold(0u64, |address, &digit| {
        let value = match digit {
            b'0'..=b'9' => digit - b'0',
            b'a'..=b'f' => digit - b'a' + 10,
            b'A'..=b'F' => digit - b'A' + 10,
            _ => return None,
        };
        Some(address << 4 | u64::from(value))
    })
}

/// The name of the copy of the kernel `build_id`'s symbols that `record`
/// keeps in its run directory.
fn copy_name(build_id: &[u8]) -> String {
    format!("kallsyms-{}", hex(build_id))
}

/// Keeps a copy of the running kernel's symbols in `dir`, beside the
/// recording just made, so that its reports (on this machine, with empty
/// caches, or on another machine) name kernel frames without reading
/// `/proc/kallsyms`, which costs the kernel tens of milliseconds. Returns the
/// copy's name, or `None` when the kernel has no build id or hides its
/// addresses.
pub(crate) fn keep_kernel_symbols_beside(dir: &Path) -> Option<String> {
    let name = copy_name(&running_build_id()?);
    let text = std::fs::read("/proc/kallsyms").ok()?;
    let symbols = KernelSymbols::parse(text.into(), None).ok()?;
    std::fs::write(dir.join(&name), &*symbols.text).ok()?;
    Some(name)
}

/// The running kernel's build id, from `/sys/kernel/notes`.
fn running_build_id() -> Option<Vec<u8>> {
    std::fs::read("/sys/kernel/notes")
        .ok()
        .and_then(|notes| gnu_build_id(&notes))
}

/// Where perf's build-id cache keeps kallsyms for the kernel `build_id`:
/// `$PERF_BUILDID_DIR` or `~/.debug`, then `[kernel.kallsyms]/<id>/kallsyms`.
fn cached_kallsyms_path(build_id: &[u8]) -> Option<PathBuf> {
    let root = std::env::var_os("PERF_BUILDID_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".debug")))?;
    let hex: String = build_id.iter().map(|byte| format!("{byte:02x}")).collect();
    Some(root.join("[kernel.kallsyms]").join(hex).join("kallsyms"))
}

fn running_release() -> Option<String> {
    let release = std::fs::read_to_string(Path::new("/proc/sys/kernel/osrelease")).ok()?;
    Some(release.trim().to_owned())
}

/// The GNU build id in a buffer of ELF notes.
fn gnu_build_id(notes: &[u8]) -> Option<Vec<u8>> {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(notes.get(at..at + 4)?.try_into().ok()?))
    };
    let align = |n: usize| (n + 3) & !3;
    let mut at = 0;
    while at + 12 <= notes.len() {
        let name_size = word(at)? as usize;
        let desc_size = word(at + 4)? as usize;
        let kind = word(at + 8)?;
        let name_at = at + 12;
        let desc_at = name_at + align(name_size);
        if kind == NT_GNU_BUILD_ID && notes.get(name_at..name_at + name_size)? == b"GNU\0" {
            return notes.get(desc_at..desc_at + desc_size).map(<[u8]>::to_vec);
        }
        at = desc_at + align(desc_size);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kaslr_shift_is_undone_with_the_recorded_text_address() {
        let kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T clear_page_erms\nffffffff81000200 t next\n";
        let symbols = KernelSymbols::parse(
            kallsyms.as_bytes().to_vec().into(),
            Some(0xffffffff90000000),
        )
        .unwrap();
        assert_eq!(symbols.lookup(0xffffffff90000150), Some("clear_page_erms"));
        assert_eq!(symbols.lookup(0xffffffff81000150), None);
    }

    #[test]
    fn module_symbols_and_data_symbols_are_told_apart() {
        let kallsyms = "ffffffff81000000 T _text\nffffffff81000100 D some_data\n\
                        ffffffffc0000000 t ext4_fill_super\t[ext4]\nffffffffc0000100 T ext4_iget\t[ext4]\n";
        let symbols = KernelSymbols::parse(kallsyms.as_bytes().to_vec().into(), None).unwrap();
        assert_eq!(symbols.lookup(0xffffffff81000150), Some("_text"));
        assert_eq!(symbols.lookup(0xffffffffc0000050), Some("ext4_fill_super"));
        assert_eq!(symbols.lookup(0xffffffffc0000200), Some("ext4_iget"));
    }

    #[test]
    fn the_copy_beside_the_recording_is_read_for_its_build_id_only() {
        let dir = std::env::temp_dir().join(format!("kallsyms-beside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let build_id = [0xfe, 0xed, 0x01];
        std::fs::write(
            dir.join(copy_name(&build_id)),
            "ffffffff81000000 T _text\nffffffff81000100 T clear_page_erms\n",
        )
        .unwrap();
        let recorded = |build_id: &[u8]| RecordedKernel {
            build_id: Some(build_id.to_vec()),
            text_address: Some(0xffffffff90000000),
            beside: Some(dir.clone()),
            ..RecordedKernel::default()
        };
        let cache = Cache::from_env(false);
        let symbols = KernelSymbols::load(&recorded(&build_id), &cache).unwrap();
        assert_eq!(symbols.lookup(0xffffffff90000150), Some("clear_page_erms"));
        // A recording of another kernel does not take the copy (and that
        // kernel is not the running one).
        let other = KernelSymbols::load(&recorded(&[0xfe, 0xed, 0x02]), &cache);
        assert_eq!(other.err(), Some(KernelSymbolsUnavailable::OtherKernel));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cache_copy_is_named_by_build_id() {
        let path = cached_kallsyms_path(&[0x48, 0xdc, 0x05]).unwrap();
        assert!(
            path.ends_with("[kernel.kallsyms]/48dc05/kallsyms"),
            "{path:?}"
        );
    }

    #[test]
    fn addresses_are_read_as_hex_of_at_most_16_digits() {
        assert_eq!(hex_address(b"ffffffff81000000"), Some(0xffffffff81000000));
        assert_eq!(hex_address(b"FFFFFFFF8100abcd"), Some(0xffffffff8100abcd));
        assert_eq!(hex_address(b"0"), Some(0));
        assert_eq!(hex_address(b""), None);
        assert_eq!(hex_address(b"ffffffff810000000"), None);
        assert_eq!(hex_address(b"ffffffff8100000g"), None);
        assert_eq!(hex_address(b"+fffffff81000000"), None);
    }

    #[test]
    fn zeroed_addresses_mean_hidden() {
        let kallsyms = "0000000000000000 T _text\n0000000000000000 T clear_page_erms\n";
        assert_eq!(
            KernelSymbols::parse(kallsyms.as_bytes().to_vec().into(), None).err(),
            Some(KernelSymbolsUnavailable::Hidden)
        );
    }

    #[test]
    fn build_id_note_is_found() {
        let mut notes = Vec::new();
        for value in [4u32, 3, 1] {
            notes.extend_from_slice(&value.to_le_bytes());
        }
        notes.extend_from_slice(b"Xen\0\x01\x02\x03\x00");
        for value in [4u32, 2, NT_GNU_BUILD_ID] {
            notes.extend_from_slice(&value.to_le_bytes());
        }
        notes.extend_from_slice(b"GNU\0\xab\xcd\x00\x00");
        assert_eq!(gnu_build_id(&notes), Some(vec![0xab, 0xcd]));
    }
}
