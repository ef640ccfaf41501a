//! The flamegraph of a series of runs (`record --repeat`): the runs' pictures
//! added up frame by frame, as if the runs were one long recording. Names
//! are merged by their text (a frame's fill is the same in every run: it
//! comes from its category), stacks with the same names add their counts,
//! and the category shares are the runs' shares weighted by their samples.

use hashbrown::HashMap;

use super::captions::{legend_entries, subtitle};
use super::color::Share;
use super::names::NameId;
use super::{NamedStack, Picture};
use category_rules::{CategoryId, RuleTable};

/// `pictures` (of the runs of one set, drawn with the same options) added
/// up into one picture titled with `runs`, the number of runs, and
/// subtitled with the set's facts; `None` when there is none.
pub(crate) fn added_up(
    pictures: Vec<Picture>,
    table: &RuleTable,
    set_facts: Option<&str>,
) -> Option<Picture> {
    let runs = pictures.len();
    let first = pictures.first()?;
    let (title, min_width, inverted, count_name) = (
        format!("{} — {runs} runs added up", first.title),
        first.min_width,
        first.inverted,
        first.count_name,
    );
    let mut names: Vec<String> = pictures
        .iter()
        .flat_map(|picture| picture.names.iter().cloned())
        .collect();
    names.sort_unstable();
    names.dedup();
    let rank: HashMap<String, NameId> = names
        .iter()
        .enumerate()
        .map(|(at, name)| (name.clone(), NameId::new(at)))
        .collect();
    let mut fills = vec![super::color::NEUTRAL; names.len()];
    let mut stacks: HashMap<Vec<NameId>, u64> = HashMap::new();
    let mut folded: HashMap<String, u64> = HashMap::new();
    let mut shares: HashMap<CategoryId, (f64, f64)> = HashMap::new();
    let mut total = 0;
    for picture in &pictures {
        let ids: Vec<NameId> = picture
            .names
            .iter()
            .map(|name| rank[name.as_str()])
            .collect();
        for (name, fill) in ids.iter().zip(&picture.fills) {
            fills[name.index()] = *fill;
        }
        for (stack, count) in &picture.stacks {
            let stack: Vec<NameId> = stack.iter().map(|name| ids[name.index()]).collect();
            *stacks.entry(stack).or_default() += count;
        }
        for line in &picture.folded {
            if let Some((stack, count)) = line.rsplit_once(' ') {
                *folded.entry(stack.to_owned()).or_default() += count.parse::<u64>().unwrap_or(0);
            }
        }
        for share in &picture.shares {
            let weight = picture.total as f64 / 100.0;
            let added = shares.entry(share.category).or_default();
            added.0 += share.self_percent * weight;
            added.1 += share.inclusive_percent * weight;
        }
        total += picture.total;
    }
    let shares = weighted_shares(shares, total);
    let mut stacks: Vec<NamedStack> = stacks.into_iter().collect();
    stacks.sort_unstable();
    let mut folded: Vec<String> = folded
        .into_iter()
        .map(|(stack, count)| format!("{stack} {count}"))
        .collect();
    folded.sort_unstable();
    Some(Picture {
        stacks,
        names,
        fills,
        suffixes: Vec::new(),
        title,
        subtitle: subtitle(table, &shares, set_facts),
        min_width,
        inverted,
        legend: legend_entries(table, &shares),
        folded,
        count_name,
        total,
        shares,
    })
}

/// Samples by category (self, inclusive) as shares of `total`, in the
/// order a picture's legend lists them: by self share, then inclusive.
fn weighted_shares(samples: HashMap<CategoryId, (f64, f64)>, total: u64) -> Vec<Share> {
    let percent = |samples: f64| match total {
        0 => 0.0,
        total => 100.0 * samples / total as f64,
    };
    let mut shares: Vec<Share> = samples
        .into_iter()
        .map(|(category, (own, inclusive))| Share {
            category,
            self_percent: percent(own),
            inclusive_percent: percent(inclusive),
        })
        .collect();
    shares.sort_by(|a, b| {
        b.self_percent
            .total_cmp(&a.self_percent)
            .then(b.inclusive_percent.total_cmp(&a.inclusive_percent))
            .then(a.category.cmp(&b.category))
    });
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::flamegraph::color::Rgb;

    const RED: Rgb = Rgb { r: 200, g: 0, b: 0 };
    const BLUE: Rgb = Rgb { r: 0, g: 0, b: 200 };

    /// A picture of `stacks` (names from the root, and a count), every
    /// frame `fill`, with one category's self share of `percent`.
    fn picture(stacks: &[(&[&str], u64)], fill: Rgb, percent: f64) -> Picture {
        let mut names: Vec<String> = stacks
            .iter()
            .flat_map(|(names, _)| names.iter().map(|name| (*name).to_owned()))
            .collect();
        names.sort_unstable();
        names.dedup();
        let id = |name: &str| NameId::new(names.iter().position(|n| n == name).unwrap());
        let total = stacks.iter().map(|(_, count)| count).sum();
        Picture {
            stacks: stacks
                .iter()
                .map(|(frames, count)| (frames.iter().map(|name| id(name)).collect(), *count))
                .collect(),
            fills: vec![fill; names.len()],
            names,
            suffixes: Vec::new(),
            title: "iree-compile m.mlir".to_owned(),
            subtitle: String::new(),
            min_width: 0.1,
            inverted: false,
            legend: Vec::new(),
            folded: stacks
                .iter()
                .map(|(frames, count)| format!("{} {count}", frames.join(";")))
                .collect(),
            count_name: "samples",
            total,
            shares: vec![Share {
                category: CategoryId::new(0),
                self_percent: percent,
                inclusive_percent: percent,
            }],
        }
    }

    /// `picture`'s stacks as names.
    fn named(picture: &Picture) -> Vec<(String, u64)> {
        picture
            .stacks
            .iter()
            .map(|(stack, count)| {
                let names: Vec<&str> = stack
                    .iter()
                    .map(|name| picture.names[name.index()].as_str())
                    .collect();
                (names.join(";"), *count)
            })
            .collect()
    }

    #[test]
    fn runs_add_up_frame_by_frame_with_their_shares_weighted_by_samples() {
        let table = RuleTable::builtin();
        let first = picture(
            &[(&["main", "parse"], 30), (&["main", "fold"], 10)],
            RED,
            75.0,
        );
        let second = picture(
            &[(&["main", "fold"], 50), (&["worker", "lower"], 10)],
            BLUE,
            50.0,
        );
        let sum = added_up(vec![first, second], &table, Some("2 runs")).unwrap();
        assert_eq!(
            named(&sum),
            [
                ("main;fold".to_owned(), 60),
                ("main;parse".to_owned(), 30),
                ("worker;lower".to_owned(), 10),
            ]
        );
        assert_eq!(sum.total, 100);
        // 75% of 40 and 50% of 60: 60 of 100.
        assert!((sum.shares[0].self_percent - 60.0).abs() < 1e-9);
        assert_eq!(
            sum.folded,
            ["main;fold 60", "main;parse 30", "worker;lower 10"]
        );
        assert!(sum.title.ends_with("2 runs added up"), "{}", sum.title);
        assert!(sum.subtitle.contains("2 runs"), "{}", sum.subtitle);
        // A name drawn by both runs keeps one fill.
        let main = sum.names.iter().position(|name| name == "main").unwrap();
        assert_eq!(sum.fills[main], BLUE);
        assert!(added_up(Vec::new(), &table, None).is_none());
    }
}
