//! The `memory` tool: what the agent should remember, in the state
//! database ([`crate::store`]).
//!
//! Two vocabularies over one store:
//!
//! - keyed memories (Hanzo's servers): `store`, `recall`, `list`, `update`,
//!   `forget` (alias `delete`), `search` (full text, ranked by SQLite FTS5's
//!   bm25);
//! - the knowledge graph of the reference memory server, same names and
//!   argument shapes: `create_entities`, `create_relations`,
//!   `add_observations`, `delete_entities`, `delete_observations`,
//!   `delete_relations`, `read_graph`, `search_nodes`, `open_nodes`; and
//!   `import`/`export` of its JSONL file format.
//!
//! Every record has a scope: `workspace` (the default: the canonical first
//! root) or `global`. Every write is committed before the answer.

mod graph;

use std::sync::Arc;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::action::{ActionTool, action_args, actions, local_tool};
use crate::context::ToolContext;
use crate::store::{Store, WriteError, now, scope};
use crate::util::{Hints, ToolResult, page_marker};

/// Default and largest page of `list`, `recall` and `search`.
const PAGE: u64 = 50;
/// Largest `content` of one memory, in bytes.
pub const MAX_CONTENT_BYTES: usize = 256 * 1024;

/// The `memory` local tool. Cheap to clone; clones share the store.
#[derive(Debug, Clone)]
pub struct MemoryTool {
    store: Arc<Store>,
}

impl MemoryTool {
    /// The tool over `store` (shared with `plan` and `tasks`).
    pub fn new(store: Arc<Store>) -> MemoryTool {
        MemoryTool { store }
    }
}

actions! {
    /// Which `memory` action to run.
    pub(crate) enum MemoryAction {
        Store = "store" { reads: false, can: [State], pool: true, usage: "{content, [key], [tags], [scope]}: remember content under key (a new key is made when none is given); an existing key is replaced." },
        Recall = "recall" { reads: true, can: [], pool: true, usage: "{key | query, [scope], [limit]}: the memory with that key, or the memories best matching the query." },
        List = "list" { reads: true, can: [], pool: true, usage: "{[scope], [tag], [offset], [limit]}: memories, newest first." },
        Update = "update" { reads: false, can: [State], pool: true, usage: "{key, [content], [tags], [scope]}: change a memory's content or tags." },
        Forget = "forget" ["delete"] { reads: false, can: [State], pool: true, usage: "{key, [scope]}: remove a memory." },
        Search = "search" { reads: true, can: [], pool: true, usage: "{query, [scope], [limit]}: full-text search over keys, contents and tags, best first." },
        CreateEntities = "create_entities" { reads: false, can: [State], pool: true, usage: "{entities: [{name, entityType, observations}], [scope]}: add entities (existing names are skipped)." },
        CreateRelations = "create_relations" { reads: false, can: [State], pool: true, usage: "{relations: [{from, to, relationType}], [scope]}: add relations (in active voice; duplicates skipped)." },
        AddObservations = "add_observations" { reads: false, can: [State], pool: true, usage: "{observations: [{entityName, contents}], [scope]}: add observations to existing entities." },
        DeleteEntities = "delete_entities" { reads: false, can: [State], pool: true, usage: "{entityNames, [scope]}: remove entities, their observations and relations." },
        DeleteObservations = "delete_observations" { reads: false, can: [State], pool: true, usage: "{deletions: [{entityName, observations}], [scope]}: remove observations." },
        DeleteRelations = "delete_relations" { reads: false, can: [State], pool: true, usage: "{relations: [{from, to, relationType}], [scope]}: remove relations." },
        ReadGraph = "read_graph" { reads: true, can: [], pool: true, usage: "{[scope]}: every entity and relation." },
        SearchNodes = "search_nodes" { reads: true, can: [], pool: true, usage: "{query, [scope]}: entities whose name, type or observations contain query (case-insensitive), and the relations between them." },
        OpenNodes = "open_nodes" { reads: true, can: [], pool: true, usage: "{names, [scope]}: the named entities and the relations between them." },
        Import = "import" { reads: false, can: [ReadFiles, State], pool: true, usage: "{path, [scope]}: read a reference memory server JSONL file (inside the roots); bad lines are reported by number and skipped." },
        Export = "export" { reads: false, can: [WriteFiles], pool: true, usage: "{path, [scope], [overwrite]}: write the graph as JSONL (inside the roots); refuses to replace a file unless overwrite." },
        Help = "help" { reads: true, can: [], pool: false, usage: ": this text." },
    }
}

/// An entity of the knowledge graph (reference memory server shape).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entity {
    /// Its unique name.
    pub name: String,
    /// Its type (`person`, `project`, ...).
    #[serde(rename = "entityType")]
    pub entity_type: String,
    /// Facts about it.
    #[serde(default)]
    pub observations: Vec<String>,
}

/// A directed relation of the knowledge graph.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Relation {
    /// The entity it starts at.
    pub from: String,
    /// The entity it points to.
    pub to: String,
    /// What it says, in active voice (`works_at`).
    #[serde(rename = "relationType")]
    pub relation_type: String,
}

/// Observations to add to one entity.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ObservationsIn {
    /// The entity.
    #[serde(rename = "entityName")]
    pub entity_name: String,
    /// The observations.
    pub contents: Vec<String>,
}

/// Observations to remove from one entity.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ObservationsOut {
    /// The entity.
    #[serde(rename = "entityName")]
    pub entity_name: String,
    /// The observations.
    pub observations: Vec<String>,
}

/// Arguments of the `memory` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemoryArgs {
    /// store | recall | list | update | forget | search | create_entities | create_relations | add_observations | delete_entities | delete_observations | delete_relations | read_graph | search_nodes | open_nodes | import | export | help (also accepted: delete = forget).
    action: MemoryAction,
    /// store, recall, update, forget: the memory's key.
    key: Option<String>,
    /// store, update: what to remember.
    content: Option<String>,
    /// store, update: labels; list: see tag.
    tags: Option<Vec<String>>,
    /// workspace (default: the first root) or global.
    scope: Option<String>,
    /// recall, search, search_nodes: words to look for.
    query: Option<String>,
    /// list: only memories with this tag.
    tag: Option<String>,
    /// list: memories to skip (default 0).
    offset: Option<u64>,
    /// list, recall, search: most results (default and at most 50).
    limit: Option<u64>,
    /// create_entities: the entities.
    entities: Option<Vec<Entity>>,
    /// create_relations, delete_relations: the relations.
    relations: Option<Vec<Relation>>,
    /// add_observations: observations per entity.
    observations: Option<Vec<ObservationsIn>>,
    /// delete_entities: the names.
    #[serde(rename = "entityNames")]
    entity_names: Option<Vec<String>>,
    /// delete_observations: observations per entity.
    deletions: Option<Vec<ObservationsOut>>,
    /// open_nodes: the names.
    names: Option<Vec<String>>,
    /// import, export: the JSONL file, inside the roots.
    path: Option<String>,
    /// export: replace an existing file.
    overwrite: Option<bool>,
}

action_args!(MemoryArgs => MemoryAction);

fn need<'a, T>(value: &'a Option<T>, action: &str, field: &str) -> Result<&'a T, String> {
    value
        .as_ref()
        .ok_or_else(|| format!("{action}: missing field '{field}'"))
}

const DESCRIPTION: &str = "Long-lived memory in a local database, per workspace or global: keyed memories (store, recall, list, update, forget, full-text search) and a knowledge graph of entities, observations and relations (the reference memory server's actions), with import and export of its JSONL files. Call with {\"action\":\"help\"} for every action's fields.";

impl ActionTool for MemoryTool {
    type Args = MemoryArgs;
    const NAME: &'static str = "memory";
    const TITLE: &'static str = "Memory";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: false,
    };
    // The store is readied first (which may take the file-changes lock
    // exclusively), then an action that writes files holds it shared.
    const GUARDS_FILE_CHANGES: bool = true;
    const HELP_NOTES: &'static str =
        "scope is workspace (the default) or global. Every write is committed before the answer.";

    fn run_blocking(&self, args: MemoryArgs, ctx: &ToolContext) -> ToolResult {
        let scope = scope(args.scope.as_deref(), ctx)?;
        let store = &self.store;
        self.store.ready(&ctx.roots)?;
        let writes = crate::action::Action::spec(args.action)
            .capabilities
            .contains(&crate::capability::Capability::WriteFiles);
        let _changing = writes.then(|| crate::action::FILE_CHANGES.blocking_read());
        match args.action {
            MemoryAction::Store => store_memory(store, &scope, &args),
            MemoryAction::Recall => match (&args.key, &args.query) {
                (Some(key), _) => recall(store, &scope, key),
                (None, Some(query)) => search(store, &scope, query, args.limit),
                (None, None) => Err("recall: give 'key' or 'query'".to_owned()),
            },
            MemoryAction::List => list(store, &scope, &args),
            MemoryAction::Update => update(store, &scope, &args),
            MemoryAction::Forget => forget(store, &scope, need(&args.key, "forget", "key")?),
            MemoryAction::Search => search(
                store,
                &scope,
                need(&args.query, "search", "query")?,
                args.limit,
            ),
            MemoryAction::Help => Ok(CallToolResult::text(crate::action::help::<Self>())),
            _ => graph::run(store, &scope, &args, ctx),
        }
    }
}

local_tool!(MemoryTool);

fn check_content(content: &str) -> Result<(), String> {
    if content.trim().is_empty() {
        return Err("content is empty".to_owned());
    }
    if content.len() > MAX_CONTENT_BYTES {
        return Err(format!(
            "content is {} bytes; a memory holds at most {MAX_CONTENT_BYTES}",
            content.len()
        ));
    }
    Ok(())
}

fn store_memory(store: &Store, scope: &str, args: &MemoryArgs) -> ToolResult {
    let content = need(&args.content, "store", "content")?;
    check_content(content)?;
    let tags =
        serde_json::to_string(&args.tags.clone().unwrap_or_default()).map_err(|e| e.to_string())?;
    let asked_key = args.key.clone().filter(|k| !k.trim().is_empty());
    if let Some(key) = &asked_key {
        check_name("key", key)?;
    }
    let (key, replaced) = store.write(|tx| {
        let now = now();
        let key = match &asked_key {
            Some(key) => key.clone(),
            None => {
                // A new record always: the first `memory-<n>` not taken.
                let mut next: i64 =
                    tx.query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM memories", [], |r| {
                        r.get(0)
                    })?;
                loop {
                    let key = format!("memory-{next}");
                    let taken: bool = tx.query_row(
                        "SELECT EXISTS (SELECT 1 FROM memories WHERE scope = ?1 AND key = ?2)",
                        (scope, &key),
                        |r| r.get(0),
                    )?;
                    if !taken {
                        break key;
                    }
                    next += 1;
                }
            }
        };
        let replaced = tx.execute(
            "UPDATE memories SET content = ?3, tags = ?4, updated_at = ?5 WHERE scope = ?1 AND key = ?2",
            (scope, &key, content, &tags, &now),
        )? > 0;
        if !replaced {
            tx.execute(
                "INSERT INTO memories (scope, key, content, tags, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                (scope, &key, content, &tags, &now),
            )?;
        }
        Ok::<_, WriteError>((key, replaced))
    })?;
    let mut result = CallToolResult::text(format!(
        "{} memory '{key}'\n",
        if replaced { "replaced" } else { "stored" }
    ));
    result.structured_content = Some(json!({"key": key, "replaced": replaced, "scope": scope}));
    Ok(result)
}

/// One memory row.
#[derive(Debug, Serialize)]
struct Memory {
    key: String,
    content: String,
    tags: Vec<String>,
    updated: String,
}

fn memory_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Memory> {
    let tags: String = row.get(2)?;
    Ok(Memory {
        key: row.get(0)?,
        content: row.get(1)?,
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        updated: row.get(3)?,
    })
}

fn shown(memories: &[Memory], marker: Option<String>) -> CallToolResult {
    let mut text = String::new();
    for m in memories {
        let tags = if m.tags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", m.tags.join(", "))
        };
        text.push_str(&format!("{}{tags}: {}\n", m.key, m.content));
    }
    if memories.is_empty() {
        text.push_str("[no memories]\n");
    }
    if let Some(marker) = marker {
        text.push_str(&marker);
        text.push('\n');
    }
    let mut result = CallToolResult::text(text);
    result.structured_content = Some(json!({ "memories": memories }));
    result
}

fn recall(store: &Store, scope: &str, key: &str) -> ToolResult {
    let found = store.with(|conn| {
        let mut stmt = conn.prepare_cached(
            "SELECT key, content, tags, updated_at FROM memories WHERE scope = ?1 AND key = ?2",
        )?;
        stmt.query_map((scope, key), memory_row)?
            .collect::<rusqlite::Result<Vec<_>>>()
    })?;
    if found.is_empty() {
        return Err(format!("no memory '{key}' in this scope"));
    }
    Ok(shown(&found, None))
}

/// Longest key, entity name, type or relation type, in bytes.
pub const MAX_NAME_BYTES: usize = 1024;

/// A key or name: 1 to [`MAX_NAME_BYTES`] bytes, no control characters.
pub(crate) fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.trim().is_empty() || name.len() > MAX_NAME_BYTES || name.chars().any(char::is_control) {
        return Err(format!(
            "{what} must be 1 to {MAX_NAME_BYTES} bytes without control characters"
        ));
    }
    Ok(())
}

fn page_limit(limit: Option<u64>) -> u64 {
    limit.unwrap_or(PAGE).clamp(1, PAGE)
}

fn list(store: &Store, scope: &str, args: &MemoryArgs) -> ToolResult {
    let offset = crate::util::sql_offset(args.offset) as u64;
    let limit = page_limit(args.limit);
    let tag = args.tag.clone();
    let (total, found) = store.with(|conn| {
        let filter = "scope = ?1 AND (?2 IS NULL OR EXISTS (SELECT 1 FROM json_each(memories.tags) WHERE value = ?2))";
        let total: i64 = conn.query_row(
            &format!("SELECT COUNT(*) FROM memories WHERE {filter}"),
            (scope, &tag),
            |r| r.get(0),
        )?;
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT key, content, tags, updated_at FROM memories WHERE {filter} ORDER BY updated_at DESC, id DESC LIMIT ?3 OFFSET ?4"
        ))?;
        let rows = stmt
            .query_map((scope, &tag, limit as i64, offset as i64), memory_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((total as u64, rows))
    })?;
    let end = offset + found.len() as u64;
    let marker = (end < total).then(|| page_marker("memories", offset, end, Some(total)));
    Ok(shown(&found, marker))
}

fn update(store: &Store, scope: &str, args: &MemoryArgs) -> ToolResult {
    let key = need(&args.key, "update", "key")?;
    if args.content.is_none() && args.tags.is_none() {
        return Err("update: give 'content' or 'tags'".to_owned());
    }
    if let Some(content) = &args.content {
        check_content(content)?;
    }
    let tags = match &args.tags {
        Some(tags) => Some(serde_json::to_string(tags).map_err(|e| e.to_string())?),
        None => None,
    };
    store.write(|tx| {
        let changed = tx.execute(
            "UPDATE memories SET content = COALESCE(?3, content), tags = COALESCE(?4, tags), updated_at = ?5 WHERE scope = ?1 AND key = ?2",
            (scope, key, &args.content, &tags, now()),
        )?;
        if changed == 0 {
            return Err(WriteError::Refused(format!("no memory '{key}' in this scope")));
        }
        Ok(())
    })?;
    Ok(CallToolResult::text(format!("updated memory '{key}'\n")))
}

fn forget(store: &Store, scope: &str, key: &str) -> ToolResult {
    store.write(|tx| {
        let removed = tx.execute(
            "DELETE FROM memories WHERE scope = ?1 AND key = ?2",
            (scope, key),
        )?;
        if removed == 0 {
            return Err(WriteError::Refused(format!(
                "no memory '{key}' in this scope"
            )));
        }
        Ok(())
    })?;
    Ok(CallToolResult::text(format!("forgot memory '{key}'\n")))
}

/// An FTS5 query matching any of the words of `text`, each quoted so no
/// character of the caller's text is read as query syntax.
fn fts_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

fn search(store: &Store, scope: &str, query: &str, limit: Option<u64>) -> ToolResult {
    let Some(fts) = fts_query(query) else {
        return Err("search: 'query' has no words".to_owned());
    };
    let limit = page_limit(limit);
    let found = store.with(|conn| {
        let mut stmt = conn.prepare_cached(
            "SELECT m.key, m.content, m.tags, m.updated_at FROM memories_fts f
             JOIN memories m ON m.id = f.rowid
             WHERE memories_fts MATCH ?1 AND m.scope = ?2
             ORDER BY f.rank, m.id DESC LIMIT ?3",
        )?;
        stmt.query_map((&fts, scope, limit as i64), memory_row)?
            .collect::<rusqlite::Result<Vec<_>>>()
    })?;
    Ok(shown(&found, None))
}
