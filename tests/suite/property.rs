//! A property test over the whole pipeline: real bundles, mutated with the
//! moves a hostile bundle author has, through both runners and every mode.
//! Beyond "no panic", every run must keep the invariant of
//! `docs/security.md`: the output grants nothing the input did not, beyond
//! the bundle's own APIs; and no input object disappears unnamed.
//!
//! With a gate (`spec.operator.policy` with `allow` or `deny`), it also keeps
//! the install policy's invariant, on the cluster-to-be (the output plus
//! OLM's own grants for the CSV): nobody but the CSV's ServiceAccounts gains
//! anything beyond the bundle's own APIs that it did not hold without the
//! bundle, and those ServiceAccounts hold, in each namespace and
//! cluster-wide, only what the applicable `allow` entries cover and nothing
//! an applicable `deny` entry overlaps (see `invariant.rs`).
//!
//! `cargo test --test suite property` runs 20 cases (seeded, so a failure
//! repeats). For a long run: `OLM_RBAC_PROPERTY_SECONDS=1800 cargo test
//! --release --test suite property -- --nocapture` (or
//! `OLM_RBAC_PROPERTY_CASES=N`; `OLM_RBAC_PROPERTY_SEED=S` for other cases),
//! which goes on after a failure and reports them all at the end. Each case
//! has its own seed, printed with a failure: `OLM_RBAC_PROPERTY_CASE_SEED=X`
//! runs that case alone. A failing case's inputs are written to
//! `target/tmp/property-case-<case seed>/`, as files for `render` and as the
//! ResourceList for KRM mode. `OLM_RBAC_PROPERTY_VERBOSE=1` prints
//! why each refused case was refused.
//!
//! Beside it, `property::escalation` holds the escalation check
//! (`access::cover`) to the authorizer on 3,000 seeded pairs of random rule
//! sets, atom by atom. Both draw from [`Rng`], the suite's one generator.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crate::common::*;
use crate::invariant;
use k8s_openapi::api::rbac::v1::PolicyRule;
use olm_rbac::access::cover;
use olm_rbac::run::{function, render, Source};
use olm_rbac::yaml::split_documents;

/// A small, seedable generator (SplitMix64): no dependency, same cases everywhere.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// The bundles mutated: small and varied (bundle roles, aggregation labels,
/// namespaced Roles, APIServices, a cluster-scoped CRD).
const BUNDLES: [&str; 5] = [
    "memcached-operator-0.0.1",
    "cert-manager-1.16.5",
    "ack-s3-controller-1.10.0",
    "webhook-operator-0.0.5",
    "enmasse-0.30.2",
];

const GROUPS: [&str; 12] = [
    "",
    "apps",
    "rbac.authorization.k8s.io",
    "apiextensions.k8s.io",
    "operators.coreos.com",
    "route.openshift.io",
    "operator.openshift.io",
    "example.com",
    "hive.openshift.io",
    "Apps",
    "apps.",
    "*",
];

const RULES: [&str; 12] = [
    "- {apiGroups: [\"\"], resources: [secrets], verbs: [get, list, watch]}\n",
    "- {apiGroups: [\"*\"], resources: [\"*\"], verbs: [\"*\"]}\n",
    "- {nonResourceURLs: [\"*\"], verbs: [\"*\"]}\n",
    "- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [escalate, bind]}\n",
    "- {apiGroups: [\"\"], resources: [pods/exec], verbs: [create]}\n",
    "- {apiGroups: [\"\"], resources: [users, groups], verbs: [impersonate]}\n",
    "- {apiGroups: [__G__], resources: [__P__], verbs: [get, list, watch]}\n",
    "- {apiGroups: [__G__], resources: [__P__, __P__/status], verbs: [\"*\"]}\n",
    "- {apiGroups: [__G__], resources: [__P__], verbs: [create, update, patch, delete]}\n",
    "- {apiGroups: [__G__, \"\"], resources: [__P__], verbs: [get]}\n",
    "- {apiGroups: [__G__], resources: [__P__], verbs: [get], nonResourceURLs: [\"/metrics\"]}\n",
    "- {apiGroups: [apiextensions.k8s.io], resources: [customresourcedefinitions], resourceNames: [__P__.__G__], verbs: [get]}\n",
];

const AGGREGATE: [&str; 4] = ["admin", "edit", "view", "cluster-reader"];
const NAMES: [&str; 6] = ["tool-viewer", "admin", "view", "system:helper", "cluster-admin", "foos.example.com-view"];

/// One of the bundle's own APIs, as `(group, plural)`, for rules that look legitimate.
fn some_api(rng: &mut Rng, docs: &[String]) -> (String, String) {
    let apis = invariant::own_apis(&docs.join("---\n"));
    if apis.is_empty() {
        return ("example.com".into(), "foos".into());
    }
    rng.pick(&apis).clone()
}

fn labels_block(rng: &mut Rng) -> String {
    let mut labels = vec![format!("rbac.authorization.k8s.io/aggregate-to-{}: \"true\"", rng.pick(&AGGREGATE))];
    if rng.chance(30) {
        labels.push("app.kubernetes.io/managed-by: olm-rbac".into());
        labels.push(format!("olm-rbac.io/extension: {}", rng.pick(&["ext", "other"])));
        labels.push(format!("olm-rbac.io/role: {}", rng.pick(&["admin", "view", "view-crdview", "boss"])));
    }
    match rng.below(4) {
        // Plain block labels.
        0 => format!("  labels:\n{}", labels.iter().map(|l| format!("    {l}\n")).collect::<String>()),
        // Through an alias of an anchor defined before metadata would be odd; use a merge key.
        1 => format!("  labels:\n    <<: {{{}}}\n", labels.join(", ")),
        // Tagged keys.
        2 => format!("  labels:\n{}", labels.iter().map(|l| format!("    !!str {l}\n")).collect::<String>()),
        // Flow style.
        _ => format!("  labels: {{{}}}\n", labels.join(", ")),
    }
}

fn annotations_block(rng: &mut Rng, api: &(String, String)) -> String {
    let mut a = Vec::new();
    if rng.chance(50) {
        let key = format!("rbac.authorization.k8s.io/aggregate-to-{}", rng.pick(&AGGREGATE));
        let record = match rng.below(4) {
            0 => format!("ext: -{key}=true"),
            1 => format!("ext: +{key}"),
            2 => format!("other: -{key}=true"),
            _ => "ext: -app=x +team/owner".into(),
        };
        a.push(format!("olm-rbac.io/label-changes: {record:?}"));
    }
    if rng.chance(40) {
        a.push(format!("olm-rbac.io/api: {}.{}", api.1, api.0));
    }
    if a.is_empty() {
        String::new()
    } else {
        format!("  annotations:\n{}", a.iter().map(|l| format!("    {l}\n")).collect::<String>())
    }
}

/// A ClusterRole as a hostile bundle would ship it.
fn hostile_role(rng: &mut Rng, docs: &[String]) -> String {
    let api = some_api(rng, docs);
    let name = rng.pick(&NAMES).to_string();
    let mut rules = String::new();
    for _ in 0..1 + rng.below(3) {
        rules.push_str(&rng.pick(&RULES).replace("__G__", &format!("{:?}", api.0)).replace("__P__", &api.1));
    }
    let mut role = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name:?}\n{}{}rules:\n{rules}",
        labels_block(rng),
        annotations_block(rng, &api)
    );
    if rng.chance(15) {
        role.push_str("aggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {kubernetes.io/bootstrapping: rbac-defaults}\n");
    }
    if rng.chance(10) {
        // A list kubectl would unpack, with the role inside.
        let inner: String = role.lines().map(|l| format!("  {l}\n")).collect();
        role = format!("apiVersion: v1\nkind: List\nitems:\n-{}", &inner[1..]);
    }
    role
}

/// The mutations, each applied to the documents of a bundle.
fn mutate(rng: &mut Rng, docs: &mut Vec<String>, ctx: &Ctx) {
    match rng.below(20) {
        16..=19 => {
            // Roles and bindings as a careful bundle writes them: the CSV's own rules, for
            // its own accounts where it guesses it will be installed. Within a covering
            // policy when the guess is right: the gate must let these through.
            let extra = plausible_rbac(rng, ctx, docs.len());
            docs.extend(extra);
        }
        9..=12 => {
            // Roles and bindings of its own, to whoever it likes.
            let extra = hostile_rbac(rng, docs, ctx);
            docs.extend(extra);
        }
        13 => {
            // Forged provenance on one of its objects: "this file is the admin's".
            let i = rng.below(docs.len());
            docs[i] = forge_provenance(rng, &docs[i], ctx.krm);
        }
        14 => {
            // Roles and bindings wearing olm-rbac's labels, claiming to be the
            // operator or installer output of this or another extension.
            let extra = claimed_output(rng, ctx);
            docs.extend(extra);
        }
        15 => {
            // One of the CSV's rules widened, in place.
            if let Some(i) = docs.iter().position(|d| d.contains("kind: ClusterServiceVersion")) {
                let from = rng.pick(&["verbs:\n", "resources:\n", "apiGroups:\n"]);
                let spelling = rng.pick(&STARS);
                // The n-th such key, in the item's own indentation.
                let at = docs[i].match_indices(&format!(" {from}")).map(|(at, _)| at).collect::<Vec<_>>();
                if !at.is_empty() {
                    let after = at[rng.below(at.len())] + 1 + from.len();
                    let indent: String = docs[i][after..].chars().take_while(|c| *c == ' ').collect();
                    if docs[i][after + indent.len()..].starts_with('-') {
                        docs[i].insert_str(after, &format!("{indent}- {spelling}\n"));
                    }
                }
            }
        }
        0 | 1 => {
            let role = hostile_role(rng, docs);
            docs.push(role);
        }
        2 => {
            // Move a CRD into another group, consistently or not.
            if let Some(i) = docs.iter().position(|d| d.contains("kind: CustomResourceDefinition")) {
                let group = rng.pick(&GROUPS);
                let crd = &docs[i];
                if let Some(at) = crd.find("  group: ") {
                    let end = crd[at..].find('\n').map_or(crd.len(), |e| at + e);
                    docs[i] = format!("{}  group: {group:?}{}", &crd[..at], &crd[end..]);
                }
            }
        }
        3 => {
            // The CSV claims an API with no CRD, or in a platform group.
            if let Some(i) = docs.iter().position(|d| d.contains("kind: ClusterServiceVersion")) {
                let entry = format!(
                    "    - {{name: {}.{}, version: v1, kind: Thing}}\n",
                    rng.pick(&["secrets", "clusterroles", "widgets"]),
                    rng.pick(&GROUPS)
                );
                docs[i] = docs[i].replacen("    owned:\n", &format!("    owned:\n{entry}"), 1);
            }
        }
        4 => {
            // Forged generated-by labels on an existing object.
            let i = rng.below(docs.len());
            let forged = "  labels:\n    app.kubernetes.io/managed-by: olm-rbac\n    olm-rbac.io/extension: ext\n    olm-rbac.io/role: admin\n";
            if !docs[i].contains("\n  labels:") {
                docs[i] = docs[i].replacen("metadata:\n", &format!("metadata:\n{forged}"), 1);
            }
        }
        5 => {
            // A Namespace shipped with the admin's tenant label, valid name or not.
            let name = rng.pick(&["kube-system", "team-b", "Team-C", "default", "openshift-config"]);
            docs.push(format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  labels: {{tenant: a}}\n"));
        }
        6 => {
            // An anchor and an alias inside an item's header.
            let i = rng.below(docs.len());
            if docs[i].contains("\nmetadata:\n  name: ") {
                docs[i] = docs[i].replacen("\nmetadata:\n  name: ", "\nmetadata:\n  name: &n ", 1);
                docs[i].push_str("aliased: *n\n");
            }
        }
        7 => {
            // A repeated key, or an alias bomb.
            let i = rng.below(docs.len());
            if rng.chance(50) {
                docs[i] = docs[i].replacen("metadata:\n", "metadata:\n  labels: {a: b}\n  labels: {c: d}\n", 1);
            } else {
                let mut tree = String::from("  a0: &a0 [x, x, x, x, x, x, x, x]\n");
                for k in 1..7 {
                    tree.push_str(&format!("  a{k}: &a{k} [{}]\n", vec![format!("*a{}", k - 1); 8].join(", ")));
                }
                docs[i] = format!("{}bomb:\n{tree}", docs[i]);
            }
        }
        _ => {
            // A few random bytes somewhere: whatever it gives, no panic.
            let i = rng.below(docs.len());
            let mut bytes = docs[i].clone().into_bytes();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len());
                bytes[at] = *rng.pick(b": -{}[]&*!#'\"\n\tx0");
            }
            docs[i] = String::from_utf8_lossy(&bytes).into_owned();
        }
    }
}

const SPECS: [&str; 6] = [
    "  mode: Aggregate\n",
    "  mode: Aggregate\n  stripBundleAggregation: true\n",
    "  mode: Unmanaged\n  stripBundleAggregation: true\n",
    "  mode: Unmanaged\n",
    "  mode: Bind\n  bindings:\n  - role: admin\n    subjects: [{kind: Group, name: ops}]\n  - role: view\n    subjects: [{kind: Group, name: readers}]\n    namespaceSelector: {matchLabels: {tenant: a}}\n",
    "  mode: Aggregate\n  naming: OLMv0\n  bundleRoles: Ignore\n",
];

// ---------------------------------------------------------------------------
// The operator's gate: configs that vary `spec.operator` and `spec.installer`,
// and the moves a hostile bundle has against the install policy.

/// What the mutations know of the case: the runner, and the CSV's accounts and rules.
struct Ctx {
    krm: bool,
    /// KRM mode through kpt: every item carries kpt's path annotations.
    kpt: bool,
    /// The install namespace the config will mostly use, which a careful bundle may guess.
    install: &'static str,
    accounts: Vec<String>,
    rules: Vec<PolicyRule>,
}

/// Every spelling of `*` a YAML reader turns into `*`.
const STARS: [&str; 6] = ["\"*\"", "'*'", "\"\\u002a\"", "\"\\x2a\"", "!!str '*'", "! '*'"];

/// Where the config may put the operator, and its targets.
const INSTALL: [&str; 3] = ["operators", "team-a", "olm-op"];
const TARGETS: [&str; 5] = ["team-a", "team-b", "operators", "olm-op", "ns-x"];
/// Where a bundle guesses its operator will live.
const GUESSES: [&str; 5] = ["operators", "team-a", "kube-system", "default", "olm-op"];

/// Rules a bundle role may hold: `__S__` is a spelling of `*`, `__G__`/`__P__` one of its APIs.
const HOSTILE_RULES: [&str; 16] = [
    "{apiGroups: [\"\"], resources: [secrets], verbs: [get, list, watch]}",
    "{apiGroups: [__S__], resources: [__S__], verbs: [__S__]}",
    "{apiGroups: [\"\"], resources: [__S__], verbs: [get]}",
    "{apiGroups: [__S__], resources: [secrets], verbs: [list]}",
    "{nonResourceURLs: [__S__], verbs: [get]}",
    "{nonResourceURLs: [\"/metrics\", \"/api/*\"], verbs: [get]}",
    "{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, roles], verbs: [escalate, bind]}",
    "{apiGroups: [\"\"], resources: [pods/exec, pods/attach], verbs: [create]}",
    "{apiGroups: [\"\"], resources: [__S__/exec], verbs: [create, get]}",
    "{apiGroups: [\"\"], resources: [users, groups, serviceaccounts], verbs: [impersonate]}",
    "{apiGroups: [\"\", apps], resources: [secrets, deployments], verbs: [__S__]}",
    "{apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n- {apiGroups: [\"\"], resources: [secrets], verbs: [list]}",
    "{apiGroups: [\"\"], resources: [secrets], resourceNames: [token], verbs: [get]}",
    "{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}",
    "{apiGroups: [__G__], resources: [__P__, __P__/status], verbs: [__S__]}",
    "{apiGroups: [\"\"], resources: [namespaces], verbs: [get, list, watch]}",
];

/// Names a bundle gives its roles: Kubernetes' own (reconciled or not, some
/// bound to every authenticated user), olm-rbac's, and its own.
const ROLE_NAMES: [&str; 14] = [
    "admin",
    "edit",
    "view",
    "cluster-admin",
    "system:basic-user",
    "system:discovery",
    "system:aggregate-to-admin",
    "system:aggregate-to-view",
    "system:helper",
    "ext-operator-default",
    "ext-installer",
    "bundle-role",
    "bundle-role-2",
    "tool-viewer",
];

const BUILTIN_REFS: [&str; 5] = ["cluster-admin", "admin", "edit", "view", "system:basic-user"];

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
    let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    PolicyRule { api_groups: Some(v(groups)), resources: Some(v(resources)), verbs: v(verbs), ..Default::default() }
}

/// A rule in flow style, without the braces.
fn flow(r: &PolicyRule) -> String {
    let list = |v: &[String]| v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    for (key, value) in [
        ("apiGroups", &r.api_groups),
        ("resources", &r.resources),
        ("resourceNames", &r.resource_names),
        ("nonResourceURLs", &r.non_resource_urls),
    ] {
        if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
            parts.push(format!("{key}: [{}]", list(v)));
        }
    }
    parts.push(format!("verbs: [{}]", list(&r.verbs)));
    parts.join(", ")
}

/// A rule near `r`: the same, or narrower or wider in one dimension.
fn near(rng: &mut Rng, r: &PolicyRule) -> PolicyRule {
    let mut r = r.clone();
    match rng.below(8) {
        0 | 1 => {}
        2 => {
            if r.verbs.len() > 1 {
                let at = rng.below(r.verbs.len());
                r.verbs.remove(at);
            }
        }
        3 => r.verbs = vec!["*".into()],
        4 => {
            if r.api_groups.is_some() {
                r.api_groups = Some(vec!["*".into()]);
            }
        }
        5 => {
            if let Some(res) = r.resources.as_mut().filter(|l| l.len() > 1) {
                let at = rng.below(res.len());
                res.remove(at);
            }
        }
        6 => {
            if r.resources.is_some() {
                r.resource_names = Some(vec!["only-this".into()]);
            }
        }
        _ => {
            if let Some(res) = r.resources.as_mut() {
                *res = vec!["*".into()];
            }
        }
    }
    r
}

/// A rule admins commonly allow or deny.
fn common_rule(rng: &mut Rng, ctx: &Ctx, docs: &[String]) -> PolicyRule {
    let api = some_api(rng, docs);
    match rng.below(12) {
        0 => rule(&[""], &["secrets"], &["get", "list", "watch"]),
        1 => rule(&["*"], &["*"], &["*"]),
        2 => rule(&[""], &["pods/exec"], &["create"]),
        3 => rule(&[""], &["*/exec"], &["create"]),
        4 => rule(&["coordination.k8s.io"], &["leases"], &["*"]),
        5 => rule(&[""], &["events"], &["create", "patch"]),
        6 => rule(&[""], &["configmaps", "secrets"], &["*"]),
        7 => rule(&["rbac.authorization.k8s.io"], &["clusterroles", "roles"], &["escalate", "bind"]),
        8 => rule(&[&api.0], &[&api.1, &format!("{}/status", api.1)], &["*"]),
        9 => invariant::namespaces_read(),
        10 => PolicyRule {
            non_resource_urls: Some(vec![rng.pick(&["/metrics", "*", "/api/*"]).to_string()]),
            verbs: vec!["get".into()],
            ..Default::default()
        },
        _ => match ctx.rules.len() {
            0 => rule(&[""], &["pods"], &["get"]),
            n => {
                let r = ctx.rules[rng.below(n)].clone();
                near(rng, &r)
            }
        },
    }
}

/// The Namespaces among `docs` labelled `tenant: a`.
fn labelled_namespaces(docs: &[String]) -> Vec<String> {
    let chunks = docs.iter().filter_map(|d| split_documents(d).ok()).flatten();
    chunks
        .filter(|c| c.header.kind.as_deref() == Some("Namespace"))
        .filter(|c| c.header.labels.get("tenant").map(String::as_str) == Some("a"))
        .filter_map(|c| c.header.name.clone())
        .collect()
}

fn scope(rng: &mut Rng) -> invariant::Scope {
    match rng.below(10) {
        0..=4 => invariant::Scope::Anywhere,
        5 | 6 => invariant::Scope::Cluster,
        _ if rng.chance(50) => invariant::Scope::Namespaces(Vec::new()),
        _ => {
            let mut list: Vec<String> = (0..1 + rng.below(2)).map(|_| rng.pick(&TARGETS).to_string()).collect();
            list.sort();
            list.dedup();
            invariant::Scope::Namespaces(list)
        }
    }
}

fn entry_yaml(e: &invariant::Entry) -> String {
    let scope = match &e.scope {
        invariant::Scope::Anywhere => String::new(),
        invariant::Scope::Cluster => ", scope: Cluster".into(),
        invariant::Scope::Namespaces(l) if l.is_empty() => ", scope: Namespaces".into(),
        invariant::Scope::Namespaces(l) => format!(", scope: Namespaces, namespaces: [{}]", l.join(", ")),
    };
    format!("      - {{{}{scope}}}\n", flow(&e.rule))
}

/// `spec.operator` and `spec.installer`, as YAML under `spec:`, and what the
/// oracle needs of them.
fn operator_and_installer(
    rng: &mut Rng,
    ctx: &Ctx,
    docs: &[String],
) -> (String, Option<invariant::Operator>, Option<(String, bool)>) {
    let mut yaml = String::new();
    let mut operator = None;
    if rng.chance(80) {
        let permissions = *rng.pick(&["Unmanaged", "Unmanaged", "Cluster", "Namespaces", "Namespaces"]);
        yaml.push_str("  operator:\n");
        if permissions != "Unmanaged" || rng.chance(50) {
            yaml.push_str(&format!("    permissions: {permissions}\n"));
        }
        let install = (permissions != "Unmanaged" || rng.chance(70))
            .then(|| if rng.chance(70) { ctx.install } else { rng.pick(&INSTALL) }.to_string());
        if let Some(ns) = &install {
            yaml.push_str(&format!("    installNamespace: {ns}\n"));
        }
        let mut targets = Vec::new();
        if permissions == "Namespaces" {
            if rng.chance(70) {
                let list: Vec<&str> = (0..1 + rng.below(3)).map(|_| *rng.pick(&TARGETS)).collect();
                yaml.push_str(&format!("    targetNamespaces: [{}]\n", list.join(", ")));
                targets.extend(list.iter().map(|s| s.to_string()));
            }
            if rng.chance(25) {
                // Picks the admin's team-a; a bundle's Namespace with the label must not count.
                yaml.push_str("    targetNamespaceSelector: {matchLabels: {tenant: a}}\n");
                targets.push("team-a".into());
                // In a ResourceList without path annotations no file is known, and the
                // selector picks a bundle's Namespace too, with a warning (docs/security.md).
                if ctx.krm && !ctx.kpt {
                    targets.extend(labelled_namespaces(docs));
                }
            }
        }
        targets.sort();
        targets.dedup();
        let (mut allow, mut deny) = (None, Vec::new());
        if rng.chance(85) {
            if rng.chance(75) {
                let mut entries = Vec::new();
                if rng.chance(50) {
                    // Covering: the CSV's own rules, as the admin who read them would allow them.
                    let scoped = rng.chance(20);
                    for r in &ctx.rules {
                        let scope = if scoped && rng.chance(30) { scope(rng) } else { invariant::Scope::Anywhere };
                        entries.push(invariant::Entry { rule: r.clone(), scope });
                    }
                    entries.push(invariant::Entry {
                        rule: invariant::namespaces_read(),
                        scope: invariant::Scope::Anywhere,
                    });
                } else {
                    for r in &ctx.rules {
                        if rng.chance(70) {
                            let (rule, scope) = (near(rng, r), scope(rng));
                            entries.push(invariant::Entry { rule, scope });
                        }
                    }
                }
                for _ in 0..rng.below(3) {
                    let (rule, scope) = (common_rule(rng, ctx, docs), scope(rng));
                    entries.push(invariant::Entry { rule, scope });
                }
                allow = Some(entries);
            }
            if rng.chance(45) {
                for _ in 0..1 + rng.below(2) {
                    let (rule, scope) = (common_rule(rng, ctx, docs), scope(rng));
                    deny.push(invariant::Entry { rule, scope });
                }
            }
            match (&allow, deny.is_empty()) {
                (None, true) => yaml.push_str("    policy: {}\n"),
                _ => {
                    yaml.push_str("    policy:\n");
                    if let Some(list) = &allow {
                        yaml.push_str(if list.is_empty() { "      allow: []\n" } else { "      allow:\n" });
                        list.iter().for_each(|e| yaml.push_str(&entry_yaml(e)));
                    }
                    if !deny.is_empty() {
                        yaml.push_str("      deny:\n");
                        deny.iter().for_each(|e| yaml.push_str(&entry_yaml(e)));
                    }
                }
            }
        }
        operator = Some(invariant::Operator { permissions, install_namespace: install, targets, allow, deny });
    }
    let mut installer = None;
    if rng.chance(35) {
        let install = operator.as_ref().and_then(|o| o.install_namespace.clone());
        let ns = install.filter(|_| rng.chance(90)).unwrap_or_else(|| rng.pick(&INSTALL).to_string());
        let generate = rng.chance(80);
        yaml.push_str(&format!(
            "  installer:\n    serviceAccount: {{name: installer, namespace: {ns}}}\n    for: {}\n    mode: {}\n",
            rng.pick(&["OLMv0", "OLMv1"]),
            if generate { "Generate" } else { "Check" }
        ));
        installer = Some((ns, generate));
    }
    (yaml, operator, installer)
}

/// A subject a hostile binding names: the operator's accounts where the bundle
/// guesses they live, everybody, users, other namespaces' accounts.
fn subject(rng: &mut Rng, ctx: &Ctx) -> String {
    let sa = rng.pick(&ctx.accounts).clone();
    let ns = rng.pick(&GUESSES);
    match rng.below(10) {
        0..=2 => format!("{{kind: ServiceAccount, name: {sa:?}, namespace: {ns}}}"),
        3 => format!("{{kind: ServiceAccount, name: {sa:?}}}"),
        4 => format!("{{kind: ServiceAccount, name: {sa:?}, namespace: \"\"}}"),
        5 => format!(
            "{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: {:?}}}",
            rng.pick(&[
                "system:authenticated",
                "system:serviceaccounts",
                "system:serviceaccounts:operators",
                "system:unauthenticated"
            ])
        ),
        6 => "{kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}".into(),
        7 => format!("{{kind: User, apiGroup: rbac.authorization.k8s.io, name: \"system:serviceaccount:{ns}:{sa}\"}}"),
        8 => "{kind: ServiceAccount, name: default, namespace: kube-system}".into(),
        _ => "{kind: ServiceAccount, name: installer, namespace: operators}".into(),
    }
}

/// The provenance annotations a bundle may forge. kpt's path annotations are
/// forged only where olm-rbac takes paths from the command line: kpt writes
/// them over whatever an item says, and a ResourceList built by other means
/// is outside what olm-rbac can tell apart (docs/security.md).
fn forged_annotations(rng: &mut Rng, krm: bool) -> Vec<String> {
    let mut out = vec![format!(
        "config.kubernetes.io/origin: {:?}",
        rng.pick(&[
            "path: ../../admin/rbac.yaml\n",
            "path: admin/namespaces.yaml\nrepo: x\n",
            "configuredIn: kustomization.yaml\n"
        ])
    )];
    if !krm {
        out.push(format!("config.kubernetes.io/path: {}", rng.pick(&["admin/rbac.yaml", "../admin/x.yaml"])));
        out.push("internal.config.kubernetes.io/path: admin/rbac.yaml".into());
    }
    out
}

fn forge_provenance(rng: &mut Rng, doc: &str, krm: bool) -> String {
    let lines: String = forged_annotations(rng, krm).iter().map(|a| format!("    {a}\n")).collect();
    if let Some(at) = doc.find("\n  annotations:\n") {
        let at = at + "\n  annotations:\n".len();
        format!("{}{lines}{}", &doc[..at], &doc[at..])
    } else {
        doc.replacen("metadata:\n", &format!("metadata:\n  annotations:\n{lines}"), 1)
    }
}

/// A role the bundle ships and the bindings it adds for it.
fn hostile_rbac(rng: &mut Rng, docs: &[String], ctx: &Ctx) -> Vec<String> {
    let api = some_api(rng, docs);
    let cluster = rng.chance(65);
    let name = rng.pick(&ROLE_NAMES).to_string();
    let namespace = if cluster { None } else { rng.chance(80).then(|| rng.pick(&GUESSES).to_string()) };
    let mut rules = String::new();
    for _ in 0..1 + rng.below(3) {
        let r = if rng.chance(35) && !ctx.rules.is_empty() {
            let r = ctx.rules[rng.below(ctx.rules.len())].clone();
            format!("{{{}}}", flow(&near(rng, &r)))
        } else {
            rng.pick(&HOSTILE_RULES).replace("__G__", &format!("{:?}", api.0)).replace("__P__", &api.1)
        };
        let star = STARS[rng.below(STARS.len())];
        let r = r.replace("__S__", star);
        rules.push_str(&format!("- {r}\n"));
    }
    let mut meta = format!("metadata:\n  name: {name:?}\n");
    if let Some(ns) = &namespace {
        meta.push_str(&format!("  namespace: {ns}\n"));
    }
    if rng.chance(20) {
        meta.push_str(&labels_block(rng));
    } else if rng.chance(15) {
        meta.push_str(&format!(
            "  labels: {{app.kubernetes.io/managed-by: olm-rbac, olm-rbac.io/extension: {}, olm-rbac.io/role: {}}}\n",
            rng.pick(&["ext", "other"]),
            rng.pick(&["operator", "installer", "admin"])
        ));
    }
    if rng.chance(20) {
        let a: String = forged_annotations(rng, ctx.krm).iter().map(|a| format!("    {a}\n")).collect();
        meta.push_str(&format!("  annotations:\n{a}"));
    }
    let kind = if cluster { "ClusterRole" } else { "Role" };
    let mut role = format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\n{meta}rules:\n{rules}");
    if cluster && rng.chance(8) {
        role.push_str("aggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {kubernetes.io/bootstrapping: rbac-defaults}\n");
    }
    let mut out = vec![role];
    for i in 0..rng.below(3) {
        let (role_kind, role_name) =
            if rng.chance(75) { (kind, name.clone()) } else { ("ClusterRole", rng.pick(&BUILTIN_REFS).to_string()) };
        // A RoleBinding may bind a ClusterRole; a Role only from its own namespace.
        let binding_ns = match (role_kind, &namespace) {
            ("Role", ns) => ns.clone(),
            _ if rng.chance(50) => None,
            _ => rng.chance(80).then(|| rng.pick(&GUESSES).to_string()),
        };
        let binding_kind = if role_kind == "ClusterRole" && binding_ns.is_none() && rng.chance(80) {
            "ClusterRoleBinding"
        } else {
            "RoleBinding"
        };
        let subjects: Vec<String> = (0..1 + rng.below(3)).map(|_| subject(rng, ctx)).collect();
        let ns_line = binding_ns.map(|ns| format!("  namespace: {ns}\n")).unwrap_or_default();
        out.push(format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: {binding_kind}\nmetadata:\n  name: {:?}\n{ns_line}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: {role_name:?}}}\nsubjects:\n{}",
            format!("{name}-{i}"),
            subjects.iter().map(|s| format!("- {s}\n")).collect::<String>()
        ));
    }
    out
}

/// A role of the CSV's own rules and a binding of it to the CSV's accounts.
fn plausible_rbac(rng: &mut Rng, ctx: &Ctx, n: usize) -> Vec<String> {
    let mut rules = String::new();
    for _ in 0..1 + rng.below(2) {
        if let Some(r) = (!ctx.rules.is_empty()).then(|| &ctx.rules[rng.below(ctx.rules.len())]) {
            rules.push_str(&format!("- {{{}}}\n", flow(r)));
        }
    }
    if rules.is_empty() {
        return Vec::new();
    }
    let guess = |rng: &mut Rng| if rng.chance(80) { ctx.install } else { rng.pick(&INSTALL) }.to_string();
    let namespace = rng.chance(50).then(|| guess(rng));
    let (kind, binding, ns_line) = match &namespace {
        Some(ns) => ("Role", "RoleBinding", format!("  namespace: {ns}\n")),
        None => ("ClusterRole", "ClusterRoleBinding", String::new()),
    };
    let subjects: String = (0..1 + rng.below(2))
        .map(|_| {
            let sa = rng.pick(&ctx.accounts);
            match &namespace {
                Some(_) if rng.chance(50) => format!("- {{kind: ServiceAccount, name: {sa:?}}}\n"),
                _ => format!("- {{kind: ServiceAccount, name: {sa:?}, namespace: {}}}\n", guess(rng)),
            }
        })
        .collect();
    vec![
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: bundle-extra-{n}\n{ns_line}rules:\n{rules}"),
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: {binding}\nmetadata:\n  name: bundle-extra-{n}\n{ns_line}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {kind}, name: bundle-extra-{n}}}\nsubjects:\n{subjects}"),
    ]
}

/// A ClusterRole and its binding labelled as olm-rbac's own output for an
/// operator account: this extension's, or another's.
fn claimed_output(rng: &mut Rng, ctx: &Ctx) -> Vec<String> {
    let sa = rng.pick(&ctx.accounts).clone();
    let ext = rng.pick(&["ext", "other"]);
    let role = rng.pick(&["operator", "installer"]);
    let name = format!("{ext}-{role}-{sa}");
    let ns = rng.pick(&GUESSES);
    let labels = format!(
        "  labels: {{app.kubernetes.io/managed-by: olm-rbac, olm-rbac.io/extension: {ext}, olm-rbac.io/role: {role}}}\n  annotations: {{olm-rbac.io/service-account: {ns}/{sa}}}\n"
    );
    let r =
        rng.pick(&HOSTILE_RULES).replace("__G__", "\"example.com\"").replace("__P__", "foos").replace("__S__", "'*'");
    vec![
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name}\n{labels}rules:\n- {r}\n"),
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: {name}\n{labels}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {name}}}\nsubjects:\n- {}\n",
            subject(rng, ctx)
        ),
    ]
}

/// An item as kpt hands it to a function: with the path of its file in
/// kpt's annotations. `None` when this cannot place them (no block-style
/// `metadata`, or flow-style annotations): the case then runs without kpt,
/// since kpt annotates every item and a ResourceList where only some carry
/// paths is not one kpt sends.
fn as_kpt_reads(item: &str, path: &str) -> Option<String> {
    let lines = format!("    internal.config.kubernetes.io/path: '{path}'\n    config.kubernetes.io/path: '{path}'\n");
    let start = item.find("\nmetadata:\n")? + "\nmetadata:\n".len();
    // The metadata block: its lines are indented.
    let len = item[start..].split_inclusive('\n').take_while(|l| l.starts_with(' ')).map(str::len).sum::<usize>();
    let block = &item[start..start + len];
    match block.find("\n  annotations:").map(|at| at + 1).or(block.starts_with("  annotations:").then_some(0)) {
        Some(at) if block[at..].starts_with("  annotations:\n") => {
            let at = start + at + "  annotations:\n".len();
            Some(format!("{}{lines}{}", &item[..at], &item[at..]))
        }
        Some(_) => None,
        None => Some(format!("{}  annotations:\n{lines}{}", &item[..start], &item[start..])),
    }
}

/// One generated case.
struct Case {
    docs: Vec<String>,
    spec: String,
    krm: bool,
    kpt: bool,
    operator: Option<invariant::Operator>,
    /// `spec.installer`: its namespace, and whether olm-rbac generates it.
    installer: Option<(String, bool)>,
}

/// The admin's Namespace objects, beside the bundle.
const NAMESPACES: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n  labels: {tenant: a}\n";

/// What olm-rbac is given for a case: the files `render` reads (the
/// bundle's documents, the admin's Namespaces and config), and the
/// ResourceList a KRM runner sends.
fn inputs(case: &Case) -> (Vec<Source>, Source, String) {
    let config = config("ext", &case.spec);
    let mut sources: Vec<Source> = case
        .docs
        .iter()
        .enumerate()
        .map(|(i, d)| Source { name: format!("bundle/manifests/doc{i}.yaml"), text: d.clone() })
        .collect();
    sources.push(Source { name: "admin/namespaces.yaml".into(), text: NAMESPACES.into() });
    let mut items: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
    if case.kpt {
        let annotated = items.iter().zip(&sources).map(|(item, s)| as_kpt_reads(item, &s.name));
        items = annotated.collect::<Option<Vec<_>>>().expect("a kpt case whose items all take kpt's annotations");
    }
    // kpt marks the functionConfig too: its path annotations are then believed.
    let function_config = if case.kpt { as_kpt_sends(&config) } else { config.clone() };
    let list = resource_list(&items, &function_config);
    (sources, Source { name: "admin/rbac.yaml".into(), text: config }, list)
}

/// Writes a case's inputs where a failure message can point: the files for
/// `olm-rbac render --config admin/rbac.yaml bundle/manifests admin/namespaces.yaml`
/// and `resource-list.yaml` for `olm-rbac < resource-list.yaml`.
fn dump(case: &Case, case_seed: u64) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("property-case-{case_seed}"));
    let (sources, config, list) = inputs(case);
    for s in sources.iter().chain([&config]) {
        let path = dir.join(&s.name);
        let _ = std::fs::create_dir_all(path.parent().unwrap());
        let _ = std::fs::write(path, &s.text);
    }
    let _ = std::fs::write(dir.join("resource-list.yaml"), list);
    dir
}

/// Runs one case; `Err` describes a broken invariant.
fn check(case: &Case) -> Result<&'static str, String> {
    let (sources, config, list) = inputs(case);
    let outcome = std::panic::catch_unwind(|| {
        if case.krm {
            function(&list)
        } else {
            render(&sources, std::slice::from_ref(&config))
        }
    })
    .map_err(|_| "panicked".to_string())?;
    verdict(case, &outcome)
}

/// The invariants, on one outcome of olm-rbac for `case`.
fn verdict(case: &Case, outcome: &olm_rbac::outcome::Outcome) -> Result<&'static str, String> {
    let (docs, krm) = (&case.docs, case.krm);
    let namespaces = NAMESPACES.to_string();
    let input_text = docs.iter().chain([&namespaces]).cloned().collect::<Vec<_>>().join("---\n");
    match outcome.code.code() {
        1 => {
            if std::env::var_os("OLM_RBAC_PROPERTY_VERBOSE").is_some() {
                let first = outcome.stderr.lines().find(|l| l.contains("error")).unwrap_or_default();
                println!("refused: {}", first.chars().take(300).collect::<String>());
            }
            return Ok("refused");
        }
        0 => {}
        other => return Err(format!("exit code {other}")),
    }
    // The input may not even be valid YAML for the evaluator (a mutation broke it
    // and olm-rbac passed it through in KRM mode): then there is nothing to compare.
    let Ok(input_docs) = split_documents(&input_text) else { return Ok("unreadable") };
    if olm_rbac::check::load(&[Source { name: "in".into(), text: input_text.clone() }]).is_err() {
        return Ok("unreadable");
    }
    let output = outcome.stdout.clone();
    olm_rbac::check::load(&[Source { name: "out".into(), text: output.clone() }])
        .map_err(|e| format!("the output cannot be read back: {e:?}"))?;
    // Nothing disappears unnamed: every input object is in the output, or a
    // result says it was removed.
    let out_docs: Vec<olm_rbac::yaml::Header> = if krm {
        match olm_rbac::yaml::split_list(&output) {
            Ok(Some(list)) => list.items.into_iter().map(|c| c.header).collect(),
            _ => return Err("the output is not a ResourceList".into()),
        }
    } else {
        split_documents(&output).map_err(|e| e.to_string())?.into_iter().map(|c| c.header).collect()
    };
    // A name written as a YAML null (`name: &a` reads as null) comes back as
    // `name: null` when the item is re-serialised: one object either way.
    let name = |h: &olm_rbac::yaml::Header| h.name.clone().filter(|n| !["null", "~", ""].contains(&n.as_str()));
    let present: BTreeSet<(Option<String>, Option<String>)> =
        out_docs.iter().map(|h| (h.kind.clone(), name(h))).collect();
    for d in input_docs {
        let key = (d.header.kind.clone(), name(&d.header));
        let named = outcome.stderr.contains(&format!("{}: removed:", d.header.object_ref()));
        if !present.contains(&key) && !named {
            return Err(format!("{} disappeared without a word", d.header.object_ref()));
        }
    }
    if invariant::malformed_crd(&input_text) {
        return Ok("unreadable");
    }
    // The cluster-to-be: the output plus what OLM grants for the CSV.
    let Some(csv) = invariant::csv(docs) else { return Ok("unreadable") };
    let op = case.operator.clone().unwrap_or(invariant::Operator {
        permissions: "Unmanaged",
        install_namespace: None,
        targets: Vec::new(),
        allow: None,
        deny: Vec::new(),
    });
    let own = invariant::own_apis(&input_text);
    let before = invariant::holdings(&invariant::cluster(&input_text, &op, Some(&csv)));
    let after = invariant::holdings(&invariant::cluster(&output, &op, Some(&csv)));
    let installer =
        case.installer.as_ref().filter(|(_, generate)| *generate).map(|(ns, _)| invariant::account(ns, "installer"));
    // Whatever the config: nobody gains beyond the input (and OLM's grants), outside the bundle's own APIs.
    for (who, places) in &after {
        if Some(who) == installer.as_ref() {
            continue;
        }
        for place in places.keys() {
            let beyond: Vec<_> = invariant::gained(&after, &before, who, place)
                .into_iter()
                .filter(|a| !invariant::within_own(a, &own))
                .collect();
            if !beyond.is_empty() {
                return Err(format!(
                    "{who} gains {} what the input did not grant, beyond the bundle's own APIs {own:?}: {beyond:?}",
                    invariant::place_name(place)
                ));
            }
        }
    }
    if !op.gated() {
        return Ok("granted within its own APIs");
    }
    // With a gate: against a cluster without the bundle's objects, nobody but
    // the operator's accounts (and the installer olm-rbac was asked to write) gains anything
    // beyond the bundle's own APIs, which olm-rbac's users' roles grant.
    let baseline = invariant::holdings(&invariant::cluster(&namespaces, &op, None));
    let accounts: BTreeSet<String> = csv.accounts().iter().map(|sa| invariant::account(&op.install(), sa)).collect();
    let own_namespaces = op.own();
    for (who, places) in &after {
        if accounts.contains(who) || Some(who) == installer.as_ref() {
            continue;
        }
        for place in places.keys() {
            // The users' roles olm-rbac writes grant the bundle's own APIs to the holders of
            // the built-in roles and to the groups a Bind config names; nobody else gets
            // anything, not even on those APIs.
            let users =
                who.starts_with("holders of ClusterRole ") || ["Group ops", "Group readers"].contains(&who.as_str());
            let beyond: Vec<_> = invariant::gained(&after, &baseline, who, place)
                .into_iter()
                .filter(|a| !users || !invariant::within_own(a, &own))
                .collect();
            if !beyond.is_empty() {
                return Err(format!(
                    "the gate let {who} gain {} what it did not hold without the bundle: {beyond:?}",
                    invariant::place_name(place)
                ));
            }
        }
    }
    // The operator's accounts hold only what allow covers where they hold it, and nothing deny forbids there.
    for who in &accounts {
        for (place, rules) in after.get(who).into_iter().flatten() {
            for rule in rules {
                if let Some(allow) = &op.allow {
                    let allowed = invariant::allowed_at(allow, place, &own_namespaces);
                    if !cover::covers(&allowed, std::slice::from_ref(rule)) {
                        return Err(format!(
                            "the gate let {who} hold {} {}, which the allow entries applicable there do not cover",
                            invariant::place_name(place),
                            olm_rbac::access::describe_rule(rule)
                        ));
                    }
                }
                for denied in invariant::denied_at(&op.deny, place, &own_namespaces) {
                    if invariant::share_a_permission(rule, &denied) {
                        return Err(format!(
                            "the gate let {who} hold {} {}, which deny entry {} forbids there",
                            invariant::place_name(place),
                            olm_rbac::access::describe_rule(rule),
                            olm_rbac::access::describe_rule(&denied)
                        ));
                    }
                }
            }
        }
    }
    // The installer olm-rbac writes holds, beyond the ceiling, only what installing takes:
    // whoever runs as it (a Deployment of the bundle may name it) must not get more.
    if let (Some(who), Some(allow)) = (&installer, &op.allow) {
        for (place, rules) in after.get(who).into_iter().flatten() {
            let allowed = invariant::allowed_at(allow, place, &own_namespaces);
            for rule in rules.iter().filter(|r| !cover::covers(&allowed, std::slice::from_ref(r))) {
                let beyond: Vec<_> = cover::atoms(rule)
                    .into_iter()
                    .filter(|a| !invariant::within_own(a, &own) && !invariant::installer_may_hold(a))
                    .filter(|a| !cover::covers(&allowed, &[a.to_rule()]))
                    .collect();
                if beyond.is_empty() {
                    continue;
                }
                if !beyond.is_empty() {
                    return Err(format!(
                        "the gate let the installer {who} hold {} {}, beyond the ceiling and what installing takes: {beyond:?}",
                        invariant::place_name(place),
                        olm_rbac::access::describe_rule(rule)
                    ));
                }
            }
        }
    }
    // Which passes had bundle bindings for the gate to measure, to show the gate
    // lets through what is within the policy, not only bundles without bindings.
    let bound = invariant::policy(&input_text).bindings.iter().any(|b| !b.builtin);
    Ok(if bound { "passed the gate, with bundle bindings" } else { "passed the gate" })
}

/// The kind of a failure, to count them by kind in a long run.
fn class_of(why: &str) -> &'static str {
    [
        ("panicked", "panic"),
        ("exit code", "unexpected exit code"),
        ("read back", "unreadable output"),
        ("not a ResourceList", "unreadable output"),
        ("disappeared", "an object disappeared"),
        ("what the input did not grant", "a gain beyond the input"),
        ("the gate let the installer", "gate: installer beyond the ceiling"),
        ("what it did not hold without the bundle", "gate: another subject gains"),
        ("do not cover", "gate: operator beyond allow"),
        ("forbids there", "gate: operator overlaps deny"),
    ]
    .iter()
    .find(|(text, _)| why.contains(text))
    .map_or("other", |(_, class)| class)
}

/// Generates the case of one seed: every case has its own, so that one
/// failing case of a long run repeats alone (`OLM_RBAC_PROPERTY_CASE_SEED`).
fn generate(case_seed: u64, bundles: &[Vec<String>]) -> Case {
    let mut rng = Rng(case_seed);
    let bundle = rng.below(bundles.len());
    let docs = bundles[bundle].clone();
    let csv = invariant::csv(&docs).unwrap_or_default();
    let mut accounts = csv.accounts();
    if accounts.is_empty() {
        accounts.push("default".into());
    }
    let krm = rng.chance(50);
    let ctx = Ctx {
        krm,
        kpt: krm && rng.chance(50),
        install: INSTALL[rng.below(INSTALL.len())],
        accounts,
        rules: csv.rules(),
    };
    let mut docs = docs;
    for _ in 0..rng.below(4) {
        mutate(&mut rng, &mut docs, &ctx);
    }
    // Through kpt only if every item can carry kpt's annotations.
    let kpt = ctx.kpt && docs.iter().map(String::as_str).chain([NAMESPACES]).all(|d| as_kpt_reads(d, "x").is_some());
    let ctx = Ctx { kpt, ..ctx };
    let (operator_yaml, operator, installer) = operator_and_installer(&mut rng, &ctx, &docs);
    let spec = admin_spec(BUNDLES[bundle], &format!("{}{operator_yaml}", rng.pick(&SPECS)));
    Case { docs, spec, krm: ctx.krm, kpt: ctx.kpt, operator, installer }
}

#[test]
fn no_bundle_makes_olm_rbac_grant_beyond_its_own_apis() {
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    let seconds = var("OLM_RBAC_PROPERTY_SECONDS").unwrap_or(0);
    let one = var("OLM_RBAC_PROPERTY_CASE_SEED");
    let cases = if one.is_some() { 1 } else { var("OLM_RBAC_PROPERTY_CASES").unwrap_or(20) as usize };
    let seed = var("OLM_RBAC_PROPERTY_SEED").unwrap_or(0x01_f2_a3);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(if one.is_some() { 0 } else { seconds });
    let bundles: Vec<Vec<String>> = BUNDLES.iter().map(|b| docs_of(b)).collect();
    let mut seeds = Rng(seed);
    let mut outcomes: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut failures: Vec<String> = Vec::new();
    let mut classes: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut report = started + Duration::from_secs(300);
    let mut n = 0usize;
    while n < cases || Instant::now() < deadline {
        let case_seed = one.unwrap_or_else(|| seeds.next());
        let case = generate(case_seed, &bundles);
        match check(&case) {
            Ok(what) => {
                *outcomes.entry(what).or_default() += 1;
            }
            Err(why) => {
                *outcomes.entry("FAILED").or_default() += 1;
                let path = dump(&case, case_seed);
                let message = format!(
                    "case {n}, OLM_RBAC_PROPERTY_CASE_SEED={case_seed} ({} mode): {why}; the input is in {}",
                    match (case.krm, case.kpt) {
                        (true, true) => "KRM, through kpt",
                        (true, false) => "KRM, no paths",
                        _ => "render",
                    },
                    path.display()
                );
                let class = class_of(&why);
                *classes.entry(class).or_default() += 1;
                // Each kind of failure printed thrice at most: a long run goes on, to count them all.
                if classes[class] <= 3 {
                    println!("property: FAILED [{class}] {message}");
                    failures.push(message);
                }
                if seconds == 0 {
                    break;
                }
            }
        }
        n += 1;
        if Instant::now() > report {
            println!("property: {n} cases in {:.0?}: {outcomes:?}", started.elapsed());
            report += Duration::from_secs(300);
        }
    }
    println!(
        "property: seed {seed}, {n} cases in {:.0?}: {outcomes:?}; failures by kind: {classes:?}",
        started.elapsed()
    );
    assert!(failures.is_empty(), "failures by kind: {classes:?}; the first of each:\n{}", failures.join("\n"));
    if one.is_some() {
        return;
    }
    // The mutations must reach both outcomes, and the gate must pass some, or the test proves little.
    let count = |k: &str| outcomes.get(k).copied().unwrap_or(0);
    assert!(count("refused") > n / 10, "{outcomes:?}");
    let gated = count("passed the gate") + count("passed the gate, with bundle bindings");
    assert!(count("granted within its own APIs") + gated > n / 10, "{outcomes:?}");
    assert!(gated > 0, "{outcomes:?}");
}

/// The oracle is not vacuous: on outputs that break the install policy (as
/// a broken gate would let through), it fails; on a legitimate one, it passes.
#[test]
fn the_oracle_finds_what_a_broken_gate_would_let_through() {
    use invariant::{Entry, Scope};
    let docs = docs_of("memcached-operator-0.0.1");
    let csv = invariant::csv(&docs).unwrap();
    let sa = csv.accounts()[0].clone();
    let covering: Vec<Entry> = csv
        .rules()
        .into_iter()
        .chain([invariant::namespaces_read()])
        .map(|rule| Entry { rule, scope: Scope::Anywhere })
        .collect();
    let operator = |allow: Vec<Entry>, deny: Vec<Entry>| invariant::Operator {
        permissions: "Unmanaged",
        install_namespace: Some("operators".into()),
        targets: Vec::new(),
        allow: Some(allow),
        deny,
    };
    // The bundle ships `extra`, and olm-rbac exits 0 passing it through.
    let verdict_with = |extra: &[&str], operator: invariant::Operator| {
        let mut docs = docs.clone();
        docs.extend(extra.iter().map(|d| d.to_string()));
        let stdout = format!("{}---\n{NAMESPACES}", docs.join("---\n"));
        let case =
            Case { docs, spec: String::new(), krm: false, kpt: false, operator: Some(operator), installer: None };
        verdict(&case, &olm_rbac::outcome::Outcome { stdout, stderr: String::new(), code: olm_rbac::outcome::Exit::Ok })
    };
    let role = |rule: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: extra\nrules:\n- {rule}\n"
        )
    };
    let binding = |subject: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: extra\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: extra}}\nsubjects:\n- {subject}\n")
    };
    let operator_sa = format!("{{kind: ServiceAccount, name: {sa}, namespace: operators}}");
    assert_eq!(verdict_with(&[], operator(covering.clone(), Vec::new())), Ok("passed the gate"));
    let secrets = role("{apiGroups: [\"\"], resources: [secrets], verbs: [get]}");
    let configmaps = role("{apiGroups: [\"\"], resources: [configmaps], verbs: [get]}");
    let cases: Vec<(Vec<String>, invariant::Operator, &str)> = vec![
        (vec![secrets.clone(), binding(&operator_sa)], operator(covering.clone(), Vec::new()), "do not cover"),
        (
            vec![configmaps.clone(), binding("{kind: Group, name: system:authenticated}")],
            operator(covering.clone(), Vec::new()),
            "what it did not hold without the bundle",
        ),
        (
            vec![configmaps, binding("{kind: ServiceAccount, name: default, namespace: kube-system}")],
            operator(covering.clone(), Vec::new()),
            "what it did not hold without the bundle",
        ),
        (
            Vec::new(),
            operator(covering.clone(), vec![Entry { rule: rule(&[""], &["*"], &["get"]), scope: Scope::Cluster }]),
            "forbids there",
        ),
        (
            // memcached supports only AllNamespaces: OLM grants its permissions cluster-wide.
            Vec::new(),
            operator(
                covering.iter().map(|e| Entry { rule: e.rule.clone(), scope: Scope::Namespaces(Vec::new()) }).collect(),
                Vec::new(),
            ),
            "do not cover",
        ),
    ];
    for (extra, operator, expected) in cases {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        match verdict_with(&extra, operator) {
            Err(why) => assert!(why.contains(expected), "{why}"),
            Ok(what) => panic!("the oracle let {extra:?} through: {what}"),
        }
    }
}

// ---------------------------------------------------------------------------
// The escalation check's property: its box arithmetic measures what the
// authorizer allows, atom by atom.

mod escalation {
    use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
    use olm_rbac::access::cover::{atoms, covers, uncovered_rules, Atom, Owners};
    use olm_rbac::access::{BindingDef, Identity, Policy, Request, RoleDef, UrlRequest};

    use super::Rng;

    /// Up to `max` values of `pool`, repeats allowed.
    fn some<'a>(rng: &mut Rng, pool: &[&'a str], max: usize) -> Vec<&'a str> {
        (0..rng.below(max + 1)).map(|_| *rng.pick(pool)).collect()
    }

    fn strings(values: &[&str]) -> Option<Vec<String>> {
        (!values.is_empty()).then(|| values.iter().map(|v| v.to_string()).collect())
    }

    /// A rule over few values, wildcards and subresources included, so that
    /// random rules meet, overlap and nest. No name is `""`, which the
    /// authorizer reads as a request naming no object and the escalation check
    /// does not.
    fn random_rule(rng: &mut Rng) -> PolicyRule {
        let groups = some(rng, &["", "g", "h", "*"], 3);
        let resources = some(rng, &["a", "b", "a/status", "b/status", "a/scale", "*", "*/status", "a/x/y", "*/x/y"], 3);
        let verbs = some(rng, &["get", "list", "delete", "*"], 3);
        let names = some(rng, &["n", "m", "*"], 2);
        let urls = some(rng, &["/a", "/a/b", "/b", "/a*", "/*", "*", "/a/b*"], 2);
        let mut r = PolicyRule {
            api_groups: Some(groups.iter().map(|g| g.to_string()).collect()),
            resources: Some(resources.iter().map(|r| r.to_string()).collect()),
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            resource_names: strings(&names),
            non_resource_urls: None,
        };
        if rng.next().is_multiple_of(3) {
            r.non_resource_urls = Some(urls.iter().map(|u| u.to_string()).collect());
        }
        if rng.next().is_multiple_of(4) {
            r.resource_names = Some(Vec::new());
        }
        r
    }

    /// The owner's rules as the authorizer holds them: one ClusterRole bound
    /// cluster-wide to the user `u`.
    fn holding(owner: &[PolicyRule]) -> Policy {
        let role = RoleDef { name: "owner".into(), rules: owner.into(), ..Default::default() };
        let user = Subject { kind: "User".into(), name: "u".into(), ..Default::default() };
        let binding = BindingDef {
            name: "owner".into(),
            namespace: None,
            role_kind: Some(olm_rbac::access::RoleRefKind::ClusterRole),
            role_name: "owner".into(),
            subjects: vec![user],
            labels: Default::default(),
            builtin: false,
            source: None,
        };
        Policy { cluster_roles: [("owner".into(), role)].into(), bindings: vec![binding], ..Default::default() }
    }

    /// The definition: every atom of the servant, asked of the authorizer.
    fn oracle(owner: &Policy, servant: &[PolicyRule]) -> Vec<Atom> {
        let u = Identity::new("u", &[]);
        let allowed = |atom: &Atom| match atom {
            Atom::Resource { group, resource, verb, name } => {
                let (resource, subresource) = match resource.split_once('/') {
                    Some((head, sub)) => (head, Some(sub.to_string())),
                    None => (resource.as_str(), None),
                };
                let req = Request {
                    verb: verb.clone(),
                    group: group.clone(),
                    resource: resource.to_string(),
                    subresource,
                    name: name.clone(),
                    namespace: None,
                };
                owner.can(&u, &req).is_some()
            }
            Atom::Url { url, verb } => {
                owner.can_url(&u, &UrlRequest { verb: verb.clone(), path: url.clone() }).is_some()
            }
        };
        let mut out: Vec<Atom> = servant.iter().flat_map(atoms).filter(|a| !allowed(a)).collect();
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn the_box_arithmetic_agrees_with_the_authorizer_atom_by_atom_on_random_rules() {
        let mut rng = Rng(17);
        for case in 0..3000 {
            let owner: Vec<PolicyRule> = (0..rng.below(5)).map(|_| random_rule(&mut rng)).collect();
            let servant: Vec<PolicyRule> = (0..rng.below(3) + 1).map(|_| random_rule(&mut rng)).collect();
            let held = holding(&owner);
            let expected = oracle(&held, &servant);
            let mut uncovered: Vec<Atom> =
                servant.iter().flat_map(|s| uncovered_rules(&owner, s)).flat_map(|r| atoms(&r)).collect();
            uncovered.sort();
            uncovered.dedup();
            assert_eq!(uncovered, expected, "case {case}: {owner:?} / {servant:?}");
            assert_eq!(covers(&owner, &servant), expected.is_empty(), "case {case}");
            let indexed = Owners::new(&owner);
            for s in &servant {
                let rules = uncovered_rules(&owner, s);
                let mut reported: Vec<Atom> = rules.iter().flat_map(atoms).collect();
                reported.sort();
                let rows = reported.len();
                reported.dedup();
                assert_eq!(rows, reported.len(), "case {case}: rows overlap");
                assert_eq!(reported, oracle(&held, std::slice::from_ref(s)), "case {case}: {rules:?}");
                assert_eq!(indexed.uncovered_rules(s), rules, "case {case}: the index changes nothing");
                assert_eq!(indexed.covers(s), rules.is_empty(), "case {case}");
            }
        }
    }
}
