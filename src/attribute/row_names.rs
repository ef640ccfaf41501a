//! How every row reads, in one place for text, Markdown, CSV, JSON and the
//! HTML page alike: its name and colour in every run (what `diff` and a
//! series match rows by), and in one recording, where a thread or process
//! is also told from another of the same name by its pids. Each is an
//! exhaustive match over [`RowKey`].

use super::action_rows::action_name;
use super::actions::ActionJoin;
use super::classes::Classes;
use super::row_key::RowKey;
use crate::process::ProcessId;
use crate::profile::Profile;

/// How a row reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowName {
    pub name: String,
    /// The category's colour (`#rrggbb`), for categories and symbols.
    pub color: Option<String>,
}

/// What names the rows of one recording.
#[derive(Clone, Copy)]
pub(crate) struct RowNames<'a> {
    pub profile: &'a Profile,
    pub classes: &'a Classes<'a>,
    /// MLIR's actions on perf's clock, which name the rows of actions.
    pub actions: Option<&'a ActionJoin>,
}

impl RowNames<'_> {
    /// How a row reads in one recording (in tables, on the HTML page and as
    /// JSON's `key`): its name in every run, and a thread's pid and tid or
    /// a process's pid, as in `iree-compile: llvm-worker-3 (7497/7502)`.
    pub(crate) fn in_recording(&self, key: RowKey) -> RowName {
        let mut row = self.across_runs(key).1;
        let processes = &self.profile.processes;
        match key {
            RowKey::Thread(id) => {
                let thread = processes.thread(id);
                let pid = processes.image(thread.process).pid;
                row.name.push_str(&format!(" ({pid}/{})", thread.tid));
            }
            RowKey::Process(id) => row
                .name
                .push_str(&format!(" ({})", processes.image(id).pid)),
            RowKey::Category(_)
            | RowKey::Symbol(_)
            | RowKey::Dso(_)
            | RowKey::Pass(_)
            | RowKey::OutsidePass(_)
            | RowKey::Action(_)
            | RowKey::OutsideAction(_) => {}
        }
        row
    }

    /// The key a row is matched by across runs and builds (a category's
    /// id; else its name, which holds no pid), and how it reads there.
    pub(crate) fn across_runs(&self, key: RowKey) -> (String, RowName) {
        let (profile, classes) = (self.profile, self.classes);
        let named = |name: String| RowName { name, color: None };
        let row = match key {
            RowKey::Category(id) => {
                let category = classes.table.category(id);
                let name = RowName {
                    name: category.name.clone(),
                    color: Some(category.color.clone()),
                };
                return (category.id.clone(), name);
            }
            RowKey::Symbol(id) => RowName {
                name: profile.symbols.get(id).name.clone(),
                color: Some(
                    classes
                        .table
                        .category(classes.category_of(id))
                        .color
                        .clone(),
                ),
            },
            RowKey::Dso(id) => named(profile.store.get(id).name.clone()),
            RowKey::Thread(id) => {
                let thread = profile.processes.thread(id);
                named(format!(
                    "{}: {}",
                    self.process_name(thread.process),
                    thread.name
                ))
            }
            RowKey::Process(id) => named(self.process_name(id)),
            RowKey::Pass(id) => named(classes.passes.name(id).to_owned()),
            RowKey::OutsidePass(place) => named(place.name().to_owned()),
            RowKey::Action(name) => named(action_name(self.actions, name)),
            RowKey::OutsideAction(place) => {
                named(place.name(|name| action_name(self.actions, name)))
            }
        };
        (row.name.clone(), row)
    }

    /// A process by its name, and its executable's file name where that
    /// differs (the Python launcher and the native compiler are both named
    /// `iree-compile`): the same in every run, unlike its pid.
    fn process_name(&self, id: ProcessId) -> String {
        let image = self.profile.processes.image(id);
        let executable = image
            .executable
            .as_deref()
            .and_then(|path| path.rsplit('/').next());
        match executable {
            Some(file) if file != image.name => format!("{} ({file})", image.name),
            _ => image.name.clone(),
        }
    }
}
