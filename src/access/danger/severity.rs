//! How dangerous a permission is: the catalogue's levels.

use std::fmt;

/// How much a dangerous permission gives its holder, from least to most, so
/// that `max` picks the worst. docs/dangerous-permissions.md defines each level.
// Serialised as `as_str` writes it, in `diff -o json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Weakens a safeguard, spreads what the holder already has, or damages
    /// what others run; it does not by itself give another identity's rights.
    Medium,
    /// Reaches the credentials, identities or code of other workloads or of a
    /// node, or replaces whole APIs; how far that goes depends on what runs in
    /// the cluster.
    High,
    /// Takes the cluster on its own: the holder can grant itself anything, act
    /// as any identity, run code in any pod or node, or see and change what
    /// others send to the API server.
    Critical,
}

impl Severity {
    /// The level as the docs and messages write it: "critical", "high", "medium".
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
