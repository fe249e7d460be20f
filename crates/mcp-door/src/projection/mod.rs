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
use crate::naming::{OpName, is_version_word, op_name, raw_subsystem, subsystem_name, words};
use crate::openapi::{self, Body, Param, RawOperation};
use crate::refusal::RefusalRule;
use crate::source::OpenApiSource;
use input_schema::{SCHEMA_MAX_BYTES, TooLarge, body_field, input_schema};
use tools::{Subsystem, describe_tool, first_sentence, one_line, subsystem_tools};

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
    /// The op's line in its tool's description: its summary, else the
    /// first sentence of its description.
    pub line: Option<String>,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    /// `Some(field)` when the body travels under one input member; `None`
    /// when its properties are merged into the input.
    pub body_field: Option<String>,
    pub doc: usize,
    pub upstream: Option<String>,
    /// `upstream` parsed once (each call's URL is checked against it).
    pub upstream_url: Option<reqwest::Url>,
    /// `name` and `subsystem` as the metrics label them, shared (set
    /// when the entry is indexed).
    pub labels: OpLabels,
}

/// An op's name and subsystem as metric labels: shared, so that counting
/// a call copies no text.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpLabels {
    pub name: Arc<str>,
    pub subsystem: Arc<str>,
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
    /// Each subsystem tool's name as a metric label, and its entries.
    by_tool: HashMap<String, (Arc<str>, Vec<usize>)>,
    refused: Vec<String>,
    superseded: Vec<String>,
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
        let mut offer = Offer::gather(sources, config);
        let superseded = supersede(&mut offer.candidates);
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
            superseded,
            rule: config.refusal.summary(),
            unavailable: offer.unavailable,
            shortened,
            documents: offer.documents,
        };
        let kept: Vec<(String, Vec<OpEntry>)> = grouped.into_iter().take(keep).collect();
        let subsystems: Vec<Subsystem<'_>> = kept
            .iter()
            .map(|(name, entries)| Subsystem {
                name,
                description: offer.tag_descriptions.get(name).cloned(),
                entries,
            })
            .collect();
        projection.tools.extend(subsystem_tools(&subsystems));
        for (subsystem, entries) in kept {
            projection.add_tool(subsystem, entries);
        }
        projection
    }

    /// Indexes the entries of subsystem tool `subsystem` (listed already).
    fn add_tool(&mut self, subsystem: String, entries: Vec<OpEntry>) {
        let label: Arc<str> = Arc::from(subsystem.as_str());
        let (_, indexes) = self
            .by_tool
            .entry(subsystem)
            .or_insert_with(|| (Arc::clone(&label), Vec::new()));
        for mut entry in entries {
            let i = self.entries.len();
            self.by_name.insert(entry.name.clone(), i);
            indexes.push(i);
            entry.labels = OpLabels {
                name: Arc::from(entry.name.as_str()),
                subsystem: Arc::clone(&label),
            };
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

    /// The operations not offered because another API version of the same
    /// path and method is (`GET /apis/apps/v1beta1/deployments` when
    /// `.../v1/deployments` is offered), as `METHOD path`, sorted. Of
    /// several versions the door offers the stable one over beta over
    /// alpha, then the highest number (HIP-0300 §1.3: one tool per
    /// subsystem, API versions folded).
    pub fn superseded(&self) -> &[String] {
        &self.superseded
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

    /// The metric label of a call of the tool or op `name` (the name,
    /// shared); `None` when the projection has neither.
    pub(crate) fn call_label(&self, name: &str) -> Option<&Arc<str>> {
        match self.by_tool.get(name) {
            Some((label, _)) => Some(label),
            None => self.entry(name).map(|e| &e.labels.name),
        }
    }

    /// What `describe` answers for `op` (HIP-0300 §1.3): `{op, tool, method,
    /// path, summary?, inputSchema}`, where `inputSchema` merges the path,
    /// query and header parameters and the request body into one JSON
    /// Schema object with `required` set. `None` for an op not offered. An
    /// input schema larger than 1 MiB once its `$ref`s are inlined is shown
    /// as `{"description": "(schema not shown: …)"}`; the door answers such
    /// a `describe` with an error instead.
    pub fn describe(&self, op: &str) -> Option<Value> {
        self.described(op).map(|r| {
            r.unwrap_or_else(|(mut out, why)| {
                out["inputSchema"] = json!({"description": format!("(schema not shown: {why})")});
                out
            })
        })
    }

    /// [`describe`](Self::describe), with `Err` carrying the answer
    /// without its schema and the reason when the schema is too large.
    pub(crate) fn described(&self, op: &str) -> Option<Result<Value, (Value, String)>> {
        let entry = self.entry(op)?;
        let mut out = json!({
            "op": entry.name,
            "tool": entry.subsystem,
            "method": entry.method.to_ascii_uppercase(),
            "path": entry.path,
        });
        if let Some(s) = &entry.summary {
            out["summary"] = Value::String(s.clone());
        }
        Some(match self.input_schema(entry) {
            Ok(schema) => {
                out["inputSchema"] = schema;
                Ok(out)
            }
            Err(TooLarge) => Err((
                out,
                format!(
                    "the input schema is larger than {SCHEMA_MAX_BYTES} bytes once its $refs \
                     are inlined"
                ),
            )),
        })
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
                    Ok(Value::Object(m)) => m.into(),
                    _ => JsonObject::new().into(),
                },
                ..Tool::default()
            })
            .collect()
    }

    fn input_schema(&self, entry: &OpEntry) -> Result<Value, TooLarge> {
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
    candidates: Vec<(OpEntry, OpName)>,
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
            if let Some(reason) = openapi::path_problem(&op.path) {
                tracing::warn!(
                    source = label,
                    method = op.method,
                    path = op.path,
                    "operation withheld: its path cannot be forwarded: {reason}"
                );
                continue;
            }
            if excluded(&op, &config.excluded_prefixes, excluded_tags)
                || excluded(&op, &own.excluded_prefixes, &own_tags)
            {
                continue;
            }
            let subsystem = subsystem_name(&raw_subsystem(&op));
            if excluded_tags.contains(&subsystem) || own_tags.contains(&subsystem) {
                continue;
            }
            let stated = |key: &str| {
                doc.get("paths")?
                    .get(&op.path)?
                    .get(op.method)?
                    .get(key)?
                    .as_str()
                    .map(str::to_owned)
            };
            // The configuration's override, else the document's
            // `x-mcp-name`, names the op as written.
            let explicit = source
                .name_override(op.method, &op.path, op.operation_id.as_deref())
                .map(str::to_owned)
                .or_else(|| stated("x-mcp-name"));
            let name = op_name(&op, &subsystem, explicit.as_deref());
            let line = op
                .summary
                .as_deref()
                .or(stated("description").as_deref())
                .map(one_line)
                .filter(|l| !l.is_empty());
            let mut entry = OpEntry::new(op, subsystem, doc, doc_index, upstream.clone());
            entry.line = line;
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
            line: None,
            params: op.params,
            body: op.body,
            body_field,
            doc: doc_index,
            upstream_url: upstream
                .as_deref()
                .and_then(|u| reqwest::Url::parse(u).ok()),
            upstream,
            labels: OpLabels::default(),
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
    candidates: Vec<(OpEntry, OpName)>,
    refusal: &RefusalRule,
) -> (BTreeMap<String, Vec<OpEntry>>, Vec<String>) {
    let names = unique_names(&candidates);
    let mut refused = Vec::new();
    let mut grouped: BTreeMap<String, Vec<OpEntry>> = BTreeMap::new();
    for ((mut entry, phrase), name) in candidates.into_iter().zip(names) {
        entry.name = name;
        // The rule reads the name shown and the whole phrase it was cut
        // from, so neither a cut nor a qualifier lets an op through.
        if refusal.check(&entry.name).is_some() || refusal.check(&phrase.phrase()).is_some() {
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

/// One API version word, ranked: stable over beta over alpha, then by
/// number (`v2` > `v1` > `v1beta3` > `v1beta2` > `v1alpha1`).
fn version_rank(v: &str) -> (u8, u32, u32) {
    let rest = &v[1..];
    let major_len = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let major = rest[..major_len].parse().unwrap_or(0);
    let rest = &rest[major_len..];
    let (stability, minor) = match rest
        .strip_prefix("beta")
        .or_else(|| rest.strip_prefix("alpha"))
    {
        Some(n) => (u8::from(rest.starts_with("beta")), n.parse().unwrap_or(0)),
        None => (2, 0),
    };
    (stability, major, minor)
}

/// The API version of `path`, ranked: its highest version word (a path
/// with none ranks as stable), then how many it has (`/v2/x/itemsV2`
/// after `/v2/x/items`).
fn path_rank(path: &str) -> ((u8, u32, u32), usize) {
    let versions: Vec<String> = words(path)
        .into_iter()
        .filter(|w| is_version_word(w))
        .collect();
    let best = versions
        .iter()
        .map(|v| version_rank(v))
        .max()
        .unwrap_or((2, 0, 0));
    (best, versions.len())
}

/// Leaves out the candidates that another API version of the same
/// subsystem, method and path offers, keeping the preferred version (the
/// first document's on a tie); returns them as `METHOD path`, sorted.
fn supersede(candidates: &mut Vec<(OpEntry, OpName)>) -> Vec<String> {
    let key = |e: &OpEntry| {
        let unversioned: Vec<String> = e
            .path
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    return s.to_owned();
                }
                let w: Vec<String> = words(s)
                    .into_iter()
                    .filter(|w| !is_version_word(w))
                    .collect();
                w.join("_")
            })
            .filter(|s| !s.is_empty())
            .collect();
        // Only versioned paths stand in for each other: `/apis/apps/` (the
        // group) is not `/apis/apps/v1/` (its resources).
        let versioned = words(&e.path).iter().any(|w| is_version_word(w));
        (
            e.subsystem.clone(),
            e.method,
            unversioned.join("/"),
            versioned,
        )
    };
    let mut best: HashMap<(String, &'static str, String, bool), usize> = HashMap::new();
    for (i, (e, _)) in candidates.iter().enumerate() {
        best.entry(key(e))
            .and_modify(|b| {
                if path_rank(&e.path) > path_rank(&candidates[*b].0.path) {
                    *b = i;
                }
            })
            .or_insert(i);
    }
    let mut superseded = Vec::new();
    let mut i = 0;
    candidates.retain(|(e, _)| {
        let keep = best[&key(e)] == i;
        i += 1;
        if !keep {
            superseded.push(format!("{} {}", e.method.to_ascii_uppercase(), e.path));
        }
        keep
    });
    superseded.sort();
    superseded
}

/// Names made unique across the door, deterministically and whatever the
/// order of the candidates: while several ops share a name, each takes its
/// next [`crate::naming::Step`] (the resource its path is under, its
/// subsystem, its method's verb, its last path parameter), skipping a step
/// they would all take alike. An op with no step left keeps the name. Ops
/// still alike after every step (the same words in different spellings)
/// are told apart by their order, `_2` on; no public description needs it.
fn unique_names(candidates: &[(OpEntry, OpName)]) -> Vec<String> {
    let n = candidates.len();
    let mut applied: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut next: Vec<usize> = vec![0; n];
    let render = |i: usize, applied: &[usize]| {
        let name = &candidates[i].1;
        let steps: Vec<&crate::naming::Step> = applied.iter().map(|&k| &name.steps[k]).collect();
        name.render(&steps)
    };
    let mut names: Vec<String> = (0..n).map(|i| render(i, &applied[i])).collect();
    loop {
        let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, name) in names.iter().enumerate() {
            groups.entry(name.as_str()).or_default().push(i);
        }
        let mut moved: Vec<usize> = Vec::new();
        let mut skipped = false;
        for members in groups.values().filter(|m| m.len() > 1) {
            let steps_of = |i: usize| &candidates[i].1.steps;
            let movable: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| next[i] < steps_of(i).len())
                .collect();
            if movable.is_empty() {
                continue;
            }
            // The kind of step tried first (the method's verb, then what
            // the op is under, then its parameter): a member whose next
            // step is of a later kind waits, and keeps the name when the
            // others move away from it.
            let kind = |i: usize| steps_of(i)[next[i]].rank();
            let first = movable.iter().map(|&i| kind(i)).min().unwrap_or(0);
            let movers: Vec<usize> = movable
                .iter()
                .copied()
                .filter(|&i| kind(i) == first)
                .collect();
            // A step every member would take alike tells none apart.
            if movers.len() == members.len()
                && movers.len() > 1
                && movers
                    .iter()
                    .all(|&i| steps_of(i)[next[i]] == steps_of(movers[0])[next[movers[0]]])
            {
                for &i in &movers {
                    next[i] += 1;
                }
                skipped = true;
                continue;
            }
            for &i in &movers {
                applied[i].push(next[i]);
                next[i] += 1;
                moved.push(i);
            }
        }
        if moved.is_empty() && !skipped {
            break;
        }
        for i in moved {
            names[i] = render(i, &applied[i]);
        }
    }
    let mut taken: HashSet<String> = HashSet::new();
    for name in &mut names {
        if taken.contains(name.as_str()) {
            let mut k = 2;
            while taken.contains(&format!("{name}_{k}")) {
                k += 1;
            }
            *name = format!("{name}_{k}");
        }
        taken.insert(name.clone());
    }
    names
}
