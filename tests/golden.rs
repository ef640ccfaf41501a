//! The flamegraph SVGs of the committed DWARF recording, byte for byte
//! against `tests/fixtures/expected/*.svg`: `flamegraph`, `flamegraph
//! --inverted`, and `diff --flamegraph` of the recording against another
//! one of the same program (both pictures). (`--passes-only` is not here:
//! the fixture's program has no MLIR pass, so its picture is one frame.)
//! `COMPILE_PERF_BLESS=1` writes the pictures drawn as the expected ones
//! instead (look at them before committing them).

mod common;

use std::ffi::OsString;
use std::path::Path;

use common::{TempDir, compile_perf, fixture};

const RECORDING: &str = "fake-dwarf.perf.data";
/// The same program recorded again, with its build ids in the MMAP2
/// records: another run, other counts.
const OTHER_RECORDING: &str = "fake-dwarf-buildid-mmap.perf.data";

/// `compile-perf flamegraph RECORDING --symfs … -q` and `rest`.
fn on_recording(rest: &[OsString]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "flamegraph".into(),
        fixture(RECORDING).into(),
        "--symfs".into(),
        fixture("fakecompiler").into(),
        "-q".into(),
    ];
    args.extend(rest.iter().cloned());
    args
}

/// Compares the SVG at `drawn` with `expected/NAME.svg`, or with
/// `COMPILE_PERF_BLESS=1` writes it there.
fn check(drawn: &Path, name: &str) {
    let svg = std::fs::read(drawn).unwrap_or_else(|error| panic!("{name}: {error}"));
    let expected_path = fixture(&format!("expected/{name}.svg"));
    if std::env::var_os("COMPILE_PERF_BLESS").is_some_and(|bless| bless == "1") {
        std::fs::write(&expected_path, &svg).unwrap();
        return;
    }
    let expected = std::fs::read(&expected_path).unwrap_or_else(|error| {
        panic!(
            "{}: {error} (COMPILE_PERF_BLESS=1 writes it)",
            expected_path.display()
        )
    });
    if svg != expected {
        let (svg, expected) = (
            String::from_utf8_lossy(&svg),
            String::from_utf8_lossy(&expected),
        );
        let line = svg
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(svg.lines().count().min(expected.lines().count()));
        panic!(
            "{name}.svg differs from line {}:\n  drawn:    {}\n  expected: {}\n\
             (COMPILE_PERF_BLESS=1 cargo test --test golden rewrites the expected files)",
            line + 1,
            svg.lines().nth(line).unwrap_or("(end)"),
            expected.lines().nth(line).unwrap_or("(end)"),
        );
    }
}

/// Draws `flamegraph` with `options` and checks it against `name`.
fn flamegraph(options: &[&str], name: &str) {
    let dir = TempDir::new(&format!("golden-{name}"));
    let svg = dir.join(format!("{name}.svg"));
    let mut rest: Vec<OsString> = vec!["-o".into(), svg.clone().into()];
    rest.extend(options.iter().map(OsString::from));
    compile_perf(on_recording(&rest)).expect_code(0, &format!("flamegraph {}", options.join(" ")));
    check(&svg, name);
}

#[test]
fn the_flamegraph_is_drawn_as_expected() {
    flamegraph(&[], "fake-dwarf.flamegraph");
}

#[test]
fn the_icicle_is_drawn_as_expected() {
    flamegraph(&["--inverted"], "fake-dwarf.flamegraph-inverted");
}

#[test]
fn the_differential_flamegraphs_are_drawn_as_expected() {
    let dir = TempDir::new("golden-diff");
    let svg = dir.join("diff.svg");
    let args: Vec<OsString> = vec![
        "diff".into(),
        fixture(OTHER_RECORDING).into(),
        fixture(RECORDING).into(),
        "--symfs".into(),
        fixture("fakecompiler").into(),
        "-q".into(),
        "--flamegraph".into(),
        svg.clone().into(),
    ];
    compile_perf(args).expect_code(0, "diff --flamegraph");
    check(&svg, "fake-dwarf.diff-flamegraph");
    check(
        &dir.join("diff-base.svg"),
        "fake-dwarf.diff-flamegraph-base",
    );
}
