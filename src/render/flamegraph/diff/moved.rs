//! Frames whose change is only structural: a frame whose share changed
//! beyond the noise while its function, with everything it called, did
//! not, counted over every path it is on: the same work ran on another
//! path (another thread's stack, another dispatch of the pass manager).
//! Such a frame is drawn as moved, not as grown or shrunk. The function's
//! samples are judged as the frames are.

use hashbrown::HashMap;

use super::Tree;
use crate::stats::multiple;
use crate::stats::shares::{Noise, Test};

impl<'a> Tree<'a> {
    /// For each frame, true when `significant` says it changed but its
    /// function's samples did not: those under any frame of the same name
    /// (its outermost one where it recurses), run by run, are not a
    /// significant change. Those totals are tested as the frames are, and
    /// corrected together over the frames they are asked of.
    pub(super) fn moved(
        &self,
        significant: &[bool],
        noise: &Noise,
        threshold_pp: f64,
    ) -> Vec<bool> {
        let functions = self.function_runs();
        let asked: Vec<usize> = (1..self.nodes.len())
            .filter(|&node| significant[node])
            .collect();
        let tests: Vec<Test> = asked
            .iter()
            .map(|&node| self.test(&functions[self.nodes[node].name], noise))
            .collect();
        let verdicts = multiple::judge(&tests, threshold_pp, threshold_pp, multiple::FAMILY_ALPHA);
        let mut moved = vec![false; self.nodes.len()];
        for (node, verdict) in asked.into_iter().zip(verdicts) {
            moved[node] = !verdict.significant;
        }
        moved
    }

    /// Every function's samples, run by run: those under its frames, each
    /// sample once (a frame inside a frame of the same name adds nothing).
    pub(super) fn function_runs(&self) -> HashMap<&'a str, [Vec<u64>; 2]> {
        let mut functions: HashMap<&'a str, [Vec<u64>; 2]> = HashMap::new();
        let mut on_path: HashMap<&'a str, usize> = HashMap::new();
        // (node, entering): a node is entered, its children visited, and
        // then left.
        let mut to_visit: Vec<(usize, bool)> = self.nodes[0]
            .children
            .values()
            .map(|&child| (child, true))
            .collect();
        while let Some((node, entering)) = to_visit.pop() {
            let name = self.nodes[node].name;
            if !entering {
                *on_path.entry(name).or_default() -= 1;
                continue;
            }
            let depth = on_path.entry(name).or_default();
            if *depth == 0 {
                let totals = functions
                    .entry(name)
                    .or_insert_with(|| self.run_totals.clone().map(|runs| vec![0; runs.len()]));
                for (side, runs) in self.nodes[node].runs.iter().enumerate() {
                    for (total, count) in totals[side].iter_mut().zip(runs) {
                        *total += count;
                    }
                }
            }
            *depth += 1;
            to_visit.push((node, false));
            to_visit.extend(
                self.nodes[node]
                    .children
                    .values()
                    .map(|&child| (child, true)),
            );
        }
        functions
    }
}
