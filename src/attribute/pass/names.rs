//! What a frame of a pass is named by: its class from `runOnOperation()` or
//! `initialize(MLIRContext*)` frames, and the IREE compile phase its
//! namespace says it belongs to.

use super::{INIT_METHOD, Phase, RUN_METHODS};

/// The pass class of a `…::Class::runOnOperation()` frame, without
/// namespaces or template arguments; `None` for other frames.
pub(super) fn pass_class(function: &str) -> Option<&str> {
    let qualified = RUN_METHODS
        .iter()
        .find_map(|method| function.strip_suffix(method))?;
    class_of(qualified)
}

/// The class of a `…::Class::initialize(mlir::MLIRContext*)` frame, as
/// [`pass_class`]; `None` for other frames.
pub(super) fn init_class(function: &str) -> Option<&str> {
    class_of(function.strip_suffix(INIT_METHOD)?)
}

/// The pass class whose run defines the code of a frame
/// (`…failableParallelForEach<…OpPipelineAdaptorPass::runOnOperationAsync()::
/// OpDispatchInfo*…>…::__invoke`): the name before the first of
/// [`RUN_METHODS`] followed by `::`; `None` for other frames.
pub(super) fn queuing_class(function: &str) -> Option<&str> {
    let at = RUN_METHODS
        .iter()
        .filter_map(|method| {
            (function.match_indices(method))
                .find(|(at, _)| function[at + method.len()..].starts_with("::"))
                .map(|(at, _)| at)
        })
        .min()?;
    let class = function[..at]
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()?;
    (!class.is_empty() && class != "OpToOpPassAdaptor").then_some(class)
}

/// The last name of `qualified` (`ns::Class<…>`), without template
/// arguments; `None` for the pass manager's own adaptor, an empty name or
/// one that is not an identifier.
fn class_of(qualified: &str) -> Option<&str> {
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
pub(super) fn phase_of(function: &str) -> Option<Phase> {
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
