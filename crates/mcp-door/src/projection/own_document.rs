//! The door in its own API document (HIP-0300 §1.2): an OpenAPI 3.1
//! document holding every offered operation of the loaded documents, as
//! its upstream serves it, and `POST /v1/mcp` with the JSON-RPC envelope as
//! its request and response bodies.
//!
//! Each offered operation is copied from its document with its `$ref`s
//! kept: only the components it reaches (transitively) and the security
//! schemes it names are copied along, so the work and the size are linear
//! in the document, never an expansion. Withheld and excluded operations
//! and their private components are left out.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use mcp_proto::methods::{CallTool, ListTools, Method};
use serde_json::{Map, Value, json};

use super::Projection;
use crate::openapi::deref;

/// The door's own components are named under this prefix, so they never
/// meet a document's.
const OWN: &str = "mcp-door.";

/// How deep a non-component local `$ref` target is followed when it is
/// inlined, so a chain of them stays finite.
const MAX_INLINE_HOPS: usize = 8;

impl Projection {
    /// The door's OpenAPI 3.1 document (HIP-0300 §1.2): `POST /v1/mcp`
    /// (`operationId` `mcp`) and every offered operation, each with
    /// `operationId` set to its op name, `x-tool` to its subsystem and
    /// `servers` to its upstream. `origin` (`https://api.example.com`) is
    /// the door's server; without it the server is `/`.
    ///
    /// Components reached from an offered operation are copied; with more
    /// than one document they are renamed `<title>.<name>` (the document's
    /// `info.title` reduced to `[A-Za-z0-9._-]`), and the `$ref`s and
    /// security requirements that name them follow. An operation whose
    /// method and path an earlier document or the door already has is
    /// left out. Never fails: what cannot be copied is left out.
    pub fn openapi_document(&self, origin: Option<&str>) -> Value {
        let mut out = Output::default();
        let prefixes = self.component_prefixes();
        for entry in &self.entries {
            let root = &self.documents[entry.doc];
            let prefix = &prefixes[entry.doc];
            let Some(item) = root
                .get("paths")
                .and_then(|p| p.get(&entry.path))
                .and_then(|i| deref(root, i))
            else {
                continue;
            };
            let Some(op) = item.get(entry.method).and_then(|o| deref(root, o)) else {
                continue;
            };
            if entry.path == crate::DOOR_PATH
                || out
                    .paths
                    .get(&entry.path)
                    .is_some_and(|p| p.contains_key(entry.method))
            {
                continue;
            }
            let mut op = match op {
                Value::Object(m) => m.clone(),
                _ => continue,
            };
            // Path-level parameters go with each operation (the path item
            // is shared with operations that may not be offered).
            merge_parameters(&mut op, item.get("parameters"));
            if !op.contains_key("security")
                && let Some(security) = root.get("security")
            {
                op.insert("security".into(), security.clone());
            }
            op.insert("operationId".into(), Value::String(entry.name.clone()));
            op.insert("x-tool".into(), Value::String(entry.subsystem.clone()));
            if let Some(upstream) = &entry.upstream {
                op.insert("servers".into(), json!([{"url": upstream}]));
            }
            let mut op = Value::Object(op);
            out.copy_reached(root, prefix, &mut op);
            out.paths
                .entry(entry.path.clone())
                .or_default()
                .insert(entry.method.to_owned(), op);
        }
        out.finish(origin)
    }

    /// The prefix each document's components get: empty with one
    /// document, else its title (unique).
    fn component_prefixes(&self) -> Vec<String> {
        if self.documents.len() < 2 {
            return vec![String::new(); self.documents.len()];
        }
        let mut taken = HashSet::new();
        self.documents
            .iter()
            .enumerate()
            .map(|(i, doc)| {
                let title: String = doc
                    .pointer("/info/title")
                    .and_then(Value::as_str)
                    .unwrap_or("api")
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                let mut prefix = format!("{title}.");
                if !taken.insert(prefix.clone()) {
                    prefix = format!("{title}-{}.", i + 1);
                    taken.insert(prefix.clone());
                }
                prefix
            })
            .collect()
    }
}

/// The document being built.
#[derive(Default)]
struct Output {
    paths: BTreeMap<String, Map<String, Value>>,
    /// `components.<kind>.<name>`, already renamed.
    components: BTreeMap<String, Map<String, Value>>,
}

impl Output {
    /// Rewrites `value` (copied from `root`) in place so that it stands in
    /// the output: component `$ref`s renamed under `prefix` and their
    /// targets copied (transitively), other local `$ref`s inlined, the
    /// security schemes its requirements name copied.
    fn copy_reached(&mut self, root: &Value, prefix: &str, value: &mut Value) {
        let mut wanted: Vec<(String, String)> = Vec::new();
        rewrite(root, prefix, value, &mut wanted, 0);
        self.copy_schemes(root, prefix, value);
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        while let Some((kind, name)) = wanted.pop() {
            let renamed = format!("{prefix}{name}");
            if !seen.insert((kind.clone(), name.clone()))
                || self
                    .components
                    .get(&kind)
                    .is_some_and(|m| m.contains_key(&renamed))
            {
                continue;
            }
            let Some(mut target) = root
                .get("components")
                .and_then(|c| c.get(&kind))
                .and_then(|k| k.get(&name))
                .cloned()
            else {
                continue;
            };
            rewrite(root, prefix, &mut target, &mut wanted, 0);
            self.components
                .entry(kind)
                .or_default()
                .insert(renamed, target);
        }
    }

    /// Renames the keys of `op.security` under `prefix` and copies the
    /// schemes they name from `root`.
    fn copy_schemes(&mut self, root: &Value, prefix: &str, op: &mut Value) {
        let Some(requirements) = op.get_mut("security").and_then(Value::as_array_mut) else {
            return;
        };
        for requirement in requirements.iter_mut() {
            let Value::Object(names) = requirement else {
                continue;
            };
            let renamed: Map<String, Value> = std::mem::take(names)
                .into_iter()
                .map(|(name, scopes)| {
                    if let Some(scheme) = root
                        .pointer("/components/securitySchemes")
                        .and_then(|s| s.get(&name))
                    {
                        self.components
                            .entry("securitySchemes".into())
                            .or_default()
                            .insert(format!("{prefix}{name}"), scheme.clone());
                    }
                    (format!("{prefix}{name}"), scopes)
                })
                .collect();
            *names = renamed;
        }
    }

    /// The document: the door's own operation and components, then the
    /// offered ones.
    fn finish(mut self, origin: Option<&str>) -> Value {
        let own = self.components.entry("schemas".into()).or_default();
        for (name, schema) in own_schemas() {
            own.insert(format!("{OWN}{name}"), schema);
        }
        self.components
            .entry("securitySchemes".into())
            .or_default()
            .insert(
                format!("{OWN}bearer"),
                json!({"type": "http", "scheme": "bearer",
                "description": "The bearer the REST API takes; forwarded to the owning upstream."}),
            );
        let mut paths = Map::new();
        paths.insert(crate::DOOR_PATH.into(), door_path_item());
        for (path, item) in self.paths {
            paths.insert(path, Value::Object(item));
        }
        let components: Map<String, Value> = self
            .components
            .into_iter()
            .map(|(kind, members)| (kind, Value::Object(members)))
            .collect();
        json!({
            "openapi": "3.1.0",
            "info": {
                "title": "MCP door",
                "version": env!("CARGO_PKG_VERSION"),
                "description": "The MCP door (HIP-0300 §1) and the REST operations it offers as tools: \
                    each REST operation's `operationId` is its MCP op name and `x-tool` the tool \
                    that offers it; its `servers` is the upstream that serves it.",
            },
            "servers": [{"url": origin.map_or("/", |o| o.trim_end_matches('/'))}],
            "paths": paths,
            "components": components,
        })
    }
}

/// Rewrites the `$ref`s in `value`: `#/components/<kind>/<name>` becomes
/// `#/components/<kind>/<prefix><name>` and is noted in `wanted`; another
/// local reference is replaced by its target (rewritten too, at most
/// [`MAX_INLINE_HOPS`] deep, else an empty schema); an external one is
/// kept.
fn rewrite(
    root: &Value,
    prefix: &str,
    value: &mut Value,
    wanted: &mut Vec<(String, String)>,
    hops: usize,
) {
    match value {
        Value::Object(members) => {
            if let Some(Value::String(reference)) = members.get("$ref") {
                if let Some(rest) = reference.strip_prefix("#/components/") {
                    if let Some((kind, name)) = rest.split_once('/')
                        && !name.contains('/')
                    {
                        wanted.push((kind.to_owned(), name.to_owned()));
                        let renamed = format!("#/components/{kind}/{prefix}{name}");
                        members.insert("$ref".into(), Value::String(renamed));
                    }
                } else if let Some(pointer) = reference.strip_prefix('#') {
                    let mut target = if hops < MAX_INLINE_HOPS {
                        root.pointer(pointer).cloned().unwrap_or_else(|| json!({}))
                    } else {
                        json!({})
                    };
                    rewrite(root, prefix, &mut target, wanted, hops + 1);
                    *value = target;
                    return;
                }
            }
            for member in members.values_mut() {
                rewrite(root, prefix, member, wanted, hops);
            }
        }
        Value::Array(items) => {
            for item in items {
                rewrite(root, prefix, item, wanted, hops);
            }
        }
        _ => {}
    }
}

/// Adds the path-level `parameters` to `op`'s, an operation-level one of
/// the same `name` and `in` winning (OpenAPI 3.1 §4.8.10.1).
fn merge_parameters(op: &mut Map<String, Value>, shared: Option<&Value>) {
    let Some(Value::Array(shared)) = shared else {
        return;
    };
    let key = |p: &Value| {
        (
            p.get("name").and_then(Value::as_str).map(str::to_owned),
            p.get("in").and_then(Value::as_str).map(str::to_owned),
        )
    };
    let own: Vec<Value> = match op.get("parameters") {
        Some(Value::Array(p)) => p.clone(),
        _ => Vec::new(),
    };
    let own_keys: HashSet<_> = own.iter().map(key).collect();
    let mut merged: Vec<Value> = shared
        .iter()
        .filter(|p| p.get("$ref").is_some() || !own_keys.contains(&key(p)))
        .cloned()
        .collect();
    merged.extend(own);
    op.insert("parameters".into(), Value::Array(merged));
}

/// The JSON-RPC 2.0 envelope as JSON Schema (2020-12), the bodies of
/// `POST /v1/mcp`.
fn own_schemas() -> [(&'static str, Value); 3] {
    let id = json!({"type": ["string", "integer"], "description": "The request id."});
    [
        (
            "JsonRpcRequest",
            json!({
                "type": "object",
                "description": "One JSON-RPC 2.0 message: a request (with `id`) or a notification. \
                    MCP revision 2026-07-28 requests carry their `_meta` in `params`.",
                "required": ["jsonrpc", "method"],
                "properties": {
                    "jsonrpc": {"const": "2.0"},
                    "id": id,
                    "method": {"type": "string", "examples": [
                        ListTools::METHOD, CallTool::METHOD]},
                    "params": {"type": "object"}
                }
            }),
        ),
        (
            "JsonRpcResponse",
            json!({
                "type": "object",
                "description": "The JSON-RPC 2.0 response: `result` or `error`, with the request's `id`.",
                "required": ["jsonrpc", "id"],
                "properties": {
                    "jsonrpc": {"const": "2.0"},
                    "id": {"type": ["string", "integer", "null"]},
                    "result": {"type": "object"},
                    "error": {"$ref": format!("#/components/schemas/{OWN}JsonRpcError")}
                },
                "oneOf": [{"required": ["result"]}, {"required": ["error"]}]
            }),
        ),
        (
            "JsonRpcError",
            json!({
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "integer"},
                    "message": {"type": "string"},
                    "data": {}
                }
            }),
        ),
    ]
}

/// `POST /v1/mcp` (HIP-0300 §1.1, §1.2, §1.6).
fn door_path_item() -> Value {
    let request = format!("#/components/schemas/{OWN}JsonRpcRequest");
    let response = format!("#/components/schemas/{OWN}JsonRpcResponse");
    json!({
        "post": {
            "operationId": "mcp",
            "summary": "The MCP door: one JSON-RPC 2.0 message per request",
            "description": "MCP revision 2026-07-28 (stateless), and `initialize` for 2024-11-05 to \
                2025-11-25. `tools/list` lists one tool per subsystem plus `describe` and needs no \
                credential; `tools/call` forwards to the operation's upstream with the caller's \
                credential headers, and without one is answered 401 with \
                `WWW-Authenticate: Bearer resource_metadata=\"…\"` (RFC 9728).",
            "tags": ["mcp"],
            "security": [{}, {format!("{OWN}bearer"): []}],
            "requestBody": {
                "required": true,
                "content": {"application/json": {"schema": {"$ref": request}}}
            },
            "responses": {
                "200": {
                    "description": "The JSON-RPC response.",
                    "content": {"application/json": {"schema": {"$ref": response}}}
                },
                "202": {"description": "A notification or response was accepted; no body."},
                "401": {
                    "description": "A `tools/call` needs a credential; the body is a JSON-RPC error.",
                    "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
                    "content": {"application/json": {"schema": {"$ref": response}}}
                }
            }
        }
    })
}
