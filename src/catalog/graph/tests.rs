use super::*;

fn link(name: &str, replaces: Option<&str>, skips: &[&str], range: Option<&str>) -> Link {
    Link {
        name: name.into(),
        replaces: replaces.map(String::from),
        skips: skips.iter().map(|s| s.to_string()).collect(),
        skip_range: range.map(String::from),
    }
}

fn package(channels: Vec<Channel>) -> Package {
    let mut bundles = BTreeMap::new();
    for l in channels.iter().flat_map(|c| &c.links) {
        let version = l.name.strip_prefix("p.v").and_then(crate::semver::blang::parse_strict);
        bundles.insert(l.name.clone(), version);
    }
    let default_channel = channels.first().map(|c| c.name.clone());
    Package { name: "p".into(), default_channel, channels, bundles }
}

/// A `replaces` chain 1.0.0 → … → 1.(n-1).0.
fn chain(n: usize) -> Channel {
    let links = (0..n)
        .map(|i| {
            let previous = (i > 0).then(|| format!("p.v1.{}.0", i - 1));
            link(&format!("p.v1.{i}.0"), previous.as_deref(), &[], None)
        })
        .collect();
    Channel { name: "stable".into(), links }
}

#[test]
fn opm_refuses_what_it_refuses() {
    let ok = chain(3);
    assert_eq!(opm_refuses(&ok), None);
    let two_heads = Channel { name: "c".into(), links: vec![link("a", None, &[], None), link("b", None, &[], None)] };
    assert_eq!(opm_refuses(&two_heads).as_deref(), Some("multiple channel heads found in graph: a, b"));
    let cycle = Channel {
        name: "c".into(),
        links: vec![link("h", Some("a"), &[], None), link("a", Some("b"), &[], None), link("b", Some("a"), &[], None)],
    };
    assert_eq!(
        opm_refuses(&cycle).as_deref(),
        Some("detected cycle in replaces chain of upgrade graph: h -> a -> b -> a")
    );
    let no_head =
        Channel { name: "c".into(), links: vec![link("a", Some("b"), &[], None), link("b", Some("a"), &[], None)] };
    assert_eq!(opm_refuses(&no_head).as_deref(), Some("no channel head found in graph"));
    let stranded = Channel {
        name: "c".into(),
        links: vec![link("h", None, &["x"], None), link("x", Some("s"), &[], None), link("s", None, &[], None)],
    };
    assert_eq!(opm_refuses(&stranded).as_deref(), Some("channel contains one or more stranded bundles: s"));
    let bad_range = Channel { name: "c".into(), links: vec![link("a", None, &[], Some("~1.0.0"))] };
    assert_eq!(opm_refuses(&bad_range).as_deref(), Some("bundle \"a\": invalid skipRange \"~1.0.0\""));
}

#[test]
fn a_failing_middle_version_is_bridged_by_its_replaces() {
    let p = package(vec![chain(4)]);
    let kept: BTreeSet<&str> = ["p.v1.0.0", "p.v1.1.0", "p.v1.3.0"].into();
    let out = filter(&p, &kept).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<(&str, Option<&str>)> =
        out.channels[0].links.iter().map(|l| (l.name.as_str(), l.replaces.as_deref())).collect();
    assert_eq!(names, [("p.v1.0.0", None), ("p.v1.1.0", Some("p.v1.0.0")), ("p.v1.3.0", Some("p.v1.1.0"))]);
    assert_eq!(out.rewired.len(), 1);
    assert_eq!(out.rewired[0].dropped, ["p.v1.2.0"]);
}

#[test]
fn an_emptied_default_channel_is_an_error_and_an_emptied_package_is_dropped() {
    let fast = Channel { name: "fast".into(), links: vec![link("p.v2.0.0", None, &[], None)] };
    let p = package(vec![chain(2), fast]);
    let err = filter(&p, &["p.v2.0.0"].into()).err().unwrap_or_default();
    assert!(err.starts_with("package \"p\": its default channel \"stable\" keeps no bundle that passes"), "{err}");
    let none = filter(&p, &BTreeSet::new()).unwrap_or_else(|e| panic!("{e}"));
    assert!(none.channels.is_empty());
    assert_eq!(none.dropped, ["stable", "fast"]);
}

#[test]
fn heads_left_by_a_removed_head_are_an_error_not_a_guess() {
    // h replaces b and skips s; with h removed, b and s are both heads.
    let c = Channel {
        name: "stable".into(),
        links: vec![
            link("a", None, &[], None),
            link("b", Some("a"), &[], None),
            link("s", None, &[], None),
            link("h", Some("b"), &["s"], None),
        ],
    };
    let err = filter(&package(vec![c]), &["a", "b", "s"].into()).err().unwrap_or_default();
    assert!(err.contains("multiple channel heads found in graph: b, s"), "{err}");
}

/// A small deterministic generator, so that the property below needs no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

/// A random package: up to two channels over up to seven bundles, each
/// entry replacing a lower one, skipping others, or a skipRange over them.
fn random_package(rng: &mut Rng) -> Package {
    let n = 2 + rng.next(6);
    let names: Vec<String> = (0..n).map(|i| format!("p.v1.{i}.0")).collect();
    let mut channels = Vec::new();
    for c in 0..1 + rng.next(2) {
        let mut links = Vec::new();
        for i in 0..n {
            if c > 0 && rng.next(2) == 0 {
                continue;
            }
            let lower = |rng: &mut Rng| (i > 0).then(|| names[rng.next(i)].clone());
            let replaces = if rng.next(3) > 0 { lower(rng) } else { None };
            let skips: Vec<String> = (0..rng.next(3)).filter_map(|_| lower(rng)).collect();
            let skip_range = (i > 1 && rng.next(4) == 0).then(|| format!(">=1.{}.0 <1.{i}.0", rng.next(i)));
            links.push(Link { name: names[i].clone(), replaces, skips, skip_range });
        }
        channels.push(Channel { name: format!("c{c}"), links });
    }
    let bundles =
        names.iter().map(|n| (n.clone(), n.strip_prefix("p.v").and_then(crate::semver::blang::parse_strict))).collect();
    Package { name: "p".into(), default_channel: None, channels, bundles }
}

/// Which kept bundles each kept bundle upgrades to, in any number of steps.
fn closure(p: &Package, kept: &BTreeSet<&str>) -> BTreeSet<(String, String)> {
    let edges = edges(p);
    let mut out = BTreeSet::new();
    for start in kept {
        let mut seen = BTreeSet::new();
        let mut queue: VecDeque<&str> = VecDeque::from([*start]);
        while let Some(at) = queue.pop_front() {
            for (_, next) in edges.get(at).into_iter().flatten() {
                if seen.insert(*next) {
                    queue.push_back(next);
                    if kept.contains(next) && next != start {
                        out.insert((start.to_string(), next.to_string()));
                    }
                }
            }
        }
    }
    out
}

/// Over thousands of random graphs and kept sets: whenever the filter
/// writes a package, the upgrades between kept bundles (in any number of
/// steps) are the input's, no entry or edge names a removed bundle, and
/// opm accepts every channel; when it refuses, it says why.
#[test]
fn upgrades_between_kept_bundles_are_the_inputs_and_none_reach_a_removed_one() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut written, mut refused) = (0, 0);
    for _ in 0..4000 {
        let p = random_package(&mut rng);
        if p.channels.iter().any(|c| opm_refuses(c).is_some()) {
            continue;
        }
        let kept: BTreeSet<&str> = p.bundles.keys().filter(|_| rng.next(3) > 0).map(String::as_str).collect();
        let out = match filter(&p, &kept) {
            Ok(out) => out,
            Err(why) => {
                assert!(why.contains("opm would refuse it"), "{why}");
                refused += 1;
                continue;
            }
        };
        let after = Package { channels: out.channels.clone(), ..p.clone() };
        for c in &after.channels {
            assert_eq!(opm_refuses(c), None, "{c:?}");
            for l in &c.links {
                for n in std::iter::once(&l.name).chain(&l.replaces).chain(&l.skips) {
                    assert!(kept.contains(n.as_str()), "{n} is not kept: {c:?}");
                }
            }
        }
        let mut kept_after = kept.clone();
        kept_after.retain(|k| after.channels.iter().any(|c| c.links.iter().any(|l| l.name == *k)));
        assert_eq!(kept_after, kept, "every kept bundle stays in a channel");
        assert_eq!(closure(&after, &kept), closure(&p, &kept), "{p:?}\nkept {kept:?}\n{out:?}");
        written += 1;
    }
    assert!(written > 1000 && refused > 10, "{written} written, {refused} refused");
}

/// The shape real catalogs commonly take, every entry a `skipRange` over
/// all earlier versions (and a `replaces` of the one before), with every
/// other bundle removed: the upgrades between kept bundles stay the input's.
/// (Its cost, once quadratic in the kept bundles times the edges, is in the
/// bench's figures, not here.)
#[test]
fn a_dense_skip_range_graph_keeps_its_upgrades() {
    let n = 200;
    let names: Vec<String> = (0..n).map(|i| format!("p.v1.{i}.0")).collect();
    let links = (0..n)
        .map(|i| Link {
            name: names[i].clone(),
            replaces: (i > 0).then(|| names[i - 1].clone()),
            skips: Vec::new(),
            skip_range: Some(format!(">=1.0.0 <1.{i}.0")),
        })
        .collect();
    let bundles =
        names.iter().map(|n| (n.clone(), n.strip_prefix("p.v").and_then(crate::semver::blang::parse_strict))).collect();
    let channels = vec![Channel { name: "c".into(), links }];
    let p = Package { name: "p".into(), default_channel: Some("c".into()), channels, bundles };
    let kept: BTreeSet<&str> = names.iter().step_by(2).map(String::as_str).collect();
    let out = filter(&p, &kept).unwrap_or_else(|e| panic!("{e}"));
    let after = Package { channels: out.channels.clone(), ..p.clone() };
    assert_eq!(closure(&after, &kept), closure(&p, &kept));
    assert_eq!(opm_refuses(&after.channels[0]), None);
}
