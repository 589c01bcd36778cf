//! What a command reads: its inputs ([`Source`]), from the files, directories
//! and stdin the command line names. What it gives back is an
//! [`Outcome`](crate::outcome::Outcome).
//!
//! The inputs named on the command line (files, directories and stdin) are
//! read with the same care as kustomize's load restrictor: a directory is
//! read only inside itself, a symbolic link that leads out of it is refused, a
//! link cycle is followed once, and anything that is not a regular file (a
//! FIFO, a device such as /dev/zero) is refused instead of read until memory
//! runs out. A folder laid out as an OLM bundle (`manifests/` beside
//! `metadata/annotations.yaml`) is read as one: see [`BundleRoot`].

use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};

mod error;
mod indexignore;
pub use error::InputError;

/// A named input: a file's path (or `-`) and its text.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as it was reached from the command line, or `-` for stdin:
    /// results name it as the item's file.
    pub name: String,
    /// The file's text, whole.
    pub text: String,
}

/// A command that reads stdin when it is given no path would wait there for
/// input a terminal never sends: it says so at once instead, and what it
/// reads (`reads`: "render reads manifests") and how to give it (`instead`).
/// The one place that decides it, for every command.
pub fn refuse_terminal(reads: &str, instead: &str, paths_given: bool, stdin_is_terminal: bool) -> Option<String> {
    (!paths_given && stdin_is_terminal).then(|| format!("{reads}, and stdin is a terminal: {instead}"))
}

/// Reads stdin whole.
pub fn read_stdin() -> std::io::Result<String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    Ok(text)
}

/// A folder read as an OLM bundle's root: it holds `manifests/` and
/// `metadata/annotations.yaml` (the registry+v1 layout). The bundle's objects
/// are in `manifests/`, read as operator-controller reads them (see
/// [`read_bundle_manifests`]); `metadata/` (annotations, dependencies,
/// properties) and `tests/` (scorecard configuration) hold none to apply, so
/// they are not read as manifests. Nothing else in the folder is read either,
/// by any command: OLM installs what `manifests/` holds, and only that (a
/// stray `bundle/` copy of the manifests beside it would be read twice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRoot {
    /// The folder, as reached from the path named on the command line.
    pub path: String,
    /// What of the folder was not read, by name, in name order: `metadata`,
    /// `tests` when there is one, and any other folder or manifest file beside
    /// `manifests/` (see [`BundleRoot::stray`]).
    pub skipped: Vec<String>,
    /// The folders inside its `manifests/`, as reached: operator-controller
    /// refuses a bundle whose `manifests/` holds one, so the bundle cannot be
    /// installed. Not read.
    pub subfolders: Vec<String>,
    /// Where its `metadata/annotations.yaml` is.
    pub metadata: Metadata,
}

/// Where a bundle root's `metadata/annotations.yaml` is read from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Metadata {
    /// In the folder, read when asked (absent: OLM reads the folder's
    /// package from elsewhere, and nothing is said).
    #[default]
    OnDisk,
    /// Read already: from a bundle image, as OLM reads it, or from a bundle
    /// folder standing in for one under the catalog commands' `--bundles`.
    Read(String),
    /// A bundle image without the file, which OLM v1 refuses to install.
    MissingFromImage,
    /// A bundle folder standing in for an image, without the file: nothing
    /// is read from elsewhere, and nothing is said.
    Absent,
}

impl BundleRoot {
    /// `dir` as a bundle's root, if it is laid out as one.
    fn of(dir: &Path) -> Option<BundleRoot> {
        if !dir.join("manifests").is_dir() || !dir.join("metadata").join("annotations.yaml").is_file() {
            return None;
        }
        let mut skipped: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.file_name() != "manifests")
            .filter(|entry| entry.path().is_dir() || is_manifest(&entry.path()))
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        skipped.sort();
        Some(BundleRoot {
            path: dir.display().to_string(),
            skipped,
            subfolders: Vec::new(),
            metadata: Metadata::OnDisk,
        })
    }

    /// The root of `manifests`, a bundle's `manifests/` folder read on its own
    /// (named on the command line, or a catalog's `--bundles` folder): nothing
    /// of the root is skipped, since nothing else of it was read.
    fn of_manifests(manifests: &Path, subfolders: Vec<String>) -> BundleRoot {
        let root = manifests.parent().unwrap_or(Path::new(""));
        BundleRoot { path: root.display().to_string(), skipped: Vec::new(), subfolders, metadata: Metadata::OnDisk }
    }

    /// What was not read beside `manifests/` other than `metadata/` and
    /// `tests/`: a folder or a manifest file OLM does not install, which a
    /// reader of the folder might have expected read.
    pub fn stray(&self) -> impl Iterator<Item = &str> {
        self.skipped.iter().map(String::as_str).filter(|s| !matches!(*s, "metadata" | "tests"))
    }

    /// The folder the bundle's objects are read from: `<root>/manifests`.
    pub fn manifests(&self) -> String {
        Path::new(&self.path).join("manifests").display().to_string()
    }

    /// Its `metadata/annotations.yaml`, as text (`None` when unreadable or
    /// missing).
    pub fn annotations(&self) -> Option<String> {
        match &self.metadata {
            Metadata::OnDisk => {
                std::fs::read_to_string(Path::new(&self.path).join("metadata").join("annotations.yaml")).ok()
            }
            Metadata::Read(text) => Some(text.clone()),
            Metadata::MissingFromImage | Metadata::Absent => None,
        }
    }
}

/// What reading a path gave: the sources, and the folders read as a bundle's root.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Every manifest read, in the order read.
    pub sources: Vec<Source>,
    /// The folders read as a bundle's root.
    pub bundle_roots: Vec<BundleRoot>,
}

/// A file, stdin (`-`), or every manifest (`*.yaml`, `*.yml`, `*.json`)
/// under a directory, in name order. A folder inside a bundle's `manifests/`
/// is an error here: the commands that read this way judge no bundle.
pub fn read_path(path: &Path) -> Result<Vec<Source>, InputError> {
    let read = read_input(path)?;
    match read.bundle_roots.iter().flat_map(|r| &r.subfolders).next() {
        Some(folder) => Err(InputError::Subfolder { path: PathBuf::from(folder) }),
        None => Ok(read.sources),
    }
}

/// A bundle's `manifests/` folder, read as operator-controller reads a
/// registry+v1 bundle: every regular file in it, whatever its name (OLM
/// decodes each as YAML or JSON and installs what it holds). A folder in it
/// is not read: OLM refuses the bundle for it, which the root the read gives
/// says ([`BundleRoot::subfolders`]; none without a folder). Links are
/// followed only inside the folder, as everywhere.
pub fn read_bundle_manifests(dir: &Path) -> Result<Inputs, InputError> {
    let walked = walk_with(dir, Files::Bundle)?;
    let sources = walked.files.iter().map(|f| read_file(f)).collect::<Result<_, _>>()?;
    let bundle_roots = match walked.subfolders.is_empty() {
        true => Vec::new(),
        false => {
            let subfolders = walked.subfolders.iter().map(|p| p.display().to_string()).collect();
            vec![BundleRoot::of_manifests(dir, subfolders)]
        }
    };
    Ok(Inputs { sources, bundle_roots })
}

/// [`read_path`], saying which folders were read as a bundle's root, and the
/// folders inside a bundle's `manifests/`, which were not read.
pub fn read_input(path: &Path) -> Result<Inputs, InputError> {
    if path == Path::new("-") {
        let text = read_stdin().map_err(InputError::Stdin)?;
        return Ok(Inputs { sources: vec![Source { name: "-".into(), text }], bundle_roots: Vec::new() });
    }
    let Walked { files, mut bundle_roots, subfolders } = walk_with(path, Files::Manifests)?;
    for folder in subfolders {
        let manifests = folder.parent().unwrap_or(Path::new(""));
        let found = bundle_roots.iter_mut().find(|r| Path::new(&r.manifests()) == manifests);
        match found {
            Some(root) => root.subfolders.push(folder.display().to_string()),
            // A bundle's manifests/ named on its own.
            None => bundle_roots.push(BundleRoot::of_manifests(manifests, vec![folder.display().to_string()])),
        }
    }
    let sources = files.iter().map(|f| read_file(f)).collect::<Result<_, _>>()?;
    Ok(Inputs { sources, bundle_roots })
}

/// The manifest files `path` names, as [`read_path`] would read them (the
/// file itself, or the `.yaml`, `.yml` and `.json` files under the folder, in
/// name order, no link leading out), without reading them: for a caller that
/// reads each as a stream.
pub fn manifest_files(path: &Path) -> Result<Vec<PathBuf>, InputError> {
    let walked = walk_with(path, Files::Manifests)?;
    match walked.subfolders.first() {
        Some(folder) => Err(InputError::Subfolder { path: folder.clone() }),
        None => Ok(walked.files),
    }
}

/// The name of the files that say which files of a catalog opm skips.
const INDEX_IGNORE: &str = ".indexignore";

/// The files of a file-based catalog, as opm reads a catalog's folder: every
/// regular file, whatever its name, but those the `.indexignore` files in it
/// ignore (see [`indexignore`]); in opm's order. A file named on its own is read.
pub fn catalog_files(path: &Path) -> Result<Vec<PathBuf>, InputError> {
    let files = walk_with(path, Files::Every)?.files;
    if !std::fs::metadata(path).map_err(InputError::io(path))?.is_dir() {
        return Ok(files);
    }
    let components = |file: &Path| -> Result<Vec<String>, InputError> {
        // The walk found every file under `path`.
        let relative = file.strip_prefix(path).unwrap_or(file);
        relative
            .components()
            .map(|c| c.as_os_str().to_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| InputError::NotUtf8 { path: file.to_path_buf() })
    };
    let mut ignore = indexignore::IndexIgnore::default();
    let mut kept = Vec::new();
    for file in files {
        let parts = components(&file)?;
        if parts.last().is_some_and(|n| n == INDEX_IGNORE) {
            let text = std::fs::read_to_string(&file).map_err(InputError::io(&file))?;
            ignore.add(&parts[..parts.len() - 1], &text);
        } else {
            kept.push((file, parts));
        }
    }
    Ok(kept
        .into_iter()
        .filter(|(_, parts)| !ignore.ignores(&parts.iter().map(String::as_str).collect::<Vec<_>>()))
        .map(|(file, _)| file)
        .collect())
}

/// Which files a walk reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Files {
    /// `.yaml`, `.yml` and `.json`; a bundle root's `manifests/` as [`Files::Bundle`].
    Manifests,
    /// Every regular file.
    Every,
    /// A bundle's `manifests/`: every regular file; a folder is noted, not read.
    Bundle,
}

impl Files {
    fn wants(self, path: &Path) -> bool {
        match self {
            Files::Manifests => is_manifest(path),
            Files::Every => true,
            Files::Bundle => true,
        }
    }
}

/// What a walk found: the files to read, the folders read as a bundle's
/// root, and the folders inside a bundle's `manifests/` (not read).
struct Walked {
    files: Vec<PathBuf>,
    bundle_roots: Vec<BundleRoot>,
    subfolders: Vec<PathBuf>,
}

fn walk_with(path: &Path, files: Files) -> Result<Walked, InputError> {
    // A path named on the command line is followed wherever it leads: the user chose it.
    let meta = std::fs::metadata(path).map_err(InputError::io(path))?;
    if meta.is_dir() {
        let root = std::fs::canonicalize(path).map_err(InputError::io(path))?;
        let mut walk = Walk {
            root,
            dirs: BTreeSet::new(),
            files: BTreeSet::new(),
            found: Vec::new(),
            bundle_roots: Vec::new(),
            subfolders: Vec::new(),
        };
        // A bundle's manifests/ named on its own is read as the bundle's.
        let wanted = match files {
            Files::Manifests if is_bundle_manifests(path) => Files::Bundle,
            other => other,
        };
        walk.dir(path, wanted)?;
        walk.found.sort();
        return Ok(Walked { files: walk.found, bundle_roots: walk.bundle_roots, subfolders: walk.subfolders });
    }
    if !meta.is_file() {
        return Err(not_regular(path));
    }
    Ok(Walked { files: vec![path.to_path_buf()], bundle_roots: Vec::new(), subfolders: Vec::new() })
}

fn not_regular(path: &Path) -> InputError {
    InputError::NotRegular { path: path.to_path_buf() }
}

/// `path` is the `manifests/` folder of a bundle's root.
fn is_bundle_manifests(path: &Path) -> bool {
    let Ok(real) = std::fs::canonicalize(path) else { return false };
    real.file_name().is_some_and(|n| n == "manifests")
        && real.parent().is_some_and(|root| BundleRoot::of(root).is_some())
}

fn is_manifest(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json"))
}

/// One directory walk: what has been read (by real path, so that a link to
/// something already read does not read it twice, and a cycle ends), and the
/// manifest files found.
struct Walk {
    root: PathBuf,
    dirs: BTreeSet<PathBuf>,
    files: BTreeSet<PathBuf>,
    found: Vec<PathBuf>,
    bundle_roots: Vec<BundleRoot>,
    subfolders: Vec<PathBuf>,
}

impl Walk {
    /// Walks `dir`, reading the files `wanted` names.
    fn dir(&mut self, dir: &Path, wanted: Files) -> Result<(), InputError> {
        let real = std::fs::canonicalize(dir).map_err(InputError::io(dir))?;
        if !self.dirs.insert(real) {
            return Ok(());
        }
        let entries = std::fs::read_dir(dir).map_err(InputError::io(dir))?;
        let mut paths = Vec::new();
        for entry in entries {
            let entry = entry.map_err(InputError::io(dir))?;
            let kind = entry.file_type().map_err(InputError::io(&entry.path()))?;
            paths.push((entry.path(), kind));
        }
        paths.sort_by(|a, b| a.0.cmp(&b.0));
        // Of a bundle's root, only manifests/ is read.
        let manifests = match BundleRoot::of(dir).filter(|_| wanted == Files::Manifests) {
            Some(bundle) => {
                self.bundle_roots.push(bundle);
                Some(dir.join("manifests"))
            }
            None => None,
        };
        for (path, kind) in paths {
            if manifests.as_ref().is_some_and(|m| m != &path) {
                continue;
            }
            if wanted == Files::Bundle && (kind.is_dir() || (kind.is_symlink() && path.is_dir())) {
                self.subfolders.push(path);
                continue;
            }
            let wanted = if manifests.as_ref() == Some(&path) { Files::Bundle } else { wanted };
            if kind.is_symlink() {
                self.link(&path, wanted)?;
            } else if kind.is_dir() {
                self.dir(&path, wanted)?;
            } else if wanted.wants(&path) {
                if !kind.is_file() {
                    return Err(not_regular(&path));
                }
                self.file(&path, wanted)?;
            }
        }
        Ok(())
    }

    /// A link inside the walk is followed only to somewhere inside the root.
    fn link(&mut self, path: &Path, wanted: Files) -> Result<(), InputError> {
        let target = match std::fs::canonicalize(path) {
            Ok(t) => t,
            // A dangling link names nothing to read; one that names a manifest is an error.
            Err(e) if wanted.wants(path) => return Err(InputError::io(path)(e)),
            Err(_) => return Ok(()),
        };
        if !target.starts_with(&self.root) {
            return Err(InputError::LinkOutside { path: path.to_path_buf(), target, root: self.root.clone() });
        }
        let meta = std::fs::metadata(&target).map_err(InputError::io(path))?;
        if meta.is_dir() && wanted == Files::Every {
            return Err(InputError::CatalogFolderLink { path: path.to_path_buf() });
        }
        if meta.is_dir() {
            self.dir(path, wanted)
        } else if !wanted.wants(path) {
            Ok(())
        } else if meta.is_file() {
            self.file(path, wanted)
        } else {
            Err(not_regular(path))
        }
    }

    /// A file to read, once by its real path; in a catalog, at every path
    /// that reaches it, as opm reads it (each path is held to `.indexignore`
    /// on its own).
    fn file(&mut self, path: &Path, wanted: Files) -> Result<(), InputError> {
        let real = std::fs::canonicalize(path).map_err(InputError::io(path))?;
        if self.files.insert(real) || wanted == Files::Every {
            self.found.push(path.to_path_buf());
        }
        Ok(())
    }
}

fn read_file(path: &Path) -> Result<Source, InputError> {
    let text = std::fs::read_to_string(path).map_err(InputError::io(path))?;
    Ok(Source { name: path.display().to_string(), text })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn names(sources: &[Source], root: &Path) -> Vec<String> {
        sources.iter().map(|s| Path::new(&s.name).strip_prefix(root).unwrap().display().to_string()).collect()
    }

    #[test]
    fn a_directory_is_read_in_name_order_with_links_inside_it_followed_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("pkg");
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("b/x.yaml"), "kind: X\n").unwrap();
        std::fs::write(root.join("a.yml"), "kind: A\n").unwrap();
        std::fs::write(root.join("notes.txt"), "not read").unwrap();
        symlink(root.join("b"), root.join("c")).unwrap(); // the same directory again
        symlink(&root, root.join("b/loop")).unwrap(); // a cycle
        symlink(root.join("a.yml"), root.join("z.yaml")).unwrap(); // the same file again
        let sources = read_path(&root).unwrap();
        assert_eq!(names(&sources, &root), ["a.yml", "b/x.yaml"]);
    }

    #[test]
    fn a_link_out_of_the_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("pkg");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(tmp.path().join("secret.yaml"), "kind: Secret\n").unwrap();
        symlink(tmp.path().join("secret.yaml"), root.join("innocent.yaml")).unwrap();
        let err = read_path(&root).unwrap_err();
        assert!(matches!(&err, InputError::LinkOutside { path, .. } if path.ends_with("innocent.yaml")), "{err}");
        assert!(err.to_string().contains("innocent.yaml: a symbolic link to"), "the words name the link: {err}");
        // A linked directory outside is refused too, whatever it holds.
        std::fs::remove_file(root.join("innocent.yaml")).unwrap();
        symlink(tmp.path(), root.join("up")).unwrap();
        assert!(matches!(read_path(&root), Err(InputError::LinkOutside { path, .. }) if path.ends_with("up")));
    }

    #[test]
    fn a_bundle_root_is_read_as_a_bundle_without_its_metadata_and_tests() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("bundle");
        for dir in ["manifests", "metadata", "tests/scorecard"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("manifests/csv.yaml"), "kind: ClusterServiceVersion\n").unwrap();
        std::fs::write(root.join("metadata/annotations.yaml"), "annotations: {}\n").unwrap();
        std::fs::write(root.join("tests/scorecard/config.yaml"), "kind: Configuration\n").unwrap();
        std::fs::write(root.join("rbac.yaml"), "kind: RBACConfig\n").unwrap();
        std::fs::write(root.join("README.md"), "not a manifest\n").unwrap();
        // A stray copy of the manifests, as grafana-operator 5.24.0's bundle has.
        std::fs::create_dir_all(root.join("bundle/manifests")).unwrap();
        std::fs::write(root.join("bundle/manifests/csv.yaml"), "kind: ClusterServiceVersion\n").unwrap();
        let read = read_input(&root).unwrap();
        assert_eq!(names(&read.sources, &root), ["manifests/csv.yaml"], "only manifests/, as OLM installs");
        let skipped: Vec<String> = ["bundle", "metadata", "rbac.yaml", "tests"].map(String::from).to_vec();
        let subfolders = Vec::new();
        assert_eq!(
            read.bundle_roots,
            [BundleRoot { path: root.display().to_string(), skipped, subfolders, metadata: Metadata::OnDisk }]
        );
        // Without metadata/annotations.yaml it is an ordinary folder.
        std::fs::remove_file(root.join("metadata/annotations.yaml")).unwrap();
        let read = read_input(&root).unwrap();
        assert_eq!(
            names(&read.sources, &root),
            ["bundle/manifests/csv.yaml", "manifests/csv.yaml", "rbac.yaml", "tests/scorecard/config.yaml"]
        );
        assert!(read.bundle_roots.is_empty());
    }

    #[test]
    fn a_bundles_manifests_are_every_file_in_it_and_no_folder_as_operator_controller_reads_them() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("bundle");
        for dir in ["manifests", "metadata"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("manifests/csv.yaml"), "kind: ClusterServiceVersion\n").unwrap();
        std::fs::write(root.join("manifests/extra-rbac"), "kind: ClusterRoleBinding\n").unwrap();
        std::fs::write(root.join("manifests/.hidden.txt"), "kind: Role\n").unwrap();
        std::fs::write(root.join("metadata/annotations.yaml"), "annotations: {}\n").unwrap();
        std::fs::write(root.join("notes.txt"), "not a manifest, not the bundle's").unwrap();
        let want = ["manifests/.hidden.txt", "manifests/csv.yaml", "manifests/extra-rbac"];
        assert_eq!(names(&read_path(&root).unwrap(), &root), want);
        // Named on its own, or read for a catalog's --bundles, alike.
        assert_eq!(names(&read_path(&root.join("manifests")).unwrap(), &root), want);
        let read = read_bundle_manifests(&root.join("manifests")).unwrap();
        assert_eq!(names(&read.sources, &root), want);
        assert_eq!(read.bundle_roots, [], "nothing to say of its root");
        // A folder inside manifests/ is not read, and the bundle's root says
        // so (OLM refuses the bundle): read as a root, on its own, or for --bundles.
        std::fs::create_dir_all(root.join("manifests/more")).unwrap();
        std::fs::write(root.join("manifests/more/hidden.yaml"), "kind: ClusterRole\n").unwrap();
        let more = root.join("manifests/more").display().to_string();
        for read in [
            read_input(&root).unwrap(),
            read_input(&root.join("manifests")).unwrap(),
            read_bundle_manifests(&root.join("manifests")).unwrap(),
        ] {
            assert_eq!(names(&read.sources, &root), want);
            let roots: Vec<(&str, &[String])> =
                read.bundle_roots.iter().map(|r| (r.path.as_str(), r.subfolders.as_slice())).collect();
            assert_eq!(roots, [(root.display().to_string().as_str(), std::slice::from_ref(&more))]);
        }
        // Where no bundle is judged, it is an error.
        assert!(matches!(read_path(&root), Err(InputError::Subfolder { path }) if path.ends_with("manifests/more")));
        std::fs::remove_dir_all(root.join("manifests/more")).unwrap();
        symlink(root.join("metadata"), root.join("manifests/linked")).unwrap();
        let linked = |e: &InputError| matches!(e, InputError::Subfolder { path } if path.ends_with("manifests/linked"));
        assert!(read_path(&root).is_err_and(|e| linked(&e)));
        assert!(manifest_files(&root).is_err_and(|e| linked(&e)));
    }

    #[test]
    fn a_catalog_laid_out_like_a_bundle_is_read_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("catalog");
        for dir in ["x/manifests", "x/metadata", "x/tests"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in ["x/manifests/a.yaml", "x/metadata/annotations.yaml", "x/tests/b.json"] {
            std::fs::write(root.join(file), "schema: olm.bundle\n").unwrap();
        }
        let names = || -> Vec<String> {
            let files = catalog_files(&root).unwrap();
            files.iter().map(|f| f.strip_prefix(&root).unwrap().display().to_string()).collect()
        };
        assert_eq!(names(), ["x/manifests/a.yaml", "x/metadata/annotations.yaml", "x/tests/b.json"]);
        // What .indexignore files ignore is not read, nor are they.
        std::fs::write(root.join(".indexignore"), "tests/\n").unwrap();
        std::fs::write(root.join("x/.indexignore"), "# the bundle's objects\nmanifests\n").unwrap();
        assert_eq!(names(), ["x/metadata/annotations.yaml"]);
        // opm does not follow a link to a folder.
        symlink(root.join("x/tests"), root.join("y")).unwrap();
        assert!(matches!(catalog_files(&root), Err(InputError::CatalogFolderLink { path }) if path.ends_with("y")));
    }

    #[test]
    fn every_path_of_a_catalog_is_held_to_indexignore_on_its_own_as_opm_does() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("catalog");
        std::fs::create_dir_all(root.join("sub/x")).unwrap();
        std::fs::write(root.join("main.yaml"), "schema: olm.package\n").unwrap();
        std::fs::write(root.join("a-evil.yaml"), "schema: olm.bundle\n").unwrap();
        std::fs::write(root.join("sub/x/evil.yaml"), "schema: olm.bundle\n").unwrap();
        std::fs::write(root.join(".indexignore"), "*evil.yaml\n!x/evil.yaml\n").unwrap();
        let names = || -> Vec<String> {
            let files = catalog_files(&root).unwrap();
            files.iter().map(|f| f.strip_prefix(&root).unwrap().display().to_string()).collect()
        };
        assert_eq!(names(), ["main.yaml"]);
        // A file reached by a second path is read there too, if that path is not ignored.
        symlink(root.join("a-evil.yaml"), root.join("z.yaml")).unwrap();
        assert_eq!(names(), ["main.yaml", "z.yaml"]);
        // A linked .indexignore is read for its own folder: there, x/evil.yaml is kept.
        symlink(root.join(".indexignore"), root.join("sub/.indexignore")).unwrap();
        assert_eq!(names(), ["main.yaml", "sub/x/evil.yaml", "z.yaml"]);
    }

    #[test]
    fn stdin_on_a_terminal_is_refused_with_what_was_expected() {
        let refused = refuse_terminal("render reads manifests", "pass them as paths", false, true);
        assert_eq!(refused.as_deref(), Some("render reads manifests, and stdin is a terminal: pass them as paths"));
        assert_eq!(refuse_terminal("x", "y", true, true), None, "a path is given");
        assert_eq!(refuse_terminal("x", "y", false, false), None, "stdin is a pipe");
    }

    #[test]
    fn fifos_and_devices_are_refused_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("pipe.yaml");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let not_regular = |r: Result<Vec<Source>, InputError>, end: &str| matches!(r, Err(InputError::NotRegular { path }) if path.ends_with(end));
        assert!(not_regular(read_path(&fifo), "pipe.yaml"));
        assert!(not_regular(read_path(tmp.path()), "pipe.yaml"));
        assert!(not_regular(read_path(Path::new("/dev/zero")), "zero"));
        let root = tmp.path().join("pkg");
        std::fs::create_dir_all(&root).unwrap();
        symlink("/dev/zero", root.join("zero.yaml")).unwrap();
        let outside = read_path(&root);
        assert!(
            matches!(outside, Err(InputError::LinkOutside { path, target, .. }) if path.ends_with("zero.yaml") && target == Path::new("/dev/zero"))
        );
    }
}
