//! Interned frames and stacks, the sample counts per thread and stack, and
//! when each sample was taken.
//!
//! While the recording streams in, every distinct frame gets a [`FrameId`] and
//! every distinct stack a [`StackId`] (a node of a prefix tree, root first).
//! Nothing is symbolized here: each unique frame is resolved once, later.

use hashbrown::HashMap;

use crate::process::ThreadId;
use crate::unwind::{FrameKey, Walk};

crate::index::index_type! {
    /// Index of a unique frame.
    pub(crate) struct FrameId(u32);
}

crate::index::index_type! {
    /// Index of a unique stack: a path from a root frame to this node.
    pub(crate) struct StackId(u32);
}

/// One node of the stack tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StackNode {
    pub parent: Option<StackId>,
    pub frame: FrameId,
}

/// What samples are counted under: thread, stack and how far the unwind got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SampleKey {
    pub thread: ThreadId,
    /// `None` for a sample with no frames at all.
    pub stack: Option<StackId>,
    pub walk: Walk,
}

/// One sample in time: when it was taken and what it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimedSample {
    /// perf's timestamp, in nanoseconds.
    pub time: u64,
    pub key: SampleKey,
}

/// All frames, stacks and sample counts of a recording.
#[derive(Default)]
pub(crate) struct StackTable {
    pub frames: Vec<FrameKey>,
    frame_ids: HashMap<FrameKey, FrameId>,
    pub nodes: Vec<StackNode>,
    node_ids: HashMap<(Option<StackId>, FrameId), StackId>,
    pub counts: HashMap<SampleKey, u64>,
    /// Every sample, in time order.
    pub timeline: Vec<TimedSample>,
}

impl StackTable {
    /// The table of a recording read before (from the cache): its frames,
    /// nodes and samples in time order, from which the counts are made again
    /// in the order they were first made. It takes no more samples.
    pub(crate) fn from_parts(
        frames: Vec<FrameKey>,
        nodes: Vec<StackNode>,
        timeline: Vec<TimedSample>,
    ) -> StackTable {
        let mut counts = HashMap::new();
        for sample in &timeline {
            *counts.entry(sample.key).or_insert(0) += 1;
        }
        StackTable {
            frames,
            frame_ids: HashMap::new(),
            nodes,
            node_ids: HashMap::new(),
            counts,
            timeline,
        }
    }

    /// Counts one sample, taken at `time`, whose frames are given leaf first,
    /// as `weight` (1, or with `--alloc` the bytes it asks for).
    pub(crate) fn add_sample(
        &mut self,
        time: u64,
        thread: ThreadId,
        leaf_first: &[FrameKey],
        walk: Walk,
        weight: u64,
    ) {
        let mut stack = None;
        for key in leaf_first.iter().rev() {
            stack = Some(self.intern(stack, *key));
        }
        self.count(time, thread, stack, walk, weight);
    }

    /// The stack of `parent` (`None`: a root) with `key` called from it.
    pub(crate) fn intern(&mut self, parent: Option<StackId>, key: FrameKey) -> StackId {
        let frame = self.intern_frame(key);
        self.intern_node(parent, frame)
    }

    /// Counts one sample of `stack`, as [`Self::add_sample`] does with its frames.
    pub(crate) fn count(
        &mut self,
        time: u64,
        thread: ThreadId,
        stack: Option<StackId>,
        walk: Walk,
        weight: u64,
    ) {
        let key = SampleKey {
            thread,
            stack,
            walk,
        };
        *self.counts.entry(key).or_insert(0) += weight;
        self.timeline.push(TimedSample { time, key });
    }

    fn intern_frame(&mut self, key: FrameKey) -> FrameId {
        if let Some(&id) = self.frame_ids.get(&key) {
            return id;
        }
        let id = FrameId::new(self.frames.len());
        self.frames.push(key);
        self.frame_ids.insert(key, id);
        id
    }

    fn intern_node(&mut self, parent: Option<StackId>, frame: FrameId) -> StackId {
        let next = StackId::new(self.nodes.len());
        let id = *self.node_ids.entry((parent, frame)).or_insert(next);
        if id == next {
            self.nodes.push(StackNode { parent, frame });
        }
        id
    }

    pub(crate) fn node(&self, id: StackId) -> StackNode {
        self.nodes[id.index()]
    }

    /// The frames of a stack, leaf first.
    pub(crate) fn frames_leaf_first(
        &self,
        stack: Option<StackId>,
    ) -> impl Iterator<Item = FrameId> + '_ {
        std::iter::successors(stack, |&id| self.node(id).parent).map(|id| self.node(id).frame)
    }

    /// The root frame of a stack.
    pub(crate) fn root_frame(&self, stack: StackId) -> FrameId {
        self.frames_leaf_first(Some(stack))
            .last()
            .expect("a stack node has at least one frame")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary::DsoId;

    fn key(lookup: u64) -> FrameKey {
        FrameKey {
            dso: DsoId::new(5),
            lookup,
        }
    }

    #[test]
    fn shared_prefixes_share_nodes_and_counts_add_up() {
        let mut table = StackTable::default();
        let thread = ThreadId::new(0);
        table.add_sample(10, thread, &[key(3), key(2), key(1)], Walk::Complete, 1);
        table.add_sample(20, thread, &[key(4), key(2), key(1)], Walk::Complete, 1);
        table.add_sample(30, thread, &[key(3), key(2), key(1)], Walk::Complete, 1);
        assert_eq!(table.frames.len(), 4);
        assert_eq!(table.nodes.len(), 4, "root, middle and two leaves");
        let total: u64 = table.counts.values().sum();
        assert_eq!(total, 3);
        let (&sample, &count) = table.counts.iter().find(|(_, count)| **count == 2).unwrap();
        let frames: Vec<_> = table
            .frames_leaf_first(sample.stack)
            .map(|frame| table.frames[frame.index()].lookup)
            .collect();
        assert_eq!((frames, count), (vec![3, 2, 1], 2));
        let times: Vec<u64> = table.timeline.iter().map(|sample| sample.time).collect();
        assert_eq!(times, vec![10, 20, 30]);
        assert_eq!(table.timeline[0].key, table.timeline[2].key);
        assert_ne!(table.timeline[0].key, table.timeline[1].key);
    }
}
