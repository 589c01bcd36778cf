//! Whose each input object is: the bundle's, the admin's, or unknown. This is
//! the one place that decides it; every step that treats the bundle's objects
//! differently (the install policy, the installer, namespace selection,
//! `bundleObjects: Drop`, claims about earlier output) asks here and chooses
//! its own fail-safe reading of [`Origin::Unknown`].
//!
//! Only what the runner or the command line says about an object's file
//! counts (see `model::Header::file_ref`); nothing an object says about
//! itself does. A bundle's own folder is the one that holds its
//! ClusterServiceVersion, or, for a CSV nested below a `manifests/` folder,
//! that `manifests/` folder: everything at or below it is the bundle's. The
//! folder that holds `manifests/` (a registry+v1 bundle's root) holds the
//! bundle's metadata and whatever else it ships beside its manifests, and
//! often the admin's own files too: what sits in its subfolders cannot be
//! told apart, so it is [`Origin::Unknown`], and rendering a bundle's root
//! hides nothing from the steps that read unknown as the bundle's.

use std::collections::BTreeSet;

use crate::model::{Body, InputObject, OLM_V1_GROUP};

/// Whose an object is, by the file it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// From a bundle's folder, or the bundle's ClusterServiceVersion and CRDs.
    Bundle,
    /// From a known file outside every bundle's folder.
    Admin,
    /// No trustworthy file: stdin, a runner that names none, or files named
    /// one by one in the working directory beside a CSV.
    Unknown,
}

/// The origin of every input object, decided once per plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origins {
    of: Vec<Origin>,
    files: Vec<bool>,
    /// A CSV came from stdin, from no file, or from a file in the working
    /// directory: which of its neighbours are the bundle's cannot be known.
    unplaced_bundle: bool,
}

/// The folders of the input's bundles.
#[derive(Debug, Clone, Default)]
pub(crate) struct BundleFolders(Vec<BundleFolder>);

/// Where one bundle's files are: its own folder, and the root that holds it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct BundleFolder {
    own: String,
    root: String,
}

impl Origins {
    /// Classifies every object by its file.
    #[cfg(test)]
    pub(crate) fn classify(objects: &[InputObject]) -> Origins {
        Self::classify_in(objects, &[])
    }

    /// [`Origins::classify`], knowing `bundle_roots`: folders the runner read
    /// as a bundle's root (registry+v1). Everything in one is the bundle's,
    /// wherever the bundle put its CSV: its `manifests/` is the bundle's own
    /// folder, the rest of the root cannot be told apart.
    pub(crate) fn classify_in(objects: &[InputObject], bundle_roots: &[String]) -> Origins {
        let csvs = objects.iter().filter(|o| matches!(o.body, Body::Csv(_))).filter_map(source_folder);
        let roots = bundle_roots.iter().map(|r| format!("{r}/manifests"));
        let folders = BundleFolders::of_csvs(csvs.chain(roots));
        let unrooted = has_unrooted_csv(objects);
        // A CSV from no known file may be a bundle anywhere: nothing can be
        // known to be outside it.
        let unplaced = objects.iter().any(|o| matches!(o.body, Body::Csv(_)) && source_folder(o).is_none());
        let of = objects
            .iter()
            .map(|o| {
                if matches!(o.body, Body::Csv(_) | Body::Crd(_)) {
                    // Whatever its file, a definition is the bundle's to ship.
                    return Origin::Bundle;
                }
                let Some(f) = source_folder(o) else { return Origin::Unknown };
                if folders.own(&f) {
                    Origin::Bundle
                } else if unplaced || folders.in_a_root(&f) || (f.is_empty() && unrooted) {
                    // Beside the bundle's manifests (an unpacked bundle's root holds
                    // whatever its author put there), or beside a CSV named on its
                    // own in the working directory: cannot be told apart.
                    Origin::Unknown
                } else {
                    Origin::Admin
                }
            })
            .collect();
        let files = objects.iter().map(|o| source_folder(o).is_some()).collect();
        Origins { of, files, unplaced_bundle: unplaced || unrooted }
    }

    /// Does every CSV of the input come from a folder, so that the bundle's
    /// objects are known by where they sit? Not for a CSV from stdin, from no
    /// file, or from a file in the working directory.
    pub(crate) fn bundle_folder_known(&self) -> bool {
        !self.unplaced_bundle
    }

    pub(crate) fn of(&self, i: usize) -> Origin {
        self.of.get(i).copied().unwrap_or(Origin::Unknown)
    }

    /// Known to come from a bundle's folder (or to be its CSV or a CRD).
    pub(crate) fn is_bundle(&self, i: usize) -> bool {
        self.of(i) == Origin::Bundle
    }

    /// Does the runner or the command line say which file it came from?
    pub(crate) fn has_file(&self, i: usize) -> bool {
        self.files.get(i).copied().unwrap_or(false)
    }

    /// Known to come from the admin's own files.
    pub(crate) fn is_admin(&self, i: usize) -> bool {
        self.of(i) == Origin::Admin
    }
}

impl BundleFolders {
    /// The bundles whose CSVs are in these folders. A CSV named on its own in
    /// the working directory (folder `""`) gives none: its neighbours cannot
    /// be told from the admin's files.
    pub(crate) fn of_csvs(csv_folders: impl IntoIterator<Item = String>) -> BundleFolders {
        let mut folders: Vec<BundleFolder> =
            csv_folders.into_iter().filter(|f| !f.is_empty()).map(|f| bundle_folder(&f)).collect();
        folders.sort();
        folders.dedup();
        BundleFolders(folders)
    }

    /// Is `folder` a bundle's own folder, or below one?
    pub(crate) fn own(&self, folder: &str) -> bool {
        self.0.iter().any(|b| within(folder, &b.own))
    }

    /// Is `folder` a bundle's root, or below one?
    pub(crate) fn in_a_root(&self, folder: &str) -> bool {
        self.0.iter().any(|b| within(folder, &b.root))
    }

    /// Is `folder` a bundle's own, or a subfolder of a bundle's root (where a
    /// bundle may keep files beside its manifests)? Where configs may not
    /// come from. A config directly in a bundle's root is the documented
    /// layout (`render examples/guestbook/`): pass `--config` when the folder
    /// is an unpacked bundle you did not write.
    pub(crate) fn may_be_bundle(&self, folder: &str) -> bool {
        self.own(folder) || self.0.iter().any(|b| folder != b.root && within(folder, &b.root))
    }
}

/// The folder an object's file is in, when the runner says (stdin, `-`, says nothing).
pub(crate) fn source_folder(o: &InputObject) -> Option<String> {
    let f = o.file.as_ref().filter(|f| f.path != "-")?;
    Some(folder_of(&f.path).to_string())
}

/// The folder part of a file path (`""` for a file in the working directory).
pub(crate) fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The own folder of the bundle whose CSV is in `folder` (see [`BundleFolders`]).
pub(crate) fn own_folder(folder: &str) -> String {
    bundle_folder(folder).own
}

/// The folders of the bundle whose CSV is in `folder`: its own (the nearest
/// `manifests/` folder on the path, else `folder`) and its root (the folder
/// that holds that `manifests/`, else `folder`).
fn bundle_folder(folder: &str) -> BundleFolder {
    let parts: Vec<&str> = folder.split('/').collect();
    match parts.iter().rposition(|p| *p == "manifests") {
        Some(i) => BundleFolder { own: parts[..=i].join("/"), root: parts[..i].join("/") },
        None => BundleFolder { own: folder.to_string(), root: folder.to_string() },
    }
}

/// Is `folder` the folder `root`, or below it? The root `""` (a bundle whose
/// root is the working directory) holds everything.
pub(crate) fn within(folder: &str, root: &str) -> bool {
    root.is_empty() || folder == root || folder.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
}

/// The bundle's own objects, for `bundleObjects: Drop`: the CSV, the CRDs, and
/// whatever else comes from a bundle's own folder, except kinds that never
/// belong to a bundle and olm-rbac's own earlier output. Unknown is read as
/// not the bundle's: what might be the admin's is never dropped.
pub(crate) fn bundle_members(objects: &[InputObject], origins: &Origins, claims: &[Option<String>]) -> BTreeSet<usize> {
    members_where(objects, claims, |i| origins.is_bundle(i))
}

/// What OLM installs, as the installer account must be able to write it: the
/// bundle's own objects, and, where the input cannot say which folder is the
/// bundle's ([`Origins::bundle_folder_known`]), every object of unknown origin
/// a bundle may ship. Unknown is read as the bundle's there: the account can
/// then install what it is given, a saved output given back counts the same
/// objects as the run that wrote it, and the install gate reads the same
/// objects as the bundle's. The installer step says so.
pub(crate) fn installed_members(
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
) -> BTreeSet<usize> {
    let unplaced = !origins.bundle_folder_known();
    members_where(objects, claims, |i| origins.is_bundle(i) || (unplaced && origins.of(i) == Origin::Unknown))
}

/// The CSV, the CRDs, and the objects `counted` takes, except kinds that
/// never belong to a bundle and olm-rbac's own earlier output.
fn members_where(
    objects: &[InputObject],
    claims: &[Option<String>],
    counted: impl Fn(usize) -> bool,
) -> BTreeSet<usize> {
    let never_bundled = |i: usize, o: &InputObject| {
        let group = o.header.group().unwrap_or_default();
        matches!(
            group,
            "olm.operatorframework.io" | "olm-rbac.io" | "kpt.dev" | "kustomize.config.k8s.io" | "config.kubernetes.io"
        ) || o.is("", "Namespace")
            || claims[i].is_some()
    };
    (0..objects.len())
        .filter(|&i| {
            matches!(objects[i].body, Body::Csv(_) | Body::Crd(_)) || (counted(i) && !never_bundled(i, &objects[i]))
        })
        .collect()
}

fn has_unrooted_csv(objects: &[InputObject]) -> bool {
    objects.iter().any(|o| matches!(o.body, Body::Csv(_)) && source_folder(o).as_deref() == Some(""))
}

/// The input item that is `extension`'s `ClusterExtension`, unless it comes
/// from the bundle's folder: one the bundle ships is the bundle's claim, not
/// the admin's word. (Of unknown origin it is returned: callers that act on
/// the admin's word also ask [`Origins::is_admin`].)
pub(crate) fn extension_object(extension: &str, objects: &[InputObject], origins: &Origins) -> Option<usize> {
    objects.iter().enumerate().position(|(i, o)| {
        !origins.is_bundle(i) && o.is(OLM_V1_GROUP, "ClusterExtension") && o.header.name.as_deref() == Some(extension)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CsvView, FileRef, Header};

    fn at(path: Option<&str>, csv: bool) -> InputObject {
        InputObject {
            header: Header::default(),
            body: if csv { Body::Csv(CsvView::default()) } else { Body::Other },
            file: path.map(|p| FileRef { path: p.into(), index: None }),
        }
    }

    #[test]
    fn a_bundle_is_its_manifests_folder_within_its_root() {
        let b = |own: &str, root: &str| BundleFolder { own: own.into(), root: root.into() };
        assert_eq!(bundle_folder("bundle/manifests"), b("bundle/manifests", "bundle"));
        assert_eq!(bundle_folder("bundle/manifests/nested/deeper"), b("bundle/manifests", "bundle"));
        assert_eq!(bundle_folder("manifests"), b("manifests", ""));
        assert_eq!(bundle_folder("vendor/argocd"), b("vendor/argocd", "vendor/argocd"));
        assert!(within("bundle/extra", "bundle") && within("bundle", "bundle") && within("x", ""));
        assert!(!within("bundles", "bundle") && !within("other/bundle", "bundle"));
    }

    #[test]
    fn rendering_a_bundle_root_or_nesting_the_csv_hides_nothing() {
        let objects = [
            at(Some("bundle/manifests/sub/csv.yaml"), true),
            at(Some("bundle/manifests/role.yaml"), false),
            at(Some("bundle/extra/role.yaml"), false),
            at(Some("bundle/rbac.yaml"), false),
            at(Some("platform/ns.yaml"), false),
            at(Some("-"), false),
            at(None, false),
        ];
        let o = Origins::classify(&objects);
        let got: Vec<Origin> = (0..objects.len()).map(|i| o.of(i)).collect();
        use Origin::*;
        assert_eq!(got, [Bundle, Bundle, Unknown, Unknown, Admin, Unknown, Unknown]);
        let folders = BundleFolders::of_csvs(["bundle/manifests/sub".to_string()]);
        assert!(folders.may_be_bundle("bundle/metadata") && folders.own("bundle/manifests/x"));
        assert!(!folders.may_be_bundle("bundle") && !folders.may_be_bundle("platform"));
    }

    #[test]
    fn nothing_is_known_to_be_outside_a_csv_of_unknown_file() {
        let objects = [at(None, true), at(Some("bundle/manifests/role.yaml"), false), at(Some("mine/ns.yaml"), false)];
        let o = Origins::classify(&objects);
        assert_eq!([o.of(1), o.of(2)], [Origin::Unknown, Origin::Unknown]);
    }

    #[test]
    fn neighbours_of_a_csv_in_the_working_directory_are_unknown() {
        let objects = [at(Some("csv.yaml"), true), at(Some("role.yaml"), false), at(Some("mine/ns.yaml"), false)];
        let o = Origins::classify(&objects);
        assert_eq!([o.of(1), o.of(2)], [Origin::Unknown, Origin::Admin]);
    }
}
