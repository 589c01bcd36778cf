//! The verdict on a judged bundle, decided once: pass, fail, uninstallable or
//! unjudged, from the judgement's typed findings and what the
//! ClusterExtension asks. render, the KRM function, the catalog commands and
//! `diff -c` read it; text, JSON, SARIF and KRM results are its writers.

use schemars::JsonSchema;
use serde::Serialize;

use super::Judgement;
use crate::findings::{Code, DangerLevel, Finding, ObjRef, Severity};
use crate::plan::installable::{refusals, Asked, Install};

/// How one bundle fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Its install passes the admin's config and policy, and OLM v1 installs it.
    Pass,
    /// Its install breaks the config or the policy: the reasons are the errors.
    Fail,
    /// Its manifests cannot be read as OLM reads them, or are not the bundle's.
    Unjudged,
    /// OLM v1 refuses to install it, whatever its RBAC (the reasons name each rule).
    Uninstallable,
}

impl Verdict {
    /// The word rows and summaries use.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Unjudged => "unjudged",
            Verdict::Uninstallable => "uninstallable",
        }
    }
}

/// Who says what the ClusterExtension asks of the install.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Extension<'a> {
    /// The admin's ClusterExtension among the inputs, which the plan judged
    /// (render, the KRM function, `diff -c`).
    InInput,
    /// The one given beside a catalog (`catalog judge -f`), or none
    /// (`catalog audit`, `catalog filter`): the inputs are the bundle alone,
    /// so what the plan says of a ClusterExtension it lacks is no verdict.
    Given {
        /// What it asks; `None` without one.
        asked: Option<Asked<'a>>,
        /// It, as results name it.
        object: Option<&'a ObjRef>,
    },
}

/// The verdict and its reasons, each a finding.
#[derive(Debug, Clone)]
pub(crate) struct Decision<'j> {
    pub verdict: Verdict,
    /// Why it is not a pass: OLM's refusals for an uninstallable bundle, the
    /// errors for a failed one, what could not be read for an unjudged one.
    pub reasons: Vec<Finding>,
    /// Every dangerous grant, worst first.
    pub dangerous: Vec<&'j Finding>,
    /// Every other warning: what render warns of besides.
    pub warnings: Vec<&'j Finding>,
    /// Whether the plan holds no error about the bundle: render wrote its
    /// output, and the cluster's RBAC after it is a version to gain over.
    pub rendered: bool,
}

impl Decision<'_> {
    /// The warnings about the admin's RBACConfig, not the bundle: the same
    /// for every bundle judged with it.
    pub(crate) fn about_the_config(&self) -> impl Iterator<Item = &Finding> {
        self.warnings.iter().copied().filter(|f| f.object.as_ref().is_some_and(|o| o.kind == crate::config::KIND))
    }

    /// The worst level of the dangerous grants.
    pub(crate) fn worst(&self) -> Option<DangerLevel> {
        self.dangerous.first().and_then(|f| f.danger)
    }
}

impl Judgement {
    /// The verdict on the bundle judged, with `extension`'s request.
    pub(crate) fn verdict(&self, extension: Extension<'_>) -> Decision<'_> {
        let findings: Vec<&Finding> = self.plan.findings().collect();
        let mut dangerous: Vec<&Finding> = findings.iter().copied().filter(|f| f.danger.is_some()).collect();
        dangerous.sort_by_key(|f| std::cmp::Reverse(f.danger));
        let mut warnings: Vec<&Finding> =
            findings.iter().copied().filter(|f| f.severity == Severity::Warning && f.danger.is_none()).collect();
        let mut decided = |verdict, reasons| Decision {
            verdict,
            reasons,
            dangerous: std::mem::take(&mut dangerous),
            warnings: std::mem::take(&mut warnings),
            rendered: false,
        };
        if let Some(f) = findings.iter().find(|f| f.code == Code::YamlInvalid) {
            return decided(Verdict::Unjudged, vec![(*f).clone()]);
        }
        let errors = findings.iter().copied().filter(|f| f.severity == Severity::Error);
        // What the inputs say of a ClusterExtension: the plan's, where it is
        // among them; the one given, judged here, where it is not.
        let (of_the_bundle, given): (Vec<&Finding>, _) = match extension {
            Extension::InInput => (errors.collect(), None),
            Extension::Given { asked, object } => {
                (errors.filter(|f| f.code != Code::AdmissionPolicyBlocked).collect(), Some((asked, object)))
            }
        };
        let mut refused: Vec<Finding> =
            of_the_bundle.iter().filter(|f| f.code.refuses_install()).map(|f| (*f).clone()).collect();
        // Where OLM v1 installs the bundle (a catalog's), what the plan only
        // warns of for want of a ClusterExtension in the input refuses it too.
        if given.is_some() {
            let warned = findings.iter().filter(|f| f.severity == Severity::Warning && f.code == Code::Uninstallable);
            refused.extend(warned.map(|f| Finding { severity: Severity::Error, ..(*f).clone() }));
        }
        // What OLM installs is known once the input was planned; refused
        // before that, its errors are the verdict.
        if let Some((asked, object)) = given.filter(|_| self.plan.planned()) {
            let more: Vec<Finding> =
                self.refusals(asked, object).into_iter().filter(|r| !refused.contains(r)).collect();
            refused.extend(more);
        }
        if !refused.is_empty() {
            return decided(Verdict::Uninstallable, refused);
        }
        let rendered = of_the_bundle.is_empty();
        let mut reasons: Vec<Finding> = of_the_bundle.into_iter().cloned().collect();
        if let Some((Some(asked), object)) = given {
            reasons.extend(self.elsewhere(asked, object));
        }
        let verdict = if reasons.is_empty() { Verdict::Pass } else { Verdict::Fail };
        Decision { rendered, ..decided(verdict, reasons) }
    }

    /// Why OLM v1 would refuse to install the bundle for `extension`, each an
    /// error on the field (`plan::installable`), over the CRDs OLM installs
    /// with it, as the plan reads them: empty when it installs it, or when
    /// the inputs hold no ClusterServiceVersion.
    pub(crate) fn refusals(&self, extension: Option<Asked<'_>>, object: Option<&ObjRef>) -> Vec<Finding> {
        use crate::config::FeatureGate;
        use crate::model::Body;
        let Some((csv, view)) = self.csv_object() else { return Vec::new() };
        let single_own_namespace = FeatureGate::single_own_namespace(&self.olm_feature_gates);
        let install = Install { single_own_namespace, extension };
        let shipped = self.plan.shipped();
        let crds = (self.objects.iter().enumerate())
            .filter(|(i, o)| shipped.contains(i) && matches!(o.body, Body::Crd(_)))
            .filter_map(|(_, o)| o.header.name.as_deref());
        refusals(view, crds, &install)
            .iter()
            .map(|r| {
                let on = if r.on_extension() { extension_ref(object) } else { csv.object_ref() };
                let file = if r.on_extension() { None } else { csv.file.as_ref() };
                Finding::error(Code::Uninstallable, r.message()).on(&on).at(r.field.as_str()).in_file(file)
            })
            .collect()
    }

    /// The ClusterExtension installs where the operator was judged, or the
    /// verdict is about another install.
    fn elsewhere(&self, asked: Asked<'_>, object: Option<&ObjRef>) -> Option<Finding> {
        let (asked, judged) = asked.namespace.zip(self.install_namespace.as_deref()).filter(|(a, j)| a != j)?;
        Some(
            Finding::error(Code::PinInstall, format!(
                "{asked:?} is not {judged:?}, the namespace olm-rbac judged the operator in (spec.operator.installNamespace): its namespaced permissions would land in another namespace than judged; set one to the other"
            ))
            .on(&extension_ref(object))
            .at("spec.namespace"),
        )
    }
}

/// The ClusterExtension given beside the catalog, as results name it.
fn extension_ref(object: Option<&ObjRef>) -> ObjRef {
    object.cloned().unwrap_or_else(|| ObjRef { kind: "ClusterExtension".into(), ..Default::default() })
}

#[cfg(test)]
mod tests;
