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

use crate::action::{
    Action as _, ActionArgs as _, ActionTool, NoArgs, WithCommon, actions, local_tool,
};
use crate::context::ToolContext;
use crate::store::{Store, WriteError, now, scope};
use crate::util::{About, Hints, ToolResult, page_marker};

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
    pub(crate) enum MemoryAction for MemoryCall {
        Store(StoreArgs) = "store" { reads: false, can: [State], pool: true, usage: "remember content under key (a new key is made when none is given); an existing key is replaced." },
        Recall(RecallArgs) = "recall" { reads: true, can: [], pool: true, usage: "the memory with that key, or the memories best matching the query (give key or query)." },
        List(ListArgs) = "list" { reads: true, can: [], pool: true, usage: "memories, newest first." },
        Update(UpdateArgs) = "update" { reads: false, can: [State], pool: true, usage: "change a memory's content or tags." },
        Forget(KeyArgs) = "forget" ["delete"] { reads: false, can: [State], pool: true, usage: "remove a memory." },
        Search(SearchArgs) = "search" { reads: true, can: [], pool: true, usage: "full-text search over keys, contents and tags, best first." },
        CreateEntities(graph::EntitiesArgs) = "create_entities" { reads: false, can: [State], pool: true, usage: "add entities ([{name, entityType, observations}]; existing names are skipped)." },
        CreateRelations(graph::RelationsArgs) = "create_relations" { reads: false, can: [State], pool: true, usage: "add relations ([{from, to, relationType}], in active voice; duplicates skipped)." },
        AddObservations(graph::ObservationsArgs) = "add_observations" { reads: false, can: [State], pool: true, usage: "add observations ([{entityName, contents}]) to existing entities." },
        DeleteEntities(graph::EntityNamesArgs) = "delete_entities" { reads: false, can: [State], pool: true, usage: "remove entities, their observations and relations." },
        DeleteObservations(graph::DeletionsArgs) = "delete_observations" { reads: false, can: [State], pool: true, usage: "remove observations ([{entityName, observations}])." },
        DeleteRelations(graph::RelationsArgs) = "delete_relations" { reads: false, can: [State], pool: true, usage: "remove relations ([{from, to, relationType}])." },
        ReadGraph(NoArgs) = "read_graph" { reads: true, can: [], pool: true, usage: "every entity and relation." },
        SearchNodes(graph::SearchNodesArgs) = "search_nodes" { reads: true, can: [], pool: true, usage: "entities whose name, type or observations contain query (case-insensitive), and the relations between them." },
        OpenNodes(graph::NamesArgs) = "open_nodes" { reads: true, can: [], pool: true, usage: "the named entities and the relations between them." },
        Import(graph::ImportArgs) = "import" { reads: false, can: [ReadFiles, State], pool: true, usage: "read a reference memory server JSONL file (inside the roots); bad lines are reported by number and skipped." },
        Export(graph::ExportArgs) = "export" { reads: false, can: [WriteFiles], pool: true, usage: "write the graph as JSONL (inside the roots); refuses to replace a file unless overwrite." },
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

/// Arguments of `memory store`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoreArgs {
    /// What to remember.
    content: String,
    /// The memory's key.
    key: Option<String>,
    /// Labels.
    tags: Option<Vec<String>>,
}

/// Arguments of `memory recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecallArgs {
    /// The memory's key.
    key: Option<String>,
    /// Words to look for.
    query: Option<String>,
    /// Most results (default and at most 50).
    limit: Option<u64>,
}

/// Arguments of `memory list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListArgs {
    /// Only memories with this tag.
    tag: Option<String>,
    /// Memories to skip (default 0).
    offset: Option<u64>,
    /// Most results (default and at most 50).
    limit: Option<u64>,
}

/// Arguments of `memory update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateArgs {
    /// The memory's key.
    key: String,
    /// What to remember.
    content: Option<String>,
    /// Labels.
    tags: Option<Vec<String>>,
}

/// Arguments of `memory forget`: one key.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct KeyArgs {
    /// The memory's key.
    key: String,
}

/// Arguments of `memory search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    /// Words to look for.
    query: String,
    /// Most results (default and at most 50).
    limit: Option<u64>,
}

/// The field every `memory` action takes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemoryCommon {
    /// workspace (default: the first root) or global.
    scope: Option<String>,
}

const DESCRIPTION: &str = "Long-lived memory in a local database, per workspace or global: keyed memories (store, recall, list, update, forget, full-text search) and a knowledge graph of entities, observations and relations (the reference memory server's actions), with import and export of its JSONL files. Call with {\"action\":\"help\"} for every action's fields.";

impl ActionTool for MemoryTool {
    type Args = WithCommon<MemoryCommon, MemoryCall>;
    const ABOUT: About = About::new("memory", "Memory", Hints::LOCAL_CHANGES, DESCRIPTION);
    // The store is readied first (which may take the file-changes lock
    // exclusively), then an action that writes files holds it shared.
    const GUARDS_FILE_CHANGES: bool = true;
    const HELP_NOTES: &'static str =
        "scope is workspace (the default) or global. Every write is committed before the answer.";

    fn run_blocking(
        &self,
        call: WithCommon<MemoryCommon, MemoryCall>,
        ctx: &ToolContext,
    ) -> ToolResult {
        let scope = scope(call.common.scope.as_deref(), ctx)?;
        let store = &self.store;
        self.store.ready(&ctx.roots)?;
        let writes = call
            .action()
            .spec()
            .capabilities
            .contains(&crate::capability::Capability::WriteFiles);
        let _changing = writes.then(|| crate::action::FILE_CHANGES.blocking_read());
        match call.args {
            MemoryCall::Store(args) => store_memory(store, &scope, &args),
            MemoryCall::Recall(args) => match (&args.key, &args.query) {
                (Some(key), _) => recall(store, &scope, key),
                (None, Some(query)) => search(store, &scope, query, args.limit),
                (None, None) => Err("recall: give 'key' or 'query'".to_owned()),
            },
            MemoryCall::List(args) => list(store, &scope, &args),
            MemoryCall::Update(args) => update(store, &scope, &args),
            MemoryCall::Forget(args) => forget(store, &scope, &args.key),
            MemoryCall::Search(args) => search(store, &scope, &args.query, args.limit),
            MemoryCall::CreateEntities(args) => graph::create_entities(store, &scope, &args),
            MemoryCall::CreateRelations(args) => graph::create_relations(store, &scope, &args),
            MemoryCall::AddObservations(args) => graph::add_observations(store, &scope, &args),
            MemoryCall::DeleteEntities(args) => graph::delete_entities(store, &scope, &args),
            MemoryCall::DeleteObservations(args) => {
                graph::delete_observations(store, &scope, &args)
            }
            MemoryCall::DeleteRelations(args) => graph::delete_relations(store, &scope, &args),
            MemoryCall::ReadGraph(_) => graph::read_graph(store, &scope),
            MemoryCall::SearchNodes(args) => graph::search_nodes(store, &scope, &args),
            MemoryCall::OpenNodes(args) => graph::open_nodes(store, &scope, &args),
            MemoryCall::Import(args) => graph::import(store, &scope, &args.path, ctx),
            MemoryCall::Export(args) => graph::export(store, &scope, &args, ctx),
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

fn store_memory(store: &Store, scope: &str, args: &StoreArgs) -> ToolResult {
    let content = args.content.as_str();
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

fn list(store: &Store, scope: &str, args: &ListArgs) -> ToolResult {
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

fn update(store: &Store, scope: &str, args: &UpdateArgs) -> ToolResult {
    let key = args.key.as_str();
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::MemoryTool;
    use crate::util::{call_for_test, store_for_test};

    #[tokio::test]
    async fn aliases_checks_and_the_common_scope() {
        let (_dir, root, store) = store_for_test();
        let memory = MemoryTool::new(store);
        let call = |args| call_for_test(&memory, &root, args);
        assert_eq!(
            call(json!({"action": "delete"})).await,
            (true, "forget: missing field 'key'".to_owned())
        );
        assert_eq!(
            call(json!({"action": "recall"})).await,
            (true, "recall: give 'key' or 'query'".to_owned())
        );
        assert_eq!(
            call(json!({"action": "update", "key": "k"})).await,
            (true, "update: give 'content' or 'tags'".to_owned())
        );
        assert_eq!(
            call(json!({"action": "store", "key": "k", "content": "x", "scope": "global"})).await,
            (false, "stored memory 'k'\n".to_owned())
        );
        assert_eq!(
            call(json!({"action": "recall", "key": "k", "scope": "global"})).await,
            (false, "k: x\n".to_owned())
        );
        let (err, text) = call(json!({"action": "read_graph", "query": "x"})).await;
        assert_eq!(
            (err, text.as_str()),
            (true, "read_graph: unknown field `query`, expected `scope`")
        );
        // The scope is read from every action's own fields.
        let (err, text) = call(json!({"action": "read_graph", "scope": "team"})).await;
        assert_eq!(
            (err, text.as_str()),
            (
                true,
                "scope: 'team' is not a scope (accepted: workspace, global)"
            )
        );
        assert_eq!(
            call(json!({"action": "export", "path": "g.jsonl"})).await,
            (
                false,
                "exported 0 entities and 0 relations to g.jsonl\n".to_owned()
            )
        );
        let (err, text) = call(json!({"action": "export", "path": "g.jsonl"})).await;
        assert_eq!(
            (err, text.as_str()),
            (
                true,
                "export: 'g.jsonl' exists; pass overwrite: true to replace it"
            )
        );
    }
}
