//! `catalog judge`: every bundle a ClusterExtension admits from an OLM
//! file-based catalog, judged as `render` judges a bundle's folder.
//!
//! The catalog is read twice, a document at a time (`read`): first what
//! resolution needs (packages, channels, each bundle's name and version,
//! never its manifests), then, for each admitted bundle in turn, its
//! manifests (`olm.bundle.object`, or its folder under `--bundles`), which
//! are rendered with the admin's RBACConfig and dropped before the next. So
//! memory grows with the largest bundle, not with the catalog. Resolution is
//! pure (`resolve`); judging calls `run::render`, exactly as the command line
//! would on the bundle's folder; the report is in `report`.

use std::path::{Path, PathBuf};

use crate::input::Source;
use crate::outcome::Outcome;

mod read;
mod report;
mod resolve;

pub use resolve::{Entry, Wanted};

pub use report::{json_schema, Format};

/// Exit code for unreadable input.
pub const INPUT_ERROR: i32 = 2;

/// What `catalog judge` takes.
pub struct JudgeArgs<'a> {
    pub catalog: &'a Path,
    pub bundles: Option<&'a Path>,
    pub config: &'a [Source],
    pub extension: &'a [Source],
    pub format: Format,
}

/// What `catalog audit` takes.
pub struct AuditArgs<'a> {
    pub catalog: &'a Path,
    pub bundles: Option<&'a Path>,
    /// The admin's RBACConfig, for a policy verdict on every bundle; without
    /// one, each package's operator is measured against the catalogue of
    /// dangerous permissions only.
    pub config: Option<&'a [Source]>,
    pub format: Format,
}

/// Judges every bundle the ClusterExtension admits.
pub fn judge(args: &JudgeArgs<'_>) -> Outcome {
    let wanted = match read::extension(args.extension) {
        Ok(w) => w,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let entries = match read::entries(args.catalog) {
        Ok(entries) => entries,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let admitted = resolve::admitted(&entries, &wanted);
    if admitted.is_empty() {
        return Outcome::failure(
            &format!(
                "the catalog {} admits no bundle of package {:?} for this ClusterExtension: nothing was judged",
                args.catalog.display(),
                wanted.package
            ),
            1,
        );
    }
    match judge_all(args.catalog, args.bundles, &admitted, |_| args.config.to_vec()) {
        Ok(rows) => report::write(&rows, args.format),
        Err(e) => Outcome::failure(&e, INPUT_ERROR),
    }
}

/// Judges every bundle of every package in the catalog, and ranks them by
/// the worst dangerous permission each install grants.
pub fn audit(args: &AuditArgs<'_>) -> Outcome {
    let entries = match read::entries(args.catalog) {
        Ok(entries) => entries,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    if entries.is_empty() {
        return Outcome::failure(
            &format!("the catalog {} lists no bundles: nothing was audited", args.catalog.display()),
            1,
        );
    }
    let config_for = |entry: &Entry| match args.config {
        Some(config) => config.to_vec(),
        None => vec![Source { name: "olm-rbac-audit.yaml".into(), text: audit_config(&entry.package) }],
    };
    match judge_all(args.catalog, args.bundles, &entries, config_for) {
        Ok(mut rows) => {
            report::rank(&mut rows);
            report::write(&rows, args.format)
        }
        Err(e) => Outcome::failure(&e, INPUT_ERROR),
    }
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
/// catalog or `--bundles` and dropped before the next (only the render's
/// roles and bindings are kept, for the gains between versions).
fn judge_all(
    catalog: &Path,
    bundles: Option<&Path>,
    entries: &[Entry],
    config_for: impl Fn(&Entry) -> Vec<Source>,
) -> Result<Vec<report::Row>, String> {
    let mut rows = Vec::new();
    read::each_bundle(catalog, entries, |entry, objects| {
        let sources = match objects {
            Some(objects) => objects,
            None => bundle_folder(bundles, entry)?,
        };
        rows.push(report::judge_one(entry, &sources, &config_for(entry)));
        Ok(())
    })?;
    report::add_gains(&mut rows);
    Ok(rows)
}

/// A bundle's folder is judged as found under `--bundles`: one reached
/// through a symbolic link could be any folder on the machine.
fn refuse_links(root: &Path, dir: &Path) -> Result<(), String> {
    let mut at = root.to_path_buf();
    for part in dir.strip_prefix(root).map_err(|_| format!("{}: not under --bundles", dir.display()))?.components() {
        at.push(part);
        let meta = std::fs::symlink_metadata(&at).map_err(|e| format!("{}: {e}", at.display()))?;
        if meta.file_type().is_symlink() {
            return Err(format!(
                "{}: a symbolic link; a bundle's folder under --bundles must be the folder itself",
                at.display()
            ));
        }
    }
    Ok(())
}

/// The bundle's manifests from `--bundles`: `<package>/<version>/manifests/`
/// (the community operator repositories' layout) or `<bundle>/manifests/`;
/// none when neither is there.
fn bundle_folder(bundles: Option<&Path>, entry: &Entry) -> Result<Vec<Source>, String> {
    let Some(root) = bundles else { return Ok(Vec::new()) };
    let mut candidates: Vec<PathBuf> = vec![root.join(&entry.name).join("manifests")];
    if let Some(v) = &entry.version {
        candidates.insert(0, root.join(&entry.package).join(v.to_string()).join("manifests"));
    }
    if let Some(dir) = candidates.iter().find(|d| d.is_dir()) {
        refuse_links(root, dir)?;
        let sources = crate::input::read_path(dir)?;
        let named = format!("{}/manifests", entry.name);
        return Ok(sources
            .into_iter()
            .map(|s| {
                let file = Path::new(&s.name).file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
                Source { name: format!("{named}/{file}"), text: s.text }
            })
            .collect());
    }
    Ok(Vec::new())
}
