//! The processes and threads of a recording, rebuilt from COMM, FORK and MMAP
//! records: who is who, what each was called, and what code each mapped.
//! EXIT records change nothing here: a pid or tid used again after an exit
//! arrives with a FORK, which starts a new image or thread.
//!
//! A process that execs becomes a new [`ProcessImage`] under the same pid, so
//! the Python launcher of `iree-compile` and the native compiler it execs are
//! told apart. A renamed thread (`llvm-worker-0`) gets a new [`ThreadSlot`].
//!
//! The compiler is every process that runs the compiler's library,
//! whatever its program ([`Processes::mark_compilers`]): the native
//! `iree-compile`, and a Python that compiles through `iree.compiler.api`
//! (as iree-turbine does), but neither the Python launcher of the native
//! compiler (it loads the library too, when it imports `iree.compiler`)
//! nor the linker `iree-lld` (which links it).

use hashbrown::HashMap;

use crate::binary::DsoId;

/// The file name of the compiler's library, which every program that
/// compiles maps.
const COMPILER_LIBRARY: &str = "libIREECompiler.so";
/// The suffix of the native compiler's executable in the iree-base-compiler wheel.
const NATIVE_COMPILER_EXECUTABLE: &str = "_mlir_libs/iree-compile";
/// The linker the compiler runs for each executable (llvm-cpu), as a child
/// process; it links the compiler's library.
pub(crate) const LINKER_EXECUTABLE: &str = "iree-lld";

crate::index::index_type! {
    /// Index of a [`ProcessImage`].
    pub(crate) struct ProcessId(u32);
}

crate::index::index_type! {
    /// Index of a [`ThreadSlot`].
    pub(crate) struct ThreadId(u32);
}

/// One program run by one pid: from its fork or exec to its next exec or exit.
#[derive(Clone, Debug)]
pub(crate) struct ProcessImage {
    pub pid: i32,
    pub parent_pid: Option<i32>,
    /// The command name (`comm`) of the main thread at exec.
    pub name: String,
    /// The first file mapped after exec: the program's executable.
    pub executable: Option<String>,
    /// True when this image began with an exec seen in the recording.
    pub began_with_exec: bool,
    /// True when it mapped the compiler's library (or was forked from a
    /// process that had).
    pub maps_compiler_library: bool,
    /// True when it is the compiler, as [`Processes::mark_compilers`]
    /// found: not read from the recording, but worked out from the images.
    pub compiler: bool,
}

impl ProcessImage {
    /// The file name of its executable.
    pub(crate) fn executable_name(&self) -> Option<&str> {
        (self.executable.as_deref()).and_then(|path| path.rsplit('/').next())
    }

    /// True for the native compiler, `iree-compile` of the wheel.
    fn is_native_compiler(&self) -> bool {
        (self.executable.as_deref()).is_some_and(|path| path.ends_with(NATIVE_COMPILER_EXECUTABLE))
    }

    /// True for the linker, `iree-lld`, by its executable or its name.
    pub(crate) fn is_linker(&self) -> bool {
        self.name == LINKER_EXECUTABLE || self.executable_name() == Some(LINKER_EXECUTABLE)
    }
}

/// One thread under one name.
#[derive(Clone, Debug)]
pub(crate) struct ThreadSlot {
    pub process: ProcessId,
    pub tid: i32,
    pub name: String,
}

/// A mapped range of code in one process.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MappedCode {
    pub start: u64,
    pub end: u64,
    pub dso: DsoId,
    /// Actual address minus module-relative address.
    pub bias: u64,
}

/// Everything known about processes, threads and mappings so far.
#[derive(Default)]
pub(crate) struct Processes {
    pub images: Vec<ProcessImage>,
    pub threads: Vec<ThreadSlot>,
    current_image: HashMap<i32, ProcessId>,
    current_thread: HashMap<i32, ThreadId>,
    mappings: HashMap<i32, Vec<MappedCode>>,
}

impl Processes {
    /// The processes and threads of a recording read before (from the
    /// cache). They take no more records: the current images, threads and
    /// mappings are not kept.
    pub(crate) fn from_parts(images: Vec<ProcessImage>, threads: Vec<ThreadSlot>) -> Processes {
        Processes {
            images,
            threads,
            ..Processes::default()
        }
    }

    pub(crate) fn image(&self, id: ProcessId) -> &ProcessImage {
        &self.images[id.index()]
    }

    pub(crate) fn thread(&self, id: ThreadId) -> &ThreadSlot {
        &self.threads[id.index()]
    }

    /// Gives a thread its program's file name after its own, as
    /// `iree-compile (python3.11)`, when threads of another program have
    /// the same name: iree-compile's Python launcher and the native
    /// compiler are both `iree-compile`, and would merge in flamegraphs and
    /// tables. A thread named as its program's file keeps its name.
    pub(crate) fn qualify_shared_names(&mut self) {
        let program = |thread: &ThreadSlot| {
            let executable = self.images[thread.process.index()].executable.as_deref()?;
            std::path::Path::new(executable).file_name()?.to_str()
        };
        let mut programs: HashMap<&str, Vec<&str>> = HashMap::new();
        for thread in &self.threads {
            if let Some(program) = program(thread) {
                let seen = programs.entry(thread.name.as_str()).or_default();
                if !seen.contains(&program) {
                    seen.push(program);
                }
            }
        }
        let renamed: Vec<Option<String>> = (self.threads.iter())
            .map(|thread| {
                let program = program(thread)?;
                let shared = programs.get(thread.name.as_str())?.len() > 1;
                (shared && program != thread.name).then(|| format!("{} ({program})", thread.name))
            })
            .collect();
        drop(programs);
        for (thread, name) in self.threads.iter_mut().zip(renamed) {
            if let Some(name) = name {
                thread.name = name;
            }
        }
    }

    /// Marks the compiler's images: the native `iree-compile`, and every
    /// other that mapped the compiler's library, unless it is the linker or
    /// the launcher of a native compiler (its parent, or the same pid
    /// before its exec). A Python that compiles in-process is the
    /// compiler; the Python script that starts the native one is not.
    pub(crate) fn mark_compilers(&mut self) {
        let natives: Vec<(i32, Option<i32>)> = (self.images.iter())
            .filter(|image| image.is_native_compiler())
            .map(|image| (image.pid, image.parent_pid))
            .collect();
        for image in &mut self.images {
            let launches_native = natives
                .iter()
                .any(|&(pid, parent)| pid == image.pid || parent == Some(image.pid));
            image.compiler = image.is_native_compiler()
                || (image.maps_compiler_library && !image.is_linker() && !launches_native);
        }
    }

    /// A COMM record: an exec starts a new image; otherwise the thread is renamed.
    pub(crate) fn on_comm(&mut self, pid: i32, tid: i32, name: &str, is_exec: bool) {
        if is_exec {
            let parent_pid = self
                .current_image
                .get(&pid)
                .and_then(|&id| self.image(id).parent_pid);
            let image = self.push_image(ProcessImage {
                pid,
                parent_pid,
                name: name.to_owned(),
                executable: None,
                began_with_exec: true,
                maps_compiler_library: false,
                compiler: false,
            });
            self.mappings.remove(&pid);
            self.push_thread(image, tid, name);
            return;
        }
        let image = self.image_of(pid, name);
        if pid == tid && !self.current_thread.contains_key(&tid) {
            self.images[image.index()].name = name.to_owned();
        }
        self.push_thread(image, tid, name);
    }

    /// A FORK record: a new process (copying the parent's mappings) or a new thread.
    pub(crate) fn on_fork(&mut self, pid: i32, ppid: i32, tid: i32, parent_tid: i32) {
        let inherited_name = self
            .current_thread
            .get(&parent_tid)
            .map(|&id| self.thread(id).name.clone())
            .unwrap_or_else(|| format!("[{tid}]"));
        if pid != ppid && pid == tid {
            let parent = self
                .current_image
                .get(&ppid)
                .map(|&id| self.image(id).clone());
            let image = self.push_image(ProcessImage {
                pid,
                parent_pid: Some(ppid),
                name: parent
                    .as_ref()
                    .map_or_else(|| inherited_name.clone(), |parent| parent.name.clone()),
                maps_compiler_library: parent
                    .as_ref()
                    .is_some_and(|parent| parent.maps_compiler_library),
                executable: parent.and_then(|parent| parent.executable),
                began_with_exec: false,
                compiler: false,
            });
            let copied = self.mappings.get(&ppid).cloned().unwrap_or_default();
            self.mappings.insert(pid, copied);
            self.push_thread(image, tid, &inherited_name);
        } else {
            let image = self.image_of(pid, &inherited_name);
            self.push_thread(image, tid, &inherited_name);
        }
    }

    /// An executable mapping in `pid`; replaces whatever it overlaps.
    pub(crate) fn on_mmap(&mut self, pid: i32, code: MappedCode, path: &str) {
        if let Some(&image) = self.current_image.get(&pid) {
            let image = &mut self.images[image.index()];
            if image.executable.is_none() && image.began_with_exec {
                image.executable = Some(path.to_owned());
            }
            if path.rsplit('/').next() == Some(COMPILER_LIBRARY) {
                image.maps_compiler_library = true;
            }
        }
        let list = self.mappings.entry(pid).or_default();
        list.retain(|old| old.end <= code.start || old.start >= code.end);
        let at = list.partition_point(|old| old.start < code.start);
        list.insert(at, code);
    }

    /// The code mapped at `address` in `pid`.
    pub(crate) fn mapping_at(&self, pid: i32, address: u64) -> Option<&MappedCode> {
        let list = self.mappings.get(&pid)?;
        let after = list.partition_point(|code| code.start <= address);
        list[..after].last().filter(|code| address < code.end)
    }

    /// The thread slot a sample of `pid`/`tid` belongs to, created if perf
    /// never announced the thread.
    pub(crate) fn thread_for_sample(&mut self, pid: i32, tid: i32) -> ThreadId {
        let current_image = self.current_image.get(&pid).copied();
        if let Some(&id) = self.current_thread.get(&tid) {
            if Some(self.thread(id).process) == current_image {
                return id;
            }
        }
        let image = self.image_of(pid, &format!("[{pid}]"));
        let name = self.image(image).name.clone();
        self.push_thread(image, tid, &name)
    }

    /// The current image of `pid`, created with `name` if unknown.
    fn image_of(&mut self, pid: i32, name: &str) -> ProcessId {
        if let Some(&id) = self.current_image.get(&pid) {
            return id;
        }
        self.push_image(ProcessImage {
            pid,
            parent_pid: None,
            name: name.to_owned(),
            executable: None,
            began_with_exec: false,
            maps_compiler_library: false,
            compiler: false,
        })
    }

    fn push_image(&mut self, image: ProcessImage) -> ProcessId {
        let pid = image.pid;
        self.images.push(image);
        let id = ProcessId::new(self.images.len() - 1);
        self.current_image.insert(pid, id);
        id
    }

    fn push_thread(&mut self, process: ProcessId, tid: i32, name: &str) -> ThreadId {
        self.threads.push(ThreadSlot {
            process,
            tid,
            name: name.to_owned(),
        });
        let id = ThreadId::new(self.threads.len() - 1);
        self.current_thread.insert(tid, id);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_in_a_forked_child_makes_a_new_image_and_renames_keep_the_process() {
        let mut processes = Processes::default();
        processes.on_comm(100, 100, "iree-compile", false);
        processes.on_fork(101, 100, 101, 100);
        processes.on_comm(101, 101, "iree-compile", true);
        processes.on_fork(101, 101, 102, 101);
        processes.on_comm(101, 102, "llvm-worker-0", false);
        let worker = processes.thread_for_sample(101, 102);
        let main = processes.thread_for_sample(101, 101);
        let launcher = processes.thread_for_sample(100, 100);
        assert_eq!(processes.thread(worker).name, "llvm-worker-0");
        assert_eq!(
            processes.thread(worker).process,
            processes.thread(main).process
        );
        assert_ne!(
            processes.thread(main).process,
            processes.thread(launcher).process
        );
        let compiler = processes.image(processes.thread(main).process);
        assert!(compiler.began_with_exec);
        assert_eq!(compiler.parent_pid, Some(100));
    }

    #[test]
    fn a_new_mapping_replaces_what_it_overlaps() {
        let mut processes = Processes::default();
        let code = |start, end, dso| MappedCode {
            start,
            end,
            dso: DsoId::new(dso),
            bias: 0,
        };
        processes.on_mmap(1, code(0x1000, 0x3000, 7), "/a");
        processes.on_mmap(1, code(0x2000, 0x4000, 8), "/b");
        assert!(processes.mapping_at(1, 0x1800).is_none());
        assert_eq!(processes.mapping_at(1, 0x2800).unwrap().dso, DsoId::new(8));
        assert!(processes.mapping_at(1, 0x4000).is_none());
    }

    #[test]
    fn a_launcher_and_a_compiler_of_one_name_are_told_apart_by_their_program() {
        let mut processes = Processes::default();
        let code = |dso| MappedCode {
            start: 0x1000,
            end: 0x2000,
            dso: DsoId::new(dso),
            bias: 0,
        };
        // The Python launcher, exec'd, and the compiler it starts.
        processes.on_comm(100, 100, "iree-compile", true);
        processes.on_mmap(100, code(1), "/usr/bin/python3.11");
        processes.on_fork(101, 100, 101, 100);
        processes.on_comm(101, 101, "iree-compile", true);
        processes.on_mmap(101, code(2), "/venv/_mlir_libs/iree-compile");
        processes.on_fork(101, 101, 102, 101);
        processes.on_comm(101, 102, "llvm-worker-0", false);
        let launcher = processes.thread_for_sample(100, 100);
        let compiler = processes.thread_for_sample(101, 101);
        let worker = processes.thread_for_sample(101, 102);
        processes.qualify_shared_names();
        assert_eq!(processes.thread(launcher).name, "iree-compile (python3.11)");
        assert_eq!(processes.thread(compiler).name, "iree-compile");
        assert_eq!(processes.thread(worker).name, "llvm-worker-0");
    }

    #[test]
    fn the_compiler_is_whatever_process_runs_its_library_but_the_launcher_and_linker() {
        let mut processes = Processes::default();
        let code = |dso| MappedCode {
            start: 0x1000 * dso as u64,
            end: 0x1000 * dso as u64 + 0x800,
            dso: DsoId::new(dso),
            bias: 0,
        };
        let library = "/venv/iree/compiler/_mlir_libs/libIREECompiler.so";
        // The Python launcher imports iree.compiler (the library) and
        // execs the native compiler in a child, which runs the linker.
        processes.on_comm(100, 100, "iree-compile", true);
        processes.on_mmap(100, code(1), "/usr/bin/python3.11");
        processes.on_mmap(100, code(2), library);
        processes.on_fork(101, 100, 101, 100);
        processes.on_comm(101, 101, "iree-compile", true);
        processes.on_mmap(101, code(3), "/venv/iree/compiler/_mlir_libs/iree-compile");
        processes.on_mmap(101, code(2), library);
        processes.on_fork(102, 101, 102, 101);
        processes.on_comm(102, 102, "iree-lld", true);
        processes.on_mmap(102, code(4), "/venv/iree/compiler/_mlir_libs/iree-lld");
        processes.on_mmap(102, code(2), library);
        // A Python that compiles in-process (iree.compiler.api), and one
        // that never loads the library.
        processes.on_comm(200, 200, "python3", true);
        processes.on_mmap(200, code(1), "/usr/bin/python3.11");
        processes.on_mmap(200, code(2), library);
        processes.on_comm(300, 300, "python3", true);
        processes.on_mmap(300, code(1), "/usr/bin/python3.11");
        processes.mark_compilers();
        let compilers: Vec<(i32, bool)> = (processes.images.iter())
            .map(|image| (image.pid, image.compiler))
            .collect();
        assert_eq!(
            compilers,
            [
                (100, false),
                (101, false),
                (101, true),
                (102, true),
                (102, false),
                (200, true),
                (300, false),
            ],
            "the launcher, its child before exec and the linker are not the compiler; the \
             compiler's child before exec is"
        );
    }
}
