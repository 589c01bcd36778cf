//! `spec.installer.upgradeFrom`: which of the input's objects are the
//! previous version's bundle, set aside for the installer's upgrade. The
//! previous bundle is the own folder of the ClusterServiceVersion the config
//! names; its objects are not planned from and not written, only handed to
//! the config's installer. Decided here, over typed objects, before the
//! planning input is built; the runner applies it.

use std::collections::BTreeSet;

use crate::config::Config;
use crate::findings::{Code, Finding};
use crate::model::*;

use super::origin::{folder_of, BundleFolders};

/// What `upgradeFrom` sets aside.
#[derive(Debug, Default)]
pub(crate) struct SetAside {
    /// The objects set aside, by index in the input.
    pub indices: BTreeSet<usize>,
    /// For each config (by index) that names a previous version found in the
    /// input: that version's objects, by index.
    pub previous: Vec<(usize, Vec<usize>)>,
    /// Errors, and a note per config saying what was set aside.
    pub results: Vec<Finding>,
}

/// Sets aside each config's previous version.
pub(crate) fn set_aside(configs: &[Config], objects: &[InputObject]) -> SetAside {
    let mut out = SetAside::default();
    for (c, config) in configs.iter().enumerate() {
        let Some(from) = config.installer.as_ref().and_then(|i| i.upgrade_from.as_deref()) else { continue };
        let cfg = config.object_ref();
        // A CSV as the planner reads one (by kind: see `model::view_for`).
        let is_csv = |o: &InputObject| view_for(&o.header) == Some(ViewKind::Csv);
        let named: Vec<&FileRef> = objects
            .iter()
            .filter(|o| is_csv(o) && o.header.name.as_deref() == Some(from))
            .filter_map(|o| o.file.as_ref())
            .collect();
        let file = match named.as_slice() {
            [] => continue,
            [file] => *file,
            _ => {
                let files: Vec<&str> = named.iter().map(|f| f.path.as_str()).collect();
                out.results.push(
                    Finding::error(Code::CsvAmbiguous, format!(
                        "the input holds {} ClusterServiceVersions named {from:?} ({}): which is the previous version cannot be told; pass only its bundle folder",
                        named.len(),
                        files.join(", ")
                    ))
                    .on(&cfg)
                    .at("spec.installer.upgradeFrom"),
                );
                continue;
            }
        };
        let folder = folder_of(&file.path).to_string();
        let folders = BundleFolders::of_csvs([folder.clone()]);
        let old: Vec<usize> = objects
            .iter()
            .enumerate()
            .filter(|(_, o)| o.file.as_ref().is_some_and(|f| f.path != "-" && folders.own(folder_of(&f.path))))
            .map(|(i, _)| i)
            .collect();
        for o in old.iter().map(|&i| &objects[i]).filter(|o| is_csv(o) && o.header.name.as_deref() != Some(from)) {
            out.results.push(
                Finding::error(Code::CsvAmbiguous, format!(
                    "the previous version's bundle folder also holds this ClusterServiceVersion; give each version's bundle a folder of its own (not {from:?}'s)"
                ))
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            );
        }
        out.results.push(
            Finding::info(Code::InputRead, format!(
                "the previous version {from:?}: {} object(s) from {} read for the installer's upgrade only; they are not planned from or written",
                old.len(),
                folder
            ))
            .on(&cfg)
            .at("spec.installer.upgradeFrom"),
        );
        out.indices.extend(old.iter().copied());
        out.previous.push((c, old));
    }
    out
}
