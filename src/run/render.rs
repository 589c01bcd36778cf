//! The render runner: plain multi-document YAML in (standalone, Helm
//! post-renderer), the documents out with the generated ones appended, the
//! results on stderr.

use std::borrow::Cow;

use super::output::{describe, exit_code, item_text, stderr_lines};
use super::views::{read_config, read_objects, yaml_finding};
use super::{Outcome, Source};
use crate::config;
use crate::plan::origin::{folder_of, BundleFolders};
use crate::plan::{plan, Plan};
use crate::report::{FileRef, Finding};
use crate::yaml::{self, Chunk};

/// Standalone mode: manifests in, manifests out, results on stderr. The
/// configs come from `configs` and from among the inputs (and are not echoed).
pub fn render(inputs: &[Source], configs: &[Source]) -> Outcome {
    let mut results = Vec::new();
    let split = Split::read(inputs, configs, &mut results);
    check_config_sources(&split.configs[split.from_inputs..], &split.kept, !configs.is_empty(), &mut results);
    let chunks: Vec<Chunk<'_>> = split.kept.iter().map(|(c, _)| c.clone()).collect();
    let objects = read_objects(&chunks, |_, i| Some(split.kept[i].1.clone()), &mut results);
    let mut parsed = Vec::new();
    for (chunk, file) in &split.configs {
        if let Some(c) = read_config(chunk, Some(file), "", &mut results) {
            parsed.push(c);
        }
    }
    if split.configs.is_empty() && results.is_empty() {
        results.push(Finding::error(format!(
            "no {} found: pass one with --config FILE or include it among the inputs",
            config::KIND
        )));
    }
    let plan = if results.is_empty() { plan(&parsed, &objects) } else { Plan::refused(results) };
    let code = exit_code(plan.results());
    if code != 0 {
        return Outcome { stdout: String::new(), stderr: stderr_lines(plan.results()), code };
    }
    write_documents(inputs, &split.kept, plan)
}

/// The documents of the inputs and the config files, each with the file it
/// came from: the configs, then the rest.
struct Split<'a> {
    configs: Vec<(Chunk<'a>, FileRef)>,
    /// Where the configs found among the inputs (not in `--config`) start.
    from_inputs: usize,
    kept: Vec<(Chunk<'a>, FileRef)>,
}

impl<'a> Split<'a> {
    /// Cuts every source into documents; a document in a config file that is
    /// not an RBACConfig is an error.
    fn read(inputs: &'a [Source], configs: &'a [Source], results: &mut Vec<Finding>) -> Split<'a> {
        let mut split = Split { configs: Vec::new(), from_inputs: 0, kept: Vec::new() };
        for (sources, from_config) in [(configs, true), (inputs, false)] {
            if !from_config {
                split.from_inputs = split.configs.len();
            }
            for source in sources {
                match yaml::split_documents(&source.text) {
                    Ok(chunks) => {
                        for (i, chunk) in chunks.into_iter().enumerate() {
                            let file = FileRef { path: source.name.clone(), index: Some(i) };
                            if is_config(&chunk) {
                                split.configs.push((chunk, file));
                            } else if from_config {
                                results.push(not_a_config(&chunk, &file));
                            } else {
                                split.kept.push((chunk, file));
                            }
                        }
                    }
                    Err(e) => results.push(yaml_finding(&e, Some(&source.name))),
                }
            }
        }
        split
    }
}

/// A document in a config file that is not an RBACConfig.
fn not_a_config(chunk: &Chunk<'_>, file: &FileRef) -> Finding {
    let r = chunk.header.object_ref();
    // The kind is right and the apiVersion is not: show what is written.
    let (field, found) = if r.kind == config::KIND {
        ("apiVersion", format!("apiVersion {:?}", r.api_version))
    } else {
        ("kind", describe(&r))
    };
    Finding::error(format!("expected an {} ({}), found {found}", config::KIND, config::API_VERSION))
        .on(&r)
        .at(field)
        .in_file(Some(file))
}

/// The output: the kept documents (patched where the plan says) and the
/// generated ones, separated by `---`, in the first input's line endings.
fn write_documents(inputs: &[Source], kept: &[(Chunk<'_>, FileRef)], plan: Plan) -> Outcome {
    let mut notes = Vec::new();
    let mut docs: Vec<Cow<'_, str>> = Vec::new();
    for (i, (chunk, _)) in kept.iter().enumerate() {
        if !plan.remove().contains(&i) {
            match item_text(chunk, &plan, i, &mut notes) {
                Ok(text) => docs.push(text),
                Err(e) => return fatal_render(e),
            }
        }
    }
    for g in plan.generated() {
        match yaml::to_yaml(&g.object) {
            Ok(text) => docs.push(Cow::Owned(text)),
            Err(e) => return fatal_render(format!("could not write {}: {e}", describe(&g.object.object_ref()))),
        }
    }
    let generated = plan.generated().len();
    let code = exit_code(plan.results());
    let stderr = stderr_lines(&[plan.into_results(), notes].concat());
    // Separators and generated documents follow the first input's line endings.
    let eol = yaml::line_ending(inputs.first().map_or("", |s| s.text.as_str()));
    let mut stdout = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            stdout.push_str("---");
            stdout.push_str(eol);
        }
        if i >= docs.len() - generated {
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
    from_inputs: &[(Chunk<'_>, FileRef)],
    kept: &[(Chunk<'_>, FileRef)],
    config_given: bool,
    results: &mut Vec<Finding>,
) {
    let folder = |f: &FileRef| (f.path != "-").then(|| folder_of(&f.path).to_string());
    let bundles = BundleFolders::of_csvs(
        kept.iter()
            .filter(|(c, _)| c.header.kind.as_deref() == Some("ClusterServiceVersion"))
            .filter_map(|(_, f)| folder(f)),
    );
    for (chunk, file) in from_inputs {
        let object = chunk.header.object_ref();
        let why = if config_given {
            "is among the inputs, but --config gives the configuration, and olm-rbac then never takes one from the inputs. Remove it from the inputs, or leave out --config"
        } else if folder(file).is_some_and(|f| bundles.may_be_bundle(&f)) {
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
        && h.group().is_some_and(|g| Some(g) == crate::model::group_of(config::API_VERSION))
}

fn fatal_render(message: String) -> Outcome {
    Outcome { stdout: String::new(), stderr: format!("{}\n", Finding::error(message)), code: 1 }
}
