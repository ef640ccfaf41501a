//! Passes listed once: a pass whose samples are (nearly) all in one pass it
//! runs, and that pass, are the same work, and a list of passes by
//! inclusive samples shows them as one entry, `Outer > Inner`
//! (`executables`' top passes: `SerializeAllExecutablesPass >
//! SerializeTargetExecutablesPass`, not the two with the same number).
//! Plain functions over the passes on each sample's stack.

use hashbrown::HashMap;

use super::classes::{Attribution, Classes, facts};
use super::pass::PassId;
use crate::profile::{Profile, SampleFilter};

/// Two nested passes are one entry when the samples with both on the stack
/// are at least this share of each one's samples: the outer does next to
/// nothing but run the inner, and the inner runs (nearly) only there.
pub(crate) const SAME_WORK: f64 = 0.95;

/// One entry of a list of passes: a pass, or passes nested in each other
/// that do the same work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JoinedPass {
    /// Outermost first.
    pub passes: Vec<PassId>,
    /// Samples with any of them on the stack.
    pub inclusive_samples: u64,
}

/// The passes of the samples `filter` keeps, nested passes that do the same
/// work joined, most samples first.
pub(crate) fn joined_passes(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
) -> Vec<JoinedPass> {
    let mut stacks: HashMap<Vec<PassId>, u64> = HashMap::new();
    for (key, count) in profile.samples(filter) {
        let sample = facts(profile, classes, Attribution::Leaf, key);
        if !sample.passes.is_empty() {
            *stacks.entry(sample.passes).or_default() += count;
        }
    }
    let stacks: Vec<(Vec<PassId>, u64)> = stacks.into_iter().collect();
    join(&stacks)
}

/// [`joined_passes`] over the passes of each stack (outermost first, each
/// once) and its samples.
fn join(stacks: &[(Vec<PassId>, u64)]) -> Vec<JoinedPass> {
    let mut inclusive: HashMap<PassId, u64> = HashMap::new();
    // Samples with `outer` above `inner` on the stack: (outer, inner).
    let mut nested: HashMap<(PassId, PassId), u64> = HashMap::new();
    for (passes, count) in stacks {
        for (at, &outer) in passes.iter().enumerate() {
            *inclusive.entry(outer).or_default() += count;
            for &inner in &passes[at + 1..] {
                *nested.entry((outer, inner)).or_default() += count;
            }
        }
    }
    // Each pass's group, as a union-find over the pairs that are one work.
    let mut ids: Vec<PassId> = inclusive.keys().copied().collect();
    ids.sort_unstable();
    let mut parent: HashMap<PassId, PassId> = ids.iter().map(|&id| (id, id)).collect();
    fn root(parent: &HashMap<PassId, PassId>, mut id: PassId) -> PassId {
        while parent[&id] != id {
            id = parent[&id];
        }
        id
    }
    let mut pairs: Vec<(&(PassId, PassId), &u64)> = nested.iter().collect();
    pairs.sort_unstable();
    for (&(outer, inner), &both) in pairs {
        let same = |pass: PassId| both as f64 >= SAME_WORK * inclusive[&pass] as f64;
        if same(outer) && same(inner) {
            let (a, b) = (root(&parent, outer), root(&parent, inner));
            parent.insert(a.max(b), a.min(b));
        }
    }
    let mut groups: HashMap<PassId, Vec<PassId>> = HashMap::new();
    for &id in &ids {
        groups.entry(root(&parent, id)).or_default().push(id);
    }
    let outer_of = |pass: PassId, members: &[PassId]| {
        let below = |a, b| nested.get(&(a, b)).copied().unwrap_or_default();
        members
            .iter()
            .filter(|&&other| below(pass, other) > below(other, pass))
            .count()
    };
    let mut joined: Vec<JoinedPass> = groups
        .into_values()
        .map(|mut members| {
            let outer: HashMap<PassId, usize> = members
                .iter()
                .map(|&pass| (pass, outer_of(pass, &members)))
                .collect();
            members.sort_unstable_by(|a, b| outer[b].cmp(&outer[a]).then(a.cmp(b)));
            let inclusive_samples = stacks
                .iter()
                .filter(|(passes, _)| passes.iter().any(|pass| members.contains(pass)))
                .map(|(_, count)| count)
                .sum();
            JoinedPass {
                passes: members,
                inclusive_samples,
            }
        })
        .collect();
    joined.sort_unstable_by(|a, b| {
        b.inclusive_samples
            .cmp(&a.inclusive_samples)
            .then_with(|| a.passes.cmp(&b.passes))
    });
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(passes: &[usize], count: u64) -> (Vec<PassId>, u64) {
        (passes.iter().map(|&at| PassId::new(at)).collect(), count)
    }

    fn entries(joined: &[JoinedPass]) -> Vec<(Vec<usize>, u64)> {
        joined
            .iter()
            .map(|entry| {
                let passes = entry.passes.iter().map(|pass| pass.index()).collect();
                (passes, entry.inclusive_samples)
            })
            .collect()
    }

    #[test]
    fn a_pass_that_only_runs_another_is_one_entry_with_it() {
        // 0 SerializeAll runs 1 SerializeTarget (70 of its 71 samples);
        // 2 TranslateAll runs 3 TranslateTarget (all 26), which runs
        // 4, a pipeline adaptor, for 22 of them: not the same work.
        let stacks = [
            stack(&[0, 1], 70),
            stack(&[0], 1),
            stack(&[2, 3], 4),
            stack(&[2, 3, 4], 22),
            stack(&[5], 4),
        ];
        assert_eq!(
            entries(&join(&stacks)),
            [
                (vec![0, 1], 71),
                (vec![2, 3], 26),
                (vec![4], 22),
                (vec![5], 4),
            ]
        );
    }

    #[test]
    fn chains_join_outermost_first_whatever_the_ids() {
        // 7 inside 3 inside 9, all the same work.
        let stacks = [stack(&[9, 3, 7], 100), stack(&[9, 3], 2), stack(&[1], 50)];
        assert_eq!(
            entries(&join(&stacks)),
            [(vec![9, 3, 7], 102), (vec![1], 50)]
        );
    }

    #[test]
    fn an_inner_pass_that_also_runs_elsewhere_stays_its_own_entry() {
        // 1 is all of 0's work, but half of 1's samples are under 2.
        let stacks = [stack(&[0, 1], 40), stack(&[2, 1], 40), stack(&[2], 5)];
        assert_eq!(
            entries(&join(&stacks)),
            [(vec![1], 80), (vec![2], 45), (vec![0], 40)]
        );
    }
}
