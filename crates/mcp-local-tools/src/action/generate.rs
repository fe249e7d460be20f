//! Making what [`super::listed`] keeps: every tool's input schema and
//! each action's field list from its argument types and action table, and the test
//! that checks `listed.json` against them (and rewrites it with
//! `UPDATE_LISTED=1`).

use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::{Action, ActionArgs, ActionTool, alias_list};

/// The input schema of `T` as MCP wants it: an inlined object schema
/// without `$schema` or `title`, with `Option<X>` fields shown as `X`.
#[cfg(any(feature = "git", feature = "memory"))]
pub(crate) fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    input_schema_in::<T>(&mut schema_generator())
}

/// The generator [`input_schema_in`] wants: subschemas inlined, no
/// `$schema`. One generator serves every argument struct of a tool.
pub(crate) fn schema_generator() -> schemars::SchemaGenerator {
    schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
}

/// [`input_schema`] of `T`, made by `generator` (see [`schema_generator`]).
pub(crate) fn input_schema_in<T: JsonSchema>(
    generator: &mut schemars::SchemaGenerator,
) -> Map<String, Value> {
    let mut value = generator.root_schema_for::<T>().to_value();
    strip_null(&mut value);
    match value {
        Value::Object(mut map) => {
            map.remove("title");
            map
        }
        _ => Map::new(),
    }
}

/// Replaces `"type": [X, "null"]` by `"type": X`, everywhere (in place:
/// nothing of the schema is copied).
fn strip_null(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let only = match map.get_mut("type") {
                Some(Value::Array(types)) if types.iter().filter(|t| *t != "null").count() == 1 => {
                    types.retain(|t| t != "null");
                    types.pop()
                }
                _ => None,
            };
            if let Some(only) = only {
                map.insert("type".to_owned(), only);
            }
            // An optional field read by a function of its own carries
            // `default: null`, which says nothing an absent field does not.
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            // `Option<Enum>` comes as `anyOf: [<enum schema>, {type: null}]`:
            // the schema of the enum, with the field's own description.
            let lone = match map.get("anyOf") {
                Some(Value::Array(options)) => {
                    let mut kept = options.iter().filter(|o| o["type"] != "null");
                    matches!((kept.next(), kept.next()), (Some(Value::Object(_)), None))
                        && options.len() > 1
                }
                _ => false,
            };
            if lone
                && let Some(Value::Array(options)) = map.remove("anyOf")
                && let Some(Value::Object(inner)) =
                    options.into_iter().find(|o| o["type"] != "null")
            {
                for (key, value) in inner {
                    map.entry(key).or_insert(value);
                }
            }
            if let Some(Value::Array(variants)) = map.get_mut("enum") {
                variants.retain(|v| !v.is_null());
            }
            map.values_mut().for_each(strip_null);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_null),
        _ => {}
    }
}

/// The names `schema` lists as `required`.
pub(crate) fn required_names(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// One property of a tool's merged input schema: its schema (the first
/// action's), and per distinct description the actions that take it,
/// each with whether it requires it.
struct MergedField {
    name: String,
    schema: Map<String, Value>,
    meanings: Vec<(String, Vec<(&'static str, bool)>)>,
}

impl MergedField {
    /// Records that `action` takes the field with description `text`.
    fn add(&mut self, text: String, action: &'static str, required: bool) {
        match self.meanings.iter_mut().find(|(t, _)| *t == text) {
            Some((_, takers)) => takers.push((action, required)),
            None => self.meanings.push((text, vec![(action, required)])),
        }
    }

    /// The property's name and schema, its description one part per
    /// meaning: `read, write (required by read): the file.`; a meaning
    /// every one of the tool's `actions` shares has no list of actions.
    fn finish(mut self, actions: usize) -> (String, Map<String, Value>) {
        let parts: Vec<String> = self
            .meanings
            .iter()
            .map(|(text, takers)| {
                let all: Vec<&str> = takers.iter().map(|(a, _)| *a).collect();
                let needing: Vec<&str> =
                    takers.iter().filter(|(_, r)| *r).map(|(a, _)| *a).collect();
                let need = if needing.is_empty() {
                    String::new()
                } else if needing.len() == all.len() {
                    " (required)".to_owned()
                } else {
                    format!(" (required by {})", needing.join(", "))
                };
                if all.len() == actions {
                    format!("{text}{need}")
                } else {
                    format!("{}{need}: {}", all.join(", "), sentence_case(text))
                }
            })
            .collect();
        self.schema
            .insert("description".to_owned(), Value::String(parts.join(" | ")));
        (self.name, self.schema)
    }
}

/// `text` with its first letter lower-cased when it starts a plain word
/// (`The file` → `the file`; `URL of` and `JSON` stay).
fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => first
            .to_lowercase()
            .chain(text[first.len_utf8()..].chars())
            .collect(),
        _ => text.to_owned(),
    }
}

/// The input schema of `T`: one object whose properties are every
/// action's fields (clients refuse an input schema that is a `oneOf` at
/// its top), `action` an enum of the action names (`required` unless the
/// tool has a default action). Which actions take a field, and which need
/// it, is written at the head of its description:
/// `"read, write (required): the file."`; a field that means different
/// things to different actions has one such part per meaning, split by
/// ` | `. The per-action required fields are also what `help` lists and
/// what [`call`] checks.
fn tool_schema<T: ActionTool>() -> Map<String, Value> {
    let actions = <<T::Args as ActionArgs>::Action as Action>::ALL;
    let names: Vec<Value> = actions.iter().map(|a| Value::from(a.spec().name)).collect();
    let aliases: Vec<String> = alias_list::<T>()
        .into_iter()
        .map(|(alias, name)| format!("{alias} = {name}"))
        .collect();
    let mut action_text = actions
        .iter()
        .map(|a| a.spec().name)
        .collect::<Vec<_>>()
        .join(" | ");
    if !aliases.is_empty() {
        action_text.push_str(&format!(" (also accepted: {})", aliases.join(", ")));
    }
    let mut properties = Map::new();
    properties.insert(
        "action".to_owned(),
        serde_json::json!({"type": "string", "enum": names, "description": action_text}),
    );
    let mut fields: Vec<MergedField> = Vec::new();
    for (spec, schema) in <T::Args as ActionArgs>::field_schemas() {
        let required = required_names(&schema);
        let Some(Value::Object(props)) = schema.get("properties") else {
            continue;
        };
        for (name, field) in props {
            let Value::Object(field) = field else {
                continue;
            };
            let mut field = field.clone();
            let text = match field.remove("description") {
                Some(Value::String(text)) => text,
                _ => String::new(),
            };
            let at = match fields.iter().position(|f| f.name == *name) {
                Some(at) => at,
                None => {
                    fields.push(MergedField {
                        name: name.clone(),
                        schema: field,
                        meanings: Vec::new(),
                    });
                    fields.len() - 1
                }
            };
            fields[at].add(text, spec.name, required.contains(&name.as_str()));
        }
    }
    let taking = actions.len() - 1;
    for field in fields {
        let (name, schema) = field.finish(taking);
        properties.insert(name, Value::Object(schema));
    }
    let mut schema = Map::new();
    schema.insert("type".to_owned(), Value::from("object"));
    schema.insert(
        "description".to_owned(),
        Value::String(format!(
            "Arguments of `{}`: `action` plus that action's fields (`{{\"action\":\"help\"}}` lists them).",
            T::ABOUT.name
        )),
    );
    schema.insert("properties".to_owned(), Value::Object(properties));
    let required = match T::DEFAULT_ACTION {
        None => serde_json::json!(["action"]),
        Some(_) => serde_json::json!([]),
    };
    schema.insert("required".to_owned(), required);
    schema.insert("additionalProperties".to_owned(), Value::Bool(false));
    schema
}

/// The fields of one action's schema as `help` shows them: the required
/// ones first (in declaration order), then the optional ones in brackets
/// (`["path", "content", "[offset]"]`).
fn field_list(schema: &Map<String, Value>) -> Vec<String> {
    let required = required_names(schema);
    let optional = match schema.get("properties") {
        Some(Value::Object(props)) => props
            .keys()
            .filter(|name| !required.contains(&name.as_str()))
            .map(|name| format!("[{name}]"))
            .collect(),
        _ => Vec::new(),
    };
    required
        .iter()
        .map(|n| (*n).to_owned())
        .chain(optional)
        .collect()
}

/// Each action's fields as `help` shows them ([`field_list`]), by action
/// name; actions without fields left out.
fn field_lists<T: ActionTool>() -> Map<String, Value> {
    <T::Args as ActionArgs>::field_schemas()
        .into_iter()
        .map(|(spec, schema)| (spec.name.to_owned(), Value::from(field_list(&schema))))
        .filter(|(_, fields)| fields.as_array().is_some_and(|f| !f.is_empty()))
        .collect()
}

/// What `listed.json` holds for `T`, made from its types now.
fn entry<T: ActionTool>() -> (&'static str, Value) {
    (
        T::ABOUT.name,
        serde_json::json!({"fields": field_lists::<T>(), "inputSchema": tool_schema::<T>()}),
    )
}

#[test]
fn listed_json_is_what_the_argument_types_make() {
    use std::collections::BTreeMap;
    let mut made: BTreeMap<&str, Value> = BTreeMap::new();
    let mut add = |(name, value)| made.insert(name, value);
    #[cfg(feature = "fs")]
    add(entry::<crate::fs::FsTool>());
    #[cfg(feature = "code")]
    add(entry::<crate::code::CodeTool>());
    #[cfg(feature = "workspace")]
    add(entry::<crate::workspace::WorkspaceTool>());
    #[cfg(feature = "exec")]
    add(entry::<crate::exec::ExecTool>());
    #[cfg(feature = "git")]
    add(entry::<crate::git::GitTool>());
    #[cfg(feature = "fetch")]
    add(entry::<crate::fetch::FetchTool>());
    #[cfg(feature = "ui")]
    add(entry::<crate::ui::UiTool>());
    #[cfg(feature = "think")]
    add(entry::<crate::think::ThinkTool>());
    #[cfg(feature = "memory")]
    add(entry::<crate::memory::MemoryTool>());
    #[cfg(feature = "plan")]
    add(entry::<crate::plan::PlanTool>());
    #[cfg(feature = "tasks")]
    add(entry::<crate::tasks::TasksTool>());
    #[cfg(feature = "mode")]
    add(entry::<crate::mode::ModeTool>());

    // Every tool a build can hold is made here.
    #[allow(unused_mut)]
    let mut compiled = crate::Toolbox::with_default_tools();
    #[cfg(feature = "mode")]
    compiled.with_mode();
    let mut names = compiled.names();
    names.sort_unstable();
    assert_eq!(made.keys().copied().collect::<Vec<_>>(), names);

    // One tool a line, written compact: `tools/list` writes each schema
    // as this text.
    let lines: Vec<String> = made
        .iter()
        .map(|(name, entry)| {
            let name = serde_json::to_string(name).expect("a string");
            format!(
                "  {name}: {}",
                serde_json::to_string(entry).expect("a JSON value")
            )
        })
        .collect();
    let text = format!("{{\n{}\n}}\n", lines.join(",\n"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/action/listed.json");
    let update = "run `UPDATE_LISTED=1 cargo test -p mcp-local-tools --lib listed_json`";
    let kept: BTreeMap<String, Value> =
        serde_json::from_str(super::listed::LISTED).expect("listed.json is JSON");
    // Only a build that makes every tool the file lists makes the whole
    // file: it alone may rewrite it, and compare it as text.
    let whole = kept.keys().all(|name| made.contains_key(name.as_str()));
    if std::env::var_os("UPDATE_LISTED").is_some() {
        assert!(
            whole,
            "rewrite listed.json with every tool's feature on (a tool taken \
             out of the crate: delete its line first)"
        );
        std::fs::write(path, text).expect("listed.json written");
        return;
    }
    for (name, value) in &made {
        assert!(
            kept.get(*name) == Some(value),
            "listed.json does not hold what the types of `{name}` make now: {update}"
        );
    }
    if whole {
        assert!(
            super::listed::LISTED == text,
            "listed.json is not written one compact line a tool: {update}"
        );
    }
}
