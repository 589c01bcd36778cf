//! Delegated installs (`spec.delegations`), end to end: each scenario is
//! rendered from a real bundle by the binary, and a table of
//! ClusterExtensions goes through the offline check (`can-install`), each
//! with the answer and the message expected; the generated policy's CEL is
//! also evaluated here, straight on the `cel` crate, so that the check is not
//! its own only oracle.

use std::collections::HashMap;

use cel::{Context, Program, Value as CelValue};
use olm_rbac::admission::Operation;
use olm_rbac::check::commands::Common;
use olm_rbac::check::install::{can_install, CanInstall, CANNOT_TELL};
use olm_rbac::input::Source;
use serde_json::{json, Value};

use crate::common::*;

/// A policy every scenario's bundle passes.
const POLICY: &str =
    "  operator:\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [nodes], verbs: [delete], scope: Cluster}\n";

/// Renders `bundle`'s root with a config of `delegations`; the output and stderr.
fn render(bundle: &str, delegations: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("rbac.yaml");
    std::fs::write(&cfg, config("ext", &format!("  mode: Aggregate\n{POLICY}  delegations:\n{delegations}"))).unwrap();
    let root = bundles_dir().join(bundle);
    let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), root.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

fn extension(name: &str, team: Option<&str>, package: &str, version: &str, namespace: &str, catalog: &str) -> Value {
    let mut labels = serde_json::Map::new();
    if let Some(team) = team {
        labels.insert("olm-rbac.io/delegation".into(), json!(team));
    }
    json!({"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
           "metadata": {"name": name, "labels": labels},
           "spec": {"namespace": namespace, "source": {"sourceType": "Catalog", "catalog": {
               "packageName": package, "version": version,
               "selector": {"matchLabels": {"olm.operatorframework.io/metadata.name": catalog}}}}}})
}

/// One row: who asks, what, and what the check must say.
struct Row {
    what: &'static str,
    user: &'static str,
    groups: &'static [&'static str],
    extension: Value,
    operation: Option<Operation>,
    /// `Some(message part)` for a no, `None` for a yes.
    refused: Option<&'static str>,
}

fn with(mut e: Value, pointer: &str, value: Value) -> Value {
    *e.pointer_mut(pointer).unwrap() = value;
    e
}

/// The rows every scenario has, from its allowed extension.
fn standard_rows(allowed: &Value, user: &'static str, groups: &'static [&'static str], theirs: &str) -> Vec<Row> {
    let catalog = "/spec/source/catalog";
    let row = |what, extension, refused| Row { what, user, groups, extension, operation: None, refused };
    let mut self_certified = allowed.clone();
    self_certified["spec"]["source"]["catalog"]["upgradeConstraintPolicy"] = json!("SelfCertified");
    let mut unsafe_crds = allowed.clone();
    unsafe_crds["spec"]["install"] = json!({"preflight": {"crdUpgradeSafety": {"enforcement": "None"}}});
    let mut configured = allowed.clone();
    configured["spec"]["config"] = json!({"configType": "Inline", "inline": {"watchNamespace": "kube-system"}});
    let mut annotated = allowed.clone();
    annotated["metadata"]["annotations"] = json!({"olm.operatorframework.io/watch-namespace": "kube-system"});
    let mut their_name = allowed.clone();
    their_name["metadata"]["name"] = json!(theirs);
    vec![
        row("allowed", allowed.clone(), None),
        row(
            "wrong package",
            with(allowed.clone(), &format!("{catalog}/packageName"), json!("evil-operator")),
            Some("may install only"),
        ),
        row(
            "wrong version",
            with(allowed.clone(), &format!("{catalog}/version"), json!("99.0.0")),
            Some("each version written exactly"),
        ),
        row(
            "a range",
            with(allowed.clone(), &format!("{catalog}/version"), json!(">=0.0.1")),
            Some("each version written exactly"),
        ),
        row(
            "wrong namespace",
            with(allowed.clone(), "/spec/namespace", json!("kube-system")),
            Some("may install only into"),
        ),
        row(
            "wrong catalog",
            with(
                allowed.clone(),
                &format!("{catalog}/selector/matchLabels/olm.operatorframework.io~1metadata.name"),
                json!("evil"),
            ),
            Some("may install only from ClusterCatalog"),
        ),
        row("SelfCertified", self_certified, Some("must not be SelfCertified")),
        row("CRD safety off", unsafe_crds, Some("crdUpgradeSafety.enforcement must not be None")),
        row("another team's extension", their_name, Some("is not your team's")),
        row("a watch namespace of its own", configured, Some("spec.config must not be set")),
        row("a watch namespace by annotation", annotated, Some("watch-namespace\"] must not be set")),
        Row {
            what: "a user outside the team",
            user: "mallory",
            groups: &["interns"],
            extension: allowed.clone(),
            operation: None,
            refused: Some("RBAC: no binding"),
        },
    ]
}

/// Another team's ClusterExtension, as the cluster holds it.
fn theirs(name: &str) -> String {
    format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: {name}\n  labels:\n    olm-rbac.io/delegation: someone-else\nspec:\n  namespace: elsewhere\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: other\n")
}

/// Runs the rows through `can-install` and through the policy's CEL here.
fn check_rows(rendered: &str, existing: &str, rows: &[Row]) {
    let manifests = [
        Source { name: "rendered.yaml".into(), text: rendered.to_string() },
        Source { name: "cluster.yaml".into(), text: existing.to_string() },
    ];
    let policy = generated(rendered, "ValidatingAdmissionPolicy")
        .into_iter()
        .find(|p| p["metadata"]["name"] == "olm-rbac-delegated-installs")
        .expect("the delegations' policy");
    let cluster: Vec<Value> = serde_saphyr::from_multiple(existing).unwrap();
    for row in rows {
        let groups: Vec<String> = row.groups.iter().map(|g| g.to_string()).collect();
        let asked = [Source { name: "ce.yaml".into(), text: serde_json::to_string(&row.extension).unwrap() }];
        let q = CanInstall {
            extension: &asked,
            user: row.user,
            groups: &groups,
            operation: row.operation,
            explain: false,
            common: Common::default(),
        };
        let out = can_install(&manifests, &q);
        match row.refused {
            None => {
                assert_eq!(
                    (out.code.code(), out.stdout.as_str()),
                    (0, "yes\n"),
                    "{}: {}{}",
                    row.what,
                    out.stdout,
                    out.stderr
                )
            }
            Some(said) => {
                assert_eq!(out.code, 1, "{}: {}{}", row.what, out.stdout, out.stderr);
                assert!(out.stdout.starts_with("no\n") && out.stdout.contains(said), "{}: {}", row.what, out.stdout);
            }
        }
        // The same policy, evaluated here.
        let name = row.extension["metadata"]["name"].as_str().unwrap();
        let old = cluster.iter().find(|o| o["metadata"]["name"] == name);
        let operation = match (row.operation, old) {
            (Some(Operation::Delete), _) => "DELETE",
            (_, Some(_)) => "UPDATE",
            _ => "CREATE",
        };
        let object = if operation == "DELETE" { Value::Null } else { row.extension.clone() };
        let mut all_groups = groups.clone();
        all_groups.push("system:authenticated".into());
        let request = json!({"operation": operation, "userInfo": {"username": row.user, "groups": all_groups}});
        let here = admits(&policy, &object, old.unwrap_or(&Value::Null), &request);
        let by_rbac = row.refused.is_some_and(|s| s.starts_with("RBAC"));
        match (row.refused, here) {
            (_, None) => assert!(by_rbac, "{}: the policy does not apply, yet RBAC allows", row.what),
            (None, Some(admitted)) => assert!(admitted, "{}: the CEL refuses what can-install admits", row.what),
            (Some(_), Some(admitted)) => {
                assert!(!admitted || by_rbac, "{}: the CEL admits what can-install refuses", row.what)
            }
        }
    }
}

fn generated(out: &str, kind: &str) -> Vec<Value> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(out).unwrap();
    docs.into_iter().filter(|d| d["kind"] == kind).collect()
}

fn cel(
    expression: &str,
    object: &Value,
    old: &Value,
    request: &Value,
    variables: &HashMap<String, CelValue>,
) -> Result<bool, String> {
    let program = Program::compile(expression).map_err(|e| format!("{expression}: {e}"))?;
    let mut context = Context::default();
    context.add_variable("object", object).map_err(|e| e.to_string())?;
    context.add_variable("oldObject", old).map_err(|e| e.to_string())?;
    context.add_variable("request", request).map_err(|e| e.to_string())?;
    context.add_variable_from_value("variables", variables.clone());
    match program.execute(&context) {
        Ok(CelValue::Bool(b)) => Ok(b),
        other => Err(format!("{expression}: {other:?}")),
    }
}

/// What the API server would do under `policy`: `None` when its match
/// condition is false, else whether every validation holds (an error is a
/// refusal: `failurePolicy: Fail`).
fn admits(policy: &Value, object: &Value, old: &Value, request: &Value) -> Option<bool> {
    let spec = &policy["spec"];
    assert_eq!(spec["failurePolicy"], "Fail");
    let none = HashMap::new();
    for condition in spec["matchConditions"].as_array().unwrap() {
        if !cel(condition["expression"].as_str().unwrap(), object, old, request, &none).unwrap() {
            return None;
        }
    }
    let mut variables = HashMap::new();
    for v in spec["variables"].as_array().unwrap() {
        let program = Program::compile(v["expression"].as_str().unwrap()).unwrap();
        let mut context = Context::default();
        context.add_variable("object", object).unwrap();
        context.add_variable("oldObject", old).unwrap();
        context.add_variable("request", request).unwrap();
        context.add_variable_from_value("variables", variables.clone());
        let value = program.execute(&context).unwrap();
        variables.insert(v["name"].as_str().unwrap().to_string(), value);
    }
    Some(
        spec["validations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| cel(v["expression"].as_str().unwrap(), object, old, request, &variables) == Ok(true)),
    )
}

/// The operator-controller how-to's scenario: group team-monitoring (and
/// alice) may install Prometheus into monitoring or observability, from one
/// catalog, at the judged version only.
#[test]
fn the_upstream_team_monitoring_scenario() {
    let (rendered, stderr) = render(
        "prometheus-0.56.3",
        "  - team: monitoring\n    access: Install\n    subjects: [{kind: Group, name: team-monitoring}, {kind: User, name: alice}]\n    packages: [{name: prometheus}]\n    namespaces: [monitoring, observability]\n    catalogs: [operatorhubio]\n",
    );
    assert!(stderr.contains("team monitoring (User alice, Group team-monitoring) may install prometheus 0.56.3 into namespaces monitoring, observability from ClusterCatalog operatorhubio"), "{stderr}");
    let allowed = extension("prometheus", Some("monitoring"), "prometheus", "0.56.3", "monitoring", "operatorhubio");
    let mut rows = standard_rows(&allowed, "bob", &["team-monitoring"], "their-prometheus");
    rows.push(Row {
        what: "alice by name",
        user: "alice",
        groups: &[],
        extension: with(allowed.clone(), "/spec/namespace", json!("observability")),
        operation: None,
        refused: None,
    });
    rows.push(Row {
        what: "no team label",
        user: "bob",
        groups: &["team-monitoring"],
        extension: {
            let mut e = allowed.clone();
            e["metadata"]["labels"] = json!({});
            e
        },
        operation: None,
        refused: Some("must name the team"),
    });
    rows.push(Row {
        what: "a version with a v",
        user: "bob",
        groups: &["team-monitoring"],
        extension: with(allowed.clone(), "/spec/source/catalog/version", json!("v0.56.3")),
        operation: None,
        refused: Some("each version written exactly"),
    });
    check_rows(&rendered, &theirs("their-prometheus"), &rows);
}

/// Two teams, one user in both: each ClusterExtension is held to the team
/// its label names. The platform team's versions are listed, not judged
/// here, which render warns about.
#[test]
fn two_teams_and_a_user_in_both() {
    let (rendered, stderr) = render(
        "strimzi-kafka-operator-1.2.0",
        "  - team: streaming\n    access: Install\n    subjects: [{kind: Group, name: streaming}, {kind: ServiceAccount, namespace: ci, name: deployer}]\n    packages: [{name: strimzi-kafka-operator}]\n    namespaces: [kafka]\n    catalogs: [operatorhubio]\n  - team: platform\n    access: Install\n    subjects: [{kind: Group, name: platform}]\n    packages: [{name: cert-manager, versions: [\"1.16.5\"]}]\n    namespaces: [cert-manager]\n    catalogs: [community]\n",
    );
    assert!(stderr.contains("warning: RBACConfig ext: spec.delegations[1].packages[0].versions: 1.16.5 of cert-manager was not judged in this render (it judged package \"strimzi-kafka-operator\")"), "{stderr}");
    let allowed = extension("kafka", Some("streaming"), "strimzi-kafka-operator", "1.2.0", "kafka", "operatorhubio");
    let mut rows = standard_rows(&allowed, "system:serviceaccount:ci:deployer", &[], "their-kafka");
    let both: &[&str] = &["streaming", "platform"];
    let cert_manager = extension("certs", Some("platform"), "cert-manager", "1.16.5", "cert-manager", "community");
    rows.push(Row {
        what: "a user of both teams, for platform",
        user: "dana",
        groups: both,
        extension: cert_manager.clone(),
        operation: None,
        refused: None,
    });
    rows.push(Row {
        what: "a user of both teams, for streaming",
        user: "dana",
        groups: both,
        extension: allowed.clone(),
        operation: None,
        refused: None,
    });
    rows.push(Row {
        what: "platform's package under streaming's label",
        user: "dana",
        groups: both,
        extension: with(cert_manager.clone(), "/metadata/labels/olm-rbac.io~1delegation", json!("streaming")),
        operation: None,
        refused: Some("team streaming may install only strimzi-kafka-operator"),
    });
    rows.push(Row {
        what: "a team it is not in",
        user: "erin",
        groups: &["streaming"],
        extension: cert_manager,
        operation: None,
        refused: Some("must name the team"),
    });
    check_rows(&rendered, &theirs("their-kafka"), &rows);
}

/// A team that may install, one that may only read, and deletes: a team may
/// delete its own ClusterExtension and no other.
#[test]
fn a_viewing_team_and_deletes() {
    let (rendered, _) = render(
        "memcached-operator-0.0.1",
        "  - team: cache\n    access: Install\n    subjects: [{kind: User, name: carol}]\n    packages: [{name: memcached-operator}]\n    namespaces: [cache]\n    catalogs: [internal]\n  - team: auditors\n    access: View\n    subjects: [{kind: Group, name: auditors}]\n    packages: [{name: memcached-operator}]\n    namespaces: [cache]\n    catalogs: [internal]\n",
    );
    let allowed = extension("memcached", Some("cache"), "memcached-operator", "0.0.1", "cache", "internal");
    let mut rows = standard_rows(&allowed, "carol", &[], "their-memcached");
    let ours = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: our-memcached\n  labels:\n    olm-rbac.io/delegation: cache\nspec:\n  namespace: cache\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: memcached-operator\n";
    let delete = |name: &str| json!({"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension", "metadata": {"name": name}});
    rows.push(Row {
        what: "deleting its own",
        user: "carol",
        groups: &[],
        extension: delete("our-memcached"),
        operation: Some(Operation::Delete),
        refused: None,
    });
    rows.push(Row {
        what: "deleting another team's",
        user: "carol",
        groups: &[],
        extension: delete("their-memcached"),
        operation: Some(Operation::Delete),
        refused: Some("is not your team's"),
    });
    rows.push(Row {
        what: "an auditor creating",
        user: "frank",
        groups: &["auditors"],
        extension: allowed.clone(),
        operation: None,
        refused: Some("RBAC: no binding"),
    });
    check_rows(&rendered, &format!("{}---\n{ours}", theirs("their-memcached")), &rows);
    // The auditors read.
    let out = run_bin(
        &[
            "can-i",
            "list",
            "clusterextensions.olm.operatorframework.io",
            "--as",
            "frank",
            "--as-group",
            "auditors",
            "-f",
            "-",
        ],
        &rendered,
    );
    assert_eq!(text(&out.stdout), "yes\n");
}

/// The command's exit codes: yes 0, no 1, unreadable 2, cannot tell 3.
#[test]
fn can_install_exit_codes() {
    let (rendered, _) = render(
        "memcached-operator-0.0.1",
        "  - team: cache\n    access: Install\n    subjects: [{kind: User, name: carol}]\n    packages: [{name: memcached-operator}]\n    namespaces: [cache]\n    catalogs: [internal]\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let (ce, out_file) = (dir.path().join("ce.yaml"), dir.path().join("rendered.yaml"));
    std::fs::write(&out_file, &rendered).unwrap();
    let allowed = extension("memcached", Some("cache"), "memcached-operator", "0.0.1", "cache", "internal");
    std::fs::write(&ce, serde_json::to_string(&allowed).unwrap()).unwrap();
    let ask = |user: &str, files: &[&str]| {
        let mut args = vec!["can-install", ce.to_str().unwrap(), "--as", user];
        for f in files {
            args.extend(["-f", f]);
        }
        run_bin(&args, "")
    };
    let rendered_path = out_file.to_str().unwrap();
    assert_eq!(ask("carol", &[rendered_path]).status.code(), Some(0));
    assert_eq!(ask("mallory", &[rendered_path]).status.code(), Some(1));
    // A version the API server does not serve is no question to answer.
    let v9 = serde_json::to_string(&with(allowed.clone(), "/apiVersion", json!("olm.operatorframework.io/v9beta7")))
        .unwrap();
    let v9_file = dir.path().join("v9.yaml");
    std::fs::write(&v9_file, v9).unwrap();
    let out = run_bin(&["can-install", v9_file.to_str().unwrap(), "--as", "carol", "-f", rendered_path], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("serves ClusterExtensions as olm.operatorframework.io/v1 only"),
        "{}",
        text(&out.stderr)
    );
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "kind: [").unwrap();
    assert_eq!(ask("carol", &[rendered_path, broken.to_str().unwrap()]).status.code(), Some(2));
    // A policy the engine cannot evaluate: never a yes.
    let opaque = dir.path().join("opaque.yaml");
    std::fs::write(&opaque, "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: opaque\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: [olm.operatorframework.io], apiVersions: ['*'], operations: [CREATE], resources: [clusterextensions]}\n  validations:\n  - expression: \"authorizer.group('').resource('pods').check('create').allowed()\"\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: opaque\nspec:\n  policyName: opaque\n  validationActions: [Deny]\n").unwrap();
    let out = ask("carol", &[rendered_path, opaque.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(CANNOT_TELL.code()), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).starts_with("cannot tell\n")
            && text(&out.stdout).contains("ValidatingAdmissionPolicy opaque: cannot tell"),
        "{}",
        text(&out.stdout)
    );
}

/// What would hand out more than the admin wrote is refused, each naming its
/// field.
#[test]
fn delegations_that_hand_out_more_than_written_are_refused() {
    let base = "  - team: t\n    access: Install\n    subjects: [{kind: Group, name: g}]\n    packages: [{name: memcached-operator}]\n    namespaces: [n]\n    catalogs: [c]\n";
    let cases: &[(&str, &str, &str)] = &[
        ("{kind: Group, name: g}", "{kind: Group, name: system:authenticated}", "spec.delegations[0].subjects[0].name: Group \"system:authenticated\" holds every authenticated user"),
        ("{kind: Group, name: g}", "{kind: Group, name: system:serviceaccounts}", "holds every ServiceAccount"),
        ("{kind: Group, name: g}", "{kind: User, name: system:anonymous}", "unauthenticated requests"),
        ("{kind: Group, name: g}", "{kind: Group, name: 'system:serviceaccounts:ci'}", "holds every ServiceAccount of a namespace"),
        ("subjects: [{kind: Group, name: g}]", "subjects: []", "spec.delegations[0].subjects: must name at least one"),
        ("packages: [{name: memcached-operator}]", "packages: []", "spec.delegations[0].packages: must name at least one package"),
        ("namespaces: [n]", "namespaces: []", "spec.delegations[0].namespaces: must name at least one namespace"),
        ("namespaces: [n]", "namespaces: ['*']", "spec.delegations[0].namespaces[0]: \"*\" is not a namespace name"),
        ("catalogs: [c]", "catalogs: []", "spec.delegations[0].catalogs: must name at least one ClusterCatalog"),
        ("{name: memcached-operator}", "{name: memcached-operator, versions: []}", "versions: is empty"),
        ("{name: memcached-operator}", "{name: memcached-operator, versions: ['>=0.0.1']}", "versions[0]: \">=0.0.1\" is not one exact version"),
        ("{name: memcached-operator}", "{name: memcached-operator, versions: ['0.0.1+build']}", "must be written exactly as ClusterExtensions write it: \"0.0.1\""),
        ("{name: memcached-operator}", "{name: other-operator}", "spec.delegations[0].packages[0].versions: is left out, so team t may install the versions of other-operator judged here, and there are none: the bundle judged here is package \"memcached-operator\""),
        ("team: t", "team: T", "spec.delegations[0].team: \"T\" is not a DNS label"),
        ("access: Install", "access: Everything", "access"),
    ];
    for (from, to, said) in cases {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("rbac.yaml");
        std::fs::write(
            &cfg,
            config("ext", &format!("  mode: Aggregate\n{POLICY}  delegations:\n{}", base.replace(from, to))),
        )
        .unwrap();
        let root = bundles_dir().join("memcached-operator-0.0.1");
        let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), root.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(1), "{to}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "no partial output");
        assert!(
            text(&out.stderr).lines().any(|l| l.starts_with("error: ") && l.contains(said)),
            "{to}: {}",
            text(&out.stderr)
        );
    }
    // Without an install policy nothing was judged.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("rbac.yaml");
    std::fs::write(&cfg, config("ext", &format!("  mode: Aggregate\n  delegations:\n{base}"))).unwrap();
    let root = bundles_dir().join("memcached-operator-0.0.1");
    let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), root.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no install policy judged the bundle here (spec.operator.policy)"),
        "{}",
        text(&out.stderr)
    );
}

/// A bundle cannot ship an object under a name the delegations write: it
/// would replace the policy or widen a team's role when applied.
#[test]
fn a_bundle_cannot_stand_in_for_the_delegations_objects() {
    let forged = [
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: olm-rbac-delegated-installs\nspec:\n  failurePolicy: Ignore\n  matchConstraints:\n    resourceRules: []\n  validations:\n  - expression: 'true'\n",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: olm-rbac-delegate-t\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: Group, name: g, apiGroup: rbac.authorization.k8s.io}]\n",
    ];
    for object in forged {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&bundles_dir().join("memcached-operator-0.0.1"), dir.path());
        std::fs::write(dir.path().join("manifests/forged.yaml"), object).unwrap();
        let cfg_dir = tempfile::tempdir().unwrap();
        let cfg = cfg_dir.path().join("rbac.yaml");
        std::fs::write(&cfg, config("ext", &format!("  mode: Aggregate\n{POLICY}  delegations:\n  - team: t\n    access: Install\n    subjects: [{{kind: Group, name: g}}]\n    packages: [{{name: memcached-operator}}]\n    namespaces: [n]\n    catalogs: [c]\n"))).unwrap();
        let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), dir.path().to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(1), "{object}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty());
        let name =
            if object.contains("delegated-installs") { "olm-rbac-delegated-installs" } else { "olm-rbac-delegate-t" };
        assert!(
            text(&out.stderr)
                .lines()
                .any(|l| l.starts_with("error: ") && l.contains(name) && l.contains("or leave spec.delegations out")),
            "{}",
            text(&out.stderr)
        );
    }
}

/// A new judged version changes the policy in the same render, and `diff`
/// says who gains the right to install it (asked of the policy itself), and
/// fails on it.
#[test]
fn diff_shows_who_gains_the_right_to_install_a_newly_judged_version() {
    let delegation = "  - team: monitoring\n    access: Install\n    subjects: [{kind: Group, name: team-monitoring}]\n    packages: [{name: prometheus}]\n    namespaces: [monitoring]\n    catalogs: [operatorhubio]\n";
    let (old, _) = render("prometheus-0.56.3", delegation);
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&bundles_dir().join("prometheus-0.56.3"), dir.path());
    let csv = dir.path().join("manifests/prometheusoperator.0.56.3.clusterserviceversion.yaml");
    let text_of = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text_of.matches("\n  version: 0.56.3\n").count(), 1);
    std::fs::write(&csv, text_of.replace("\n  version: 0.56.3\n", "\n  version: 0.57.0\n")).unwrap();
    let cfg_dir = tempfile::tempdir().unwrap();
    let cfg = cfg_dir.path().join("rbac.yaml");
    std::fs::write(&cfg, config("ext", &format!("  mode: Aggregate\n{POLICY}  delegations:\n{delegation}"))).unwrap();
    let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), dir.path().to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let new = text(&out.stdout);
    let (old_file, new_file) = (cfg_dir.path().join("old.yaml"), cfg_dir.path().join("new.yaml"));
    std::fs::write(&old_file, &old).unwrap();
    std::fs::write(&new_file, &new).unwrap();
    let out = run_bin(&["diff", old_file.to_str().unwrap(), new_file.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1), "a new right to install fails the diff");
    assert_eq!(
        text(&out.stdout),
        "install rights\n  + Group team-monitoring may install prometheus 0.57.0 into monitoring from operatorhubio (team monitoring)\n  - Group team-monitoring may install prometheus 0.56.3 into monitoring from operatorhubio (team monitoring)\n"
    );
    // The same render on both sides: nothing gained.
    let out = run_bin(&["diff", old_file.to_str().unwrap(), old_file.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

/// A CSV version not written as the catalog writes it (`0.0.01`, `v0.0.1`)
/// names no judged version: the version the team would get is another bundle's.
#[test]
fn a_version_not_written_canonically_is_not_judged() {
    for written in ["0.00.1", "v0.0.1", "0.0"] {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&bundles_dir().join("memcached-operator-0.0.1"), dir.path());
        let csv = dir.path().join("manifests/memcached-operator.clusterserviceversion.yaml");
        let text_of = std::fs::read_to_string(&csv).unwrap();
        std::fs::write(&csv, text_of.replace("\n  version: 0.0.1\n", &format!("\n  version: {written}\n"))).unwrap();
        let cfg_dir = tempfile::tempdir().unwrap();
        let cfg = cfg_dir.path().join("rbac.yaml");
        std::fs::write(&cfg, config("ext", &format!("  mode: Aggregate\n{POLICY}  delegations:\n  - team: t\n    access: Install\n    subjects: [{{kind: Group, name: g}}]\n    packages: [{{name: memcached-operator}}]\n    namespaces: [n]\n    catalogs: [c]\n"))).unwrap();
        let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), dir.path().to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(1), "{written}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("has no semantic spec.version written canonically"),
            "{written}: {}",
            text(&out.stderr)
        );
    }
}

/// A policy of someone else's, with one validation, bound with Deny.
fn policy(validation: &str, failure: &str, extra: &str) -> String {
    format!("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\nspec:\n  failurePolicy: {failure}\n  matchConstraints:\n    resourceRules:\n    - {{apiGroups: [olm.operatorframework.io], apiVersions: ['*'], operations: [CREATE, UPDATE], resources: [clusterextensions]}}\n{extra}  validations:\n  - expression: {validation:?}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: p\nspec:\n  policyName: p\n  validationActions: [Deny]\n")
}

/// `can-install` answers as the API server would, or says it cannot tell:
/// never a yes where the server would refuse (found in review).
#[test]
fn can_install_never_says_yes_where_the_server_might_refuse() {
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: w}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]\n";
    let extension = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: x\n  annotations: {d: \"\u{663}\"}\nspec:\n  namespace: n\n  n: 1\n  source: {sourceType: Catalog, catalog: {packageName: p}}\n";
    let nested = format!("{}true{}", "(".repeat(100), ")".repeat(100));
    let webhook = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: hook}\nwebhooks:\n- name: h.example.com\n  rules: [{apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*']}]\n";
    let cases: Vec<(&str, String, i32, &str)> = vec![
        (
            "a binding's empty resourceRules match everything",
            policy("false", "Fail", "").replace(
                "  validationActions: [Deny]\n",
                "  validationActions: [Deny]\n  matchResources: {resourceRules: []}\n",
            ),
            1,
            "failed expression: false",
        ),
        (
            "\\d is ASCII in RE2",
            policy("object.metadata.annotations.d.matches('^\\\\d$')", "Fail", ""),
            CANNOT_TELL.code(),
            "reads otherwise than the regex crate",
        ),
        (
            "\\Q..\\E is RE2's",
            policy("!object.metadata.name.matches('^\\\\Qx\\\\E$')", "Ignore", ""),
            CANNOT_TELL.code(),
            "reads otherwise",
        ),
        (
            "a failed variable makes what reads it untold",
            policy(
                "has(object.spec.config) && variables.v == 'x'",
                "Ignore",
                "  variables:\n  - {name: v, expression: object.spec.config.inline.watchNamespace}\n",
            ),
            CANNOT_TELL.code(),
            "variables.v failed",
        ),
        (
            "a variable the engine cannot evaluate, read through has()",
            policy(
                "!has(variables.approved) || variables.approved",
                "Fail",
                "  variables:\n  - {name: approved, expression: \"authorizer.group('').resource('pods').check('approve').allowed()\"}\n",
            ),
            CANNOT_TELL.code(),
            "variables.approved failed",
        ),
        (
            "a failed variable read by index",
            policy("variables['ok'] == true", "Ignore", "  variables:\n  - {name: ok, expression: object.spec.nope == 1}\n"),
            CANNOT_TELL.code(),
            "variables.ok failed",
        ),
        ("whole numbers are int, as Kubernetes reads them", policy("type(object.spec.n) == int", "Fail", ""), 0, "yes"),
        (
            "a webhook cannot be asked",
            webhook.to_string(),
            CANNOT_TELL.code(),
            "ValidatingWebhookConfiguration hook matches the request",
        ),
        ("deep nesting", policy(&nested, "Fail", ""), CANNOT_TELL.code(), "nests 100 deep"),
        (
            "two policies of one name",
            format!("{}---\n{}", policy("true", "Fail", ""), policy("false", "Fail", "")),
            2,
            "holds ValidatingAdmissionPolicy p twice",
        ),
    ];
    for (what, manifests, code, said) in cases {
        let manifests = [Source { name: "m.yaml".into(), text: format!("{rbac}---\n{manifests}") }];
        let asked = [Source { name: "ce.yaml".into(), text: extension.to_string() }];
        let q = CanInstall {
            extension: &asked,
            user: "alice",
            groups: &[],
            operation: None,
            explain: false,
            common: Common::default(),
        };
        let out = can_install(&manifests, &q);
        assert_eq!(out.code, code, "{what}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains(said) || out.stderr.contains(said), "{what}: {}{}", out.stdout, out.stderr);
    }
}

/// On DELETE `object` is null: a validation that reads a field of it meets an
/// evaluation error on the API server too, and the policy's failurePolicy
/// decides (refused under Fail, admitted under Ignore), not "cannot tell".
#[test]
fn a_delete_that_reads_the_object_follows_the_failure_policy() {
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: w}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]\n";
    let existing = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {name: x}\nspec:\n  namespace: n\n  source: {sourceType: Catalog, catalog: {packageName: p}}\n";
    for (failure, code, said) in [("Fail", 1, "expression failed"), ("Ignore", 0, "yes")] {
        let delete = policy("object.spec.namespace == 'n'", failure, "").replace("[CREATE, UPDATE]", "[DELETE]");
        let manifests = [Source { name: "m.yaml".into(), text: format!("{rbac}---\n{delete}---\n{existing}") }];
        let asked = [Source { name: "ce.yaml".into(), text: existing.to_string() }];
        let q = CanInstall {
            extension: &asked,
            user: "alice",
            groups: &[],
            operation: Some(Operation::Delete),
            explain: false,
            common: Common::default(),
        };
        let out = can_install(&manifests, &q);
        assert_eq!(out.code, code, "failurePolicy {failure}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains(said) || out.stderr.contains(said), "{failure}: {}{}", out.stdout, out.stderr);
    }
}

/// A delegations policy weakened or unbound in NEW is a gain in `diff`, though
/// every listed right stays the same (found in review).
#[test]
fn diff_sees_a_policy_that_no_longer_holds_a_team() {
    let (old, _) = render(
        "memcached-operator-0.0.1",
        "  - team: cache\n    access: Install\n    subjects: [{kind: User, name: carol}]\n    packages: [{name: memcached-operator}]\n    namespaces: [cache]\n    catalogs: [internal]\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let old_file = dir.path().join("old.yaml");
    std::fs::write(&old_file, &old).unwrap();
    // NEW without the owner check: its validation and message lines left out.
    let owner_check: Vec<&str> = old.lines().filter(|l| l.contains("request.operation == 'CREATE' ||")).collect();
    assert_eq!(owner_check.len(), 1);
    let mut lines = old.lines().peekable();
    let mut no_owner_check = String::new();
    while let Some(line) = lines.next() {
        if line == owner_check[0] {
            lines.next();
            continue;
        }
        no_owner_check.push_str(line);
        no_owner_check.push('\n');
    }
    for (what, new) in [
        ("warn only", old.replace("  validationActions:\n  - Deny", "  validationActions:\n  - Warn")),
        ("no binding", old.replace("policyName: olm-rbac-delegated-installs", "policyName: elsewhere")),
        ("no owner check", no_owner_check),
    ] {
        assert_ne!(new, old, "{what}");
        let new_file = dir.path().join("new.yaml");
        std::fs::write(&new_file, &new).unwrap();
        let out = run_bin(&["diff", old_file.to_str().unwrap(), new_file.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out.stdout));
        if what == "no owner check" {
            for how in [
                "taking over a ClusterExtension that is not its team's",
                "deleting a ClusterExtension that is not its team's",
            ] {
                assert!(
                    text(&out.stdout)
                        .contains(&format!("+ User carol may install outside team cache's delegation: {how}")),
                    "{what}: {}",
                    text(&out.stdout)
                );
            }
            continue;
        }
        for how in [
            "a package not delegated",
            "a version range",
            "a namespace not delegated",
            "a spec.config of its own",
            "no team label",
        ] {
            assert!(
                text(&out.stdout).contains(&format!("+ User carol may install outside team cache's delegation: {how}")),
                "{what}: {}",
                text(&out.stdout)
            );
        }
    }
}

/// With operator-controller's SingleOwnNamespaceInstallSupport gate on, an
/// OwnNamespace bundle needs its watch namespace: the delegation policy
/// admits a ClusterExtension whose operator watches its own install
/// namespace, and nothing else of `spec.config` (another namespace, other
/// settings); without the gate, no `spec.config` at all.
#[test]
fn with_the_gate_a_delegated_install_may_watch_its_own_namespace_only() {
    let delegations = "  - team: monitoring\n    access: Install\n    subjects: [{kind: Group, name: team-monitoring}]\n    packages: [{name: prometheus}]\n    namespaces: [monitoring]\n    catalogs: [operatorhubio]\n";
    let dir = tempfile::tempdir().unwrap();
    let policy_of = |gates: &str| {
        let cfg = dir.path().join("rbac.yaml");
        std::fs::write(
            &cfg,
            config("ext", &format!("  mode: Aggregate\n{gates}{POLICY}  delegations:\n{delegations}")),
        )
        .unwrap();
        let root = bundles_dir().join("prometheus-0.56.3");
        let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), root.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        generated(&text(&out.stdout), "ValidatingAdmissionPolicy").remove(0)
    };
    let allowed = extension("prometheus", Some("monitoring"), "prometheus", "0.56.3", "monitoring", "operatorhubio");
    let watching = |ns: &str, extra: Value| {
        let mut inline = json!({"watchNamespace": ns});
        if let (Some(i), Some(e)) = (inline.as_object_mut(), extra.as_object()) {
            i.extend(e.clone());
        }
        let mut e = allowed.clone();
        e["spec"]["config"] = json!({"configType": "Inline", "inline": inline});
        e
    };
    let request = json!({"operation": "CREATE", "userInfo": {"username": "bob", "groups": ["team-monitoring"]}});
    let gated = policy_of("  olmFeatureGates: [SingleOwnNamespaceInstallSupport]\n");
    let plain = policy_of("");
    let cases = [
        ("no spec.config", allowed.clone(), true, true),
        ("its own namespace", watching("monitoring", json!({})), true, false),
        ("another namespace", watching("team-a", json!({})), false, false),
        ("a deploymentConfig too", watching("monitoring", json!({"deploymentConfig": {}})), false, false),
    ];
    for (what, object, with_gate, without) in cases {
        assert_eq!(admits(&gated, &object, &Value::Null, &request), Some(with_gate), "gate on: {what}");
        assert_eq!(admits(&plain, &object, &Value::Null, &request), Some(without), "gate off: {what}");
    }
}

/// A bundle that supports SingleNamespace alone installs only watching
/// another namespace than its own, which the delegation policy refuses to a
/// team: with the gate on, render says the team cannot install it.
#[test]
fn a_single_namespace_only_bundle_cannot_be_delegated_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("prometheus-0.56.3");
    copy_dir(&bundles_dir().join("prometheus-0.56.3"), &root);
    let csv = root.join("manifests/prometheusoperator.0.56.3.clusterserviceversion.yaml");
    let written = std::fs::read_to_string(&csv).unwrap();
    let own = "  - supported: true\n    type: OwnNamespace\n";
    assert!(written.contains(own), "the fixture lists OwnNamespace as supported");
    std::fs::write(&csv, written.replace(own, "  - supported: false\n    type: OwnNamespace\n")).unwrap();
    let cfg = dir.path().join("rbac.yaml");
    let delegations = "  - team: monitoring\n    access: Install\n    subjects: [{kind: Group, name: team-monitoring}]\n    packages: [{name: prometheus}]\n    namespaces: [monitoring]\n    catalogs: [operatorhubio]\n";
    let spec = format!("  mode: Aggregate\n  olmFeatureGates: [SingleOwnNamespaceInstallSupport]\n{POLICY}  delegations:\n{delegations}");
    std::fs::write(&cfg, config("ext", &spec)).unwrap();
    let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), root.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("team monitoring may install prometheus 0.56.3, which a delegated install cannot configure: the bundle supports SingleNamespace and neither AllNamespaces nor OwnNamespace"),
        "{}",
        text(&out.stderr)
    );
}
