//! Flamegraphs as the commands ask for them (`flamegraph`, `report
//! --flamegraph`, and the three of a `record` run): names resolved into the
//! category and pass to draw, the picture made, drawn and written with its
//! folded stacks.

use std::path::PathBuf;

use crate::attribute::Classes;
use crate::error::Error;
use crate::output::{Output, write_output};
use crate::profile::{Profile, SampleFilter};
use crate::render::flamegraph::{Drawable, Picture, PictureOptions, picture, picture_of};

/// One flamegraph to draw.
pub(super) struct FlamegraphRequest {
    pub(super) output: Output,
    /// A category id, as `compile-perf rules` prints it.
    pub(super) category: Option<String>,
    /// An MLIR pass name, as `report --by pass` prints it.
    pub(super) pass: Option<String>,
    pub(super) inverted: bool,
    pub(super) min_width: f64,
    pub(super) folded_out: Option<PathBuf>,
    /// The run's facts (from `run.json`), shown under the title.
    pub(super) run_facts: Option<String>,
}

impl FlamegraphRequest {
    /// The whole picture at `min_width`, written to `output`.
    pub(super) fn whole(output: Output, inverted: bool, min_width: f64) -> FlamegraphRequest {
        FlamegraphRequest {
            output,
            category: None,
            pass: None,
            inverted,
            min_width,
            folded_out: None,
            run_facts: None,
        }
    }
}

/// What `request` draws, ready for inferno. `prepared` holds every stack
/// `filter` keeps, made beforehand; it is used when it suits the request.
pub(super) fn flamegraph_picture(
    request: &FlamegraphRequest,
    filter: &SampleFilter,
    profile: &Profile,
    classes: &Classes<'_>,
    prepared: Option<Drawable<'_>>,
) -> Result<Picture, Error> {
    let rules = classes.table;
    let category = request
        .category
        .as_deref()
        .map(|wanted| {
            rules
                .find(wanted)
                .ok_or_else(|| rules.unknown_category(wanted))
        })
        .transpose()?;
    let pass = request
        .pass
        .as_deref()
        .map(|wanted| {
            classes
                .passes
                .find_name(wanted)
                .ok_or_else(|| Error::UnknownPass {
                    wanted: wanted.to_owned(),
                    closest: crate::suggest::closest(
                        wanted,
                        classes.passes.names().iter().map(String::as_str),
                    ),
                })
        })
        .transpose()?;
    let options = PictureOptions {
        category,
        pass,
        inverted: request.inverted,
        min_width: request.min_width,
        keep_folded: request.folded_out.is_some(),
        filter: filter.clone(),
        run_facts: request.run_facts.clone(),
    };
    match prepared {
        Some(drawable) if drawable.suits(&options) => {
            picture_of(profile, classes, &options, drawable)
        }
        _ => picture(profile, classes, &options),
    }
    .ok_or_else(|| Error::NothingToDraw {
        reason: "no samples to draw (check --category, --pid, --process and --compiler)".to_owned(),
    })
}

/// Draws `picture` and writes it, and its folded stacks, where `request` says.
pub(super) fn save_flamegraph(request: &FlamegraphRequest, picture: Picture) -> Result<(), Error> {
    let rendered = picture.draw().map_err(|source| Error::Output {
        target: request.output.name(),
        source,
    })?;
    if let Some(path) = &request.folded_out {
        write_output(&Output::File(path.clone()), |out| {
            rendered
                .folded
                .iter()
                .try_for_each(|line| writeln!(out, "{line}"))
        })?;
    }
    write_output(&request.output, |out| out.write_all(&rendered.svg))
}
