//! The KRM runner: a `ResourceList` in (what kpt and kustomize send), the
//! same list out, with the kept items as their exact text, the generated
//! ones after them and the results last.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::output::{describe, errors_first, item_text, stderr_lines};
use super::Outcome;
use crate::config::{self, BundleObjects, Config};
use crate::findings::{krm_results, Code, Finding, ObjRef};
use crate::judge::views::{read_config, read_objects, view_finding, yaml_finding};
use crate::judge::{Extension, Verdict};
use crate::model::{InputObject, RunnerMarks};
use crate::outcome::Exit;
use crate::plan::{Generated, Plan};
use crate::yaml::{self, Chunk, Layout, ListText};

const LIST_VERSIONS: [&str; 2] = ["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"];

/// What to do when plain manifests reach the KRM function.
const PLAIN: &str = "olm-rbac without a command is a KRM function, which reads one ResourceList (what kpt and kustomize send); to render plain manifests, use olm-rbac render --config FILE - instead";

/// KRM function mode: a `ResourceList` in, a `ResourceList` out.
pub fn function(input: &str) -> Outcome {
    let normalized: String;
    let mut reserialised = false;
    let list = match yaml::split_list(input) {
        Ok(Some(list)) => list,
        Ok(None) => match yaml::normalize(input) {
            Ok(text) => {
                reserialised = true;
                normalized = text;
                match yaml::split_list(&normalized) {
                    Ok(Some(list)) => list,
                    Ok(None) => {
                        return fatal(Finding::error(
                            Code::ResourceListInvalid,
                            "the ResourceList could not be read in block style",
                        ))
                    }
                    Err(e) => return fatal(yaml_finding(&e, None)),
                }
            }
            Err(e) => return fatal(yaml_finding(&e, None)),
        },
        Err(e) if yaml::is_second_document(&e) => {
            return fatal(Finding::error(
                Code::ResourceListInvalid,
                format!("the input holds several YAML documents, not one ResourceList: {PLAIN}"),
            ));
        }
        // Manifests run together without `---` read as one mapping with repeated keys, say.
        Err(_) if !input.contains("ResourceList") => {
            return fatal(Finding::error(
                Code::ResourceListInvalid,
                format!("the input is not a ResourceList (it has no kind: ResourceList): {PLAIN}"),
            ));
        }
        Err(e) => return fatal(yaml_finding(&e, None)),
    };
    if let Some(refused) = not_a_resource_list(&list) {
        return fatal(refused);
    }

    let mut results = Vec::new();
    let runner = runner_marks(&list);
    let objects = read_objects(&list.items, |c, _| c.header.file_ref(runner), &mut results);
    let config = function_config(&list, &objects, &mut results);
    if let Some(c) = config.as_ref().filter(|c| runner.paths && c.bundle_objects == BundleObjects::Drop) {
        results.push(
            Finding::error(Code::ConfigInvalid,
                "kpt writes the function's output back over the package's files, so bundleObjects: Drop would delete the bundle's manifests from it; keep them (bundleObjects: Keep, the default) and leave them out of what you apply, or use `olm-rbac render`, whose output goes to stdout",
            )
            .on(&c.object_ref())
            .at("spec.bundleObjects"),
        );
    }
    let configs: Vec<Config> = config.into_iter().collect();
    let judgement = crate::judge::judge_objects(&configs, objects, results);
    let verdict = judgement.verdict(Extension::InInput).verdict;
    let mut plan = judgement.plan;
    if reserialised {
        plan.add_results(Vec::new(), vec![Finding::info(Code::Reserialised,
            "the ResourceList was not in block style (JSON, or items in flow style), so it was re-serialised as block YAML; comments in it are lost",
        )]);
    }
    // What the runner adds after the plan (the note on re-serialising) is
    // never an error: the verdict is the exit.
    let code = Exit::refused_if(verdict != Verdict::Pass);
    match write_list(&list, &mut plan, yaml::line_ending(input)) {
        Ok(stdout) => {
            // kpt shows the results and stderr both; other runners (kustomize) only stderr.
            let stderr = if shows_results(&list) { String::new() } else { stderr_lines(plan.results(), false) };
            Outcome { stdout, stderr, code }
        }
        Err(e) => fatal(Finding::error(Code::OutputFailed, format!("could not write the output: {e}"))),
    }
}

#[derive(Deserialize)]
struct ConfigMapEntry {
    #[serde(rename = "functionConfig")]
    function_config: ConfigMapView,
}

#[derive(Deserialize, Default)]
struct ConfigMapView {
    #[serde(default)]
    data: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
struct FunctionConfigHead {
    #[serde(rename = "functionConfig")]
    function_config: Option<Head>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Head {
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<HeadMeta>,
}

#[derive(Deserialize, Default)]
struct HeadMeta {
    #[serde(default)]
    annotations: Option<BTreeMap<String, String>>,
    name: Option<String>,
}

/// A top-level entry of the list, to be read as a document of its own.
fn entry_chunk<'a>(entry: &yaml::TopEntry<'a>) -> Chunk<'a> {
    Chunk {
        text: Cow::Borrowed(entry.text),
        layout: Layout::Document,
        line: entry.line,
        header: Default::default(),
        elide: Vec::new(),
        indirect: false,
        notes: Vec::new(),
    }
}

/// Which of the items' file annotations the runner wrote, as the marks it
/// left on the functionConfig show ([`RunnerMarks`]).
fn runner_marks(list: &ListText<'_>) -> RunnerMarks {
    let Some(entry) = list.entries.iter().find(|e| e.key == "functionConfig") else { return RunnerMarks::default() };
    let chunk = entry_chunk(entry);
    yaml::parse_item::<FunctionConfigHead>(&chunk)
        .ok()
        .and_then(|h| h.function_config?.metadata?.annotations)
        .map_or_else(RunnerMarks::default, |a| RunnerMarks::of_function_config(&a))
}

/// Reads `functionConfig`: it must be an RBACConfig.
fn function_config(list: &ListText<'_>, objects: &[InputObject], results: &mut Vec<Finding>) -> Option<Config> {
    let missing = || {
        Finding::error(
            Code::ConfigMissing,
            format!(
                "functionConfig is missing: the function needs an {} ({}) to know what to generate",
                config::KIND,
                config::API_VERSION
            ),
        )
        .at("functionConfig")
    };
    let Some(entry) = list.entries.iter().find(|e| e.key == "functionConfig") else {
        results.push(missing());
        return None;
    };
    let chunk = entry_chunk(entry);
    let head = match yaml::parse_item::<FunctionConfigHead>(&chunk) {
        Ok(h) => h.function_config,
        Err(e) => {
            results.push(view_finding(e, Code::ConfigInvalid, &ObjRef::default(), None, ""));
            return None;
        }
    };
    let Some(head) = head else {
        results.push(missing());
        return None;
    };
    let object = ObjRef {
        api_version: head.api_version.clone().unwrap_or_default(),
        kind: head.kind.clone().unwrap_or_default(),
        name: head.metadata.and_then(|m| m.name).unwrap_or_default(),
        namespace: None,
    };
    if head.kind.as_deref() == Some("ConfigMap") && head.api_version.as_deref() == Some("v1") {
        return config_map_config(&chunk, &object, objects, results);
    }
    if head.kind.as_deref() != Some(config::KIND) || head.api_version.as_deref() != Some(config::API_VERSION) {
        results.push(
            Finding::error(
                Code::ConfigInvalid,
                format!(
                    "functionConfig must be an {} ({}) or a ConfigMap, got {}",
                    config::KIND,
                    config::API_VERSION,
                    if object.kind == config::KIND {
                        format!("apiVersion {:?}", object.api_version)
                    } else {
                        describe(&object)
                    }
                ),
            )
            .on(&object)
            .at(if object.kind == config::KIND { "apiVersion" } else { "kind" }),
        );
        return None;
    }
    let header = crate::yaml::Header {
        api_version: Some(object.api_version),
        kind: Some(object.kind),
        name: Some(object.name),
        ..Default::default()
    };
    read_config(&Chunk { header, ..chunk }, None, "functionConfig.", results)
}

/// Reads a ConfigMap `functionConfig` (kpt's `key=value` settings).
fn config_map_config(
    chunk: &Chunk<'_>,
    object: &ObjRef,
    objects: &[InputObject],
    results: &mut Vec<Finding>,
) -> Option<Config> {
    match yaml::parse_item::<ConfigMapEntry>(chunk) {
        Ok(entry) => match Config::from_config_map(
            &object.name,
            &entry.function_config.data.unwrap_or_default(),
            crate::plan::bundle_package(objects),
        ) {
            Ok((config, note)) => {
                results.extend(note);
                Some(config)
            }
            Err(errors) => {
                results.extend(errors);
                None
            }
        },
        Err(e) => {
            results.push(view_finding(e, Code::ConfigInvalid, object, None, "functionConfig."));
            None
        }
    }
}

/// Does the runner that sent this list show the function's results itself?
/// kpt does, and marks the items it sends with its own annotation; kustomize
/// shows only stderr and marks them with `kustomize.config.k8s.io/id`.
fn shows_results(list: &ListText<'_>) -> bool {
    let has = |key: &str| list.items.iter().any(|i| i.header.annotations.contains_key(key));
    has("internal.config.kubernetes.io/seqindent") && !has("kustomize.config.k8s.io/id")
}

/// Writes the list back: every entry and kept item as its exact text, the
/// generated items after the kept ones, and the results last.
fn write_list(list: &ListText<'_>, plan: &mut Plan, eol: &str) -> Result<String, String> {
    let mut generated = String::new();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for g in plan.generated() {
        let i = index.entry(g.output_path.as_str()).or_insert(0);
        let text = yaml::to_yaml(&with_path(g, *i).object)?;
        *i += 1;
        yaml::as_seq_entry(&text, list.item_indent, &mut generated);
    }
    let generated = yaml::with_line_ending(&generated, eol);
    let push_line = |out: &mut String, text: &str| push_line(out, text, eol);
    // The kept items' texts borrow the input (a patched one is its own
    // copy), and go straight into the output: one copy of the items, not two.
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    for (i, item) in list.items.iter().enumerate() {
        if !plan.remove().contains(&i) {
            kept.push(item_text(item, plan, i, &mut notes)?);
        }
    }
    plan.add_results(Vec::new(), notes);
    let kept_len: usize = kept.iter().map(|t| t.len() + eol.len()).sum();
    let items_block = |out: &mut String, head: &str| {
        if kept.iter().all(|t| t.is_empty()) && generated.is_empty() {
            out.push_str("items: []");
            out.push_str(eol);
        } else {
            push_line(out, head);
            for text in &kept {
                push_line(out, text);
            }
            push_line(out, &generated);
        }
    };
    let mut out = String::with_capacity(list.preamble.len() + kept_len + generated.len() + 4096);
    out.push_str(list.preamble);
    let mut wrote_items = false;
    for entry in &list.entries {
        match entry.key.as_str() {
            "results" => {}
            "items" => {
                // With no items in the input, the entry may read `items: null`.
                let head = if list.items.is_empty() { "items:\n" } else { entry.text };
                items_block(&mut out, head);
                push_line(&mut out, list.items_tail);
                wrote_items = true;
            }
            _ => push_line(&mut out, entry.text),
        }
    }
    if !wrote_items {
        items_block(&mut out, "items:\n");
    }
    // Every finding is a result, those past the text's cap too: kpt's users
    // read the list, not stderr's text.
    let every: Vec<Finding> = plan.findings().cloned().collect();
    let results = yaml::with_line_ending(&results_yaml(&every)?, eol);
    push_line(&mut out, &results);
    Ok(out)
}

/// Tells kpt which file a generated object belongs in.
fn with_path(g: &Generated, index: usize) -> Generated {
    let mut g = g.clone();
    let annotations = g.object.metadata_mut().annotations.get_or_insert_with(BTreeMap::new);
    for prefix in ["config.kubernetes.io", "internal.config.kubernetes.io"] {
        annotations.insert(format!("{prefix}/path"), g.output_path.clone());
        annotations.insert(format!("{prefix}/index"), index.to_string());
    }
    g
}

/// Appends `text`, first ending the previous line if it was left open.
fn push_line(out: &mut String, text: &str, eol: &str) {
    if text.is_empty() {
        return;
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(text);
}

/// The `results:` entry of a ResourceList, or nothing when there are none.
fn results_yaml(findings: &[Finding]) -> Result<String, String> {
    if findings.is_empty() {
        return Ok(String::new());
    }
    let ordered: Vec<Finding> = errors_first(findings).into_iter().cloned().collect();
    Ok(format!("results:\n{}", yaml::to_yaml(&krm_results(&ordered))?))
}

/// A failure before any item could be read: an empty list carrying the error.
/// Why the read list is not a ResourceList olm-rbac takes, if it is not.
fn not_a_resource_list(list: &yaml::ListText<'_>) -> Option<Finding> {
    let (kind, api_version) = (list.kind.as_deref(), list.api_version.as_deref());
    if kind == Some("ResourceList") && LIST_VERSIONS.contains(&api_version.unwrap_or_default()) {
        return None;
    }
    // A Kubernetes object on its own is plain manifests, sent where a list was expected.
    let plain = if kind.is_some() && kind != Some("ResourceList") { format!("; {PLAIN}") } else { String::new() };
    let finding = Finding::error(
        Code::ResourceListInvalid,
        format!(
            "the input is not a ResourceList: expected apiVersion {} and kind ResourceList, got {} {}{plain}",
            LIST_VERSIONS.join(" or "),
            api_version.unwrap_or("(none)"),
            kind.unwrap_or("(none)")
        ),
    );
    Some(finding.at("kind"))
}

fn fatal(finding: Finding) -> Outcome {
    let results = results_yaml(std::slice::from_ref(&finding)).unwrap_or_default();
    Outcome {
        stdout: format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n{results}"),
        stderr: stderr_lines(std::slice::from_ref(&finding), false),
        code: crate::outcome::Exit::Refused,
    }
}
