//! Findings made from each sample's stack, in one walk over the samples:
//! setup rebuilt per pass instance (**duplicated**), infrastructure
//! spread thin over many passes (**papercuts**) and one function or a few
//! holding most of a category or a place (**hot spots**, `hot_spots.rs`).

use hashbrown::HashMap;

use super::Thresholds;
use super::hot_spots::{HotSpot, HotSpotCounts, Scope};
use crate::attribute::classes::{Attribution, Classes, facts};
use crate::attribute::pass::NESTED_SEPARATOR;
use crate::attribute::row_key::RowKey;
use crate::profile::{Profile, SampleFilter};
use category_rules::CategoryId;

/// Frames of setup a pass instance redoes: a pattern set built, or freed
/// (name prefixes)…
const SETUP_PREFIXES: [&str; 2] = [
    "mlir::FrozenRewritePatternSet::FrozenRewritePatternSet(",
    "mlir::FrozenRewritePatternSet::Impl::~Impl(",
];
/// …and a pass's `initialize` (a name suffix).
const INITIALIZE: &str = "::initialize(mlir::MLIRContext*)";

/// Setup that pass instances rebuild: the samples under its frames, and
/// who did it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DuplicatedSetup {
    pub samples: u64,
    /// Its share of the samples `filter` keeps.
    pub share: f64,
    /// The passes (or places) that did it, by samples, most first: a
    /// pass's `initialize` names its class, else the innermost pass.
    pub owners: Vec<(String, u64)>,
}

/// An infrastructure category whose self samples are spread thin over
/// many passes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Papercut {
    pub category: CategoryId,
    /// Its self samples, and their share of the samples `filter` keeps.
    pub samples: u64,
    pub share: f64,
    /// The passes its samples are in, by samples, most first.
    pub passes: Vec<(String, u64)>,
}

/// The findings of [`by_stack`].
pub(super) struct ByStack {
    pub duplicated: Option<DuplicatedSetup>,
    pub papercuts: Vec<Papercut>,
    pub hot_spots: Vec<HotSpot>,
}

/// The setup rebuilt per pass instance (when it is at least the
/// thresholds' share and enough passes did it), the papercuts and the hot
/// spots, most first. A category with a hot spot is no papercut.
pub(super) fn by_stack(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    thresholds: &Thresholds,
) -> ByStack {
    let setup_symbols: Vec<bool> = profile
        .symbols
        .symbols
        .iter()
        .map(|symbol| {
            SETUP_PREFIXES
                .iter()
                .any(|prefix| symbol.name.starts_with(prefix))
                || symbol.name.ends_with(INITIALIZE)
        })
        .collect();
    let infrastructure: Vec<CategoryId> = thresholds
        .papercut_categories
        .iter()
        .filter_map(|id| classes.table.find(id))
        .collect();
    let place_name = |place: RowKey| classes.place_name(place).unwrap_or_default().to_owned();
    let mut total = 0;
    let mut setup_samples = 0;
    let mut owners: HashMap<String, u64> = HashMap::new();
    let mut infra: HashMap<CategoryId, HashMap<RowKey, u64>> = HashMap::new();
    let mut hot_spot_counts = HotSpotCounts::default();
    for (key, count) in profile.samples(filter) {
        total += count;
        let facts = facts(profile, classes, Attribution::Leaf, key);
        hot_spot_counts.add(&facts, count, &infrastructure);
        if infrastructure.contains(&facts.self_category) {
            *infra
                .entry(facts.self_category)
                .or_default()
                .entry(facts.place)
                .or_default() += count;
        }
        let Some(&setup) = facts
            .symbols
            .iter()
            .rev()
            .find(|symbol| setup_symbols[symbol.index()])
        else {
            continue;
        };
        setup_samples += count;
        let owner = match profile.symbols.get(setup).name.strip_suffix(INITIALIZE) {
            // The pass that initializes, under the pass whose compile it is
            // in, as the pass table names it: `JitGlobalsPass > Canonicalizer`.
            Some(class) => match place_name(facts.place).rsplit_once(NESTED_SEPARATOR) {
                Some((outer, _)) => format!("{outer}{NESTED_SEPARATOR}{}", short_class(class)),
                None => short_class(class).to_owned(),
            },
            None => place_name(facts.place),
        };
        *owners.entry(owner).or_default() += count;
    }
    let share = |samples: u64| samples as f64 / total.max(1) as f64;
    let owners = by_samples(owners);
    let duplicated = (share(setup_samples) >= thresholds.duplicated_share
        && owners.len() >= thresholds.duplicated_owners)
        .then(|| DuplicatedSetup {
            samples: setup_samples,
            share: share(setup_samples),
            owners,
        });
    let hot_spots = hot_spot_counts.hot_spots(profile, classes, total, thresholds);
    let mut papercuts: Vec<Papercut> = infra
        .into_iter()
        .filter(|(category, _)| {
            !(hot_spots.iter()).any(|spot| spot.scope == Scope::Category(*category))
        })
        .filter_map(|(category, places)| {
            let samples: u64 = places.values().sum();
            // Most of it in one place outside passes is no spread either.
            let largest_outside = (places.iter())
                .filter(|(place, _)| matches!(place, RowKey::OutsidePass(_)))
                .map(|(_, &count)| count)
                .max()
                .unwrap_or(0);
            let passes = by_samples(
                places
                    .into_iter()
                    .filter(|(place, _)| matches!(place, RowKey::Pass(_)))
                    .map(|(place, count)| (place_name(place), count))
                    .collect(),
            );
            let largest = passes.first().map_or(0, |(_, count)| *count);
            let spread = passes.len() >= thresholds.papercut_passes
                && (largest.max(largest_outside) as f64)
                    <= thresholds.papercut_largest_pass * samples as f64;
            (share(samples) >= thresholds.papercut_share && spread).then(|| Papercut {
                category,
                samples,
                share: share(samples),
                passes,
            })
        })
        .collect();
    papercuts.sort_by(|a, b| b.samples.cmp(&a.samples).then(a.category.cmp(&b.category)));
    ByStack {
        duplicated,
        papercuts,
        hot_spots,
    }
}

/// Counts by name, most first (then by name).
fn by_samples(counts: HashMap<String, u64>) -> Vec<(String, u64)> {
    let mut counts: Vec<(String, u64)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}

/// A class's name without its namespaces.
fn short_class(qualified: &str) -> &str {
    qualified.rsplit("::").next().unwrap_or(qualified)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_initialize_names_its_class_without_namespaces() {
        assert_eq!(
            short_class("mlir::iree_compiler::(anonymous namespace)::IREECodegenCanonicalizerPass"),
            "IREECodegenCanonicalizerPass"
        );
        assert_eq!(short_class("Canonicalizer"), "Canonicalizer");
    }
}
