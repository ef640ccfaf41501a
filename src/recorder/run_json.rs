//! Writing the run directory's `run.json` ([`crate::run_dir::RunJson`]), and
//! the facts about the compiler, the inputs and the host that go in it.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

use super::RecordError;
use crate::run_dir::{Host, InputFile, RunManifest};

/// Inputs larger than this are listed without a hash.
pub(super) const MAX_HASHED_INPUT: u64 = 4 << 30;

/// Writes `run` as `dir/run.json`, replacing the one before.
pub(crate) fn write_run_json(dir: &Path, run: &impl RunManifest) -> Result<(), RecordError> {
    crate::run_dir::save(dir, run).map_err(|source| RecordError::OutputNotWritable {
        dir: dir.to_owned(),
        source,
    })
}

/// `iree-compile --version`, when the command is iree-compile.
pub(super) fn iree_compile_version(command: &[OsString]) -> Option<String> {
    let program = command.first()?;
    let name = Path::new(program).file_name()?.to_string_lossy();
    if !name.starts_with("iree-compile") {
        return None;
    }
    let output = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text.trim();
    (!version.is_empty()).then(|| version.to_owned())
}

/// The existing files among the command's arguments (`--flag=FILE` too),
/// but for its `-o` output (which a previous run may have left), with
/// their bytes.
pub(super) fn existing_files(args: &[OsString]) -> Vec<(String, u64)> {
    let output_at = crate::artifact::named_outputs(args).file_option_at;
    args.iter()
        .enumerate()
        .filter(|(at, _)| !output_at.contains(at))
        .filter_map(|(_, arg)| {
            let arg = arg.to_string_lossy();
            let path = arg.split_once('=').map_or(&*arg, |(_, value)| value);
            let meta = std::fs::metadata(path).ok().filter(|meta| meta.is_file())?;
            Some((path.to_owned(), meta.len()))
        })
        .collect()
}

/// The command's inputs ([`existing_files`]), hashed when not too large.
pub(super) fn input_files(args: &[OsString]) -> Vec<InputFile> {
    existing_files(args)
        .into_iter()
        .map(|(path, bytes)| InputFile {
            sha256: (bytes <= MAX_HASHED_INPUT)
                .then(|| sha256_of(Path::new(&path)))
                .flatten(),
            path,
            bytes,
        })
        .collect()
}

pub(super) fn sha256_of(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut buffer).ok()?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Some(crate::binary::hex(&hasher.finalize()))
}

pub(super) fn host() -> Host {
    let memory_bytes = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        });
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.trim().to_owned())
    };
    Host {
        hostname: read("/proc/sys/kernel/hostname"),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        memory_bytes,
        kernel: read("/proc/sys/kernel/osrelease"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_found_in_plain_and_flag_arguments_and_hashed_and_the_output_is_not_one() {
        let dir = std::env::temp_dir().join(format!("compile-perf-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let model = dir.join("model.mlir");
        std::fs::write(&model, b"abc").unwrap();
        let previous_output = dir.join("out.vmfb");
        std::fs::write(&previous_output, b"left by an earlier run").unwrap();
        let args: Vec<OsString> = vec![
            model.clone().into(),
            format!("--iree-input-file={}", model.display()).into(),
            "-o".into(),
            previous_output.into(),
        ];
        let inputs = input_files(&args);
        assert_eq!(inputs.len(), 2, "{inputs:?}");
        assert_eq!(inputs[0].bytes, 3);
        assert_eq!(
            inputs[0].sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
