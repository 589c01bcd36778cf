//! What ARCHITECTURE.md states about the code and the compiler does not check:
//! which modules may reach which, how long a function may grow, and that the
//! program never unwraps outside its tests. Each rule reads `src/` as text, so
//! it holds for code added tomorrow as for today's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::repo;

/// One source file of the crate: its module path (`plan::origin`; the crate
/// root is ``) and its code with comments, strings and test modules blanked.
struct Module {
    file: String,
    path: String,
    code: String,
}

/// The code with comments, string and char literals blanked to spaces (line
/// breaks kept), so that braces and words inside them count for nothing.
fn blank_literals(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(keep(b[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !b.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push('"');
            (i..j).for_each(|_| out.push(' '));
            j += 1;
            while j < b.len() && !(b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#'))) {
                out.push(keep(b[j]));
                j += 1;
            }
            out.push('"');
            (0..hashes).for_each(|_| out.push(' '));
            i = j + 1 + hashes;
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(keep(b[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\''
            && (b.get(i + 2) == Some(&'\'') || (next == Some('\\') && b[i + 1..].iter().take(12).any(|c| *c == '\'')))
        {
            // A char literal ('x', '\n', '\u{..}'), not a lifetime.
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '\'' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Where the block opened by the `{` at `open` closes.
fn matching_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The code with every `#[cfg(test)]` item blanked.
fn without_tests(code: &str) -> String {
    let mut bytes = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]").map(|i| i + from) {
        let item_end = match code[at..].find(['{', ';']).map(|i| i + at) {
            Some(i) if bytes[i] == b'{' => matching_brace(&bytes, i),
            Some(i) => i,
            None => code.len() - 1,
        };
        for b in &mut bytes[at..=item_end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        from = item_end + 1;
    }
    String::from_utf8(bytes).unwrap()
}

/// The files `#[cfg(test)] mod NAME;` names: test modules in files of their own.
fn test_module_files(code: &str, dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = rest[at + 12..].trim_start();
        if let Some(decl) = after.strip_prefix("mod ") {
            if let Some(name) = decl.split(';').next().filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_')) {
                out.push(dir.join(format!("{name}.rs")));
            }
        }
        rest = &rest[at + 12..];
    }
    out
}

fn modules() -> Vec<Module> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = repo("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    let mut test_files = BTreeSet::new();
    let mut out = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(&src).unwrap().with_extension("").display().to_string();
        let dir = f.with_extension("");
        let code = blank_literals(&text);
        test_files.extend(test_module_files(&code, if rel.ends_with("mod") { f.parent().unwrap() } else { &dir }));
        let path = match rel.as_str() {
            "lib" | "main" => String::new(),
            r => r.trim_end_matches("/mod").replace('/', "::"),
        };
        out.push(Module { file: format!("src/{}.rs", rel), path, code: without_tests(&code) });
    }
    // A test module's file, and the files of its own submodules beside it.
    let is_test = |file: &str| {
        let path = repo(file);
        test_files.iter().any(|t| path == *t || path.starts_with(t.with_extension("")))
    };
    out.retain(|m| !is_test(&m.file));
    out
}

/// The paths a use-tree names, from the text after `crate::`, each whole
/// (`access::cover::Shape`): [`imports`] resolves each to the deepest module
/// that exists, so importing from a child is not an import of its parent.
fn use_tree(text: &str, prefix: &str, out: &mut BTreeSet<String>) -> usize {
    let text_bytes = text.as_bytes();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < text_bytes.len() && (text_bytes[*i] as char).is_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if text_bytes.get(i) == Some(&b'{') {
        i += 1;
        loop {
            skip_ws(&mut i);
            if i >= text_bytes.len() || text_bytes[i] == b'}' {
                return i + 1;
            }
            i += use_tree(&text[i..], prefix, out);
            skip_ws(&mut i);
            if text_bytes.get(i) == Some(&b',') {
                i += 1;
            }
        }
    }
    let start = i;
    while i < text_bytes.len() && ((text_bytes[i] as char).is_alphanumeric() || text_bytes[i] == b'_') {
        i += 1;
    }
    let ident = &text[start..i];
    if ident.is_empty() {
        return i.max(1);
    }
    let path = if prefix.is_empty() { ident.to_string() } else { format!("{prefix}::{ident}") };
    if text[i..].starts_with("::") {
        i += 2;
        i += use_tree(&text[i..], &path, out);
    } else {
        out.insert(path);
    }
    i
}

/// Which modules each module refers to: `crate::` and `super::` paths and
/// `use` of its own submodules, resolved to the deepest module that exists.
fn imports(modules: &[Module]) -> BTreeMap<String, BTreeSet<String>> {
    let known: BTreeSet<&str> = modules.iter().map(|m| m.path.as_str()).collect();
    let resolve = |p: &str| -> Option<String> {
        let mut p = p.to_string();
        loop {
            if known.contains(p.as_str()) {
                return Some(p);
            }
            p = p.rsplit_once("::")?.0.to_string();
        }
    };
    let mut out = BTreeMap::new();
    for m in modules {
        let mut named = BTreeSet::new();
        let parent = m.path.rsplit_once("::").map_or("", |(p, _)| p);
        for (marker, base) in [("crate::", String::new()), ("super::", parent.to_string())] {
            let mut rest = m.code.as_str();
            while let Some(at) = rest.find(marker) {
                // `pub(in crate::plan)` names a visibility, not an import.
                if rest[..at].ends_with("(in ") {
                    rest = &rest[at + marker.len()..];
                    continue;
                }
                let mut found = BTreeSet::new();
                use_tree(&rest[at + marker.len()..], "", &mut found);
                named.extend(found.into_iter().map(|p| if base.is_empty() { p } else { format!("{base}::{p}") }));
                rest = &rest[at + marker.len()..];
            }
        }
        // `use child::...` of a module's own submodules.
        for line in m.code.lines() {
            let line = line.trim_start().trim_start_matches("pub(crate) ").trim_start_matches("pub ");
            if let Some(rest) = line.strip_prefix("use ") {
                let mut found = BTreeSet::new();
                use_tree(rest, "", &mut found);
                for p in found {
                    let child = if m.path.is_empty() { p } else { format!("{}::{p}", m.path) };
                    named.insert(child);
                }
            }
        }
        let edges: BTreeSet<String> =
            named.iter().filter_map(|p| resolve(p)).filter(|p| *p != m.path && !p.is_empty()).collect();
        out.insert(m.path.clone(), edges);
    }
    out
}

/// Every module `from` reaches through imports, with one chain to each.
fn reach(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeMap<String, Vec<String>> {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut queue = vec![(from.to_string(), vec![from.to_string()])];
    while let Some((m, chain)) = queue.pop() {
        for next in graph.get(&m).into_iter().flatten() {
            if !seen.contains_key(next) && next != from {
                let mut c = chain.clone();
                c.push(next.clone());
                seen.insert(next.clone(), c.clone());
                queue.push((next.clone(), c));
            }
        }
    }
    seen
}

fn in_room(path: &str, room: &str) -> bool {
    path == room || path.starts_with(&format!("{room}::"))
}

/// The planner and the RBAC kernel decide; they read no YAML and write no
/// output, directly or through another module.
#[test]
fn the_deciding_modules_reach_no_reader_or_writer() {
    let modules = modules();
    let graph = imports(&modules);
    let forbidden = ["yaml", "run", "input"];
    let deciders: Vec<&str> =
        modules.iter().map(|m| m.path.as_str()).filter(|p| in_room(p, "plan") || in_room(p, "access")).collect();
    assert!(deciders.len() > 10, "{deciders:?}");
    // One chain for each decider that reaches one, the shortest.
    let mut bad = Vec::new();
    for d in deciders {
        let chains = reach(&graph, d);
        let shortest = chains
            .iter()
            .filter(|(to, _)| forbidden.iter().any(|f| in_room(to, f)))
            .map(|(_, chain)| chain)
            .min_by_key(|chain| chain.len());
        bad.extend(shortest.map(|chain| chain.join(" → ")));
    }
    assert!(bad.is_empty(), "deciding modules that reach a reader or writer:\n{}", bad.join("\n"));
}

/// The leaves ARCHITECTURE.md names depend on nothing else in the crate, so
/// any room may use them; and which bundles a ClusterExtension admits
/// (`catalog::resolve`) is decided without reading or writing.
#[test]
fn the_leaves_reach_nothing_and_resolution_reads_nothing() {
    let modules = modules();
    let graph = imports(&modules);
    let mut bad = Vec::new();
    for leaf in ["input", "outcome", "kinds", "names", "reserved", "semver"] {
        for (to, chain) in reach(&graph, leaf) {
            if !in_room(&to, leaf) {
                bad.push(chain.join(" → "));
            }
        }
    }
    for (to, chain) in reach(&graph, "catalog::resolve") {
        if ["yaml", "run", "input", "catalog::read", "catalog::report"].iter().any(|f| in_room(&to, f)) {
            bad.push(chain.join(" → "));
        }
    }
    assert!(bad.is_empty(), "modules that reach beyond their room:\n{}", bad.join("\n"));
}

/// Import circles among modules that are not each other's ancestors (a
/// module and its parent always know each other): the strongly connected
/// groups of the import graph with that edge left out, each sorted.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let related = |a: &str, b: &str| in_room(a, b) || in_room(b, a);
    let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
    for from in graph.keys() {
        let mut group: Vec<String> = vec![from.clone()];
        for to in graph.keys().filter(|to| *to != from && !related(from, to)) {
            let there = reach_without(graph, from, &related).contains(to);
            let back = reach_without(graph, to, &related).contains(from);
            if there && back {
                group.push(to.clone());
            }
        }
        if group.len() > 1 {
            group.sort();
            found.insert(group);
        }
    }
    found.into_iter().collect()
}

/// The modules `from` reaches, leaving out edges between a module and its ancestors.
fn reach_without(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    related: &dyn Fn(&str, &str) -> bool,
) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut queue = vec![from.to_string()];
    while let Some(m) = queue.pop() {
        for next in graph.get(&m).into_iter().flatten() {
            if !related(&m, next) && seen.insert(next.clone()) {
                queue.push(next.clone());
            }
        }
    }
    seen
}

/// No two modules (other than a module and its ancestors) import each
/// other, directly or through others: dependencies point one way.
#[test]
fn no_import_circles() {
    let graph = imports(&modules());
    let found: Vec<String> = circles(&graph).iter().map(|c| c.join(" ↔ ")).collect();
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The check sees a circle when there is one.
#[test]
fn the_circle_check_sees_a_circle() {
    let edge = |from: &str, to: &[&str]| (from.to_string(), to.iter().map(|t| t.to_string()).collect());
    let graph: BTreeMap<String, BTreeSet<String>> = [
        edge("plan::a", &["plan::b"]),
        edge("plan::b", &["plan::c"]),
        edge("plan::c", &["plan::a"]),
        edge("plan", &[]),
    ]
    .into_iter()
    .collect();
    assert_eq!(circles(&graph), vec![vec!["plan::a".to_string(), "plan::b".into(), "plan::c".into()]]);
}

/// Functions longer than this read as several steps; these few are allowed
/// to, each for its reason.
const LONGEST_FUNCTION: usize = 80;
const LONG_FUNCTIONS: &[(&str, &str)] = &[
    // A table: one line per resource type Kubernetes serves.
    ("src/kinds.rs", "kubernetes"),
];

/// Where the item starting at `at` opens its body (`{`) or ends (`;`), past
/// brackets in its signature (`-> [u8; 4]`).
fn body_or_end(code: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in code.iter().enumerate().skip(at) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' | b';' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[test]
fn no_function_is_longer_than_eighty_lines() {
    let mut long = Vec::new();
    for m in modules() {
        let bytes = m.code.as_bytes();
        let mut from = 0;
        while let Some(at) = m.code[from..].find("fn ").map(|i| i + from) {
            from = at + 3;
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let name: String = m.code[at + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let Some(open) = body_or_end(bytes, at) else { continue };
            if bytes[open] == b';' {
                continue;
            }
            let close = matching_brace(bytes, open);
            let lines = m.code[at..close].lines().count();
            if lines > LONGEST_FUNCTION && !LONG_FUNCTIONS.iter().any(|(f, n)| *f == m.file && *n == name) {
                long.push(format!("{}: fn {name}: {lines} lines", m.file));
            }
        }
    }
    assert!(long.is_empty(), "functions over {LONGEST_FUNCTION} lines:\n{}", long.join("\n"));
}

/// A module a newcomer reads in one sitting.
const LONGEST_FILE: usize = 500;

#[test]
fn no_source_file_is_longer_than_five_hundred_lines_outside_its_tests() {
    let long: Vec<String> = modules()
        .iter()
        .map(|m| (m, m.code.trim_end().lines().count()))
        .filter(|(_, lines)| *lines > LONGEST_FILE)
        .map(|(m, lines)| format!("{}: {lines} lines", m.file))
        .collect();
    assert!(long.is_empty(), "source files over {LONGEST_FILE} lines, tests aside:\n{}", long.join("\n"));
}

#[test]
fn the_program_never_unwraps() {
    let mut found = Vec::new();
    for m in modules() {
        for (n, line) in m.code.lines().enumerate() {
            if line.contains(".unwrap()") || line.contains(".expect(") {
                found.push(format!("{}:{}: {}", m.file, n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "unwrap or expect outside tests:\n{}", found.join("\n"));
}

#[test]
fn the_source_reader_blanks_what_is_not_code() {
    let code = blank_literals("let a = \"{ // }\"; // } x\nlet c = '{'; let r = r#\"}\"#; fn f<'a>(x: &'a str) {}\n");
    assert!(!code.contains('}') || code.matches('}').count() == 1, "{code}");
    assert!(code.contains("fn f<'a>(x: &'a str) {}"));
    let mut found = BTreeSet::new();
    use_tree("{access::{cover, danger::Severity}, model::X, yaml}", "", &mut found);
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(found, ["access::cover", "access::danger::Severity", "model::X", "yaml"]);
    assert_eq!(without_tests("fn a() {}\n#[cfg(test)]\nmod t { fn b() { } }\nfn c() {}\n").matches("fn").count(), 2);
}

/// The rooms of the crate and what each may import, as ARCHITECTURE.md's
/// table has them, in the data's order: a room imports only rooms listed
/// before it here (and, where the table says so, one beside it).
const ROOMS: &[(&str, &[&str])] = &[
    ("input", &[]),
    ("outcome", &[]),
    ("kinds", &[]),
    ("image", &[]),
    ("model", &["kinds", "image"]),
    ("names", &[]),
    ("reserved", &[]),
    ("semver", &[]),
    ("gojson", &[]),
    ("schema", &[]),
    ("podsecurity", &[]),
    ("yaml", &["model"]),
    ("access", &["model", "kinds", "names", "reserved"]),
    ("findings", &["model", "access"]),
    ("sarif", &["findings"]),
    ("config", &["model", "names", "findings", "reserved", "schema", "semver", "podsecurity"]),
    ("admission", &["access"]),
    (
        "check",
        &["access", "admission", "input", "outcome", "yaml", "model", "names", "findings", "sarif", "kinds", "schema"],
    ),
    ("plan", &["config", "model", "kinds", "names", "findings", "reserved", "semver", "access", "podsecurity"]),
    ("judge", &["input", "yaml", "model", "config", "plan", "findings", "gojson"]),
    ("run", &["judge", "check", "input", "outcome", "yaml", "model", "config", "plan", "findings", "sarif"]),
    (
        "catalog",
        &[
            "judge", "check", "access", "input", "outcome", "semver", "yaml", "model", "gojson", "findings", "sarif",
            "names", "schema", "image",
        ],
    ),
    ("cli", &["run", "check", "access", "admission", "catalog", "config", "input", "outcome", "image"]),
];

/// Every module imports only the rooms its room may (`ROOMS`): the order
/// ARCHITECTURE.md draws is the order the code keeps.
#[test]
fn the_rooms_import_in_the_order_architecture_draws() {
    let modules = modules();
    let graph = imports(&modules);
    let room_of = |path: &str| path.split("::").next().unwrap_or_default().to_string();
    let mut bad = Vec::new();
    for (from, tos) in &graph {
        if from.is_empty() {
            continue;
        }
        let room = room_of(from);
        let Some((_, allowed)) = ROOMS.iter().find(|(r, _)| *r == room) else {
            bad.push(format!("{from}: its room {room:?} is not in ROOMS (nor in ARCHITECTURE.md's table)"));
            continue;
        };
        for to in tos {
            let target = room_of(to);
            if target != room && !allowed.contains(&target.as_str()) {
                bad.push(format!("{from} → {to}"));
            }
        }
    }
    assert!(bad.is_empty(), "imports against the rooms' order:\n{}", bad.join("\n"));
    // Every room listed imports only rooms listed before it.
    for (i, (room, allowed)) in ROOMS.iter().enumerate() {
        for a in *allowed {
            let at = ROOMS.iter().position(|(r, _)| r == a);
            assert!(at.is_some_and(|at| at < i), "{room} may import {a}, which is not listed before it");
        }
    }
}

/// Every name olm-rbac gives a generated object is given in `plan::names`:
/// the one place where the naming conventions and their collisions can be seen.
#[test]
fn every_generated_name_is_given_in_one_module() {
    let found: Vec<String> = modules()
        .iter()
        .filter(|m| m.path != "names" && m.path != "plan::names" && m.code.contains("bounded_name("))
        .map(|m| m.file.clone())
        .collect();
    assert!(found.is_empty(), "generated names written outside plan::names: {found:?}");
}

/// Module pairs that still import each other through a parent: a parent
/// that composes its children and children that use the parent's types.
/// Each is a place where a type should move to a module of its own (as the
/// planner's shared types moved to `plan::types`); the list may only shrink.
const PARENT_CIRCLES: &[&str] = &[
    // The kernel's facade: `access.rs` holds `Policy` and the resolver, and
    // its matchers (`allowed`, `matches`, `cover`) and the bootstrap roles
    // (`builtin`) use its types while it composes them.
    "access ↔ access::allowed",
    "access ↔ access::builtin",
    "access ↔ access::cover",
    "access ↔ access::cover::boxes",
    "access ↔ access::cover::shapes",
    "access ↔ access::matches",
    "access::cover ↔ access::cover::boxes",
    "access::cover ↔ access::cover::shapes",
    // The config's types and the bindings' reader.
    "config ↔ config::bindings",
    // One type's methods split over files: `impl Gate` and `impl Installing`.
    "plan::gate ↔ plan::gate::holdings",
    "plan::gate ↔ plan::gate::verdict",
    "plan::installer ↔ plan::installer::minimise",
    "plan::installer ↔ plan::installer::needs",
];

/// Like `no_import_circles`, but a module and its parent count too: a
/// parent that uses a child (beyond re-exporting it) while the child uses
/// the parent is a circle the other check cannot see.
#[test]
fn no_import_circles_through_a_parent() {
    let reexport = |l: &str| {
        let t = l.trim_start();
        ["pub use", "pub(crate) use", "pub(super) use"].iter().any(|p| t.starts_with(p))
    };
    let modules: Vec<Module> = modules()
        .into_iter()
        .map(|m| Module { code: m.code.lines().filter(|l| !reexport(l)).collect::<Vec<_>>().join("\n"), ..m })
        .collect();
    let graph = imports(&modules);
    let none = |_: &str, _: &str| false;
    let mut found = BTreeSet::new();
    for from in graph.keys() {
        let there = reach_without(&graph, from, &none);
        for to in graph.keys().filter(|t| *t > from && (in_room(t, from) || in_room(from, t))) {
            if there.contains(to) && reach_without(&graph, to, &none).contains(from) {
                found.insert(format!("{from} ↔ {to}"));
            }
        }
    }
    let allowed: BTreeSet<String> = PARENT_CIRCLES.iter().map(|s| s.to_string()).collect();
    let new: Vec<&String> = found.difference(&allowed).collect();
    let gone: Vec<&String> = allowed.difference(&found).collect();
    assert!(
        new.is_empty(),
        "import circles through a parent:\n{}",
        new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(gone.is_empty(), "PARENT_CIRCLES lists circles that are gone: {gone:?}");
}
