//! The diff's arithmetic against itself measured the slow way, over
//! generated renders read as `can-i -f` reads them.
use super::*;

fn rule(resources: &[&str], names: &[&str], verbs: &[&str]) -> PolicyRule {
    let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    PolicyRule {
        api_groups: Some(vec![String::new()]),
        resources: Some(list(resources)),
        resource_names: (!names.is_empty()).then(|| list(names)),
        verbs: list(verbs),
        non_resource_urls: None,
    }
}

/// Today's arithmetic without the sharing: every namespace measured on
/// its own, as `changes` did before namespaces were measured once.
fn changes_one_namespace_at_a_time(old: &Policy, new: &Policy) -> Changes {
    let side = |policy| Side { by_namespace_name: BTreeSet::new(), ..Side::of(policy) };
    let (old_side, new_side) = (side(old), side(new));
    let mut holders: BTreeSet<Holder> = AggregatingRole::ALL.into_iter().map(Holder::Role).collect();
    holders.extend(old_side.by.keys().chain(new_side.by.keys()).cloned());
    let mut out = Changes::default();
    for holder in holders {
        let (old_c, new_c) = (old_side.held(&holder, Place::ClusterWide), new_side.held(&holder, Place::ClusterWide));
        out.gained.extend(changed(&holder, None, &new_c, &[&old_c]));
        out.lost.extend(changed(&holder, None, &old_c, &[&new_c]));
        let mut namespaces: BTreeSet<&str> = old_side.role_bindings_of(&holder).into_keys().collect();
        namespaces.extend(new_side.role_bindings_of(&holder).into_keys());
        for ns in namespaces {
            let (old_n, new_n) =
                (old_side.held(&holder, Place::Namespace(ns)), new_side.held(&holder, Place::Namespace(ns)));
            out.gained.extend(changed(&holder, Some(ns), &new_n, &[&old_n, &new_c]));
            out.lost.extend(changed(&holder, Some(ns), &old_n, &[&new_n, &old_c]));
        }
    }
    out
}

/// The next number below `n` drawn from `seed`.
fn draw(seed: &mut u64, n: u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) % n
}

const RULES: [&str; 10] = [
    r#"{apiGroups: [""], resources: [pods], verbs: [get, list]}"#,
    r#"{apiGroups: [""], resources: [namespaces], resourceNames: [n1], verbs: [get]}"#,
    r#"{apiGroups: [""], resources: [namespaces, nodes, configmaps], verbs: [get, delete]}"#,
    r#"{apiGroups: ["", apps], resources: [secrets, deployments], verbs: ["*"]}"#,
    r#"{apiGroups: [""], resources: [configmaps], resourceNames: [a, b], verbs: [update, get]}"#,
    r#"{nonResourceURLs: [/healthz], verbs: [get]}"#,
    r#"{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind, escalate]}"#,
    r#"{apiGroups: ["*"], resources: ["*"], verbs: [list]}"#,
    r#"{apiGroups: [apps], resources: [deployments/scale], verbs: [patch, get]}"#,
    r#"{apiGroups: [example.com], resources: [widgets, pods], verbs: [get, delete]}"#,
];

const HEAD: &str = "apiVersion: rbac.authorization.k8s.io/v1";

/// One to three of [`RULES`], as a YAML sequence.
fn rules(seed: &mut u64) -> String {
    (0..1 + draw(seed, 3)).map(|_| format!("- {}\n", RULES[draw(seed, 10) as usize])).collect()
}

/// The CRD of `widgets.example.com`, of the scope given.
fn widgets(scope: &str) -> String {
    format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec: {{group: example.com, names: {{plural: widgets, kind: Widget}}, scope: {scope}, versions: [{{name: v1, served: true, storage: true}}]}}\n")
}

/// A render drawn from `seed`, as documents, each under a key that
/// [`mutate`] picks by: three ClusterRoles (among them rules on the core
/// `namespaces`, by name and not), a Role in some namespaces, bindings of
/// a user and a ServiceAccount in six namespaces, so that many namespaces
/// bind the same roles and some bind a missing one, and a namespaced CRD.
fn render_docs(seed: &mut u64) -> Vec<(String, String)> {
    let mut docs = Vec::new();
    for c in 0..3 {
        let text = format!("{HEAD}\nkind: ClusterRole\nmetadata: {{name: c{c}}}\nrules:\n{}", rules(seed));
        docs.push((format!("c{c}"), text));
    }
    for n in 0..6 {
        if draw(seed, 2) == 0 {
            let text = format!("{HEAD}\nkind: Role\nmetadata: {{name: r, namespace: n{n}}}\nrules:\n{}", rules(seed));
            docs.push((format!("r{n}"), text));
        }
    }
    let subjects = "[{kind: User, name: u}, {kind: ServiceAccount, name: sa, namespace: n0}]";
    for b in 0..2 {
        if draw(seed, 2) == 0 {
            let role = format!("{{kind: ClusterRole, name: c{}}}", draw(seed, 3));
            let text = format!(
                "{HEAD}\nkind: ClusterRoleBinding\nmetadata: {{name: b{b}}}\nroleRef: {role}\nsubjects: {subjects}\n"
            );
            docs.push(("binding".into(), text));
        }
    }
    for n in 0..6 {
        for b in 0..draw(seed, 3) {
            let role = match draw(seed, 5) {
                4 => "{kind: Role, name: r}".to_string(),
                c => format!("{{kind: ClusterRole, name: c{c}}}"),
            };
            let text = format!("{HEAD}\nkind: RoleBinding\nmetadata: {{name: b{b}, namespace: n{n}}}\nroleRef: {role}\nsubjects: {subjects}\n");
            docs.push(("binding".into(), text));
        }
    }
    docs.push(("crd".into(), widgets("Namespaced")));
    docs
}

fn load_docs(docs: &[(String, String)]) -> Policy {
    let text: String = docs.iter().map(|(_, doc)| format!("---\n{doc}")).collect();
    crate::check::load(&[crate::input::Source { name: "side.yaml".into(), text }]).unwrap_or_else(|e| panic!("{e:?}"))
}

fn render(seed: &mut u64) -> Policy {
    load_docs(&render_docs(seed))
}

/// One change drawn from `seed`, as an upgrade makes: a ClusterRole's
/// rules rewritten, a ClusterRole made to aggregate those labelled for
/// it (its written rules kept) and another labelled, a binding dropped,
/// the CRD made cluster-scoped, or nothing.
fn mutate(docs: &mut Vec<(String, String)>, seed: &mut u64) {
    let c = draw(seed, 3);
    let at = |docs: &[(String, String)], key: &str| docs.iter().position(|(k, _)| k == key);
    match draw(seed, 5) {
        0 => {
            if let Some(i) = at(docs, &format!("c{c}")) {
                docs[i].1 = format!("{HEAD}\nkind: ClusterRole\nmetadata: {{name: c{c}}}\nrules:\n{}", rules(seed));
            }
        }
        1 => {
            // Its written rules stay: the aggregation replaces them.
            let selector =
                format!("aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{agg: c{c}}}}}]}}\nrules:");
            if let Some(i) = at(docs, &format!("c{c}")) {
                docs[i].1 = docs[i].1.replacen("rules:", &selector, 1);
            }
            let member = (c + 1 + draw(seed, 2)) % 3;
            if let Some(i) = at(docs, &format!("c{member}")) {
                let labelled = format!("name: c{member}, labels: {{agg: c{c}}}");
                docs[i].1 = docs[i].1.replacen(&format!("name: c{member}"), &labelled, 1);
            }
        }
        2 => {
            let bindings: Vec<usize> = (0..docs.len()).filter(|&i| docs[i].0 == "binding").collect();
            if !bindings.is_empty() {
                docs.remove(bindings[draw(seed, bindings.len() as u64) as usize]);
            }
        }
        3 => {
            if let Some(i) = at(docs, "crd") {
                docs[i].1 = widgets("Cluster");
            }
        }
        _ => {}
    }
}

#[test]
fn namespaces_measured_once_give_what_measuring_each_gives() {
    let mut seed = 20;
    let mut shared = 0;
    for _ in 0..60 {
        let (old, new) = (render(&mut seed), render(&mut seed));
        let expected = changes_one_namespace_at_a_time(&old, &new);
        assert_eq!(changes(&old, &new), expected);
        assert_eq!(changes(&new, &new), Changes::default());
        shared += usize::from(expected.gained.iter().any(|c| c.namespace.is_some()));
    }
    assert!(shared > 30, "too few renders gain anything in a namespace: {shared}");
}

/// An upgrade changes little: most holders hold alike on both sides and
/// are told so without measuring (`Side::holds_alike`). What is told must
/// be what measuring every holder in every namespace gives.
#[test]
fn holders_told_alike_without_measuring_give_what_measuring_gives() {
    let mut seed = 34;
    let (mut changed, mut alike_bound) = (0, 0);
    for _ in 0..120 {
        let old_docs = render_docs(&mut seed);
        let mut new_docs = old_docs.clone();
        mutate(&mut new_docs, &mut seed);
        let (old, new) = (load_docs(&old_docs), load_docs(&new_docs));
        for (a, b) in [(&old, &new), (&new, &old)] {
            let expected = changes_one_namespace_at_a_time(a, b);
            assert_eq!(changes(a, b), expected, "old:\n{old_docs:#?}\nnew:\n{new_docs:#?}");
            changed += usize::from(expected != Changes::default());
        }
        let (old_side, new_side) = (Side::of(&old), Side::of(&new));
        let user = Holder::Subject { kind: SubjectKind::User, namespace: None, name: "u".into() };
        alike_bound += usize::from(old_side.by.contains_key(&user) && old_side.holds_alike(&new_side, &user, true));
    }
    assert!(changed > 60, "too few upgrades change anything: {changed}");
    assert!(alike_bound > 10, "too few upgrades leave the bound user alike: {alike_bound}");
}

#[test]
fn a_chain_of_upgrades_measured_once_gives_what_each_upgrade_gives_alone() {
    let mut seed = 7;
    for _ in 0..10 {
        let chain: Vec<Policy> = (0..4).map(|_| render(&mut seed)).collect();
        let policies: Vec<&Policy> = chain.iter().collect();
        let pairs = [(0, 1), (1, 2), (2, 3), (3, 0), (1, 1)];
        let alone = |&(old, new): &(usize, usize)| {
            let kept = left_behind(&chain[old], &chain[new], &mut Vec::new());
            changes(&chain[old], kept.as_ref().unwrap_or(&chain[new]))
        };
        assert_eq!(upgrades(&policies, &pairs), pairs.iter().map(alone).collect::<Vec<_>>());
    }
}

#[test]
fn rows_that_differ_only_in_names_are_one_row_and_an_unnamed_rule_stays_apart() {
    let merged = with_names_merged([
        rule(&["configmaps"], &["b"], &["get"]),
        rule(&["configmaps"], &[], &["get"]),
        rule(&["configmaps"], &["a", "b"], &["get"]),
        rule(&["configmaps"], &["c"], &["list"]),
    ]);
    assert_eq!(
        merged,
        [
            rule(&["configmaps"], &["a", "b"], &["get"]),
            rule(&["configmaps"], &[], &["get"]),
            rule(&["configmaps"], &["c"], &["list"])
        ]
    );
}
