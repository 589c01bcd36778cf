//! Judging: the inputs read into objects and configs, and planned, with
//! nothing written. `render` writes what [`judge`] decided; `catalog judge`
//! and `catalog audit` read its values. Reading for both runners lives here
//! too (`views`): the typed views the planner works from, built from the
//! chunks the YAML reader cut.

use std::collections::BTreeMap;

use crate::config;
use crate::findings::{Code, FileRef, Finding, ObjRef, Severity};
use crate::input::{BundleRoot, Source};
use crate::model::InputObject;
use crate::plan::origin::{folder_of, BundleFolders};
use crate::plan::{plan_in, set_aside, BundleRoots, Plan, SetAside};
use crate::yaml::{self, Chunk};

mod layout;
mod verdict;
pub(crate) mod views;

use views::{read_config, read_objects, yaml_finding};

pub(crate) use crate::plan::installable::Asked;
pub(crate) use crate::plan::JudgedRange;
pub(crate) use verdict::Extension;
pub use verdict::Verdict;

/// What [`judge`] read, as text, and decided.
pub(crate) struct Judged<'a> {
    /// The RBACConfig documents, each with its file.
    pub configs: Vec<(Chunk<'a>, FileRef)>,
    /// The other documents, each with its file, as they go out (less those
    /// set aside as a previous version's bundle).
    pub kept: Vec<(Chunk<'a>, FileRef)>,
    /// What was decided from them.
    pub judgement: Judgement,
}

/// What was decided, as values: the objects as the planner read them, the
/// plan with every finding, and what the verdict reads besides
/// ([`Judgement::verdict`]). The KRM function's comes from its
/// ResourceList's items ([`judge_objects`]), render's and the catalog's from
/// files ([`judge`]).
pub(crate) struct Judgement {
    /// The objects, as the planner read them.
    pub objects: Vec<InputObject>,
    /// What to change and generate, and every finding.
    pub plan: Plan,
    /// The feature gates the configs say the cluster's OLM runs with.
    pub olm_feature_gates: Vec<crate::config::FeatureGate>,
    /// The namespace the configs judge the operator in, when one names it.
    pub install_namespace: Option<String>,
}

impl std::ops::Deref for Judged<'_> {
    type Target = Judgement;
    fn deref(&self) -> &Judgement {
        &self.judgement
    }
}

/// Plans `objects` with `configs`, `earlier` (what reading them found)
/// before the plan's own results: the KRM function's judgement, whose
/// objects come from one ResourceList and whose config is its functionConfig.
pub(crate) fn judge_objects(configs: &[config::Config], objects: Vec<InputObject>, earlier: Vec<Finding>) -> Judgement {
    let plan = if has_error(&earlier) {
        Plan::refused(earlier)
    } else {
        let mut plan = crate::plan::plan(configs, &objects);
        plan.add_results(earlier, Vec::new());
        plan
    };
    Judgement::of(configs, objects, plan)
}

impl Judgement {
    fn of(configs: &[config::Config], objects: Vec<InputObject>, plan: Plan) -> Judgement {
        let olm_feature_gates = configs.iter().flat_map(|c| c.olm_feature_gates.iter().copied()).collect();
        let install_namespace = configs.iter().find_map(|c| c.install_namespace().map(str::to_string));
        Judgement { objects, plan, olm_feature_gates, install_namespace }
    }
}

/// Reads `inputs` (and the configs of `configs` and among the inputs) as
/// render reads them, and plans, with the folders read as a bundle's root.
/// Every problem is a finding of the plan; nothing is written.
pub(crate) fn judge<'a>(inputs: &'a [Source], configs: &'a [Source], bundle_roots: &[BundleRoot]) -> Judged<'a> {
    judge_with(inputs, configs, bundle_roots, None)
}

/// The RBACConfigs of config files, read and checked as [`judge`] reads
/// them, or every problem found (each naming its file and field).
pub(crate) fn read_configs(configs: &[Source]) -> Result<Vec<config::Config>, Vec<Finding>> {
    let mut results = Vec::new();
    let split = Split::read(&[], configs, &mut results);
    let read: Vec<_> = split.configs.iter().filter_map(|(c, f)| read_config(c, Some(f), "", &mut results)).collect();
    if has_error(&results) {
        return Err(results);
    }
    Ok(read)
}

/// [`judge`], with what the judged catalog says of the ClusterExtension's
/// range (`render --judged-catalog`).
pub(crate) fn judge_with<'a>(
    inputs: &'a [Source],
    configs: &'a [Source],
    bundle_roots: &[BundleRoot],
    judged_range: Option<&JudgedRange>,
) -> Judged<'a> {
    judge_in(inputs, configs, bundle_roots, judged_range.map(|r| r.package.as_str()), judged_range)
}

/// [`judge`], for a bundle a catalog files under `package` (`catalog judge`,
/// `audit`, `filter`): the package the bundle is judged as, where it
/// declares none itself.
pub(crate) fn judge_filed<'a>(
    inputs: &'a [Source],
    configs: &'a [Source],
    bundle_roots: &[BundleRoot],
    package: &str,
) -> Judged<'a> {
    judge_in(inputs, configs, bundle_roots, Some(package), None)
}

/// [`judge_with`], with the package a catalog files the bundle under.
fn judge_in<'a>(
    inputs: &'a [Source],
    configs: &'a [Source],
    bundle_roots: &[BundleRoot],
    catalog_package: Option<&str>,
    judged_range: Option<&JudgedRange>,
) -> Judged<'a> {
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
    if split.configs.is_empty() && !has_error(&results) {
        results.push(Finding::error(
            Code::ConfigMissing,
            format!("no {} found: pass one with --config FILE or include it among the inputs", config::KIND),
        ));
    }
    let packages = BundleRoots {
        roots: bundle_roots.iter().map(|r| r.path.trim_end_matches('/').to_string()).collect(),
        packages: bundle_roots
            .iter()
            .filter_map(|r| match package_of(&r.annotations()?) {
                Ok(package) => Some((r.manifests(), package?)),
                Err(why) => {
                    results.push(Finding::error(
                        Code::InputUnreadable,
                        format!("{}/metadata/annotations.yaml: {why}", r.path),
                    ));
                    None
                }
            })
            .collect(),
        judged_range: judged_range.cloned(),
        catalog_package: catalog_package.map(str::to_string),
    };
    // Warnings read before planning (a merge noted in a CRD's schema) go with
    // the plan's results; only an error stops the planning.
    let mut plan = if has_error(&results) {
        Plan::refused(results)
    } else {
        let mut plan = plan_in(&parsed, &objects, &packages);
        plan.add_results(results, Vec::new());
        plan
    };
    let layout = bundle_roots.iter().flat_map(layout::findings);
    plan.add_results(layout.chain(previous).collect(), Vec::new());
    Judged { configs: split.configs, kept: split.kept, judgement: Judgement::of(&parsed, objects, plan) }
}

impl Judged<'_> {
    /// The 1-based line each document starts on in its file, by the file
    /// and document a finding names (`Finding::file`): where code scanning
    /// annotates the finding. `manifests`: the bundle's documents only, not
    /// the configs'. Built once for a log of many findings.
    pub(crate) fn lines(&self, manifests: bool) -> BTreeMap<(&str, Option<usize>), usize> {
        let configs = self.configs.iter().filter(|_| !manifests);
        configs.chain(&self.kept).map(|(chunk, f)| ((f.path.as_str(), f.index), chunk.line)).collect()
    }
}

impl Judgement {
    /// The ClusterServiceVersion judged, the first the inputs hold.
    pub(crate) fn csv(&self) -> Option<&crate::model::CsvView> {
        self.csv_object().map(|(_, view)| view)
    }

    /// The ClusterServiceVersion judged, with the object it was read from.
    pub(crate) fn csv_object(&self) -> Option<(&InputObject, &crate::model::CsvView)> {
        self.objects.iter().find_map(|o| match &o.body {
            crate::model::Body::Csv(view) => Some((o, view)),
            _ => None,
        })
    }

    /// The roles and bindings the cluster holds after the install, as values:
    /// the bundle's as OLM installs them (as shipped), the admin's that go
    /// out (with the labels and annotations the plan sets on them), the
    /// generated ones (what `kubectl apply` of render's output leaves), and
    /// the operator's as OLM v1 grants them where the output writes none; for
    /// the access kernel (`check::load::policy_of`).
    pub(crate) fn rbac(&self) -> Vec<InputObject> {
        use crate::model::Body;
        let install = self.install_namespace.as_deref().unwrap_or(crate::plan::UNNAMED_INSTALL_NAMESPACE);
        let mut out: Vec<InputObject> = Vec::new();
        for (i, o) in self.objects.iter().enumerate() {
            if !matches!(o.body, Body::Role(_) | Body::Binding(_)) {
                continue;
            }
            // OLM installs the bundle's objects as they ship, whatever the
            // output holds of them (dropped, or their aggregation labels
            // stripped), each namespaced one in the install namespace: the
            // cluster holds them so, and the output's copy as written where
            // it keeps one.
            if self.plan.shipped().contains(&i) {
                let kept = !self.plan.remove().contains(&i);
                out.extend(crate::plan::olm_copies(o, install, kept.then_some("default")));
                continue;
            }
            if self.plan.remove().contains(&i) {
                continue;
            }
            let mut o = o.clone();
            if let Some(patch) = self.plan.patches().get(&i) {
                (o.header.labels, o.header.annotations) = patch.apply(&o.header);
            }
            out.push(o);
        }
        let written = self.plan.generated().iter().map(|g| (&g.object, false));
        let by_olm = self.plan.granted_by_olm().map(|o| (o, true));
        let mut renamed: BTreeMap<(String, String), String> = BTreeMap::new();
        for (object, olm) in written.chain(by_olm) {
            let Some(mut o) = object.as_input_object() else { continue };
            if olm {
                // OLM names its own objects: none of the input's is one of
                // them, so a bundle role named as olm-rbac names OLM's grant
                // neither replaces it nor is replaced.
                unclash(&mut o, &out, &mut renamed);
            }
            out.push(o);
        }
        out
    }
}

/// Renames one of OLM's grants while an object of `taken` has its kind and
/// name, and points a binding at its role's new name.
fn unclash(o: &mut InputObject, taken: &[InputObject], renamed: &mut BTreeMap<(String, String), String>) {
    use crate::model::Body;
    let kind = o.header.kind.clone().unwrap_or_default();
    let name = o.header.name.clone().unwrap_or_default();
    let clashes =
        |n: &str| taken.iter().any(|t| t.header.kind.as_deref() == Some(&kind) && t.header.name.as_deref() == Some(n));
    let mut unique = name.clone();
    while clashes(&unique) {
        unique.push_str("-olm");
    }
    if unique != name {
        o.header.name = Some(unique.clone());
        if matches!(o.body, Body::Role(_)) {
            renamed.insert((kind, name), unique);
        }
    }
    if let Body::Binding(b) = &mut o.body {
        let role = (b.role_ref.kind.clone().unwrap_or_default(), b.role_ref.name.clone().unwrap_or_default());
        if let Some(new) = renamed.get(&role) {
            b.role_ref.name = Some(new.clone());
        }
    }
}

fn has_error(results: &[Finding]) -> bool {
    results.iter().any(|r| r.severity == Severity::Error)
}

/// An object as messages name it.
fn describe(r: &ObjRef) -> String {
    if r.kind.is_empty() {
        "an object without a kind".into()
    } else {
        r.to_string()
    }
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
pub(crate) fn package_of(annotations: &str) -> Result<Option<String>, String> {
    const KEY: &str = crate::model::BUNDLE_PACKAGE_ANNOTATION;
    let refused = |line: usize, col: usize, why: &str| {
        format!("line {line}, column {col}: {why}; OLM cannot read the file, so it refuses the bundle")
    };
    let chunks = yaml::split_documents(annotations).map_err(|e| refused(e.pos.line, e.pos.col, &e.message))?;
    let Some(chunk) = chunks.first() else { return Ok(None) };
    let file: serde_json::Value = yaml::parse_item(chunk).map_err(|e| {
        let pos = e.pos.unwrap_or(yaml::Pos { line: chunk.line, col: 1 });
        refused(pos.line, pos.col, &e.message)
    })?;
    // operator-controller decodes the file into a struct: keys are matched as Go's JSON decoder matches them.
    crate::gojson::check_folding(&file, &["annotations", KEY], "the document")
        .map_err(|why| format!("{why}; OLM would read another package than olm-rbac"))?;
    if file.get("annotations").is_some_and(|a| !a.is_object() && !a.is_null()) {
        return Err("annotations: not a mapping; OLM cannot read the file, so it refuses the bundle".into());
    }
    match file.get("annotations").and_then(|a| a.get(KEY)) {
        None => Ok(None),
        Some(serde_json::Value::String(package)) => Ok(Some(package.clone())),
        Some(_) => Err(format!("annotations.{KEY}: not a string; OLM cannot read the file, so it refuses the bundle")),
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
    Finding::error(
        Code::ConfigInvalid,
        format!("expected an {} ({}), found {found}", config::KIND, config::API_VERSION),
    )
    .on(&r)
    .at(field)
    .in_file(Some(file))
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
        results.push(
            Finding::error(Code::ConfigMisplaced, format!("{} {why}", describe(&object)))
                .on(&object)
                .in_file(Some(file)),
        );
    }
}

fn is_config(chunk: &Chunk<'_>) -> bool {
    let h = &chunk.header;
    h.kind.as_deref() == Some(config::KIND)
        && h.group().is_some_and(|g| Some(g) == crate::model::group_of(config::API_VERSION))
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
