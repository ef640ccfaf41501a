//! Kernel symbols from `/proc/kallsyms`, used only when the running kernel is
//! the one that was recorded.
//!
//! The recording's kernel build id is compared with the running kernel's
//! (`/sys/kernel/notes`); KASLR is undone with the `_text` address perf wrote
//! into its kernel mapping record.

use std::path::Path;

/// `NT_GNU_BUILD_ID`.
const NT_GNU_BUILD_ID: u32 = 3;

/// Why kernel frames stay unresolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelSymbolsUnavailable {
    /// The recording's kernel differs from the running one.
    OtherKernel,
    /// `/proc/kallsyms` hides addresses (not root, or `kptr_restrict`).
    Hidden,
    /// Neither a build id nor a release names the recorded kernel.
    Unverifiable,
}

/// The running kernel's text symbols, shifted to the recording's addresses.
pub struct KernelSymbols {
    /// (recorded address, name), sorted by address.
    entries: Vec<(u64, String)>,
}

/// What is known about the recorded kernel.
#[derive(Clone, Debug, Default)]
pub struct RecordedKernel {
    pub build_id: Option<Vec<u8>>,
    pub release: Option<String>,
    /// The `_text` address perf noted in its kernel mapping record.
    pub text_address: Option<u64>,
}

impl KernelSymbols {
    /// Loads `/proc/kallsyms` if it matches `recorded`.
    pub fn load(recorded: &RecordedKernel) -> Result<KernelSymbols, KernelSymbolsUnavailable> {
        let running_id = std::fs::read("/sys/kernel/notes")
            .ok()
            .and_then(|notes| gnu_build_id(&notes));
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
        let text = std::fs::read_to_string("/proc/kallsyms")
            .map_err(|_| KernelSymbolsUnavailable::Hidden)?;
        Self::parse(&text, recorded.text_address)
    }

    /// Parses kallsyms text; `recorded_text` is `_text` at recording time.
    pub fn parse(
        kallsyms: &str,
        recorded_text: Option<u64>,
    ) -> Result<KernelSymbols, KernelSymbolsUnavailable> {
        let mut entries = Vec::new();
        let mut running_text = None;
        for line in kallsyms.lines() {
            let mut fields = line.split_ascii_whitespace();
            let (Some(address), Some(kind), Some(name)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let Ok(address) = u64::from_str_radix(address, 16) else {
                continue;
            };
            if name == "_text" {
                running_text = Some(address);
            }
            if matches!(kind, "t" | "T" | "w" | "W") {
                entries.push((address, name.to_owned()));
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
        Ok(KernelSymbols { entries })
    }

    /// The name of the kernel function at `address`.
    pub fn lookup(&self, address: u64) -> Option<&str> {
        let after = self.entries.partition_point(|(start, _)| *start <= address);
        self.entries[..after].last().map(|(_, name)| name.as_str())
    }
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
        let symbols = KernelSymbols::parse(kallsyms, Some(0xffffffff90000000)).unwrap();
        assert_eq!(symbols.lookup(0xffffffff90000150), Some("clear_page_erms"));
        assert_eq!(symbols.lookup(0xffffffff81000150), None);
    }

    #[test]
    fn zeroed_addresses_mean_hidden() {
        let kallsyms = "0000000000000000 T _text\n0000000000000000 T clear_page_erms\n";
        assert_eq!(
            KernelSymbols::parse(kallsyms, None).err(),
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
