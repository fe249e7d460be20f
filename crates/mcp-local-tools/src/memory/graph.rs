//! The knowledge graph: entities with observations, and relations between
//! them, with the reference memory server's actions and JSONL format
//! (`{"type":"entity","name","entityType","observations"}` and
//! `{"type":"relation","from","to","relationType"}`, one per line).

use std::collections::BTreeMap;
use std::io::Read as _;

use mcp_proto::CallToolResult;
use serde_json::{Value, json};

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Entity, ObservationsIn, ObservationsOut, Relation};
use crate::context::ToolContext;
use crate::store::{Store, WriteError};
use crate::util::ToolResult;

/// Largest JSONL file `import` reads: 64 MiB.
const MAX_IMPORT_BYTES: u64 = 64 * 1024 * 1024;
/// Bad lines named one by one in an `import` result; the rest are counted.
const BAD_LINES_SHOWN: usize = 20;

/// Arguments of `memory create_entities`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntitiesArgs {
    /// The entities.
    entities: Vec<Entity>,
}

/// Arguments of `memory create_relations` and `delete_relations`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RelationsArgs {
    /// The relations.
    relations: Vec<Relation>,
}

/// Arguments of `memory add_observations`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ObservationsArgs {
    /// Observations per entity.
    observations: Vec<ObservationsIn>,
}

/// Arguments of `memory delete_entities`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntityNamesArgs {
    /// The names.
    #[serde(rename = "entityNames")]
    entity_names: Vec<String>,
}

/// Arguments of `memory delete_observations`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeletionsArgs {
    /// Observations per entity.
    deletions: Vec<ObservationsOut>,
}

/// Arguments of `memory search_nodes`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchNodesArgs {
    /// Words to look for.
    query: String,
}

/// Arguments of `memory open_nodes`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NamesArgs {
    /// The names.
    names: Vec<String>,
}

/// Arguments of `memory import`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ImportArgs {
    /// The JSONL file, inside the roots.
    pub(super) path: String,
}

/// Arguments of `memory export`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExportArgs {
    /// The JSONL file, inside the roots.
    path: String,
    /// Replace an existing file (default false).
    #[serde(default)]
    overwrite: bool,
}

/// `create_entities`: adds the new entities; answers those.
pub(super) fn create_entities(store: &Store, scope: &str, args: &EntitiesArgs) -> ToolResult {
    let created = store.write(|tx| add_entities(tx, scope, &args.entities))?;
    Ok(graph_result(&Graph {
        entities: created,
        relations: Vec::new(),
    }))
}

/// `create_relations`: adds the new relations; answers those.
pub(super) fn create_relations(store: &Store, scope: &str, args: &RelationsArgs) -> ToolResult {
    let created = store.write(|tx| add_relations(tx, scope, &args.relations))?;
    Ok(graph_result(&Graph {
        entities: Vec::new(),
        relations: created,
    }))
}

/// `add_observations`: answers the observations added per entity.
pub(super) fn add_observations(store: &Store, scope: &str, args: &ObservationsArgs) -> ToolResult {
    let added = store.write(|tx| add_observation_lists(tx, scope, &args.observations))?;
    Ok(json_result(&Value::Array(added)))
}

/// `delete_entities`: the entities named and every relation to or from
/// them; answers how many entities were deleted.
pub(super) fn delete_entities(store: &Store, scope: &str, args: &EntityNamesArgs) -> ToolResult {
    let names = || args.entity_names.iter().map(|name| (scope, name));
    deleted(store, "entities", |tx| {
        let removed = delete_each(
            tx,
            "DELETE FROM entities WHERE scope = ?1 AND name = ?2",
            names(),
        )?;
        delete_each(
            tx,
            "DELETE FROM relations WHERE scope = ?1 AND (from_entity = ?2 OR to_entity = ?2)",
            names(),
        )?;
        Ok(removed)
    })
}

/// `delete_observations`: the observations given per entity; answers how
/// many were deleted.
pub(super) fn delete_observations(store: &Store, scope: &str, args: &DeletionsArgs) -> ToolResult {
    let rows = args.deletions.iter().flat_map(|item| {
        let entity = &item.entity_name;
        item.observations
            .iter()
            .map(move |text| (scope, entity, text))
    });
    deleted(store, "observations", |tx| {
        delete_each(
            tx,
            "DELETE FROM observations WHERE scope = ?1 AND entity = ?2 AND text = ?3",
            rows,
        )
    })
}

/// `delete_relations`: the relations given; answers how many were
/// deleted.
pub(super) fn delete_relations(store: &Store, scope: &str, args: &RelationsArgs) -> ToolResult {
    let rows = args
        .relations
        .iter()
        .map(|r| (scope, &r.from, &r.to, &r.relation_type));
    deleted(store, "relations", |tx| {
        delete_each(
            tx,
            "DELETE FROM relations WHERE scope = ?1 AND from_entity = ?2 AND to_entity = ?3 AND relation_type = ?4",
            rows,
        )
    })
}

/// Runs `delete` in one transaction; answers how many `what` it deleted.
fn deleted(
    store: &Store,
    what: &str,
    delete: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<usize, WriteError>,
) -> ToolResult {
    let removed = store.write(delete)?;
    Ok(CallToolResult::text(format!("deleted {removed} {what}\n")))
}

/// Runs the `DELETE` statement `sql` once with each parameter set of
/// `rows`; the count of rows deleted.
fn delete_each<P: rusqlite::Params>(
    tx: &rusqlite::Transaction<'_>,
    sql: &str,
    rows: impl IntoIterator<Item = P>,
) -> Result<usize, WriteError> {
    let mut removed = 0;
    for params in rows {
        removed += tx.execute(sql, params)?;
    }
    Ok(removed)
}

/// `read_graph`: the whole graph of `scope`.
pub(super) fn read_graph(store: &Store, scope: &str) -> ToolResult {
    Ok(graph_result(&read(store, scope, None)?))
}

/// `search_nodes`: the matching entities and the relations among them.
pub(super) fn search_nodes(store: &Store, scope: &str, args: &SearchNodesArgs) -> ToolResult {
    let query = args.query.to_lowercase();
    let graph = read(store, scope, None)?;
    let names = matching_names(&graph, &query);
    Ok(graph_result(&graph.only(&names)))
}

/// `open_nodes`: the named entities and the relations among them.
pub(super) fn open_nodes(store: &Store, scope: &str, args: &NamesArgs) -> ToolResult {
    let names = &args.names;
    Ok(graph_result(&read(store, scope, Some(names))?.only(names)))
}

/// Adds each item's new observations to its entity, which must exist;
/// `{entityName, addedObservations}` per item.
fn add_observation_lists(
    tx: &rusqlite::Transaction<'_>,
    scope: &str,
    observations: &[ObservationsIn],
) -> Result<Vec<Value>, WriteError> {
    let mut added = Vec::new();
    for item in observations {
        if !entity_exists(tx, scope, &item.entity_name)? {
            return Err(WriteError::Refused(format!(
                "add_observations: no entity '{}'",
                item.entity_name
            )));
        }
        let mut new = Vec::new();
        for text in &item.contents {
            check_observation(text).map_err(WriteError::Refused)?;
            if insert_observation(tx, scope, &item.entity_name, text)? {
                new.push(text.clone());
            }
        }
        added.push(json!({"entityName": item.entity_name, "addedObservations": new}));
    }
    Ok(added)
}

/// The names of the entities whose name, type or an observation contains
/// `query` (already lower case), in any case.
fn matching_names(graph: &Graph, query: &str) -> Vec<String> {
    graph
        .entities
        .iter()
        .filter(|e| {
            e.name.to_lowercase().contains(query)
                || e.entity_type.to_lowercase().contains(query)
                || e.observations
                    .iter()
                    .any(|o| o.to_lowercase().contains(query))
        })
        .map(|e| e.name.clone())
        .collect()
}

/// Entities and relations.
#[derive(Debug, Default)]
struct Graph {
    entities: Vec<Entity>,
    relations: Vec<Relation>,
}

impl Graph {
    /// The entities named, and the relations among them.
    fn only(self, names: &[String]) -> Graph {
        let names: std::collections::HashSet<&String> = names.iter().collect();
        let keep = |n: &String| names.contains(n);
        Graph {
            entities: self
                .entities
                .into_iter()
                .filter(|e| keep(&e.name))
                .collect(),
            relations: self
                .relations
                .into_iter()
                .filter(|r| keep(&r.from) && keep(&r.to))
                .collect(),
        }
    }
}

fn json_result(value: &Value) -> CallToolResult {
    let mut result =
        CallToolResult::text(serde_json::to_string_pretty(value).unwrap_or_default() + "\n");
    result.structured_content = Some(match value {
        Value::Object(_) => value.clone(),
        _ => json!({ "items": value }),
    });
    result
}

fn graph_result(graph: &Graph) -> CallToolResult {
    json_result(&json!({"entities": graph.entities, "relations": graph.relations}))
}

fn entity_exists(
    tx: &rusqlite::Transaction<'_>,
    scope: &str,
    name: &str,
) -> rusqlite::Result<bool> {
    tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM entities WHERE scope = ?1 AND name = ?2)",
        (scope, name),
        |r| r.get(0),
    )
}

fn insert_observation(
    tx: &rusqlite::Transaction<'_>,
    scope: &str,
    entity: &str,
    text: &str,
) -> rusqlite::Result<bool> {
    Ok(tx.execute(
        "INSERT OR IGNORE INTO observations (scope, entity, text) VALUES (?1, ?2, ?3)",
        (scope, entity, text),
    )? > 0)
}

/// Adds the entities whose names are new; returns those.
fn add_entities(
    tx: &rusqlite::Transaction<'_>,
    scope: &str,
    entities: &[Entity],
) -> Result<Vec<Entity>, WriteError> {
    let mut created = Vec::new();
    for entity in entities {
        check_entity(entity).map_err(WriteError::Refused)?;
        let new = tx.execute(
            "INSERT OR IGNORE INTO entities (scope, name, entity_type) VALUES (?1, ?2, ?3)",
            (scope, &entity.name, &entity.entity_type),
        )? > 0;
        if new {
            for text in &entity.observations {
                insert_observation(tx, scope, &entity.name, text)?;
            }
            created.push(entity.clone());
        }
    }
    Ok(created)
}

/// Largest observation, in bytes.
pub const MAX_OBSERVATION_BYTES: usize = 16 * 1024;

fn check_entity(entity: &Entity) -> Result<(), String> {
    super::check_name("entity name", &entity.name)?;
    super::check_name("entityType", &entity.entity_type)?;
    entity
        .observations
        .iter()
        .try_for_each(|o| check_observation(o))
}

fn check_observation(text: &str) -> Result<(), String> {
    if text.len() > MAX_OBSERVATION_BYTES {
        return Err(format!(
            "an observation is {} bytes; at most {MAX_OBSERVATION_BYTES}",
            text.len()
        ));
    }
    Ok(())
}

fn check_relation(r: &Relation) -> Result<(), String> {
    super::check_name("from", &r.from)?;
    super::check_name("to", &r.to)?;
    super::check_name("relationType", &r.relation_type)
}

/// Adds the relations not there yet; returns those.
fn add_relations(
    tx: &rusqlite::Transaction<'_>,
    scope: &str,
    relations: &[Relation],
) -> Result<Vec<Relation>, WriteError> {
    let mut created = Vec::new();
    for r in relations {
        check_relation(r).map_err(WriteError::Refused)?;
        let new = tx.execute(
            "INSERT OR IGNORE INTO relations (scope, from_entity, to_entity, relation_type) VALUES (?1, ?2, ?3, ?4)",
            (scope, &r.from, &r.to, &r.relation_type),
        )? > 0;
        if new {
            created.push(r.clone());
        }
    }
    Ok(created)
}

/// The graph of `scope` (only the entities named in `names`, when given).
fn read(store: &Store, scope: &str, names: Option<&Vec<String>>) -> Result<Graph, String> {
    let names: Option<std::collections::HashSet<&String>> = names.map(|n| n.iter().collect());
    store.with(|conn| {
        let mut graph = Graph::default();
        let mut observations: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut stmt =
            conn.prepare_cached("SELECT entity, text FROM observations WHERE scope = ?1 ORDER BY id")?;
        for row in stmt.query_map([scope], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))? {
            let (entity, text) = row?;
            if names.as_ref().is_none_or(|n| n.contains(&entity)) {
                observations.entry(entity).or_default().push(text);
            }
        }
        let mut stmt = conn.prepare_cached(
            "SELECT name, entity_type FROM entities WHERE scope = ?1 ORDER BY rowid",
        )?;
        for row in stmt.query_map([scope], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))? {
            let (name, entity_type) = row?;
            if names.as_ref().is_none_or(|n| n.contains(&name)) {
                graph.entities.push(Entity {
                    observations: observations.remove(&name).unwrap_or_default(),
                    name,
                    entity_type,
                });
            }
        }
        let mut stmt = conn.prepare_cached(
            "SELECT from_entity, to_entity, relation_type FROM relations WHERE scope = ?1 ORDER BY id",
        )?;
        for row in stmt.query_map([scope], |r| {
            Ok(Relation {
                from: r.get(0)?,
                to: r.get(1)?,
                relation_type: r.get(2)?,
            })
        })? {
            graph.relations.push(row?);
        }
        Ok(graph)
    })
}

/// One line of the JSONL format.
#[derive(Debug, serde::Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line {
    Entity(Entity),
    Relation(Relation),
}

/// `import`: reads a JSONL file of the reference format into `scope`.
pub(super) fn import(store: &Store, scope: &str, path: &str, ctx: &ToolContext) -> ToolResult {
    let resolved = ctx
        .roots
        .resolve_existing(path)
        .map_err(|e| e.to_string())?;
    let (file, len) = crate::files::open_regular(&resolved, path)?;
    if len > MAX_IMPORT_BYTES {
        return Err(format!(
            "import: '{path}' is {len} bytes; at most {MAX_IMPORT_BYTES} are read"
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_IMPORT_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("import: '{path}': {e}"))?;
    let mut entities = Vec::new();
    let mut relations = Vec::new();
    let mut bad = Vec::new();
    for (number, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|line| serde_json::from_str::<Line>(line).map_err(|e| e.to_string()));
        let checked = parsed.and_then(|parsed| match parsed {
            Line::Entity(e) => check_entity(&e).map(|()| Line::Entity(e)),
            Line::Relation(r) => check_relation(&r).map(|()| Line::Relation(r)),
        });
        match checked {
            Ok(Line::Entity(e)) => entities.push(e),
            Ok(Line::Relation(r)) => relations.push(r),
            Err(e) => bad.push(format!("line {}: {e}", number + 1)),
        }
    }
    let (new_entities, new_relations) = store.write(|tx| {
        Ok((
            add_entities(tx, scope, &entities)?.len(),
            add_relations(tx, scope, &relations)?.len(),
        ))
    })?;
    let mut out = format!(
        "imported {new_entities} entities and {new_relations} relations from {path} ({} entity and {} relation lines read; existing ones kept)\n",
        entities.len(),
        relations.len()
    );
    if !bad.is_empty() {
        out.push_str(&format!("{} bad lines skipped:\n", bad.len()));
        for line in bad.iter().take(BAD_LINES_SHOWN) {
            out.push_str(line);
            out.push('\n');
        }
        if bad.len() > BAD_LINES_SHOWN {
            out.push_str(&format!("[and {} more]\n", bad.len() - BAD_LINES_SHOWN));
        }
    }
    let mut result = CallToolResult::text(out);
    result.structured_content = Some(json!({
        "entities": new_entities,
        "relations": new_relations,
        "badLines": bad,
    }));
    Ok(result)
}

/// `export`: writes the graph of `scope` as a JSONL file.
pub(super) fn export(
    store: &Store,
    scope: &str,
    args: &ExportArgs,
    ctx: &ToolContext,
) -> ToolResult {
    let path = args.path.as_str();
    let resolved = ctx.roots.resolve(path).map_err(|e| e.to_string())?;
    let overwrite = args.overwrite;
    // Checked here for a clear message before the graph is read; the
    // write below refuses an existing file again, atomically.
    if resolved.exists && !overwrite {
        return Err(format!(
            "export: '{path}' exists; pass overwrite: true to replace it"
        ));
    }
    let graph = read(store, scope, None)?;
    let mut text = String::new();
    let lines = graph
        .entities
        .iter()
        .map(LineOut::Entity)
        .chain(graph.relations.iter().map(LineOut::Relation));
    for line in lines {
        text.push_str(&serde_json::to_string(&line).map_err(|e| e.to_string())?);
        text.push('\n');
    }
    crate::files::write_file(&resolved, text.as_bytes(), overwrite).map_err(|e| {
        if e.kind == crate::error::PathErrorKind::AlreadyExists {
            format!("export: '{path}' exists; pass overwrite: true to replace it")
        } else {
            e.to_string()
        }
    })?;
    Ok(CallToolResult::text(format!(
        "exported {} entities and {} relations to {}\n",
        graph.entities.len(),
        graph.relations.len(),
        ctx.roots.display(&resolved.path)
    )))
}

/// One line to write, in the reference server's field order.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum LineOut<'a> {
    Entity(&'a Entity),
    Relation(&'a Relation),
}
