//! "Did you mean": the names closest to a mistyped one, for errors that
//! would otherwise list every name there is.

/// How many names a suggestion offers.
const SUGGESTIONS: usize = 3;

/// The names of `known` closest to `wanted` (case-insensitive; a name that
/// contains what was typed comes first; names equal but for case once), at
/// most three, joined for a message.
pub(crate) fn closest<'a>(wanted: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(bool, f64, &str)> = known
        .into_iter()
        .map(|name| {
            let lower = name.to_lowercase();
            let contains = !wanted.is_empty() && lower.contains(&wanted);
            (!contains, -strsim::jaro_winkler(&wanted, &lower), name)
        })
        .collect();
    scored.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    // An id and a name that differ only in case are one suggestion.
    scored.dedup_by(|later, earlier| later.2.eq_ignore_ascii_case(earlier.2));
    scored
        .iter()
        .take(SUGGESTIONS)
        .map(|(_, _, name)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_typo_finds_the_name_meant() {
        let passes = [
            "Canonicalizer",
            "CSE",
            "ApplyPatternsPass",
            "FoldGlobalsPass",
            "OptimizeIntArithmeticPass",
            "LLVMCPULowerExecutableTargetPass",
        ];
        assert!(closest("Canonicaliser", passes).starts_with("Canonicalizer"));
        assert!(closest("foldglobals", passes).starts_with("FoldGlobalsPass"));
        assert_eq!(
            closest("IntArith", passes).split(", ").next(),
            Some("OptimizeIntArithmeticPass")
        );
        assert_eq!(closest("x", passes).split(", ").count(), 3);
    }
}
