//! The render runner: plain multi-document YAML in (standalone, Helm
//! post-renderer), the documents out with the generated ones appended, the
//! results on stderr.

use std::borrow::Cow;

use super::output::{describe, exit_code, item_text, stderr_lines};
use super::views::{read_config, read_objects, yaml_finding};
use super::{json, Outcome, Source};
use crate::config;
use crate::findings::{FileRef, Finding};
use crate::input::BundleRoot;
use crate::plan::origin::{folder_of, BundleFolders};
use crate::plan::{plan_in, set_aside, BundleRoots, Plan, SetAside};
use crate::yaml::{self, Chunk};

/// How `render` writes what it decided: the command line's choices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// `-o`: the documents as YAML, byte for byte, or one JSON `List`.
    pub output: OutputFormat,
    /// `-q`: only errors on stderr.
    pub quiet: bool,
    /// The folders read as a bundle's layout (see [`BundleRoot`]), each said
    /// in an info result.
    pub bundle_roots: Vec<BundleRoot>,
    /// `--sarif FILE`: the errors and warnings also as a SARIF 2.1.0 log, for
    /// code scanning, written whether or not the render succeeds.
    pub sarif: Option<std::path::PathBuf>,
}

/// `render -o`, named on the command line as it is here (`yaml`, `json`).
/// `Yaml`: the documents, separated by `---`, the input's exactly as they
/// came (or edited by whole lines), the generated ones appended. `Json`: a
/// `v1` `List` of the same objects, as `kubectl get -o json` prints several:
/// the values as read, indented by four spaces.
// The variants carry no doc comments: clap would show them as help of their own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    #[default]
    Yaml,
    Json,
}

/// Standalone mode: manifests in, manifests out, results on stderr. The
/// configs come from `configs` and from among the inputs (and are not echoed).
pub fn render(inputs: &[Source], configs: &[Source]) -> Outcome {
    render_with(inputs, configs, &RenderOptions::default())
}

/// [`render`], written as `options` say.
pub fn render_with(inputs: &[Source], configs: &[Source], options: &RenderOptions) -> Outcome {
    let mut results = Vec::new();
    let mut split = Split::read(inputs, configs, &mut results);
    check_config_sources(&split.configs[split.from_inputs..], &split.kept, !configs.is_empty(), &mut results);
    let mut parsed = Vec::new();
    for (chunk, file) in &split.configs {
        if let Some(c) = read_config(chunk, Some(file), "", &mut results) {
            parsed.push(c);
        }
    }
    let chunks: Vec<Chunk<'_>> = split.kept.iter().map(|(c, _)| c.clone()).collect();
    let mut objects = read_objects(&chunks, |_, i| Some(split.kept[i].1.clone()), &mut results);
    let previous = set_previous_aside(&mut parsed, &mut objects, &mut split.kept, &mut results);
    if split.configs.is_empty() && exit_code(&results) == 0 {
        results.push(Finding::error(format!(
            "no {} found: pass one with --config FILE or include it among the inputs",
            config::KIND
        )));
    }
    let packages = BundleRoots {
        roots: options.bundle_roots.iter().map(|r| r.path.trim_end_matches('/').to_string()).collect(),
        packages: options
            .bundle_roots
            .iter()
            .filter_map(|r| match package_of(&r.annotations()?) {
                Ok(package) => Some((r.manifests(), package?)),
                Err(why) => {
                    results.push(Finding::error(format!("{}/metadata/annotations.yaml: {why}", r.path)));
                    None
                }
            })
            .collect(),
    };
    // Warnings read before planning (a merge noted in a CRD's schema) go with
    // the plan's results; only an error stops the planning.
    let mut plan = if exit_code(&results) == 0 {
        let mut plan = plan_in(&parsed, &objects, &packages);
        plan.add_results(results, Vec::new());
        plan
    } else {
        Plan::refused(results)
    };
    plan.add_results(options.bundle_roots.iter().map(layout_note).chain(previous).collect(), Vec::new());
    if let Some(path) = &options.sarif {
        let lines = split.configs.iter().chain(&split.kept).map(|(c, f)| ((f.path.clone(), f.index), c.line));
        let log = sarif_log(plan.results(), &lines.collect());
        if let Err(e) = std::fs::write(path, log) {
            return Outcome::failure(&format!("--sarif {}: {e}", path.display()), 1);
        }
    }
    let code = exit_code(plan.results());
    if code != 0 {
        return Outcome { stdout: String::new(), stderr: stderr_lines(plan.results(), options.quiet), code };
    }
    write_output(inputs, &split.kept, plan, options)
}

/// render's errors and warnings as a SARIF log, each at the line its
/// document starts on (`lines`, by file and document).
fn sarif_log(results: &[Finding], lines: &std::collections::BTreeMap<(String, Option<usize>), usize>) -> String {
    use crate::findings::Severity;
    use crate::sarif::{self, Level};
    let results: Vec<sarif::Result> = results
        .iter()
        .filter_map(|f| {
            let (level, rule) = match f.severity {
                Severity::Error => (Level::Error, sarif::RENDER_ERROR),
                Severity::Warning => (Level::Warning, sarif::RENDER_WARNING),
                Severity::Info => return None,
            };
            let file = f.file.as_ref().filter(|file| file.path != "-");
            Some(sarif::Result {
                rule: f.rule.unwrap_or(rule),
                level,
                message: f.said(),
                uri: file.map(|file| file.path.clone()),
                line: file.and_then(|file| lines.get(&(file.path.clone(), file.index)).copied()),
            })
        })
        .collect();
    sarif::log(env!("CARGO_PKG_VERSION"), &results)
}

/// `spec.installer.upgradeFrom`, as the planner decides it ([`set_aside`]):
/// the previous version's objects go to the config's installer, out of what
/// is planned and written. Errors join `results`; the notes are returned.
fn set_previous_aside(
    configs: &mut [config::Config],
    objects: &mut Vec<crate::model::InputObject>,
    kept: &mut Vec<(Chunk<'_>, FileRef)>,
    results: &mut Vec<Finding>,
) -> Vec<Finding> {
    let SetAside { indices, previous, results: found } = set_aside(configs, objects);
    let (notes, errors): (Vec<Finding>, Vec<Finding>) =
        found.into_iter().partition(|f| f.severity == crate::findings::Severity::Info);
    results.extend(errors);
    for (c, taken) in previous {
        if let Some(installer) = configs.get_mut(c).and_then(|c| c.installer.as_mut()) {
            installer.set_previous(taken.iter().map(|&i| objects[i].clone()).collect());
        }
    }
    *kept = without(std::mem::take(kept), &indices);
    *objects = without(std::mem::take(objects), &indices);
    notes
}

/// `items` without those at `indices`.
fn without<T>(items: Vec<T>, indices: &std::collections::BTreeSet<usize>) -> Vec<T> {
    items.into_iter().enumerate().filter(|(i, _)| !indices.contains(i)).map(|(_, item)| item).collect()
}

/// The package a bundle's `metadata/annotations.yaml` names (`None` when it
/// names none as a string), read as operator-controller reads the file; why
/// not, when it cannot be read so (OLM then refuses the bundle).
fn package_of(annotations: &str) -> Result<Option<String>, String> {
    #[derive(serde::Deserialize)]
    struct File {
        #[serde(default)]
        annotations: std::collections::BTreeMap<String, serde_json::Value>,
    }
    let refused = |line: usize, col: usize, why: &str| {
        format!("line {line}, column {col}: {why}; OLM cannot read the file, so it refuses the bundle")
    };
    let chunks = yaml::split_documents(annotations).map_err(|e| refused(e.pos.line, e.pos.col, &e.message))?;
    let Some(chunk) = chunks.first() else { return Ok(None) };
    let file: File = yaml::parse_item(chunk).map_err(|e| {
        let pos = e.pos.unwrap_or(yaml::Pos { line: chunk.line, col: 1 });
        refused(pos.line, pos.col, &e.message)
    })?;
    match file.annotations.get(crate::model::BUNDLE_PACKAGE_ANNOTATION) {
        None => Ok(None),
        Some(serde_json::Value::String(package)) => Ok(Some(package.clone())),
        Some(_) => Err(format!(
            "annotations.{}: not a string; OLM cannot read the file, so it refuses the bundle",
            crate::model::BUNDLE_PACKAGE_ANNOTATION
        )),
    }
}

/// Says how a bundle's root was read.
fn layout_note(root: &BundleRoot) -> Finding {
    let parts: Vec<&str> = root
        .skipped
        .iter()
        .map(|s| match s.as_str() {
            "metadata" => "metadata/ (the bundle's annotations)",
            _ => "tests/ (its scorecard tests)",
        })
        .collect();
    let (verb, holds) = if parts.len() == 1 { ("was", "it holds") } else { ("were", "they hold") };
    Finding::info(format!(
        "{}: read as an OLM bundle (registry+v1 layout): its objects are in manifests/; {} {verb} not read, since {holds} no objects to apply",
        root.path,
        parts.join(" and ")
    ))
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

/// What goes out, in order: the kept documents (patched where the plan says)
/// and the generated ones.
enum Out<'a> {
    Kept(Cow<'a, str>, &'a (Chunk<'a>, FileRef)),
    Generated(&'a crate::plan::Generated),
}

/// The output, as `options.output` says, and the results on stderr.
fn write_output(inputs: &[Source], kept: &[(Chunk<'_>, FileRef)], plan: Plan, options: &RenderOptions) -> Outcome {
    let mut notes = Vec::new();
    let mut docs: Vec<Out<'_>> = Vec::new();
    for (i, item) in kept.iter().enumerate() {
        if !plan.remove().contains(&i) {
            match item_text(&item.0, &plan, i, &mut notes) {
                Ok(text) => docs.push(Out::Kept(text, item)),
                Err(e) => return fatal_render(Finding::error(e), options.quiet),
            }
        }
    }
    docs.extend(plan.generated().iter().map(Out::Generated));
    let written = match options.output {
        OutputFormat::Yaml => write_documents(inputs, &docs).map_err(|e| Box::new(Finding::error(e))),
        OutputFormat::Json => json::list(docs.iter().map(|d| match d {
            Out::Kept(text, (chunk, file)) => {
                json::Item::Text { text, object: chunk.header.object_ref(), line: chunk.line, file }
            }
            Out::Generated(g) => json::Item::Object(&g.object),
        })),
    };
    let stdout = match written {
        Ok(stdout) => stdout,
        Err(e) => return fatal_render(*e, options.quiet),
    };
    drop(docs);
    let code = exit_code(plan.results());
    let stderr = stderr_lines(&[plan.into_results(), notes].concat(), options.quiet);
    Outcome { stdout, stderr, code }
}

/// The documents separated by `---`, in the first input's line endings.
fn write_documents(inputs: &[Source], docs: &[Out<'_>]) -> Result<String, String> {
    // Separators and generated documents follow the first input's line endings.
    let eol = yaml::line_ending(inputs.first().map_or("", |s| s.text.as_str()));
    let mut texts = Vec::with_capacity(docs.len());
    for doc in docs {
        texts.push(match doc {
            Out::Kept(text, _) => Cow::Borrowed(text.as_ref()),
            Out::Generated(g) => Cow::Owned(yaml::with_line_ending(
                &yaml::to_yaml(&g.object)
                    .map_err(|e| format!("could not write {}: {e}", describe(&g.object.object_ref())))?,
                eol,
            )),
        });
    }
    // Sized once: growing a buffer of megabytes copies it, holding both.
    let mut stdout = String::with_capacity(texts.iter().map(|t| t.len() + 2 * (3 + eol.len())).sum());
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            stdout.push_str("---");
            stdout.push_str(eol);
        }
        stdout.push_str(text);
        if !text.ends_with('\n') {
            stdout.push_str(eol);
        }
    }
    Ok(stdout)
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

fn fatal_render(error: Finding, quiet: bool) -> Outcome {
    Outcome { stdout: String::new(), stderr: stderr_lines(&[error], quiet), code: 1 }
}
