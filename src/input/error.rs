//! Why a path cannot be read as the input: each refusal a value, with the
//! path it is about, worded for the user when shown.

use std::path::PathBuf;

/// Why `input` cannot read what a command was given.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file system refused: a missing file, a permission.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path asked for.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// stdin could not be read.
    #[error("reading stdin: {0}")]
    Stdin(#[source] std::io::Error),
    /// A FIFO, socket or device among the paths.
    #[error("{}: not a regular file or directory (a FIFO, socket or device); olm-rbac reads those only as stdin: pass - and redirect it", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
    },
    /// A folder inside a bundle's `manifests/`, where a command judges no bundle.
    #[error("{}: a folder inside a bundle's manifests/; OLM refuses such a bundle (subdirectories are not allowed within its manifests directory)", path.display())]
    Subfolder {
        /// The folder.
        path: PathBuf,
    },
    /// A symbolic link that leads out of the directory given.
    #[error("{}: a symbolic link to {}, outside {}; olm-rbac reads only files inside the directories it is given", path.display(), target.display(), root.display())]
    LinkOutside {
        /// The link.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
        /// The directory given.
        root: PathBuf,
    },
    /// A symbolic link to a folder in a catalog, which opm does not follow.
    #[error("{}: a symbolic link to a folder in a catalog; opm does not follow it (it reads the link as a file, and fails), so neither does olm-rbac", path.display())]
    CatalogFolderLink {
        /// The link.
        path: PathBuf,
    },
    /// A catalog file whose name is not UTF-8: `.indexignore` cannot be applied to it.
    #[error("{}: a file name that is not UTF-8; opm's .indexignore patterns cannot be told for it", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
}

impl InputError {
    /// The file system's refusal of `path`.
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> InputError + '_ {
        move |source| InputError::Io { path: path.to_path_buf(), source }
    }
}
