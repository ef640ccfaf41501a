//! The program of the command to record, found: a path as it is given, a
//! bare name on `PATH`, else in the Python venv (the active one's
//! `$VIRTUAL_ENV/bin`, then the venv compile-perf itself was installed
//! into by pip), so that `compile-perf record -- iree-compile …` finds the
//! iree-compile of `pip install iree-base-compiler` beside it.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::error::RecordError;

/// The environment variable an activated venv sets to its directory.
const VIRTUAL_ENV: &str = "VIRTUAL_ENV";

/// The program to run for `program`: itself when it is a path to a file or
/// a bare name found on `PATH`; the venv's file when only a venv has it.
pub(super) fn resolve_program(program: &OsStr) -> Result<OsString, RecordError> {
    let path_variable = std::env::var_os("PATH");
    let virtual_env = std::env::var_os(VIRTUAL_ENV).filter(|dir| !dir.is_empty());
    let installed_venv = std::env::current_exe()
        .ok()
        .and_then(|exe| venv_bin_of(&exe));
    let places = Places {
        path_variable: path_variable.as_deref(),
        virtual_env_bin: virtual_env.map(|dir| PathBuf::from(dir).join("bin")),
        installed_venv_bin: installed_venv,
    };
    places
        .find(program)
        .ok_or_else(|| RecordError::CommandMissing {
            command: program.to_string_lossy().into_owned(),
            looked_in: places.described(program),
        })
}

/// The `bin` directory that holds `exe` when it is a venv's (its parent
/// holds `pyvenv.cfg`), where pip installs compile-perf's wheel.
fn venv_bin_of(exe: &Path) -> Option<PathBuf> {
    let bin = exe.parent()?;
    bin.parent()?
        .join("pyvenv.cfg")
        .is_file()
        .then(|| bin.to_owned())
}

/// Where a bare program name is looked for, in this order.
struct Places<'a> {
    /// `$PATH`.
    path_variable: Option<&'a OsStr>,
    /// `$VIRTUAL_ENV/bin`, when a venv is active.
    virtual_env_bin: Option<PathBuf>,
    /// The venv compile-perf runs from, when it was installed into one.
    installed_venv_bin: Option<PathBuf>,
}

impl Places<'_> {
    fn find(&self, program: &OsStr) -> Option<OsString> {
        let path = Path::new(program);
        if path.components().count() != 1 {
            return path.is_file().then(|| program.to_owned());
        }
        let on_path = self
            .path_variable
            .is_some_and(|paths| std::env::split_paths(paths).any(|dir| dir.join(path).is_file()));
        if on_path {
            return Some(program.to_owned());
        }
        [&self.virtual_env_bin, &self.installed_venv_bin]
            .into_iter()
            .flatten()
            .map(|dir| dir.join(path))
            .find(|candidate| candidate.is_file())
            .map(PathBuf::into_os_string)
    }

    /// Where [`Places::find`] looked for `program`, for the error.
    fn described(&self, program: &OsStr) -> String {
        if Path::new(program).components().count() != 1 {
            return String::new();
        }
        let venvs: Vec<String> = [&self.virtual_env_bin, &self.installed_venv_bin]
            .into_iter()
            .flatten()
            .map(|dir| dir.display().to_string())
            .collect();
        let venvs = match venvs.is_empty() {
            true => String::new(),
            false => format!(" and in {}", venvs.join(", ")),
        };
        let active = match self.virtual_env_bin {
            Some(_) => "",
            None => "; no venv is active",
        };
        let iree = match program.to_string_lossy().starts_with("iree-") {
            true => " (iree-compile comes with pip install iree-base-compiler)",
            false => "",
        };
        format!(
            " (looked on PATH{venvs}{active}): give its path, or activate the venv that has it{iree}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "compile-perf-program-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"").unwrap();
    }

    #[test]
    fn a_name_on_path_stays_as_it_is_given() {
        let dir = scratch("on-path");
        touch(&dir.join("path/iree-compile"));
        touch(&dir.join("venv/bin/iree-compile"));
        let paths = std::env::join_paths([dir.join("path")]).unwrap();
        let places = Places {
            path_variable: Some(&paths),
            virtual_env_bin: Some(dir.join("venv/bin")),
            installed_venv_bin: None,
        };
        assert_eq!(
            places.find(OsStr::new("iree-compile")),
            Some(OsString::from("iree-compile"))
        );
    }

    #[test]
    fn a_name_off_path_is_found_in_the_active_venv_first() {
        let dir = scratch("active");
        touch(&dir.join("active/bin/iree-compile"));
        touch(&dir.join("installed/bin/iree-compile"));
        let places = Places {
            path_variable: Some(OsStr::new("/nonexistent")),
            virtual_env_bin: Some(dir.join("active/bin")),
            installed_venv_bin: Some(dir.join("installed/bin")),
        };
        assert_eq!(
            places.find(OsStr::new("iree-compile")),
            Some(dir.join("active/bin/iree-compile").into_os_string())
        );
    }

    #[test]
    fn a_name_off_path_is_found_in_the_venv_compile_perf_was_installed_into() {
        let dir = scratch("installed");
        touch(&dir.join("venv/pyvenv.cfg"));
        touch(&dir.join("venv/bin/iree-compile"));
        touch(&dir.join("venv/bin/compile-perf"));
        let installed = venv_bin_of(&dir.join("venv/bin/compile-perf"));
        assert_eq!(installed.as_deref(), Some(dir.join("venv/bin").as_path()));
        assert_eq!(venv_bin_of(&dir.join("elsewhere/compile-perf")), None);
        let places = Places {
            path_variable: None,
            virtual_env_bin: None,
            installed_venv_bin: installed,
        };
        assert_eq!(
            places.find(OsStr::new("iree-compile")),
            Some(dir.join("venv/bin/iree-compile").into_os_string())
        );
    }

    #[test]
    fn a_missing_program_says_where_it_was_looked_for() {
        let places = Places {
            path_variable: Some(OsStr::new("/nonexistent")),
            virtual_env_bin: None,
            installed_venv_bin: Some(PathBuf::from("/opt/venv/bin")),
        };
        assert_eq!(places.find(OsStr::new("iree-compile")), None);
        assert_eq!(
            places.described(OsStr::new("iree-compile")),
            " (looked on PATH and in /opt/venv/bin; no venv is active): give its path, or activate the venv that has it (iree-compile comes with pip install iree-base-compiler)"
        );
        assert_eq!(
            places.described(OsStr::new("clang")),
            " (looked on PATH and in /opt/venv/bin; no venv is active): give its path, or activate the venv that has it"
        );
        // A path is looked for where it says, and only there.
        assert_eq!(places.find(OsStr::new("/nonexistent/iree-compile")), None);
        assert_eq!(places.described(OsStr::new("./iree-compile")), "");
    }
}
