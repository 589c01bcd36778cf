//! The pure core: from validated configs and typed input objects, decide which
//! items to remove, which to patch (labels and annotations only), what to
//! generate and what to tell the user. No YAML and no I/O in here.
//!
//! What is generated: per-API roles for the bundle's APIs (aggregated into the
//! built-in `admin`, `edit` and `view`, or bound as `spec.bindings` says), and,
//! when asked, the operator's own RBAC from its ClusterServiceVersion
//! (`spec.operator`) and an installer account's (`spec.installer`). Whatever
//! the mode, everything the install would grant is measured against the
//! install policy (`spec.operator.policy`), or against the catalogue of
//! dangerous permissions without one.
//!
//! [`plan`] builds the planning input once (`input::Input`: whose each object
//! is, the CRDs' scopes, the admin's Namespace objects, Kubernetes' built-in
//! roles), runs every config through the steps in `steps`, each config with
//! its `input::Planning` (its APIs, its CSV, the claims it believes), and then
//! checks for `conflicts`; every step takes one of these and the findings.
//! The steps ask `discover` for the APIs, `trust` whether the bundle's claims
//! may be believed, `origin` whose each item is, `provenance` which items are
//! earlier output, `bundle` which bundle roles to adopt or relabel, `roles`
//! for the roles to generate and `bind` for the bindings. For the operator,
//! with `input::OperatorInput` (the CSV's grants, the target namespaces):
//! `install_policy` (the install gate), `operator` (its RBAC) and `installer`
//! (the installer account); `accounts` writes the objects for either
//! ServiceAccount.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::findings::{Code, Finding};
use crate::model::*;

use conflicts::check_conflicts;
use facts::input::Input;
use facts::provenance::{self, Believed};
use facts::trust;
use steps::plan_one;

mod apis;
mod conflicts;
mod facts;
mod gate;
mod guard;
mod installer;
pub(crate) mod names;
mod operator;
mod steps;
mod types;

pub(crate) use facts::discover::bundle_package;
pub(crate) use facts::installable;
pub(crate) use facts::origin;
pub(crate) use facts::placement::olm_copies;
pub(crate) use facts::previous::{set_aside, SetAside};
pub(crate) use operator::permissions::UNNAMED_INSTALL_NAMESPACE;
pub(crate) use types::*;

/// Decides the output for `configs` over `objects`. If anything is an error,
/// the plan removes and generates nothing: the input comes back unchanged.
///
/// A claim to be olm-rbac's earlier output is checked by its content, not its
/// labels: the items believed are those this run writes again exactly when it
/// believes them (see [`provenance::Claims`]). Replacing such an item changes
/// nothing, and the install gate does not count it as the bundle's (the
/// cluster holds that grant either way), so a forged copy gains nothing. That
/// is how a saved output given back (as a file, on stdin or through a runner)
/// renders again byte for byte, the installer account included, whose rules
/// depend on which items are the bundle's.
///
/// The set is found from above: believe every claim whose shape holds, plan,
/// keep the claims the plan writes again exactly, and plan again until the set
/// stands. It only shrinks, so this ends; a hostile input that keeps it
/// shrinking past [`SETTLE_ROUNDS`] gets the safe reading, nothing believed
/// in a bundle's folder.
pub(crate) fn plan(configs: &[Config], objects: &[InputObject]) -> Plan {
    plan_in(configs, objects, &BundleRoots::default())
}

/// [`plan`], knowing the packages the runner read for bundle folders.
pub(crate) fn plan_in(configs: &[Config], objects: &[InputObject], packages: &BundleRoots) -> Plan {
    let install = |extension: &str| configs.iter().find(|c| c.extension == extension)?.install_namespace();
    let mut believed = Believed::at_most(objects);
    for _ in 0..SETTLE_ROUNDS {
        let drafted = settled_draft(configs, objects, packages, &believed);
        let written: Vec<&Object> = drafted.generated.iter().map(|g| &g.object).collect();
        let borne_out = believed.borne_out(objects, &drafted.remove, &written, install);
        if borne_out == believed {
            return Plan::decide(drafted);
        }
        believed = borne_out;
    }
    Plan::decide(settled_draft(configs, objects, packages, &Believed::default()))
}

/// How many plannings [`plan`] spends settling which claims it believes. A
/// saved output settles in one (every claim holds) or two (an earlier output
/// this run no longer writes, or a namespaced one whose OLM copy it does not
/// write); three when both.
const SETTLE_ROUNDS: usize = 5;

/// One planning of every config with `believed` as the items this run writes
/// again exactly, planned a second time when an aggregating built-in role
/// gathers a ClusterRole it writes: the install gate judges a binding to a
/// built-in role by what every config of the run aggregates into it, known
/// once all are planned.
fn settled_draft(configs: &[Config], objects: &[InputObject], packages: &BundleRoots, believed: &Believed) -> Draft {
    let mut input = Input::new(objects, packages);
    let first = draft(configs, &input, believed);
    if configs.iter().any(Config::judges_operator_grants) && input.hold_written(&first.generated) {
        return draft(configs, &input, believed);
    }
    first
}

/// One planning of every config, believing the claims in `believed`.
fn draft(configs: &[Config], input: &Input<'_>, believed: &Believed) -> Draft {
    let objects = input.objects;
    let mut plan = Draft::default();
    let mut seen: BTreeMap<&str, &Config> = BTreeMap::new();
    for config in configs {
        if let Some(first) = seen.insert(&config.extension, config) {
            plan.results.push(
                Finding::error(
                    Code::ConfigsOverlap,
                    format!(
                        "extension {:?} is claimed by two configs ({} and {}); give each an own spec.extensionName",
                        config.extension, first.name, config.name
                    ),
                )
                .on(&config.object_ref())
                .at("spec.extensionName"),
            );
        }
    }
    let claims = provenance::generated_claims(input.objects, &input.origins, believed, &mut plan.results);
    trust::check_input(input.objects, &input.origins, &input.resources, &claims.of, &mut plan.results);
    for config in configs {
        let before = plan.patches.clone();
        plan_one(config, input, &claims, &mut plan);
        for (i, _) in before.iter().filter(|(i, p)| plan.patches.get(i) != Some(p)) {
            plan.results.push(
                Finding::error(Code::ConfigsOverlap, format!(
                    "two configs change this object (the second is RBACConfig {:?}); give each extension its own APIs with spec.apis",
                    config.name
                ))
                .on(&objects[*i].object_ref())
                .in_file(objects[*i].file.as_ref()),
            );
        }
    }
    check_conflicts(input, &mut plan);
    plan
}

#[cfg(test)]
mod tests;
