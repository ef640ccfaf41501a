//! Writing output files: the one module that writes what compile-perf makes
//! (`-o`, `--folded-out`, `report --flamegraph`, the run directory's files),
//! and decides how each kind of path is written so that nothing already
//! there is destroyed.
//!
//! - A regular file, or a path where nothing is yet, is written under a
//!   temporary name beside it and renamed into place when complete.
//! - A symlink is followed to the end of its chain, and the file there is
//!   replaced the same way (a dangling link's target is created); the link
//!   stays a link.
//! - A character device (`/dev/null`, a terminal), a FIFO, or a file open in
//!   a process (reached through `/proc/PID/fd`, as `/dev/stdout` is) is
//!   opened and written in place, appending; it is never replaced. A Unix
//!   socket is connected to and written.
//! - A directory or a block device is refused.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// Where output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    Stdout,
    File(PathBuf),
}

impl Output {
    /// The output a `-o` argument names: no argument, or `-`, is stdout.
    pub(crate) fn from_arg(path: Option<PathBuf>) -> Output {
        match path {
            Some(path) if path.as_os_str() != "-" => Output::File(path),
            _ => Output::Stdout,
        }
    }

    /// The name used in messages: the path, or `stdout`.
    pub(crate) fn name(&self) -> String {
        match self {
            Output::Stdout => "stdout".to_owned(),
            Output::File(path) => path.display().to_string(),
        }
    }
}

/// Hands `write` a buffered writer for `output`, and flushes it.
pub(crate) fn write_output(
    output: &Output,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), Error> {
    let result = match output {
        Output::Stdout => {
            let mut out = BufWriter::new(io::stdout().lock());
            write(&mut out).and_then(|()| out.flush())
        }
        Output::File(path) => write_file(path, write),
    };
    result.map_err(|source| Error::Output {
        target: output.name(),
        source,
    })
}

/// Writes the file at `path` with `write`, in the way its kind of path calls
/// for (see the module's documentation).
pub(crate) fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match destination(path)? {
        Destination::Replace(target) => replace_file(&target, write),
        Destination::InPlace => {
            let file = OpenOptions::new().append(true).open(path)?;
            write_all_to(file, write)
        }
        Destination::Socket => write_all_to(UnixStream::connect(path)?, write),
    }
}

/// How a path is written.
#[derive(Debug, PartialEq, Eq)]
enum Destination {
    /// A regular file, or nothing yet, at this path (the end of the symlink
    /// chain): written beside it and renamed over it.
    Replace(PathBuf),
    /// A character device, a FIFO, or a file open in a process: opened
    /// through the path given and written in place, appending.
    InPlace,
    /// A Unix socket: connected to and written.
    Socket,
}

/// Symlinks followed before giving up, as Linux does (`MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// What is at `path`, and so how it is written; an error for what is never
/// written (a directory, a block device).
fn destination(path: &Path) -> io::Result<Destination> {
    let kind = match std::fs::metadata(path) {
        Ok(meta) => meta.file_type(),
        // Nothing there, or a dangling symlink: its target is created.
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(Destination::Replace(follow_links(path)?.path));
        }
        Err(error) => return Err(error),
    };
    if kind.is_dir() {
        Err(io::Error::from_raw_os_error(libc::EISDIR))
    } else if kind.is_block_device() {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is a block device, and compile-perf does not write onto disks",
        ))
    } else if kind.is_socket() {
        Ok(Destination::Socket)
    } else if kind.is_file() {
        let end = follow_links(path)?;
        Ok(if end.through_proc {
            Destination::InPlace
        } else {
            Destination::Replace(end.path)
        })
    } else {
        // A character device or a FIFO.
        Ok(Destination::InPlace)
    }
}

/// Where a chain of symlinks ends.
struct LinkEnd {
    /// The first path of the chain that is not a symlink (it may not exist).
    path: PathBuf,
    /// True when a link of the chain is in `/proc`: a process's open file,
    /// as `/dev/stdout` leads to, whose name may not be the file's.
    through_proc: bool,
}

/// Follows the symlinks from `path` one at a time, so that a dangling
/// link's target is known; a relative target is taken from the link's
/// directory.
fn follow_links(path: &Path) -> io::Result<LinkEnd> {
    let mut current = path.to_owned();
    let mut through_proc = false;
    for _ in 0..=MAX_LINKS {
        let is_link =
            std::fs::symlink_metadata(&current).is_ok_and(|meta| meta.file_type().is_symlink());
        if !is_link {
            return Ok(LinkEnd {
                path: current,
                through_proc,
            });
        }
        let dir = current.parent().unwrap_or(Path::new(""));
        through_proc |= std::fs::canonicalize(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        })
        .is_ok_and(|dir| dir.starts_with("/proc"));
        current = dir.join(std::fs::read_link(&current)?);
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// Hands `write` a large buffer over `sink`, and flushes it.
fn write_all_to(
    sink: impl Write,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(OUTPUT_BUFFER_BYTES, sink);
    write(&mut out)?;
    out.flush()
}

/// Writes `path` under a temporary name beside it and renames it into place
/// when complete, so a failed run never leaves a half-written file under the
/// requested name. There is no fsync: the rename protects against a failed
/// run, and waiting for the disk would cost more than the whole analysis for
/// a large output.
fn replace_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let partial = sibling_path(path, "partial");
    let result = File::create(&partial).and_then(|file| {
        write_all_to(file, write)?;
        move_into_place(&partial, path)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// Large writes: a folded file of a big recording is tens of megabytes.
const OUTPUT_BUFFER_BYTES: usize = 1 << 20;

/// Renames the complete file `partial` to `path`. A regular file already at
/// `path` is moved aside first and removed after: renaming over an existing
/// file makes ext4 (`auto_da_alloc`) start writing the new file to disk
/// inside `rename`, 25 ms for a 32 MB folded file. If the second rename
/// fails, the old file is put back.
fn move_into_place(partial: &Path, path: &Path) -> io::Result<()> {
    let replaces_file = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file());
    if !replaces_file {
        return std::fs::rename(partial, path);
    }
    let aside = sibling_path(path, "old");
    std::fs::rename(path, &aside)?;
    if let Err(error) = std::fs::rename(partial, path) {
        let _ = std::fs::rename(&aside, path);
        return Err(error);
    }
    std::fs::remove_file(&aside)
}

/// `dir/.name.KIND-PID` beside `path`.
fn sibling_path(path: &Path, kind: &str) -> PathBuf {
    let name = path.file_name().map_or_else(
        || "output".into(),
        |name| name.to_string_lossy().into_owned(),
    );
    path.with_file_name(format!(".{name}.{kind}-{}", std::process::id()))
}

#[cfg(test)]
mod tests;
