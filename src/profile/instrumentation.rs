//! The recording's own instrumentation: samples spent in what `record`
//! turned on to see more (MLIR's action profiler and action log, the IR
//! printed around passes, the heap sampler and perf's uprobes), not in
//! compiling. They are found by a frame anywhere on the stack, counted by
//! kind, and set aside from the profile unless `--with-instrumentation`
//! asks to count them, so that no pass or category is charged with them.

use crate::binary::DsoKind;
use crate::stacks::StackId;

use super::Profile;

/// One kind of instrumentation, by the frames that run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Instrument {
    /// `mlir::tracing::ActionProfiler`: writing each action's event
    /// (`record --actions`).
    ActionProfiler,
    /// `mlir::tracing::ActionLogger`: the action log, with the IR unit of
    /// every action printed (`record --actions=units`).
    ActionLog,
    /// MLIR's `IRPrinterInstrumentation`: IR printed before and after passes
    /// (`--mlir-print-ir-*`; `record` prints it around const-eval's
    /// JitGlobalsPass).
    IrPrinting,
    /// The heap sampler's own code in `libheap_sampler.so` (`record
    /// --heap`); its malloc and free wrappers are not counted, as the
    /// allocator's work under them is the compiler's.
    HeapSampler,
    /// The kernel's uprobe traps that perf's probes take (`record --alloc`,
    /// `record --heap`).
    Probes,
}

impl Instrument {
    /// Every kind, in the order reports list them.
    pub(crate) const ALL: [Instrument; 5] = [
        Instrument::ActionProfiler,
        Instrument::ActionLog,
        Instrument::IrPrinting,
        Instrument::HeapSampler,
        Instrument::Probes,
    ];

    /// Its id in JSON.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Instrument::ActionProfiler => "action-profiler",
            Instrument::ActionLog => "action-log",
            Instrument::IrPrinting => "ir-printing",
            Instrument::HeapSampler => "heap-sampler",
            Instrument::Probes => "probes",
        }
    }

    /// What it is, for the report.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Instrument::ActionProfiler => "MLIR's action profiler writing its events (--actions)",
            Instrument::ActionLog => "MLIR's action log (--actions=units)",
            Instrument::IrPrinting => "IR printed around passes (--mlir-print-ir-*)",
            Instrument::HeapSampler => "the heap sampler's hooks (--heap)",
            Instrument::Probes => "uprobe traps of perf's probes (--alloc, --heap)",
        }
    }

    /// The kind a function belongs to, if any: by its name, its binary's
    /// file name and whether it is the kernel's.
    pub(crate) fn of_function(name: &str, dso: &str, kernel: bool) -> Option<Instrument> {
        if kernel {
            let probe = ["uprobe_", "__uprobe_", "arch_uprobe_", "handle_swbp"]
                .iter()
                .any(|prefix| name.starts_with(prefix));
            return probe.then_some(Instrument::Probes);
        }
        if dso == crate::heap::LIBRARY {
            return (!HEAP_WRAPPERS.contains(&name)).then_some(Instrument::HeapSampler);
        }
        if name.contains("mlir::tracing::ActionProfiler::") {
            Some(Instrument::ActionProfiler)
        } else if name.contains("mlir::tracing::ActionLogger::") {
            Some(Instrument::ActionLog)
        } else if name.contains("IRPrinterInstrumentation::") {
            Some(Instrument::IrPrinting)
        } else {
            None
        }
    }
}

/// The allocator's entry points the heap sampler wraps: on the stack of
/// every allocation, so they do not make a sample the sampler's.
const HEAP_WRAPPERS: [&str; 8] = [
    "malloc",
    "calloc",
    "realloc",
    "reallocarray",
    "free",
    "posix_memalign",
    "aligned_alloc",
    "memalign",
];

/// The instrumentation's samples in a profile, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct InstrumentationCost {
    /// Samples per kind, in [`Instrument::ALL`]'s order.
    pub samples: [u64; Instrument::ALL.len()],
    /// True when the samples were left in the profile
    /// (`--with-instrumentation`), each counted in its own category;
    /// false when they were set aside.
    pub counted: bool,
}

impl InstrumentationCost {
    /// All the instrumentation's samples.
    pub(crate) fn total(&self) -> u64 {
        self.samples.iter().sum()
    }

    /// The kinds that have samples, with their counts, most first.
    pub(crate) fn by_kind(&self) -> Vec<(Instrument, u64)> {
        let mut kinds: Vec<(Instrument, u64)> = (Instrument::ALL.iter().copied())
            .zip(self.samples)
            .filter(|&(_, samples)| samples > 0)
            .collect();
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        kinds
    }
}

/// Per stack node, the kind of instrumentation its stack runs in (its
/// outermost instrumented frame's), if any.
pub(crate) struct InstrumentedStacks {
    nodes: Vec<Option<Instrument>>,
}

impl InstrumentedStacks {
    /// Looks at every stack of `profile` once: a node's parent is always
    /// interned before it, so one pass in node order sees each parent first.
    pub(crate) fn find(profile: &Profile) -> InstrumentedStacks {
        let symbols = &profile.symbols.symbols;
        let by_symbol: Vec<Option<Instrument>> = symbols
            .iter()
            .map(|symbol| {
                let dso = profile.store.get(symbol.dso);
                Instrument::of_function(&symbol.name, &dso.name, dso.kind == DsoKind::Kernel)
            })
            .collect();
        let mut nodes: Vec<Option<Instrument>> = Vec::with_capacity(profile.stacks.nodes.len());
        for node in &profile.stacks.nodes {
            let inherited = node.parent.and_then(|parent| nodes[parent.index()]);
            let own = || {
                (profile.symbols.of_frame(node.frame).iter())
                    .find_map(|symbol| by_symbol[symbol.index()])
            };
            nodes.push(inherited.or_else(own));
        }
        InstrumentedStacks { nodes }
    }

    /// The kind of instrumentation `stack` runs in, if any.
    pub(crate) fn of(&self, stack: Option<StackId>) -> Option<Instrument> {
        stack.and_then(|stack| self.nodes[stack.index()])
    }

    /// True when no stack runs in any instrumentation.
    fn is_empty(&self) -> bool {
        self.nodes.iter().all(Option::is_none)
    }
}

/// Counts the instrumentation's samples of `profile` and, unless `count`
/// (`--with-instrumentation`), takes them out of its counts and its
/// timeline. Only a profile of samples has any: an allocation profile's
/// stacks all pass through the probes that weigh them.
pub(crate) fn set_aside(profile: &mut Profile, count: bool) -> Option<InstrumentedStacks> {
    if profile.unit != "samples" {
        return None;
    }
    let stacks = InstrumentedStacks::find(profile);
    if stacks.is_empty() {
        return None;
    }
    let mut cost = InstrumentationCost {
        counted: count,
        ..InstrumentationCost::default()
    };
    for (key, &samples) in &profile.stacks.counts {
        if let Some(kind) = stacks.of(key.stack) {
            cost.samples[kind as usize] += samples;
        }
    }
    if !count {
        (profile.stacks.counts).retain(|key, _| stacks.of(key.stack).is_none());
        (profile.stacks.timeline).retain(|sample| stacks.of(sample.key.stack).is_none());
    }
    profile.instrumentation = cost;
    count.then_some(stacks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_observers_and_the_printer_are_known_by_their_frames() {
        let compiler = "libIREECompiler.so";
        let known = |name| Instrument::of_function(name, compiler, false);
        assert_eq!(
            known(
                "mlir::tracing::ActionProfiler::print(mlir::tracing::ActionActiveStack const*, llvm::StringRef)"
            ),
            Some(Instrument::ActionProfiler)
        );
        assert_eq!(
            known(
                "mlir::tracing::ActionLogger::afterExecute(mlir::tracing::ActionActiveStack const*)"
            ),
            Some(Instrument::ActionLog)
        );
        assert_eq!(
            known(
                "(anonymous namespace)::IRPrinterInstrumentation::runAfterPass(mlir::Pass*, mlir::Operation*)"
            ),
            Some(Instrument::IrPrinting)
        );
        // The context that dispatches actions wraps all the work it runs.
        assert_eq!(
            known(
                "mlir::tracing::ExecutionContext::operator()(llvm::function_ref<void ()>, mlir::tracing::Action const&)"
            ),
            None
        );
        assert_eq!(known("mlir::Operation::print(llvm::raw_ostream&)"), None);
    }

    #[test]
    fn the_heap_samplers_wrappers_are_the_allocators_not_the_samplers() {
        let heap = crate::heap::LIBRARY;
        assert_eq!(
            Instrument::of_function("heap_sampler::freeing", heap, false),
            Some(Instrument::HeapSampler)
        );
        assert_eq!(Instrument::of_function("malloc", heap, false), None);
        assert_eq!(Instrument::of_function("free", heap, false), None);
        assert_eq!(
            Instrument::of_function("uprobe_notify_resume", "[kernel.kallsyms]", true),
            Some(Instrument::Probes)
        );
        assert_eq!(
            Instrument::of_function("clear_page_erms", "[kernel.kallsyms]", true),
            None
        );
    }
}
