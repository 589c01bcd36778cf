//! Writing for both runners: an item's text as it goes out, and the exit
//! code and stderr lines the results make.

use std::borrow::Cow;

use crate::plan::Plan;
use crate::report::{Finding, ObjRef, Severity};
use crate::yaml::{self, Chunk};

/// An item's text as it goes out: unchanged unless the plan patches it. An
/// item that had to be re-serialised whole is named in a warning.
pub(super) fn item_text<'a>(
    item: &'a Chunk<'_>,
    plan: &Plan,
    index: usize,
    notes: &mut Vec<Finding>,
) -> Result<Cow<'a, str>, String> {
    let Some(patch) = plan.patches().get(&index) else { return Ok(Cow::Borrowed(&item.text)) };
    let object = item.header.object_ref();
    let patched =
        yaml::patched_text(item, patch).map_err(|e| format!("could not update {}: {e}", describe(&object)))?;
    if patched.rewritten {
        notes.push(
            Finding::warning(
                "its labels changed, and its metadata is not laid out so that olm-rbac can edit lines (flow style, anchors, aliases or tags), so the whole item was re-serialised: its comments and layout are gone, its values are the same",
            )
            .on(&object),
        );
    }
    Ok(Cow::Owned(patched.text))
}

pub(super) fn describe(r: &ObjRef) -> String {
    if r.kind.is_empty() {
        "an object without a kind".into()
    } else {
        r.to_string()
    }
}

pub(super) fn exit_code(results: &[Finding]) -> i32 {
    i32::from(results.iter().any(|r| r.severity == Severity::Error))
}

pub(super) fn stderr_lines(results: &[Finding]) -> String {
    results.iter().map(|r| format!("{r}\n")).collect()
}
