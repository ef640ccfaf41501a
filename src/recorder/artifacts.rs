//! The compile's outputs, named on its command line
//! ([`named_outputs`](crate::artifact::named_outputs)), read once it has
//! run: size, SHA-256 and,
//! for a ZIP-based `.vmfb`, its members (the `zip` crate reads the archive's
//! directory; nothing is extracted).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::run_json::{MAX_HASHED_INPUT, sha256_of};
use crate::artifact::{Artifact, ArtifactRole, Member, MemberKind, NamedOutputs};

/// A file written less than this before the run began still counts as the
/// run's: the kernel stamps files with a clock that lags by up to a tick.
const CLOCK_SLACK: Duration = Duration::from_millis(50);

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
