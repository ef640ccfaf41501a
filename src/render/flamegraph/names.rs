//! The names a flamegraph draws, each once: every frame name of a picture,
//! ranked in byte order, and the stacks as lists of those ranks
//! ([`NameId`]). Stacks of ranks sort as their names do, frame by frame,
//! and compare as integers: a deep stack of full C++ names is many
//! kilobytes (66 MB of text for 4,300 stacks of `examples/model.mlir`).
//! Two functions of one name (`_start` of the Python launcher and of the
//! compiler) are one frame, as in a folded line.

use hashbrown::HashMap;

use super::depth::{Drawn, Hidden};
use crate::fold::TRUNCATED_FRAME;
use crate::index::index_type;
use crate::profile::Profile;
use crate::symbolize::SymbolId;

index_type! {
    /// A frame name of one picture: its rank among the picture's names.
    pub(super) struct NameId(u32);
}

/// A stack of a picture as the ranks of its frames' names, and its count.
pub(super) type NamedStack = (Vec<NameId>, u64);

/// Every frame name of a picture, by rank (byte order).
pub(super) struct FrameNames {
    by_rank: Vec<String>,
    /// Each symbol's rank, by symbol index (`None` if not drawn).
    symbol_rank: Vec<Option<NameId>>,
    /// Ranks of the names that are not symbols: threads, the truncation
    /// marker, a depth limit's markers, an icicle's category frames, a
    /// pass picture's passes.
    other_rank: HashMap<String, NameId>,
    /// The names of the depth limit's marker frames.
    markers: Vec<String>,
}

impl FrameNames {
    /// The names of every frame of `stacks` (their depth markers too), with
    /// `extra` names (frames the caller adds to stacks, such as an icicle's
    /// categories).
    pub(super) fn new(profile: &Profile, stacks: &[(Drawn<'_>, u64)], extra: &[String]) -> Self {
        let mut symbols: Vec<usize> = stacks
            .iter()
            .flat_map(|(drawn, _)| drawn.stack.symbols.iter().map(|symbol| symbol.index()))
            .collect();
        symbols.sort_unstable();
        symbols.dedup();
        let mut markers: Vec<String> = stacks
            .iter()
            .filter_map(|(drawn, _)| drawn.hidden.map(Hidden::name))
            .collect();
        markers.sort_unstable();
        markers.dedup();
        let mut others: Vec<&str> = stacks.iter().map(|(drawn, _)| drawn.stack.thread).collect();
        others.push(TRUNCATED_FRAME);
        others.extend(markers.iter().map(String::as_str));
        others.extend(extra.iter().map(String::as_str));
        let entries: Vec<(&str, Option<usize>)> = symbols
            .iter()
            .map(|&index| {
                let symbol = SymbolId::new(index);
                (profile.symbols.get(symbol).name.as_str(), Some(index))
            })
            .chain(others.into_iter().map(|name| (name, None)))
            .collect();
        let mut names = Self::from_entries(entries);
        names.markers = markers;
        names
    }

    /// The names of a picture whose frames are not symbols (the passes).
    pub(super) fn of_names<'n>(names: impl IntoIterator<Item = &'n str>) -> Self {
        Self::from_entries(names.into_iter().map(|name| (name, None)).collect())
    }

    /// The names of the depth limit's marker frames in the stacks.
    pub(super) fn markers(&self) -> &[String] {
        &self.markers
    }

    /// The names of `entries`, each with its symbol's index or `None` for
    /// the names that are not symbols.
    fn from_entries(mut entries: Vec<(&str, Option<usize>)>) -> Self {
        entries.sort_unstable();
        let symbols = entries.iter().filter_map(|(_, symbol)| *symbol).max();
        let mut by_rank: Vec<String> = Vec::new();
        let mut symbol_rank = vec![None; symbols.map_or(0, |last| last + 1)];
        let mut other_rank = HashMap::new();
        for (name, symbol) in entries {
            if by_rank.last().map(String::as_str) != Some(name) {
                by_rank.push(name.to_owned());
            }
            let rank = NameId::new(by_rank.len() - 1);
            match symbol {
                Some(index) => symbol_rank[index] = Some(rank),
                None => {
                    other_rank.insert(name.to_owned(), rank);
                }
            }
        }
        Self {
            by_rank,
            symbol_rank,
            other_rank,
            markers: Vec::new(),
        }
    }

    /// How many names there are.
    pub(super) fn len(&self) -> usize {
        self.by_rank.len()
    }

    /// The names, by rank.
    pub(super) fn into_names(self) -> Vec<String> {
        self.by_rank
    }

    /// The name of `symbol`'s frame; `None` when no stack here has it.
    pub(super) fn symbol(&self, symbol: SymbolId) -> Option<NameId> {
        *self.symbol_rank.get(symbol.index())?
    }

    /// The name of a frame that is not a symbol (a thread, the truncation
    /// marker, a depth marker, one of the `extra` names); `None` when no
    /// stack here has it.
    pub(super) fn other(&self, name: &str) -> Option<NameId> {
        self.other_rank.get(name).copied()
    }

    fn known(&self, name: &str) -> NameId {
        self.other_rank[name]
    }

    /// The names of `drawn` from its thread on, with its depth marker (on
    /// top, or for an icicle's outer frames below them) and `leaf_frame`
    /// (one of the `extra` names) on top.
    pub(super) fn stack(&self, drawn: &Drawn<'_>, leaf_frame: Option<&str>) -> Vec<NameId> {
        let stack = &drawn.stack;
        let mut names = Vec::with_capacity(stack.symbols.len() + 4);
        names.push(self.known(stack.thread));
        if stack.truncated {
            names.push(self.known(TRUNCATED_FRAME));
        }
        let marker = drawn.hidden.map(|hidden| (hidden.outer(), hidden.name()));
        if let Some((true, name)) = &marker {
            names.push(self.known(name));
        }
        names.extend(
            stack
                .symbols
                .iter()
                .map(|symbol| self.symbol_rank[symbol.index()].expect("a symbol of the stacks")),
        );
        if let Some((false, name)) = &marker {
            names.push(self.known(name));
        }
        if let Some(name) = leaf_frame {
            names.push(self.known(name));
        }
        names
    }

    /// The stacks of `stacks` from their threads on, in the order of their
    /// names, frame by frame.
    pub(super) fn stacks(&self, stacks: &[(Drawn<'_>, u64)]) -> Vec<NamedStack> {
        let mut named: Vec<NamedStack> = stacks
            .iter()
            .map(|(drawn, count)| (self.stack(drawn, None), *count))
            .collect();
        named.sort_unstable();
        named
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_rank_in_byte_order_and_a_repeated_name_is_one() {
        let names = FrameNames::of_names(["main", "f(int)", "f", "main", "[12 deeper frames]"]);
        assert_eq!(names.len(), 4);
        let rank = |name: &str| names.other(name).unwrap().index();
        assert_eq!(
            [
                rank("[12 deeper frames]"),
                rank("f"),
                rank("f(int)"),
                rank("main")
            ],
            [0, 1, 2, 3]
        );
        assert_eq!(names.other("g"), None);
        assert_eq!(names.into_names()[2], "f(int)");
    }
}
