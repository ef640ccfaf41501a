//! MLIR's pass timers (`mlir-timing.json`) joined with the passes on the
//! stacks: which timer is which pass, and the timers no stack shows.
//!
//! Timers are named by the pass's `getName()`, stacks by the class whose
//! `runOnOperation()` runs. A timer is a stack pass's when the binary
//! declares it so (the class derives from the tablegen'd
//! `impl::<timer>Base<class>`, see `symbolize/pass_names.rs`); failing
//! that, when its name is the class's name (`ApplyPatternsPass`), or ends
//! in `::` and the class's name
//! (`mlir::iree_compiler::detail::OpPipelineAdaptorPass`), or, failing
//! both, is the class's name and `Pass` (`CanonicalizerPass` of the class
//! `Canonicalizer`). Pipelines (`'func.func' Pipeline`) and
//! analyses (`(A) DominanceInfo`) have no frame of their own on the stacks:
//! a nested pipeline runs under the pass manager's adaptor frames, which do
//! not say which op it runs on.

use hashbrown::HashMap;

use super::pass::PassId;
use crate::mlir_timing::{TimerKind, TimerTotal, Timers};

/// A pass's timer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PassTimer {
    /// The timer's name, as MLIR prints it.
    pub name: String,
    pub wall_seconds: f64,
    /// MLIR's `user` seconds: the time on every thread, added up.
    pub user_seconds: f64,
    /// How many timers of that name the tree has.
    pub timers: u32,
}

/// The timers joined with the stacks' passes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TimerJoin {
    /// The timer of each stack pass that has one.
    pub passes: HashMap<PassId, PassTimer>,
    /// Timers of no pass on the stacks: passes no sample ran in, pipelines
    /// and analyses, by wall seconds.
    pub timer_only: Vec<TimerTotal>,
    /// The pass manager's wall time (the `Total` timer).
    pub total_wall_seconds: Option<f64>,
}

/// How a timer name is matched with a class, in order.
#[derive(Clone, Copy)]
enum Rule {
    /// The binary declares the class's timer name.
    Declared,
    /// The same name, or the timer's name after its last `::`.
    SameName,
    /// The class's name with `Pass` added.
    PassAdded,
}

/// Joins `timers` with the passes named `pass_names` (indexed by [`PassId`]);
/// `declared` holds `(class, timer name)` pairs the binaries declare.
pub(crate) fn join(
    pass_names: &[String],
    declared: &[(String, String)],
    timers: &Timers,
) -> TimerJoin {
    let index: HashMap<&str, PassId> = pass_names
        .iter()
        .enumerate()
        .map(|(at, name)| (name.as_str(), PassId::new(at)))
        .collect();
    let mut passes: HashMap<PassId, PassTimer> = HashMap::new();
    let mut matched = vec![false; timers.names.len()];
    // The timer name a binary declares for a class, by timer name.
    let declared_class: HashMap<&str, &str> = declared
        .iter()
        .filter(|(class, _)| index.contains_key(class.as_str()))
        .map(|(class, timer)| (timer.as_str(), class.as_str()))
        .collect();
    // Each rule for every timer before the next rule, so that a class
    // named like a timer is never taken by another timer with `Pass` added.
    let pass_by = |rule: Rule, name: &str| -> Option<PassId> {
        let class = match rule {
            Rule::Declared => declared_class.get(name).copied(),
            Rule::SameName => name.rsplit("::").next(),
            Rule::PassAdded => name.strip_suffix("Pass"),
        }?;
        index.get(class).copied()
    };
    for rule in [Rule::Declared, Rule::SameName, Rule::PassAdded] {
        for (timer, done) in timers.names.iter().zip(&mut matched) {
            if *done || timer.kind != TimerKind::Pass {
                continue;
            }
            let Some(pass) = pass_by(rule, &timer.name) else {
                continue;
            };
            if passes.contains_key(&pass) {
                continue;
            }
            passes.insert(
                pass,
                PassTimer {
                    name: timer.name.clone(),
                    wall_seconds: timer.wall_seconds,
                    user_seconds: timer.user_seconds,
                    timers: timer.timers,
                },
            );
            *done = true;
        }
    }
    let mut timer_only: Vec<TimerTotal> = timers
        .names
        .iter()
        .zip(&matched)
        .filter(|(_, done)| !**done)
        .map(|(timer, _)| timer.clone())
        .collect();
    timer_only.sort_by(|a, b| {
        b.wall_seconds
            .total_cmp(&a.wall_seconds)
            .then_with(|| a.name.cmp(&b.name))
    });
    TimerJoin {
        passes,
        timer_only,
        total_wall_seconds: timers.total_wall_seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer(name: &str, kind: TimerKind, wall_seconds: f64) -> TimerTotal {
        TimerTotal {
            name: name.to_owned(),
            kind,
            wall_seconds,
            user_seconds: wall_seconds,
            timers: 1,
        }
    }

    #[test]
    fn timers_find_their_classes_and_the_rest_is_listed() {
        let names: Vec<String> = [
            "Canonicalizer",
            "ApplyPatternsPass",
            "OpPipelineAdaptorPass",
            "NoTimer",
        ]
        .map(str::to_owned)
        .to_vec();
        let timers = Timers {
            names: vec![
                timer("CanonicalizerPass", TimerKind::Pass, 0.5),
                timer("ApplyPatternsPass", TimerKind::Pass, 0.25),
                timer(
                    "mlir::iree_compiler::detail::OpPipelineAdaptorPass",
                    TimerKind::Pass,
                    0.125,
                ),
                timer("'func.func' Pipeline", TimerKind::Pipeline, 2.0),
                timer("CSEPass", TimerKind::Pass, 0.1),
                timer("(A) DominanceInfo", TimerKind::Analysis, 0.0),
            ],
            total_wall_seconds: Some(3.0),
        };
        let joined = join(&names, &[], &timers);
        let wall = |at: usize| joined.passes.get(&PassId::new(at)).map(|t| t.wall_seconds);
        assert_eq!(wall(0), Some(0.5));
        assert_eq!(wall(1), Some(0.25));
        assert_eq!(wall(2), Some(0.125));
        assert_eq!(wall(3), None);
        let only: Vec<&str> = joined.timer_only.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            only,
            ["'func.func' Pipeline", "CSEPass", "(A) DominanceInfo"]
        );
    }

    #[test]
    fn an_exact_name_wins_over_one_with_pass_added() {
        let names = vec!["Foo".to_owned()];
        let timers = Timers {
            names: vec![
                timer("FooPass", TimerKind::Pass, 1.0),
                timer("Foo", TimerKind::Pass, 2.0),
            ],
            total_wall_seconds: None,
        };
        let joined = join(&names, &[], &timers);
        assert_eq!(joined.passes[&PassId::new(0)].name, "Foo");
        assert_eq!(joined.timer_only.len(), 1);
        assert_eq!(joined.timer_only[0].name, "FooPass");
    }

    #[test]
    fn a_declared_name_comes_first() {
        let names = vec!["LowerToLoops".to_owned(), "Foo".to_owned()];
        let declared = [
            (
                "LowerToLoops".to_owned(),
                "ConvertLinalgToLoopsPass".to_owned(),
            ),
            ("Foo".to_owned(), "BarPass".to_owned()),
            ("NotOnStacks".to_owned(), "FooPass".to_owned()),
        ];
        let timers = Timers {
            names: vec![
                timer("ConvertLinalgToLoopsPass", TimerKind::Pass, 1.0),
                timer("FooPass", TimerKind::Pass, 2.0),
                timer("BarPass", TimerKind::Pass, 3.0),
            ],
            total_wall_seconds: None,
        };
        let joined = join(&names, &declared, &timers);
        assert_eq!(
            joined.passes[&PassId::new(0)].name,
            "ConvertLinalgToLoopsPass"
        );
        assert_eq!(joined.passes[&PassId::new(1)].name, "BarPass");
        assert_eq!(joined.timer_only.len(), 1);
        assert_eq!(joined.timer_only[0].name, "FooPass");
    }
}
