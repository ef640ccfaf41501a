//! Live: what a compile produced. The same model compiled with its
//! executables linked into one and not linked (`--iree-hal-link-executables`):
//! `record` lists each `.vmfb` with its members in run.json and the report;
//! `diff` of the two run directories shows the executables' bytes growing
//! and the separate executables added, and `--max-increase size=10` fails
//! the gate. A `.vmfb` written without its ZIP directory is listed with
//! `entries: null` and a note. Under `CI=true` these must run.

mod common;

use std::ffi::OsString;
use std::path::Path;

use common::iree::{iree_live_prerequisites, live_lock, record_args, workload};
use common::{Run, TempDir, compile_perf};
use serde_json::Value;

fn run_json(run_dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(run_dir.join("run.json")).expect("run.json exists"))
        .expect("run.json is JSON")
}

/// `compile-perf diff BASE NEW -q ARGS`.
fn diff(base: &Path, new: &Path, args: &[&str]) -> Run {
    let mut all: Vec<OsString> = vec!["diff".into(), base.into(), new.into(), "-q".into()];
    all.extend(args.iter().map(OsString::from));
    compile_perf(&all)
}

/// The output `vmfb` as run.json lists it; checks its size and hash
/// against the file itself.
fn listed_output<'a>(run: &'a Value, vmfb: &Path) -> &'a Value {
    let artifact = run["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|artifact| artifact["path"] == vmfb.display().to_string())
        .unwrap_or_else(|| panic!("{} is not listed: {run:#}", vmfb.display()));
    let bytes = std::fs::metadata(vmfb).unwrap().len();
    assert_eq!(artifact["bytes"], bytes);
    assert_eq!(artifact["role"], "output");
    assert_eq!(artifact["sha256"].as_str().unwrap().len(), 64);
    artifact
}

/// The members of a listed `.vmfb`, as (name, kind, bytes); their bytes add
/// up to no more than the file's.
fn members(artifact: &Value) -> Vec<(String, String, u64)> {
    let members: Vec<(String, String, u64)> = artifact["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("no entries: {artifact:#}"))
        .iter()
        .map(|member| {
            (
                member["name"].as_str().unwrap().to_owned(),
                member["kind"].as_str().unwrap().to_owned(),
                member["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    let total: u64 = members.iter().map(|(_, _, bytes)| bytes).sum();
    assert!(total <= artifact["bytes"].as_u64().unwrap());
    members
}

#[test]
fn separate_executables_grow_the_module_and_the_size_gate_catches_it() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("artifacts");
    let input = workload(&dir, "many-dispatches");
    let linked = dir.join("linked");
    let separate = dir.join("separate");
    compile_perf(record_args(&linked, &[], &input, &[])).expect_code(0, "record, linked");
    compile_perf(record_args(
        &separate,
        &[],
        &input,
        &["--iree-hal-link-executables=false"],
    ))
    .expect_code(0, "record, not linked");

    // run.json lists each .vmfb with its members.
    let linked_members = members(listed_output(
        &run_json(&linked),
        &linked.with_extension("vmfb"),
    ));
    let separate_members = members(listed_output(
        &run_json(&separate),
        &separate.with_extension("vmfb"),
    ));
    eprintln!("linked: {linked_members:?}\nseparate: {separate_members:?}");
    let executables = |members: &[(String, String, u64)]| -> Vec<String> {
        members
            .iter()
            .filter(|(_, kind, _)| kind == "executable")
            .map(|(name, _, _)| name.clone())
            .collect()
    };
    assert!(
        linked_members
            .iter()
            .any(|(name, kind, _)| name == "module.fb" && kind == "module")
    );
    let linked_executables = executables(&linked_members);
    assert_eq!(linked_executables.len(), 1, "{linked_members:?}");
    assert!(linked_executables[0].contains("_linked_"));
    let separate_executables = executables(&separate_members);
    assert!(separate_executables.len() > 5, "{separate_members:?}");
    assert!(
        separate_executables
            .iter()
            .all(|name| name.contains("_dispatch_"))
    );

    // The report of a run has the Artifacts section.
    let report = std::fs::read_to_string(linked.join("report.txt")).unwrap();
    assert!(report.contains("\nartifacts\n"), "{report}");
    assert!(
        report.contains(&format!("{}: ", linked.with_extension("vmfb").display())),
        "{report}"
    );
    let html = std::fs::read_to_string(linked.join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"artifacts\">Artifacts</h2>"));

    // diff: the executables' kind grows, the separate ones are added, the
    // linked one removed.
    let compared = diff(&linked, &separate, &["--format", "json"]);
    compared.expect_code(0, "diff --format json");
    let compared = compared.json();
    let size = &compared["run"]["artifact_bytes"];
    eprintln!("artifact bytes: {size}");
    assert_eq!(
        size["base"].as_f64().unwrap(),
        std::fs::metadata(linked.with_extension("vmfb"))
            .unwrap()
            .len() as f64
    );
    assert!(size["delta_percent"].as_f64().unwrap() > 10.0, "{size}");
    for measure in ["wall_seconds", "cpu_seconds", "peak_rss_bytes"] {
        let measured = &compared["run"][measure];
        assert!(
            measured["base"].as_f64().unwrap() > 0.0 && measured["new"].as_f64().unwrap() > 0.0,
            "{measure}: {measured}"
        );
    }
    let listed = compared["artifacts"].as_array().unwrap();
    let added: Vec<&str> = listed
        .iter()
        .filter(|member| member["base_bytes"].is_null())
        .map(|member| member["name"].as_str().unwrap())
        .collect();
    let removed: Vec<&str> = listed
        .iter()
        .filter(|member| member["new_bytes"].is_null())
        .map(|member| member["name"].as_str().unwrap())
        .collect();
    assert_eq!(added.len(), separate_executables.len(), "{listed:#?}");
    // Matched by dispatch name: the target's suffix is gone.
    assert!(
        added
            .iter()
            .all(|name| name.contains("_dispatch_") && !name.contains("embedded_elf")),
        "{added:?}"
    );
    assert_eq!(removed.len(), 1, "{listed:#?}");
    assert!(removed[0].ends_with("_linked"), "{removed:?}");

    let text = diff(&linked, &separate, &[]);
    text.expect_code(0, "diff");
    let executable_row: Vec<&str> = text
        .stdout
        .lines()
        .find(|line| line.starts_with("executable "))
        .unwrap_or_else(|| panic!("no executable kind row:\n{}", text.stdout))
        .split_whitespace()
        .collect();
    let bytes = |text: &str| text.parse::<u64>().unwrap();
    assert!(
        bytes(executable_row[2]) > bytes(executable_row[1]),
        "{executable_row:?}"
    );
    assert!(text.stdout.contains(" added\n") && text.stdout.contains(" removed\n"));
    assert!(text.stdout.contains(&format!(
        "members: {} added, 1 removed",
        separate_executables.len()
    )));

    // The two builds differ by a flag: the gate refuses them unless allowed.
    let refused = diff(&linked, &separate, &["--max-increase", "size=10"]);
    refused.expect_code(33, "the gate over different flags");
    assert!(
        refused
            .stderr
            .contains("BASE and NEW used different compiler flags"),
        "{}",
        refused.stderr
    );
    // The gate: the module grew by more than 10%.
    let allowed = ["--allow-different-inputs", "--max-increase"];
    let gate = diff(&linked, &separate, &[allowed[0], allowed[1], "size=10"]);
    gate.expect_code(30, "diff --max-increase size=10");
    assert!(
        gate.stderr.contains("| artifact bytes |"),
        "{}",
        gate.stderr
    );
    // The other way round it shrank.
    diff(&separate, &linked, &[allowed[0], allowed[1], "size=10"])
        .expect_code(0, "diff the other way");
    // One run a side does not judge time or RSS, however they moved.
    diff(
        &linked,
        &separate,
        &[allowed[0], allowed[1], "wall=0", allowed[1], "rss=0"],
    )
    .expect_code(0, "time and RSS limits with one run a side");
}

#[test]
fn a_vmfb_that_is_not_a_zip_archive_is_listed_without_members() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("artifacts-flatbuffer");
    let input = workload(&dir, "many-dispatches");
    let run_dir = dir.join("run");
    compile_perf(record_args(
        &run_dir,
        &[],
        &input,
        &["--iree-vm-emit-polyglot-zip=false"],
    ))
    .expect_code(0, "record without the ZIP directory");
    let vmfb = run_dir.with_extension("vmfb");
    // The file is IREE's flatbuffer alone (size-prefixed: its identifier
    // after the size and the root offset), without a ZIP directory.
    let bytes = std::fs::read(&vmfb).unwrap();
    assert_eq!(&bytes[8..12], b"IREE");
    let run = run_json(&run_dir);
    let artifact = listed_output(&run, &vmfb);
    assert!(artifact["entries"].is_null(), "{artifact:#}");
    assert!(
        artifact["note"]
            .as_str()
            .unwrap()
            .starts_with("not a ZIP archive"),
        "{artifact:#}"
    );
    let report = std::fs::read_to_string(run_dir.join("report.txt")).unwrap();
    assert!(
        report.contains(&format!(
            "{}: {} bytes; not a ZIP archive",
            vmfb.display(),
            bytes.len()
        )),
        "{report}"
    );
}
