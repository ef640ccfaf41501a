//! Demangles C++ symbol names with cpp_demangle, falling back to the raw name.

/// The readable form of a raw symbol name. Names that are not Itanium-mangled,
/// or that cpp_demangle cannot parse, come back unchanged.
pub(crate) fn demangle(raw: &str) -> String {
    if !raw.starts_with("_Z") {
        return raw.to_owned();
    }
    cpp_demangle::Symbol::new(raw)
        .ok()
        .and_then(|symbol| symbol.demangle().ok())
        .unwrap_or_else(|| raw.to_owned())
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
}
