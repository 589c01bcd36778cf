//! `diff OLD NEW`, the command: each side read as `can-i -f` reads its input
//! ([`super::commands::with_policy`]), the changes measured by the kernel
//! (`access::diff`), written in the shapes of [`shape`].

use super::commands::{with_loaded, Common, Format};
pub(crate) use crate::access::diff::{changes, left_behind, Change, Changes, Holder};
use crate::access::Policy;
use crate::input::Source;
use crate::outcome::Outcome;

mod installs;
mod shape;

pub(crate) use installs::InstallRight;

pub use shape::{json_schema, ChangeOut, DiffOut, SubjectOut};

/// When `diff` exits 1 (`--fail-on`): never, on any gain (the default), or
/// on a gain the dangerous-permissions catalogue marks.
// No doc comments on the variants: clap would show them as help of their own (hence `missing_docs` allowed).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    None,
    #[default]
    Gain,
    Dangerous,
}

/// What `diff` takes besides its two inputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffOptions {
    /// `-o`: how the changes are printed (table, Markdown, JSON, YAML or SARIF).
    pub format: Format,
    /// `--fail-on`: which changes make it exit 1.
    pub fail_on: FailOn,
    /// The built-in roles added to each side, and `-q`.
    pub common: Common,
}

/// `diff OLD NEW`: the changes in the format asked; exit 0, or 1 when
/// `fail_on` says a gain fails; 2 when an input cannot be read.
pub fn diff(old: &[Source], new: &[Source], options: DiffOptions) -> Outcome {
    let common = options.common;
    with_loaded(old.into(), common, |old_loaded, _| {
        with_loaded(new.into(), common, |new_loaded, warnings| {
            let (old_policy, new_policy) = (&old_loaded.policy, &new_loaded.policy);
            let kept = left_behind(old_policy, new_policy, warnings);
            let changes = changes(old_policy, kept.as_ref().unwrap_or(new_policy));
            let installs = installs::install_changes(old_loaded, new_loaded);
            if let Some(csv) = old_loaded.csvs.iter().chain(&new_loaded.csvs).next() {
                warnings.push(format!(
                    "warning: the manifests hold ClusterServiceVersion {csv:?}: OLM grants its operator's permissions on install, and these manifests hold them only where render wrote them (spec.operator.permissions other than Unmanaged); to compare what the operator will hold as OLM v1 grants it, pass the config: olm-rbac diff -c CONFIG OLD NEW"
                ));
            }
            written(&changes, &installs, options, new.first().map(|s| s.name.as_str()))
        })
    })
}

/// [`diff`] of two clusters' RBAC given as values, each built by its caller
/// (`diff -c` judges two bundles and builds each from what the cluster
/// holds after the install, OLM's grants included). The sides hold no
/// admission policies, so no right to install changes. What [`diff`] says of
/// roles left behind is on stderr (unless quiet).
pub(crate) fn diff_policies(old: &Policy, new: &Policy, options: DiffOptions, artifact: Option<&str>) -> Outcome {
    let mut warnings = Vec::new();
    let kept = left_behind(old, new, &mut warnings);
    let changes = changes(old, kept.as_ref().unwrap_or(new));
    let mut out = written(&changes, &(Vec::new(), Vec::new()), options, artifact);
    if !options.common.quiet {
        out.stderr = warnings.iter().map(|w| format!("{w}\n")).collect::<String>() + &out.stderr;
    }
    out
}

/// The changes written as `options` say, and the exit code: crate::outcome::Exit::Refused when
/// `fail_on` says a gain fails. A right to install an operator is a right to
/// run a bundle as cluster-admin: every such gain is dangerous.
fn written(
    changes: &Changes,
    installs: &(Vec<InstallRight>, Vec<InstallRight>),
    options: DiffOptions,
    artifact: Option<&str>,
) -> Outcome {
    let failed = match options.fail_on {
        FailOn::None => false,
        FailOn::Gain => !changes.gained.is_empty() || !installs.0.is_empty(),
        FailOn::Dangerous => changes.gained.iter().any(|c| c.severity.is_some()) || !installs.0.is_empty(),
    };
    let mut out = shape::write(changes, installs, options.format, artifact);
    if out.code == crate::outcome::Exit::Ok && failed {
        out.code = crate::outcome::Exit::Refused;
    }
    if options.common.quiet {
        out.stdout.clear();
    }
    out
}
