//! What a compile produced (`run.json`'s `artifacts`): the one type the
//! recorder writes and the reports and `diff` read; the kind of a `.vmfb`
//! member told from its name, its share of the file by kind, and the name
//! an executable is matched by across builds (its dispatch name, without the
//! target's suffix); and the outputs a compile's command line names, found as
//! iree-compile parses it (`-o FILE`, `-o=FILE`, `--o=FILE`, and the
//! directories of `--iree-hal-dump-*-to`).

use std::ffi::OsString;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The suffixes IREE puts after an executable's name in a `.vmfb`: its
/// format (`embedded-elf-x86_64`, `vulkan-spirv-fb`, …) with `-` as `_`.
const TARGET_MARKERS: [&str; 10] = [
    "_embedded_elf_",
    "_system_elf_",
    "_system_dll_",
    "_system_dylib_",
    "_vulkan_spirv_fb",
    "_rocm_hsaco_fb",
    "_cuda_nvptx_fb",
    "_vmvx_bytecode_fb",
    "_metal_msl_fb",
    "_webgpu_wgsl_fb",
];

/// The extensions of a member holding executables.
const EXECUTABLE_EXTENSIONS: [&str; 7] = ["so", "spv", "hsaco", "fb", "dll", "dylib", "metallib"];

/// The VM bytecode module's member.
const MODULE_MEMBER: &str = "module.fb";

/// A file the compile wrote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Artifact {
    pub path: String,
    pub bytes: u64,
    /// Lower-case hex SHA-256; `None` for files too large to hash.
    pub sha256: Option<String>,
    /// Why the file is listed.
    #[serde(default)]
    pub role: ArtifactRole,
    /// The members of a ZIP archive (a `.vmfb`), in the archive's order;
    /// `None` for a file that is not one, or not read as one (dumps).
    pub entries: Option<Vec<Member>>,
    /// Why `entries` is `None` for an output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Why an artifact is listed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ArtifactRole {
    /// The compile's output (`-o FILE`): the module.
    #[default]
    Output,
    /// A file of a dump directory (`--iree-hal-dump-executable-*-to DIR`).
    Dump,
}

/// One member of a ZIP-based `.vmfb`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Member {
    pub name: String,
    /// The bytes it takes in the archive (IREE stores members uncompressed).
    pub bytes: u64,
    pub kind: MemberKind,
}

/// What a member of a `.vmfb` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum MemberKind {
    /// The executables, one file per target format (or one per dispatch
    /// with `--iree-hal-link-executables=false`).
    Executable,
    /// Constants: `_const*.bin` and other read-only data.
    Constants,
    /// The VM flatbuffer (`module.fb`).
    Module,
    /// Anything else.
    Other,
}

impl MemberKind {
    /// The kind of the member named `name`.
    pub(crate) fn of(name: &str) -> MemberKind {
        let file = name.rsplit('/').next().unwrap_or(name);
        if file == MODULE_MEMBER {
            return MemberKind::Module;
        }
        let extension = file
            .rsplit_once('.')
            .map(|(_, extension)| extension.to_ascii_lowercase());
        match extension.as_deref() {
            Some("bin") => MemberKind::Constants,
            Some(extension) if EXECUTABLE_EXTENSIONS.contains(&extension) => MemberKind::Executable,
            _ => MemberKind::Other,
        }
    }

    /// Its name, as `run.json` writes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            MemberKind::Executable => "executable",
            MemberKind::Constants => "constants",
            MemberKind::Module => "module",
            MemberKind::Other => "other",
        }
    }
}

impl Member {
    /// The name it is matched by across builds: an executable's dispatch
    /// name without the target's suffix and extension
    /// (`main_dispatch_0_embedded_elf_x86_64.so` → `main_dispatch_0`), any
    /// other member's own name.
    pub(crate) fn match_name(&self) -> &str {
        if self.kind != MemberKind::Executable {
            return &self.name;
        }
        let stem = self
            .name
            .rsplit_once('.')
            .map_or(self.name.as_str(), |(stem, _)| stem);
        TARGET_MARKERS
            .iter()
            .filter_map(|marker| stem.rfind(marker))
            .max()
            .map_or(stem, |at| &stem[..at])
    }
}

/// The bytes of one kind of member in an archive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct KindTotal {
    pub kind: MemberKind,
    pub bytes: u64,
    pub members: usize,
}

impl Artifact {
    /// The bytes of each kind of member, largest first.
    pub(crate) fn by_kind(&self) -> Vec<KindTotal> {
        let mut totals: Vec<KindTotal> = Vec::new();
        for member in self.entries.iter().flatten() {
            match totals.iter_mut().find(|total| total.kind == member.kind) {
                Some(total) => {
                    total.bytes += member.bytes;
                    total.members += 1;
                }
                None => totals.push(KindTotal {
                    kind: member.kind,
                    bytes: member.bytes,
                    members: 1,
                }),
            }
        }
        totals.sort_by(|a, b| (b.bytes, a.kind).cmp(&(a.bytes, b.kind)));
        totals
    }

    /// The bytes of the file outside its members: the archive's headers
    /// and padding.
    pub(crate) fn overhead_bytes(&self) -> Option<u64> {
        let members: u64 = self.entries.as_ref()?.iter().map(|m| m.bytes).sum();
        Some(self.bytes.saturating_sub(members))
    }

    /// Its `n` largest members of `kind`, largest first.
    pub(crate) fn largest_of(&self, kind: MemberKind, n: usize) -> Vec<&Member> {
        let mut members: Vec<&Member> = self
            .entries
            .iter()
            .flatten()
            .filter(|member| member.kind == kind)
            .collect();
        members.sort_by(|a, b| (b.bytes, &a.name).cmp(&(a.bytes, &b.name)));
        members.truncate(n);
        members
    }

    /// For tests: a `.vmfb` output holding `members` (name and bytes), each
    /// of the kind its name says, with `headers` bytes of archive besides.
    #[cfg(test)]
    pub(crate) fn vmfb_of(members: &[(&str, u64)], headers: u64) -> Artifact {
        let entries: Vec<Member> = members
            .iter()
            .map(|&(name, bytes)| Member {
                name: name.to_owned(),
                bytes,
                kind: MemberKind::of(name),
            })
            .collect();
        Artifact {
            path: "out.vmfb".to_owned(),
            bytes: entries.iter().map(|member| member.bytes).sum::<u64>() + headers,
            sha256: None,
            role: ArtifactRole::Output,
            entries: Some(entries),
            note: None,
        }
    }
}

/// The compile's outputs (not its dumps) among `artifacts`.
pub(crate) fn outputs(artifacts: &[Artifact]) -> impl Iterator<Item = &Artifact> {
    artifacts
        .iter()
        .filter(|artifact| artifact.role == ArtifactRole::Output)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    fn member(name: &str, bytes: u64) -> Member {
        Member {
            name: name.to_owned(),
            bytes,
            kind: MemberKind::of(name),
        }
    }

    #[test]
    fn kinds_come_from_the_names_iree_gives_members() {
        let kinds: Vec<&str> = [
            "module.fb",
            "_const.bin",
            "_const_0.bin",
            "dispatches_linked_embedded_elf_x86_64.so",
            "main_dispatch_0_vulkan_spirv_fb.fb",
            "main_dispatch_0_rocm_hsaco_fb.hsaco",
            "kernel.spv",
            "README.txt",
        ]
        .into_iter()
        .map(|name| MemberKind::of(name).name())
        .collect();
        assert_eq!(
            kinds,
            [
                "module",
                "constants",
                "constants",
                "executable",
                "executable",
                "executable",
                "executable",
                "other"
            ]
        );
    }

    #[test]
    fn executables_match_by_their_dispatch_name_across_targets() {
        let names = [
            "main_dispatch_0_embedded_elf_x86_64.so",
            "main_dispatch_0_system_elf_aarch64.so",
            "main_dispatch_0_vulkan_spirv_fb.fb",
            "dispatches_linked_embedded_elf_x86_64.so",
            "odd.so",
        ];
        let matched: Vec<String> = names
            .iter()
            .map(|name| member(name, 1).match_name().to_owned())
            .collect();
        assert_eq!(
            matched,
            [
                "main_dispatch_0",
                "main_dispatch_0",
                "main_dispatch_0",
                "dispatches_linked",
                "odd"
            ]
        );
        // Other members keep their whole name.
        assert_eq!(member("_const.bin", 1).match_name(), "_const.bin");
    }

    #[test]
    fn an_archive_adds_up_by_kind_and_names_its_largest_members() {
        let artifact = Artifact {
            path: "out/model.vmfb".to_owned(),
            bytes: 1000,
            sha256: None,
            role: ArtifactRole::Output,
            entries: Some(vec![
                member("module.fb", 100),
                member("a_embedded_elf_x86_64.so", 300),
                member("_const.bin", 250),
                member("b_embedded_elf_x86_64.so", 320),
            ]),
            note: None,
        };
        let kinds: Vec<(&str, u64, usize)> = artifact
            .by_kind()
            .iter()
            .map(|total| (total.kind.name(), total.bytes, total.members))
            .collect();
        assert_eq!(
            kinds,
            [
                ("executable", 620, 2),
                ("constants", 250, 1),
                ("module", 100, 1)
            ]
        );
        assert_eq!(artifact.overhead_bytes(), Some(30));
        let largest: Vec<&str> = artifact
            .largest_of(MemberKind::Executable, 1)
            .iter()
            .map(|member| member.name.as_str())
            .collect();
        assert_eq!(largest, ["b_embedded_elf_x86_64.so"]);
    }

    #[test]
    fn a_file_that_is_not_an_archive_has_no_kinds() {
        let json = r#"{"path": "m.vmfb", "bytes": 88904, "sha256": null, "entries": null,
                       "note": "not a ZIP archive"}"#;
        let artifact: Artifact = serde_json::from_str(json).unwrap();
        assert_eq!(artifact.role, ArtifactRole::Output);
        assert!(artifact.by_kind().is_empty());
        assert_eq!(artifact.overhead_bytes(), None);
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
}
