//! The report's JSON read back through the types it is written with: every
//! section filled, written and read, equals what was written.

use super::super::findings::{Evidence, FindingJson, OwnerJson};
use super::*;
use crate::artifact::{Artifact, ArtifactRole, Member, MemberKind};
use crate::attribute::consteval_heap::ConstEvalAtPeak;
use crate::attribute::heap::example_peak;
use crate::consteval::{ConstEval, ConstGlobal};
use crate::executable_sources::Likeness;
use crate::report::memory::{MemoryJson, MemoryRow};
use crate::report::timeline_json::UtilizationJson;
use crate::report::top::UnwindJson;
use crate::run_dir::{InstrumentKindFacts, InstrumentationFacts, RunJson};

fn owner(name: &str, samples: u64) -> OwnerJson {
    OwnerJson {
        name: name.to_owned(),
        samples,
    }
}

fn finding(kind: &'static str, evidence: Evidence) -> FindingJson {
    FindingJson {
        kind: kind.into(),
        seconds: Some(1.5),
        text: format!("{kind}: it"),
        command: "compile-perf report run --by pass".to_owned(),
        evidence,
    }
}

/// One finding of each kind of evidence (the evidence is untagged: each
/// must read back as itself).
fn findings() -> Vec<FindingJson> {
    vec![
        finding(
            "serialized",
            Evidence::Serialized {
                start_seconds: 0.25,
                end_seconds: 2.5,
                wall_percent: 40.0,
                place: "parse input".to_owned(),
                place_percent: 75.5,
                phase: Some("HAL".into()),
                busy_threads: 1.125,
                cpus: 8,
                saving_at_most_seconds: 1.75,
            },
        ),
        finding(
            "duplicated",
            Evidence::Duplicated {
                samples: 120,
                percent: 6.25,
                passes: vec![owner("CanonicalizerPass", 80), owner("CSE", 40)],
            },
        ),
        finding(
            "duplicated",
            Evidence::DuplicatedExecutables {
                likeness: Likeness::ButForConstants,
                executables: vec!["main_dispatch_0".to_owned(), "main_dispatch_1".to_owned()],
                sources: vec!["sources/module_main_dispatch_0.mlir".to_owned()],
                unit_samples: Some(vec![30, 20]),
                repeated_samples: Some(20),
            },
        ),
        finding(
            "hot_spot",
            Evidence::HotSpot {
                within: "category".into(),
                scope: "llvm".to_owned(),
                scope_samples: 500,
                functions: vec![owner("llvm::SelectionDAG::Combine", 90)],
                samples: 90,
                percent: 4.5,
                place: owner("TranslateTargetExecutableVariantsPass", 85),
            },
        ),
        finding(
            "papercuts",
            Evidence::Papercuts {
                category: "mlir-verify".to_owned(),
                category_name: "MLIR verifier".to_owned(),
                samples: 64,
                percent: 3.25,
                pass_count: 12,
                largest_passes: vec![owner("CSE", 10)],
            },
        ),
    ]
}

fn category(name: &str, self_percent: f64) -> CategoryJson {
    CategoryJson {
        id: name.to_lowercase(),
        name: name.to_owned(),
        color: "#4477aa".to_owned(),
        description: format!("{name}'s code"),
        self_samples: 1000,
        self_percent,
        inclusive_samples: 1200,
        inclusive_percent: 60.0,
        top_symbols: vec![SymbolJson {
            symbol: "llvm::foo()".to_owned(),
            self_samples: 100,
        }],
    }
}

fn pass() -> PassJson {
    PassJson {
        name: "JitGlobalsPass > CanonicalizerPass".to_owned(),
        self_samples: 300,
        self_percent: 15.0,
        inclusive_samples: 400,
        inclusive_percent: 20.0,
        inclusive_percent_of_pass_manager: 25.0,
        credited_samples: 10,
        credited_inclusive_samples: 12,
        categories: vec![PassCategoryJson {
            id: "mlir-rewrite".to_owned(),
            self_samples: 200,
            self_percent: 10.0,
        }],
        cpu_seconds: Some(0.5),
        timer_wall_seconds: Some(0.25),
        timer_user_seconds: Some(0.5),
        timer_runs: Some(3),
        timer_name: Some("Canonicalizer".to_owned()),
        cpu_per_wall: Some(2.0),
        cpu_per_user: Some(1.0),
        timer_cpu_seconds: Some(0.5),
        nested_in: Some("JitGlobalsPass".to_owned()),
        rss_start_bytes: Some(1 << 20),
        rss_growth_bytes: Some(-4096),
        anon_growth_bytes: Some(8192),
        file_growth_bytes: Some(-12288),
        rss_max_bytes: Some(2 << 20),
        anon_max_bytes: Some(1 << 19),
    }
}

fn memory_peak(pass: &str) -> MemoryPeakJson {
    MemoryPeakJson {
        bytes: 3 << 20,
        anon_bytes: 2 << 20,
        file_bytes: 1 << 20,
        seconds: 1.25,
        pass: pass.to_owned(),
        phase: Some("codegen".into()),
    }
}

fn run() -> RunJson {
    RunJson {
        finished: true,
        command: vec!["iree-compile".to_owned(), "m.mlir".to_owned()],
        start_time: "2026-12-07T10:00:00Z".to_owned(),
        command_wall_seconds: Some(2.5),
        peak_rss_bytes: Some(64 << 20),
        artifacts: vec![Artifact {
            path: "/runs/m.vmfb".to_owned(),
            bytes: 4096,
            sha256: None,
            role: ArtifactRole::Output,
            entries: Some(vec![
                Member {
                    name: "module.fb".to_owned(),
                    bytes: 1024,
                    kind: MemberKind::Module,
                },
                Member {
                    name: "main_dispatch_0_embedded_elf_x86_64.so".to_owned(),
                    bytes: 2048,
                    kind: MemberKind::Executable,
                },
            ]),
            note: None,
        }],
        ..RunJson::default()
    }
}

/// A report with every optional section present.
fn full_report() -> ReportJson {
    let run = run();
    let mut heap_peak = example_peak(1 << 20, 1 << 10, &[("CSE", 1 << 19)]);
    heap_peak.consteval = Some(ConstEvalAtPeak {
        live_bytes: 4096,
        percent_of_live: 0.5,
        globals_alive: vec!["@hoisted".to_owned()],
        alive_bytes: 4096,
        globals: 2,
        global_bytes: 8192,
    });
    ReportJson {
        command: "iree-compile m.mlir".to_owned(),
        event: "cpu-clock".to_owned(),
        samples: 2000,
        lost_samples: 3,
        instrumentation: Some(InstrumentationFacts {
            samples: 10,
            percent_of_samples: 0.5,
            cpu_seconds: Some(0.125),
            counted: false,
            kinds: vec![InstrumentKindFacts {
                kind: "probes".to_owned(),
                what: "perf's uprobes".to_owned(),
                samples: 10,
            }],
        }),
        duration_seconds: 2.5,
        unwind: UnwindJson {
            complete: 1990,
            truncated: 10,
        },
        by: "pass".into(),
        attribution: "leaf".into(),
        categories: vec![category("LLVM", 50.0)],
        passes: vec![pass()],
        in_pass_manager_samples: Some(1600),
        credited_samples: Some(50),
        actions: Some(ActionsJson {
            intervals: 5000,
            threads: 4,
            units_named: true,
            origin_ns: 123_456_789,
            agreement_percent: 99.5,
            agreement_samples: 1500,
            agreeing_samples: 1492,
        }),
        findings: findings(),
        utilization: Some(UtilizationJson {
            mean_busy_threads: 1.5,
            serial_percent: 62.5,
            cpus: Some(8),
        }),
        memory_peak: Some(memory_peak("CSE")),
        anon_memory_peak: Some(memory_peak("parse input")),
        first_touch: Some(MemoryJson {
            event: "page-faults".to_owned(),
            period: 1,
            page_size: 4096,
            samples: 10,
            lost_samples: 0,
            bytes: 40960,
            peak_rss_bytes: Some(64 << 20),
            attribution: "caller".into(),
            categories: vec![MemoryRow {
                name: "llvm".to_owned(),
                bytes: 40960,
                percent: 100.0,
            }],
            passes: Vec::new(),
        }),
        heap_peak: Some(heap_peak),
        rows: vec![RowJson {
            key: "parse input".to_owned(),
            top_pass: Some("CSE".to_owned()),
            self_samples: 40,
            credited_samples: Some(4),
            self_percent: 2.0,
            inclusive_samples: 40,
            inclusive_percent: 2.0,
            top: vec![DetailJson {
                name: "mlir::parse".to_owned(),
                self_samples: 30,
            }],
        }],
        timer_only: Some(vec![TimerOnlyJson {
            name: "(A) DominanceInfo".to_owned(),
            kind: TimerKind::Analysis,
            timer_wall_seconds: 0.0625,
            timer_user_seconds: 0.125,
            timers: 7,
        }]),
        mlir_timing_total_wall_seconds: Some(2.25),
        artifacts: artifacts::to_json(&run.artifacts),
        run: Some(run),
        notices: vec!["the compile was mostly off the CPU".to_owned()],
        consteval: Some(ConstEval {
            globals: vec![ConstGlobal {
                name: "@hoisted".to_owned(),
                function: "jit_eval_0".to_owned(),
                ty: "tensor<4xf32>".to_owned(),
                bytes: Some(16),
                inputs: Vec::new(),
                ops: vec!["transpose".to_owned()],
                inputs_kept: false,
                added_bytes: Some(16),
            }],
            added_bytes: 16,
            global_bytes: 16,
        }),
    }
}

#[test]
fn a_report_written_as_json_reads_back_as_the_same_report() {
    let report = full_report();
    assert!(!report.artifacts.is_empty());
    let written = serde_json::to_string_pretty(&report).unwrap();
    let read: ReportJson = serde_json::from_str(&written).unwrap();
    assert_eq!(read, report);
    assert_eq!(serde_json::to_string_pretty(&read).unwrap(), written);
}

#[test]
fn a_report_without_its_optional_sections_reads_back_too() {
    let report = ReportJson {
        by: "category".into(),
        instrumentation: None,
        passes: Vec::new(),
        in_pass_manager_samples: None,
        credited_samples: None,
        actions: None,
        findings: Vec::new(),
        utilization: None,
        run: None,
        notices: Vec::new(),
        memory_peak: None,
        anon_memory_peak: None,
        first_touch: None,
        heap_peak: None,
        rows: Vec::new(),
        timer_only: None,
        mlir_timing_total_wall_seconds: None,
        artifacts: Vec::new(),
        consteval: None,
        ..full_report()
    };
    let written = serde_json::to_string(&report).unwrap();
    assert!(!written.contains("\"rows\""), "{written}");
    let read: ReportJson = serde_json::from_str(&written).unwrap();
    assert_eq!(read, report);
}

#[test]
fn a_report_headline_names_the_samples_and_the_largest_categories() {
    let mut report = full_report();
    report.lost_samples = 0;
    report.categories = vec![category("LLVM", 41.26), category("MLIR", 20.0)];
    assert_eq!(
        report.headline(),
        "2000 samples; event cpu-clock; top categories: LLVM 41.3%, MLIR 20.0%"
    );
    report.lost_samples = 7;
    report.categories.clear();
    assert_eq!(report.headline(), "2000 samples; 7 lost; event cpu-clock");
}
