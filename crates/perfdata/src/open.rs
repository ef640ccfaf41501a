//! Opening a recording: telling a file-mode perf.data from a pipe-mode
//! stream (and from anything else), checking its structure before
//! linux-perf-data parses the header, and choosing where the records are
//! read from (a memory map, or a stream).

use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use linux_perf_data::{Feature, PerfFileReader};

use super::byte_order::ByteOrder;
use super::convert::recording_info;
use super::directory::{Directory, HEADER_FILE, is_perf_directory};
use super::events::Events;
use super::mapped::MappedFile;
use super::reader::{RecordReader, Source};
use super::reading::StreamKind;
use super::{Input, RUN_RECORDING, Reader, Recording, corrupt, header_fields, validate};
use crate::error::Error;

/// Read buffer for the recording; large enough to keep syscalls rare.
const READ_BUFFER: usize = 32 << 10;

/// The fixed start of every perf.data: magic and the header size.
struct Preamble {
    big_endian: bool,
    header_size: u64,
}

fn read_preamble(bytes: &[u8], input: &str) -> Result<Preamble, Error> {
    let not_perf = |reason: &str| Error::NotPerfData {
        input: input.to_owned(),
        reason: reason.to_owned(),
    };
    if bytes.len() < 16 {
        let magic_prefix = &bytes[..bytes.len().min(8)];
        if b"PERFILE2".starts_with(magic_prefix) || b"2ELIFREP".starts_with(magic_prefix) {
            return Err(Error::Truncated {
                input: input.to_owned(),
                reason: format!("only {} bytes, less than the 16-byte preamble", bytes.len()),
            });
        }
        return Err(not_perf("shorter than the 16-byte preamble"));
    }
    let big_endian = match &bytes[..8] {
        b"PERFILE2" => false,
        b"2ELIFREP" => true,
        b"PERFFILE" => return Err(not_perf("perf.data version 1 is not supported")),
        _ => return Err(not_perf("no PERFILE2 magic at the start")),
    };
    let header_size = ByteOrder { big_endian }.u64(bytes, 8).expect("16 bytes");
    Ok(Preamble {
        big_endian,
        header_size,
    })
}

/// `PERF_RECORD_HEADER_ATTR` and `PERF_RECORD_HEADER_FEATURE`: the records
/// at the start of a pipe stream that describe it.
const HEADER_ATTR: u32 = 64;
const HEADER_FEATURE: u32 = 80;
/// perf describes a stream in a few dozen such records (one per event and
/// feature); a stream of endless ones is not perf's.
const MAX_HEADER_RECORDS: usize = 1 << 12;

impl Recording {
    /// Opens `input`, detecting file or pipe format, and validates it. With
    /// `salvage`, a file perf did not finish is read as far as it goes.
    pub fn open(input: &Input, salvage: bool) -> Result<Recording, Error> {
        let name = input.display_name();
        match input {
            Input::Path(path) if path.is_dir() && is_perf_directory(path) => {
                Self::open_directory(path, salvage)
            }
            Input::Path(path) if path.is_dir() => Err(Error::NoRecordingInDirectory {
                dir: path.clone(),
                hint: directory_hint(path),
            }),
            Input::Path(path) => {
                let file = File::open(path).map_err(|source| Error::Open {
                    path: path.clone(),
                    source,
                })?;
                let len = file
                    .metadata()
                    .map_err(|source| Error::Open {
                        path: path.clone(),
                        source,
                    })?
                    .len();
                if len == 0 && file_is_regular(&file) {
                    return Err(Error::Empty { input: name });
                }
                Self::open_file(file, len, name, salvage)
            }
            Input::Stdin => Self::open_stream(Box::new(std::io::stdin()), name),
        }
    }

    /// Opens perf's directory format: the header file as a file-mode
    /// recording, then its streams.
    fn open_directory(dir: &Path, salvage: bool) -> Result<Recording, Error> {
        let header_path = dir.join(HEADER_FILE);
        let mut header =
            Self::open(&Input::Path(header_path.clone()), salvage).map_err(|error| {
                match error {
                    // A file that is not perf's means a directory that is not either.
                    Error::NotPerfData { reason, .. } => Error::NotPerfData {
                        input: dir.display().to_string(),
                        reason: format!("its {HEADER_FILE} file: {reason}"),
                    },
                    other => other,
                }
            })?;
        let Reader::Records(records) = header.reader else {
            return Err(corrupt(
                &header_path.display().to_string(),
                "the header file of a directory-format recording is not perf's file format",
            ));
        };
        let directory = Directory::open(dir, records, salvage)
            .map_err(|(path, source)| Error::Open { path, source })?;
        header.reader = Reader::Directory(Box::new(directory));
        header.input = dir.display().to_string();
        Ok(header)
    }

    fn open_file(
        mut file: File,
        len: u64,
        name: String,
        salvage: bool,
    ) -> Result<Recording, Error> {
        if !file_is_regular(&file) {
            return Self::open_stream(Box::new(file), name);
        }
        let mut start = [0u8; 16];
        let got = read_up_to(&mut file, &mut start).map_err(|error| corrupt(&name, error))?;
        let preamble = read_preamble(&start[..got], &name)?;
        if preamble.header_size == 16 {
            file.seek(SeekFrom::Start(0))
                .map_err(|error| corrupt(&name, error))?;
            return Self::open_stream(Box::new(file), name);
        }
        let layout = validate::check_file_structure(&mut file, len, preamble.big_endian, salvage)
            .map_err(|problem| match problem {
            header_fields::Problem::Truncated(reason) => Error::Truncated {
                input: name.clone(),
                reason,
            },
            header_fields::Problem::Corrupt(reason) => Error::Corrupt {
                input: name.clone(),
                reason,
            },
        })?;
        let parsed = match &layout.salvage {
            Some(salvage) => {
                guarded(&name, || {
                    PerfFileReader::parse_file(Cursor::new(salvage.header.clone()))
                })?
                .perf_file
            }
            None => {
                file.seek(SeekFrom::Start(0))
                    .map_err(|error| corrupt(&name, error))?;
                let copy = file.try_clone().map_err(|error| corrupt(&name, error))?;
                let reader = guarded(&name, || {
                    PerfFileReader::parse_file(BufReader::with_capacity(READ_BUFFER, copy))
                })?;
                if reader
                    .perf_file
                    .features()
                    .has_feature(Feature::SIMPLEPERF_META_INFO)
                {
                    return Err(Error::NotPerfData {
                        input: name,
                        reason: "it is a simpleperf recording (Android), which is not read: \
                                 record with Linux perf"
                            .to_owned(),
                    });
                }
                reader.perf_file
            }
        };
        let info = recording_info(&parsed);
        let events = Events::new(&parsed);
        // A file that cannot be mapped (some FUSE or network file systems)
        // is read as a stream instead.
        let source = match MappedFile::new(&file, &layout.data) {
            Ok(Some(map)) => {
                Source::Mapped(map, layout.data.start as usize..layout.data.end as usize)
            }
            _ => {
                file.seek(SeekFrom::Start(layout.data.start))
                    .map_err(|error| corrupt(&name, error))?;
                let len = layout.data.end - layout.data.start;
                Source::Stream {
                    reader: Box::new(BufReader::with_capacity(READ_BUFFER, file).take(len)),
                    start: layout.data.start,
                    kind: StreamKind::FileData { len },
                }
            }
        };
        let end_may_be_cut = layout
            .salvage
            .as_ref()
            .is_some_and(|salvage| salvage.data_may_be_cut);
        Ok(Recording {
            info,
            input: name,
            reader: Reader::Records(RecordReader::new(events, source, end_may_be_cut)),
            salvaged: layout.salvage,
        })
    }

    fn open_stream(mut source: Box<dyn Read + Send>, name: String) -> Result<Recording, Error> {
        let mut start = [0u8; 16];
        let got = read_up_to(&mut source, &mut start).map_err(|error| corrupt(&name, error))?;
        if got == 0 {
            return Err(Error::Empty { input: name });
        }
        let cut_short = |bytes: usize, reason| Error::StreamCutShort {
            input: name.clone(),
            bytes: bytes as u64,
            reason,
            samples: 0,
        };
        let preamble = read_preamble(&start[..got], &name).map_err(|error| match error {
            Error::Truncated { .. } => cut_short(got, "it ends inside the 16-byte preamble"),
            other => other,
        })?;
        if preamble.header_size != 16 {
            return Err(Error::FileModeStream { input: name });
        }
        let order = ByteOrder {
            big_endian: preamble.big_endian,
        };
        // The records that describe the stream, up to its first other record.
        let mut head = start.to_vec();
        let mut header_records = 0;
        let first = loop {
            let mut header = [0u8; 8];
            let got =
                read_up_to(&mut source, &mut header).map_err(|error| corrupt(&name, error))?;
            if got < header.len() {
                if got > 0 {
                    return Err(cut_short(
                        head.len() + got,
                        "it ends in the middle of a record",
                    ));
                }
                break Vec::new();
            }
            let record_type = order.u32(&header, 0).expect("8 bytes");
            let size = usize::from(order.u16(&header, 6).expect("8 bytes"));
            if record_type != HEADER_ATTR && record_type != HEADER_FEATURE {
                break header.to_vec();
            }
            header_records += 1;
            if header_records > MAX_HEADER_RECORDS {
                return Err(corrupt(
                    &name,
                    format!(
                        "the stream starts with more than {MAX_HEADER_RECORDS} records that \
                         describe it"
                    ),
                ));
            }
            let Some(body_len) = size.checked_sub(header.len()) else {
                return Err(corrupt(
                    &name,
                    format!(
                        "the record at byte {} of the stream states a size of {size} bytes",
                        head.len()
                    ),
                ));
            };
            let mut body = vec![0u8; body_len];
            let got = read_up_to(&mut source, &mut body).map_err(|error| corrupt(&name, error))?;
            if got < body_len {
                return Err(cut_short(
                    head.len() + header.len() + got,
                    "it ends in the middle of a record",
                ));
            }
            if record_type == HEADER_ATTR {
                header_fields::check_attribute(&body, order).map_err(|problem| {
                    corrupt(
                        &name,
                        format!(
                            "the event attribute at byte {} of the stream {problem}",
                            head.len()
                        ),
                    )
                })?;
            }
            if record_type == HEADER_FEATURE {
                header_fields::check_pipe_feature(&body, order).map_err(|problem| {
                    corrupt(
                        &name,
                        format!(
                            "the header feature record at byte {} of the stream {problem}",
                            head.len()
                        ),
                    )
                })?;
            }
            head.extend_from_slice(&header);
            head.extend_from_slice(&body);
        };
        let start = head.len() as u64;
        let perf_file = guarded(&name, || PerfFileReader::parse_pipe(Cursor::new(head)))?.perf_file;
        let info = recording_info(&perf_file);
        let events = Events::new(&perf_file);
        let source = Source::Stream {
            reader: Box::new(Cursor::new(first).chain(source)),
            start,
            kind: StreamKind::Pipe,
        };
        Ok(Recording {
            info,
            input: name,
            reader: Reader::Records(RecordReader::new(events, source, false)),
            salvaged: None,
        })
    }
}

fn file_is_regular(file: &File) -> bool {
    file.metadata().is_ok_and(|meta| meta.is_file())
}

/// Reads until `buf` is full or the source ends; returns the bytes read.
fn read_up_to(source: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// Runs a linux-perf-data call, turning its errors and any panic on
/// malformed input into [`Error::Corrupt`].
fn guarded<T>(
    input: &str,
    parse: impl FnOnce() -> Result<T, linux_perf_data::Error>,
) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(parse)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(corrupt(input, error)),
        Err(_) => Err(corrupt(
            input,
            "the perf.data parser rejected a malformed record",
        )),
    }
}

/// What a directory without a `perf.data` holds that the user may have
/// meant: the runs of `record --repeat`, or recordings under other names.
fn directory_hint(dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return String::new();
    };
    let mut runs = Vec::new();
    let mut recordings = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.join(RUN_RECORDING).exists() {
            runs.push(name);
        } else if name.ends_with(".data") && path.is_file() {
            recordings.push(name);
        }
    }
    runs.sort();
    recordings.sort();
    if let Some(first) = runs.first() {
        format!(
            " ({} run directories are in it, such as {}: read one, or compare them with `compile-perf diff`)",
            runs.len(),
            dir.join(first).display()
        )
    } else if let Some(first) = recordings.first() {
        format!(" (it holds {}: give that file)", dir.join(first).display())
    } else {
        String::new()
    }
}
