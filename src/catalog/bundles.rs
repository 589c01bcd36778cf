//! Where each catalog bundle's manifests are read from, and that they are
//! the bundle OLM installs.
//!
//! OLM v1 installs the bundle image the catalog names. So a bundle named by
//! digest is judged from the image of that digest when `--bundles` holds it
//! (an OCI image layout, as `skopeo copy … oci:DIR` writes one) or `--pull`
//! fetches it: its layers applied, only `manifests/` and
//! `metadata/annotations.yaml` read, every blob checked against its digest.
//! A bundle folder under `--bundles` stands in for the image only where no
//! image of that digest is given, and the catalog's own copy
//! (`olm.bundle.object`) only where neither is. Where the catalog carries
//! manifests and an image or folder is given too, they must hold the same
//! objects, or nothing tells which OLM installs: the bundle is unjudged.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::read::Place;
use super::Entry;
use crate::image::{pinned_digest, Client, Digest, Layouts, Platform, Reference, Store};
use crate::input::{BundleRoot, Metadata, Source};

mod folder;
use folder::{by_annotations, read_folder, refuse_links};

/// What the catalog commands and `render --judged-catalog` read bundles from besides the catalog.
#[derive(Debug, Default, Clone)]
pub struct BundleArgs<'a> {
    /// `--bundles`: OCI image layouts and folders of bundle folders.
    pub paths: &'a [PathBuf],
    /// `--platform`: the instance of an image index OLM's cluster pulls; linux/amd64 when `None`.
    pub platform: Option<&'a str>,
    /// `--pull`: fetch bundle images named by digest that `--bundles` does not hold.
    pub pull: Option<PullArgs<'a>>,
    /// `--progress`: say on stderr how far the run has got, and each image pulled.
    pub progress: bool,
}

/// How `--pull` fetches images.
#[derive(Debug, Default, Clone)]
pub struct PullArgs<'a> {
    /// `--image-cache`: the OCI image layout pulled images are kept in; the user's cache folder when `None`.
    pub cache: Option<&'a Path>,
    /// `--tls-verify`: verify registries' certificates (never for a registry on this machine).
    pub tls_verify: bool,
}

/// Where a bundle's manifests were read from (`source` in the report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReadFrom {
    /// The bundle image the catalog names, by its digest.
    Image,
    /// A bundle folder under `--bundles`, standing in for the image.
    Folder,
    /// The catalog's own copy, `olm.bundle.object`.
    Catalog,
}

/// A bundle's manifests: from an image, a folder or the catalog, with what
/// reading it found of its layout.
pub(super) type Manifests = crate::input::Inputs;

/// What was found for one bundle: its manifests, or why they cannot stand
/// for what OLM installs; and where they came from, when anything was found.
pub(super) struct Found {
    pub(super) manifests: Result<Manifests, String>,
    pub(super) from: Option<ReadFrom>,
    /// Which instance of an image index was judged, for the platform.
    pub(super) instance: Option<String>,
    /// The `manifests/` folder they were read from, when they were.
    pub(super) folder: Option<PathBuf>,
}

/// A bundle's folder found: its `manifests/` (none when which one could not
/// be told) and what was read from it.
type InFolder = (Option<PathBuf>, Result<Manifests, String>);

/// Where a manifest judged under the bundle's name
/// (`<bundle>/manifests/<file>`) is on disk: in `folder`, the bundle's
/// `manifests/` it was read from ([`Found::folder`]); none when it came from
/// an image or the catalog.
pub(super) fn on_disk(folder: Option<&Path>, judged: Place) -> Option<Place> {
    let file = folder?.join(judged.file.file_name()?);
    Some(Place { file, line: judged.line })
}

/// The images and folders `--bundles` names, opened once for a run, and
/// what pulls the rest.
pub(super) struct Bundles {
    folders: Vec<PathBuf>,
    layouts: Layouts,
    platform: Platform,
    puller: Option<Puller>,
    progress: bool,
}

/// `--pull`: the registry client, and the cache it pulls into.
struct Puller {
    client: Client,
    cache: Store,
}

impl Bundles {
    /// How the run says how far it has got: on stderr with `--progress`;
    /// `total`: the bundles it will judge, when known.
    pub(super) fn progress(&self, total: Option<usize>) -> super::progress::Progress {
        super::progress::Progress::on_stderr(self.progress, total)
    }

    /// Opens every image layout among `args.paths` (each path a layout, or a
    /// folder holding layouts or bundle folders).
    pub(super) fn open(args: &BundleArgs<'_>) -> Result<Bundles, String> {
        let platform = match args.platform {
            None => Platform::default(),
            Some(p) => Platform::parse(p).map_err(|e| format!("--platform: {e}"))?,
        };
        for path in args.paths {
            if !path.is_dir() {
                return Err(format!("--bundles {}: not a folder", path.display()));
            }
        }
        let puller = args.pull.as_ref().map(|pull| Puller::open(pull, args.progress)).transpose()?;
        let mut paths: Vec<&Path> = args.paths.iter().map(PathBuf::as_path).collect();
        if let Some(puller) = &puller {
            paths.push(puller.cache.root());
        }
        let layouts = Layouts::open(&paths).map_err(|e| format!("--bundles: {e}"))?;
        Ok(Bundles { folders: args.paths.to_vec(), layouts, platform, puller, progress: args.progress })
    }

    /// Pulls the image `digest` names into the cache, unless a layout holds
    /// it already (a second run asks no registry). Why it cannot, if not.
    fn pull(&mut self, image: &str, digest: &Digest) -> Result<(), String> {
        if self.layouts.holds(digest) {
            return Ok(());
        }
        self.pull_again(image, digest)
    }

    /// Pulls the image `digest` names into the cache whether or not a layout
    /// holds it (blobs already sound in the cache are kept).
    fn pull_again(&mut self, image: &str, digest: &Digest) -> Result<(), String> {
        let Some(puller) = &mut self.puller else { return Ok(()) };
        let reference = Reference::parse(image).map_err(|e| format!("its image {image:?} cannot be pulled: {e}"))?;
        let pulled = puller
            .client
            .pull(&reference, &self.platform, &mut puller.cache)
            .map_err(|e| format!("its image could not be pulled, so it is not judged: {e}"))?;
        if &pulled != digest {
            return Err(format!("its image was pulled as {pulled}, not {digest}, so it is not judged"));
        }
        self.layouts
            .add_image(puller.cache.root(), &pulled)
            .map_err(|e| format!("its image, pulled into {}, cannot be read: {e}", puller.cache.root().display()))
    }

    /// The bundle's manifests, from the first of: its image by digest, its
    /// folder, the catalog's `carried` copy. The error is a folder reached
    /// through a symbolic link, which stops the run.
    pub(super) fn find(&mut self, entry: &Entry, carried: Option<Vec<Source>>) -> Result<Found, String> {
        let digest = entry.image.as_deref().and_then(pinned_digest);
        if let (Some(image), Some(digest)) = (entry.image.as_deref(), &digest) {
            if let Err(why) = self.pull(image, digest) {
                return Ok(Found { manifests: Err(why), from: Some(ReadFrom::Image), instance: None, folder: None });
            }
        }
        let (mut instance, mut folder) = (None, None);
        let given = match digest.clone().filter(|d| self.layouts.holds(d)) {
            Some(digest) => Some((ReadFrom::Image, self.image_or_pull(entry, &digest, &mut instance))),
            None => self.folder(entry)?.map(|(dir, read)| {
                folder = dir;
                (ReadFrom::Folder, read)
            }),
        };
        let found = |manifests, from| Found { manifests, from, instance: instance.clone(), folder: folder.clone() };
        Ok(match (given, carried) {
            (Some((from, Ok(read))), Some(carried)) => {
                found(agree(&read.sources, &carried, from).map(|()| read), Some(from))
            }
            (Some((from, read)), _) => found(read, Some(from)),
            (None, Some(carried)) => {
                found(Ok(Manifests { sources: carried, bundle_roots: Vec::new() }), Some(ReadFrom::Catalog))
            }
            (None, None) => found(Err(self.nothing_for(entry, digest.as_ref())), None),
        })
    }

    /// Why nothing can be judged for the bundle.
    fn nothing_for(&self, entry: &Entry, digest: Option<&Digest>) -> String {
        let given = match (digest, self.folders.is_empty()) {
            (_, true) => "no --bundles were given (--pull fetches an image named by digest)".to_string(),
            (Some(d), false) => {
                format!("--bundles holds no image of its digest ({d}) nor folder for it (--pull fetches it)")
            }
            (None, false) => "--bundles has no folder for it (its image is not named by digest)".to_string(),
        };
        format!(
            "the catalog carries no manifests for {} (no olm.bundle.object), and {given}: it cannot be judged",
            entry.name
        )
    }

    /// [`Bundles::image`]; with `--pull`, an image that cannot be read (a
    /// blob damaged or missing in the cache, an index cached for another
    /// platform) is pulled again once, and read again.
    fn image_or_pull(
        &mut self,
        entry: &Entry,
        digest: &Digest,
        instance: &mut Option<String>,
    ) -> Result<Manifests, String> {
        let read = self.image(entry, digest, instance);
        match (&read, entry.image.as_deref()) {
            (Err(_), Some(image)) if self.puller.is_some() => match self.pull_again(image, digest) {
                Ok(()) => self.image(entry, digest, instance),
                Err(_) => read,
            },
            _ => read,
        }
    }

    /// The bundle image of `digest`, read as operator-controller reads it.
    fn image(&self, entry: &Entry, digest: &Digest, instance: &mut Option<String>) -> Result<Manifests, String> {
        let image = self
            .layouts
            .bundle(digest, &self.platform)
            .map_err(|e| format!("its image {digest} cannot be read as OLM reads it, so it is not judged: {e}"))?;
        if &image.digest != digest {
            *instance = Some(format!(
                "its image {digest} is an image index: its {} instance {} was judged (nodes of another platform install another; judge each with --platform)",
                self.platform, image.digest
            ));
        }
        let named = |file: &str| format!("{}/manifests/{file}", entry.name);
        let mut sources = Vec::new();
        for (file, bytes) in image.manifests {
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("its image {digest}: manifests/{file}: not UTF-8 text; OLM cannot decode it"))?;
            sources.push(Source { name: named(&file), text });
        }
        let metadata = match image.annotations {
            Some(bytes) => Metadata::Read(String::from_utf8(bytes).map_err(|_| {
                format!("its image {digest}: metadata/annotations.yaml: not UTF-8 text; OLM cannot decode it")
            })?),
            None => Metadata::MissingFromImage,
        };
        let subfolders = image.subfolders.iter().map(|f| format!("{}/{f}", entry.name)).collect();
        let root = BundleRoot { path: entry.name.clone(), skipped: Vec::new(), subfolders, metadata };
        Ok(Manifests { sources, bundle_roots: vec![root] })
    }

    /// The bundle's folder under one of the `--bundles` paths:
    /// `<package>/<version>/manifests/` (the community operator
    /// repositories' layout) or `<bundle>/manifests/`, read as
    /// operator-controller reads a bundle's (every file; a folder in it, not
    /// read, said by the bundle's root, for the judgement to refuse), with
    /// the folder when one was found; `None` when there is none.
    fn folder(&self, entry: &Entry) -> Result<Option<InFolder>, String> {
        for root in &self.folders {
            let mut candidates: Vec<PathBuf> = vec![root.join(&entry.name).join("manifests")];
            if let Some(v) = &entry.version {
                candidates.insert(0, root.join(&entry.package).join(v.to_string()).join("manifests"));
            }
            if let Some(dir) = candidates.iter().find(|d| d.is_dir()) {
                refuse_links(root, dir)?;
                return Ok(Some((Some(dir.clone()), read_folder(dir, &entry.name))));
            }
        }
        for root in &self.folders {
            match by_annotations(root, entry) {
                Ok(Some(dir)) => {
                    refuse_links(root, &dir)?;
                    let read = read_folder(&dir, &entry.name);
                    return Ok(Some((Some(dir), read)));
                }
                Ok(None) => {}
                Err(why) => return Ok(Some((None, Err(why)))),
            }
        }
        Ok(None)
    }
}

/// A catalog image's catalog written out to be read as a folder, removed
/// when dropped.
pub(super) struct Extracted {
    /// The folder holding the catalog's files.
    pub(super) dir: PathBuf,
}

impl Drop for Extracted {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Bundles {
    /// `--catalog` as a catalog image: an OCI image layout holding one image,
    /// or (with `--pull`) an image reference by digest; its catalog written to
    /// a scratch folder for the catalog reader. `None` for a file or folder.
    pub(super) fn catalog_image(&mut self, given: &Path) -> Result<Option<Extracted>, String> {
        let at = |e: &dyn std::fmt::Display| format!("--catalog {}: {e}", given.display());
        let (layouts, digest) = if given.join("oci-layout").is_file() {
            let layouts = Layouts::open(&[given]).map_err(|e| at(&e))?;
            let tops: Vec<Digest> = layouts.digests().map(|(d, _)| d.clone()).collect();
            match tops.as_slice() {
                [one] => (Some(layouts), one.clone()),
                _ => {
                    return Err(at(&format!(
                        "an OCI image layout of {} images; give one holding the catalog image alone",
                        tops.len()
                    )))
                }
            }
        } else if given.exists() || self.puller.is_none() {
            return Ok(None);
        } else {
            let text = given.to_string_lossy();
            let digest = pinned_digest(&text).ok_or_else(|| {
                at(&"neither a file nor a folder, nor an image reference by digest (REPOSITORY@sha256:…) to pull")
            })?;
            self.pull(&text, &digest).map_err(|e| at(&e))?;
            (None, digest)
        };
        let catalog = layouts.as_ref().unwrap_or(&self.layouts).catalog(&digest, &self.platform).map_err(|e| at(&e))?;
        let extracted = Extracted { dir: scratch_dir().map_err(|e| at(&e))? };
        for (path, bytes) in &catalog.files {
            let file = extracted.dir.join(path);
            let parent = file.parent().unwrap_or(&extracted.dir);
            std::fs::create_dir_all(parent)
                .and_then(|()| std::fs::write(&file, bytes))
                .map_err(|e| at(&format!("{}: {e}", file.display())))?;
        }
        Ok(Some(extracted))
    }
}

/// A new folder of this process's own under the system's temporary folder:
/// created, never reused (a folder or link already at the name is another's,
/// and the next name is tried), readable by this user alone.
fn scratch_dir() -> std::io::Result<PathBuf> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("olm-rbac-catalog-{}-{n}", std::process::id()));
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => continue,
            Err(e) => return Err(e),
        }
    }
}

impl Puller {
    fn open(args: &PullArgs<'_>, progress: bool) -> Result<Puller, String> {
        let cache = match args.cache {
            Some(dir) => dir.to_path_buf(),
            None => crate::image::default_cache_dir(&|name| std::env::var(name).ok()).ok_or(
                "--pull: no cache folder (neither XDG_CACHE_HOME nor HOME is set): name one with --image-cache",
            )?,
        };
        let cache = Store::open_or_create(&cache).map_err(|e| format!("--image-cache {}: {e}", cache.display()))?;
        let mut client = Client::new(crate::image::Options { tls_verify: args.tls_verify });
        if progress {
            client.on_progress(|line| eprintln!("{line}"));
        }
        Ok(Puller { client, cache })
    }
}

/// Whether the image's or folder's manifests hold the objects the catalog
/// carries, whatever their files, order or format: OLM installs the image,
/// and a catalog whose copy differs says nothing true of it.
fn agree(given: &[Source], carried: &[Source], from: ReadFrom) -> Result<(), String> {
    let what = match from {
        ReadFrom::Image => "image",
        _ => "folder under --bundles",
    };
    let (given, carried) = match (objects(given), objects(carried)) {
        (Some(g), Some(c)) => (g, c),
        _ => {
            return Err(format!(
                "the catalog carries manifests (olm.bundle.object) and its {what} too, and one of them cannot be read to compare: which OLM installs cannot be told, so it is not judged"
            ))
        }
    };
    let mut unmatched = carried;
    let mut extra = Vec::new();
    for object in given {
        match unmatched.iter().position(|c| *c == object) {
            Some(i) => {
                unmatched.swap_remove(i);
            }
            None => extra.push(object),
        }
    }
    if extra.is_empty() && unmatched.is_empty() {
        return Ok(());
    }
    let name = |v: &Value| {
        let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
        let name = v.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("?");
        format!("{} {name}", field("kind"))
    };
    let list = |objects: &[Value]| objects.iter().map(name).collect::<Vec<_>>().join(", ");
    Err(format!(
        "the catalog's manifests (olm.bundle.object) and its {what} differ (only in the {what}: {}; only in the catalog: {}): OLM installs the image, and which this is cannot be told, so it is not judged",
        if extra.is_empty() { "none".into() } else { list(&extra) },
        if unmatched.is_empty() { "none".into() } else { list(&unmatched) },
    ))
}

/// Every object in the files, as JSON values; `None` when one cannot be read.
fn objects(sources: &[Source]) -> Option<Vec<Value>> {
    let mut objects = Vec::new();
    for source in sources {
        for mut chunk in crate::yaml::split_documents(&source.text).ok()? {
            // Whole objects: a CRD's schema, which the judgement's views skip, too.
            chunk.elide.clear();
            let value: Value = crate::yaml::parse_item(&chunk).ok()?;
            if !value.is_null() {
                objects.push(value);
            }
        }
    }
    Some(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(name: &str, text: &str) -> Source {
        Source { name: name.into(), text: text.into() }
    }

    #[test]
    fn manifests_agree_whatever_their_files_order_and_format() {
        let image =
            [source("a.yaml", "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata:\n  name: b\n  labels: {x: z}\n")];
        let carried = [
            source("o1.json", r#"{"metadata":{"labels":{"x":"z"},"name":"b"},"kind":"B"}"#),
            source("o0.json", r#"{"kind":"A","metadata":{"name":"a"}}"#),
        ];
        assert_eq!(agree(&image, &carried, ReadFrom::Image), Ok(()));
        let edited = [source("a.yaml", "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata:\n  name: b\n")];
        let why = agree(&edited, &carried, ReadFrom::Image).err().unwrap_or_default();
        assert!(why.contains("only in the image: B b; only in the catalog: B b"), "{why}");
        let more = [source("a.yaml", "kind: A\nmetadata: {name: a}\n")];
        assert!(agree(&more, &carried, ReadFrom::Folder).is_err());
        // A CRD's schema, which the judgement's views skip, is compared too.
        let crd = |t: &str| {
            format!("kind: CustomResourceDefinition\nmetadata: {{name: c}}\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema: {{type: {t}}}\n")
        };
        assert!(
            agree(&[source("c.yaml", &crd("object"))], &[source("c.json", &crd("object"))], ReadFrom::Image).is_ok()
        );
        assert!(
            agree(&[source("c.yaml", &crd("object"))], &[source("c.json", &crd("string"))], ReadFrom::Image).is_err()
        );
        let unreadable = [source("a.yaml", "kind: [")];
        assert!(agree(&unreadable, &carried, ReadFrom::Image).is_err());
    }

    #[test]
    fn only_a_lowercase_sha256_digest_binds_an_image() {
        let hex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(
            pinned_digest(&format!("quay.io/o/b@sha256:{hex}")).map(|d| d.to_string()),
            Some(format!("sha256:{hex}"))
        );
        assert_eq!(
            pinned_digest(&format!("quay.io/o/b:v1@sha256:{hex}")).map(|d| d.hex().to_string()),
            Some(hex.into())
        );
        assert_eq!(pinned_digest("quay.io/o/b:v1"), None);
        assert_eq!(pinned_digest(&format!("quay.io/o/b@sha256:{}", hex.to_uppercase())), None);
    }
}
