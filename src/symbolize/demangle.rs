//! Demangles symbol names: Rust (legacy `_ZN…17h<hash>E` and v0 `_R…`)
//! with rustc-demangle, C++ (Itanium `_Z…`) with cpp_demangle, falling back
//! to the raw name.

/// The readable form of a raw symbol name. Names that are not mangled, or
/// that neither demangler can parse, come back unchanged. Rust names lose
/// their hash suffix, as `perf report` shows them.
pub(crate) fn demangle(raw: &str) -> String {
    if raw.starts_with("_R") || is_rust_legacy(raw) {
        if let Ok(symbol) = rustc_demangle::try_demangle(raw) {
            return format!("{symbol:#}");
        }
    }
    if !raw.starts_with("_Z") {
        return raw.to_owned();
    }
    cpp_demangle::Symbol::new(raw)
        .ok()
        .and_then(|symbol| symbol.demangle().ok())
        .unwrap_or_else(|| raw.to_owned())
}

/// A legacy Rust name is an Itanium nested name whose last part is the
/// hash `17h` + 16 hex digits, then `E` and the end of the name or an LLVM
/// suffix (`.llvm.1234`); C++ names do not end that way.
fn is_rust_legacy(raw: &str) -> bool {
    raw.starts_with("_ZN")
        && raw.match_indices("17h").any(|(at, _)| {
            let hash = raw.as_bytes().get(at + 3..at + 19);
            hash.is_some_and(|hash| hash.iter().all(u8::is_ascii_hexdigit))
                && raw
                    .get(at + 19..)
                    .is_some_and(|rest| rest == "E" || rest.starts_with("E."))
        })
}

#[cfg(test)]
mod tests {
    use super::demangle;

    #[test]
    fn mangled_names_read_as_cpp_and_others_pass_through() {
        assert_eq!(
            demangle("_ZN4mlir5Lexer9lexStringEPKc"),
            "mlir::Lexer::lexString(char const*)"
        );
        assert_eq!(demangle("malloc"), "malloc");
        assert_eq!(demangle("_Znot-a-valid-name"), "_Znot-a-valid-name");
    }

    #[test]
    fn rust_names_demangle_in_both_schemes() {
        // Shapes of compile-perf's own symbols.
        assert_eq!(
            demangle("_ZN12compile_perf6stacks10StackTable10add_sample17h9d1e0a3b2c4f5a6bE"),
            "compile_perf::stacks::StackTable::add_sample"
        );
        assert_eq!(
            demangle(
                "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE.llvm.42"
            ),
            "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>"
        );
        assert_eq!(
            demangle("_RNvXNtNtCsgEmfK2I1SDS_4core3str6traitseNtNtB6_3cmp3Ord3cmp"),
            "<str as core::cmp::Ord>::cmp"
        );
        // A C++ name with a 16-hex-digit part is still C++.
        assert_eq!(demangle("_ZN3foo3barEv"), "foo::bar()");
    }
}
