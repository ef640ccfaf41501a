//! Whether a stack is whole: it reaches its thread root when the unwinder
//! saw the stack's end, or when its outermost function is one a thread
//! starts in.

use super::Profile;
use crate::stacks::SampleKey;
use crate::unwind::Walk;

/// The functions a thread starts in, as real stacks end, one per line: a
/// stack whose outermost function is one of these is whole, whichever
/// unwinder made it. The live tests read the same file.
///
/// - `_start`, `__libc_start_main`: the main thread, unwound with DWARF CFI;
/// - `__libc_start_call_main`: the main thread in a `-g` (frame pointer)
///   callchain, which stops there because `_start` clears the frame pointer;
/// - `start_thread`, `clone3`, `clone` and glibc's internal aliases: other
///   threads (`start_thread` ends `-g` callchains, `clone3` DWARF ones).
///
/// glibc's functions other than `__libc_start_main` are named only when its
/// symbol table is there (Debian: `libc6-dbg`).
const THREAD_ENTRY_FUNCTIONS: &str = include_str!("thread_entries.txt");

/// True when `name` (a symbol name, maybe with an `@VERSION` suffix such as
/// `__libc_start_main@@GLIBC_2.34`) is a thread entry function. A PLT stub
/// (`clone@plt`) is not.
fn is_thread_entry(name: &str) -> bool {
    let unversioned = match name.split_once('@') {
        Some((_, "plt")) => return false,
        Some((base, _)) => base,
        None => name,
    };
    THREAD_ENTRY_FUNCTIONS
        .lines()
        .any(|entry| entry == unversioned)
}

impl Profile {
    /// True when the sample's stack reaches a thread root: the unwinder saw the
    /// stack's end, or its outermost function is a thread entry function.
    pub(crate) fn reaches_root(&self, key: &SampleKey) -> bool {
        match key.walk {
            Walk::Complete => true,
            Walk::Stopped => key.stack.is_some_and(|stack| {
                let root = self.stacks.root_frame(stack);
                is_thread_entry(&self.symbols.get(self.symbols.function_of_frame(root)).name)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_thread_entry;

    #[test]
    fn thread_entry_functions_are_known_with_or_without_a_symbol_version() {
        for name in [
            "_start",
            "__libc_start_main@@GLIBC_2.34",
            "__libc_start_main@GLIBC_2.2.5",
            "__libc_start_call_main",
            "start_thread",
            "clone3",
            "__GI___clone3",
        ] {
            assert!(is_thread_entry(name), "{name}");
        }
        for name in [
            "main",
            "clone@plt",
            "_start_thread",
            "libc.so.6+0x27249",
            "[unknown]",
            "mlir::PassManager::run(mlir::Operation*)",
        ] {
            assert!(!is_thread_entry(name), "{name}");
        }
    }
}
