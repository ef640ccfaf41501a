//! Short names of C++ functions for tables and flamegraph labels: without
//! return types and parameter lists, wrappers (`function_ref::callback_fn`,
//! `std::function`, `unique_function`) replaced by the function they wrap,
//! and, to fit a width, template arguments elided before namespaces are
//! dropped, and namespaces before the front of the rest is cut (the end
//! tells C++ functions apart; a plain C name is cut at its end). Full names
//! stay in JSON, CSV and tooltips.

/// The wrappers whose own name says nothing: the component before the last
/// (its start), the last one (its start), and what the label says instead.
const WRAPPERS: &[(&str, &str, &str)] = &[
    ("function_ref<", "callback_fn<", "callback"),
    ("_Function_handler<", "_M_invoke", "std::function"),
    ("_Function_handler<", "_M_manager", "std::function"),
    ("UniqueFunctionBase<", "CallImpl<", "unique_function"),
];

/// `name` shortened to at most `width` characters (see the module's doc).
pub(crate) fn fit(name: &str, width: usize) -> String {
    let (mut components, wrapped) = simplify(name);
    let mut suffix = wrapped.map_or(String::new(), |wrapper| format!(" ({wrapper})"));
    if width < suffix.chars().count() * 2 {
        suffix.clear();
    }
    let budget = width.saturating_sub(suffix.chars().count());
    let shown = |components: &[String]| components.join("::");
    let fits = |components: &[String]| shown(components).chars().count() <= budget;
    // Template arguments of the enclosing scopes, then of the function.
    let last = components.len().saturating_sub(1);
    for at in (0..last).chain([last]) {
        if fits(&components) {
            break;
        }
        components[at] = elide_template_arguments(&components[at]);
    }
    // Namespaces and classes from the outside in, keeping two named
    // components (a lambda is named by its enclosing function).
    while !fits(&components) && named_components(&components[1..]) >= 2 {
        components.remove(0);
    }
    let text = shown(&components);
    let length = text.chars().count();
    if length <= budget {
        return text + &suffix;
    }
    let room = budget.saturating_sub(1);
    if components.len() == 1 {
        // A plain name (a C function) is known by its start.
        let kept: String = text.chars().take(room).collect();
        format!("{kept}…{suffix}")
    } else {
        // A qualified name is known by its end: the front is cut.
        let kept: String = text.chars().skip(length - room).collect();
        format!("…{kept}{suffix}")
    }
}

/// `names` shortened to `width` as [`fit`] does, each shown name told apart
/// from the others: names that would read the same are shown without elided
/// template arguments, and if still the same (overloads), whole but for the
/// return type, where that fits `width`; names still alike (or too long so)
/// are numbered in their order (`DenseMapBase<…>::lookupOrInsertIntoBucket<…>
/// #2`). No name is wider than `width`.
pub(crate) fn distinct(names: &[&str], width: usize) -> Vec<String> {
    let levels: [&dyn Fn(&str) -> String; 3] = [
        &|name| fit(name, width),
        &|name| fit(name, usize::MAX),
        &|name| without_return_type(name).to_owned(),
    ];
    let mut shown: Vec<String> = names.iter().map(|name| levels[0](name)).collect();
    for level in &levels[1..] {
        let clashing = clashes(&shown);
        for ((shown, name), clashes) in shown.iter_mut().zip(names).zip(clashing) {
            let told_apart = level(name);
            if clashes && told_apart.chars().count() <= width {
                *shown = told_apart;
            }
        }
    }
    let clashing = clashes(&shown);
    let mut numbers: hashbrown::HashMap<String, usize> = hashbrown::HashMap::new();
    for ((shown, name), clashes) in shown.iter_mut().zip(names).zip(clashing) {
        if clashes {
            let number = numbers.entry(shown.clone()).or_default();
            *number += 1;
            let tag = format!(" #{number}");
            *shown = fit(name, width.saturating_sub(tag.chars().count())) + &tag;
        }
    }
    shown
}

/// Whether each of `shown` reads the same as another.
fn clashes(shown: &[String]) -> Vec<bool> {
    let mut seen: hashbrown::HashMap<&str, usize> = hashbrown::HashMap::new();
    for name in shown {
        *seen.entry(name.as_str()).or_default() += 1;
    }
    shown.iter().map(|name| seen[name.as_str()] > 1).collect()
}

/// The components of `name` (split at `::`) without return type and
/// parameter lists, the wrapper unwrapped; and the wrapper's kind, if any.
fn simplify(name: &str) -> (Vec<String>, Option<&'static str>) {
    let components: Vec<String> = components(without_return_type(name))
        .iter()
        .map(|component| without_parameters(component))
        .collect();
    if let [.., outer, inner] = components.as_slice() {
        for (outer_start, inner_start, kind) in WRAPPERS {
            if outer.starts_with(outer_start) && inner.starts_with(inner_start) {
                let wrapped = match inner.strip_prefix(inner_start) {
                    // `callback_fn<X>`, `CallImpl<X>`: X.
                    Some(rest) if inner_start.ends_with('<') => rest.strip_suffix('>'),
                    // `_Function_handler<Signature, X>::_M_invoke`: X.
                    _ => outer
                        .strip_prefix(outer_start)
                        .and_then(|rest| rest.strip_suffix('>'))
                        .and_then(|arguments| top_level_split(arguments, ",").last().copied()),
                };
                if let Some(wrapped) = wrapped.map(str::trim).filter(|wrapped| !wrapped.is_empty())
                {
                    return (simplify(wrapped).0, Some(kind));
                }
            }
        }
    }
    (components, None)
}

/// `ret ns::f<T>(args)::g` → `ns::f<T>(args)::g`: what comes after the last
/// space outside brackets before the first parameter list (`operator new`'s
/// space is part of the name).
fn without_return_type(name: &str) -> &str {
    let mut depth = 0i32;
    let mut start = 0;
    for (at, c) in name.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => {
                if c == '(' && depth == 0 && !name[..at].ends_with("operator") {
                    break;
                }
                depth += 1;
            }
            '>' | ')' | ']' | '}' => depth -= 1,
            ' ' if depth == 0 && !name[..at].ends_with("operator") => start = at + 1,
            _ => {}
        }
    }
    &name[start..]
}

/// `name` split at each `::` outside brackets.
fn components(name: &str) -> Vec<&str> {
    top_level_split(name, "::")
}

/// `f<T>(args) const` → `f<T>`; `{lambda(args)#1}` → `{lambda#1}`;
/// `operator()(args)` → `operator()`; `f[abi:cxx11]()` → `f`.
fn without_parameters(component: &str) -> String {
    let mut out = String::with_capacity(component.len());
    let mut depth = 0i32;
    let mut skipping = 0i32;
    let mut chars = component.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if skipping > 0 {
            match c {
                '(' => skipping += 1,
                ')' => skipping -= 1,
                _ => {}
            }
            continue;
        }
        match c {
            // `(anonymous namespace)` is a name, not a parameter list.
            '(' if at > 0 && (depth == 0 || component[..at].ends_with("{lambda")) => {
                if component[..at].ends_with("operator") {
                    out.push_str("()");
                    // Skip the `)` of `operator()`.
                    chars.next();
                } else {
                    skipping = 1;
                }
                continue;
            }
            '<' | '[' | '{' | '(' => depth += 1,
            '>' | ']' | '}' | ')' => depth -= 1,
            _ => {}
        }
        out.push(c);
    }
    // ABI tags (`[abi:cxx11]`) tell no functions apart; what follows the
    // parameter list (` const`) neither.
    let out = match out.find("[abi:") {
        Some(start) => match out[start..].find(']') {
            Some(end) => format!("{}{}", &out[..start], &out[start + end + 1..]),
            None => out,
        },
        None => out,
    };
    let trimmed = out.trim_end();
    trimmed
        .strip_suffix(" const")
        .unwrap_or(trimmed)
        .trim_end()
        .to_owned()
}

/// `f<A<B>, C>` → `f<…>`.
fn elide_template_arguments(component: &str) -> String {
    let mut out = String::with_capacity(component.len());
    let mut depth = 0i32;
    for c in component.chars() {
        match c {
            '<' => {
                if depth == 0 {
                    out.push_str("<…");
                }
                depth += 1;
            }
            '>' => {
                depth -= 1;
                if depth == 0 {
                    out.push('>');
                }
            }
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// `text` split at `separator` (ASCII) outside brackets.
fn top_level_split<'a>(text: &'a str, separator: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' | b')' | b']' | b'}' => depth -= 1,
            _ if depth == 0 && bytes[at..].starts_with(separator.as_bytes()) => {
                parts.push(&text[start..at]);
                at += separator.len();
                start = at;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    parts.push(&text[start..]);
    parts
}

/// Components that name a function, class or namespace (not a lambda).
fn named_components(components: &[String]) -> usize {
    components
        .iter()
        .filter(|component| {
            !(component.starts_with("$_")
                || component.starts_with("{lambda")
                || component.starts_with("'lambda"))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::{distinct, fit};

    /// Real names from the gallery's flamegraphs and reports.
    const PATTERN_SET_CALLBACK: &str = "bool llvm::function_ref<bool (mlir::RegisteredOperationName)>::callback_fn<mlir::FrozenRewritePatternSet::FrozenRewritePatternSet(mlir::RewritePatternSet&&, llvm::ArrayRef<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > >, llvm::ArrayRef<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > >)::$_4>(long, mlir::RegisteredOperationName)";
    const UNIQUER_CALLBACK: &str = "mlir::StorageUniquer::BaseStorage* llvm::function_ref<mlir::StorageUniquer::BaseStorage* (mlir::StorageUniquer::StorageAllocator&)>::callback_fn<mlir::detail::DenseTypedElementsAttrStorage* mlir::StorageUniquer::get<mlir::detail::DenseTypedElementsAttrStorage, mlir::ShapedType&, llvm::ArrayRef<char>&>(llvm::function_ref<void (mlir::detail::DenseTypedElementsAttrStorage*)>, mlir::TypeID, mlir::ShapedType&, llvm::ArrayRef<char>&)::{lambda(mlir::StorageUniquer::StorageAllocator&)#1}>(long, mlir::StorageUniquer::StorageAllocator&)";
    const FUNCTION_HANDLER: &str = "std::_Function_handler<void (mlir::Operation*), mlir::iree_compiler::IREE::Util::(anonymous namespace)::FoldGlobalsPass::runOnOperation()::{lambda(mlir::Operation*)#1}>::_M_invoke(std::_Any_data const&, mlir::Operation*&&)";
    const ADD_IMPL: &str = "void mlir::RewritePatternSet::addImpl<mlir::stablehlo::FoldConstantCaseOp, mlir::MLIRContext*&>(llvm::ArrayRef<llvm::StringRef>, mlir::MLIRContext*&)";

    #[test]
    fn wrappers_show_the_function_they_wrap() {
        assert_eq!(
            fit(PATTERN_SET_CALLBACK, 80),
            "mlir::FrozenRewritePatternSet::FrozenRewritePatternSet::$_4 (callback)"
        );
        assert_eq!(
            fit(PATTERN_SET_CALLBACK, 40),
            "…FrozenRewritePatternSet::$_4 (callback)"
        );
        assert_eq!(
            fit(UNIQUER_CALLBACK, 60),
            "mlir::StorageUniquer::get<…>::{lambda#1} (callback)"
        );
        assert_eq!(
            fit(FUNCTION_HANDLER, 120),
            "mlir::iree_compiler::IREE::Util::(anonymous namespace)::FoldGlobalsPass::runOnOperation::{lambda#1} (std::function)"
        );
        assert_eq!(
            fit(FUNCTION_HANDLER, 80),
            "FoldGlobalsPass::runOnOperation::{lambda#1} (std::function)"
        );
        // Too narrow for the wrapper's note: the name alone.
        assert_eq!(fit(PATTERN_SET_CALLBACK, 16), "…PatternSet::$_4");
    }

    #[test]
    fn template_arguments_go_first_then_namespaces_then_the_front() {
        assert_eq!(
            fit(ADD_IMPL, 200),
            "mlir::RewritePatternSet::addImpl<mlir::stablehlo::FoldConstantCaseOp, mlir::MLIRContext*&>"
        );
        assert_eq!(fit(ADD_IMPL, 40), "mlir::RewritePatternSet::addImpl<…>");
        assert_eq!(fit(ADD_IMPL, 25), "…tePatternSet::addImpl<…>");
        assert_eq!(fit(UNIQUER_CALLBACK, 200).matches('<').count(), 2);
        assert_eq!(
            fit("mlir::Lexer::lexString(char const*)", 22),
            "mlir::Lexer::lexString"
        );
        assert_eq!(
            fit("mlir::Lexer::lexString(char const*)", 21),
            "Lexer::lexString"
        );
    }

    #[test]
    fn names_that_would_read_the_same_are_told_apart() {
        let names = [
            "llvm::detail::IEEEFloat::IEEEFloat(double)",
            "llvm::detail::IEEEFloat::IEEEFloat(llvm::fltSemantics const&, llvm::APInt const&)",
            "bool mlir::op_definition_impl::hasTrait<mlir::OpTrait::ZeroRegions, mlir::OpTrait::OneResult>(mlir::TypeID)",
            "bool mlir::op_definition_impl::hasTrait<mlir::OpTrait::ZeroRegions, mlir::OpTrait::ZeroResults>(mlir::TypeID)",
            "mlir::Lexer::lexString(char const*)",
        ];
        assert_eq!(
            distinct(&names, 90),
            [
                "llvm::detail::IEEEFloat::IEEEFloat(double)",
                "llvm::detail::IEEEFloat::IEEEFloat(llvm::fltSemantics const&, llvm::APInt const&)",
                "mlir::op_definition_impl::hasTrait<mlir::OpTrait::ZeroRegions, mlir::OpTrait::OneResult>",
                "mlir::op_definition_impl::hasTrait<mlir::OpTrait::ZeroRegions, mlir::OpTrait::ZeroResults>",
                "mlir::Lexer::lexString",
            ]
        );
    }

    #[test]
    fn names_told_apart_only_by_more_than_fits_are_numbered_within_the_width() {
        // Two of BERT's rows, which were shown whole (1,600 characters).
        let map = |pair: &str| {
            format!(
                "llvm::DenseMapBase<llvm::DenseMap<{pair}>, {pair}>::lookupOrInsertIntoBucket<{pair} const&>"
            )
        };
        let (first, second) = (
            map("mlir::Pattern const*, mlir::PatternBenefit"),
            map("mlir::OperationName, llvm::SmallVector<mlir::RewritePattern const*, 2>"),
        );
        let names = [
            first.as_str(),
            second.as_str(),
            "mlir::Lexer::lexString(char const*)",
        ];
        let shown = distinct(&names, 60);
        assert_eq!(
            shown,
            [
                "llvm::DenseMapBase<…>::lookupOrInsertIntoBucket<…> #1",
                "llvm::DenseMapBase<…>::lookupOrInsertIntoBucket<…> #2",
                "mlir::Lexer::lexString",
            ]
        );
        assert!(shown.iter().all(|name| name.chars().count() <= 60));
    }

    #[test]
    fn plain_names_and_operators_keep_their_shape() {
        assert_eq!(fit("malloc", 10), "malloc");
        assert_eq!(fit("foo::operator()(int) const", 40), "foo::operator()");
        assert_eq!(fit("operator new(unsigned long)", 40), "operator new");
        assert_eq!(
            fit("mlir::Token::getHexStringValue[abi:cxx11]() const", 80),
            "mlir::Token::getHexStringValue"
        );
        assert_eq!(
            fit(
                "(anonymous namespace)::TensorLiteralParser::parseElement()",
                80
            ),
            "(anonymous namespace)::TensorLiteralParser::parseElement"
        );
        assert_eq!(fit("[unknown]", 80), "[unknown]");
        assert_eq!(fit("_PyEval_EvalFrameDefault", 8), "_PyEval…");
        assert_eq!(
            fit("libIREECompiler.so+0x1234", 80),
            "libIREECompiler.so+0x1234"
        );
    }
}
