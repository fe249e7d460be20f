//! The input of an op (HIP-0300 §1.3): its path, query and header
//! parameters and its request body as one JSON Schema object, the one
//! `describe` answers.

use serde_json::{Map, Value, json};

use super::OpEntry;
use crate::openapi::{self, Body, Inliner, Location, Param};

/// How many JSON nodes one op's inlined input schema may hold; past it a
/// schema is cut to `{}` with a description saying so.
const SCHEMA_BUDGET: usize = 50_000;

/// About how many bytes of JSON text one op's inlined input schema may
/// take (1 MiB); past it the schema is not shown.
pub(crate) const SCHEMA_MAX_BYTES: usize = 1 << 20;

/// The input schema of `entry`, whose document is `root`: every parameter
/// under its name (its description saying where it goes), then the body
/// under its field or merged in, with `required` set when anything is.
/// `Err` when inlining its `$ref`s passes [`SCHEMA_MAX_BYTES`] (copying
/// stops there, so memory stays bounded).
pub(crate) fn input_schema(root: &Value, entry: &OpEntry) -> Result<Value, TooLarge> {
    let mut input = InputSchema {
        root,
        inliner: Inliner::new(root, SCHEMA_BUDGET, SCHEMA_MAX_BYTES),
        properties: Map::new(),
        required: Vec::new(),
    };
    for p in &entry.params {
        input.add_param(p);
    }
    if let Some(body) = &entry.body {
        match &entry.body_field {
            Some(field) => input.add_body_field(field, body),
            None => input.merge_body(body),
        }
    }
    if input.inliner.overflowed() {
        return Err(TooLarge);
    }
    Ok(input.finish())
}

/// An input schema larger than [`SCHEMA_MAX_BYTES`] once inlined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// An input schema being built; one inliner for the whole schema, so the
/// budget bounds the op, not each property.
struct InputSchema<'a> {
    root: &'a Value,
    inliner: Inliner<'a>,
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl InputSchema<'_> {
    fn add_param(&mut self, p: &Param) {
        let mut schema = self.inliner.inline(&p.schema);
        let place = match p.location {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
        };
        if let Value::Object(m) = &mut schema {
            let text = match &p.description {
                Some(d) => format!("{d} (in {place})"),
                None => format!("(in {place})"),
            };
            m.insert("description".into(), Value::String(text));
        }
        if p.required {
            self.required.push(Value::String(p.name.clone()));
        }
        self.properties.insert(p.name.clone(), schema);
    }

    /// The body as one member, `field`.
    fn add_body_field(&mut self, field: &str, body: &Body) {
        self.properties
            .insert(field.to_owned(), self.inliner.inline(&body.schema));
        if body.required {
            self.required.push(Value::String(field.to_owned()));
        }
    }

    /// The body's properties as members of the input, by name; those the
    /// body requires are required when the body is.
    fn merge_body(&mut self, body: &Body) {
        let schema = openapi::deref(self.root, &body.schema).unwrap_or(&Value::Null);
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            let mut keys: Vec<&String> = props.keys().collect();
            keys.sort();
            for k in keys {
                self.properties
                    .insert(k.clone(), self.inliner.inline(&props[k]));
            }
        }
        if body.required {
            for r in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if r.as_str().is_some_and(|r| self.properties.contains_key(r)) {
                    self.required.push(r.clone());
                }
            }
        }
    }

    fn finish(self) -> Value {
        let mut schema = json!({"type": "object", "properties": self.properties});
        if !self.required.is_empty() {
            schema["required"] = Value::Array(self.required);
        }
        schema
    }
}

/// `None` when the body's properties can be merged into the input (an
/// object schema whose property names no parameter uses); else the input
/// member the body travels under (`body`, or `request_body` when a
/// parameter is named `body`).
pub(crate) fn body_field(root: &Value, body: &Body, params: &[Param]) -> Option<String> {
    let schema = openapi::deref(root, &body.schema);
    let mergeable = schema.is_some_and(|s| {
        let objectish = match s.get("type") {
            None => true,
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            Some(_) => false,
        };
        objectish
            && s.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| {
                    !p.is_empty() && !p.keys().any(|k| params.iter().any(|q| &q.name == k))
                })
    });
    if mergeable {
        None
    } else if params.iter().any(|p| p.name == "body") {
        Some("request_body".into())
    } else {
        Some("body".into())
    }
}
