//! Fuzz target: the `--rules` parser on arbitrary text.
//!
//! The bytes, as UTF-8 (the reader refuses other bytes before parsing), go to
//! `RuleTable::with_user_rules`, which extends the built-in table. A table it
//! accepts then classifies a few real function names, so the user's patterns
//! run too. An `Err` is a correct answer; a panic, an abort or a hang is a bug.

use category_rules::{FunctionRef, RuleTable};

/// Real names from iree-compile recordings (as `rules.toml` lists them).
const FUNCTIONS: [(&str, &str); 4] = [
    ("libIREECompiler.so", "mlir::Lexer::lexString(char const*)"),
    (
        "libIREECompiler.so",
        "llvm::detail::IEEEFloat::multiply(llvm::detail::IEEEFloat const&, llvm::RoundingMode)",
    ),
    ("[kernel.kallsyms]", "clear_page_erms"),
    ("libc.so.6", "__memmove_avx_unaligned_erms"),
];

fn main() {
    // The built-in table is parsed once per process: before AFL++ forks its
    // children, so each one starts with it and runs the same paths.
    RuleTable::builtin();
    afl::fuzz_nohook!(|bytes: &[u8]| {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return;
        };
        let Ok(table) = RuleTable::with_user_rules(text, "fuzz.toml") else {
            return;
        };
        for (dso, name) in FUNCTIONS {
            let category = table.classify(FunctionRef {
                name,
                dso,
                kernel: dso == "[kernel.kallsyms]",
            });
            assert!(!table.category(category).id.is_empty());
        }
    });
}
