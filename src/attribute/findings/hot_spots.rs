//! **Hot spots**: one function, or a few, holding most of an
//! infrastructure category's samples or of the samples of a place outside
//! passes (`llvm::crc32`, the archive writer's checksum, holding 691 of
//! BERT's 892 Hashing samples, all in `(serialization and output)`). Such a
//! cost is one place to fix, not papercuts spread over the passes.

use std::cmp::Reverse;

use hashbrown::HashMap;

use super::Thresholds;
use crate::attribute::classes::{Classes, Facts};
use crate::attribute::pass::OutsidePass;
use crate::attribute::row_key::RowKey;
use crate::profile::Profile;
use crate::symbolize::SymbolId;
use category_rules::CategoryId;

/// What a hot spot is most of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Scope {
    /// An infrastructure category's self samples.
    Category(CategoryId),
    /// The compiler's samples in a place outside every pass.
    Outside(OutsidePass),
}

/// One function, or a few, holding most of a [`Scope`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HotSpot {
    pub scope: Scope,
    /// The scope's samples.
    pub scope_samples: u64,
    /// The functions (full names), most first, and their self samples in
    /// the scope.
    pub functions: Vec<(String, u64)>,
    /// Their samples' share of all the samples the report covers.
    pub share: f64,
    /// The place (pass or outside) most of their samples were in, and
    /// those samples.
    pub place: (String, u64),
}

impl HotSpot {
    /// The functions' samples.
    pub(crate) fn samples(&self) -> u64 {
        self.functions.iter().map(|(_, samples)| samples).sum()
    }
}

/// A function's samples in a scope, and the places they were in.
type Held = (u64, HashMap<RowKey, u64>);
/// Per function (`None`: frames without a name), what it holds.
type ByFunction = HashMap<Option<SymbolId>, Held>;

/// The samples of each scope by leaf function, gathered one sample key at
/// a time.
#[derive(Default)]
pub(super) struct HotSpotCounts {
    scopes: HashMap<Scope, ByFunction>,
}

impl HotSpotCounts {
    /// Counts `count` samples of `facts`: in its category, when that is one
    /// of `infrastructure`, and in its place, when that is outside passes
    /// in the compiler.
    pub(super) fn add(&mut self, facts: &Facts, count: u64, infrastructure: &[CategoryId]) {
        let mut add_to = |scope: Scope| {
            let (samples, places) = (self.scopes.entry(scope).or_default())
                .entry(facts.leaf)
                .or_default();
            *samples += count;
            *places.entry(facts.place).or_default() += count;
        };
        if infrastructure.contains(&facts.self_category) {
            add_to(Scope::Category(facts.self_category));
        }
        if let RowKey::OutsidePass(outside) = facts.place {
            if facts.in_compiler && outside != OutsidePass::Python {
                add_to(Scope::Outside(outside));
            }
        }
    }

    /// The scopes of at least the thresholds' share of `total` samples
    /// where at most `hot_spot_functions` functions hold at least the
    /// `hot_spot_share` of it, most first. A place's hot spot whose
    /// functions a category's hot spot names already is left out.
    pub(super) fn hot_spots(
        self,
        profile: &Profile,
        classes: &Classes<'_>,
        total: u64,
        thresholds: &Thresholds,
    ) -> Vec<HotSpot> {
        let mut found: Vec<HotSpot> = (self.scopes.into_iter())
            .filter_map(|(scope, functions)| {
                hot_spot(profile, classes, scope, functions, total, thresholds)
            })
            .collect();
        // Categories' hot spots first, so that a place's is the one left out.
        found.sort_by(|a, b| {
            let rank = |spot: &HotSpot| {
                (
                    matches!(spot.scope, Scope::Outside(_)),
                    Reverse(spot.samples()),
                )
            };
            rank(a)
                .cmp(&rank(b))
                .then_with(|| a.functions.cmp(&b.functions))
        });
        let mut named: Vec<String> = Vec::new();
        found.retain(|spot| {
            let new = (spot.functions.iter()).any(|(name, _)| !named.contains(name));
            named.extend(spot.functions.iter().map(|(name, _)| name.clone()));
            new
        });
        found.sort_by(|a, b| {
            (b.samples().cmp(&a.samples())).then_with(|| a.functions.cmp(&b.functions))
        });
        found
    }
}

/// The hot spot of `scope`, if it has one.
fn hot_spot(
    profile: &Profile,
    classes: &Classes<'_>,
    scope: Scope,
    functions: ByFunction,
    total: u64,
    thresholds: &Thresholds,
) -> Option<HotSpot> {
    let mut ranked: Vec<(Option<SymbolId>, Held)> = functions.into_iter().collect();
    ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    // Frames without a name are no function to point at.
    let counts: Vec<u64> = (ranked.iter())
        .map(|(symbol, (samples, _))| if symbol.is_some() { *samples } else { 0 })
        .collect();
    let scope_samples: u64 = ranked.iter().map(|(_, (samples, _))| samples).sum();
    let held_by = functions_holding(&counts, scope_samples, total, thresholds)?;
    let mut places: HashMap<RowKey, u64> = HashMap::new();
    let mut named = Vec::new();
    for (symbol, (samples, at)) in ranked.into_iter().take(held_by) {
        for (place, count) in at {
            *places.entry(place).or_default() += count;
        }
        named.push((profile.symbols.get(symbol?).name.clone(), samples));
    }
    let held: u64 = named.iter().map(|(_, samples)| samples).sum();
    let (place, place_samples) = places
        .into_iter()
        .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))?;
    Some(HotSpot {
        scope,
        scope_samples,
        functions: named,
        share: held as f64 / total.max(1) as f64,
        place: (
            classes.place_name(place).unwrap_or_default().to_owned(),
            place_samples,
        ),
    })
}

/// How many of the functions (`counts`, most first, 0 for frames without
/// a name) hold the thresholds' share of a scope of `scope_samples` of
/// `total`: `None` when the scope is too small, or when more functions
/// than the thresholds allow would be needed.
fn functions_holding(
    counts: &[u64],
    scope_samples: u64,
    total: u64,
    thresholds: &Thresholds,
) -> Option<usize> {
    if scope_samples == 0 || (scope_samples as f64) < thresholds.hot_spot_scope_share * total as f64
    {
        return None;
    }
    let needed = thresholds.hot_spot_share * scope_samples as f64;
    let mut held = 0;
    for (at, &count) in counts
        .iter()
        .take(thresholds.hot_spot_functions)
        .enumerate()
    {
        if count == 0 {
            return None;
        }
        held += count;
        if held as f64 >= needed {
            return Some(at + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribute::findings::THRESHOLDS;

    #[test]
    fn one_function_or_a_few_holding_half_of_a_large_enough_scope_are_a_hot_spot() {
        let holding =
            |counts: &[u64], scope, total| functions_holding(counts, scope, total, &THRESHOLDS);
        // BERT's Hashing: llvm::crc32 holds 691 of 892, 9.2% of the samples.
        assert_eq!(holding(&[691, 80, 40], 892, 9_700), Some(1));
        // Two functions to reach half.
        assert_eq!(holding(&[160, 79, 50, 40], 397, 3_600), Some(2));
        // Spread: the first three hold under half, a papercut's shape.
        assert_eq!(holding(&[30, 25, 20, 20, 20, 20, 20, 20], 175, 1_000), None);
        // Too small a share of the samples to name.
        assert_eq!(holding(&[40, 1], 41, 1_000), None);
        // Unnamed frames point at nothing.
        assert_eq!(holding(&[0, 10], 100, 1_000), None);
    }
}
