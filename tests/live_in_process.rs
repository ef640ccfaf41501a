//! Live: a compile run inside Python, through the compiler's C API
//! (`iree.compiler.api`'s Session, Source, Invocation and Output, as
//! iree-turbine compiles), recorded with `compile-perf record -- python3
//! tests/in_process/compile.py`. The python3 process that maps
//! libIREECompiler.so is the compiler: `--compiler` keeps its samples, its
//! passes are found, the memory figures follow it, and no notice calls it
//! a Python launcher.

mod common;

use std::ffi::OsString;
use std::path::PathBuf;

use common::iree::{IREE_FLAGS, iree_live_prerequisites, live_lock, report_json, workload};
use common::{TempDir, compile_perf, repo_root};

/// The venv's Python, which has the `iree.compiler` package.
fn venv_python() -> PathBuf {
    repo_root().join(".venv").join("bin").join("python3")
}

#[test]
fn a_compile_inside_python_is_the_compiler_with_its_passes_memory_and_no_launcher_notice() {
    if !iree_live_prerequisites() || !common::live_prerequisite(venv_python()) {
        return;
    }
    let _live = live_lock();
    let dir = TempDir::new("in-process");
    let input = workload(&dir, "many-dispatches");
    let run_dir = dir.join("run");
    let mut args: Vec<OsString> = vec![
        "record".into(),
        "-q".into(),
        "-o".into(),
        run_dir.clone().into(),
        "--".into(),
        venv_python().into(),
        repo_root().join("tests/in_process/compile.py").into(),
        input.into(),
        dir.join("out.vmfb").into(),
    ];
    args.extend(IREE_FLAGS.iter().map(OsString::from));
    compile_perf(args).expect_code(0, "record of a compile inside Python");
    assert!(
        std::fs::metadata(dir.join("out.vmfb")).is_ok_and(|meta| meta.len() > 0),
        "the in-process compile wrote its module"
    );

    let all = report_json(&run_dir, &["--by", "process"]);
    let total = all["samples"].as_u64().expect("samples");
    // A report without notices leaves the list out.
    let notices = all["notices"].as_array().cloned().unwrap_or_default();
    assert!(
        !notices.iter().any(|notice| notice
            .as_str()
            .is_some_and(|text| text.contains("launcher"))),
        "a compile inside Python has no launcher: {notices:?}"
    );

    let passes = report_json(&run_dir, &["--by", "pass", "--compiler"]);
    let compiler = passes["samples"].as_u64().expect("samples");
    assert!(
        compiler * 10 >= total * 9,
        "--compiler keeps the python3 that compiles: {compiler} of {total} samples"
    );
    let rows = passes["passes"].as_array().expect("passes");
    let sample_of = |name: &str| {
        rows.iter()
            .find(|row| row["name"] == name)
            .and_then(|row| row["inclusive_samples"].as_u64())
            .unwrap_or(0)
    };
    let in_passes: u64 = passes["in_pass_manager_samples"]
        .as_u64()
        .expect("in_pass_manager_samples");
    assert!(
        in_passes * 2 >= compiler,
        "most of the compiler's samples are in passes: {in_passes} of {compiler}"
    );
    // many-dispatches spends most of its time in LLVM's codegen of its
    // executables.
    let serialize = sample_of("SerializeTargetExecutablesPass");
    assert!(
        serialize * 10 >= compiler,
        "SerializeTargetExecutablesPass is a pass of the compile: {serialize} of {compiler}"
    );

    let peak = &passes["memory_peak"];
    let peak_bytes = peak["bytes"].as_u64().expect("the compiler's memory peak");
    assert!(
        peak_bytes > 50 << 20,
        "the peak RSS is the compiling python3's, with the compiler's library: {peak}"
    );
}
