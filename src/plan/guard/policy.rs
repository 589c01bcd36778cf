//! How olm-rbac writes a `ValidatingAdmissionPolicy` and its binding, for
//! the pinning policies and the delegations' alike: CEL only, on one of OLM
//! v1's resources, `failurePolicy: Fail`, one match condition, the
//! validations each with its message, and a binding that denies
//! (`validationActions: [Deny]`).

use std::collections::BTreeMap;

use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicyBindingSpec, ValidatingAdmissionPolicySpec, Validation,
    Variable,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::config::Config;
use crate::model::*;

use crate::plan::apis::roles::generated_labels;
use crate::plan::types::{About, Made, Object};

/// One policy to write.
pub(crate) struct PolicyDraft<'a> {
    pub name: String,
    /// Its `olm-rbac.io/role` label.
    pub role: &'a str,
    /// What the objects are for.
    pub about: About,
    /// The OLM v1 resource it matches, and the operations.
    pub resource: &'a str,
    pub operations: &'a [&'a str],
    /// The match condition: its name and expression.
    pub condition: (&'a str, String),
    /// `(name, expression)`, in order.
    pub variables: Vec<(String, String)>,
    /// `(expression, message)`, in order.
    pub validations: Vec<(String, String)>,
    pub annotations: Option<BTreeMap<String, String>>,
}

/// The policy and its binding.
pub(crate) fn policy_and_binding(config: &Config, d: PolicyDraft<'_>) -> [Made; 2] {
    let metadata = |annotations: Option<BTreeMap<String, String>>| ObjectMeta {
        name: Some(d.name.clone()),
        labels: Some(generated_labels(&config.extension, d.role)),
        annotations,
        ..Default::default()
    };
    let rules = NamedRuleWithOperations {
        api_groups: Some(vec![OLM_V1_GROUP.to_string()]),
        api_versions: Some(vec!["*".to_string()]),
        operations: Some(d.operations.iter().map(|o| o.to_string()).collect()),
        resources: Some(vec![d.resource.to_string()]),
        ..Default::default()
    };
    let (condition_name, condition) = d.condition;
    let variables = (!d.variables.is_empty())
        .then(|| d.variables.into_iter().map(|(name, expression)| Variable { name, expression }).collect());
    let validations = d
        .validations
        .into_iter()
        .map(|(expression, message)| Validation { expression, message: Some(message), ..Default::default() })
        .collect();
    let policy = ValidatingAdmissionPolicy {
        metadata: metadata(d.annotations.clone()),
        spec: Some(ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".to_string()),
            match_constraints: Some(MatchResources { resource_rules: Some(vec![rules]), ..Default::default() }),
            match_conditions: Some(vec![MatchCondition { name: condition_name.to_string(), expression: condition }]),
            variables,
            validations: Some(validations),
            ..Default::default()
        }),
        status: None,
    };
    let binding = ValidatingAdmissionPolicyBinding {
        metadata: metadata(None),
        spec: Some(ValidatingAdmissionPolicyBindingSpec {
            policy_name: Some(d.name.clone()),
            validation_actions: Some(vec!["Deny".to_string()]),
            ..Default::default()
        }),
    };
    [
        (d.about.clone(), Object::AdmissionPolicy(Box::new(policy))),
        (d.about, Object::AdmissionPolicyBinding(Box::new(binding))),
    ]
}
