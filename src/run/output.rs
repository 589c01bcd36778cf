//! Writing for both runners: an item's text as it goes out, and the exit
//! code and stderr lines the results make.

use std::borrow::Cow;

use crate::findings::{Code, Finding, ObjRef, Severity};
use crate::plan::Plan;
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
            Finding::warning(Code::Reserialised,
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

pub(super) fn exit_code(results: &[Finding]) -> crate::outcome::Exit {
    crate::outcome::Exit::refused_if(results.iter().any(|r| r.severity == Severity::Error))
}

/// The results in the order stderr shows them: what was done (info), then
/// what to look at (warning), then what failed (error), each kind in the
/// order the run found them, so that the last line of a failed run, above the
/// count, is an error.
pub(super) fn in_order(results: &[Finding]) -> Vec<&Finding> {
    let mut ordered: Vec<&Finding> = results.iter().collect();
    ordered.sort_by_key(|r| std::cmp::Reverse(r.severity));
    ordered
}

/// The results in the order a ResourceList's `results` carries them: what
/// failed (error) first, then what to look at (warning), then what was done
/// (info), each kind in the order the run found them. kpt shows the first few
/// results and cuts the rest, so the first line a kpt user sees is the error
/// and its fix.
pub(super) fn errors_first(results: &[Finding]) -> Vec<&Finding> {
    let mut ordered: Vec<&Finding> = results.iter().collect();
    ordered.sort_by_key(|r| r.severity);
    ordered
}

/// What stderr shows of the results: each on a line, in [`in_order`], then
/// the [`summary`]; with `quiet`, the errors alone.
pub(super) fn stderr_lines(results: &[Finding], quiet: bool) -> String {
    if quiet {
        return results.iter().filter(|r| r.severity == Severity::Error).map(|r| format!("{r}\n")).collect();
    }
    let mut out: String = in_order(results).iter().map(|r| format!("{r}\n")).collect();
    if let Some(summary) = summary(results) {
        out.push_str(&summary);
        out.push('\n');
    }
    out
}

/// One line after the results that counts them, when any is an error or a
/// warning (`2 errors, 14 warnings`); nothing when all went well.
pub(super) fn summary(results: &[Finding]) -> Option<String> {
    let count = |severity: Severity| results.iter().filter(|r| r.severity == severity).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let plural = |n: usize, word: &str| if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") };
    (errors + warnings > 0).then(|| format!("{}, {}", plural(errors, "error"), plural(warnings, "warning")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_come_last_and_a_summary_counts_them() {
        let results = [
            Finding::error(Code::ConfigInvalid, "e1"),
            Finding::warning(Code::DangerWildcard, "w1"),
            Finding::info(Code::Summary, "i1"),
            Finding::error(Code::ConfigInvalid, "e2"),
            Finding::warning(Code::DangerWildcard, "w2"),
        ];
        assert_eq!(
            stderr_lines(&results, false),
            "info: i1\nwarning: w1\nwarning: w2\nerror: e1\nerror: e2\n2 errors, 2 warnings\n"
        );
        assert_eq!(stderr_lines(&results, true), "error: e1\nerror: e2\n", "quiet: the errors alone");
        assert_eq!(summary(&[Finding::warning(Code::DangerWildcard, "w")]).as_deref(), Some("0 errors, 1 warning"));
        assert_eq!(summary(&[Finding::error(Code::ConfigInvalid, "e")]).as_deref(), Some("1 error, 0 warnings"));
        assert_eq!(
            stderr_lines(&[Finding::info(Code::Summary, "i")], false),
            "info: i\n",
            "no summary when all went well"
        );
    }
}
