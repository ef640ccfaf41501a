//! MLIR passes on stacks: which frames run a pass, the pass's readable name,
//! and the phase of the IREE compile it belongs to.
//!
//! A pass frame is `<Pass>::runOnOperation()` (or IREE's pipeline adaptor's
//! `runOnOperationSync/Async()`) called under the pass manager
//! (`mlir::detail::OpToOpPassAdaptor`). Nested pipelines give nested pass
//! frames; the innermost is the sample's own pass. A pass's
//! `initialize(MLIRContext*)` (where it builds its pattern sets), called by
//! the pass manager's `OpPassManager::initialize` when it starts a
//! pipeline (as IREE's pipeline adaptor does for each clone of its
//! pipelines), is a pass of its own, named after it
//! (`Canonicalizer (initialize)`). The pass manager's verification of a
//! pass's output has a row too (`Canonicalizer (verify)`), which only
//! MLIR's actions can fill: the stacks do not say whose output it is.
//! Samples outside every pass
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
use names::{init_class, pass_class, phase_of, queuing_class};

mod names;
mod nested;

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
/// The pass manager initializing a pipeline's passes: it calls each one's
/// [`INIT_METHOD`].
const PIPELINE_INIT: &str = "mlir::OpPassManager::initialize(";
/// A pass's initialization (its pattern sets built), called by
/// [`PIPELINE_INIT`].
const INIT_METHOD: &str = "::initialize(mlir::MLIRContext*)";
/// What a pass's initialization is named by: its pass's name and this
/// (`Canonicalizer (initialize)`), a row of its own, apart from the pass's
/// runs, which MLIR's pass timers time without it.
const INIT_SUFFIX: &str = " (initialize)";
/// What the pass manager's verification of a pass's output is named by:
/// its pass's name and this (`Canonicalizer (verify)`), a row of its own.
/// The stacks do not say which pass's output is verified; MLIR's actions
/// do (see [`Passes::verification`]).
const VERIFY_SUFFIX: &str = " (verify)";
/// The frame from which LLVM's thread pool runs a queued task.
const TASK_RUNNER: &str = "llvm::StdThreadPool::processTasks(";
/// Passes that compile a module of their own inside the compile: IREE's
/// const-eval JIT, which runs a whole compile pipeline (on the main
/// thread and the thread pool) for the globals it evaluates. The passes
/// under one are its own, named `JitGlobalsPass > ApplyPatternsPass`,
/// apart from the compile's own runs of the same passes, which MLIR's
/// timers time without them.
const NESTED_COMPILERS: [&str; 1] = ["JitGlobalsPass"];
/// Between a nested compiler's name and the name of a pass it runs.
pub(crate) const NESTED_SEPARATOR: &str = " > ";

crate::index::index_type! {
    /// Index of a pass name.
    pub(crate) struct PassId(u16);
}

/// Where a sample outside every pass belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum OutsidePass {
    ParsingInput,
    SerializationAndOutput,
    /// The Python launcher, any process that is not the compiler, and the
    /// Python code around a compile run in-process (`iree.compiler.api`).
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
            OutsidePass::Python => "(Python and other programs)",
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
    /// The pass manager initializing a pipeline's passes.
    Initializer,
    Pass(PassId),
    /// A pass's `initialize(MLIRContext*)`, when the pass manager's
    /// initialization calls it: the pass's initialization, a pass of its
    /// own.
    PassInit(PassId),
    /// Runs thread-pool tasks: what is above it is a task, what is below a
    /// thread that may only be waiting for something else.
    TaskRunner,
    /// Code a pass's run defined (a lambda of its `runOnOperation()`), as a
    /// thread-pool task runs it: the task is that pass's work, queued by
    /// it (IREE's pipeline adaptor running its pipeline on many ops).
    Queued(PassId),
}

/// The passes of a profile.
pub(crate) struct Passes {
    roles: Vec<Role>,
    names: Vec<String>,
    phases: Vec<Option<Phase>>,
    /// The verification row of each pass that runs (`None` for a pass's
    /// initialization and for the verification rows themselves).
    verifications: Vec<Option<PassId>>,
    /// The nested compiler each pass runs under, for the passes of a
    /// nested compiler ([`NESTED_COMPILERS`]): `Owner > Pass`.
    parents: Vec<Option<PassId>>,
    /// `(owner, pass)` → the pass as the owner's.
    nested: HashMap<(PassId, PassId), PassId>,
    /// The nested compilers that run.
    compilers: Vec<PassId>,
    /// A nested compiler's pass → the pass it is (`JitGlobalsPass >
    /// Canonicalizer` → `Canonicalizer`).
    inner: HashMap<PassId, PassId>,
}

impl Passes {
    /// Finds the pass frames among the profile's symbols.
    pub(crate) fn find(profile: &Profile) -> Passes {
        let mut ids: HashMap<String, PassId> = HashMap::new();
        let mut names = Vec::new();
        let mut phases = Vec::new();
        let roles: Vec<Role> = profile
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
                if symbol.name.starts_with(PIPELINE_INIT) {
                    return Role::Initializer;
                }
                let (name, role): (_, fn(PassId) -> Role) = match pass_class(&symbol.name) {
                    Some(class) => (class.to_owned(), Role::Pass),
                    None => match init_class(&symbol.name) {
                        Some(class) => (format!("{class}{INIT_SUFFIX}"), Role::PassInit),
                        None => return Role::Plain,
                    },
                };
                let id = *ids.entry(name.clone()).or_insert_with(|| {
                    names.push(name);
                    phases.push(phase_of(&symbol.name));
                    PassId::new(names.len() - 1)
                });
                role(id)
            })
            .collect();
        let mut runs = vec![false; names.len()];
        for role in &roles {
            if let Role::Pass(id) = role {
                runs[id.index()] = true;
            }
        }
        let roles = (roles.into_iter().zip(&profile.symbols.symbols))
            .map(|(role, symbol)| match role {
                Role::Plain => (queuing_class(&symbol.name))
                    .and_then(|class| ids.get(class))
                    .filter(|id| runs[id.index()])
                    .map_or(Role::Plain, |&id| Role::Queued(id)),
                role => role,
            })
            .collect();
        let mut verifications = vec![None; names.len()];
        for (at, _) in runs.iter().enumerate().filter(|(_, runs)| **runs) {
            names.push(format!("{}{VERIFY_SUFFIX}", names[at]));
            phases.push(phases[at]);
            verifications[at] = Some(PassId::new(names.len() - 1));
        }
        verifications.resize(names.len(), None);
        let mut passes = Passes {
            roles,
            names,
            phases,
            verifications,
            parents: Vec::new(),
            nested: HashMap::new(),
            compilers: Vec::new(),
            inner: HashMap::new(),
        };
        passes.add_nested(&runs);
        passes
    }

    /// The row of the pass manager's verification of `pass`'s output.
    pub(crate) fn verification(&self, pass: PassId) -> Option<PassId> {
        self.verifications[pass.index()]
    }

    /// Whether `pass` is a verification row: no frame of its own.
    pub(crate) fn is_verification(&self, pass: PassId) -> bool {
        self.names[pass.index()].ends_with(VERIFY_SUFFIX)
    }

    /// A row for the verification of the output of a pass no stack shows
    /// (too brief to be sampled), named after `pass` as MLIR's actions name
    /// it (its class, perhaps with its namespaces).
    pub(crate) fn add_verification(&mut self, pass: &str) -> PassId {
        let class = pass.rsplit("::").next().unwrap_or(pass);
        let name = format!("{class}{VERIFY_SUFFIX}");
        if let Some(known) = self.names.iter().position(|known| *known == name) {
            return PassId::new(known);
        }
        self.names.push(name);
        self.phases.push(phase_of(pass));
        self.verifications.push(None);
        self.parents.push(None);
        PassId::new(self.names.len() - 1)
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

    /// The pass (or pass initialization) a symbol runs, if it is the frame
    /// of one.
    pub(crate) fn frame_of(&self, symbol: SymbolId) -> Option<PassId> {
        match self.roles[symbol.index()] {
            Role::Pass(id) | Role::PassInit(id) => Some(id),
            _ => None,
        }
    }

    /// Every pass name, in id order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The passes on a stack given leaf first, outermost first, each once.
    /// A pass frame counts only under a pass-manager frame; a pass's
    /// `initialize(MLIRContext*)` only under the pass manager's
    /// initialization of its pipeline (the first such frame after it).
    pub(crate) fn on_stack(&self, leaf_first: &[SymbolId], into: &mut Vec<PassId>) {
        into.clear();
        let (mut managed, mut initializing) = (false, false);
        // The nested compiler the frames so far run under.
        let mut owner = None;
        for symbol in leaf_first.iter().rev() {
            match self.roles[symbol.index()] {
                Role::Adaptor => managed = true,
                Role::Initializer => (managed, initializing) = (true, true),
                Role::Pass(id) if managed => {
                    let id = self.under(owner, id);
                    if !into.contains(&id) {
                        into.push(id);
                    }
                    owner = owner.or(self.is_nested_compiler(id).then_some(id));
                }
                Role::PassInit(id) if initializing => {
                    initializing = false;
                    let id = self.under(owner, id);
                    if !into.contains(&id) {
                        into.push(id);
                    }
                }
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
        let (mut managed, mut initializing) = (false, false);
        let mut since_pass = false;
        let mut owner = None;
        for symbol in leaf_first.iter().rev() {
            match self.roles[symbol.index()] {
                Role::Adaptor => {
                    managed = true;
                    since_pass = true;
                }
                Role::Initializer => {
                    (managed, initializing) = (true, true);
                    since_pass = true;
                }
                Role::Pass(id)
                    if managed && (since_pass || into.last() != Some(&self.under(owner, id))) =>
                {
                    let id = self.under(owner, id);
                    into.push(id);
                    since_pass = false;
                    owner = owner.or(self.is_nested_compiler(id).then_some(id));
                }
                Role::PassInit(id) if initializing => {
                    initializing = false;
                    into.push(self.under(owner, id));
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

    /// The pass that queued the task of a task's frames given leaf first:
    /// the outermost frame of code a pass's run defined.
    pub(crate) fn queued_by(&self, task_leaf_first: &[SymbolId]) -> Option<PassId> {
        task_leaf_first
            .iter()
            .rev()
            .find_map(|symbol| match self.roles[symbol.index()] {
                Role::Queued(id) => Some(id),
                _ => None,
            })
    }

    /// True when the pass manager is on a stack given leaf first.
    pub(crate) fn managed(&self, leaf_first: &[SymbolId]) -> bool {
        leaf_first.iter().any(|symbol| {
            matches!(
                self.roles[symbol.index()],
                Role::Adaptor | Role::Initializer
            )
        })
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
    // A compile run in-process has the interpreter under every stack: its
    // samples are Python's only where no compiler work tells them apart.
    if outside.in_linker {
        OutsidePass::Linker
    } else if !outside.in_compiler {
        OutsidePass::Python
    } else if has(&["startup"]) {
        OutsidePass::StartupAndTeardown
    } else if outside.managed {
        OutsidePass::PassManager
    } else if has(&["lexer", "parser"]) {
        OutsidePass::ParsingInput
    } else if has(&["serialization"]) {
        OutsidePass::SerializationAndOutput
    } else if has(&["python"]) {
        OutsidePass::Python
    } else if outside.in_task {
        OutsidePass::PoolTasks
    } else {
        OutsidePass::Other
    }
}

#[cfg(test)]
mod tests;
