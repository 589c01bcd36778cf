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
use crate::semver::{Range, Version};

mod read;
mod report;
mod resolve;

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

/// A bundle as the catalog lists it: enough to resolve, not its manifests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub package: String,
    pub version: Option<Version>,
    /// The channels that list it.
    pub channels: Vec<String>,
    /// How many manifests the catalog carries for it (`olm.bundle.object`).
    pub objects: usize,
}

/// What the ClusterExtension asks for.
#[derive(Debug, Clone, Default)]
pub struct Wanted {
    pub package: String,
    pub range: Option<Range>,
    pub channels: Vec<String>,
    pub self_certified: bool,
}

/// How one admitted bundle fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    Unjudged,
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
    let mut rows = Vec::new();
    let mut previous: Option<String> = None;
    let result = read::each_bundle(args.catalog, &admitted, |entry, objects| {
        let sources = match objects {
            Some(objects) => objects,
            None => bundle_folder(args.bundles, entry)?,
        };
        let row = report::judge_one(entry, &sources, args.config, previous.as_deref());
        previous = row.rendered.clone().or(previous.take());
        rows.push(row);
        Ok(())
    });
    if let Err(e) = result {
        return Outcome::failure(&e, INPUT_ERROR);
    }
    report::write(&rows, args.format)
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
