//! MLIR passes on stacks: which frames run a pass, the pass's readable name,
//! and the phase of the IREE compile it belongs to.
//!
//! A pass frame is `<Pass>::runOnOperation()` (or IREE's pipeline adaptor's
//! `runOnOperationSync/Async()`) called under the pass manager
//! (`mlir::detail::OpToOpPassAdaptor`). Nested pipelines give nested pass
//! frames; the innermost is the sample's own pass. Samples outside every pass
//! fall into explicit places (parsing the input, serialization and output,
//! the Python launcher, startup and teardown, the pass manager,
//! thread-pool tasks, other), decided
//! by the categories on their stack and the thread they ran on. Stacks are
//! cut above LLVM's thread-pool task runner: a thread that waits for its
//! parallel work runs unrelated queued tasks on top of its own stack.

use hashbrown::HashMap;

use crate::profile::Profile;
use crate::symbolize::SymbolId;
use category_rules::{CategoryId, RuleTable};

/// The methods that run a pass: `runOnOperation()`, and IREE's pipeline
/// adaptor's synchronous and asynchronous variants, which its
/// `runOnOperation()` hands over to.
const RUN_METHODS: [&str; 3] = [
    "::runOnOperation()",
    "::runOnOperationSync()",
    "::runOnOperationAsync()",
];
/// Frames of the pass manager running passes and nested pipelines.
const ADAPTOR: &str = "mlir::detail::OpToOpPassAdaptor::";
/// The frame from which LLVM's thread pool runs a queued task.
const TASK_RUNNER: &str = "llvm::StdThreadPool::processTasks(";

crate::index::index_type! {
    /// Index of a pass name.
    pub(crate) struct PassId(u16);
}

/// Where a sample outside every pass belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum OutsidePass {
    ParsingInput,
    SerializationAndOutput,
    /// The Python launcher, and any process that is not the compiler.
    Python,
    /// The compiler's start (the dynamic loader, static initialisers) and
    /// end (teardown at exit).
    StartupAndTeardown,
    /// The linker, `iree-lld`: a child process of the compiler that links
    /// each executable's object file.
    Linker,
    /// The pass manager's own work between passes, above all verifying the
    /// IR after each pass.
    PassManager,
    /// Thread-pool tasks (parallel verification, parallel pattern runs…)
    /// whose stacks do not show the pass that queued them.
    PoolTasks,
    Other,
}

impl OutsidePass {
    pub(crate) fn name(self) -> &'static str {
        match self {
            OutsidePass::ParsingInput => "(parsing the input)",
            OutsidePass::SerializationAndOutput => "(serialization and output)",
            OutsidePass::Python => "(Python launcher and other programs)",
            OutsidePass::StartupAndTeardown => "(startup and teardown)",
            OutsidePass::Linker => "(linker: iree-lld)",
            OutsidePass::PassManager => "(pass manager: verification, between passes)",
            OutsidePass::PoolTasks => "(thread-pool tasks)",
            OutsidePass::Other => "(outside passes, other)",
        }
    }
}

/// The stage of an IREE compile, for the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Phase {
    Input,
    Flow,
    Stream,
    Hal,
    Codegen,
    Vm,
    Output,
}

impl Phase {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Phase::Input => "input",
            Phase::Flow => "flow",
            Phase::Stream => "stream",
            Phase::Hal => "HAL",
            Phase::Codegen => "codegen",
            Phase::Vm => "VM",
            Phase::Output => "output",
        }
    }
}

/// What one symbol is to the pass manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Plain,
    Adaptor,
    Pass(PassId),
    /// Runs thread-pool tasks: what is above it is a task, what is below a
    /// thread that may only be waiting for something else.
    TaskRunner,
}

/// The passes of a profile.
pub(crate) struct Passes {
    roles: Vec<Role>,
    names: Vec<String>,
    phases: Vec<Option<Phase>>,
}

impl Passes {
    /// Finds the pass frames among the profile's symbols.
    pub(crate) fn find(profile: &Profile) -> Passes {
        let mut ids: HashMap<String, PassId> = HashMap::new();
        let mut names = Vec::new();
        let mut phases = Vec::new();
        let roles = profile
            .symbols
            .symbols
            .iter()
            .map(|symbol| {
                if symbol.name.starts_with(ADAPTOR) {
                    return Role::Adaptor;
                }
                if symbol.name.starts_with(TASK_RUNNER) {
                    return Role::TaskRunner;
                }
                let Some(class) = pass_class(&symbol.name) else {
                    return Role::Plain;
                };
                let id = *ids.entry(class.to_owned()).or_insert_with(|| {
                    names.push(class.to_owned());
                    phases.push(phase_of(&symbol.name));
                    PassId::new(names.len() - 1)
                });
                Role::Pass(id)
            })
            .collect();
        Passes {
            roles,
            names,
            phases,
        }
    }

    pub(crate) fn name(&self, id: PassId) -> &str {
        &self.names[id.index()]
    }

    /// The pass with this name.
    pub(crate) fn find_name(&self, name: &str) -> Option<PassId> {
        self.names
            .iter()
            .position(|known| known == name)
            .or_else(|| {
                self.names
                    .iter()
                    .position(|known| known.eq_ignore_ascii_case(name))
            })
            .map(PassId::new)
    }

    /// The pass a symbol runs, if it is a pass frame.
    pub(crate) fn pass_of(&self, symbol: SymbolId) -> Option<PassId> {
        match self.roles[symbol.index()] {
            Role::Pass(id) => Some(id),
            _ => None,
        }
    }

    /// Every pass name, in id order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The passes on a stack given leaf first, outermost first, each once.
    /// A pass frame counts only under a pass-manager frame.
    pub(crate) fn on_stack(&self, leaf_first: &[SymbolId], into: &mut Vec<PassId>) {
        into.clear();
        let mut managed = false;
        for symbol in leaf_first.iter().rev() {
            match self.roles[symbol.index()] {
                Role::Adaptor => managed = true,
                Role::Pass(id) if managed && !into.contains(&id) => into.push(id),
                _ => {}
            }
        }
    }

    /// The pass frames on a stack given leaf first, outermost first, as they
    /// nest: a pass inside itself (a nested pipeline inside a pipeline
    /// adaptor) is there twice; the frames of one run of a pass (its
    /// `runOnOperation()` calling its `runOnOperationAsync()`) once. A pass
    /// frame counts only under a pass-manager frame.
    pub(crate) fn nesting(&self, leaf_first: &[SymbolId], into: &mut Vec<PassId>) {
        into.clear();
        let mut managed = false;
        let mut since_pass = false;
        for symbol in leaf_first.iter().rev() {
            match self.roles[symbol.index()] {
                Role::Adaptor => {
                    managed = true;
                    since_pass = true;
                }
                Role::Pass(id) if managed && (since_pass || into.last() != Some(&id)) => {
                    into.push(id);
                    since_pass = false;
                }
                _ => {}
            }
        }
    }

    /// Where a stack given leaf first is cut for attribution: just outward of
    /// the innermost thread-pool task runner. A thread waiting for its own
    /// parallel work runs other, unrelated tasks on top of its stack; the
    /// frames below the runner did not cause them. `None` when no task runs.
    pub(crate) fn task_cut(&self, leaf_first: &[SymbolId]) -> Option<usize> {
        leaf_first
            .iter()
            .position(|symbol| self.roles[symbol.index()] == Role::TaskRunner)
            .map(|runner| runner + 1)
    }

    /// True when the pass manager is on a stack given leaf first.
    pub(crate) fn managed(&self, leaf_first: &[SymbolId]) -> bool {
        leaf_first
            .iter()
            .any(|symbol| self.roles[symbol.index()] == Role::Adaptor)
    }

    /// The phase of a stack's passes: the innermost pass with a known phase.
    pub(crate) fn phase(&self, passes_outermost_first: &[PassId]) -> Option<Phase> {
        passes_outermost_first
            .iter()
            .rev()
            .find_map(|id| self.phases[id.index()])
    }
}

/// Where a sample outside every pass ran.
pub(super) struct Outside {
    pub in_compiler: bool,
    /// It ran in the linker, `iree-lld`.
    pub in_linker: bool,
    /// It ran a thread-pool task, or on a thread other than the main one.
    pub in_task: bool,
    /// The pass manager is on the stack.
    pub managed: bool,
}

/// The place of a sample outside every pass, from its stack's categories
/// and where it ran.
pub(super) fn outside_pass(
    table: &RuleTable,
    categories: &[CategoryId],
    leaf_first: &[SymbolId],
    outside: Outside,
) -> OutsidePass {
    let has = |ids: &[&str]| {
        leaf_first.iter().any(|symbol| {
            let id = &table.category(categories[symbol.index()]).id;
            ids.contains(&id.as_str())
        })
    };
    if outside.in_linker {
        OutsidePass::Linker
    } else if !outside.in_compiler || has(&["python"]) {
        OutsidePass::Python
    } else if has(&["startup"]) {
        OutsidePass::StartupAndTeardown
    } else if outside.managed {
        OutsidePass::PassManager
    } else if has(&["lexer", "parser"]) {
        OutsidePass::ParsingInput
    } else if has(&["serialization"]) {
        OutsidePass::SerializationAndOutput
    } else if outside.in_task {
        OutsidePass::PoolTasks
    } else {
        OutsidePass::Other
    }
}

/// The pass class of a `…::Class::runOnOperation()` frame, without
/// namespaces or template arguments; `None` for other frames.
fn pass_class(function: &str) -> Option<&str> {
    let qualified = RUN_METHODS
        .iter()
        .find_map(|method| function.strip_suffix(method))?;
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = qualified.as_bytes();
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b':' if depth == 0 && bytes.get(at + 1) == Some(&b':') => start = at + 2,
            _ => {}
        }
    }
    let class = &qualified[start..];
    let class = class.split('<').next().unwrap_or(class);
    let adaptor = class == "OpToOpPassAdaptor" || class.is_empty();
    (!adaptor && class.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(class)
}

/// The compile phase a pass belongs to, from its namespace.
fn phase_of(function: &str) -> Option<Phase> {
    let has = |needle: &str| function.contains(needle);
    if has("IREE::HAL::") {
        if has("TranslateTargetExecutableVariants")
            || has("TranslateAllExecutables")
            || has("SerializeTargetExecutables")
            || has("SerializeAllExecutables")
        {
            Some(Phase::Codegen)
        } else {
            Some(Phase::Hal)
        }
    } else if has("IREE::Stream::") {
        Some(Phase::Stream)
    } else if has("IREE::Flow::")
        || has("DispatchCreation::")
        || has("GlobalOptimization::")
        || has("InputConversion")
        || has("Preprocessing::")
    {
        Some(Phase::Flow)
    } else if has("IREE::VM::") {
        Some(Phase::Vm)
    } else if has("LLVMCPU") || has("Codegen") || has("Bufferize") {
        Some(Phase::Codegen)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_classes_lose_namespaces_and_template_arguments() {
        let cases = [
            (
                "mlir::iree_compiler::IREE::Util::(anonymous namespace)::ApplyPatternsPass::runOnOperation()",
                Some("ApplyPatternsPass"),
            ),
            (
                "(anonymous namespace)::Canonicalizer::runOnOperation()",
                Some("Canonicalizer"),
            ),
            (
                "mlir::iree_compiler::GenericPass<mlir::func::FuncOp>::runOnOperation()",
                Some("GenericPass"),
            ),
            ("mlir::detail::OpToOpPassAdaptor::runOnOperation()", None),
            (
                "mlir::detail::OpToOpPassAdaptor::run(mlir::Pass*, mlir::Operation*, mlir::AnalysisManager, bool, unsigned int)",
                None,
            ),
            ("llvm::FPPassManager::runOnFunction(llvm::Function&)", None),
            (
                "mlir::iree_compiler::detail::OpPipelineAdaptorPass::runOnOperationAsync()",
                Some("OpPipelineAdaptorPass"),
            ),
        ];
        for (function, class) in cases {
            assert_eq!(pass_class(function), class, "{function}");
        }
    }

    #[test]
    fn nesting_keeps_a_pass_inside_itself_and_one_run_once() {
        // Symbols 0..5: main, the adaptor, pass 0's runOnOperation and
        // runOnOperationAsync, pass 1, a leaf.
        let passes = Passes {
            roles: vec![
                Role::Plain,
                Role::Adaptor,
                Role::Pass(PassId::new(0)),
                Role::Pass(PassId::new(0)),
                Role::Pass(PassId::new(1)),
                Role::Plain,
            ],
            names: vec!["OpPipelineAdaptorPass".to_owned(), "Inner".to_owned()],
            phases: vec![None, None],
        };
        let root_first = [0, 1, 2, 3, 1, 4, 1, 2, 3, 1, 4, 5];
        let leaf_first: Vec<SymbolId> = root_first
            .iter()
            .rev()
            .map(|&at| SymbolId::new(at))
            .collect();
        let (mut nesting, mut on_stack) = (Vec::new(), Vec::new());
        passes.nesting(&leaf_first, &mut nesting);
        passes.on_stack(&leaf_first, &mut on_stack);
        let ids = |ids: &[usize]| ids.iter().map(|&at| PassId::new(at)).collect::<Vec<_>>();
        assert_eq!(nesting, ids(&[0, 1, 0, 1]));
        assert_eq!(on_stack, ids(&[0, 1]));
        // Outside the pass manager a pass frame does not count.
        passes.nesting(
            &[SymbolId::new(5), SymbolId::new(2), SymbolId::new(0)],
            &mut nesting,
        );
        assert!(nesting.is_empty());
    }

    #[test]
    fn phases_follow_iree_namespaces() {
        assert_eq!(
            phase_of(
                "mlir::iree_compiler::IREE::Stream::(anonymous namespace)::ScheduleExecutionPass::runOnOperation()"
            ),
            Some(Phase::Stream)
        );
        assert_eq!(
            phase_of(
                "mlir::iree_compiler::IREE::HAL::(anonymous namespace)::SerializeTargetExecutablesPass::runOnOperation()"
            ),
            Some(Phase::Codegen)
        );
        assert_eq!(
            phase_of(
                "mlir::iree_compiler::IREE::HAL::(anonymous namespace)::MaterializeResourceCachesPass::runOnOperation()"
            ),
            Some(Phase::Hal)
        );
        assert_eq!(
            phase_of("(anonymous namespace)::Canonicalizer::runOnOperation()"),
            None
        );
    }
}
