//! Reading for both runners: the typed views the planner works from, built
//! from the chunks the YAML reader cut, and the configs, each problem a
//! result that names the object, the field and the file.

use serde::Deserialize;

use crate::config::{Config, RbacConfigDoc};
use crate::findings::{Code, FileRef, Finding, ObjRef};
use crate::model::{view_for, Body, InputObject, ViewKind};
use crate::yaml::{self, Chunk};

/// Builds the core's input: headers for all, typed views for CRDs and CSVs.
pub(crate) fn read_objects<'a>(
    chunks: &[Chunk<'a>],
    file_of: impl Fn(&Chunk<'a>, usize) -> Option<FileRef>,
    results: &mut Vec<Finding>,
) -> Vec<InputObject> {
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let file = file_of(chunk, i);
            for note in &chunk.notes {
                results.push(
                    Finding::warning(Code::YamlMergeAmbiguous, note.clone())
                        .on(&chunk.header.object_ref())
                        .in_file(file.as_ref()),
                );
            }
            let body = match view_for(&chunk.header) {
                None => Ok(Body::Other),
                Some(ViewKind::Crd) => yaml::parse_item(chunk).map(Body::Crd),
                Some(ViewKind::Csv) => yaml::parse_item(chunk).map(Body::Csv),
                Some(ViewKind::Role) => yaml::parse_item(chunk).map(Body::Role),
                Some(ViewKind::Binding) => yaml::parse_item(chunk).map(Body::Binding),
                Some(ViewKind::Extension) => yaml::parse_item(chunk).map(Body::Extension),
                Some(ViewKind::Catalog) => yaml::parse_item(chunk).map(Body::Catalog),
                Some(ViewKind::Service) => yaml::parse_item(chunk).map(Body::Service),
                Some(ViewKind::Workload) => yaml::parse_item(chunk).map(Body::Workload),
                Some(ViewKind::WebhookConfig) => yaml::parse_item(chunk).map(Body::WebhookConfig),
                Some(ViewKind::ConsolePlugin) => yaml::parse_item(chunk).map(Body::ConsolePlugin),
            };
            let body = body.unwrap_or_else(|e| {
                results.push(view_finding(e, Code::ObjectInvalid, &chunk.header.object_ref(), file.as_ref(), ""));
                Body::Other
            });
            InputObject { header: chunk.header.clone(), body, file }
        })
        .collect()
}

/// A view's error as a finding of `code`: `ObjectInvalid` for an object,
/// `ConfigInvalid` for the config.
pub(crate) fn view_finding(
    e: yaml::ViewError,
    code: Code,
    object: &ObjRef,
    file: Option<&FileRef>,
    strip: &str,
) -> Finding {
    let mut message = e.message;
    if let Some(pos) = e.pos {
        message = format!("{message} (line {}, column {})", pos.line, pos.col);
    }
    let mut f = Finding::error(code, message).on(object).in_file(file);
    if let Some(path) = e.path {
        f = f.at(path.strip_prefix(strip).unwrap_or(&path).to_string());
    }
    f
}

pub(crate) fn read_config(
    chunk: &Chunk<'_>,
    file: Option<&FileRef>,
    strip: &str,
    results: &mut Vec<Finding>,
) -> Option<Config> {
    let object = chunk.header.object_ref();
    let doc: Result<RbacConfigDoc, _> = if strip.is_empty() {
        yaml::parse_item(chunk)
    } else {
        yaml::parse_item::<FunctionConfigEntry>(chunk).map(|e| e.function_config)
    };
    match doc {
        Ok(doc) => match Config::from_doc(doc) {
            Ok(config) => Some(config),
            Err(errors) => {
                results.extend(errors.into_iter().map(|f| f.in_file(file)));
                None
            }
        },
        Err(e) => {
            results.push(view_finding(e, Code::ConfigInvalid, &object, file, strip));
            None
        }
    }
}

#[derive(Deserialize)]
struct FunctionConfigEntry {
    #[serde(rename = "functionConfig")]
    function_config: RbacConfigDoc,
}

pub(crate) fn yaml_finding(e: &yaml::YamlError, file: Option<&str>) -> Finding {
    let f = Finding::error(Code::YamlInvalid, format!("{} (line {}, column {})", e.message, e.pos.line, e.pos.col));
    match file {
        Some(path) => f.in_file(Some(&FileRef { path: path.to_string(), index: None })),
        None => f,
    }
}
