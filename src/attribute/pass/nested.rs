//! The passes of a nested compiler (const-eval's JitGlobalsPass, which
//! compiles a module of its own inside the compile): each pass it runs as
//! a row of its own (`JitGlobalsPass > ApplyPatternsPass`), and the lookups
//! between those rows and the compile's own passes.

use super::{NESTED_COMPILERS, NESTED_SEPARATOR, PassId, Passes};

impl Passes {
    /// The rows of the passes a nested compiler that runs may run: each
    /// pass and pass initialization, as its.
    pub(super) fn add_nested(&mut self, runs: &[bool]) {
        let known = self.names.len();
        self.parents = vec![None; known];
        self.compilers = (0..runs.len())
            .filter(|&at| runs[at] && NESTED_COMPILERS.contains(&self.names[at].as_str()))
            .map(PassId::new)
            .collect();
        for owner in self.compilers.clone() {
            for at in (0..known).filter(|&at| at != owner.index()) {
                let pass = PassId::new(at);
                if self.is_verification(pass) {
                    continue;
                }
                let name = format!(
                    "{}{NESTED_SEPARATOR}{}",
                    self.names[owner.index()],
                    self.names[at]
                );
                self.names.push(name);
                self.phases.push(self.phases[owner.index()]);
                self.verifications.push(None);
                self.parents.push(Some(owner));
                let nested = PassId::new(self.names.len() - 1);
                self.nested.insert((owner, pass), nested);
                self.inner.insert(nested, pass);
            }
        }
    }

    /// `pass` as it runs under the nested compiler `owner`, if any.
    pub(crate) fn under(&self, owner: Option<PassId>, pass: PassId) -> PassId {
        owner
            .and_then(|owner| self.nested.get(&(owner, pass)).copied())
            .unwrap_or(pass)
    }

    /// The nested compiler among `passes` (outermost first): the passes
    /// after it are its own.
    pub(crate) fn nested_compiler(&self, passes: &[PassId]) -> Option<usize> {
        passes
            .iter()
            .position(|&pass| self.is_nested_compiler(pass))
    }

    /// Whether `pass` compiles a module of its own ([`NESTED_COMPILERS`]).
    pub(crate) fn is_nested_compiler(&self, pass: PassId) -> bool {
        self.compilers.contains(&pass)
    }

    /// The rows of `pass` run by the nested compilers (`JitGlobalsPass >
    /// pass`).
    pub(crate) fn nested_copies(&self, pass: PassId) -> impl Iterator<Item = PassId> + '_ {
        (self.compilers.iter()).filter_map(move |&owner| self.nested.get(&(owner, pass)).copied())
    }

    /// The pass whose frames run `pass`: for a nested compiler's pass, the
    /// pass it is; otherwise itself.
    pub(crate) fn frame_pass(&self, pass: PassId) -> PassId {
        self.inner.get(&pass).copied().unwrap_or(pass)
    }

    /// The nested compiler a pass runs under, for a pass of one.
    pub(crate) fn parent(&self, pass: PassId) -> Option<PassId> {
        self.parents.get(pass.index()).copied().flatten()
    }
}
