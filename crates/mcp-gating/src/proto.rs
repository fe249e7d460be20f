//! Feature `proto`: the tool traits for `mcp_proto::Tool`, and reading the
//! discriminator from `tools/call` arguments (MCP 2025-11-25 server/tools).

use mcp_proto::{CallToolRequestParams, JsonObject, Tool};
use serde_json::Value;

use crate::schema::{declared_values, narrowed};
use crate::{CallDecision, GatedSurface, OpArg, OpTool, ToolName};

impl ToolName for Tool {
    fn tool_name(&self) -> &str {
        &self.name
    }
}

impl OpTool for Tool {
    /// The values `inputSchema` declares for `properties.<discriminator>`:
    /// `enum`, `const`, `oneOf`/`anyOf` of those, a local `$ref` to one, or
    /// the variants of a tagged union.
    fn op_values(&self, discriminator: &str) -> Option<Vec<String>> {
        declared_values(&Value::Object(self.input_schema.to_object()), discriminator)
    }

    /// A clone whose `inputSchema` admits only the kept values, and whose
    /// `description` ends with one sentence naming them (the description
    /// still tells of every value, so a model reading it learns which it may
    /// use here: "Allowed here: `action` read, list."). Every other member
    /// (name, annotations, unknown members) is as it was.
    fn with_ops_narrowed(&self, discriminator: &str, keep: &dyn Fn(&str) -> bool) -> Self {
        let schema = Value::Object(self.input_schema.to_object());
        let mut tool = self.clone();
        if let Value::Object(map) = narrowed(&schema, discriminator, keep) {
            tool.input_schema = map.into();
        }
        let kept = declared_values(&Value::Object(tool.input_schema.to_object()), discriminator);
        if let Some(kept) = kept {
            let allowed = if kept.is_empty() {
                "none".to_owned()
            } else {
                kept.join(", ")
            };
            let sentence = format!("Allowed here: `{discriminator}` {allowed}.");
            tool.description = Some(match tool.description.take() {
                Some(text) if !text.is_empty() => format!("{text}\n\n{sentence}"),
                _ => sentence,
            });
        }
        tool
    }
}

impl<'a> OpArg<'a> {
    /// The value of property `discriminator` in a call's `arguments`.
    pub fn from_arguments(arguments: Option<&'a JsonObject>, discriminator: &str) -> Self {
        match arguments.and_then(|arguments| arguments.get(discriminator)) {
            None => Self::Absent,
            Some(Value::String(value)) => Self::Value(value),
            Some(_) => Self::NotAString,
        }
    }
}

impl<T> GatedSurface<T> {
    /// [`check_call`](Self::check_call) for a call's name and `arguments`,
    /// reading the discriminator this surface's rules name.
    pub fn check_call_arguments(&self, name: &str, arguments: Option<&JsonObject>) -> CallDecision {
        self.check_call(
            name,
            OpArg::from_arguments(arguments, &self.rules().discriminator),
        )
    }

    /// [`check_call`](Self::check_call) for `tools/call` params.
    pub fn check_call_params(&self, params: &CallToolRequestParams) -> CallDecision {
        self.check_call_arguments(&params.name, params.arguments.as_ref())
    }
}
