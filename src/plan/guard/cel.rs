//! The CEL olm-rbac writes into its admission policies. A [`Cel`] is an
//! expression built only by the functions here: a text from a file enters
//! only as an escaped string literal ([`Cel::string`]), and each fact the
//! policies test about a ClusterExtension (its catalog source, its package,
//! its upgrade policy, its CRD safety, its namespace, its config) is written
//! once, for the pin and the delegations alike.

use std::fmt;

/// A CEL expression (or list literal) olm-rbac writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cel(String);

impl fmt::Display for Cel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Cel> for String {
    fn from(cel: Cel) -> String {
        cel.0
    }
}

impl Cel {
    /// An expression written in this crate: a `'static` text, so nothing
    /// read from a file can be one.
    pub(crate) fn fixed(text: &'static str) -> Cel {
        Cel(text.to_string())
    }

    /// A text as a CEL string literal: single-quoted, with its quotes,
    /// backslashes and line breaks escaped, any other control character as
    /// `\uXXXX`.
    pub(crate) fn string(text: &str) -> Cel {
        let mut out = String::from("'");
        for c in text.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('\'');
        Cel(out)
    }

    /// `[a, b]`: a list of string literals.
    pub(crate) fn list<'s>(items: impl IntoIterator<Item = &'s str>) -> Cel {
        Cel(format!("[{}]", items.into_iter().map(|i| Cel::string(i).0).collect::<Vec<_>>().join(", ")))
    }

    /// `a && b && …`, each part as written (the parts bind tighter than `&&`
    /// or are grouped by their builder).
    pub(crate) fn all(parts: impl IntoIterator<Item = Cel>) -> Cel {
        Cel(parts.into_iter().map(|p| p.0).collect::<Vec<_>>().join(" && "))
    }

    /// `a || b || …`.
    pub(crate) fn any(parts: impl IntoIterator<Item = Cel>) -> Cel {
        Cel(parts.into_iter().map(|p| p.0).collect::<Vec<_>>().join(" || "))
    }

    /// `(expression)`.
    pub(crate) fn grouped(self) -> Cel {
        Cel(format!("({})", self.0))
    }

    /// `!(expression)`.
    pub(crate) fn not(self) -> Cel {
        Cel(format!("!({})", self.0))
    }

    /// `self == other` (a field and a literal).
    pub(crate) fn eq(self, other: Cel) -> Cel {
        Cel(format!("{} == {}", self.0, other.0))
    }

    /// `self in list`.
    pub(crate) fn within(self, list: Cel) -> Cel {
        Cel(format!("{} in {}", self.0, list.0))
    }
}

/// The ClusterExtension names a catalog source: each step tested, so that a
/// missing field is false rather than an evaluation error.
pub(crate) fn has_catalog() -> Cel {
    Cel::fixed("has(object.spec) && has(object.spec.source) && has(object.spec.source.catalog)")
}

/// Its `spec.source.catalog.packageName` is one of `packages`.
pub(crate) fn package_in<'s>(packages: impl IntoIterator<Item = &'s str>) -> Cel {
    Cel::all([
        has_catalog(),
        Cel::fixed("has(object.spec.source.catalog.packageName)"),
        package().within(Cel::list(packages)),
    ])
}

/// `spec.source.catalog.packageName`, for a test the caller writes.
pub(crate) fn package() -> Cel {
    Cel::fixed("object.spec.source.catalog.packageName")
}

/// Its version is written as one of `versions` (and, for delegations, per
/// package: see [`package_versions`]).
pub(crate) fn version_in<'s>(versions: impl IntoIterator<Item = &'s str>) -> Cel {
    Cel::all([
        has_catalog(),
        Cel::fixed("has(object.spec.source.catalog.version)"),
        version().within(Cel::list(versions)),
    ])
}

/// `spec.source.catalog.version`.
fn version() -> Cel {
    Cel::fixed("object.spec.source.catalog.version")
}

/// One of `packages`, each at one of its versions, written exactly.
pub(crate) fn package_versions<'s>(packages: impl IntoIterator<Item = (&'s str, Vec<&'s str>)>) -> Cel {
    let each = packages
        .into_iter()
        .map(|(p, vs)| Cel::all([package().eq(Cel::string(p)), version().within(Cel::list(vs))]).grouped());
    Cel::all([
        has_catalog(),
        Cel::fixed("has(object.spec.source.catalog.packageName)"),
        Cel::fixed("has(object.spec.source.catalog.version)"),
        Cel::any(each).grouped(),
    ])
}

/// Its upgrade constraint policy is not `SelfCertified` (absent is the
/// default, CatalogProvided).
pub(crate) fn not_self_certified() -> Cel {
    Cel::any([
        has_catalog().not(),
        Cel::fixed("!has(object.spec.source.catalog.upgradeConstraintPolicy)"),
        Cel::fixed("object.spec.source.catalog.upgradeConstraintPolicy != 'SelfCertified'"),
    ])
}

/// Its catalog selector names, by OLM's catalog-name label, one of `catalogs`.
pub(crate) fn catalog_in<'s>(label: &str, catalogs: impl IntoIterator<Item = &'s str>) -> Cel {
    let label = Cel::string(label);
    let labels = || Cel::fixed("object.spec.source.catalog.selector.matchLabels");
    Cel::all([
        has_catalog(),
        Cel::fixed("has(object.spec.source.catalog.selector)"),
        Cel::fixed("has(object.spec.source.catalog.selector.matchLabels)"),
        label.clone().within(labels()),
        Cel(format!("{}[{}]", labels().0, label.0)).within(Cel::list(catalogs)),
    ])
}

/// Its CRD upgrade safety checks are on (absent is the default, Strict).
pub(crate) fn crd_upgrade_safety_on() -> Cel {
    Cel::any([
        Cel::fixed("!has(object.spec.install)"),
        Cel::fixed("!has(object.spec.install.preflight)"),
        Cel::fixed("!has(object.spec.install.preflight.crdUpgradeSafety)"),
        Cel::fixed("!has(object.spec.install.preflight.crdUpgradeSafety.enforcement)"),
        Cel::fixed("object.spec.install.preflight.crdUpgradeSafety.enforcement != 'None'"),
    ])
}

/// It sets no `spec.config`: the bundle is installed as judged.
pub(crate) fn no_config() -> Cel {
    Cel::fixed("!has(object.spec.config)")
}

/// Its `spec.config` is the judged one: none, or, for an operator judged
/// watching one namespace, `configType: Inline` with `inline` holding that
/// `watchNamespace` and nothing else.
pub(crate) fn config_as_judged(watch: Option<&str>) -> Cel {
    let Some(watch) = watch else { return no_config() };
    Cel::all([
        Cel::fixed("has(object.spec.config)"),
        Cel::fixed("object.spec.config.configType").eq(Cel::string("Inline")),
        Cel::fixed("has(object.spec.config.inline)"),
        Cel::fixed("object.spec.config.inline.size() == 1"),
        Cel::fixed("has(object.spec.config.inline.watchNamespace)"),
        Cel::fixed("object.spec.config.inline.watchNamespace").eq(Cel::string(watch)),
    ])
}

/// It sets no `spec.config`, or only a watch namespace that is its own
/// install namespace (OwnNamespace).
pub(crate) fn no_config_or_own_watch() -> Cel {
    Cel::any([
        no_config(),
        Cel::all([
            Cel::fixed("object.spec.config.configType").eq(Cel::string("Inline")),
            Cel::fixed("has(object.spec.config.inline)"),
            Cel::fixed("object.spec.config.inline.size() == 1"),
            Cel::fixed("has(object.spec.config.inline.watchNamespace)"),
            Cel::fixed("has(object.spec.namespace)"),
            Cel::fixed("object.spec.config.inline.watchNamespace").eq(Cel::fixed("object.spec.namespace")),
        ]),
    ])
}

/// Its `spec.namespace` is one of `namespaces`.
pub(crate) fn namespace_in<'s>(namespaces: impl IntoIterator<Item = &'s str>) -> Cel {
    Cel::all([
        Cel::fixed("has(object.spec.namespace)"),
        Cel::fixed("object.spec.namespace").within(Cel::list(namespaces)),
    ])
}

/// Its `metadata.name` is `name`.
pub(crate) fn named(name: &str) -> Cel {
    Cel::fixed("object.metadata.name").eq(Cel::string(name))
}

/// The annotation earlier OLM v1 releases read a ClusterExtension's watch
/// namespace from.
pub(crate) const WATCH_NAMESPACE_ANNOTATION: &str = "olm.operatorframework.io/watch-namespace";

/// It has no [`WATCH_NAMESPACE_ANNOTATION`]: the older spelling of a
/// `spec.config` watch namespace.
pub(crate) fn no_watch_namespace_annotation() -> Cel {
    Cel::any([
        Cel::fixed("!has(object.metadata.annotations)"),
        Cel::string(WATCH_NAMESPACE_ANNOTATION).within(Cel::fixed("object.metadata.annotations")).not(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_enters_as_an_escaped_literal() {
        assert_eq!(Cel::string("a'b\\c\nd\u{7}").to_string(), r"'a\'b\\c\nd\u0007'");
        assert_eq!(Cel::list(["x", "it's"]).to_string(), r"['x', 'it\'s']");
        assert_eq!(
            package_in(["p' || true || '"]).to_string(),
            r"has(object.spec) && has(object.spec.source) && has(object.spec.source.catalog) && has(object.spec.source.catalog.packageName) && object.spec.source.catalog.packageName in ['p\' || true || \'']"
        );
    }
}
