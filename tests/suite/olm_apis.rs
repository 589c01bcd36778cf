//! `spec.olmAPIs`: access to OLM's own APIs, checked through the offline
//! evaluator over the render and Kubernetes' built-in roles, in Aggregate
//! mode and in Bind mode (cluster-wide and namespaced bindings), for each
//! value; idempotent, reverted by `Unmanaged`, conflict-checked.

use crate::common::*;
use olm_rbac::access::{Identity, Policy, Request};
use olm_rbac::check::load;
use olm_rbac::run::{render, Source};

const BUNDLE: &str = "memcached-operator-0.0.1";

use crate::access_facts::EXISTING;

/// Bind mode: editors in team-a, auditors reading cluster-wide, operators editing cluster-wide.
const BINDINGS: &str = "  bindings:
  - role: edit
    subjects: [{kind: Group, name: team-a-devs}]
    namespaces: [team-a]
  - role: view
    subjects: [{kind: Group, name: auditors}]
  - role: edit
    subjects: [{kind: Group, name: ops}]
";

const MODES: [&str; 2] = ["Aggregate", "Bind"];
const VALUES: [&str; 3] = ["Unmanaged", "View", "Edit"];

fn spec(mode: &str, olm_apis: Option<&str>) -> String {
    let mut spec = format!("  mode: {mode}\n");
    if let Some(value) = olm_apis {
        spec.push_str(&format!("  olmAPIs: {value}\n"));
    }
    if mode == "Bind" {
        spec.push_str("  stripBundleAggregation: true\n");
        spec.push_str(BINDINGS);
    }
    spec
}

fn render_with(inputs: Vec<Source>, spec: &str) -> olm_rbac::outcome::Outcome {
    render(&inputs, &[Source { name: "rbac.yaml".into(), text: config("ext", spec) }])
}

fn bundle_inputs() -> Vec<Source> {
    docs_of(BUNDLE).into_iter().map(|d| Source { name: "bundle.yaml".into(), text: d }).collect()
}

/// The render of the bundle with `spec`, which must succeed.
fn rendered(spec: &str) -> (String, String) {
    let out = render_with(bundle_inputs(), spec);
    assert_eq!(out.code, 0, "{spec}: {}", out.stderr);
    (out.stdout, out.stderr)
}

/// The cluster after applying `rendered`, with the existing bindings.
fn policy(rendered: &str) -> Policy {
    load(&[
        Source { name: "rendered.yaml".into(), text: rendered.into() },
        Source { name: "existing.yaml".into(), text: EXISTING.into() },
    ])
    .unwrap_or_else(|e| panic!("{e:?}"))
}

fn dev() -> Identity {
    Identity::new("dev", &["team-a-devs".into()])
}
fn auditor() -> Identity {
    Identity::new("auditor", &["auditors".into()])
}
fn alice() -> Identity {
    Identity::new("alice@example.com", &[])
}
fn op() -> Identity {
    Identity::new("op", &["ops".into()])
}

fn can(p: &Policy, who: &Identity, verb: &str, group: &str, resource: &str, ns: Option<&str>) -> bool {
    p.can(who, &Request::on(verb, group, resource, ns)).is_some()
}

const V0: &str = "operators.coreos.com";
const V1: &str = "olm.operatorframework.io";

fn list_extensions(p: &Policy, who: &Identity) -> bool {
    can(p, who, "list", V1, "clusterextensions", None)
}
fn create_subscriptions(p: &Policy, who: &Identity, ns: &str) -> bool {
    can(p, who, "create", V0, "subscriptions", Some(ns))
}
fn list_subscriptions(p: &Policy, who: &Identity, ns: &str) -> bool {
    can(p, who, "list", V0, "subscriptions", Some(ns))
}

#[test]
fn unmanaged_is_the_default_and_grants_nothing_on_olms_apis() {
    for mode in MODES {
        let (default, _) = rendered(&spec(mode, None));
        let (unmanaged, _) = rendered(&spec(mode, Some("Unmanaged")));
        assert_same_text(&unmanaged, &default, &format!("{mode}: olmAPIs: Unmanaged against no olmAPIs"));
        let p = policy(&unmanaged);
        for who in [dev(), auditor(), alice(), op()] {
            for (verb, group, resource) in [
                ("list", V1, "clusterextensions"),
                ("get", V1, "clustercatalogs"),
                ("list", V0, "subscriptions"),
                ("create", V0, "subscriptions"),
                ("list", "packages.operators.coreos.com", "packagemanifests"),
            ] {
                for ns in [None, Some("team-a"), Some("team-b")] {
                    assert!(
                        !can(&p, &who, verb, group, resource, ns),
                        "{mode}: {who:?} may {verb} {resource} in {ns:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn aggregate_view_lets_the_built_in_roles_read_olms_apis_where_they_are_held() {
    let (out, _) = rendered(&spec("Aggregate", Some("View")));
    let p = policy(&out);
    // view cluster-wide: every OLM object, and which extensions and catalogs are installed.
    assert!(list_extensions(&p, &auditor()) && can(&p, &auditor(), "watch", V1, "clustercatalogs", None));
    assert!(list_subscriptions(&p, &auditor(), "team-b"));
    assert!(can(&p, &auditor(), "get", "packages.operators.coreos.com", "packagemanifests", Some("team-b")));
    assert!(can(&p, &auditor(), "list", V0, "operatorgroups", Some("team-a")));
    // edit in team-a reads there (view → edit), only there, and a RoleBinding reads no cluster-scoped API.
    assert!(list_subscriptions(&p, &dev(), "team-a") && !list_subscriptions(&p, &dev(), "team-b"));
    assert!(!list_extensions(&p, &dev()));
    // admin in team-b reads there (edit → admin).
    assert!(can(&p, &alice(), "get", V0, "clusterserviceversions", Some("team-b")));
    // View writes nothing.
    for who in [dev(), auditor(), alice()] {
        for ns in ["team-a", "team-b"] {
            assert!(!create_subscriptions(&p, &who, ns), "{who:?} may create subscriptions in {ns}");
            assert!(!can(&p, &who, "delete", V0, "installplans", Some(ns)));
        }
    }
}

#[test]
fn aggregate_edit_lets_edit_and_admin_holders_create_subscriptions_where_they_hold_them() {
    let (out, stderr) = rendered(&spec("Aggregate", Some("Edit")));
    let p = policy(&out);
    assert!(create_subscriptions(&p, &dev(), "team-a") && !create_subscriptions(&p, &dev(), "team-b"));
    assert!(create_subscriptions(&p, &alice(), "team-b") && !create_subscriptions(&p, &alice(), "team-a"));
    assert!(can(&p, &alice(), "delete", V0, "clusterserviceversions", Some("team-b")));
    assert!(!create_subscriptions(&p, &auditor(), "team-a"), "view holders only read");
    assert!(list_subscriptions(&p, &auditor(), "team-a"));
    // OLM v0's edit role creates no CSVs or InstallPlans, and OperatorGroups stay the admin's.
    assert!(!can(&p, &alice(), "create", V0, "clusterserviceversions", Some("team-b")));
    assert!(!can(&p, &alice(), "create", V0, "operatorgroups", Some("team-b")));
    assert!(stderr.contains(
        "warning: RBACConfig ext: spec.olmAPIs: olmAPIs: Edit lets everyone who holds the built-in edit or admin role create Subscriptions where they hold it, that is install operators from the cluster's catalogs;"
    ), "{stderr}");
}

#[test]
fn bind_cluster_wide_follows_the_bindings_level() {
    for value in ["View", "Edit"] {
        let (out, _) = rendered(&spec("Bind", Some(value)));
        let p = policy(&out);
        for who in [auditor(), op()] {
            assert!(list_extensions(&p, &who) && list_subscriptions(&p, &who, "team-b"), "{value}: {who:?}");
        }
        assert!(!create_subscriptions(&p, &auditor(), "team-b"), "{value}: a view binding never writes");
        assert_eq!(create_subscriptions(&p, &op(), "team-b"), value == "Edit", "{value}: an edit binding");
        // Bind mode grants nothing through the built-in roles: alice's admin in team-b reads no OLM object.
        assert!(!list_subscriptions(&p, &alice(), "team-b"), "{value}");
    }
}

#[test]
fn bind_namespaced_reads_olm_objects_in_its_namespaces_and_discovers_extensions_cluster_wide() {
    for value in ["View", "Edit"] {
        let (out, _) = rendered(&spec("Bind", Some(value)));
        let p = policy(&out);
        assert!(list_subscriptions(&p, &dev(), "team-a") && !list_subscriptions(&p, &dev(), "team-b"), "{value}");
        assert!(!can(&p, &dev(), "list", V0, "subscriptions", None), "{value}: no cluster-wide list of subscriptions");
        assert!(list_extensions(&p, &dev()), "{value}: the discovery role is bound cluster-wide");
        assert!(!can(&p, &dev(), "delete", V1, "clusterextensions", None), "{value}: discovery only reads");
        assert_eq!(create_subscriptions(&p, &dev(), "team-a"), value == "Edit", "{value}");
        assert!(!create_subscriptions(&p, &dev(), "team-b"), "{value}");
    }
}

#[test]
fn a_namespaced_binding_that_selects_no_namespace_gets_no_discovery() {
    let spec = "  mode: Bind\n  olmAPIs: View\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: team-a-devs}]\n    namespaceSelector: {matchLabels: {tenant: nobody}}\n";
    let (out, _) = rendered(spec);
    assert!(!list_extensions(&policy(&out), &dev()));
}

#[test]
fn a_second_run_over_the_output_changes_nothing() {
    for mode in MODES {
        for value in VALUES {
            let spec = spec(mode, Some(value));
            let (first, _) = rendered(&spec);
            let again = render_with(vec![Source { name: "rendered.yaml".into(), text: first.clone() }], &spec);
            assert_eq!(again.code, 0, "{mode} {value}: {}", again.stderr);
            assert_same_text(&again.stdout, &first, &format!("{mode} {value}: second run"));
        }
    }
}

#[test]
fn unmanaged_after_view_removes_the_olm_roles_and_says_so() {
    for mode in MODES {
        let (view, _) = rendered(&spec(mode, Some("View")));
        assert!(view.contains("name: ext-olm-view"), "{mode}");
        let back = render_with(vec![Source { name: "rendered.yaml".into(), text: view }], &spec(mode, None));
        assert_eq!(back.code, 0, "{mode}: {}", back.stderr);
        let (default, _) = rendered(&spec(mode, None));
        assert_same_text(&back.stdout, &default, &format!("{mode}: Unmanaged after View"));
        assert!(!list_extensions(&policy(&back.stdout), &auditor()), "{mode}");
        for role in ["ext-olm-view", "ext-olm-discovery"] {
            let removed = format!(
                "info: ClusterRole {role}: removed: olm-rbac generated it for extension \"ext\" earlier, and this run ({mode} mode) does not"
            );
            assert!(back.stderr.contains(&removed), "{mode}: {}", back.stderr);
        }
    }
}

/// A ClusterRole named like a generated one, as a bundle would ship it; with
/// olm-rbac's labels when `forged`, and rules wider than the real role's.
fn bundle_role(name: &str, forged: bool) -> String {
    let labels = if forged {
        "  labels: {app.kubernetes.io/managed-by: olm-rbac, olm-rbac.io/extension: ext, olm-rbac.io/role: olm-view}\n"
    } else {
        ""
    };
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name}\n{labels}rules:\n- {{apiGroups: ['*'], resources: ['*'], verbs: ['*']}}\n"
    )
}

#[test]
fn a_bundle_object_with_a_generated_name_is_a_conflict_and_changes_nothing() {
    for forged in [false, true] {
        for mode in MODES {
            let mut inputs = bundle_inputs();
            inputs.push(Source { name: "bundle.yaml".into(), text: bundle_role("ext-olm-view", forged) });
            let out = render_with(inputs, &spec(mode, Some("View")));
            assert_eq!(out.code, 1, "{mode} forged={forged}: {}", out.stderr);
            assert!(out.stdout.is_empty());
            let owner =
                if forged { "it was generated for extension \"ext\"" } else { "it was not generated by olm-rbac" };
            let conflict = format!(
                "error: ClusterRole ext-olm-view: conflict: olm-rbac would generate ClusterRole ext-olm-view for OLM's own APIs (spec.olmAPIs), but the input already has an object of that kind and name ({owner}); nothing was overwritten."
            );
            assert!(out.stderr.contains(&conflict), "{mode} forged={forged}: {}", out.stderr);
        }
    }
}

#[test]
fn a_bundle_role_with_the_olm_roles_labels_adds_nothing_to_them() {
    let mut inputs = bundle_inputs();
    inputs.push(Source { name: "bundle.yaml".into(), text: bundle_role("sneaky", true) });
    let out = render_with(inputs, &spec("Bind", Some("View")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let p = policy(&out.stdout);
    // auditors hold ext-olm-view and ext-olm-discovery: only their reads.
    assert!(list_extensions(&p, &auditor()));
    assert!(!can(&p, &auditor(), "get", "", "secrets", Some("team-a")));
    assert!(!can(&p, &auditor(), "create", V0, "subscriptions", Some("team-a")));
}

#[test]
fn olm_apis_needs_a_mode_that_generates() {
    let out = render_with(bundle_inputs(), "  olmAPIs: View\n");
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains(
        "error: RBACConfig ext: spec.olmAPIs: olmAPIs: View is only used in Aggregate and Bind mode, and this config's mode is Unmanaged: remove it, or set the mode to Aggregate or Bind"
    ), "{}", out.stderr);
}

#[test]
fn two_extensions_with_olm_apis_write_their_own_roles_without_conflict() {
    let inputs: Vec<Source> =
        docs_of("cert-manager-1.16.5").into_iter().map(|d| Source { name: "bundle.yaml".into(), text: d }).collect();
    let one = |name: &str, api: &str| Source {
        name: format!("{name}.yaml"),
        text: config(name, &format!("  mode: Aggregate\n  olmAPIs: View\n  apis: {{include: [{api}]}}\n")),
    };
    let configs = [one("certs", "certificates.cert-manager.io"), one("issuers", "issuers.cert-manager.io")];
    let out = render(&inputs, &configs);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for role in ["certs-olm-view", "certs-olm-discovery", "issuers-olm-view", "issuers-olm-discovery"] {
        assert_eq!(count(&out.stdout, &format!("name: {role}\n")), 1, "{role}");
    }
    assert!(list_extensions(&policy(&out.stdout), &auditor()));
}
