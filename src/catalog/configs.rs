//! The admin's RBACConfigs for a catalog run. `-c` is repeatable: a config
//! naming a package (`spec.package`) judges that package's bundles, an
//! exception to the platform's policy, and the one config naming none judges
//! every other package. Which config judges a bundle is decided here, once,
//! by the package the catalog lists the bundle under; render then refuses
//! the bundle if it declares another package (`spec.package`'s check).

use std::collections::BTreeMap;

use crate::input::Source;

/// One `-c` file: the name the report gives it, the package it judges (none:
/// every package no other config names), and its text, judged with each
/// bundle as render judges it.
#[derive(Debug, Clone)]
pub(crate) struct Given {
    /// The path as given on the command line.
    pub file: String,
    /// `spec.package` of its RBACConfigs.
    pub package: Option<String>,
    /// What it holds.
    pub sources: Vec<Source>,
}

/// What judges one bundle: a config's text, and its file for the report
/// (none: the config `catalog audit` measures with when given none).
#[derive(Debug, Clone)]
pub(crate) struct Chosen {
    pub sources: Vec<Source>,
    pub file: Option<String>,
}

/// Every `-c` file, by the package each judges.
#[derive(Debug, Default)]
pub struct Configs {
    by_package: BTreeMap<String, Given>,
    rest: Option<Given>,
    /// What reading them found to say: a config that judges nothing of what
    /// the operator is granted.
    warnings: Vec<String>,
}

impl Configs {
    /// Reads each file's RBACConfigs as render reads them (`file`: the path
    /// as given) and sorts them by package; why not, when a file holds no
    /// valid RBACConfig, names two packages, or two files would judge one
    /// package (an error of the command line: exit 2).
    pub fn read(files: Vec<(String, Vec<Source>)>) -> Result<Configs, String> {
        let mut configs = Configs::default();
        for (file, sources) in files {
            let read = crate::judge::read_configs(&sources).map_err(|errors| {
                let said: Vec<String> = errors.iter().map(|f| f.said_in_file()).collect();
                said.join("\nerror: ")
            })?;
            for c in read.iter().filter(|c| !c.judges_operator_grants()) {
                configs.warnings.push(format!(
                    "-c {file}: RBACConfig {:?} names neither spec.operator.installNamespace nor spec.operator.policy, so its verdicts judge nothing of what each operator is granted and its rows rank none of it; name the namespace OLM installs into in spec.operator.installNamespace",
                    c.name
                ));
            }
            let mut packages: Vec<Option<String>> = read.into_iter().map(|c| c.package).collect();
            packages.dedup();
            let package = match packages.as_slice() {
                [] => return Err(format!("-c {file}: holds no RBACConfig")),
                [one] => one.clone(),
                _ => return Err(format!("-c {file}: its RBACConfigs name different packages in spec.package; give each package's config a file of its own")),
            };
            configs.add(Given { file, package, sources })?;
        }
        Ok(configs)
    }

    fn add(&mut self, given: Given) -> Result<(), String> {
        let taken = match &given.package {
            Some(package) => self.by_package.get(package),
            None => self.rest.as_ref(),
        };
        if let Some(taken) = taken {
            let what = match &given.package {
                Some(package) => format!("both name package {package:?} in spec.package; give each package one config"),
                None => "both name no spec.package, so both would judge every other package; name the package each exception is for in spec.package".into(),
            };
            return Err(format!("-c {} and -c {} {what}", taken.file, given.file));
        }
        match given.package.clone() {
            Some(package) => self.by_package.insert(package, given),
            None => self.rest.replace(given),
        };
        Ok(())
    }

    /// The config that judges `package`'s bundles; why none does.
    pub(crate) fn for_package(&self, package: &str) -> Result<&Given, String> {
        self.by_package.get(package).or(self.rest.as_ref()).ok_or_else(|| {
            let named: Vec<String> = self.by_package.keys().map(|p| format!("{p:?}")).collect();
            format!(
                "no config judges package {package:?}: every -c config names another package in spec.package ({}); add one without spec.package to judge every other package",
                named.join(", ")
            )
        })
    }

    /// [`Configs::for_package`], as a judge takes it.
    pub(crate) fn chosen(&self, package: &str) -> Result<Chosen, String> {
        let given = self.for_package(package)?;
        Ok(Chosen { sources: given.sources.clone(), file: Some(given.file.clone()) })
    }

    /// `outcome` led by what reading the configs found, and a warning for
    /// each config whose package is not among `listed` (the catalog's
    /// packages): it judged nothing, which is likely a misspelling.
    pub(crate) fn warn<'a>(
        &self,
        listed: impl IntoIterator<Item = &'a str>,
        mut outcome: crate::outcome::Outcome,
    ) -> crate::outcome::Outcome {
        let said: String =
            self.warnings.iter().chain(&self.unused(listed)).map(|w| format!("warning: {w}\n")).collect();
        outcome.stderr.insert_str(0, &said);
        outcome
    }

    fn unused<'a>(&self, listed: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let listed: std::collections::BTreeSet<&str> = listed.into_iter().collect();
        self.by_package
            .iter()
            .filter(|(package, _)| !listed.contains(package.as_str()))
            .map(|(package, given)| {
                format!(
                    "-c {} names package {package:?}, which the catalog does not list: it judged nothing",
                    given.file
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, package: Option<&str>) -> (String, Vec<Source>) {
        let spec = package.map_or(String::new(), |p| format!("  package: {p}\n"));
        let text = format!(
            "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: x\nspec:\n  mode: Aggregate\n{spec}"
        );
        (name.to_string(), vec![Source { name: name.to_string(), text }])
    }

    #[test]
    fn an_exception_judges_its_package_and_the_rest_judges_every_other() {
        let configs = Configs::read(vec![file("platform.yaml", None), file("rabbit.yaml", Some("rabbitmq"))]).unwrap();
        assert_eq!(configs.for_package("rabbitmq").unwrap().file, "rabbit.yaml");
        assert_eq!(configs.for_package("argocd").unwrap().file, "platform.yaml");
        assert_eq!(configs.unused(["rabbitmq"]), Vec::<String>::new());
        assert_eq!(
            configs.unused(["argocd"]),
            ["-c rabbit.yaml names package \"rabbitmq\", which the catalog does not list: it judged nothing"]
        );
    }

    #[test]
    fn without_a_config_for_the_rest_other_packages_have_none() {
        let configs = Configs::read(vec![file("rabbit.yaml", Some("rabbitmq"))]).unwrap();
        let why = configs.for_package("argocd").unwrap_err();
        assert!(why.starts_with("no config judges package \"argocd\""), "{why}");
    }

    #[test]
    fn two_configs_for_one_package_or_for_the_rest_are_refused_naming_both() {
        let why = Configs::read(vec![file("a.yaml", Some("p")), file("b.yaml", Some("p"))]).unwrap_err();
        assert!(why.starts_with("-c a.yaml and -c b.yaml both name package \"p\""), "{why}");
        let why = Configs::read(vec![file("a.yaml", None), file("b.yaml", None)]).unwrap_err();
        assert!(why.starts_with("-c a.yaml and -c b.yaml both name no spec.package"), "{why}");
    }

    #[test]
    fn a_file_without_a_config_or_with_a_bad_one_is_refused() {
        let empty = ("e.yaml".to_string(), vec![Source { name: "e.yaml".into(), text: String::new() }]);
        assert_eq!(Configs::read(vec![empty]).unwrap_err(), "-c e.yaml: holds no RBACConfig");
        let (name, mut sources) = file("bad.yaml", Some("Not/A/Package"));
        sources[0].text = sources[0].text.replace("Not/A/Package", "\"no/pe\"");
        let why = Configs::read(vec![(name, sources)]).unwrap_err();
        assert!(why.contains("spec.package") && why.contains("bad.yaml"), "{why}");
    }
}
