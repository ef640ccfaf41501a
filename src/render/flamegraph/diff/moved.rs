//! Frames whose change is only structural: a frame whose share changed
//! beyond the noise while the work under it did not, so that the same leaf
//! functions ran on another path (another thread's stack, another dispatch
//! of the pass manager). Such a frame is drawn as moved, not as grown or
//! shrunk. The leaf functions' samples are counted wherever they are, and
//! judged as the frames are.

use hashbrown::{HashMap, HashSet};

use super::Tree;
use crate::attribute::significance::{self, Count, Noise, RowRuns, Test};

impl<'a> Tree<'a> {
    /// For each frame, true when `significant` says it changed but its leaf
    /// work did not: the samples of the functions that are leaves under it
    /// (on either side), counted over the whole tree run by run, are not a
    /// significant change. Those totals are tested as the frames are, and
    /// corrected together over the frames they are asked of.
    pub(super) fn moved(
        &self,
        significant: &[bool],
        noise: &Noise,
        threshold_pp: f64,
    ) -> Vec<bool> {
        let own: Vec<[Vec<u64>; 2]> = (0..self.nodes.len())
            .map(|node| self.own_runs(node))
            .collect();
        let is_leaf: Vec<bool> = own
            .iter()
            .enumerate()
            .map(|(node, runs)| node != 0 && runs.iter().flatten().any(|&count| count > 0))
            .collect();
        let leaf_runs = self.leaf_runs(&own, &is_leaf);
        let asked: Vec<usize> = (0..self.nodes.len())
            .filter(|&node| significant[node])
            .collect();
        let tests: Vec<Test> = asked
            .iter()
            .map(|&node| {
                let mut totals = self.run_totals.clone().map(|runs| vec![0; runs.len()]);
                for name in self.leaves_under(node, &is_leaf) {
                    for (side, runs) in leaf_runs[name].iter().enumerate() {
                        for (total, count) in totals[side].iter_mut().zip(runs) {
                            *total += count;
                        }
                    }
                }
                let counts = |side: usize| -> Vec<Count> {
                    totals[side]
                        .iter()
                        .zip(&self.run_totals[side])
                        .map(|(&hits, &samples)| Count { hits, samples })
                        .collect()
                };
                let (base, new) = (counts(0), counts(1));
                significance::test_row(
                    &RowRuns {
                        base: &base,
                        new: &new,
                    },
                    noise,
                )
            })
            .collect();
        let verdicts = significance::judge(&tests, threshold_pp, threshold_pp);
        let mut moved = vec![false; self.nodes.len()];
        for (node, verdict) in asked.into_iter().zip(verdicts) {
            moved[node] = !verdict.significant;
        }
        moved
    }

    /// A frame's own samples (those whose leaf it is), run by run: its
    /// samples less its callees'.
    fn own_runs(&self, node: usize) -> [Vec<u64>; 2] {
        let mut own = self.nodes[node].runs.clone();
        for &child in self.nodes[node].children.values() {
            for (side, runs) in self.nodes[child].runs.iter().enumerate() {
                for (mine, theirs) in own[side].iter_mut().zip(runs) {
                    *mine -= theirs;
                }
            }
        }
        own
    }

    /// Every leaf function's samples, wherever it is the leaf, run by run,
    /// from each frame's `own` samples.
    fn leaf_runs(
        &self,
        own: &[[Vec<u64>; 2]],
        is_leaf: &[bool],
    ) -> HashMap<&'a str, [Vec<u64>; 2]> {
        let mut leaves: HashMap<&'a str, [Vec<u64>; 2]> = HashMap::new();
        for node in (0..self.nodes.len()).filter(|&node| is_leaf[node]) {
            let totals = leaves
                .entry(self.nodes[node].name)
                .or_insert_with(|| self.run_totals.clone().map(|runs| vec![0; runs.len()]));
            for (side, runs) in own[node].iter().enumerate() {
                for (total, count) in totals[side].iter_mut().zip(runs) {
                    *total += count;
                }
            }
        }
        leaves
    }

    /// The names of the frames at or under `node` that are a leaf, on
    /// either side.
    fn leaves_under(&self, node: usize, is_leaf: &[bool]) -> HashSet<&'a str> {
        let mut leaves = HashSet::new();
        let mut to_visit = vec![node];
        while let Some(at) = to_visit.pop() {
            if is_leaf[at] {
                leaves.insert(self.nodes[at].name);
            }
            to_visit.extend(self.nodes[at].children.values().copied());
        }
        leaves
    }
}
