//! Reading and narrowing a discriminator's values in a JSON Schema object
//! (the `inputSchema` of MCP 2025-11-25 server/tools).
//!
//! The forms recognised are the ones hand-written and generated schemas use
//! for a string discriminator: `enum`, `const`, `oneOf`/`anyOf` of those, a
//! local `$ref` (`#/$defs/…`, `#/definitions/…`) to one of those, and a
//! tagged union whose `oneOf`/`anyOf` variants each fix the property.

use std::collections::HashSet;

use serde_json::Value;

/// Nesting bound for `oneOf`/`anyOf`/`$ref` chains, so a hostile or cyclic
/// schema cannot recurse without end.
const MAX_DEPTH: usize = 16;

/// The string values `schema` admits for property `key`, in schema order
/// without repeats; `None` when it declares none.
pub(crate) fn declared_values(schema: &Value, key: &str) -> Option<Vec<String>> {
    let mut values = Values::default();
    let found = object_values(schema, schema, key, &mut values, 0);
    found.then(|| values.order.into_iter().map(str::to_owned).collect())
}

/// The values found so far, borrowed from the schema: in the order found,
/// and as a set to tell a repeat in constant time.
#[derive(Default)]
struct Values<'v> {
    order: Vec<&'v str>,
    seen: HashSet<&'v str>,
}

fn object_values<'v>(
    object: &'v Value,
    root: &'v Value,
    key: &str,
    out: &mut Values<'v>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let mut found = false;
    if let Some(property) = object.get("properties").and_then(|p| p.get(key)) {
        found |= property_values(property, root, out, depth + 1);
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        for variant in object
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            found |= object_values(variant, root, key, out, depth + 1);
        }
    }
    found
}

fn property_values<'v>(
    property: &'v Value,
    root: &'v Value,
    out: &mut Values<'v>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let mut found = false;
    if let Some(target) = resolve_ref(property, root) {
        found |= property_values(target, root, out, depth + 1);
    }
    if let Some(value) = property.get("const") {
        found = true;
        push_string(value, out);
    }
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        found = true;
        values.iter().for_each(|value| push_string(value, out));
    }
    for keyword in ["oneOf", "anyOf"] {
        for member in property
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            found |= property_values(member, root, out, depth + 1);
        }
    }
    found
}

fn push_string<'v>(value: &'v Value, out: &mut Values<'v>) {
    if let Some(text) = value.as_str()
        && out.seen.insert(text)
    {
        out.order.push(text);
    }
}

fn resolve_ref<'v>(schema: &Value, root: &'v Value) -> Option<&'v Value> {
    let reference = schema.get("$ref")?.as_str()?;
    let path = reference.strip_prefix("#/")?;
    let mut target = root;
    for segment in path.split('/') {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        target = target.get(segment.as_str())?;
    }
    Some(target)
}

/// Whether a narrowed property admits any value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Admits {
    /// The property declares no values: unknown, left as it was.
    Undeclared,
    /// Some declared value is left.
    Some,
    /// Every declared value was removed.
    None,
}

impl Admits {
    fn or(self, other: Self) -> Self {
        match (self, other) {
            (Self::Some, _) | (_, Self::Some) => Self::Some,
            (Self::None, _) | (_, Self::None) => Self::None,
            _ => Self::Undeclared,
        }
    }
}

/// A copy of `schema` in which property `key` admits only the values `keep`
/// accepts: enums are filtered, `const`s that are not kept become an empty
/// `enum`, and tagged-union variants left with no value are removed. A
/// `description` of the property that names a removed value (as a word, e.g.
/// `read | write | help.`) is rewritten to name the values left
/// (`read | help.`), or dropped when none is left, so the model is not told
/// of values it cannot use. Nothing else changes; `schema` itself is not
/// touched.
pub(crate) fn narrowed(schema: &Value, key: &str, keep: &dyn Fn(&str) -> bool) -> Value {
    let mut copy = schema.clone();
    narrow_object(&mut copy, schema, key, keep, 0);
    let before = declared_values(schema, key).unwrap_or_default();
    let after = declared_values(&copy, key).unwrap_or_default();
    let left: HashSet<&str> = after.iter().map(String::as_str).collect();
    let removed: HashSet<&str> = before
        .iter()
        .map(String::as_str)
        .filter(|value| !left.contains(value))
        .collect();
    if !removed.is_empty() {
        let text = (!after.is_empty()).then(|| format!("{}.", after.join(" | ")));
        rewrite_descriptions(&mut copy, key, &removed, text.as_deref(), 0);
    }
    copy
}

/// Rewrites every `description` of property `key`, in `object` and its
/// `oneOf`/`anyOf`/`allOf` variants, that names one of `removed` to `text`
/// (the values left), or drops it when `text` is `None` (none left).
fn rewrite_descriptions(
    object: &mut Value,
    key: &str,
    removed: &HashSet<&str>,
    text: Option<&str>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(property) = object
        .get_mut("properties")
        .and_then(|p| p.get_mut(key))
        .and_then(Value::as_object_mut)
    {
        let stale = property
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|text| {
                text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                    .any(|word| removed.contains(&word))
            });
        if stale {
            match text {
                None => property.remove("description"),
                Some(text) => {
                    property.insert("description".to_owned(), Value::String(text.to_owned()))
                }
            };
        }
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        for variant in object
            .get_mut(keyword)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            rewrite_descriptions(variant, key, removed, text, depth + 1);
        }
    }
}

fn narrow_object(
    object: &mut Value,
    root: &Value,
    key: &str,
    keep: &dyn Fn(&str) -> bool,
    depth: usize,
) -> Admits {
    if depth > MAX_DEPTH {
        return Admits::Undeclared;
    }
    let mut admits = Admits::Undeclared;
    if let Some(property) = object.get_mut("properties").and_then(|p| p.get_mut(key)) {
        admits = narrow_property(property, root, keep, depth + 1);
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        let Some(variants) = object.get_mut(keyword).and_then(Value::as_array_mut) else {
            continue;
        };
        let mut any_variant = Admits::Undeclared;
        variants.retain_mut(|variant| {
            let variant_admits = narrow_object(variant, root, key, keep, depth + 1);
            any_variant = any_variant.or(variant_admits);
            // allOf parts are all required; only alternatives can be dropped.
            keyword == "allOf" || variant_admits != Admits::None
        });
        admits = admits.or(any_variant);
    }
    admits
}

fn narrow_property(
    property: &mut Value,
    root: &Value,
    keep: &dyn Fn(&str) -> bool,
    depth: usize,
) -> Admits {
    if depth > MAX_DEPTH {
        return Admits::Undeclared;
    }
    // Inline a local reference so narrowing it does not touch the shared
    // definition other properties may use.
    if let Some(target) = resolve_ref(property, root).cloned()
        && let (Some(object), Value::Object(defined)) = (property.as_object_mut(), target)
    {
        object.remove("$ref");
        for (name, value) in defined {
            object.entry(name).or_insert(value);
        }
    }
    let Some(object) = property.as_object_mut() else {
        return Admits::Undeclared;
    };
    let mut admits = Admits::Undeclared;
    if let Some(value) = object.get("const") {
        if value.as_str().is_some_and(keep) {
            admits = Admits::Some;
        } else {
            object.remove("const");
            object.insert("enum".to_owned(), Value::Array(Vec::new()));
            admits = Admits::None;
        }
    }
    if let Some(values) = object.get_mut("enum").and_then(Value::as_array_mut) {
        values.retain(|value| value.as_str().is_some_and(keep));
        let left = if values.is_empty() {
            Admits::None
        } else {
            Admits::Some
        };
        admits = if admits == Admits::None {
            Admits::None
        } else {
            left
        };
    }
    for keyword in ["oneOf", "anyOf"] {
        let Some(members) = object.get_mut(keyword).and_then(Value::as_array_mut) else {
            continue;
        };
        let mut any_member = Admits::Undeclared;
        members.retain_mut(|member| {
            let member_admits = narrow_property(member, root, keep, depth + 1);
            any_member = any_member.or(member_admits);
            member_admits != Admits::None
        });
        admits = admits.or(any_member);
    }
    admits
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn values(schema: &Value, key: &str) -> Option<Vec<String>> {
        declared_values(schema, key)
    }

    #[test]
    fn a_door_tool_enum_is_read_and_narrowed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ["get_invoice", "list_invoices", "refund_invoice"]},
                "input": {"type": "object"}
            },
            "required": ["op"]
        });
        assert_eq!(
            values(&schema, "op"),
            Some(vec![
                "get_invoice".to_owned(),
                "list_invoices".to_owned(),
                "refund_invoice".to_owned()
            ])
        );
        assert_eq!(values(&schema, "action"), None);
        let narrow = narrowed(&schema, "op", &|op| op != "refund_invoice");
        assert_eq!(
            narrow,
            json!({
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["get_invoice", "list_invoices"]},
                    "input": {"type": "object"}
                },
                "required": ["op"]
            })
        );
        // The original is untouched.
        assert_eq!(
            schema["properties"]["op"]["enum"].as_array().map(Vec::len),
            Some(3)
        );
    }

    #[test]
    fn a_description_naming_removed_values_names_only_the_values_left() {
        let schema = json!({
            "type": "object",
            "properties": {
                "action": {
                    "description": "read | write | multi_edit | help.",
                    "type": "string",
                    "enum": ["read", "write", "multi_edit", "help"]
                },
                "path": {"description": "the file to read or write", "type": "string"}
            }
        });
        assert_eq!(
            narrowed(&schema, "action", &|action| action == "read"),
            json!({
                "type": "object",
                "properties": {
                    "action": {"description": "read.", "type": "string", "enum": ["read"]},
                    "path": {"description": "the file to read or write", "type": "string"}
                }
            })
        );
        assert_eq!(
            narrowed(&schema, "action", &|_| false)["properties"]["action"],
            json!({"type": "string", "enum": []})
        );
        // Nothing removed: the description stays as written.
        assert_eq!(narrowed(&schema, "action", &|_| true), schema);
        // A description that names no removed value stays.
        let plain = json!({"properties": {"op": {"description": "which op", "enum": ["a", "b"]}}});
        assert_eq!(
            narrowed(&plain, "op", &|op| op == "a"),
            json!({"properties": {"op": {"description": "which op", "enum": ["a"]}}})
        );
    }

    #[test]
    fn tagged_union_variants_are_dropped() {
        // The shape schemars gives `#[serde(tag = "action")]` enums.
        let schema = json!({
            "type": "object",
            "oneOf": [
                {"type": "object", "properties": {"action": {"type": "string", "const": "read"}, "path": {"type": "string"}}, "required": ["action", "path"]},
                {"type": "object", "properties": {"action": {"type": "string", "const": "write"}, "path": {"type": "string"}}, "required": ["action", "path"]},
                {"type": "object", "properties": {"action": {"type": "string", "const": "help"}}, "required": ["action"]}
            ]
        });
        assert_eq!(
            values(&schema, "action"),
            Some(vec![
                "read".to_owned(),
                "write".to_owned(),
                "help".to_owned()
            ])
        );
        let narrow = narrowed(&schema, "action", &|action| {
            action == "read" || action == "help"
        });
        assert_eq!(
            narrow["oneOf"].as_array().map(|variants| variants
                .iter()
                .map(|v| v["properties"]["action"]["const"].clone())
                .collect::<Vec<_>>()),
            Some(vec![json!("read"), json!("help")])
        );
        assert_eq!(narrow["oneOf"][0], schema["oneOf"][0]);
    }

    #[test]
    fn refs_and_one_of_consts_are_followed_and_inlined() {
        let schema = json!({
            "type": "object",
            "properties": {"action": {"$ref": "#/$defs/Action", "description": "what to do"}},
            "$defs": {"Action": {"oneOf": [
                {"const": "status", "description": "show the status"},
                {"const": "commit", "description": "record changes"}
            ]}}
        });
        assert_eq!(
            values(&schema, "action"),
            Some(vec!["status".to_owned(), "commit".to_owned()])
        );
        let narrow = narrowed(&schema, "action", &|action| action == "status");
        assert_eq!(
            narrow["properties"]["action"],
            json!({"description": "what to do", "oneOf": [{"const": "status", "description": "show the status"}]})
        );
        // The shared definition is left whole.
        assert_eq!(narrow["$defs"], schema["$defs"]);
    }

    #[test]
    fn a_const_that_is_not_kept_becomes_an_empty_enum() {
        let schema = json!({"properties": {"op": {"const": "deploy"}}});
        assert_eq!(values(&schema, "op"), Some(vec!["deploy".to_owned()]));
        assert_eq!(
            narrowed(&schema, "op", &|_| false),
            json!({"properties": {"op": {"enum": []}}})
        );
        assert_eq!(narrowed(&schema, "op", &|_| true), schema);
    }

    #[test]
    fn schemas_without_values_and_hostile_schemas_are_left_alone() {
        let free = json!({"type": "object", "properties": {"op": {"type": "string"}}});
        assert_eq!(values(&free, "op"), None);
        assert_eq!(narrowed(&free, "op", &|_| false), free);
        assert_eq!(values(&json!(true), "op"), None);
        assert_eq!(values(&json!({"properties": []}), "op"), None);
        // A self-referencing property stops at the depth bound.
        let cyclic = json!({"properties": {"op": {"$ref": "#/properties/op"}}});
        assert_eq!(values(&cyclic, "op"), None);
        let _ = narrowed(&cyclic, "op", &|_| true);
        // Non-string enum members are never admitted.
        let mixed = json!({"properties": {"op": {"enum": ["a", 1, null]}}});
        assert_eq!(values(&mixed, "op"), Some(vec!["a".to_owned()]));
        assert_eq!(
            narrowed(&mixed, "op", &|_| true),
            json!({"properties": {"op": {"enum": ["a"]}}})
        );
    }

    /// A tool whose input schema is a JSON value, gated through the schema
    /// functions as `mcp_proto::Tool` is.
    #[derive(Clone, Debug, PartialEq)]
    struct SchemaTool {
        name: &'static str,
        schema: Value,
    }

    impl crate::ToolName for SchemaTool {
        fn tool_name(&self) -> &str {
            self.name
        }
    }

    impl crate::OpTool for SchemaTool {
        fn op_values(&self, discriminator: &str) -> Option<Vec<String>> {
            declared_values(&self.schema, discriminator)
        }

        fn with_ops_narrowed(&self, discriminator: &str, keep: &dyn Fn(&str) -> bool) -> Self {
            Self {
                name: self.name,
                schema: narrowed(&self.schema, discriminator, keep),
            }
        }
    }

    #[test]
    fn gating_two_hundred_thousand_declared_values_keeps_their_order() {
        use crate::{
            AllowedTools, CallDecision, GatedSurface, Mismatch, OpArg, Policy, SurfaceRules,
        };

        const COUNT: usize = 200_000;
        let all: Vec<String> = (0..COUNT).map(|i| format!("v{i:06}")).collect();
        let even: Vec<String> = all.iter().step_by(2).cloned().collect();
        let schema_of = |values: &[String], description: Option<String>| {
            let mut op = json!({"type": "string", "enum": values});
            if let Some(text) = description {
                op["description"] = json!(text);
            }
            json!({"type": "object", "properties": {"op": op}, "required": ["op"]})
        };
        // Describe declares every value, a repeat, and one value no tool has.
        let mut described = all.clone();
        described.extend(["v000000".to_owned(), "extra".to_owned()]);
        let tools = [
            SchemaTool {
                name: "big",
                schema: schema_of(&all, Some(format!("{}.", all.join(" | ")))),
            },
            SchemaTool {
                name: "whole",
                schema: schema_of(&even, None),
            },
            SchemaTool {
                name: "describe",
                schema: schema_of(&described, None),
            },
            SchemaTool {
                name: "other",
                schema: schema_of(&all, None),
            },
        ];
        assert_eq!(
            declared_values(&tools[2].schema, "op").map(|v| v.len()),
            Some(COUNT + 1)
        );
        let allowed = AllowedTools::from_servers([(
            "door",
            [
                "big:v199999",
                "big:seven",
                "big:v123456",
                "big:v000007",
                "big:missing",
                "whole",
                "describe",
            ],
        )])
        .expect("the configuration parses");
        let rules = SurfaceRules::door().with_aliases([("big", "seven", "v000007")]);
        let surface = GatedSurface::new("door", &tools, &allowed, Policy::FailOpen, rules);

        let listed = surface.tools();
        let names: Vec<&str> = listed.iter().map(|tool| tool.name).collect();
        assert_eq!(names, ["big", "whole", "describe"]);
        // The op entries keep their values in schema order, and the
        // description names only them.
        assert_eq!(
            listed[0].schema["properties"]["op"],
            json!({
                "type": "string",
                "enum": ["v000007", "v123456", "v199999"],
                "description": "v000007 | v123456 | v199999."
            })
        );
        // The whole-tool entry lists the tool as it is.
        assert_eq!(listed[1], tools[1]);
        // Describe keeps the ops some allowed tool allows, in its own order.
        let mut expected: Vec<&str> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0 || [7, 123_456, 199_999].contains(i))
            .map(|(_, value)| value.as_str())
            .collect();
        assert_eq!(expected.len(), COUNT / 2 + 2);
        let described_left = declared_values(&listed[2].schema, "op").expect("values");
        assert_eq!(described_left, expected);
        expected.truncate(3);
        assert_eq!(expected, ["v000000", "v000002", "v000004"]);

        let unmatched: Vec<String> = surface
            .unmatched_entries()
            .iter()
            .map(|unmatched| {
                assert_eq!(unmatched.mismatch, Mismatch::NoSuchOp);
                unmatched.entry.to_string()
            })
            .collect();
        assert_eq!(unmatched, ["big:missing"]);
        assert_eq!(
            surface.allowed_values("big"),
            Some(vec![
                "v000007".to_owned(),
                "v123456".to_owned(),
                "v199999".to_owned()
            ])
        );
        let permitted = CallDecision::Permitted;
        assert_eq!(
            surface.check_call("big", OpArg::Value("v123456")),
            permitted
        );
        assert_eq!(surface.check_call("big", OpArg::Value("seven")), permitted);
        assert!(matches!(
            surface.check_call("big", OpArg::Value("v000008")),
            CallDecision::Refused(_)
        ));
        assert_eq!(
            surface.check_call("whole", OpArg::Value("v000008")),
            permitted
        );
        assert_eq!(
            surface.check_call("describe", OpArg::Value("v199998")),
            permitted
        );
        assert!(matches!(
            surface.check_call("describe", OpArg::Value("v199997")),
            CallDecision::Refused(_)
        ));
        assert_eq!(
            surface.check_call("other", OpArg::Value("v000000")),
            CallDecision::NotOwned
        );
    }

    proptest::proptest! {
        /// Issue 4: op narrowing never adds an op, in any recognised form.
        #[test]
        fn narrowing_never_adds_a_value(
            values in proptest::collection::vec("[a-d]", 0..6),
            keep in proptest::collection::btree_set("[a-d]", 0..4),
            form in 0..4usize,
        ) {
            let property = match form {
                0 => json!({"enum": values}),
                1 => json!({"oneOf": values.iter().map(|v| json!({"const": v})).collect::<Vec<_>>()}),
                2 => json!({"$ref": "#/$defs/Op"}),
                _ => json!({"type": "string"}),
            };
            let schema = if form == 3 {
                json!({"oneOf": values.iter().map(|v| json!({"properties": {"op": {"const": v}}})).collect::<Vec<_>>()})
            } else {
                json!({"properties": {"op": property}, "$defs": {"Op": {"enum": values}}})
            };
            let before = declared_values(&schema, "op").unwrap_or_default();
            let after = declared_values(&narrowed(&schema, "op", &|v| keep.contains(v)), "op")
                .unwrap_or_default();
            proptest::prop_assert!(after.iter().all(|v| before.contains(v) && keep.contains(v)));
            let expected: Vec<&String> = before.iter().filter(|v| keep.contains(*v)).collect();
            proptest::prop_assert_eq!(after.iter().collect::<Vec<_>>(), expected);
        }
    }
}
