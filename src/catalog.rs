//! `catalog judge`: every bundle a ClusterExtension admits from an OLM
//! file-based catalog, judged as `render` judges a bundle's folder; and
//! `catalog audit`: every bundle of every package, ranked by the worst
//! dangerous permission its install grants.
//!
//! The catalog is read twice, a document at a time (`read`): first what
//! resolution needs (packages, channels, each bundle's name and version,
//! never its manifests), then, for each admitted bundle in turn, its
//! manifests (`olm.bundle.object`, or its folder under `--bundles`), which
//! are judged with the admin's RBACConfig and dropped once judged. So
//! memory grows with the largest file, not with the catalog. `catalog
//! audit` judges every bundle, so nothing needs resolving first: it reads
//! the catalog once, each bundle judged as its document is read. Judges run
//! on two threads while the reader goes on (`judging`). Resolution is
//! pure (`resolve`); judging calls `judge::judge`, which render writes from,
//! and reads its values (every error and dangerous grant, the worst level,
//! the cluster's RBAC for the gains); the report is in `report`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::input::Source;
use crate::outcome::Outcome;

mod bundles;
mod configs;
mod decode;
mod filter;
mod graph;
mod progress;
mod range;
mod read;
mod report;
mod resolve;

pub use bundles::{BundleArgs, PullArgs, ReadFrom};
pub use configs::Configs;
pub use filter::{filter, json_schema as filter_json_schema, FilterArgs, Report};
pub(crate) use range::judged_range;
pub use report::{json_schema, Format};
pub(crate) use resolve::{Entry, Wanted};

/// Exit code for unreadable input.
pub const INPUT_ERROR: crate::outcome::Exit = crate::outcome::Exit::Input;

/// What `catalog judge` takes.
pub struct JudgeArgs<'a> {
    /// The file-based catalog: a file or folder of olm.package, olm.channel and olm.bundle documents.
    pub catalog: &'a Path,
    /// Bundle images and folders (`--bundles`), and the platform.
    pub bundles: BundleArgs<'a>,
    /// The admin's RBACConfigs, which judge each bundle as render would: the
    /// one for the ClusterExtension's package, else the one naming none.
    pub configs: &'a Configs,
    /// The ClusterExtension whose admitted bundles are judged.
    pub extension: &'a [Source],
    /// `--allow-tag-images`: a bundle image named by tag does not fail the command.
    pub allow_tag_images: bool,
    /// How the rows are written: text, Markdown or JSON.
    pub format: Format,
}

/// What `catalog audit` takes.
pub struct AuditArgs<'a> {
    /// The file-based catalog: a file or folder of olm.package, olm.channel and olm.bundle documents.
    pub catalog: &'a Path,
    /// Bundle images and folders (`--bundles`), and the platform.
    pub bundles: BundleArgs<'a>,
    /// The admin's RBACConfigs, for a policy verdict on every bundle (each
    /// package's, else the one naming none); without them, each package's
    /// operator is measured against the catalogue of dangerous permissions only.
    pub configs: Option<&'a Configs>,
    /// How the rows are written: text, Markdown or JSON.
    pub format: Format,
}

/// Judges every bundle the ClusterExtension admits.
pub fn judge(args: &JudgeArgs<'_>) -> Outcome {
    let wanted = match read::extension(args.extension) {
        Ok(w) => w,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let mut bundles = match bundles::Bundles::open(&args.bundles) {
        Ok(bundles) => bundles,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    // A catalog image's scratch folder lives until the bundles are judged: the second pass reads it again.
    let (_extracted, catalog) = match catalog_at(&mut bundles, args.catalog)
        .and_then(|(extracted, path)| Ok((extracted, read::Catalog::read(&path)?)))
    {
        Ok(read) => read,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let admitted = resolve::admitted(&catalog.entries, &wanted);
    if admitted.is_empty() {
        return Outcome::failure(
            format!(
                "the catalog {} admits no bundle for this ClusterExtension, so nothing was judged: {}",
                args.catalog.display(),
                resolve::why_none(&catalog.entries, &wanted)
            ),
            crate::outcome::Exit::Refused,
        );
    }
    let images = if args.allow_tag_images { Images::Any } else { Images::ByDigest };
    let asked = crate::judge::Asked { namespace: wanted.namespace.as_deref(), config: wanted.config.as_ref() };
    let extension = crate::judge::Extension::Given { asked: Some(asked), object: Some(&wanted.object) };
    if let Err(why) = args.configs.for_package(&wanted.package) {
        return Outcome::failure(why, INPUT_ERROR);
    }
    match judge_all(&catalog, &mut bundles, &admitted, extension, |entry| args.configs.chosen(&entry.package)) {
        Ok(rows) => args
            .configs
            .warn(catalog.package_names(), report::write(rows, report::Listing::ByVersion, args.format, images)),
        Err(e) => Outcome::failure(&e, INPUT_ERROR),
    }
}

/// Judges every bundle of every package in the catalog, and ranks them by
/// the worst dangerous permission each install grants.
pub fn audit(args: &AuditArgs<'_>) -> Outcome {
    let config_for = |entry: &Entry| match args.configs {
        Some(configs) => configs.chosen(&entry.package),
        None => Ok(configs::Chosen {
            sources: vec![Source { name: "olm-rbac-audit.yaml".into(), text: audit_config(&entry.package) }],
            file: None,
        }),
    };
    let mut bundles = match bundles::Bundles::open(&args.bundles) {
        Ok(bundles) => bundles,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let (_extracted, path) = match catalog_at(&mut bundles, args.catalog) {
        Ok(at) => at,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let (catalog, rows) = match audit_all(&path, &mut bundles, config_for) {
        Ok(read) => read,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    if catalog.entries.is_empty() {
        return Outcome::failure(
            format!("the catalog {} lists no bundles: nothing was audited", args.catalog.display()),
            crate::outcome::Exit::Refused,
        );
    }
    let outcome = match rows {
        Ok(rows) => report::write(rows, report::Listing::Ranked, args.format, Images::Any),
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    match args.configs {
        Some(configs) => configs.warn(catalog.package_names(), outcome),
        None => outcome,
    }
}

/// Where the catalog `given` is read from: itself (a file or folder), or the
/// scratch folder a catalog image's catalog is written to, kept while the
/// first value lives.
fn catalog_at(
    bundles: &mut bundles::Bundles,
    given: &Path,
) -> Result<(Option<bundles::Extracted>, std::path::PathBuf), String> {
    let extracted = bundles.catalog_image(given)?;
    let path = extracted.as_ref().map_or_else(|| given.to_path_buf(), |e| e.dir.clone());
    Ok((extracted, path))
}

/// Reads the catalog once, every bundle judged as its document is read
/// (`catalog audit` judges them all: nothing to resolve first). The catalog
/// as [`read::Catalog::read`] reads it, or why it cannot be read; then the
/// rows, or why a bundle's manifests cannot be read (the first such bundle,
/// as [`judge_all`]'s second pass would say it).
fn audit_all(
    path: &Path,
    bundles: &mut bundles::Bundles,
    config_for: impl Fn(&Entry) -> Result<configs::Chosen, String>,
) -> Result<(read::Catalog, Result<Vec<report::Row>, String>), String> {
    let mut unreadable: Option<String> = None;
    let progress = bundles.progress(None);
    let (catalog, mut rows) =
        judging(crate::judge::Extension::Given { asked: None, object: None }, progress, |judge| {
            read::Catalog::read_with(
                path,
                Some(&mut |entry: Entry, objects| {
                    // A name the read refuses once it ends never names a folder under --bundles.
                    if unreadable.is_some() || !crate::names::is_dns1123_subdomain(&entry.name) {
                        return Ok(());
                    }
                    match objects.and_then(|carried| bundles.find(&entry, carried)) {
                        Ok(found) => {
                            let config = config_for(&entry);
                            judge(entry, found, config)
                        }
                        Err(why) => {
                            unreadable = Some(why);
                            Ok(())
                        }
                    }
                }),
            )
        })?;
    if let Some(why) = unreadable {
        return Ok((catalog, Err(why)));
    }
    // Deprecations are read from their own documents, after the bundles'.
    let said: BTreeMap<(&str, &str), &Vec<String>> =
        catalog.entries.iter().map(|e| ((e.package.as_str(), e.name.as_str()), &e.deprecations)).collect();
    for row in &mut rows {
        row.deprecations =
            said.get(&(row.package.as_str(), row.bundle.as_str())).map(|d| d.to_vec()).unwrap_or_default();
    }
    report::gains::add_gains(&mut rows);
    Ok((catalog, Ok(rows)))
}

/// The config an audit without one judges a package with: the operator's
/// permissions granted cluster-wide, as OLM v1 grants them (AllNamespaces),
/// measured against the catalogue of dangerous permissions.
fn audit_config(package: &str) -> String {
    format!(
        "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: {package:?}\nspec:\n  mode: Unmanaged\n  operator:\n    permissions: Cluster\n    installNamespace: olm-rbac-audit\n"
    )
}

/// Renders each of `entries` in catalog order, its manifests read from the
/// catalog or `--bundles` and dropped once judged (only the render's roles
/// and bindings are kept, for the gains between versions).
fn judge_all(
    catalog: &read::Catalog,
    bundles: &mut bundles::Bundles,
    entries: &[Entry],
    extension: crate::judge::Extension<'_>,
    config_for: impl Fn(&Entry) -> Result<configs::Chosen, String>,
) -> Result<Vec<report::Row>, String> {
    let progress = bundles.progress(Some(entries.len()));
    let ((), mut rows) = judging(extension, progress, |judge| {
        catalog.each_bundle(entries, |entry, objects| {
            let found = bundles.find(entry, objects?)?;
            judge(entry.clone(), found, config_for(entry))
        })
    })?;
    report::gains::add_gains(&mut rows);
    Ok(rows)
}

/// Judges the bundles `read` hands over, in the order it hands them (the
/// catalog's), with what `read` returns.
///
/// `read` runs on this thread, reading the bundles one after another;
/// [`JUDGES`] threads judge them as they come, through a queue of one: at
/// most a bundle per judge, one queued and one being read are held at once,
/// so memory still grows with the largest bundle, not with the catalog. Each
/// row keeps its place in the catalog's order, whichever judge finishes
/// first. Kubernetes' bootstrap roles, which every judgement needs, are read
/// meanwhile on a thread of their own.
/// `extension`: what the ClusterExtension asks of each install, when one is read.
fn judging<T>(
    extension: crate::judge::Extension<'_>,
    mut progress: progress::Progress,
    read: impl FnOnce(&mut Judge<'_>) -> Result<T, String>,
) -> Result<(T, Vec<report::Row>), String> {
    let (queue, queued) = std::sync::mpsc::sync_channel::<Judging>(1);
    let queued = std::sync::Mutex::new(queued);
    let judges = std::thread::available_parallelism().map_or(1, |n| n.get().min(JUDGES));
    let stopped = || "a bundle's judge stopped".to_string();
    let (read, mut judged) = std::thread::scope(|scope| {
        scope.spawn(|| crate::access::builtin::policy().is_ok());
        let workers: Vec<_> = (0..judges).map(|_| scope.spawn(|| judge_queued(&queued, extension))).collect();
        let mut next = 0usize;
        let read = read(&mut |entry, sources, config| {
            next += 1;
            progress.judging(&entry.package, &entry.name);
            // Only a judge's panic closes the queue early, and is raised below.
            queue.send((next - 1, entry, sources, config)).map_err(|_| stopped())
        });
        drop(queue);
        progress.done();
        let mut judged = Vec::new();
        for worker in workers {
            // A judge's panic is the program's, as it was when this thread judged.
            judged.extend(worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        (read, judged)
    });
    let read = read?;
    judged.sort_by_key(|(at, _)| *at);
    Ok((read, judged.into_iter().map(|(_, row)| row).collect()))
}

/// How many threads judge bundles at most: as many as there are cores, up to this.
const JUDGES: usize = 2;

/// What [`judging`]'s reader calls with each bundle: its entry, its
/// manifests (or why they cannot be read as OLM reads them) and its config
/// (or why none judges it).
type Judge<'f> = dyn FnMut(Entry, bundles::Found, Result<configs::Chosen, String>) -> Result<(), String> + 'f;

/// A bundle for a judge: its place in the catalog's order, then what [`Judge`] takes.
type Judging = (usize, Entry, bundles::Found, Result<configs::Chosen, String>);

/// Judges bundles from the queue until it is closed; each row with its place.
fn judge_queued(
    queued: &std::sync::Mutex<std::sync::mpsc::Receiver<Judging>>,
    extension: crate::judge::Extension<'_>,
) -> Vec<(usize, report::Row)> {
    let mut rows = Vec::new();
    loop {
        let next = match queued.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return rows,
        };
        let Ok((at, entry, found, config)) = next else { return rows };
        let file = config.as_ref().ok().and_then(|c| c.file.clone());
        let mut row = match (found.manifests, config) {
            (Err(why), _) | (_, Err(why)) => report::unjudged(&entry, why),
            (Ok(read), Ok(config)) => match unjudgeable(&entry) {
                Some(why) => report::unjudged(&entry, why),
                None => report::judge_one(&entry, &read.sources, &config.sources, extension, &read.bundle_roots),
            },
        };
        row.source = found.from;
        row.config = file;
        row.manifest = row.manifest.take().and_then(|judged| bundles::on_disk(found.folder.as_deref(), judged));
        row.warnings.extend(found.instance);
        rows.push((at, row));
    }
}

/// Which bundle images a passing verdict may stand for: `catalog judge` is a
/// gate, and its verdict binds only an image named by digest unless the admin
/// accepts tags (`--allow-tag-images`); `catalog audit` is a survey. Every
/// bundle with manifests is judged either way, and each row says whether its
/// image is pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Images {
    ByDigest,
    Any,
}

/// Why these manifests cannot stand for the bundle OLM installs, before
/// they are read: no image names what OLM installs. That they are the
/// bundle's is checked once they are read ([`report::not_the_bundle`]).
fn unjudgeable(entry: &Entry) -> Option<String> {
    let named = entry.image.as_deref().is_some_and(|i| !i.is_empty());
    (!named).then(|| "it names no bundle image, so what OLM would install cannot be told".into())
}
