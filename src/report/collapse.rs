//! `compile-perf collapse`: writes folded stacks (`root;…;leaf count`), the
//! format inferno and FlameGraph read, made by [`crate::fold`].

use std::io::Write;

use crate::fold::{counted_line, fold, sort_by_names};
use crate::profile::{Profile, SampleFilter};

/// Writes the stacks `filter` keeps as folded lines, one `stack count` line
/// each, sorted; lines are built one at a time, so memory stays flat.
pub(crate) fn write_folded(
    profile: &Profile,
    filter: &SampleFilter,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut stacks = fold(profile, filter);
    sort_by_names(profile, &mut stacks);
    for (stack, count) in &stacks {
        out.write_all(counted_line(profile, stack, *count).as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
