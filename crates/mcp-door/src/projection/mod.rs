//! The projection (HIP-0300 §1.3–§1.5): OpenAPI operations become one tool
//! per subsystem plus `describe`, with the refusal rule applied.

mod input_schema;
mod own_document;
mod tools;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use mcp_proto::{JsonObject, Meta, Tool};
use serde_json::{Value, json};

use crate::error::DoorError;
use crate::naming::{op_name, raw_subsystem, subsystem_name};
use crate::openapi::{self, Body, Param, RawOperation};
use crate::refusal::RefusalRule;
use crate::source::OpenApiSource;
use input_schema::{body_field, input_schema};
use tools::{describe_tool, first_sentence, subsystem_tool};

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
        if let Ok(doc) = source.document() {
            source.upstream_url(doc)?;
        }
        Ok(Self::build(&[source], config))
    }

    /// Projects several sources into one door. Sources that failed to load,
    /// have a malformed upstream or are marked unavailable are listed under
    /// `hanzo.ai/unavailable` and offer nothing; the rest are merged, op
    /// names unique across all of them.
    pub fn build(sources: &[OpenApiSource], config: &ProjectionConfig) -> Projection {
        let offer = Offer::gather(sources, config);
        let (grouped, refused) = named_and_grouped(offer.candidates, &config.refusal);
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
            unavailable: offer.unavailable,
            shortened,
            documents: offer.documents,
        };
        for (subsystem, entries) in grouped.into_iter().take(keep) {
            let description = offer.tag_descriptions.get(&subsystem).cloned();
            projection.add_tool(subsystem, description, entries);
        }
        projection
    }

    /// Lists the subsystem tool `subsystem` and indexes its entries.
    fn add_tool(&mut self, subsystem: String, description: Option<String>, entries: Vec<OpEntry>) {
        self.tools
            .push(subsystem_tool(&subsystem, description, &entries));
        let indexes = self.by_tool.entry(subsystem).or_default();
        for entry in entries {
            let i = self.entries.len();
            self.by_name.insert(entry.name.clone(), i);
            indexes.push(i);
            self.entries.push(entry);
        }
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
        input_schema(&self.documents[entry.doc], entry)
    }
}

/// What the sources offer before op names are made unique and the refusal
/// rule applies.
#[derive(Default)]
struct Offer {
    /// The `hanzo.ai/unavailable` entries.
    unavailable: Vec<Value>,
    /// The documents of the sources that offer ops, [`OpEntry::doc`] indexes.
    documents: Vec<Arc<Value>>,
    /// Each offered op, in document order, with the name it asks for.
    candidates: Vec<(OpEntry, String)>,
    /// A subsystem's tool lead: the first sentence of its tag's description
    /// (the first document to describe it wins).
    tag_descriptions: HashMap<String, String>,
}

impl Offer {
    fn gather(sources: &[OpenApiSource], config: &ProjectionConfig) -> Offer {
        let excluded_tags: HashSet<String> = config
            .excluded_tags
            .iter()
            .map(|t| subsystem_name(t))
            .collect();
        let mut offer = Offer::default();
        for source in sources {
            offer.add(source, config, &excluded_tags);
        }
        offer
    }

    /// Adds `source`'s ops, or its `hanzo.ai/unavailable` entry when it failed
    /// to load, has a malformed upstream or is marked unavailable.
    fn add(
        &mut self,
        source: &OpenApiSource,
        config: &ProjectionConfig,
        excluded_tags: &HashSet<String>,
    ) {
        let label = source.label();
        let doc = match source.document() {
            Ok(doc) => doc,
            Err(reason) => {
                self.unavailable
                    .push(json!({"source": label, "reason": reason}));
                return;
            }
        };
        let upstream = match source.upstream_url(doc) {
            Ok(u) => u,
            Err(e) => {
                self.unavailable
                    .push(json!({"source": label, "reason": e.to_string()}));
                return;
            }
        };
        let ops = openapi::operations(doc);
        if !source.is_available() {
            let mut subsystems: Vec<String> = ops
                .iter()
                .map(|op| subsystem_name(&raw_subsystem(op)))
                .collect();
            subsystems.sort();
            subsystems.dedup();
            self.unavailable.push(json!({"source": label,
                "reason": "upstream marked unavailable", "subsystems": subsystems}));
            return;
        }
        if let Some(reason) = source.stale_reason() {
            self.unavailable
                .push(json!({"source": label, "reason": reason, "serving": "previous"}));
        }
        let doc_index = self.documents.len();
        self.documents.push(Arc::clone(doc));
        self.describe_tags(doc);
        let own = source.options();
        let own_tags: HashSet<String> = own
            .excluded_tags
            .iter()
            .map(|t| subsystem_name(t))
            .collect();
        for op in ops {
            if excluded(&op, &config.excluded_prefixes, excluded_tags)
                || excluded(&op, &own.excluded_prefixes, &own_tags)
            {
                continue;
            }
            let subsystem = subsystem_name(&raw_subsystem(&op));
            if excluded_tags.contains(&subsystem) || own_tags.contains(&subsystem) {
                continue;
            }
            let name = source
                .name_override(op.method, &op.path, op.operation_id.as_deref())
                .map_or_else(|| op_name(&op, &subsystem), str::to_owned);
            let entry = OpEntry::new(op, subsystem, doc, doc_index, upstream.clone());
            self.candidates.push((entry, name));
        }
    }

    /// Notes the first sentence of each described tag of `doc`, by subsystem.
    fn describe_tags(&mut self, doc: &Value) {
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
                self.tag_descriptions
                    .entry(subsystem_name(name))
                    .or_insert_with(|| first_sentence(desc));
            }
        }
    }
}

impl OpEntry {
    /// The entry for `op` of document `doc` (number `doc_index`), not named
    /// yet.
    fn new(
        op: RawOperation,
        subsystem: String,
        doc: &Value,
        doc_index: usize,
        upstream: Option<String>,
    ) -> OpEntry {
        let body_field = op
            .body
            .as_ref()
            .and_then(|b| body_field(doc, b, &op.params));
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
            upstream,
        }
    }
}

/// Whether the configuration leaves `op` out: not public, under one of the
/// `prefixes`, or tagged with one of the `excluded_tags` (normalised).
fn excluded(op: &RawOperation, prefixes: &[String], excluded_tags: &HashSet<String>) -> bool {
    op.x_public == Some(false)
        || prefixes.iter().any(|p| under_prefix(&op.path, p))
        || op
            .tags
            .iter()
            .any(|t| excluded_tags.contains(&subsystem_name(t)))
}

/// The candidates named uniquely, by subsystem, and the names the refusal
/// rule withholds, sorted.
fn named_and_grouped(
    candidates: Vec<(OpEntry, String)>,
    refusal: &RefusalRule,
) -> (BTreeMap<String, Vec<OpEntry>>, Vec<String>) {
    let names = unique_names(&candidates);
    let mut refused = Vec::new();
    let mut grouped: BTreeMap<String, Vec<OpEntry>> = BTreeMap::new();
    for ((mut entry, _), name) in candidates.into_iter().zip(names) {
        entry.name = name;
        if refusal.check(&entry.name).is_some() {
            refused.push(entry.name);
            continue;
        }
        grouped
            .entry(entry.subsystem.clone())
            .or_default()
            .push(entry);
    }
    refused.sort();
    (grouped, refused)
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
