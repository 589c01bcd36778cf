//! `diff -c`: the upgrade review as OLM v1 will do it. Each side is what
//! render reads (a bundle's folder, and the admin's files beside it), judged
//! with the admin's config as render judges it; the two clusters' RBAC after
//! each install are compared: what render writes, and, where the config
//! writes none of the operator's (`permissions: Unmanaged`, what OLM v1
//! needs), the operator's RBAC as OLM v1 grants it. So a version that gains
//! a permission shows the gain whatever `spec.operator.permissions` says,
//! as `catalog judge`'s GAINED column does between catalog versions.

use std::path::Path;

use super::installed::{after_install, read_config};
use crate::check::diff::{diff_policies, DiffOptions};
use crate::check::load::policy_with;
use crate::outcome::Outcome;

/// Judges OLD and NEW with the config at `config`, and diffs the clusters'
/// RBAC after each install. A side the config refuses fails as render
/// fails (its errors, exit 1): a gain the policy refuses is not reviewed,
/// it is refused.
pub fn diff_judged(config: &Path, old: &Path, new: &Path, options: DiffOptions) -> Outcome {
    let configs = match read_config(config) {
        Ok(c) => c,
        Err(refused) => return refused,
    };
    let side = |path: &Path| after_install(config, &configs, &[path], "there is no upgrade to review");
    let (old_rbac, new_rbac) = match (side(old), side(new)) {
        (Ok(o), Ok(n)) => (o.rbac, n.rbac),
        (Err(refused), _) | (_, Err(refused)) => return refused,
    };
    let builtins = options.common.builtin_roles;
    let (old_policy, new_policy) = (policy_with(&old_rbac, builtins), policy_with(&new_rbac, builtins));
    let artifact = new.display().to_string();
    diff_policies(&old_policy, &new_policy, options, Some(&artifact))
}
