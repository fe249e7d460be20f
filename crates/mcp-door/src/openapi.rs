//! Reading OpenAPI 3.0 and 3.1 documents (JSON or YAML) and their
//! operations, with local `$ref`s resolved and cycles bounded.

use serde_json::{Map, Value};

use crate::bounded::{self, Budget, Failure};
use crate::error::DoorError;

/// The HTTP methods an OpenAPI path item may hold (OpenAPI 3.1 §4.8.9), in
/// the order the door lists them.
pub(crate) const METHODS: [&str; 8] = [
    "get", "head", "post", "put", "patch", "delete", "options", "trace",
];

/// How many `$ref` hops a chain may take before it is treated as a cycle.
const MAX_REF_HOPS: usize = 32;

/// How deep an inlined schema may nest, in JSON levels; deeper parts are
/// cut (this also bounds the inliner's recursion, whatever the references).
const MAX_INLINE_DEPTH: usize = 64;

/// Parses `bytes` as JSON when they start with `{` (after white space),
/// else as YAML, and checks the result is an OpenAPI 3.0 or 3.1 document.
///
/// The parse is bounded: at most [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES)
/// are read, and the value built may hold at most twice as many nodes, and
/// twice as many bytes of text, as the document has bytes (4 KiB more of
/// each for tiny ones): what an alias-free document can hold, so YAML
/// aliases cannot expand a few kilobytes into gigabytes.
///
/// # Errors
/// [`DoorError::Syntax`] for bytes that are neither; [`DoorError::TooLarge`]
/// past the bounds; [`DoorError::NotOpenApi`] when `openapi` is missing or
/// names another major/minor version.
pub(crate) fn parse_document(label: &str, bytes: &[u8]) -> Result<Value, DoorError> {
    let too_large = |reason: String| DoorError::TooLarge {
        source_label: label.to_owned(),
        reason,
    };
    if bytes.len() as u64 > crate::MAX_DOCUMENT_BYTES {
        return Err(too_large(format!(
            "larger than {} MiB",
            crate::MAX_DOCUMENT_BYTES >> 20
        )));
    }
    let budget = Budget::for_len(bytes.len());
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let json = first == Some(&b'{');
    let parsed = if json {
        bounded::json(bytes, budget)
    } else {
        bounded::yaml(bytes, budget)
    };
    let root = match parsed {
        Ok(root) => root,
        Err(Failure::Syntax(reason)) => {
            return Err(DoorError::Syntax {
                source_label: label.to_owned(),
                reason,
            });
        }
        Err(Failure::Exceeded) => {
            let what = if json {
                "it expands"
            } else {
                "its YAML aliases expand it"
            };
            return Err(too_large(format!(
                "{what} past {} nodes or bytes of text (twice its own {} bytes)",
                budget.nodes,
                bytes.len()
            )));
        }
    };
    let not = |reason: String| DoorError::NotOpenApi {
        source_label: label.to_owned(),
        reason,
    };
    let Some(obj) = root.as_object() else {
        return Err(not("the top level is not an object".into()));
    };
    match obj.get("openapi") {
        Some(Value::String(v)) if v.starts_with("3.0") || v.starts_with("3.1") => {}
        Some(other) => return Err(not(format!("\"openapi\" is {other}"))),
        None if obj.contains_key("swagger") => {
            return Err(not("Swagger 2.0 documents are not read".into()));
        }
        None => return Err(not("it has no \"openapi\" member".into())),
    }
    match obj.get("paths") {
        None | Some(Value::Object(_)) => Ok(root),
        Some(_) => Err(not("\"paths\" is not an object".into())),
    }
}

/// Why a document's path cannot be forwarded, or `None` when it can: it
/// must start with `/` (OpenAPI 3.1 §4.8.8.1; otherwise it would extend
/// the upstream's host or port, or name another in userinfo), hold no
/// `?`, `#`, `\` or control character, and no segment that is `.` or `..`
/// in any spelling (`%2e`, `%2E`, `.%2e`, with `%2f` read as `/`), which
/// URL resolution would turn into a path outside the upstream's base path.
pub(crate) fn path_problem(path: &str) -> Option<&'static str> {
    if !path.starts_with('/') {
        return Some("it does not start with /");
    }
    if path.contains(['?', '#', '\\']) || path.chars().any(char::is_control) {
        return Some("it holds ?, #, \\ or a control character");
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    if decoded.contains('\\')
        || decoded
            .split('/')
            .any(|segment| matches!(segment, "." | ".."))
    {
        return Some("it holds a dot segment (., .. or a percent-encoded spelling of one)");
    }
    None
}

/// Where a parameter goes (OpenAPI 3.1 §4.8.12.2 `in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Location {
    Path,
    Query,
    Header,
}

/// One parameter of an operation, its schema still unresolved.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub name: String,
    pub location: Location,
    pub required: bool,
    pub schema: Value,
    pub description: Option<String>,
}

/// An operation's JSON request body, its schema still unresolved.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub required: bool,
    pub content_type: String,
    pub schema: Value,
}

/// One operation as the document states it.
#[derive(Debug, Clone)]
pub(crate) struct RawOperation {
    pub method: &'static str,
    pub path: String,
    pub operation_id: Option<String>,
    pub tags: Vec<String>,
    pub x_tool: Option<String>,
    pub x_public: Option<bool>,
    pub summary: Option<String>,
    pub params: Vec<Param>,
    pub body: Option<Body>,
}

/// Every operation of `root`, sorted by path then method (independent of
/// the JSON map's order).
pub(crate) fn operations(root: &Value) -> Vec<RawOperation> {
    let Some(paths) = root.get("paths").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut keys: Vec<&String> = paths.keys().collect();
    keys.sort();
    let mut out = Vec::new();
    for path in keys {
        let Some(item) = deref(root, &paths[path]).and_then(Value::as_object) else {
            continue;
        };
        let shared = item.get("parameters");
        for method in METHODS {
            let Some(op) = item.get(method).and_then(Value::as_object) else {
                continue;
            };
            out.push(read_operation(root, method, path, op, shared));
        }
    }
    out
}

fn read_operation(
    root: &Value,
    method: &'static str,
    path: &str,
    op: &Map<String, Value>,
    shared: Option<&Value>,
) -> RawOperation {
    let string = |key: &str| op.get(key).and_then(Value::as_str).map(str::to_owned);
    let tags = op
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    // Operation-level parameters override path-level ones of the same name and place.
    let mut params: Vec<Param> = Vec::new();
    for list in [shared, op.get("parameters")].into_iter().flatten() {
        for p in list.as_array().into_iter().flatten() {
            let Some(param) = read_param(root, p) else {
                continue;
            };
            params.retain(|q| !(q.name == param.name && q.location == param.location));
            params.push(param);
        }
    }
    RawOperation {
        method,
        path: path.to_owned(),
        operation_id: string("operationId"),
        tags,
        x_tool: string("x-tool"),
        x_public: op.get("x-public").and_then(Value::as_bool),
        summary: string("summary"),
        params,
        body: op.get("requestBody").and_then(|b| read_body(root, b)),
    }
}

fn read_param(root: &Value, p: &Value) -> Option<Param> {
    let p = deref(root, p)?.as_object()?;
    let location = match p.get("in")?.as_str()? {
        "path" => Location::Path,
        "query" => Location::Query,
        "header" => Location::Header,
        _ => return None,
    };
    let name = p.get("name")?.as_str()?.to_owned();
    if name.is_empty() {
        return None;
    }
    // A schema, else the first media type's schema (OpenAPI 3.1 §4.8.12.4).
    let schema = p
        .get("schema")
        .cloned()
        .or_else(|| {
            p.get("content")?
                .as_object()?
                .values()
                .next()?
                .get("schema")
                .cloned()
        })
        .unwrap_or_else(|| Value::Object(Map::new()));
    Some(Param {
        required: location == Location::Path
            || p.get("required").and_then(Value::as_bool) == Some(true),
        name,
        location,
        schema,
        description: p
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

fn read_body(root: &Value, b: &Value) -> Option<Body> {
    let b = deref(root, b)?.as_object()?;
    let content = b.get("content")?.as_object()?;
    let mut types: Vec<&String> = content.keys().collect();
    types.sort();
    let chosen = types
        .iter()
        .find(|t| t.as_str() == "application/json")
        .or_else(|| types.iter().find(|t| t.contains("json")))
        .or_else(|| types.first())?;
    Some(Body {
        required: b.get("required").and_then(Value::as_bool) == Some(true),
        content_type: (*chosen).clone(),
        schema: content[chosen.as_str()]
            .get("schema")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new())),
    })
}

/// The value a local JSON pointer `$ref` (`#/a/b~1c`) names in `root`.
fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    let decoded = percent_encoding::percent_decode_str(pointer)
        .decode_utf8()
        .ok()?;
    root.pointer(&decoded)
}

/// `v`, or what its `$ref` chain leads to; `None` for a chain that leaves
/// the document, breaks, or loops.
pub(crate) fn deref<'a>(root: &'a Value, mut v: &'a Value) -> Option<&'a Value> {
    for _ in 0..MAX_REF_HOPS {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => v = lookup(root, r)?,
            None => return Some(v),
        }
    }
    None
}

/// Copies a schema with every local `$ref` replaced by its target.
///
/// A reference to a schema already being expanded (a cycle), one that
/// cannot be resolved, anything past `budget` JSON nodes or past
/// `max_bytes` (about the bytes of its JSON text), and anything nested
/// deeper than 64 levels become an open schema `{}` with a description
/// saying why, so the result is finite, bounded and always a schema.
/// [`overflowed`](Self::overflowed) tells whether the byte bound cut it.
pub(crate) struct Inliner<'a> {
    root: &'a Value,
    stack: Vec<String>,
    budget: usize,
    bytes: usize,
    overflowed: bool,
    depth: usize,
}

impl<'a> Inliner<'a> {
    /// An inliner over `root` that copies at most `budget` JSON nodes and
    /// about `max_bytes` bytes of JSON text.
    pub(crate) fn new(root: &'a Value, budget: usize, max_bytes: usize) -> Self {
        Self {
            root,
            stack: Vec::new(),
            budget,
            bytes: max_bytes,
            overflowed: false,
            depth: 0,
        }
    }

    /// Whether the byte bound cut the copy.
    pub(crate) fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// The inlined copy of `v`.
    pub(crate) fn inline(&mut self, v: &Value) -> Value {
        if self.budget == 0 {
            return open_schema("(schema cut: too large to inline)");
        }
        if self.depth >= MAX_INLINE_DEPTH {
            return open_schema("(schema cut: nested too deep)");
        }
        match self.bytes.checked_sub(shallow_bytes(v)) {
            Some(left) if !self.overflowed => self.bytes = left,
            _ => {
                self.overflowed = true;
                return open_schema("(schema cut: too many bytes to inline)");
            }
        }
        self.budget -= 1;
        self.depth += 1;
        let out = self.inline_value(v);
        self.depth -= 1;
        out
    }

    fn inline_value(&mut self, v: &Value) -> Value {
        match v {
            Value::Object(obj) => {
                if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
                    return self.inline_ref(r, obj);
                }
                let mut out = Map::new();
                for (k, child) in obj {
                    let copied = self.inline(child);
                    out.insert(k.clone(), copied);
                    if self.overflowed {
                        break;
                    }
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.inline(item));
                    if self.overflowed {
                        break;
                    }
                }
                Value::Array(out)
            }
            other => other.clone(),
        }
    }

    fn inline_ref(&mut self, reference: &str, obj: &Map<String, Value>) -> Value {
        if self.stack.iter().any(|s| s == reference) {
            return open_schema(&format!("(recursive: {reference})"));
        }
        let Some(target) = lookup(self.root, reference) else {
            return open_schema(&format!("(unresolved reference: {reference})"));
        };
        self.stack.push(reference.to_owned());
        let mut resolved = self.inline(target);
        self.stack.pop();
        // OpenAPI 3.1 lets a $ref carry siblings (description, ...); they win.
        if let Value::Object(target_obj) = &mut resolved {
            for (k, child) in obj {
                if k != "$ref" {
                    let copied = self.inline(child);
                    target_obj.insert(k.clone(), copied);
                }
            }
        }
        resolved
    }
}

/// About the bytes `v` adds to a JSON text, its children left out: a
/// string's length and quotes, each key's with its quotes and separators.
fn shallow_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len() + 2,
        Value::Object(m) => 2 + m.keys().map(|k| k.len() + 4).sum::<usize>(),
        Value::Array(items) => 2 + items.len(),
        Value::Number(_) | Value::Bool(_) | Value::Null => 5,
    }
}

fn open_schema(description: &str) -> Value {
    let mut m = Map::new();
    m.insert("description".into(), Value::String(description.to_owned()));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cycles_become_open_schemas() {
        let root = json!({"components": {"schemas": {"Node": {"type": "object",
            "properties": {"next": {"$ref": "#/components/schemas/Node"}}}}}});
        let out = Inliner::new(&root, 1000, 1 << 20)
            .inline(&json!({"$ref": "#/components/schemas/Node"}));
        assert_eq!(
            out["properties"]["next"],
            json!({"description": "(recursive: #/components/schemas/Node)"})
        );
    }

    #[test]
    fn budget_bounds_the_copy() {
        let root = json!({});
        let out = Inliner::new(&root, 2, 1 << 20).inline(&json!({"a": {"b": {"c": 1}}}));
        assert_eq!(
            out,
            json!({"a": {"b": {"description": "(schema cut: too large to inline)"}}})
        );
        let root = json!({"S": {"example": "x".repeat(1000)}});
        let many = json!({"examples": vec![json!({"$ref": "#/S"}); 100]});
        let mut inliner = Inliner::new(&root, 1000, 10_000);
        let out = inliner.inline(&many).to_string();
        assert!(inliner.overflowed());
        assert!(out.len() < 11_000, "{}", out.len());
        assert!(out.contains("(schema cut: too many bytes to inline)"));
    }

    #[test]
    fn paths_that_leave_the_upstream_are_named() {
        for path in [
            "@127.0.0.3:18804/steal",
            "{host}/x",
            "",
            "/%2e%2e/admin",
            "/.%2E/admin",
            "/a/%2e",
            "/a/%2e%2e%2fb",
            "/a\\..",
            "/a%5c..",
            "/a?b",
            "/a#b",
        ] {
            assert!(path_problem(path).is_some(), "{path}");
        }
        for path in [
            "/",
            "/a/{b}.json",
            "/a/...",
            "/a/.well-known",
            "/v1/{x}/%2e%2ex",
        ] {
            assert_eq!(path_problem(path), None, "{path}");
        }
    }

    #[test]
    fn rejects_what_is_not_openapi_3() {
        let err = parse_document("x", br#"{"swagger": "2.0"}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "document \"x\" is not an OpenAPI 3.0 or 3.1 description: Swagger 2.0 documents are not read"
        );
        assert!(parse_document("y", b"openapi: 3.1.0\npaths: {}\n").is_ok());
        assert!(matches!(
            parse_document("z", b"{"),
            Err(DoorError::Syntax { .. })
        ));
    }
}
