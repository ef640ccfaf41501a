//! The names MLIR's pass timers give the passes of a binary, read from its
//! symbol table. A tablegen'd pass class derives from
//! `impl::<Name>Base<Class>`, whose `getName()` returns `<Name>`, the name
//! of the pass's timer; `Class` is the class whose `runOnOperation()` the
//! stacks show (`mlir::impl::ConvertLinalgToLoopsPassBase<(anonymous
//! namespace)::LowerToLoops>::getName() const`: the class `LowerToLoops`
//! is timed as `ConvertLinalgToLoopsPass`).
//!
//! Only the string table is searched (for the mangled `…Base<…>::getName()`),
//! and only the names found are demangled.

use super::demangle;
use super::symtab::symbol_strings;
use crate::binary::ElfImage;

/// The end of a mangled `…::getName() const`.
const GET_NAME_END: &[u8] = b"E7getNameEv\0";
/// In a mangled name: a `…Base` class with template arguments.
const BASE_WITH_ARGUMENTS: &[u8] = b"BaseI";

/// `(class, timer name)` of every tablegen'd pass of `image` (its
/// `.symtab`, or `.dynsym` when stripped); empty when it has neither.
pub(crate) fn declared_pass_names(image: &ElfImage) -> Vec<(String, String)> {
    let Some(strings) = symbol_strings(image) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for end in memchr::memmem::find_iter(strings, GET_NAME_END) {
        let start = memchr::memrchr(0, &strings[..end]).map_or(0, |nul| nul + 1);
        let mangled = &strings[start..end + GET_NAME_END.len() - 1];
        if memchr::memmem::find(mangled, BASE_WITH_ARGUMENTS).is_none() {
            continue;
        }
        let Ok(mangled) = std::str::from_utf8(mangled) else {
            continue;
        };
        if let Some(pair) = class_and_timer(&demangle(mangled)) {
            names.push(pair);
        }
    }
    names.sort();
    names.dedup();
    names
}

/// `(Class, Name)` of `…::NameBase<…::Class>::getName() const`.
fn class_and_timer(function: &str) -> Option<(String, String)> {
    let base = function.strip_suffix(">::getName() const")?;
    let open = base.find('<')?;
    let (base_name, argument) = (&base[..open], &base[open + 1..]);
    let timer = base_name
        .rsplit("::")
        .next()?
        .strip_suffix("Base")
        .filter(|name| !name.is_empty())?;
    // One argument, the class, with no template arguments of its own.
    if argument.contains(['<', '>', ',']) {
        return None;
    }
    let class = argument.rsplit("::").next()?;
    let plain = |name: &str| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (plain(timer) && plain(class) && !class.is_empty())
        .then(|| (class.to_owned(), timer.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tablegen_bases_name_their_classes_timers() {
        assert_eq!(
            class_and_timer(
                "mlir::impl::ConvertLinalgToLoopsPassBase<(anonymous namespace)::LowerToLoops>::getName() const"
            ),
            Some((
                "LowerToLoops".to_owned(),
                "ConvertLinalgToLoopsPass".to_owned()
            ))
        );
        assert_eq!(
            class_and_timer(
                "mlir::iree_compiler::impl::ConvertUnsupportedFloatArithPassBase<mlir::iree_compiler::(anonymous namespace)::ConvertUnsupportedFloatArithPass>::getName() const"
            ),
            Some((
                "ConvertUnsupportedFloatArithPass".to_owned(),
                "ConvertUnsupportedFloatArithPass".to_owned()
            ))
        );
        assert_eq!(
            class_and_timer("mlir::PassWrapper<A, mlir::OperationPass<>>::getName() const"),
            None
        );
        assert_eq!(
            class_and_timer("mlir::impl::FooBase<Bar<int>>::getName() const"),
            None
        );
    }
}
