//! The compile's outputs: found on its command line as iree-compile parses
//! it (`-o FILE`, `-o=FILE`, `--o=FILE`, and the directories of
//! `--iree-hal-dump-*-to`), then read once it has run: size, SHA-256 and,
//! for a ZIP-based `.vmfb`, its members (the `zip` crate reads the archive's
//! directory; nothing is extracted).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::run_json::{MAX_HASHED_INPUT, sha256_of};
use crate::artifact::{Artifact, ArtifactRole, Member, MemberKind};

/// A file written less than this before the run began still counts as the
/// run's: the kernel stamps files with a clock that lags by up to a tick.
const CLOCK_SLACK: Duration = Duration::from_millis(50);

/// The outputs a command line names.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NamedOutputs {
    /// `-o FILE` (the last one, as LLVM's option parser keeps it).
    pub file: Option<PathBuf>,
    /// Where in the arguments every `-o` option and its separate value
    /// stand (`-o -` too), for a caller that drops them.
    pub file_option_at: Vec<usize>,
    /// The directories of `--iree-hal-dump-*-to`.
    pub dump_dirs: Vec<PathBuf>,
}

/// The outputs `args` (the command's arguments, without the program) name.
/// LLVM's parser takes one or two dashes, and a value after `=` or as the
/// next argument; `-` is stdout, and `--` ends the options.
pub(crate) fn named_outputs(args: &[OsString]) -> NamedOutputs {
    let mut named = NamedOutputs::default();
    let mut args = args.iter().map(|arg| arg.to_string_lossy()).enumerate();
    while let Some((at, arg)) = args.next() {
        if arg == "--" {
            break;
        }
        let Some(option) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            continue;
        };
        let (name, inline_value) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (option, None),
        };
        let is_file = name == "o";
        let is_dump_dir = name.starts_with("iree-hal-dump-") && name.ends_with("-to");
        if !is_file && !is_dump_dir {
            continue;
        }
        if is_file {
            named.file_option_at.push(at);
        }
        let Some(value) = inline_value.or_else(|| {
            let (value_at, value) = args.next()?;
            if is_file {
                named.file_option_at.push(value_at);
            }
            Some(value.into_owned())
        }) else {
            break;
        };
        if value.is_empty() || value == "-" {
            continue;
        }
        if is_file {
            named.file = Some(PathBuf::from(value));
        } else if !named
            .dump_dirs
            .iter()
            .any(|dir| dir.as_os_str() == value.as_str())
        {
            named.dump_dirs.push(PathBuf::from(value));
        }
    }
    named
}

/// What the compile wrote of `named` since `since`; what it did not write
/// is told in `notes`.
pub(super) fn artifacts(
    named: &NamedOutputs,
    since: SystemTime,
    notes: &mut Vec<String>,
) -> Vec<Artifact> {
    let since = since.checked_sub(CLOCK_SLACK).unwrap_or(since);
    let mut found = Vec::new();
    if let Some(path) = &named.file {
        match written_since(path, since) {
            Ok(true) => found.push(output(path)),
            Ok(false) => notes.push(format!(
                "the output {} is older than the run: the compile did not write it",
                path.display()
            )),
            Err(error) => notes.push(format!(
                "the output {} was not written: {error}",
                path.display()
            )),
        }
    }
    for dir in &named.dump_dirs {
        let mut files = Vec::new();
        if let Err(error) = dump_files(dir, since, &mut files) {
            notes.push(format!(
                "the dump directory {} cannot be read: {error}",
                dir.display()
            ));
        }
        files.sort();
        found.extend(files.iter().map(|file| listed(file, ArtifactRole::Dump)));
    }
    found
}

/// Whether `path` is a file modified at or after `since`.
fn written_since(path: &Path, since: SystemTime) -> std::io::Result<bool> {
    let meta = std::fs::metadata(path)?;
    Ok(meta.is_file() && meta.modified()? >= since)
}

/// Appends the files below `dir` written since `since`; directories reached
/// through symbolic links are not entered.
fn dump_files(dir: &Path, since: SystemTime, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            dump_files(&path, since, files)?;
        } else if written_since(&path, since)? {
            files.push(path);
        }
    }
    Ok(())
}

/// A file, listed with its size and hash, without its members.
fn listed(path: &Path, role: ArtifactRole) -> Artifact {
    let bytes = std::fs::metadata(path).map_or(0, |meta| meta.len());
    Artifact {
        path: path.display().to_string(),
        bytes,
        sha256: (bytes <= MAX_HASHED_INPUT)
            .then(|| sha256_of(path))
            .flatten(),
        role,
        entries: None,
        note: None,
    }
}

/// The compile's output, with its members when it is a ZIP archive.
fn output(path: &Path) -> Artifact {
    let mut artifact = listed(path, ArtifactRole::Output);
    match members(path) {
        Ok(members) => artifact.entries = Some(members),
        Err(error) => {
            artifact.note = Some(format!(
                "not a ZIP archive ({error}), so its members are not known: a .vmfb made \
                 with --iree-vm-emit-polyglot-zip=false, or an output that is not a module"
            ));
        }
    }
    artifact
}

/// The members of the ZIP archive at `path`, from its central directory.
fn members(path: &Path) -> Result<Vec<Member>, zip::result::ZipError> {
    let file = std::fs::File::open(path)?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))?;
    let mut members = Vec::with_capacity(archive.len());
    for index in 0..archive.len() {
        let member = archive.by_index_raw(index)?;
        if member.is_dir() {
            continue;
        }
        let name = member.name().to_owned();
        members.push(Member {
            kind: MemberKind::of(&name),
            bytes: member.compressed_size(),
            name,
        });
    }
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn outputs_are_found_as_llvm_parses_them() {
        let named = named_outputs(&args(
            "m.mlir -o first.vmfb --iree-hal-dump-executable-binaries-to=bins \
             -iree-hal-dump-executable-sources-to srcs --o=out.vmfb --iree-hal-link-executables=false",
        ));
        assert_eq!(named.file, Some(PathBuf::from("out.vmfb")));
        assert_eq!(named.file_option_at, [1, 2, 6]);
        assert_eq!(
            named.dump_dirs,
            [PathBuf::from("bins"), PathBuf::from("srcs")]
        );
        assert_eq!(
            named_outputs(&args("m.mlir -o=x.vmfb")).file,
            Some(PathBuf::from("x.vmfb"))
        );
    }

    #[test]
    fn stdout_a_missing_value_and_arguments_after_a_double_dash_name_no_output() {
        let stdout = named_outputs(&args("m.mlir -o -"));
        assert_eq!((stdout.file, stdout.file_option_at), (None, vec![1, 2]));
        let no_value = named_outputs(&args("m.mlir -o"));
        assert_eq!((no_value.file, no_value.file_option_at), (None, vec![1]));
        assert_eq!(
            named_outputs(&args("m.mlir -- -o x.vmfb")),
            NamedOutputs::default()
        );
        // Options that only end like one are not it.
        assert_eq!(
            named_outputs(&args(
                "--output-format=vm-bytecode --iree-hal-dump-executable-files m"
            )),
            NamedOutputs::default()
        );
    }

    #[test]
    fn an_output_not_written_by_the_run_is_noted_not_listed() {
        let dir =
            std::env::temp_dir().join(format!("compile-perf-artifacts-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("dump/nested")).unwrap();
        let stale = dir.join("stale.vmfb");
        std::fs::write(&stale, b"old").unwrap();
        let since = SystemTime::now() + Duration::from_secs(60);
        let mut notes = Vec::new();
        let named = NamedOutputs {
            file: Some(stale.clone()),
            dump_dirs: vec![dir.join("dump")],
            ..NamedOutputs::default()
        };
        assert!(artifacts(&named, since, &mut notes).is_empty());
        assert!(notes[0].ends_with("is older than the run: the compile did not write it"));
        // Written now: listed, not an archive, with the bytes and the note.
        std::fs::write(dir.join("dump/nested/a.so"), b"ELF").unwrap();
        let named = NamedOutputs {
            file: Some(stale.clone()),
            dump_dirs: vec![dir.join("dump"), dir.join("missing")],
            ..NamedOutputs::default()
        };
        let mut notes = Vec::new();
        let found = artifacts(
            &named,
            SystemTime::now() - Duration::from_secs(60),
            &mut notes,
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].bytes, found[0].entries.as_ref()), (3, None));
        assert!(
            found[0]
                .note
                .as_deref()
                .unwrap()
                .starts_with("not a ZIP archive")
        );
        assert_eq!(found[1].role, ArtifactRole::Dump);
        assert!(found[1].path.ends_with("dump/nested/a.so"));
        assert_eq!(found[1].note, None);
        assert!(notes[0].starts_with("the dump directory"), "{notes:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
