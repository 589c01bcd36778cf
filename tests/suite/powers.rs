//! Every power an install grants is judged, not only its RBAC rules: what
//! the operator's webhooks are sent, what its pods may do on their nodes,
//! where the bundle's objects land. Each test edits a real bundle (kube-green
//! 0.5.2, as its catalog serves it) into one that holds such a power, and
//! checks that a policy forbidding the power refuses it, where main at
//! 17fd93b let it pass.

use crate::common::*;

const KUBE_GREEN: &str = "tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.5.2";
const CSV: &str = "manifests/kube-green.clusterserviceversion.yaml";

/// An RBACConfig whose policy is `policy` (YAML under `spec.operator.policy`).
fn rbac(policy: &str) -> String {
    format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    policy:\n{policy}")
}

/// kube-green's bundle with its CSV edited and `extra` files beside it in
/// `manifests/`, rendered with `config`: the exit code and stderr.
fn render_edited(edit: impl Fn(String) -> String, extra: &[(&str, &str)], config: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    copy_dir(&repo(KUBE_GREEN), &bundle);
    let csv = bundle.join(CSV);
    let written = std::fs::read_to_string(&csv).unwrap();
    let edited = edit(written.clone());
    std::fs::write(&csv, &edited).unwrap();
    for (name, text) in extra {
        std::fs::write(bundle.join("manifests").join(name), text).unwrap();
    }
    let path = dir.path().join("rbac.yaml");
    std::fs::write(&path, config).unwrap();
    let out = run_bin(&["render", "-c", &path.display().to_string(), &bundle.display().to_string()], "");
    (out.status.code(), text(&out.stderr))
}

/// kube-green's validating webhook on its own `sleepinfos`, made a mutating
/// webhook on `group`'s `resources`.
fn webhook_on(group: &str, resources: &str) -> impl Fn(String) -> String {
    let (group, resources) = (group.to_string(), resources.to_string());
    move |csv: String| {
        let out = csv
            .replacen("      - kube-green.com\n      apiVersions:", &format!("      - {group}\n      apiVersions:"), 1)
            .replacen("      - sleepinfos\n    sideEffects", &format!("      - {resources}\n    sideEffects"), 1)
            .replacen("    type: ValidatingAdmissionWebhook\n", "    type: MutatingAdmissionWebhook\n", 1);
        assert_ne!(out, csv, "the edit applies");
        out
    }
}

/// `*/*` is every resource and every subresource to the API server; read as
/// an RBAC resource name it matched nothing, so a webhook rewriting every pod
/// passed a policy that forbids creating pods.
#[test]
fn a_mutating_webhook_on_every_resource_and_subresource_is_judged() {
    let config = rbac("      deny:\n      - {apiGroups: [\"\"], resources: [pods], verbs: [create]}\n");
    let (code, stderr) = render_edited(webhook_on("''", "'*/*'"), &[], &config);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("spec.webhookdefinitions[0].rules[0]: install policy: ServiceAccount kube-green-controller-manager would be granted verbs=[get,create,update,patch] apiGroups=[\"\"] resources=[*] cluster-wide, which spec.operator.policy.deny[0] forbids"),
        "{stderr}"
    );
    // `pods/*` is pods and each of their subresources, exec included.
    let config = rbac("      deny:\n      - {apiGroups: [\"\"], resources: [pods/exec], verbs: [create]}\n");
    let (code, stderr) = render_edited(webhook_on("''", "'pods/*'"), &[], &config);
    assert_eq!(code, Some(1), "{stderr}");
    // As shipped, on its own API, it passes.
    let (code, stderr) = render_edited(|csv| csv, &[], &config);
    assert_eq!(code, Some(0), "{stderr}");
}

const ARGO_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.argoproj.io
spec:
  group: argoproj.io
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";

/// A bundle owns the resources its CRDs define, not their groups: shipping
/// one harmless CRD in `argoproj.io` made a webhook on Argo CD's
/// `applications` the bundle's own, and skipped it.
#[test]
fn a_webhook_on_another_resource_of_a_shipped_crds_group_is_foreign() {
    let config = rbac("      deny:\n      - {apiGroups: [argoproj.io], resources: [applications], verbs: [create]}\n");
    let extra = [("argoproj.io_widgets.yaml", ARGO_CRD)];
    let (code, stderr) = render_edited(webhook_on("argoproj.io", "applications"), &extra, &config);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "apiGroups=[argoproj.io] resources=[applications] cluster-wide, which spec.operator.policy.deny[0] forbids"
        ),
        "{stderr}"
    );
    // On the CRD it ships (and its subresources), the webhook is its own.
    let (code, stderr) = render_edited(webhook_on("argoproj.io", "widgets/*"), &extra, &config);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("webhookdefinitions"), "{stderr}");
    // A wildcard over the group is not: it reaches applications too.
    let (code, stderr) = render_edited(webhook_on("argoproj.io", "'*'"), &extra, &config);
    assert_eq!(code, Some(1), "{stderr}");
}

/// kube-green's manager pod, made to reach into its node.
fn on_the_node(csv: String) -> String {
    let pod = "              serviceAccountName: kube-green-controller-manager\n";
    let host =
        format!("{pod}              hostPID: true\n              volumes: [{{name: root, hostPath: {{path: /}}}}]\n");
    let out = csv.replacen(pod, &host, 1);
    assert_ne!(out, csv, "the edit applies");
    out
}

/// A hostPID pod mounting the node's root passed a policy that denies
/// nodes/proxy: the node holds every Secret mounted on it. A policy that
/// decides anything holds the pods to baseline unless it says otherwise, each
/// failed check named by Kubernetes' id; a package that needs it (a CSI
/// driver) says `podSecurity: privileged`.
#[test]
fn a_pod_that_reaches_into_its_node_is_refused_under_a_policy() {
    let deny = "      deny:\n      - {apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get]}\n";
    let (code, stderr) = render_edited(on_the_node, &[], &rbac(deny));
    assert_eq!(code, Some(1), "{stderr}");
    for (field, check) in [("spec.hostPID", "hostNamespaces"), ("spec.volumes[0].hostPath", "hostPathVolumes")] {
        let said = format!("error: ClusterServiceVersion placeholder/kube-green.v0.5.2: spec.install.spec.deployments[0].spec.template.{field}: Deployment \"kube-green-controller-manager\" runs pods that the Pod Security level baseline refuses ({check}: ");
        assert!(stderr.contains(&said), "{said}\n{stderr}");
    }
    let privileged = format!("{deny}      podSecurity: privileged\n");
    let (code, stderr) = render_edited(on_the_node, &[], &rbac(&privileged));
    assert_eq!(code, Some(0), "{stderr}");
    // As shipped, kube-green's pod meets baseline, but not restricted.
    let (code, stderr) = render_edited(|csv| csv, &[], &rbac(deny));
    assert_eq!(code, Some(0), "{stderr}");
    let restricted = format!("{deny}      podSecurity: restricted\n");
    let (code, stderr) = render_edited(|csv| csv, &[], &rbac(&restricted));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("the Pod Security level restricted refuses ("), "{stderr}");
}

const AWS_AUTH: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: aws-auth
  namespace: kube-system
data:
  mapRoles: |
    - rolearn: arn:aws:iam::111122223333:role/vendor
      groups: [system:masters]
";

/// Under `bundleObjects: Keep` this output applies the bundle's objects as
/// written: a ConfigMap in `kube-system` mapping the vendor's cloud role to
/// `system:masters` reached the output with no word. OLM would place it in
/// the install namespace; applied elsewhere it is refused, with or without a
/// policy, from the bundle's folder or from no known file beside a bundle.
#[test]
fn a_kept_object_written_for_another_namespace_is_refused() {
    let keep = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n";
    let (code, stderr) = render_edited(|csv| csv, &[("aws-auth.yaml", AWS_AUTH)], keep);
    assert_eq!(code, Some(1), "{stderr}");
    let said = "error: ConfigMap kube-system/aws-auth: metadata.namespace: with bundleObjects: Keep this output applies it in namespace \"kube-system\", where OLM would place it in the install namespace \"kube-green\"";
    assert!(stderr.contains(said), "{stderr}");
    // On stdin, beside the bundle, it cannot be told from the bundle's.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, keep).unwrap();
    let mut stdin: String = bundle_docs_of(KUBE_GREEN).join("---\n");
    stdin.push_str("---\n");
    stdin.push_str(AWS_AUTH);
    let out = run_bin(&["render", "-c", &config.display().to_string(), "-"], &stdin);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(said), "{}", text(&out.stderr));
    // In the install namespace it lands where OLM would put it.
    let placed = AWS_AUTH.replace("namespace: kube-system", "namespace: kube-green");
    let (code, stderr) = render_edited(|csv| csv, &[("aws-auth.yaml", &placed)], keep);
    assert_eq!(code, Some(0), "{stderr}");
    // Where OLM installs the bundle (bundleObjects: Drop), the output applies none of it.
    let drop = keep.replace("  mode: Aggregate\n", "  mode: Aggregate\n  bundleObjects: Drop\n");
    let (code, stderr) = render_edited(|csv| csv, &[("aws-auth.yaml", AWS_AUTH)], &drop);
    assert_eq!(code, Some(0), "{stderr}");
}

/// The documents of a bundle folder's `manifests/`, in name order.
fn bundle_docs_of(bundle: &str) -> Vec<String> {
    let dir = repo(bundle).join("manifests");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    names.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
}

/// OLM installs a bundle's `ClusterRoleBinding` by its kind alone, so one
/// written in another API group became a real binding to cluster-admin that
/// olm-rbac, reading the group, never judged (adversarial review, F1).
#[test]
fn an_rbac_kind_in_another_group_is_refused() {
    let binding = "apiVersion: authorization.openshift.io/v1
kind: ClusterRoleBinding
metadata:
  name: kube-green-admin
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: kube-green-controller-manager, namespace: kube-green}
";
    let drop = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  bundleObjects: Drop\n  operator:\n    installNamespace: kube-green\n";
    let (code, stderr) = render_edited(|csv| csv, &[("binding.yaml", binding)], drop);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "apiVersion: the bundle holds a \"ClusterRoleBinding\" of API group \"authorization.openshift.io\""
        ),
        "{stderr}"
    );
}

/// The API server checks binding against the requester after mutating
/// admission: a webhook rewriting RoleBindings binds any role with OLM's or
/// an admin's rights, which a deny on `bind` forbids (adversarial review, F2).
#[test]
fn a_webhook_rewriting_bindings_binds() {
    let config = rbac(
        "      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind]}\n",
    );
    let (code, stderr) = render_edited(webhook_on("rbac.authorization.k8s.io", "rolebindings"), &[], &config);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("verbs=[bind] apiGroups=[rbac.authorization.k8s.io] resources=[roles,clusterroles] cluster-wide, which spec.operator.policy.deny[0] forbids"), "{stderr}");
}

/// Shipping Argo CD's own CRD does not make `applications` the bundle's
/// (adversarial review, F3): a webhook on it is still judged.
#[test]
fn a_deputys_api_is_never_the_bundles_own() {
    let crd =
        ARGO_CRD.replace("widgets", "applications").replace("Widget", "Application").replace("widget", "application");
    let config = rbac("      deny:\n      - {apiGroups: [argoproj.io], resources: [applications], verbs: [create]}\n");
    let extra = [("argoproj.io_applications.yaml", crd.as_str())];
    let (code, stderr) = render_edited(webhook_on("argoproj.io", "applications"), &extra, &config);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("spec.webhookdefinitions[0].rules[0]"), "{stderr}");
}

/// Version 2.0.0 adds a cluster-wide pod-mutating webhook: render warned,
/// but `diff -c` said "no change in access" and exited 0 with
/// `--fail-on dangerous`. The webhook's holdings are in the judgement's
/// model of the cluster, so the upgrade review counts them as gains.
#[test]
fn the_upgrade_review_sees_a_new_webhook() {
    let (code, said) = upgrade_review(|new| edit_csv(new, webhook_on("''", "pods")), false);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.starts_with("gained 1 rule (dangerous: 1 critical)"), "{said}");
    assert!(said.contains("ServiceAccount kube-green/kube-green-controller-manager"), "{said}");
    // Against itself, nothing changes.
    let (code, said) = upgrade_review(|_| {}, false);
    assert_eq!(code, Some(0), "{said}");
}

/// `diff -c` from kube-green as shipped to a copy `edit` changes, with a
/// config that sets no policy, failing on a dangerous gain: its exit code and
/// what it printed (`-o json` when `json`).
fn upgrade_review(edit: impl Fn(&std::path::Path), json: bool) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    copy_dir(&repo(KUBE_GREEN), &old);
    copy_dir(&repo(KUBE_GREEN), &new);
    edit(&new);
    let config = dir.path().join("rbac.yaml");
    let plain = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n";
    std::fs::write(&config, plain).unwrap();
    let (c, o, n) = (config.display().to_string(), old.display().to_string(), new.display().to_string());
    let mut args = vec!["diff", "-c", c.as_str(), o.as_str(), n.as_str(), "--fail-on", "dangerous"];
    if json {
        args.extend(["-o", "json"]);
    }
    let out = run_bin(&args, "");
    (out.status.code(), format!("{}{}", text(&out.stdout), text(&out.stderr)))
}

/// Rewrites kube-green's CSV in the bundle folder `bundle` with `edit`.
fn edit_csv(bundle: &std::path::Path, edit: impl Fn(String) -> String) {
    let csv = bundle.join(CSV);
    std::fs::write(&csv, edit(std::fs::read_to_string(&csv).unwrap())).unwrap();
}

/// A Service with `externalIPs` takes every pod's and node's traffic for
/// those addresses (CVE-2020-8554); OLM installs the bundle's Services, and
/// it drew no word. Refused under a policy that decides anything, a critical
/// danger without one; an ExternalName into the cluster likewise, as high.
#[test]
fn a_service_that_intercepts_traffic_is_refused_under_a_policy() {
    let service = "apiVersion: v1
kind: Service
metadata:
  name: kube-green-dns
spec:
  selector: {app: kube-green}
  ports: [{port: 53}]
  externalIPs: [10.96.0.10]
";
    let deny = rbac("      deny:\n      - {apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get]}\n");
    let (code, stderr) = render_edited(|csv| csv, &[("dns.yaml", service)], &deny);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("error: Service kube-green-dns: spec.externalIPs: the Service takes externalIPs 10.96.0.10"),
        "{stderr}"
    );
    let plain = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n";
    let (code, stderr) = render_edited(|csv| csv, &[("dns.yaml", service)], plain);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("warning: Service kube-green-dns: spec.externalIPs: "), "{stderr}");
    // Cluster DNS answers a pod name with any address, the API server's included.
    for target in ["kubernetes.default.svc.cluster.local", "10-96-0-1.default.pod.cluster.local", "10.96.0.1"] {
        let external = format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: kube-green-api\nspec:\n  type: ExternalName\n  externalName: {target}\n"
        );
        let (code, stderr) = render_edited(|csv| csv, &[("api.yaml", &external)], &deny);
        assert_eq!(code, Some(1), "{stderr}");
        let said = format!("spec.externalName: the Service is an ExternalName for {target:?}");
        assert!(stderr.contains(&said), "{stderr}");
    }
}

/// Kubernetes' own PodSecurity fixtures (`tests/fixtures/podsecurity/`, each
/// a Pod the level admits or refuses) wrapped as kube-green's operator
/// Deployment and rendered under a policy at that level: every `pass` Pod
/// renders, every `fail` Pod is refused with `pod-security`. The unit tests
/// hold the checker to the same files; this holds the whole path, from the
/// CSV's YAML to the exit code.
#[test]
fn kubernetes_pod_security_fixtures_as_operator_deployments() {
    let csv_text = std::fs::read_to_string(repo(KUBE_GREEN).join(CSV)).unwrap();
    let csv: serde_json::Value = serde_saphyr::from_str(&csv_text).unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for level in ["baseline", "restricted"] {
        let config = rbac(&format!(
            "      deny:\n      - {{apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get]}}\n      podSecurity: {level}\n"
        ));
        for outcome in ["pass", "fail"] {
            let dir = repo("tests/fixtures/podsecurity").join(level).join(outcome);
            let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            for file in files {
                let pod: serde_json::Value = serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                let mut wrapped = csv.clone();
                let template = &mut wrapped["spec"]["install"]["spec"]["deployments"][0]["spec"]["template"];
                let mut spec = pod["spec"].clone();
                spec["serviceAccountName"] = "kube-green-controller-manager".into();
                template["spec"] = spec;
                template["metadata"]["annotations"] = pod["metadata"]["annotations"].clone();
                let json = serde_json::to_string_pretty(&wrapped).unwrap();
                let (code, stderr) = render_edited(|_| json.clone(), &[], &config);
                let name = file.display();
                match outcome {
                    "pass" => assert_eq!(code, Some(0), "{name}: {stderr}"),
                    _ => {
                        assert_eq!(code, Some(1), "{name}: {stderr}");
                        assert!(
                            stderr.contains(&format!("the Pod Security level {level} refuses (")),
                            "{name}: {stderr}"
                        );
                    }
                }
                *counts.entry((level, outcome)).or_insert(0) += 1;
            }
        }
    }
    let total: usize = counts.values().sum();
    assert_eq!(total, 148, "{counts:?}");
}

/// A ClusterRole granting everything, labelled for Crossplane's core
/// controller, hands it all to that controller, which then acts on it; it
/// passed a strict policy unmeasured. Well-known projects' aggregation
/// labels are judged as holdings of the aggregating role's holder; a label
/// that reads as aggregation for a role olm-rbac does not know cannot be
/// measured (an error under a policy).
#[test]
fn a_cluster_role_gathered_by_another_projects_aggregating_role_is_judged_there() {
    let role = |label: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: kube-green-extras\n  labels:\n    {label}: \"true\"\nrules:\n- {{apiGroups: ['*'], resources: ['*'], verbs: ['*']}}\n")
    };
    let deny = rbac("      deny:\n      - {apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get]}\n");
    let crossplane = role("rbac.crossplane.io/aggregate-to-crossplane");
    let (code, stderr) = render_edited(|csv| csv, &[("extras.yaml", &crossplane)], &deny);
    assert_eq!(code, Some(1), "{stderr}");
    let said = "install policy: ServiceAccount crossplane-system/crossplane (Crossplane's core controller) (through Crossplane's ClusterRole crossplane, which gathers rbac.crossplane.io/aggregate-to-crossplane=true) would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, which spec.operator.policy.deny[0] forbids";
    assert!(stderr.contains(said), "{stderr}");
    let unknown = role("example.io/aggregate-to-controller");
    let (code, stderr) = render_edited(|csv| csv, &[("extras.yaml", &unknown)], &deny);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("metadata.labels.example.io/aggregate-to-controller: the bundle labels this ClusterRole example.io/aggregate-to-controller"), "{stderr}");
}

/// An upgrade that makes the operator's pod reach into its node, or adds a
/// Service with externalIPs, is a dangerous gain: each is in the
/// judgement's model of the cluster as what it amounts to (`nodes/proxy`,
/// `services/status`), which `diff -c` measures as any grant.
#[test]
fn the_upgrade_review_sees_a_privileged_pod_and_an_interception() {
    let (code, said) = upgrade_review(|new| edit_csv(new, on_the_node), true);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("nodes/proxy"), "{said}");
    // A Service with externalIPs, beside the pod as shipped.
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: dns\nspec:\n  ports: [{port: 53}]\n  externalIPs: [10.96.0.10]\n";
    let (code, said) = upgrade_review(|new| std::fs::write(new.join("manifests/dns.yaml"), service).unwrap(), true);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("services/status"), "{said}");
}

/// Objects of no known file beside a bundle (here on stdin) cannot be told
/// from the bundle's, and the output applies them: a `*/*` mutating webhook
/// configuration pointing at the vendor's URL, and a privileged Pod in the
/// install namespace, reached the output with no word. Each is judged as
/// the bundle's would be.
#[test]
fn a_webhook_configuration_or_a_pod_beside_the_bundle_is_judged() {
    let webhook = "apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: vendor
webhooks:
- name: all.vendor.example
  clientConfig: {url: 'https://hooks.vendor.example/mutate'}
  rules:
  - {apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*/*']}
  sideEffects: None
  admissionReviewVersions: [v1]
";
    let pod = "apiVersion: v1
kind: Pod
metadata:
  name: helper
  namespace: kube-green
spec:
  hostPID: true
  containers:
  - {name: c, image: busybox, securityContext: {privileged: true}}
";
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    let deny = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n    policy:\n      deny:\n      - {apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get]}\n";
    std::fs::write(&config, deny).unwrap();
    for (extra, said) in [
        (webhook, "webhooks[0].rules[0]: install policy: the server at https://hooks.vendor.example/mutate (a webhook beside the bundle sends it requests) would be granted verbs=[get,create,update,patch] apiGroups=[*] resources=[*] cluster-wide, which spec.operator.policy.deny[0] forbids"),
        (pod, "error: Pod kube-green/helper: spec.hostPID: Pod \"helper\", of no file of yours beside the bundle, runs pods that the Pod Security level baseline refuses (hostNamespaces: "),
    ] {
        let mut stdin: String = bundle_docs_of(KUBE_GREEN).join("---\n");
        stdin.push_str("---\n");
        stdin.push_str(extra);
        let out = run_bin(&["render", "-c", &config.display().to_string(), "-"], &stdin);
        assert_eq!(out.status.code(), Some(1), "{deny}\n{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(said), "{said}\n{}", text(&out.stderr));
    }
}

/// Beside a bundle, an object of no known file whose kind olm-rbac does not
/// read cannot be judged, so it is not let through silently (third review):
/// an APIService for Argo CD's group, a ValidatingAdmissionPolicy, an
/// OpenShift RBAC binding to cluster-admin. A kind a bundle may ship, or one
/// of the admin's configuration kinds, passes.
#[test]
fn an_unread_kind_beside_the_bundle_is_refused_under_a_policy() {
    let objects = [
        ("APIService", "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1.argoproj.io}\nspec: {group: argoproj.io, version: v1, service: {namespace: kube-green, name: x}, groupPriorityMinimum: 1000, versionPriority: 15}\n"),
        ("ValidatingAdmissionPolicy", "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec: {validations: [{expression: 'true'}]}\n"),
        ("ClusterRoleBinding", "apiVersion: authorization.openshift.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: vendor-admin}\nroleRef: {name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: kube-green-controller-manager, namespace: kube-green}]\n"),        // Named as the extension: the pin judges only the admin's own (fourth review).
        ("ClusterExtension", "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {name: kube-green}\nspec: {namespace: kube-green, source: {sourceType: Catalog, catalog: {packageName: evil-operator, upgradeConstraintPolicy: SelfCertified}}}\n"),
        // Dressed as olm-rbac's earlier output for another extension: a claim alone is the bundle's to make (fourth review).
        ("ValidatingAdmissionPolicy", "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: other-pin\n  labels: {app.kubernetes.io/managed-by: olm-rbac, olm-rbac.io/extension: other, olm-rbac.io/role: admission-policy}\nspec: {paramKind: {apiVersion: v1, kind: Secret}, validations: [{expression: 'false', messageExpression: 'string(params.data)'}]}\n"),
        // Another package, installed by OLM v1 as cluster-admin.
        ("ClusterExtension", "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {name: vendor-extra}\nspec: {namespace: kube-green, source: {sourceType: Catalog, catalog: {packageName: vendor-extra}}}\n"),
        // A Pod Security level the bundle chooses for a namespace.
        ("Namespace", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kube-green\n  labels: {pod-security.kubernetes.io/enforce: privileged}\n"),

    ];
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    let strict = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  bundleObjects: Drop\n  operator:\n    installNamespace: kube-green\n    policy:\n      deny:\n      - {apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get]}\n";
    std::fs::write(&config, strict).unwrap();
    let stdin_with = |extra: &str| format!("{}---\n{extra}", bundle_docs_of(KUBE_GREEN).join("---\n"));
    for (kind, object) in objects {
        let out = run_bin(&["render", "-c", &config.display().to_string(), "-"], &stdin_with(object));
        assert_eq!(out.status.code(), Some(1), "{kind}: {}", text(&out.stderr));
        let said = format!("kind: a {kind} of API group");
        assert!(text(&out.stderr).contains(&said), "{said}\n{}", text(&out.stderr));
    }
    // The admin's own kinds and a kind a bundle may ship pass beside it.
    let admin = "apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-green}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: kube-green}\n";
    let out = run_bin(&["render", "-c", &config.display().to_string(), "-"], &stdin_with(admin));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A webhook configuration or a privileged workload added beside the bundle,
/// of no file the admin's own (here on stdin with the bundle's manifests),
/// is a gain in the upgrade review (third review): the server it names, and
/// the workload's account, hold what they amount to in the model of the
/// cluster. (Beside `manifests/` in the bundle's root nothing is read, as
/// OLM installs only `manifests/`; the warning names what was left out.)
#[test]
fn the_upgrade_review_sees_what_is_added_beside_the_bundle() {
    let hook = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: vendor}\nwebhooks:\n- name: pods.vendor.example\n  clientConfig: {url: 'https://hooks.vendor.example/mutate'}\n  rules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n  sideEffects: None\n  admissionReviewVersions: [v1]\n";
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n").unwrap();
    let mut manifests: Vec<std::path::PathBuf> =
        std::fs::read_dir(repo(KUBE_GREEN).join("manifests")).unwrap().map(|e| e.unwrap().path()).collect();
    manifests.sort();
    let bundle: Vec<String> = manifests.iter().map(|m| std::fs::read_to_string(m).unwrap()).collect();
    let review = |stdin: &str| {
        let (c, old) = (config.display().to_string(), repo(KUBE_GREEN).display().to_string());
        let out = run_bin(&["diff", "-c", &c, &old, "-", "--fail-on", "dangerous"], stdin);
        (out.status.code(), format!("{}{}", text(&out.stdout), text(&out.stderr)))
    };
    let (code, said) = review(&bundle.join("\n---\n"));
    assert_eq!(code, Some(0), "the bundle alone: {said}");
    let (code, said) = review(&format!("{}\n---\n{hook}", bundle.join("\n---\n")));
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("User the server at https://hooks.vendor.example/mutate"), "{said}");
}

/// A ConsolePlugin whose proxy asks for `UserToken` has the OpenShift
/// console send every user's token, cluster-admins' included, to the
/// bundle's backend once an admin enables it (third review): said as a high
/// danger, never refused, since the admin's enabling decides it.
#[test]
fn a_console_plugin_that_forwards_user_tokens_is_said() {
    let plugin = "apiVersion: console.openshift.io/v1
kind: ConsolePlugin
metadata: {name: kube-green}
spec:
  displayName: kube-green
  backend: {type: Service, service: {name: kube-green, namespace: kube-green, port: 9443}}
  proxy:
  - alias: api
    authorization: UserToken
    endpoint: {type: Service, service: {name: kube-green, namespace: kube-green, port: 9443}}
";
    let deny = rbac("      deny:\n      - {apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get]}\n");
    let (code, stderr) = render_edited(|csv| csv, &[("plugin.yaml", plugin)], &deny);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("warning: ConsolePlugin kube-green: spec.proxy[0].authorization: the console plugin asks the OpenShift console to send the token of whoever uses it"), "{stderr}");
}
