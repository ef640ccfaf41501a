//! The pass frames found on stacks: classes named, nesting, pipeline
//! initialization, phases.

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
        (
            "(anonymous namespace)::Canonicalizer::initialize(mlir::MLIRContext*)",
            None,
        ),
    ];
    for (function, class) in cases {
        assert_eq!(pass_class(function), class, "{function}");
    }
    let inits = [
        (
            "(anonymous namespace)::Canonicalizer::initialize(mlir::MLIRContext*)",
            Some("Canonicalizer"),
        ),
        (
            "mlir::iree_compiler::IREE::Flow::(anonymous namespace)::CanonicalizePass::initialize(mlir::MLIRContext*)",
            Some("CanonicalizePass"),
        ),
        (
            "mlir::OpPassManager::initialize(mlir::MLIRContext*, unsigned int)",
            None,
        ),
        (
            "(anonymous namespace)::Canonicalizer::runOnOperation()",
            None,
        ),
    ];
    for (function, class) in inits {
        assert_eq!(init_class(function), class, "{function}");
    }
}

#[test]
fn a_task_names_the_pass_whose_run_queued_it() {
    let cases = [
        // Cut from iree-compile 3.13's task of IREE's pipeline adaptor.
        (
            "llvm::detail::UniqueFunctionBase<void, >::UniqueFunctionBase<llvm::LogicalResult mlir::failableParallelForEach<mlir::iree_compiler::detail::OpPipelineAdaptorPass::runOnOperationAsync()::OpDispatchInfo*, void mlir::parallelForEach<…>::{lambda()#1}>::__invoke(llvm::detail::UniqueFunctionBase<void, > const*)",
            Some("OpPipelineAdaptorPass"),
        ),
        (
            "mlir::iree_compiler::(anonymous namespace)::TranslateAllExecutablesPass::runOnOperation()::$_0::operator()(mlir::Operation*) const",
            Some("TranslateAllExecutablesPass"),
        ),
        (
            "std::_Function_handler<void (), mlir::detail::OpToOpPassAdaptor::runOnOperationAsyncImpl(bool)::$_0>::_M_invoke(std::_Any_data const&)",
            None,
        ),
        (
            "mlir::iree_compiler::detail::OpPipelineAdaptorPass::runOnOperationAsync()",
            None,
        ),
    ];
    for (function, class) in cases {
        assert_eq!(queuing_class(function), class, "{function}");
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
        verifications: vec![None, None],
        parents: vec![None, None],
        nested: HashMap::new(),
        compilers: Vec::new(),
        inner: HashMap::new(),
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
fn a_pass_initialized_by_the_pipeline_adaptor_s_pipeline_is_its_initialization() {
    // Symbols 0..7: a worker's task, the adaptor pass (0) in whose
    // pipeline it runs, the pass manager's initialization, the inner
    // pass's initialize (1), a helper's own initialize (2), a leaf,
    // and an initialize outside the pass manager's.
    let passes = Passes {
        roles: vec![
            Role::Plain,
            Role::Pass(PassId::new(0)),
            Role::Initializer,
            Role::PassInit(PassId::new(1)),
            Role::PassInit(PassId::new(2)),
            Role::Plain,
            Role::Adaptor,
        ],
        names: vec![
            "OpPipelineAdaptorPass".to_owned(),
            "Canonicalizer (initialize)".to_owned(),
            "Helper (initialize)".to_owned(),
        ],
        phases: vec![None; 3],
        verifications: vec![None; 3],
        parents: vec![None; 3],
        nested: HashMap::new(),
        compilers: Vec::new(),
        inner: HashMap::new(),
    };
    let stack = |root_first: &[usize]| -> Vec<SymbolId> {
        root_first
            .iter()
            .rev()
            .map(|&at| SymbolId::new(at))
            .collect()
    };
    let ids = |ids: &[usize]| ids.iter().map(|&at| PassId::new(at)).collect::<Vec<_>>();
    let (mut on_stack, mut nesting) = (Vec::new(), Vec::new());
    // On the main thread: under the adaptor pass, then its pipeline's
    // initialization; the helper's initialize is not a second pass.
    let main = stack(&[0, 6, 1, 2, 3, 4, 5]);
    passes.on_stack(&main, &mut on_stack);
    passes.nesting(&main, &mut nesting);
    assert_eq!(on_stack, ids(&[0, 1]));
    assert_eq!(nesting, ids(&[0, 1]));
    // A worker's task: the initialization alone names the pass.
    let task = stack(&[0, 2, 3, 5]);
    passes.on_stack(&task, &mut on_stack);
    assert_eq!(on_stack, ids(&[1]));
    assert!(passes.managed(&task));
    // An initialize outside the pass manager's initialization is not a pass.
    passes.on_stack(&stack(&[0, 6, 3, 5]), &mut on_stack);
    assert!(on_stack.is_empty(), "{on_stack:?}");
}

#[test]
fn passes_under_a_nested_compiler_are_its_own() {
    // Symbols 0..6: main, the adaptor, the pipeline adaptor pass (0),
    // JitGlobalsPass (1), the adaptor of the JIT's pipeline,
    // ApplyPatternsPass (2), a leaf.
    let mut passes = Passes {
        roles: vec![
            Role::Plain,
            Role::Adaptor,
            Role::Pass(PassId::new(0)),
            Role::Pass(PassId::new(1)),
            Role::Adaptor,
            Role::Pass(PassId::new(2)),
            Role::Plain,
        ],
        names: [
            "OpPipelineAdaptorPass",
            "JitGlobalsPass",
            "ApplyPatternsPass",
        ]
        .map(str::to_owned)
        .to_vec(),
        phases: vec![Some(Phase::Flow), None, Some(Phase::Flow)],
        verifications: vec![None; 3],
        parents: Vec::new(),
        nested: HashMap::new(),
        compilers: Vec::new(),
        inner: HashMap::new(),
    };
    passes.add_nested(&[true, true, true]);
    let (opa, jit, apply) = (PassId::new(0), PassId::new(1), PassId::new(2));
    let jit_apply = passes.under(Some(jit), apply);
    assert_ne!(jit_apply, apply);
    assert_eq!(passes.name(jit_apply), "JitGlobalsPass > ApplyPatternsPass");
    assert_eq!(passes.parent(jit_apply), Some(jit));
    assert_eq!(passes.parent(apply), None);
    assert_eq!(
        passes.phase(&[jit_apply]),
        None,
        "the JIT's phase, not the pass's"
    );
    assert_eq!(passes.under(Some(jit), jit), jit);
    let stack = |root_first: &[usize]| -> Vec<SymbolId> {
        root_first
            .iter()
            .rev()
            .map(|&at| SymbolId::new(at))
            .collect()
    };
    let (mut on_stack, mut nesting) = (Vec::new(), Vec::new());
    let in_jit = stack(&[0, 1, 2, 1, 3, 4, 5, 6]);
    passes.on_stack(&in_jit, &mut on_stack);
    assert_eq!(on_stack, [opa, jit, jit_apply]);
    passes.nesting(&in_jit, &mut nesting);
    assert_eq!(nesting, [opa, jit, jit_apply]);
    assert_eq!(passes.nested_compiler(&on_stack), Some(1));
    // The compile's own run of the same pass is not the JIT's.
    passes.on_stack(&stack(&[0, 1, 2, 1, 5, 6]), &mut on_stack);
    assert_eq!(on_stack, [opa, apply]);
    assert_eq!(passes.nested_compiler(&on_stack), None);
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
