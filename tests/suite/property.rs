//! A property test over the whole pipeline: real bundles, mutated with the
//! moves a hostile bundle author has, through both runners and every mode.
//! Beyond "no panic", every run must keep the invariant of
//! `docs/security.md`: the output grants nothing the input did not, beyond
//! the bundle's own APIs; and no input object disappears unnamed.
//!
//! `cargo test --test property` runs 60 cases (seeded, so a failure
//! repeats). For a long run: `OLM_RBAC_PROPERTY_SECONDS=1800 cargo test
//! --release --test property -- --nocapture` (or `OLM_RBAC_PROPERTY_CASES=N`).
//! A failing case is written to `target/property-failure.yaml`.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crate::common::*;
use crate::invariant;
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
fn mutate(rng: &mut Rng, docs: &mut Vec<String>) {
    match rng.below(9) {
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

/// Runs one case; `Err` describes a broken invariant.
fn check(docs: &[String], spec: &str, krm: bool) -> Result<&'static str, String> {
    let extension = "ext";
    let config = config(extension, spec);
    let namespaces = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n  labels: {tenant: a}\n".to_string();
    let input_text = docs.iter().chain([&namespaces]).cloned().collect::<Vec<_>>().join("---\n");
    let outcome = std::panic::catch_unwind(|| {
        if krm {
            let mut items: Vec<String> = docs.to_vec();
            items.push(namespaces.clone());
            function(&resource_list(&items, &config))
        } else {
            let mut sources: Vec<Source> = docs
                .iter()
                .enumerate()
                .map(|(i, d)| Source { name: format!("bundle/manifests/doc{i}.yaml"), text: d.clone() })
                .collect();
            sources.push(Source { name: "admin/namespaces.yaml".into(), text: namespaces.clone() });
            render(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config.clone() }])
        }
    })
    .map_err(|_| "panicked".to_string())?;
    match outcome.code {
        1 => return Ok("refused"),
        0 => {}
        other => return Err(format!("exit code {other}")),
    }
    // The input may not even be valid YAML for the evaluator (a mutation broke it
    // and olm-rbac passed it through in KRM mode): then there is nothing to compare.
    let Ok(input_docs) = split_documents(&input_text) else { return Ok("unreadable") };
    if olm_rbac::access::load(&[Source { name: "in".into(), text: input_text.clone() }]).is_err() {
        return Ok("unreadable");
    }
    let output = outcome.stdout;
    let own = invariant::own_apis(&input_text);
    let loaded = olm_rbac::access::load(&[Source { name: "out".into(), text: output.clone() }])
        .map_err(|e| format!("the output cannot be read back: {e:?}"))?;
    let _ = loaded;
    let beyond = invariant::beyond_own(&input_text, &output, &own);
    if !beyond.is_empty() {
        return Err(format!("grants beyond the bundle's own APIs {own:?}: {beyond:?}"));
    }
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
    Ok("granted within its own APIs")
}

#[test]
fn no_bundle_makes_olm_rbac_grant_beyond_its_own_apis() {
    let seconds: u64 = std::env::var("OLM_RBAC_PROPERTY_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let cases: usize = std::env::var("OLM_RBAC_PROPERTY_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 = std::env::var("OLM_RBAC_PROPERTY_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x01_f2_a3);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let bundles: Vec<Vec<String>> = BUNDLES.iter().map(|b| docs_of(b)).collect();
    let mut rng = Rng(seed);
    let mut outcomes: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut n = 0usize;
    while n < cases || Instant::now() < deadline {
        let mut docs = bundles[rng.below(bundles.len())].clone();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut docs);
        }
        let spec = *rng.pick(&SPECS);
        let krm = rng.chance(50);
        match check(&docs, spec, krm) {
            Ok(what) => *outcomes.entry(what).or_default() += 1,
            Err(why) => {
                let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("property-failure.yaml");
                let _ =
                    std::fs::write(&path, format!("# spec:\n#{}\n{}", spec.replace('\n', "\n#"), docs.join("---\n")));
                panic!(
                    "case {n} ({} mode): {why}; the input is in {}",
                    if krm { "KRM" } else { "render" },
                    path.display()
                );
            }
        }
        n += 1;
    }
    println!("property: {n} cases: {outcomes:?}");
    // The mutations must reach both outcomes, or the test proves little.
    assert!(outcomes.get("refused").copied().unwrap_or(0) > n / 10, "{outcomes:?}");
    assert!(outcomes.get("granted within its own APIs").copied().unwrap_or(0) > n / 10, "{outcomes:?}");
}
