//! Results: what the function tells the user, in the KRM `results` shape.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

pub(crate) use crate::model::{FileRef, ObjRef};

mod code;

pub(crate) use code::Code;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Error,
    Warning,
    Info,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub severity: Severity,
    pub message: String,
    pub object: Option<ObjRef>,
    /// Dotted path of the field, e.g. `spec.names.plural`.
    pub field: Option<String>,
    pub file: Option<FileRef>,
    /// What kind of result it is: SARIF's rule, the KRM result's tag, what
    /// tests match (see [`Code`]).
    pub code: Code,
    /// A dangerous grant it reports, by the worst level of the catalogue of
    /// dangerous permissions it holds (`access::danger`); a value the catalog
    /// commands read, never read back from the message.
    pub danger: Option<DangerLevel>,
    /// Whether the text output shows it (see [`Shown`]).
    pub shown: Shown,
}

pub(crate) use crate::access::danger::Severity as DangerLevel;

/// Findings about one holder are capped in the text output, so that a role
/// of many rules bound many times does not say the same thing rules ×
/// bindings times; every one is still a value the catalog commands read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Shown {
    /// In every output.
    #[default]
    Always,
    /// Past the cap: a value only, left out of the text.
    PastCap,
    /// The text's count of what the cap left out ("and N more like it"):
    /// text only, never a value of its own.
    CapCount,
}

impl Finding {
    pub(crate) fn new(code: Code, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            severity,
            message: message.into(),
            object: None,
            field: None,
            file: None,
            code,
            danger: None,
            shown: Shown::Always,
        }
    }
    /// Reports a dangerous grant of this level.
    pub(crate) fn dangerous(mut self, level: DangerLevel) -> Self {
        self.danger = Some(level);
        self
    }
    pub(crate) fn error(code: Code, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, message)
    }
    pub(crate) fn warning(code: Code, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, message)
    }
    pub(crate) fn info(code: Code, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Info, message)
    }
    pub(crate) fn on(mut self, object: &ObjRef) -> Self {
        self.object = Some(object.clone());
        self
    }
    pub(crate) fn at(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
    pub(crate) fn in_file(mut self, file: Option<&FileRef>) -> Self {
        self.file = file.cloned();
        self
    }
}

impl Finding {
    /// What it says about what: `CustomResourceDefinition foo: spec.group: is
    /// missing`, without its severity or file (a SARIF result's message).
    pub(crate) fn said(&self) -> String {
        let mut out = String::new();
        if let Some(o) = &self.object {
            // An object without a kind is named by its name alone.
            out.push_str(&format!("{}: ", o.to_string().trim_start()));
        }
        if let Some(field) = &self.field {
            out.push_str(&format!("{field}: "));
        }
        out.push_str(&self.message);
        out
    }
}

impl Finding {
    /// What it says and where it was found, without its severity:
    /// `CustomResourceDefinition foo: spec.group: is missing [crd.yaml#0]`.
    pub(crate) fn said_in_file(&self) -> String {
        match &self.file {
            Some(FileRef { path, index: Some(i) }) => format!("{} [{path}#{i}]", self.said()),
            Some(FileRef { path, index: None }) => format!("{} [{path}]", self.said()),
            None => self.said(),
        }
    }
}

/// One line for stderr: `error: CustomResourceDefinition foo: spec.group: is missing`.
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        write!(f, "{severity}: {}", self.said_in_file())
    }
}

/// A result as the KRM functions spec writes it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KrmResult<'a> {
    message: &'a str,
    severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_ref: Option<&'a ObjRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<KrmField<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a FileRef>,
    /// The spec's free-form tags: the result's code, under [`CODE_TAG`].
    tags: BTreeMap<&'static str, &'static str>,
}

/// The tag a KRM result carries its code under (see [`Code`]).
pub(crate) const CODE_TAG: &str = "olm-rbac.io/code";

#[derive(Serialize)]
pub(crate) struct KrmField<'a> {
    path: &'a str,
}

/// The findings as the KRM functions spec writes them, for the writer to
/// serialise under `results:`.
pub(crate) fn krm_results(findings: &[Finding]) -> Vec<KrmResult<'_>> {
    findings
        .iter()
        .map(|f| KrmResult {
            message: &f.message,
            severity: f.severity,
            resource_ref: f.object.as_ref(),
            field: f.field.as_deref().map(|path| KrmField { path }),
            file: f.file.as_ref(),
            tags: BTreeMap::from([(CODE_TAG, f.code.id())]),
        })
        .collect()
}
