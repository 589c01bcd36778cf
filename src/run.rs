//! The two ways in and out: a KRM `ResourceList` (what kpt and kustomize
//! send), and plain multi-document YAML (standalone, Helm post-renderer).
//! Both read with [`crate::yaml`], decide with `plan`, and write the
//! untouched items back as the exact text they came in.
//!
//! `krm` and `render` are the two runners; `sources` reads what the command
//! line names for each (stdin, the config file, the paths); `judge::views`
//! reads the typed views and configs both hand to the planner (render through
//! `judge`, which the catalog commands share), and `output` the text and
//! exit code both write.

mod installed;
mod json;
mod krm;
mod output;
mod render;
mod sources;
mod upgrade;

pub use crate::input::Source;
pub use crate::outcome::Outcome;
pub use installed::installed;
pub use krm::function;
pub use render::{render, render_with, OutputFormat, RenderOptions};
pub(crate) use sources::render_paths_judging;
pub use sources::{function_on_stdin, render_paths};
pub use upgrade::diff_judged;
