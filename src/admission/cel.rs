//! The CEL engine: the `cel` crate's standard definitions, with `matches`
//! (the `regex` crate), optional values, and the strings extension
//! (`charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`,
//! `replace`, `split`, `substring`, `trim`, `join`, `quote`, `format`,
//! `reverse`), as Kubernetes' environment has them. Kubernetes' own
//! libraries (authorizer, quantity, URLs, IPs and CIDRs, semver, `find` and
//! `findAll`, the list and set functions, `format` of Kubernetes names) are
//! not here: an expression that calls one, or that the engine cannot parse,
//! is [`Eval::CannotTell`], never a guess.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cel::objects::Value;
use cel::{Context, Env, ExecutionError, Program};
use serde_json::Value as Json;

/// What an expression gave.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Eval {
    Value(Value),
    /// An error the API server would also meet (a missing key, a division by
    /// zero): the policy's `failurePolicy` decides.
    Error(String),
    /// The engine cannot evaluate it as Kubernetes would.
    CannotTell(String),
}

fn env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        // Declared once, on a fresh environment: it cannot clash.
        let _ = env.add_extension(cel::extensions::strings);
        Arc::new(env)
    }))
}

/// `expression` compiled, once per process: `diff` asks the same policies
/// many times, and parsing costs more than evaluating.
fn compiled(expression: &str) -> Result<Arc<Program>, String> {
    type Cache = Mutex<HashMap<String, Result<Arc<Program>, String>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(expression).cloned()) {
        return hit;
    }
    let program = env().compile(expression).map(Arc::new).map_err(|e| e.to_string());
    if let Ok(mut c) = cache.lock() {
        c.insert(expression.to_string(), program.clone());
    }
    program
}

/// The variables an admission expression sees, each converted once (see
/// [`as_cel`]) for every expression of a request.
pub(crate) struct Activation<'a> {
    pub object: &'a Value,
    pub old_object: &'a Value,
    pub request: &'a Value,
    /// The policy's variables so far: each evaluated, or why not.
    pub variables: &'a BTreeMap<String, Eval>,
}

/// Evaluates `expression`.
pub(crate) fn evaluate(expression: &str, a: &Activation<'_>) -> Eval {
    if let Some(why) = beyond_the_engine(expression) {
        return Eval::CannotTell(why);
    }
    // A variable that failed: whether this expression needs it (by name, by
    // index, through `has` or an optional) cannot be told from its text, so
    // neither can its answer.
    if expression.contains("variables") {
        if let Some((name, failed)) = a.variables.iter().find(|(_, v)| !matches!(v, Eval::Value(_))) {
            let why = match failed {
                Eval::Error(e) | Eval::CannotTell(e) => e,
                Eval::Value(_) => "",
            };
            return Eval::CannotTell(format!("variables.{name} failed ({why}), and what depends on it cannot be told"));
        }
    }
    let program = match compiled(expression) {
        Ok(p) => p,
        Err(e) => return Eval::CannotTell(format!("the offline engine cannot parse it: {e}")),
    };
    let mut context = Context::with_env(env());
    let variables: BTreeMap<&str, &Value> = a
        .variables
        .iter()
        .filter_map(|(n, v)| match v {
            Eval::Value(v) => Some((n.as_str(), v)),
            _ => None,
        })
        .collect();
    context.add_variable_from_value("object", a.object.clone());
    context.add_variable_from_value("oldObject", a.old_object.clone());
    context.add_variable_from_value("request", a.request.clone());
    context.add_variable_from_value("params", Value::Null);
    context.add_variable_from_value("namespaceObject", Value::Null);
    let variables: std::collections::HashMap<String, Value> =
        variables.into_iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
    context.add_variable_from_value("variables", variables);
    run(&program, &context)
}

/// Deeper than this, the engine's recursive parser and evaluator could run
/// out of stack; Kubernetes' parser takes up to 250.
const MAX_NESTING: usize = 64;

/// Why the engine cannot evaluate `expression` as Kubernetes would, seen
/// from its text: nesting deeper than [`MAX_NESTING`], or a regular
/// expression whose classes mean other things in RE2 (ASCII `\d`, `\w`,
/// `\s`, `\b`; `\Q…\E`; Unicode classes) than in the `regex` crate.
fn beyond_the_engine(expression: &str) -> Option<String> {
    let mut depth: usize = 0;
    let mut deepest = 0;
    for c in expression.chars() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_NESTING {
        return Some(format!("it nests {deepest} deep, past the {MAX_NESTING} the offline engine evaluates"));
    }
    let classes = ["d", "D", "w", "W", "s", "S", "b", "B", "Q", "p", "P", "pL", "C", "z", "A"];
    let regex = ["matches(", "find(", "findAll("].iter().any(|f| expression.contains(f));
    let escaped = classes.iter().any(|c| expression.contains(&format!("\\{c}")));
    if regex && escaped {
        return Some("its regular expression uses a class or escape that RE2, Kubernetes' engine, reads otherwise than the regex crate".into());
    }
    None
}

/// JSON as Kubernetes hands it to CEL: whole numbers are `int` (a number
/// past `int`'s range, a `double`), never `uint`.
pub(crate) fn as_cel(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(f)) => Value::Float(f),
            (None, None) => Value::Null,
        },
        Json::String(s) => Value::String(Arc::new(s.clone())),
        Json::Array(items) => Value::List(Arc::new(items.iter().map(as_cel).collect())),
        Json::Object(fields) => {
            let map: std::collections::HashMap<String, Value> =
                fields.iter().map(|(k, v)| (k.clone(), as_cel(v))).collect();
            Value::from(map)
        }
    }
}

fn run(program: &Program, context: &Context<'_, '_>) -> Eval {
    match program.execute(context) {
        Ok(v) => Eval::Value(v),
        Err(e) => classify(e),
    }
}

/// An error the API server meets too, or one only this engine meets.
fn classify(e: ExecutionError) -> Eval {
    match &e {
        // A regular expression the regex crate refuses may be one RE2 reads.
        ExecutionError::FunctionError { function, .. } if function == "matches" => {
            Eval::CannotTell(format!("the offline engine cannot evaluate it: {e}"))
        }
        // A field of null: `object` on DELETE, `oldObject` on CREATE. The
        // API server's engine errs too, and `failurePolicy` decides.
        ExecutionError::NoSuchOverload(o)
            if o.function() == "_._" && o.argument_types().first().is_some_and(|t| t == "null_type") =>
        {
            Eval::Error(e.to_string())
        }
        ExecutionError::NoSuchKey(_)
        | ExecutionError::FunctionError { .. }
        | ExecutionError::DivisionByZero(_)
        | ExecutionError::RemainderByZero(_)
        | ExecutionError::Overflow(..)
        | ExecutionError::IndexOutOfBounds(_) => Eval::Error(e.to_string()),
        _ => Eval::CannotTell(format!("the offline engine cannot evaluate it: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(expression: &str, object: Json) -> Eval {
        let request =
            as_cel(&serde_json::json!({"operation": "CREATE", "userInfo": {"username": "u", "groups": ["g"]}}));
        let (object, null) = (as_cel(&object), Value::Null);
        evaluate(
            expression,
            &Activation { object: &object, old_object: &null, request: &request, variables: &BTreeMap::new() },
        )
    }

    #[test]
    fn a_field_of_null_is_an_error_the_api_server_meets_too() {
        // `object` is null on DELETE: selecting a field of it fails in
        // Kubernetes' engine, and the policy's failurePolicy decides.
        for e in ["object.spec.x == 1", "has(object.spec)", "object.spec == null"] {
            assert!(matches!(eval(e, Json::Null), Eval::Error(_)), "{e}: {:?}", eval(e, Json::Null));
        }
        assert_eq!(eval("object == null", Json::Null), Eval::Value(Value::Bool(true)));
    }

    #[test]
    fn kubernetes_strings_and_regexes_evaluate() {
        let o = serde_json::json!({"v": "2.54.1", "l": ["a", "b"]});
        for e in [
            "object.v.matches('^v?2\\\\.54(\\\\.(0|[1-9][0-9]*))?$')",
            "object.v.split('.')[0] == '2'",
            "object.l.join(',') == 'a,b'",
            "'AbC'.lowerAscii() == 'abc'",
            "request.userInfo.groups.exists(g, g in ['g'])",
            "has(object.v) && !has(object.w)",
        ] {
            assert_eq!(eval(e, o.clone()), Eval::Value(Value::Bool(true)), "{e}");
        }
    }

    #[test]
    fn a_missing_key_is_an_error_the_server_meets_too() {
        assert!(matches!(eval("object.spec.x == 1", serde_json::json!({})), Eval::Error(_)));
    }

    #[test]
    fn kubernetes_only_libraries_cannot_be_told() {
        for e in [
            "authorizer.group('').resource('pods').check('get').allowed()",
            "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
            "isURL('https://x')",
            "object.v.find('[0-9]+') == '2'",
            "object.v +",
        ] {
            assert!(
                matches!(eval(e, serde_json::json!({"v": "2"})), Eval::CannotTell(_)),
                "{e}: {:?}",
                eval(e, serde_json::json!({"v": "2"}))
            );
        }
    }
}
