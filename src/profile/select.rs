//! Which samples a report covers: all of them, or those of chosen processes.

use crate::process::ProcessImage;

/// A restriction to some processes. The default keeps every sample.
#[derive(Clone, Debug, Default)]
pub(crate) struct SampleFilter {
    /// Keep processes with these pids.
    pub pids: Vec<i32>,
    /// Keep processes whose name or executable file name is one of these.
    pub names: Vec<String>,
    /// Keep the compiler's processes: the native `iree-compile` the Python
    /// launcher execs, or a Python that compiles in-process.
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
        let executable_name = image.executable_name();
        self.pids.contains(&image.pid)
            || self
                .names
                .iter()
                .any(|name| *name == image.name || Some(name.as_str()) == executable_name)
            || (self.compiler_only && is_compiler(image))
    }
}

/// True for a compiler process: one that runs the compiler's library (the
/// native `iree-compile`, or a Python compiling in-process), as
/// [`crate::process::Processes::mark_compilers`] found.
pub(crate) fn is_compiler(image: &ProcessImage) -> bool {
    image.compiler
}

/// True for the linker, `iree-lld`, by its executable or its name.
pub(crate) fn is_linker(image: &ProcessImage) -> bool {
    image.is_linker()
}
