//! The projection (HIP-0300 §1.3–§1.5): OpenAPI operations become one tool
//! per subsystem plus `describe`, with the refusal rule applied.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use mcp_proto::{JsonObject, Meta, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::error::DoorError;
use crate::naming::{op_name, raw_subsystem, subsystem_name, words};
use crate::openapi::{self, Body, Inliner, Location, Param};
use crate::refusal::RefusalRule;

/// The name of the door's own tool that returns an op's input schema
/// (HIP-0300 §1.3). It is always listed first.
pub const DESCRIBE: &str = "describe";

/// `_meta` key of `tools/list` results: `{count, rule}` of withheld ops
/// (HIP-0300 §1.4).
pub const META_REFUSED: &str = "hanzo.ai/refused";
/// `_meta` key of `tools/list` results: the documents and upstreams that
/// are not offered, `[{source, reason, subsystems?}]` (HIP-0300 §1.4).
pub const META_UNAVAILABLE: &str = "hanzo.ai/unavailable";
/// `_meta` key of `tools/list` results present when subsystems were left
/// out to stay under the tool cap: `{listed, total, dropped}` (HIP-0300 §1.4).
pub const META_SHORTENED: &str = "hanzo.ai/shortened";

/// How many JSON nodes one op's inlined input schema may hold; past it a
/// schema is cut to `{}` with a description saying so.
const SCHEMA_BUDGET: usize = 50_000;

/// One OpenAPI document and the upstream its operations are forwarded to.
///
/// The document is parsed when the source is made; a document that fails
/// to load is kept as its error and reported under `hanzo.ai/unavailable`.
#[derive(Debug, Clone)]
pub struct OpenApiSource {
    label: String,
    document: Result<Arc<Value>, String>,
    upstream: Option<String>,
    available: bool,
}

impl OpenApiSource {
    /// A source from the bytes of a JSON or YAML document. `upstream` is
    /// the base URL operations are sent to (`https://api.example.com`);
    /// without it, the document's first absolute `servers[].url` is used.
    pub fn from_bytes(label: impl Into<String>, bytes: &[u8], upstream: Option<&str>) -> Self {
        let label = label.into();
        let document = openapi::parse_document(&label, bytes)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        Self::with(label, document, upstream)
    }

    /// A source from a document file; a file that cannot be read becomes a
    /// source that failed to load, labelled with the path.
    pub fn from_file(path: impl AsRef<Path>, upstream: Option<&str>) -> Self {
        let path = path.as_ref();
        let label = path.display().to_string();
        match std::fs::read(path) {
            Ok(bytes) => Self::from_bytes(label, &bytes, upstream),
            Err(e) => {
                let reason = DoorError::Read {
                    path: label.clone(),
                    reason: e.to_string(),
                }
                .to_string();
                Self::with(label, Err(reason), upstream)
            }
        }
    }

    /// A source from the command-line form `FILE[=UPSTREAM]`.
    ///
    /// # Errors
    /// [`DoorError::Config`] for an empty file name.
    pub fn from_arg(arg: &str) -> Result<Self, DoorError> {
        let (file, upstream) = match arg.split_once('=') {
            Some((f, u)) => (f, Some(u)),
            None => (arg, None),
        };
        if file.is_empty() {
            return Err(DoorError::Config(format!(
                "{arg:?}: expected FILE or FILE=UPSTREAM"
            )));
        }
        Ok(Self::from_file(file, upstream))
    }

    fn with(label: String, document: Result<Arc<Value>, String>, upstream: Option<&str>) -> Self {
        Self {
            label,
            document,
            upstream: upstream.map(str::to_owned),
            available: true,
        }
    }

    /// The source's label: the file path or the name it was given.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Marks the source's upstream as unavailable (or available again): an
    /// unavailable source's operations are not offered and it is listed
    /// under `hanzo.ai/unavailable`.
    pub fn set_available(&mut self, available: bool) {
        self.available = available;
    }

    /// The base URL calls go to: the given upstream, else the document's
    /// first absolute `servers[].url`.
    fn upstream_url(&self, doc: &Value) -> Result<Option<String>, DoorError> {
        if let Some(u) = &self.upstream {
            return if is_http_url(u) {
                Ok(Some(u.trim_end_matches('/').to_owned()))
            } else {
                Err(DoorError::Upstream {
                    source_label: self.label.clone(),
                    url: u.clone(),
                })
            };
        }
        Ok(doc
            .get("servers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.get("url").and_then(Value::as_str))
            .find(|u| is_http_url(u))
            .map(|u| u.trim_end_matches('/').to_owned()))
    }
}

fn is_http_url(u: &str) -> bool {
    let rest = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
}

/// What is offered (HIP-0300 §1.4) and how many tools at most.
#[derive(Debug, Clone)]
pub struct ProjectionConfig {
    /// Path prefixes whose operations are not offered, matched by whole
    /// segments (`/v1/admin` excludes `/v1/admin` and `/v1/admin/x`, not
    /// `/v1/administrators`).
    pub excluded_prefixes: Vec<String>,
    /// Tags or subsystem names whose operations are not offered (compared
    /// after normalisation, so `Admin Tools` matches `admin_tools`).
    pub excluded_tags: Vec<String>,
    /// The refusal rule.
    pub refusal: RefusalRule,
    /// The most tools `tools/list` holds, `describe` included (default
    /// 128, the cap clients truncate at). Subsystems past it are dropped,
    /// last by name first, and `hanzo.ai/shortened` says so.
    pub max_tools: usize,
}

impl Default for ProjectionConfig {
    fn default() -> Self {
        Self {
            excluded_prefixes: Vec::new(),
            excluded_tags: Vec::new(),
            refusal: RefusalRule::default(),
            max_tools: 128,
        }
    }
}

/// One offered operation.
#[derive(Debug, Clone)]
pub(crate) struct OpEntry {
    pub name: String,
    pub subsystem: String,
    pub method: &'static str,
    pub path: String,
    pub summary: Option<String>,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    /// `Some(field)` when the body travels under one input member; `None`
    /// when its properties are merged into the input.
    pub body_field: Option<String>,
    pub doc: usize,
    pub upstream: Option<String>,
}

/// Public facts about one offered operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpInfo {
    /// The op name (`list_issues_for_repo`).
    pub name: String,
    /// The subsystem tool that offers it (`issues`).
    pub tool: String,
    /// The HTTP method, upper case (`GET`).
    pub method: String,
    /// The path template (`/repos/{owner}/{repo}/issues`).
    pub path: String,
}

/// The door's tool surface: one tool per subsystem plus `describe`, the
/// table from op names to operations, and what was withheld.
#[derive(Debug, Clone)]
pub struct Projection {
    tools: Vec<Tool>,
    entries: Vec<OpEntry>,
    by_name: HashMap<String, usize>,
    by_tool: HashMap<String, Vec<usize>>,
    refused: Vec<String>,
    rule: String,
    unavailable: Vec<Value>,
    shortened: Option<Value>,
    documents: Vec<Arc<Value>>,
}

impl Projection {
    /// Projects one document; the entry point for checking a document (and
    /// the fuzz target's).
    ///
    /// # Errors
    /// The document's [`DoorError::Syntax`] or [`DoorError::NotOpenApi`],
    /// or [`DoorError::Upstream`] for an upstream that is not an absolute
    /// http(s) URL.
    pub fn from_document(
        bytes: &[u8],
        upstream: Option<&str>,
        config: &ProjectionConfig,
    ) -> Result<Projection, DoorError> {
        let root = openapi::parse_document("document", bytes)?;
        let source = OpenApiSource::with("document".into(), Ok(Arc::new(root)), upstream);
        if let Ok(doc) = &source.document {
            source.upstream_url(doc)?;
        }
        Ok(Self::build(&[source], config))
    }

    /// Projects several sources into one door. Sources that failed to load,
    /// have a malformed upstream or are marked unavailable are listed under
    /// `hanzo.ai/unavailable` and offer nothing; the rest are merged, op
    /// names unique across all of them.
    pub fn build(sources: &[OpenApiSource], config: &ProjectionConfig) -> Projection {
        let mut unavailable = Vec::new();
        let mut documents = Vec::new();
        let mut candidates: Vec<(OpEntry, String)> = Vec::new();
        let mut tag_descriptions: HashMap<String, String> = HashMap::new();
        let excluded_tags: HashSet<String> = config
            .excluded_tags
            .iter()
            .map(|t| subsystem_name(t))
            .collect();
        for source in sources {
            let doc = match &source.document {
                Ok(doc) => doc,
                Err(reason) => {
                    unavailable.push(json!({"source": source.label, "reason": reason}));
                    continue;
                }
            };
            let upstream = match source.upstream_url(doc) {
                Ok(u) => u,
                Err(e) => {
                    unavailable.push(json!({"source": source.label, "reason": e.to_string()}));
                    continue;
                }
            };
            let ops = openapi::operations(doc);
            if !source.available {
                let mut subsystems: Vec<String> = ops
                    .iter()
                    .map(|op| subsystem_name(&raw_subsystem(op)))
                    .collect();
                subsystems.sort();
                subsystems.dedup();
                unavailable.push(
                    json!({"source": source.label, "reason": "upstream marked unavailable",
                    "subsystems": subsystems}),
                );
                continue;
            }
            let doc_index = documents.len();
            documents.push(Arc::clone(doc));
            for tag in doc
                .get("tags")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let (Some(name), Some(desc)) = (
                    tag.get("name").and_then(Value::as_str),
                    tag.get("description").and_then(Value::as_str),
                ) {
                    tag_descriptions
                        .entry(subsystem_name(name))
                        .or_insert_with(|| first_sentence(desc));
                }
            }
            for op in ops {
                if op.x_public == Some(false)
                    || config
                        .excluded_prefixes
                        .iter()
                        .any(|p| under_prefix(&op.path, p))
                    || op
                        .tags
                        .iter()
                        .any(|t| excluded_tags.contains(&subsystem_name(t)))
                {
                    continue;
                }
                let subsystem = subsystem_name(&raw_subsystem(&op));
                if excluded_tags.contains(&subsystem) {
                    continue;
                }
                let name = op_name(&op, &subsystem);
                let body_field = op
                    .body
                    .as_ref()
                    .and_then(|b| body_field(doc, b, &op.params));
                candidates.push((
                    OpEntry {
                        name: String::new(),
                        subsystem,
                        method: op.method,
                        path: op.path,
                        summary: op.summary,
                        params: op.params,
                        body: op.body,
                        body_field,
                        doc: doc_index,
                        upstream: upstream.clone(),
                    },
                    name,
                ));
            }
        }
        let names = unique_names(&candidates);
        let mut refused = Vec::new();
        let mut grouped: BTreeMap<String, Vec<OpEntry>> = BTreeMap::new();
        for ((mut entry, _), name) in candidates.into_iter().zip(names) {
            entry.name = name;
            if config.refusal.check(&entry.name).is_some() {
                refused.push(entry.name);
                continue;
            }
            grouped
                .entry(entry.subsystem.clone())
                .or_default()
                .push(entry);
        }
        refused.sort();
        let total = grouped.len();
        let keep = config.max_tools.saturating_sub(1);
        let shortened = (total > keep).then(|| {
            let dropped: Vec<String> = grouped.keys().skip(keep).cloned().collect();
            json!({"listed": keep, "total": total, "dropped": dropped})
        });
        let mut projection = Projection {
            tools: vec![describe_tool()],
            entries: Vec::new(),
            by_name: HashMap::new(),
            by_tool: HashMap::new(),
            refused,
            rule: config.refusal.summary(),
            unavailable,
            shortened,
            documents,
        };
        for (subsystem, entries) in grouped.into_iter().take(keep) {
            let description = tag_descriptions.get(&subsystem).cloned();
            projection
                .tools
                .push(subsystem_tool(&subsystem, description, &entries));
            for entry in entries {
                let i = projection.entries.len();
                projection.by_name.insert(entry.name.clone(), i);
                projection
                    .by_tool
                    .entry(subsystem.clone())
                    .or_default()
                    .push(i);
                projection.entries.push(entry);
            }
        }
        projection
    }

    /// The tools of `tools/list`: `describe` first, then one per subsystem
    /// by name.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The `_meta` of a `tools/list` result: `hanzo.ai/refused` always,
    /// `hanzo.ai/unavailable` and `hanzo.ai/shortened` when they apply.
    pub fn list_meta(&self) -> Meta {
        let mut meta = Meta::new();
        meta.insert(
            META_REFUSED.into(),
            json!({"count": self.refused.len(), "rule": self.rule}),
        );
        if !self.unavailable.is_empty() {
            meta.insert(
                META_UNAVAILABLE.into(),
                Value::Array(self.unavailable.clone()),
            );
        }
        if let Some(s) = &self.shortened {
            meta.insert(META_SHORTENED.into(), s.clone());
        }
        meta
    }

    /// The withheld op names, sorted.
    pub fn refused(&self) -> &[String] {
        &self.refused
    }

    /// The entries of `hanzo.ai/unavailable`: `{source, reason, subsystems?}`.
    pub fn unavailable(&self) -> &[Value] {
        &self.unavailable
    }

    /// Every offered op, in tool order then document order.
    pub fn ops(&self) -> impl Iterator<Item = OpInfo> + '_ {
        self.entries.iter().map(info)
    }

    /// The offered op named `name`, if any.
    pub fn op(&self, name: &str) -> Option<OpInfo> {
        self.entry(name).map(info)
    }

    pub(crate) fn entry(&self, name: &str) -> Option<&OpEntry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    /// The entry for `op` within subsystem tool `tool`.
    pub(crate) fn entry_in(&self, tool: &str, op: &str) -> Option<&OpEntry> {
        self.entry(op).filter(|e| e.subsystem == tool)
    }

    /// Whether `name` is a subsystem tool of this projection.
    pub fn has_tool(&self, name: &str) -> bool {
        self.by_tool.contains_key(name)
    }

    /// What `describe` answers for `op` (HIP-0300 §1.3): `{op, tool, method,
    /// path, summary?, inputSchema}`, where `inputSchema` merges the path,
    /// query and header parameters and the request body into one JSON
    /// Schema object with `required` set. `None` for an op not offered.
    pub fn describe(&self, op: &str) -> Option<Value> {
        let entry = self.entry(op)?;
        let mut out = json!({
            "op": entry.name,
            "tool": entry.subsystem,
            "method": entry.method.to_ascii_uppercase(),
            "path": entry.path,
            "inputSchema": self.input_schema(entry),
        });
        if let Some(s) = &entry.summary {
            out["summary"] = Value::String(s.clone());
        }
        Some(out)
    }

    /// One tool per operation, each with its full input schema: the
    /// projection HIP-0300's motivation measures the door against, for
    /// comparison only (it is never served).
    pub fn per_operation_tools(&self) -> Vec<Tool> {
        self.entries
            .iter()
            .map(|e| Tool {
                name: e.name.clone(),
                description: Some(
                    e.summary
                        .clone()
                        .unwrap_or_else(|| format!("{} {}", e.method.to_ascii_uppercase(), e.path)),
                ),
                input_schema: match self.input_schema(e) {
                    Value::Object(m) => m,
                    _ => JsonObject::new(),
                },
                ..Tool::default()
            })
            .collect()
    }

    fn input_schema(&self, entry: &OpEntry) -> Value {
        let root = &self.documents[entry.doc];
        let mut inliner = Inliner::new(root, SCHEMA_BUDGET);
        let mut properties = Map::new();
        let mut required = Vec::new();
        for p in &entry.params {
            let mut schema = inliner.inline(&p.schema);
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
                required.push(Value::String(p.name.clone()));
            }
            properties.insert(p.name.clone(), schema);
        }
        if let Some(body) = &entry.body {
            match &entry.body_field {
                Some(field) => {
                    properties.insert(field.clone(), inliner.inline(&body.schema));
                    if body.required {
                        required.push(Value::String(field.clone()));
                    }
                }
                None => {
                    let schema = openapi::deref(root, &body.schema).unwrap_or(&Value::Null);
                    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                        let mut keys: Vec<&String> = props.keys().collect();
                        keys.sort();
                        for k in keys {
                            properties.insert(k.clone(), inliner.inline(&props[k]));
                        }
                    }
                    if body.required {
                        for r in schema
                            .get("required")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                        {
                            if r.as_str().is_some_and(|r| properties.contains_key(r)) {
                                required.push(r.clone());
                            }
                        }
                    }
                }
            }
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }
}

fn info(e: &OpEntry) -> OpInfo {
    OpInfo {
        name: e.name.clone(),
        tool: e.subsystem.clone(),
        method: e.method.to_ascii_uppercase(),
        path: e.path.clone(),
    }
}

/// Whether `path` lies under `prefix`, by whole segments.
fn under_prefix(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() {
        return true;
    }
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|r| r.starts_with('/'))
}

/// `None` when the body's properties can be merged into the input (an
/// object schema whose property names no parameter uses); else the input
/// member the body travels under (`body`, or `request_body` when a
/// parameter is named `body`).
fn body_field(root: &Value, body: &Body, params: &[Param]) -> Option<String> {
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

/// Names made unique across the door, deterministically: names that
/// collide across subsystems get `_in_<subsystem>`; any still taken get
/// `_2`, `_3`, ... in document order.
fn unique_names(candidates: &[(OpEntry, String)]) -> Vec<String> {
    let mut subsystems_of: HashMap<&str, HashSet<&str>> = HashMap::new();
    for (entry, name) in candidates {
        subsystems_of
            .entry(name)
            .or_default()
            .insert(&entry.subsystem);
    }
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(candidates.len());
    for (entry, name) in candidates {
        let mut name = if subsystems_of[name.as_str()].len() > 1 {
            format!("{name}_in_{}", entry.subsystem)
        } else {
            name.clone()
        };
        if taken.contains(&name) {
            let mut n = 2;
            while taken.contains(&format!("{name}_{n}")) {
                n += 1;
            }
            name = format!("{name}_{n}");
        }
        taken.insert(name.clone());
        out.push(name);
    }
    out
}

fn first_sentence(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let end = line.find(". ").map_or(line.len(), |i| i + 1);
    let mut s: String = line[..end].chars().take(200).collect();
    if !s.ends_with('.') && !s.is_empty() {
        s.push('.');
    }
    s
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

fn describe_tool() -> Tool {
    Tool {
        name: DESCRIBE.into(),
        description: Some(
            "Returns the input schema of one op of the tools listed here: call it with \
             {\"op\": \"<name from a tool's op enum>\"}. The schema merges the op's path, query \
             and header parameters and its request body into one object; pass that object as \
             `input` to the op's tool."
                .into(),
        ),
        input_schema: object(json!({
            "type": "object",
            "properties": {"op": {"type": "string", "description": "An op name from any tool's op enum."}},
            "required": ["op"],
            "additionalProperties": false
        })),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }),
        ..Tool::default()
    }
}

fn subsystem_tool(name: &str, description: Option<String>, entries: &[OpEntry]) -> Tool {
    let ops: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let lead = description
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| format!("The {} operations.", words(name).join(" ")));
    let description = format!(
        "{lead} Ops: {}. Call describe with {{\"op\"}} for an op's input, then this tool with {{\"op\", \"input\"}}.",
        ops.join(", ")
    );
    let read_only = entries.iter().all(|e| matches!(e.method, "get" | "head"));
    Tool {
        name: name.to_owned(),
        description: Some(description),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ops},
                "input": {"type": "object", "description": "The op's input, as describe returns its schema."}
            },
            "required": ["op"],
            "additionalProperties": false
        })),
        annotations: read_only.then(|| ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }),
        ..Tool::default()
    }
}
