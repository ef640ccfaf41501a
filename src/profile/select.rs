//! Which samples a report covers: all of them, or those of chosen processes.

use crate::process::ProcessImage;

/// The suffix of the native compiler's executable in the iree-base-compiler wheel.
const COMPILER_EXECUTABLE: &str = "_mlir_libs/iree-compile";
/// The linker the compiler runs for each executable (llvm-cpu), as a child
/// process.
const LINKER_EXECUTABLE: &str = "iree-lld";

/// A restriction to some processes. The default keeps every sample.
#[derive(Clone, Debug, Default)]
pub(crate) struct SampleFilter {
    /// Keep processes with these pids.
    pub pids: Vec<i32>,
    /// Keep processes whose name or executable file name is one of these.
    pub names: Vec<String>,
    /// Keep the native compiler process (the `iree-compile` executable the
    /// Python launcher execs).
    pub compiler_only: bool,
}

impl SampleFilter {
    /// True when every sample is kept.
    pub(crate) fn keeps_all(&self) -> bool {
        self.pids.is_empty() && self.names.is_empty() && !self.compiler_only
    }

    /// True when samples of `image` are kept.
    pub(crate) fn accepts(&self, image: &ProcessImage) -> bool {
        if self.keeps_all() {
            return true;
        }
        let executable_name = image
            .executable
            .as_deref()
            .and_then(|path| path.rsplit('/').next());
        self.pids.contains(&image.pid)
            || self
                .names
                .iter()
                .any(|name| *name == image.name || Some(name.as_str()) == executable_name)
            || (self.compiler_only && is_compiler(image))
    }
}

/// True for the native compiler process.
pub(crate) fn is_compiler(image: &ProcessImage) -> bool {
    image
        .executable
        .as_deref()
        .is_some_and(|path| path.ends_with(COMPILER_EXECUTABLE))
}

/// True for the linker, `iree-lld`, by its executable or its name.
pub(crate) fn is_linker(image: &ProcessImage) -> bool {
    image.name == LINKER_EXECUTABLE
        || image
            .executable
            .as_deref()
            .is_some_and(|path| path.rsplit('/').next() == Some(LINKER_EXECUTABLE))
}
