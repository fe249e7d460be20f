//! Fields every action of a tool takes, declared once ([`WithCommon`]).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{Action as _, ActionArgs, field_names, parse_args};

/// One call of a tool whose actions all take the same fields besides
/// their own (`git`'s repository `path` and `timeout_ms`): those fields,
/// declared once in `C`, and the action with its own fields, `A` (the call
/// enum of `actions!`). A tool names it as its
/// [`super::ActionTool::Args`].
///
/// Parsing takes the members `C` reads ([`field_names`]: its fields'
/// names, as renamed, and their aliases) out of the arguments, parses `C`
/// from them and `A` from the rest; both refuse what they do not know. An
/// action whose own struct reads a common member itself (`git blame`'s
/// `path` is its file, and required) keeps that member: its struct reads
/// it, and `C` sees it absent, so a field an action may declare again must
/// be optional in `C`. The schema of every action is `C`'s fields (but
/// those it declares itself) and its own.
#[derive(Debug)]
pub(crate) struct WithCommon<C, A> {
    /// The fields every action takes.
    pub(crate) common: C,
    /// The action, with its own fields.
    pub(crate) args: A,
}

impl<C, A> ActionArgs for WithCommon<C, A>
where
    C: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    A: ActionArgs,
{
    type Action = A::Action;

    fn action(&self) -> A::Action {
        self.args.action()
    }

    fn parse(action: A::Action, mut fields: Map<String, Value>) -> Option<Result<Self, String>> {
        let shared = shared_names::<C, A>(action);
        let mut common = Map::new();
        for name in &shared {
            if let Some(value) = fields.remove(*name) {
                common.insert((*name).to_owned(), value);
            }
        }
        let args = A::parse(action, fields)?
            .map_err(|message| expecting_also(&message, &shared).unwrap_or(message));
        Some(parse_args::<C>(common).and_then(|common| {
            Ok(WithCommon {
                common,
                args: args?,
            })
        }))
    }

    fn field_names(action: A::Action) -> &'static [&'static str] {
        A::field_names(action)
    }

    #[cfg(test)]
    fn field_schemas() -> Vec<(&'static super::ActionSpec, Map<String, Value>)> {
        let common = super::generate::input_schema::<C>();
        A::field_schemas()
            .into_iter()
            .map(|(spec, own)| (spec, with_fields_of(&common, own)))
            .collect()
    }
}

/// The common members `action` reads from `C`: those its own struct does
/// not read itself (none for `help`, which takes no field: `A` refuses
/// them), in `C`'s declaration order.
fn shared_names<C: DeserializeOwned, A: ActionArgs>(action: A::Action) -> Vec<&'static str> {
    if action.spec().name == "help" {
        return Vec::new();
    }
    let own = A::field_names(action);
    field_names::<C>()
        .iter()
        .copied()
        .filter(|name| !own.contains(name))
        .collect()
}

/// `message`, serde's error for a field an action's own struct does not
/// know, with the common fields `names` first in the list of what it
/// expects (as one struct would say it: `unknown field `x`, expected
/// `path` or `timeout_ms``); `None` for any other message.
fn expecting_also(message: &str, names: &[&str]) -> Option<String> {
    if names.is_empty() || !message.starts_with("invalid arguments: unknown field `") {
        return None;
    }
    // The path serde_path_to_error adds, if any, ends the message.
    let (text, field) = match message.rsplit_once(" (field '") {
        Some((text, field)) => (text, Some(field)),
        None => (message, None),
    };
    // Serde's list names the struct's fields, each in backticks.
    let (head, listed): (&str, Vec<&str>) = match text.strip_suffix(", there are no fields") {
        Some(head) => (head, Vec::new()),
        None => {
            let (head, tail) = text.rsplit_once(", expected ")?;
            (head, tail.split('`').skip(1).step_by(2).collect())
        }
    };
    let all: Vec<&str> = names.iter().copied().chain(listed).collect();
    let expected = match all.as_slice() {
        [one] => format!("`{one}`"),
        [first, second] => format!("`{first}` or `{second}`"),
        _ => format!("one of `{}`", all.join("`, `")),
    };
    Some(match field {
        Some(field) => format!("{head}, expected {expected} (field '{field}"),
        None => format!("{head}, expected {expected}"),
    })
}

/// The names of the properties of an object `schema`.
#[cfg(test)]
fn property_names(schema: &Map<String, Value>) -> Vec<String> {
    match schema.get("properties") {
        Some(Value::Object(props)) => props.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The object schema `own` with the properties of `common` it does not
/// declare itself added (and those of them `common` requires required
/// first).
#[cfg(test)]
fn with_fields_of(common: &Map<String, Value>, mut own: Map<String, Value>) -> Map<String, Value> {
    let own_names = property_names(&own);
    let mut required: Vec<Value> = super::generate::required_names(common)
        .into_iter()
        .filter(|name| !own_names.iter().any(|own| own == name))
        .map(Value::from)
        .collect();
    required.extend(
        super::generate::required_names(&own)
            .into_iter()
            .map(Value::from),
    );
    let mut properties = match own.remove("properties") {
        Some(Value::Object(props)) => props,
        _ => Map::new(),
    };
    if let Some(Value::Object(shared)) = common.get("properties") {
        for (name, field) in shared {
            properties
                .entry(name.clone())
                .or_insert_with(|| field.clone());
        }
    }
    own.insert("properties".to_owned(), Value::Object(properties));
    if !required.is_empty() {
        own.insert("required".to_owned(), Value::Array(required));
    }
    own
}
