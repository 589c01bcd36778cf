//! The verdict from findings alone, without YAML.

use super::*;
use crate::plan::Plan;

fn judgement(findings: Vec<Finding>) -> Judgement {
    Judgement {
        objects: Vec::new(),
        plan: Plan::refused(findings),
        olm_feature_gates: Vec::new(),
        install_namespace: Some("ops".into()),
    }
}

const ALONE: Extension<'static> = Extension::Given { asked: None, object: None };

#[test]
fn no_error_passes_and_an_error_fails() {
    let warned = judgement(vec![Finding::warning(Code::DangerExecPods, "w").dangerous(DangerLevel::High)]);
    let decided = warned.verdict(Extension::InInput);
    assert_eq!(decided.verdict, Verdict::Pass);
    assert_eq!(decided.worst(), Some(DangerLevel::High));
    assert!(decided.rendered);
    let failed = judgement(vec![Finding::error(Code::PolicyDenied, "e")]);
    let decided = failed.verdict(ALONE);
    assert_eq!(decided.verdict, Verdict::Fail);
    assert_eq!(decided.reasons.iter().map(|f| f.code).collect::<Vec<_>>(), [Code::PolicyDenied]);
    assert!(!decided.rendered);
}

/// OLM refusing the bundle is never a policy's word: a kind registry+v1
/// may not hold, or any rule of OLM v1's, makes it uninstallable, and those
/// are its reasons, whatever else failed.
#[test]
fn what_olm_refuses_is_uninstallable_whatever_else_fails() {
    for code in [Code::BundleKindUnsupported, Code::Uninstallable] {
        let j = judgement(vec![Finding::error(Code::PolicyDenied, "e"), Finding::error(code, "refused")]);
        for extension in [Extension::InInput, ALONE] {
            let decided = j.verdict(extension);
            assert_eq!(decided.verdict, Verdict::Uninstallable, "{code:?}");
            assert_eq!(decided.reasons.iter().map(|f| f.code).collect::<Vec<_>>(), [code]);
        }
    }
    // A warning of the same code is what render says without a
    // ClusterExtension: no refusal there, but a catalog's bundle is OLM v1's
    // to install, so there it refuses.
    let j = judgement(vec![Finding::warning(Code::Uninstallable, "w")]);
    assert_eq!(j.verdict(Extension::InInput).verdict, Verdict::Pass);
    assert_eq!(j.verdict(ALONE).verdict, Verdict::Uninstallable);
}

#[test]
fn manifests_that_cannot_be_read_are_unjudged() {
    let j = judgement(vec![Finding::error(Code::YamlInvalid, "bad"), Finding::error(Code::Uninstallable, "r")]);
    assert_eq!(j.verdict(ALONE).verdict, Verdict::Unjudged);
}

/// The admission policy needs the ClusterExtension in render's input: a
/// catalog's bundle is judged without one, so that error is no verdict on
/// it; render's own input is judged by it.
#[test]
fn a_missing_extension_in_the_input_fails_render_only() {
    let j = judgement(vec![Finding::error(Code::AdmissionPolicyBlocked, "no ClusterExtension")]);
    assert_eq!(j.verdict(Extension::InInput).verdict, Verdict::Fail);
    assert_eq!(j.verdict(ALONE).verdict, Verdict::Pass);
}

/// A ClusterExtension given beside the catalog that installs elsewhere than
/// the operator was judged fails, with a result on its spec.namespace.
#[test]
fn an_install_elsewhere_than_judged_fails_on_the_extension() {
    let j = judgement(Vec::new());
    let object = ObjRef { kind: "ClusterExtension".into(), name: "ce".into(), ..Default::default() };
    let asked = Asked { namespace: Some("elsewhere"), config: None };
    let decided = j.verdict(Extension::Given { asked: Some(asked), object: Some(&object) });
    assert_eq!(decided.verdict, Verdict::Fail);
    let [reason] = decided.reasons.as_slice() else { panic!("{:?}", decided.reasons) };
    assert_eq!((reason.code, reason.field.as_deref()), (Code::PinInstall, Some("spec.namespace")));
    assert_eq!(reason.object.as_ref(), Some(&object));
    assert!(decided.rendered, "the bundle itself rendered");
    let here = Asked { namespace: Some("ops"), config: None };
    assert_eq!(j.verdict(Extension::Given { asked: Some(here), object: None }).verdict, Verdict::Pass);
}
