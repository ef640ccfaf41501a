//! The file format of one cache entry: a fixed header (magic, format,
//! the compile-perf version that wrote it, the kind of entry, the length
//! and checksum of the payload), then the payload in postcard. An entry is
//! read from a memory map and trusted only when every field of the header
//! checks out.

use serde::Serialize;
use serde::de::DeserializeOwned;
use xxhash_rust::xxh3::xxh3_64;

/// The first bytes of every entry.
const MAGIC: &[u8; 8] = b"CPCACHE\0";
/// The layout of the header and payloads; raised when either changes.
pub(super) const FORMAT: u32 = 6;
/// Bytes of the version string field.
const VERSION_BYTES: usize = 16;
/// Magic, format, kind, version, payload length, checksum.
pub(super) const HEADER_BYTES: usize = 8 + 4 + 4 + VERSION_BYTES + 8 + 8;

/// The compile-perf version that writes entries: an entry of another
/// version may hold stacks or names the code now finds differently.
fn this_version() -> [u8; VERSION_BYTES] {
    let mut field = [0; VERSION_BYTES];
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let len = version.len().min(VERSION_BYTES);
    field[..len].copy_from_slice(&version[..len]);
    field
}

/// The bytes of an entry of `kind` holding `value`.
pub(super) fn encode<T: Serialize>(kind: u32, value: &T) -> Result<Vec<u8>, String> {
    let payload = postcard::to_stdvec(value).map_err(|error| error.to_string())?;
    let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&kind.to_le_bytes());
    bytes.extend_from_slice(&this_version());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&xxh3_64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Ok(bytes)
}

/// The value in an entry's bytes, or why they cannot be trusted.
pub(super) fn decode<T: DeserializeOwned>(kind: u32, bytes: &[u8]) -> Result<T, String> {
    if bytes.len() < HEADER_BYTES {
        return Err(format!(
            "it has {} bytes, less than its {HEADER_BYTES}-byte header",
            bytes.len()
        ));
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    if &bytes[..8] != MAGIC {
        return Err("it is not a compile-perf cache entry".to_owned());
    }
    let version = &bytes[16..16 + VERSION_BYTES];
    if u32_at(8) != FORMAT || version != this_version() {
        let written_by = String::from_utf8_lossy(version);
        return Err(format!(
            "it was written by another version (compile-perf {}, format {})",
            written_by.trim_end_matches('\0'),
            u32_at(8)
        ));
    }
    if u32_at(12) != kind {
        return Err("it holds another kind of entry".to_owned());
    }
    let payload = &bytes[HEADER_BYTES..];
    let stated = u64_at(32);
    if stated != payload.len() as u64 {
        return Err(format!(
            "its header states {stated} bytes of data, and {} follow",
            payload.len()
        ));
    }
    if u64_at(40) != xxh3_64(payload) {
        return Err("its checksum does not match its data".to_owned());
    }
    postcard::from_bytes(payload).map_err(|error| format!("its data does not decode: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_and_every_damage_is_told() {
        let value = (vec![1u64, 2, 3], "name".to_owned());
        let bytes = encode(7, &value).unwrap();
        assert_eq!(decode::<(Vec<u64>, String)>(7, &bytes).unwrap(), value);
        let reason = |bytes: &[u8]| decode::<(Vec<u64>, String)>(7, bytes).unwrap_err();
        assert!(reason(&bytes[..10]).contains("less than"));
        assert!(reason(&bytes[..bytes.len() - 1]).contains("states"));
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 0x40;
        assert!(reason(&flipped).contains("checksum"));
        let mut other_version = bytes.clone();
        other_version[16..16 + VERSION_BYTES].copy_from_slice(b"0.0.1-other\0\0\0\0\0");
        assert!(reason(&other_version).contains("compile-perf 0.0.1-other"));
        assert!(
            decode::<(Vec<u64>, String)>(8, &bytes)
                .unwrap_err()
                .contains("another kind")
        );
        assert!(
            reason(b"not a cache entry, but long enough to have a header...").contains("not a")
        );
    }
}
