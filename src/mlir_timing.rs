//! MLIR's pass timers: the report `iree-compile --mlir-timing
//! --mlir-timing-display=tree --mlir-output-format=json` prints on stderr at
//! the end of a compile, which `record --mlir-timing` keeps as
//! `mlir-timing.json` in the run directory. The tree as MLIR prints it, read,
//! and each timer name's wall seconds summed: the one form the recorder
//! writes and the reports read.
//!
//! MLIR prints a list of timers, each `{"user": {"duration"}, "wall":
//! {"duration"}, "name", "passes": [children…, {}]}` (every list of children
//! ends with an empty object), then `Rest` and `Total`. A pass that runs in
//! many pipelines has a timer in each; with threading, timers of the same
//! pass on several threads are merged by summing their wall times.

use std::ffi::OsString;
use std::path::Path;

use serde::Deserialize;

/// The timers' file in the run directory.
pub(crate) const TIMING_FILE: &str = "mlir-timing.json";

/// What `record --mlir-timing` adds to the iree-compile command line, each
/// as `--flag=value`: the option, and the value it needs.
pub(crate) const TIMING_FLAGS: [(&str, Option<&str>); 3] = [
    ("--mlir-timing", None),
    ("--mlir-timing-display", Some("tree")),
    ("--mlir-output-format", Some("json")),
];

/// `command` with [`TIMING_FLAGS`] added after the program (so that they
/// come before any `--` of its own), each unless it is there already; an
/// error when the program is not iree-compile or the command sets one of
/// them to another value.
pub(crate) fn with_timing_flags(command: &[OsString]) -> Result<Vec<OsString>, String> {
    let (program, args) = iree_compile_command(command, "the timing flags")?;
    let mut added = vec![program.clone()];
    for (flag, value) in TIMING_FLAGS {
        let wanted = match value {
            Some(value) => format!("{flag}={value}"),
            None => flag.to_owned(),
        };
        let given = args.iter().map(|arg| arg.to_string_lossy()).find(|arg| {
            arg.as_ref() == flag
                || arg
                    .strip_prefix(flag)
                    .is_some_and(|rest| rest.starts_with('='))
        });
        match given {
            Some(given)
                if given.as_ref() == wanted
                    || (value.is_none() && given == "--mlir-timing=true") => {}
            Some(given) => {
                return Err(format!(
                    "the command has {given}, but the timing report is read as {wanted}"
                ));
            }
            None => added.push(wanted.into()),
        }
    }
    added.extend(args.iter().cloned());
    Ok(added)
}

/// The program and arguments of `command`, or why flags (`what`) cannot be
/// added to it: there is no command, or its program is not iree-compile.
pub(crate) fn iree_compile_command<'a>(
    command: &'a [OsString],
    what: &str,
) -> Result<(&'a OsString, &'a [OsString]), String> {
    let Some((program, args)) = command.split_first() else {
        return Err("no command".to_owned());
    };
    let name = Path::new(program)
        .file_name()
        .map(|name| name.to_string_lossy());
    if !name.is_some_and(|name| name.starts_with("iree-compile")) {
        return Err(format!(
            "{} is not iree-compile: {what} are iree-compile's",
            program.to_string_lossy()
        ));
    }
    Ok((program, args))
}

/// The name of the timer of the whole pass manager.
const TOTAL: &str = "Total";
/// The name of the time no timer covers (negative with threading).
const REST: &str = "Rest";

/// One timer as MLIR prints it; the empty objects that end every list of
/// children have no name.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawTimer {
    name: Option<String>,
    wall: Option<Duration>,
    user: Option<Duration>,
    passes: Vec<RawTimer>,
}

#[derive(Debug, Default, Deserialize)]
struct Duration {
    duration: f64,
}

/// What a timer times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TimerKind {
    /// A pass (`CanonicalizerPass`).
    Pass,
    /// A nested pipeline, named by the op it runs on (`'func.func' Pipeline`).
    Pipeline,
    /// An analysis computed for a pass (`(A) DominanceInfo`).
    Analysis,
}

/// The seconds of one timer name, over the whole tree.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TimerTotal {
    pub name: String,
    pub kind: TimerKind,
    /// The sum of the wall seconds of its timers that are not inside another
    /// timer of the same name (a timer inside one of its own name is part of
    /// the outer one's time already).
    pub wall_seconds: f64,
    /// The same sum of MLIR's `user` seconds: the time spent in a timer on
    /// every thread, added up (a timer's `wall` is its longest thread's), so
    /// the seconds a pass run on many ops at once took of the threads.
    pub user_seconds: f64,
    /// How many timers of this name the tree has.
    pub timers: u32,
}

/// Every timer name of a timing report, in the order first met (depth
/// first), and the total.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Timers {
    pub names: Vec<TimerTotal>,
    /// The `Total` timer: the pass manager's wall time.
    pub total_wall_seconds: Option<f64>,
}

impl Timers {
    /// Reads a timing report (the JSON MLIR prints).
    pub(crate) fn parse(text: &str) -> Result<Timers, String> {
        let top: Vec<RawTimer> = serde_json::from_str(text).map_err(|error| error.to_string())?;
        let mut timers = Timers {
            names: Vec::new(),
            total_wall_seconds: None,
        };
        let mut open: Vec<&str> = Vec::new();
        for timer in &top {
            match timer.name.as_deref() {
                Some(TOTAL) => timers.total_wall_seconds = timer.wall.as_ref().map(|w| w.duration),
                Some(REST) => {}
                _ => timers.add(timer, &mut open),
            }
        }
        if timers.total_wall_seconds.is_none() {
            return Err("it has no \"Total\" timer: it is not MLIR's timing report".to_owned());
        }
        Ok(timers)
    }

    /// Adds `timer` and its children; `open` holds the names of the timers
    /// it is inside.
    fn add<'t>(&mut self, timer: &'t RawTimer, open: &mut Vec<&'t str>) {
        let Some(name) = timer.name.as_deref() else {
            return;
        };
        let wall = timer.wall.as_ref().map_or(0.0, |wall| wall.duration);
        // A report without the user column times one thread: user is wall.
        let user = timer.user.as_ref().map_or(wall, |user| user.duration);
        let inside_itself = open.contains(&name);
        match self.names.iter_mut().find(|known| known.name == name) {
            Some(known) => {
                known.timers += 1;
                if !inside_itself {
                    known.wall_seconds += wall;
                    known.user_seconds += user;
                }
            }
            None => self.names.push(TimerTotal {
                name: name.to_owned(),
                kind: kind_of(name),
                wall_seconds: wall,
                user_seconds: user,
                timers: 1,
            }),
        }
        open.push(name);
        for child in &timer.passes {
            self.add(child, open);
        }
        open.pop();
    }
}

fn kind_of(name: &str) -> TimerKind {
    if name.starts_with("(A) ") {
        TimerKind::Analysis
    } else if name.starts_with('\'') && name.ends_with("' Pipeline") {
        TimerKind::Pipeline
    } else {
        TimerKind::Pass
    }
}

/// Which of MLIR's lines on stderr are its timing report: from a line that
/// is only `[` to the next line that is only `]` (the report's children are
/// indented, so only its own brackets stand alone on a line).
#[derive(Debug, Default)]
pub(crate) struct ReportLines {
    inside: bool,
}

impl ReportLines {
    /// True when `line` (with or without its newline) belongs to the report.
    pub(crate) fn take(&mut self, line: &[u8]) -> bool {
        let bare = line.trim_ascii_end();
        if self.inside {
            self.inside = bare != b"]";
            true
        } else {
            self.inside = bare == b"[";
            self.inside
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped as iree-compile 3.13 prints it (cut from a real report).
    const REPORT: &str = r#"[
{"user": {"duration":   0.0003, "percentage":   0.0}, "wall": {"duration":   0.0003, "percentage":   0.0}, "name": "AutoInputConversionPipelinePass", "passes": [
{}]},
{"user": {"duration":   0.1576, "percentage":   3.6}, "wall": {"duration":   0.0878, "percentage":   5.9}, "name": "'util.func' Pipeline", "passes": [
  {"user": {"duration":   0.0015, "percentage":   0.0}, "wall": {"duration":   0.0015, "percentage":   0.1}, "name": "CanonicalizerPass", "passes": [
  {}]},
  {"user": {"duration":   0.0007, "percentage":   0.0}, "wall": {"duration":   0.0007, "percentage":   0.0}, "name": "CanonicalizerPass", "passes": [
  {}]},
  {"user": {"duration":   0.0003, "percentage":   0.0}, "wall": {"duration":   0.0003, "percentage":   0.0}, "name": "CSEPass", "passes": [
    {"user": {"duration":   0.0000, "percentage":   0.0}, "wall": {"duration":   0.0000, "percentage":   0.0}, "name": "(A) DominanceInfo", "passes": [
    {}]},
  {}]},
  {"user": {"duration":   0.0500, "percentage":   0.0}, "wall": {"duration":   0.0500, "percentage":   0.0}, "name": "'util.func' Pipeline", "passes": [
  {}]},
{}]},
{"user": {"duration":  -0.6501, "percentage": -14.7}, "wall": {"duration":  -1.3719, "percentage": -92.7}, "name": "Rest"},
{"user": {"duration":   4.4320, "percentage": 100.0}, "wall": {"duration":   1.4798, "percentage": 100.0}, "name": "Total"}
]
"#;

    #[test]
    fn timers_are_summed_by_name_outermost_only() {
        let timers = Timers::parse(REPORT).unwrap();
        assert_eq!(timers.total_wall_seconds, Some(1.4798));
        let find = |name: &str| timers.names.iter().find(|t| t.name == name).unwrap();
        let canonicalizer = find("CanonicalizerPass");
        assert_eq!(canonicalizer.timers, 2);
        assert!((canonicalizer.wall_seconds - 0.0022).abs() < 1e-9);
        assert_eq!(canonicalizer.kind, TimerKind::Pass);
        // The pipeline inside a pipeline of its own name is not counted twice.
        let pipeline = find("'util.func' Pipeline");
        assert_eq!((pipeline.timers, pipeline.wall_seconds), (2, 0.0878));
        // Its threads' time together, MLIR's `user` column.
        assert_eq!(pipeline.user_seconds, 0.1576);
        assert_eq!(pipeline.kind, TimerKind::Pipeline);
        assert_eq!(find("(A) DominanceInfo").kind, TimerKind::Analysis);
        assert!(
            timers
                .names
                .iter()
                .all(|t| t.name != "Rest" && t.name != "Total")
        );
        assert_eq!(timers.names.len(), 5);
    }

    #[test]
    fn other_json_is_refused() {
        assert!(Timers::parse("[]").unwrap_err().contains("Total"));
        assert!(Timers::parse("{\"a\": 1}").is_err());
        assert!(Timers::parse("[\n{\"name\": \"X\"").is_err());
    }

    #[test]
    fn timing_flags_go_after_the_program_once() {
        let command = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        let added = with_timing_flags(&command(&["/v/iree-compile", "m.mlir", "--", "x"])).unwrap();
        assert_eq!(
            added,
            command(&[
                "/v/iree-compile",
                "--mlir-timing",
                "--mlir-timing-display=tree",
                "--mlir-output-format=json",
                "m.mlir",
                "--",
                "x"
            ])
        );
        let given = command(&["iree-compile", "--mlir-timing", "m.mlir"]);
        assert_eq!(with_timing_flags(&given).unwrap().len(), 5);
        let list = command(&["iree-compile", "--mlir-timing-display=list"]);
        assert!(
            with_timing_flags(&list)
                .unwrap_err()
                .contains("display=tree")
        );
        assert!(
            with_timing_flags(&command(&["python3", "x.py"]))
                .unwrap_err()
                .contains("not iree-compile")
        );
    }

    #[test]
    fn report_lines_are_the_bracketed_block() {
        let stderr = "warning: x\n[\n{\"name\": \"A\", \"passes\": [\n  {}]},\n]\nlater\n";
        let mut lines = ReportLines::default();
        let taken: Vec<&str> = stderr
            .split_inclusive('\n')
            .filter(|line| lines.take(line.as_bytes()))
            .collect();
        assert_eq!(
            taken.concat(),
            "[\n{\"name\": \"A\", \"passes\": [\n  {}]},\n]\n"
        );
    }
}
