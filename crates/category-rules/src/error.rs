//! The error of a rules file that cannot be used: where, and what is wrong.

/// A rule file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{origin}:{line}:{column}: {message}")]
pub struct RulesError {
    /// The file (or `built-in rules.toml`).
    pub origin: String,
    /// The line of the mistake, from 1.
    pub line: usize,
    /// Its column, from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}
