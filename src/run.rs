//! The two ways in and out: a KRM `ResourceList` (what kpt and kustomize
//! send), and plain multi-document YAML (standalone, Helm post-renderer).
//! Both read with [`crate::yaml`], decide with [`crate::plan`], and write the
//! untouched items back as the exact text they came in.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use crate::config::{self, Config, RbacConfigDoc};
use crate::model::{view_for, Body, InputObject, ViewKind};
use crate::plan::{plan, Generated, Plan};
use crate::report::{krm_results, FileRef, Finding, ObjRef, Severity};
use crate::yaml::{self, Chunk, Layout, ListText};

pub use crate::input::{Outcome, Source};

const LIST_VERSIONS: [&str; 2] = ["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"];

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
                    Ok(None) => return fatal(Finding::error("the ResourceList could not be read in block style")),
                    Err(e) => return fatal(yaml_finding(&e, None)),
                }
            }
            Err(e) => return fatal(yaml_finding(&e, None)),
        },
        Err(e) => return fatal(yaml_finding(&e, None)),
    };
    if list.kind.as_deref() != Some("ResourceList")
        || !LIST_VERSIONS.contains(&list.api_version.as_deref().unwrap_or_default())
    {
        return fatal(
            Finding::error(format!(
                "the input is not a ResourceList: expected apiVersion {} and kind ResourceList, got {} {}",
                LIST_VERSIONS.join(" or "),
                list.api_version.as_deref().unwrap_or("(none)"),
                list.kind.as_deref().unwrap_or("(none)")
            ))
            .at("kind"),
        );
    }

    let mut results = Vec::new();
    let objects = read_objects(&list.items, |c, _| c.header.file_ref(), &mut results);
    let config = function_config(&list, &objects, &mut results);
    let mut plan = match config {
        Some(config) if exit_code(&results) == 0 => {
            let mut plan = plan(&[config], &objects);
            results.append(&mut plan.results);
            plan.results = results;
            plan
        }
        _ => Plan { results, ..Plan::default() },
    };
    if reserialised {
        plan.results.push(Finding::info(
            "the ResourceList was not in block style (JSON, or items in flow style), so it was re-serialised as block YAML; comments in it are lost",
        ));
    }
    let code = exit_code(&plan.results);
    match write_list(&list, &mut plan, yaml::line_ending(input)) {
        Ok(stdout) => {
            // kpt shows the results and stderr both; other runners (kustomize) only stderr.
            let stderr = if shows_results(&list) { String::new() } else { stderr_lines(&plan.results) };
            Outcome { stdout, stderr, code }
        }
        Err(e) => fatal(Finding::error(format!("could not write the output: {e}"))),
    }
}

/// Standalone mode: manifests in, manifests out, results on stderr. The
/// configs come from `configs` and from among the inputs (and are not echoed).
pub fn render(inputs: &[Source], configs: &[Source]) -> Outcome {
    let mut results = Vec::new();
    let mut config_chunks: Vec<(Chunk<'_>, FileRef)> = Vec::new();
    let mut input_configs = 0..0;
    let mut kept: Vec<(Chunk<'_>, FileRef)> = Vec::new();
    for (sources, from_config) in [(configs, true), (inputs, false)] {
        if !from_config {
            input_configs = config_chunks.len()..config_chunks.len();
        }
        for source in sources {
            match yaml::split_documents(&source.text) {
                Ok(chunks) => {
                    for (i, chunk) in chunks.into_iter().enumerate() {
                        let file = FileRef { path: source.name.clone(), index: Some(i) };
                        if is_config(&chunk) {
                            config_chunks.push((chunk, file));
                        } else if from_config {
                            let r = chunk.header.object_ref();
                            // The kind is right and the apiVersion is not: show what is written.
                            let (field, found) = if r.kind == config::KIND {
                                ("apiVersion", format!("apiVersion {:?}", r.api_version))
                            } else {
                                ("kind", describe(&r))
                            };
                            results.push(
                                Finding::error(format!(
                                    "expected an {} ({}), found {found}",
                                    config::KIND,
                                    config::API_VERSION
                                ))
                                .on(&r)
                                .at(field)
                                .in_file(Some(&file)),
                            );
                        } else {
                            kept.push((chunk, file));
                        }
                    }
                }
                Err(e) => results.push(yaml_finding(&e, Some(&source.name))),
            }
        }
    }
    input_configs.end = config_chunks.len();
    let from_inputs: Vec<&(Chunk<'_>, FileRef)> = config_chunks[input_configs].iter().collect();
    check_config_sources(&from_inputs, &kept, !configs.is_empty(), &mut results);
    let chunks: Vec<Chunk<'_>> = kept.iter().map(|(c, _)| c.clone()).collect();
    let objects = read_objects(&chunks, |_, i| Some(kept[i].1.clone()), &mut results);
    let mut parsed = Vec::new();
    for (chunk, file) in &config_chunks {
        if let Some(c) = read_config(chunk, Some(file), "", &mut results) {
            parsed.push(c);
        }
    }
    if config_chunks.is_empty() && results.is_empty() {
        results.push(Finding::error(format!(
            "no {} found: pass one with --config FILE or include it among the inputs",
            config::KIND
        )));
    }
    let plan = if results.is_empty() { plan(&parsed, &objects) } else { Plan { results, ..Plan::default() } };
    let code = exit_code(&plan.results);
    if code != 0 {
        return Outcome { stdout: String::new(), stderr: stderr_lines(&plan.results), code };
    }
    let mut notes = Vec::new();
    let mut docs: Vec<Cow<'_, str>> = Vec::new();
    for (i, (chunk, _)) in kept.iter().enumerate() {
        if !plan.remove.contains(&i) {
            match item_text(chunk, &plan, i, &mut notes) {
                Ok(text) => docs.push(text),
                Err(e) => return fatal_render(e),
            }
        }
    }
    for g in &plan.generated {
        match yaml::to_yaml(&g.object) {
            Ok(text) => docs.push(Cow::Owned(text)),
            Err(e) => return fatal_render(format!("could not write {}: {e}", describe(&g.object.object_ref()))),
        }
    }
    let stderr = stderr_lines(&[plan.results, notes].concat());
    // Separators and generated documents follow the first input's line endings.
    let eol = yaml::line_ending(inputs.first().map_or("", |s| s.text.as_str()));
    let mut stdout = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            stdout.push_str("---");
            stdout.push_str(eol);
        }
        if i >= docs.len() - plan.generated.len() {
            stdout.push_str(&yaml::with_line_ending(doc, eol));
        } else {
            stdout.push_str(doc);
        }
        if !doc.ends_with('\n') {
            stdout.push_str(eol);
        }
    }
    Outcome { stdout, stderr, code }
}

/// The config comes from the admin, never from the bundle: with `--config`,
/// an RBACConfig among the inputs is an error; without it, so is one in a
/// bundle's own folder (beside its ClusterServiceVersion).
fn check_config_sources(
    from_inputs: &[&(Chunk<'_>, FileRef)],
    kept: &[(Chunk<'_>, FileRef)],
    config_given: bool,
    results: &mut Vec<Finding>,
) {
    let folder = |f: &FileRef| (f.path != "-").then(|| f.path.rsplit_once('/').map_or("", |(d, _)| d).to_string());
    let bundle_folders: Vec<String> = kept
        .iter()
        .filter(|(c, _)| c.header.kind.as_deref() == Some("ClusterServiceVersion"))
        .filter_map(|(_, f)| folder(f))
        .filter(|f| !f.is_empty())
        .collect();
    for (chunk, file) in from_inputs {
        let object = chunk.header.object_ref();
        let why = if config_given {
            "is among the inputs, but --config gives the configuration, and olm-rbac then never takes one from the inputs. Remove it from the inputs, or leave out --config"
        } else if folder(file)
            .is_some_and(|f| bundle_folders.iter().any(|b| f == *b || f.starts_with(&format!("{b}/"))))
        {
            "sits in the bundle's own folder, beside its ClusterServiceVersion, and olm-rbac takes its configuration only from you. Pass it with --config, or keep it outside the bundle's folder"
        } else {
            continue;
        };
        results.push(Finding::error(format!("{} {why}", describe(&object))).on(&object).in_file(Some(file)));
    }
}

fn is_config(chunk: &Chunk<'_>) -> bool {
    let h = &chunk.header;
    h.kind.as_deref() == Some(config::KIND)
        && h.api_version.as_deref().is_some_and(|v| v.split('/').next() == config::API_VERSION.split('/').next())
}

fn describe(r: &ObjRef) -> String {
    if r.kind.is_empty() {
        "an object without a kind".into()
    } else {
        r.to_string()
    }
}

/// Builds the core's input: headers for all, typed views for CRDs and CSVs.
fn read_objects<'a>(
    chunks: &[Chunk<'a>],
    file_of: impl Fn(&Chunk<'a>, usize) -> Option<FileRef>,
    results: &mut Vec<Finding>,
) -> Vec<InputObject> {
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let file = file_of(chunk, i);
            let body = match view_for(&chunk.header) {
                None => Ok(Body::Other),
                Some(ViewKind::Crd) => yaml::parse_item(chunk).map(Body::Crd),
                Some(ViewKind::Csv) => yaml::parse_item(chunk).map(Body::Csv),
                Some(ViewKind::Role) => yaml::parse_item(chunk).map(Body::Role),
                Some(ViewKind::Binding) => yaml::parse_item(chunk).map(Body::Binding),
            };
            let body = body.unwrap_or_else(|e| {
                results.push(view_finding(e, &chunk.header.object_ref(), file.as_ref(), ""));
                Body::Other
            });
            InputObject { header: chunk.header.clone(), body, file }
        })
        .collect()
}

fn view_finding(e: yaml::ViewError, object: &ObjRef, file: Option<&FileRef>, strip: &str) -> Finding {
    let mut message = e.message;
    if let Some(pos) = e.pos {
        message = format!("{message} (line {}, column {})", pos.line, pos.col);
    }
    let mut f = Finding::error(message).on(object).in_file(file);
    if let Some(path) = e.path {
        f = f.at(path.strip_prefix(strip).unwrap_or(&path).to_string());
    }
    f
}

fn read_config(chunk: &Chunk<'_>, file: Option<&FileRef>, strip: &str, results: &mut Vec<Finding>) -> Option<Config> {
    let object = chunk.header.object_ref();
    let doc: Result<RbacConfigDoc, _> = if strip.is_empty() {
        yaml::parse_item(chunk)
    } else {
        yaml::parse_item::<FunctionConfigEntry>(chunk).map(|e| e.function_config)
    };
    match doc {
        Ok(doc) => match Config::from_doc(doc) {
            Ok(config) => Some(config),
            Err(errors) => {
                results.extend(errors.into_iter().map(|f| f.in_file(file)));
                None
            }
        },
        Err(e) => {
            results.push(view_finding(e, &object, file, strip));
            None
        }
    }
}

#[derive(Deserialize)]
struct FunctionConfigEntry {
    #[serde(rename = "functionConfig")]
    function_config: RbacConfigDoc,
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
    name: Option<String>,
}

/// Reads `functionConfig`: it must be an RBACConfig.
fn function_config(list: &ListText<'_>, objects: &[InputObject], results: &mut Vec<Finding>) -> Option<Config> {
    let missing = || {
        Finding::error(format!(
            "functionConfig is missing: the function needs an {} ({}) to know what to generate",
            config::KIND,
            config::API_VERSION
        ))
        .at("functionConfig")
    };
    let Some(entry) = list.entries.iter().find(|e| e.key == "functionConfig") else {
        results.push(missing());
        return None;
    };
    let chunk = Chunk {
        text: Cow::Borrowed(entry.text),
        layout: Layout::Document,
        line: entry.line,
        header: Default::default(),
        elide: Vec::new(),
        indirect: false,
    };
    let head = match yaml::parse_item::<FunctionConfigHead>(&chunk) {
        Ok(h) => h.function_config,
        Err(e) => {
            results.push(view_finding(e, &ObjRef::default(), None, ""));
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
        return match yaml::parse_item::<ConfigMapEntry>(&chunk) {
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
                results.push(view_finding(e, &object, None, "functionConfig."));
                None
            }
        };
    }
    if head.kind.as_deref() != Some(config::KIND) || head.api_version.as_deref() != Some(config::API_VERSION) {
        results.push(
            Finding::error(format!(
                "functionConfig must be an {} ({}) or a ConfigMap, got {}",
                config::KIND,
                config::API_VERSION,
                if object.kind == config::KIND {
                    format!("apiVersion {:?}", object.api_version)
                } else {
                    describe(&object)
                }
            ))
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
    for g in &plan.generated {
        let i = index.entry(g.output_path.as_str()).or_insert(0);
        let text = yaml::to_yaml(&with_path(g, *i).object)?;
        *i += 1;
        yaml::as_seq_entry(&text, list.item_indent, &mut generated);
    }
    let generated = yaml::with_line_ending(&generated, eol);
    let push_line = |out: &mut String, text: &str| push_line(out, text, eol);
    let mut kept = String::new();
    let mut notes = Vec::new();
    for (i, item) in list.items.iter().enumerate() {
        if !plan.remove.contains(&i) {
            push_line(&mut kept, &item_text(item, plan, i, &mut notes)?);
        }
    }
    plan.results.extend(notes);
    let items_block = |out: &mut String, head: &str| {
        if kept.is_empty() && generated.is_empty() {
            out.push_str("items: []");
            out.push_str(eol);
        } else {
            push_line(out, head);
            push_line(out, &kept);
            push_line(out, &generated);
        }
    };
    let mut out = String::with_capacity(list.preamble.len() + kept.len() + generated.len() + 4096);
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
    let results = yaml::with_line_ending(&results_yaml(&plan.results)?, eol);
    push_line(&mut out, &results);
    Ok(out)
}

/// An item's text as it goes out: unchanged unless the plan patches it. An
/// item that had to be re-serialised whole is named in a warning.
fn item_text<'a>(
    item: &'a Chunk<'_>,
    plan: &Plan,
    index: usize,
    notes: &mut Vec<Finding>,
) -> Result<Cow<'a, str>, String> {
    let Some(patch) = plan.patches.get(&index) else { return Ok(Cow::Borrowed(&item.text)) };
    let object = item.header.object_ref();
    let patched =
        yaml::patched_text(item, patch).map_err(|e| format!("could not update {}: {e}", describe(&object)))?;
    if patched.rewritten {
        notes.push(
            Finding::warning(
                "its labels changed, and its metadata is not laid out so that olm-rbac can edit lines (flow style, anchors, aliases or tags), so the whole item was re-serialised: its comments and layout are gone, its values are the same",
            )
            .on(&object),
        );
    }
    Ok(Cow::Owned(patched.text))
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

fn exit_code(results: &[Finding]) -> i32 {
    i32::from(results.iter().any(|r| r.severity == Severity::Error))
}

fn stderr_lines(results: &[Finding]) -> String {
    results.iter().map(|r| format!("{r}\n")).collect()
}

fn yaml_finding(e: &yaml::YamlError, file: Option<&str>) -> Finding {
    let f = Finding::error(format!("{} (line {}, column {})", e.message, e.pos.line, e.pos.col));
    match file {
        Some(path) => f.in_file(Some(&FileRef { path: path.to_string(), index: None })),
        None => f,
    }
}

/// The `results:` entry of a ResourceList, or nothing when there are none.
fn results_yaml(findings: &[Finding]) -> Result<String, String> {
    if findings.is_empty() {
        return Ok(String::new());
    }
    Ok(format!("results:\n{}", yaml::to_yaml(&krm_results(findings))?))
}

/// A failure before any item could be read: an empty list carrying the error.
fn fatal(finding: Finding) -> Outcome {
    let results = results_yaml(std::slice::from_ref(&finding)).unwrap_or_default();
    Outcome {
        stdout: format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n{results}"),
        stderr: format!("{finding}\n"),
        code: 1,
    }
}

fn fatal_render(message: String) -> Outcome {
    Outcome { stdout: String::new(), stderr: format!("{}\n", Finding::error(message)), code: 1 }
}
