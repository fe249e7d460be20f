//! Reading and narrowing a discriminator's values in a JSON Schema object
//! (the `inputSchema` of MCP 2025-11-25 server/tools).
//!
//! The forms recognised are the ones hand-written and generated schemas use
//! for a string discriminator: `enum`, `const`, `oneOf`/`anyOf` of those, a
//! local `$ref` (`#/$defs/…`, `#/definitions/…`) to one of those, and a
//! tagged union whose `oneOf`/`anyOf` variants each fix the property.

use serde_json::Value;

/// Nesting bound for `oneOf`/`anyOf`/`$ref` chains, so a hostile or cyclic
/// schema cannot recurse without end.
const MAX_DEPTH: usize = 16;

/// The string values `schema` admits for property `key`, in schema order
/// without repeats; `None` when it declares none.
pub(crate) fn declared_values(schema: &Value, key: &str) -> Option<Vec<String>> {
    let mut values = Vec::new();
    let found = object_values(schema, schema, key, &mut values, 0);
    found.then_some(values)
}

fn object_values(
    object: &Value,
    root: &Value,
    key: &str,
    out: &mut Vec<String>,
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

fn property_values(property: &Value, root: &Value, out: &mut Vec<String>, depth: usize) -> bool {
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

fn push_string(value: &Value, out: &mut Vec<String>) {
    if let Some(text) = value.as_str()
        && !out.iter().any(|seen| seen == text)
    {
        out.push(text.to_owned());
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
    let removed: Vec<&str> = before
        .iter()
        .filter(|value| !after.contains(value))
        .map(String::as_str)
        .collect();
    if !removed.is_empty() {
        rewrite_descriptions(&mut copy, key, &removed, &after, 0);
    }
    copy
}

/// Rewrites (or drops) every `description` of property `key`, in `object`
/// and its `oneOf`/`anyOf`/`allOf` variants, that names one of `removed`.
fn rewrite_descriptions(
    object: &mut Value,
    key: &str,
    removed: &[&str],
    left: &[String],
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
            if left.is_empty() {
                property.remove("description");
            } else {
                let text = format!("{}.", left.join(" | "));
                property.insert("description".to_owned(), Value::String(text));
            }
        }
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        for variant in object
            .get_mut(keyword)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            rewrite_descriptions(variant, key, removed, left, depth + 1);
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
