//! The render runner: plain multi-document YAML in (standalone, Helm
//! post-renderer), the documents out with the generated ones appended, the
//! results on stderr.

use std::borrow::Cow;

use super::output::{describe, exit_code, item_text, stderr_lines};
use super::{json, Outcome, Source};
use crate::findings::{Code, FileRef, Finding};
use crate::input::BundleRoot;
use crate::judge::{Extension, Judged, Verdict};
use crate::outcome::Exit;
use crate::plan::Plan;
use crate::yaml::{self, Chunk};

/// How `render` writes what it decided: the command line's choices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// `-o`: the documents as YAML, byte for byte, or one JSON `List`.
    pub output: OutputFormat,
    /// `-q`: only errors on stderr.
    pub quiet: bool,
    /// The folders read as a bundle's layout (see [`BundleRoot`]), each said
    /// in an info result.
    pub bundle_roots: Vec<BundleRoot>,
    /// `--sarif FILE`: the errors and warnings also as a SARIF 2.1.0 log, for
    /// code scanning, written whether or not the render succeeds.
    pub sarif: Option<std::path::PathBuf>,
}

/// `render -o`, named on the command line as it is here (`yaml`, `json`).
/// `Yaml`: the documents, separated by `---`, the input's exactly as they
/// came (or edited by whole lines), the generated ones appended. `Json`: a
/// `v1` `List` of the same objects, as `kubectl get -o json` prints several:
/// the values as read, indented by four spaces.
// The variants carry no doc comments: clap would show them as help of their own (hence `missing_docs`
// allowed).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    #[default]
    Yaml,
    Json,
}

/// Standalone mode: manifests in, manifests out, results on stderr. The
/// configs come from `configs` and from among the inputs (and are not echoed).
pub fn render(inputs: &[Source], configs: &[Source]) -> Outcome {
    render_with(inputs, configs, &RenderOptions::default())
}

/// [`render`], written as `options` say.
pub fn render_with(inputs: &[Source], configs: &[Source], options: &RenderOptions) -> Outcome {
    render_judged(inputs, configs, options, None)
}

/// [`render_with`], with what the judged catalog says of the
/// ClusterExtension's range (`render --judged-catalog`).
pub(crate) fn render_judged(
    inputs: &[Source],
    configs: &[Source],
    options: &RenderOptions,
    judged_range: Option<&crate::judge::JudgedRange>,
) -> Outcome {
    let judged = crate::judge::judge_with(inputs, configs, &options.bundle_roots, judged_range);
    let verdict = judged.verdict(Extension::InInput).verdict;
    if let Some(path) = &options.sarif {
        // Every finding, those past the text's cap included, without the
        // text's count of them.
        let lines = judged.lines(false);
        let log = sarif_log(judged.plan.findings(), |file| lines.get(&(file.path.as_str(), file.index)).copied());
        if let Err(e) = std::fs::write(path, log) {
            return Outcome::failure(format!("--sarif {}: {e}", path.display()), crate::outcome::Exit::Refused);
        }
    }
    let Judged { kept, judgement, .. } = judged;
    let plan = judgement.plan;
    // Only a pass writes output: a failed, uninstallable or unjudged bundle
    // leaves nothing half-written.
    if verdict != Verdict::Pass {
        let code = Exit::Refused;
        return Outcome { stdout: String::new(), stderr: stderr_lines(plan.results(), options.quiet), code };
    }
    write_output(inputs, &kept, plan, options)
}

/// render's errors and warnings as a SARIF log, each under its code's rule,
/// at the line its document starts on (`Judged::lines`).
fn sarif_log<'a>(
    results: impl Iterator<Item = &'a Finding>,
    line_of: impl Fn(&crate::findings::FileRef) -> Option<usize>,
) -> String {
    use crate::findings::Severity;
    use crate::sarif::{self, Level};
    let results: Vec<sarif::Result> = results
        .filter_map(|f| {
            let level = match f.severity {
                Severity::Error => Level::Error,
                Severity::Warning => Level::Warning,
                Severity::Info => return None,
            };
            let file = f.file.as_ref().filter(|file| file.path != "-");
            Some(sarif::Result {
                rule: f.code,
                level,
                message: f.said(),
                uri: file.map(|file| file.path.clone()),
                line: file.and_then(&line_of),
            })
        })
        .collect();
    sarif::log(env!("CARGO_PKG_VERSION"), &results)
}

/// What goes out, in order: the kept documents (patched where the plan says)
/// and the generated ones.
enum Out<'a> {
    Kept(Cow<'a, str>, &'a (Chunk<'a>, FileRef)),
    Generated(&'a crate::plan::Generated),
}

/// The output, as `options.output` says, and the results on stderr.
fn write_output(inputs: &[Source], kept: &[(Chunk<'_>, FileRef)], plan: Plan, options: &RenderOptions) -> Outcome {
    let mut notes = Vec::new();
    let mut docs: Vec<Out<'_>> = Vec::new();
    for (i, item) in kept.iter().enumerate() {
        if !plan.remove().contains(&i) {
            match item_text(&item.0, &plan, i, &mut notes) {
                Ok(text) => docs.push(Out::Kept(text, item)),
                Err(e) => return fatal_render(Finding::error(Code::OutputFailed, e), options.quiet),
            }
        }
    }
    docs.extend(plan.generated().iter().map(Out::Generated));
    let written = match options.output {
        OutputFormat::Yaml => {
            write_documents(inputs, &docs).map_err(|e| Box::new(Finding::error(Code::OutputFailed, e)))
        }
        OutputFormat::Json => json::list(docs.iter().map(|d| match d {
            Out::Kept(text, (chunk, file)) => {
                json::Item::Text { text, object: chunk.header.object_ref(), line: chunk.line, file }
            }
            Out::Generated(g) => json::Item::Object(&g.object),
        })),
    };
    let stdout = match written {
        Ok(stdout) => stdout,
        Err(e) => return fatal_render(*e, options.quiet),
    };
    drop(docs);
    let code = exit_code(plan.results());
    let stderr = stderr_lines(&[plan.into_results(), notes].concat(), options.quiet);
    Outcome { stdout, stderr, code }
}

/// The documents separated by `---`, in the first input's line endings.
fn write_documents(inputs: &[Source], docs: &[Out<'_>]) -> Result<String, String> {
    // Separators and generated documents follow the first input's line endings.
    let eol = yaml::line_ending(inputs.first().map_or("", |s| s.text.as_str()));
    let mut texts = Vec::with_capacity(docs.len());
    for doc in docs {
        texts.push(match doc {
            Out::Kept(text, _) => Cow::Borrowed(text.as_ref()),
            Out::Generated(g) => Cow::Owned(yaml::with_line_ending(
                &yaml::to_yaml(&g.object)
                    .map_err(|e| format!("could not write {}: {e}", describe(&g.object.object_ref())))?,
                eol,
            )),
        });
    }
    // Sized once: growing a buffer of megabytes copies it, holding both.
    let mut stdout = String::with_capacity(texts.iter().map(|t| t.len() + 2 * (3 + eol.len())).sum());
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            stdout.push_str("---");
            stdout.push_str(eol);
        }
        stdout.push_str(text);
        if !text.ends_with('\n') {
            stdout.push_str(eol);
        }
    }
    Ok(stdout)
}

fn fatal_render(error: Finding, quiet: bool) -> Outcome {
    Outcome { stdout: String::new(), stderr: stderr_lines(&[error], quiet), code: crate::outcome::Exit::Refused }
}
