//! The `tasks` tool: durable tasks per workspace, in the state database.
//!
//! A task has a title, a description, a status (`pending`, `in_progress`,
//! `completed`), a priority (`low`, `medium`, `high`, `urgent`), tags, an
//! optional parent and the tasks it is blocked by. `list` marks a task
//! blocked while any task it is blocked by is not completed.

use std::sync::Arc;

use mcp_proto::CallToolResult;
use rusqlite::OptionalExtension as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::action::{ActionTool, actions, arguments, field_groups, local_tool};
use crate::context::ToolContext;
use crate::store::{Store, WriteError, now, workspace_scope};
use crate::util::{About, Hints, ToolResult, page_marker};

/// Default and largest page of `list` and `search`.
const PAGE: u64 = 100;
/// Longest title, in bytes.
pub const MAX_TITLE_BYTES: usize = 1024;
/// Longest description, in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 16 * 1024;

/// Title and description within their caps.
fn check_text(title: Option<&str>, description: Option<&str>) -> Result<(), String> {
    if let Some(title) = title
        && (title.len() > MAX_TITLE_BYTES || title.chars().any(char::is_control))
    {
        return Err(format!(
            "title must be at most {MAX_TITLE_BYTES} bytes without control characters"
        ));
    }
    if description.is_some_and(|d| d.len() > MAX_DESCRIPTION_BYTES) {
        return Err(format!(
            "description must be at most {MAX_DESCRIPTION_BYTES} bytes"
        ));
    }
    Ok(())
}

/// `parent` and `blocked_by` name other tasks of this workspace; `id` is
/// the task being written (`None` for a new one).
fn check_links(
    tx: &rusqlite::Transaction<'_>,
    scope: &str,
    id: Option<i64>,
    parent: Option<i64>,
    blocked_by: Option<&[i64]>,
) -> Result<(), WriteError> {
    let links = parent.iter().chain(blocked_by.into_iter().flatten());
    for &other in links {
        if Some(other) == id {
            return Err(WriteError::Refused(format!(
                "task {other} cannot be its own parent or blocker"
            )));
        }
        let exists: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM tasks WHERE scope = ?1 AND id = ?2)",
            (scope, other),
            |r| r.get(0),
        )?;
        if !exists {
            return Err(WriteError::Refused(format!(
                "no task {other} in this workspace"
            )));
        }
    }
    // A parent chain that comes back to `id` would be a cycle.
    if let (Some(id), Some(first)) = (id, parent) {
        let mut parent = first;
        for _ in 0..10_000 {
            let next: Option<i64> = tx.query_row(
                "SELECT parent FROM tasks WHERE scope = ?1 AND id = ?2",
                (scope, parent),
                |r| r.get(0),
            )?;
            match next {
                Some(next) if next == id => {
                    return Err(WriteError::Refused(format!(
                        "parent {first}: task {id} is already its ancestor"
                    )));
                }
                Some(next) => parent = next,
                None => break,
            }
        }
    }
    Ok(())
}

/// The `tasks` local tool. Cheap to clone; clones share the store.
#[derive(Debug, Clone)]
pub struct TasksTool {
    store: Arc<Store>,
}

impl TasksTool {
    /// The tool over `store` (shared with `memory` and `plan`).
    pub fn new(store: Arc<Store>) -> TasksTool {
        TasksTool { store }
    }
}

actions! {
    /// Which `tasks` action to run.
    pub(crate) enum TasksAction for TasksCall {
        Add(AddArgs) = "add" ["create"] { reads: false, can: [State], pool: true, usage: "a new pending task (title may also be given as text, content or subject), with the id given (refused when taken) or else the next free one; returns its id." },
        List(ListArgs) = "list" { reads: true, can: [], pool: true, usage: "tasks by priority, then age; blocked ones marked." },
        Get(IdArgs) = "get" { reads: true, can: [], pool: true, usage: "one task." },
        Update(UpdateArgs) = "update" { reads: false, can: [State], pool: true, usage: "change a task." },
        Complete(IdArgs) = "complete" { reads: false, can: [State], pool: true, usage: "mark a task completed." },
        Remove(IdArgs) = "remove" ["delete"] { reads: false, can: [State], pool: true, usage: "delete a task." },
        Search(SearchArgs) = "search" { reads: true, can: [], pool: true, usage: "tasks whose title or description contains query (case-insensitive)." },
    }
}

/// A task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// A task's priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Priority {
    /// Some day.
    Low,
    /// The default.
    Medium,
    /// Soon.
    High,
    /// Now.
    Urgent,
}

fn word<T: Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

field_groups! {
    /// The task `get`, `update`, `complete` and `remove` work on.
    task_id {
        /// The task's id (a number; its decimal string is accepted too).
        #[serde(deserialize_with = "crate::util::required_number_id")]
        id: i64,
    }

    /// The priority, tags and links to other tasks that `add` gives a
    /// task and `update` changes.
    task_links {
        /// low, medium (a new task's default), high or urgent.
        priority: Option<Priority>,
        /// Labels.
        tags: Option<Vec<String>>,
        /// The id of the task this one is part of.
        #[serde(default, deserialize_with = "crate::util::number_id")]
        parent: Option<i64>,
        /// Ids of the tasks that must be completed first.
        #[serde(default, deserialize_with = "crate::util::number_ids")]
        blocked_by: Option<Vec<i64>>,
    }
}

arguments! {
    /// Arguments of `tasks add`.
    pub(crate) struct AddArgs {
        /// What the task is (also accepted as text, content or subject).
        #[serde(alias = "text", alias = "content", alias = "subject")]
        title: String,
        /// The id wanted for the new task, kept when free (a number; its decimal string is accepted too).
        #[serde(default, deserialize_with = "crate::util::number_id")]
        id: Option<i64>,
        /// More detail.
        description: Option<String>,
        ..task_links,
    }
}

/// Arguments of `tasks list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListArgs {
    /// Only tasks with this status.
    status: Option<Status>,
    /// Only tasks with this priority.
    priority: Option<Priority>,
    /// Only tasks with this tag.
    tag: Option<String>,
    /// Tasks to skip (default 0).
    offset: Option<u64>,
    /// Most tasks (default and at most 100).
    limit: Option<u64>,
}

arguments! {
    /// Arguments of `tasks get`, `complete` and `remove`: one task.
    pub(crate) struct IdArgs {
        ..task_id,
    }
}

arguments! {
    /// Arguments of `tasks update`.
    #[derive(Default)]
    pub(crate) struct UpdateArgs {
        ..task_id,
        /// What the task is (also accepted as text, content or subject).
        #[serde(alias = "text", alias = "content", alias = "subject")]
        title: Option<String>,
        /// More detail.
        description: Option<String>,
        /// pending, in_progress or completed.
        status: Option<Status>,
        ..task_links,
    }
}

/// Arguments of `tasks search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    /// Words to look for.
    query: String,
    /// Most tasks (default and at most 100).
    limit: Option<u64>,
}

/// One task as shown.
#[derive(Debug, Serialize)]
struct Task {
    id: i64,
    title: String,
    description: String,
    status: String,
    priority: String,
    tags: Vec<String>,
    parent: Option<i64>,
    blocked_by: Vec<i64>,
    blocked: bool,
    created: String,
    updated: String,
}

/// The columns of a task, and whether a task it is blocked by is still
/// open (looked up by id: a join would scan the workspace's tasks per row).
const COLUMNS: &str = "id, title, description, status, priority, tags, parent, blocked_by, created_at, updated_at,
    EXISTS (SELECT 1 FROM json_each(t.blocked_by) b
            WHERE (SELECT o.status FROM tasks o WHERE o.id = b.value AND o.scope = t.scope) != 'completed')";

fn task_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
    let tags: String = row.get(5)?;
    let blocked_by: String = row.get(7)?;
    Ok(Task {
        id: row.get(0)?,
        title: row.get(1)?,
        description: row.get(2)?,
        status: row.get(3)?,
        priority: row.get(4)?,
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        parent: row.get(6)?,
        blocked_by: serde_json::from_str(&blocked_by).unwrap_or_default(),
        created: row.get(8)?,
        updated: row.get(9)?,
        blocked: row.get(10)?,
    })
}

const DESCRIPTION: &str = "Durable tasks for this workspace in a local database: add, list (filters by status, priority and tag; blocked tasks marked), get, update, complete, remove, search. Call with {\"action\":\"help\"} for the fields.";

impl ActionTool for TasksTool {
    type Args = TasksCall;
    const ABOUT: About = About::new("tasks", "Tasks", Hints::LOCAL_CHANGES, DESCRIPTION);

    fn run_blocking(&self, call: TasksCall, ctx: &ToolContext) -> ToolResult {
        let scope = workspace_scope(ctx);
        self.store.ready(&ctx.roots)?;
        match call {
            TasksCall::Add(args) => self.add(&scope, &args),
            TasksCall::List(args) => self.list(&scope, &args),
            TasksCall::Get(IdArgs { id }) => Ok(shown(&[self.get(&scope, id)?], None)),
            TasksCall::Update(args) => self.update(&scope, &args),
            TasksCall::Complete(IdArgs { id }) => {
                let args = UpdateArgs {
                    id,
                    status: Some(Status::Completed),
                    ..UpdateArgs::default()
                };
                self.update(&scope, &args)
            }
            TasksCall::Remove(IdArgs { id }) => {
                self.store.write(|tx| {
                    if tx.execute(
                        "DELETE FROM tasks WHERE scope = ?1 AND id = ?2",
                        (&scope, id),
                    )? == 0
                    {
                        return Err(WriteError::Refused(format!(
                            "no task {id} in this workspace"
                        )));
                    }
                    Ok(())
                })?;
                Ok(CallToolResult::text(format!("removed task {id}\n")))
            }
            TasksCall::Search(args) => self.search(&scope, &args),
        }
    }
}

local_tool!(TasksTool);

fn json_list<T: Serialize>(items: &Option<Vec<T>>) -> Result<Option<String>, String> {
    items
        .as_ref()
        .map(|v| serde_json::to_string(v).map_err(|e| e.to_string()))
        .transpose()
}

impl TasksTool {
    fn add(&self, scope: &str, args: &AddArgs) -> ToolResult {
        let title = args.title.as_str();
        if title.trim().is_empty() {
            return Err("add: 'title' is empty".to_owned());
        }
        let tags = json_list(&args.tags)?.unwrap_or_else(|| "[]".to_owned());
        let blocked_by = json_list(&args.blocked_by)?.unwrap_or_else(|| "[]".to_owned());
        check_text(Some(title), args.description.as_deref())?;
        let priority = word(args.priority.unwrap_or(Priority::Medium));
        // An id the caller chose (as agents that number their own lists
        // do) is kept when it is free; without one the store picks.
        if let Some(wanted) = args.id
            && wanted < 1
        {
            return Err(format!(
                "add: id {wanted} is not a task id (a whole number from 1); omit id to get a new one"
            ));
        }
        let id = self.store.write(|tx| {
            check_links(tx, scope, None, args.parent, args.blocked_by.as_deref())?;
            if let Some(wanted) = args.id {
                // Ids are shared by every workspace's tasks.
                let holder: Option<String> = tx
                    .query_row("SELECT scope FROM tasks WHERE id = ?1", [wanted], |row| {
                        row.get(0)
                    })
                    .optional()?;
                match holder {
                    Some(holder) if holder == scope => {
                        return Err(WriteError::Refused(format!(
                            "add: task id {wanted} is taken; omit id to get a new one, or update task {wanted}"
                        )));
                    }
                    Some(_) => {
                        return Err(WriteError::Refused(format!(
                            "add: task id {wanted} belongs to another workspace's task (ids are shared by every workspace); omit id to get a new one"
                        )));
                    }
                    None => {}
                }
            }
            let now = now();
            tx.execute(
                "INSERT INTO tasks (id, scope, title, description, status, priority, tags, parent, blocked_by, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, ?9, ?9)",
                (args.id, scope, title, args.description.as_deref().unwrap_or(""), &priority, &tags, args.parent, &blocked_by, &now),
            )?;
            Ok(tx.last_insert_rowid())
        })?;
        let mut result = CallToolResult::text(format!("added task {id}: {title}\n"));
        result.structured_content = Some(json!({"id": id}));
        Ok(result)
    }

    fn get(&self, scope: &str, id: i64) -> Result<Task, String> {
        let found = self.store.with(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM tasks t WHERE scope = ?1 AND id = ?2"
            ))?;
            stmt.query_map((scope, id), task_row)?
                .collect::<rusqlite::Result<Vec<_>>>()
        })?;
        found
            .into_iter()
            .next()
            .ok_or_else(|| format!("no task {id} in this workspace"))
    }

    fn update(&self, scope: &str, args: &UpdateArgs) -> ToolResult {
        let id = args.id;
        let tags = json_list(&args.tags)?;
        let blocked_by = json_list(&args.blocked_by)?;
        let status = args.status.map(word);
        let priority = args.priority.map(word);
        check_text(args.title.as_deref(), args.description.as_deref())?;
        self.store.write(|tx| {
            check_links(tx, scope, Some(id), args.parent, args.blocked_by.as_deref())?;
            let changed = tx.execute(
                "UPDATE tasks SET title = COALESCE(?3, title), description = COALESCE(?4, description),
                   status = COALESCE(?5, status), priority = COALESCE(?6, priority), tags = COALESCE(?7, tags),
                   parent = COALESCE(?8, parent), blocked_by = COALESCE(?9, blocked_by), updated_at = ?10
                 WHERE scope = ?1 AND id = ?2",
                rusqlite::params![scope, id, args.title, args.description, status, priority, tags, args.parent, blocked_by, now()],
            )?;
            if changed == 0 {
                return Err(WriteError::Refused(format!("no task {id} in this workspace")));
            }
            Ok(())
        })?;
        Ok(shown(&[self.get(scope, id)?], None))
    }

    fn list(&self, scope: &str, args: &ListArgs) -> ToolResult {
        let offset = crate::util::sql_offset(args.offset);
        let limit = args.limit.unwrap_or(PAGE).clamp(1, PAGE) as i64;
        let status = args.status.map(word);
        let priority = args.priority.map(word);
        let filter = "scope = ?1 AND (?2 IS NULL OR status = ?2) AND (?3 IS NULL OR priority = ?3)
            AND (?4 IS NULL OR EXISTS (SELECT 1 FROM json_each(t.tags) WHERE value = ?4))";
        let (total, tasks) = self.store.with(|conn| {
            let total: i64 = conn.query_row(
                &format!("SELECT COUNT(*) FROM tasks t WHERE {filter}"),
                (scope, &status, &priority, &args.tag),
                |r| r.get(0),
            )?;
            // The page's ids first, then its columns: `blocked` is worked
            // out for the rows shown, not for every row sorted.
            let order = "status = 'completed', CASE priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, id";
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM tasks t WHERE t.id IN
                   (SELECT id FROM tasks t WHERE {filter} ORDER BY {order} LIMIT ?5 OFFSET ?6)
                 ORDER BY {order}"
            ))?;
            let tasks = stmt
                .query_map((scope, &status, &priority, &args.tag, limit, offset), task_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((total as u64, tasks))
        })?;
        let end = offset as u64 + tasks.len() as u64;
        let marker = (end < total).then(|| page_marker("tasks", offset as u64, end, Some(total)));
        Ok(shown(&tasks, marker))
    }

    fn search(&self, scope: &str, args: &SearchArgs) -> ToolResult {
        let query = args.query.as_str();
        if query.is_empty() {
            return Err("search: 'query' is empty".to_owned());
        }
        let limit = args.limit.unwrap_or(PAGE).clamp(1, PAGE) as i64;
        let pattern = format!(
            "%{}%",
            query
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        let tasks = self.store.with(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM tasks t WHERE scope = ?1
                 AND (title LIKE ?2 ESCAPE '\\' OR description LIKE ?2 ESCAPE '\\') ORDER BY id LIMIT ?3"
            ))?;
            stmt.query_map((scope, &pattern, limit), task_row)?
                .collect::<rusqlite::Result<Vec<_>>>()
        })?;
        Ok(shown(&tasks, None))
    }
}

fn shown(tasks: &[Task], marker: Option<String>) -> CallToolResult {
    let mut text = String::new();
    for t in tasks {
        text.push_str(&format!(
            "#{} [{}] ({}) {}",
            t.id, t.status, t.priority, t.title
        ));
        if !t.tags.is_empty() {
            text.push_str(&format!(" [{}]", t.tags.join(", ")));
        }
        if t.blocked {
            let ids: Vec<String> = t.blocked_by.iter().map(|i| format!("#{i}")).collect();
            text.push_str(&format!(" (blocked by {})", ids.join(", ")));
        }
        text.push('\n');
        if !t.description.is_empty() && tasks.len() == 1 {
            text.push_str(&t.description);
            text.push('\n');
        }
    }
    if tasks.is_empty() {
        text.push_str("[no tasks]\n");
    }
    if let Some(marker) = marker {
        text.push_str(&marker);
        text.push('\n');
    }
    let mut result = CallToolResult::text(text);
    result.structured_content = Some(json!({ "tasks": tasks }));
    result
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::TasksTool;
    use crate::util::{call_for_test, help_fields, store_for_test};

    #[tokio::test]
    async fn aliases_ids_and_the_checks_of_the_actions() {
        let (_dir, root, store) = store_for_test();
        let tasks = TasksTool::new(store);
        let call = |args| call_for_test(&tasks, &root, args);
        assert_eq!(
            call(json!({"action": "delete"})).await,
            (true, "remove: missing field 'id'".to_owned())
        );
        assert_eq!(
            call(json!({"action": "add", "title": " "})).await,
            (true, "add: 'title' is empty".to_owned())
        );
        assert_eq!(
            call(json!({"action": "search", "query": ""})).await,
            (true, "search: 'query' is empty".to_owned())
        );
        assert_eq!(
            call(json!({"action": "create", "subject": "one", "id": "3"})).await,
            (false, "added task 3: one\n".to_owned())
        );
        let (err, text) = call(json!({"action": "get", "id": "three"})).await;
        assert!(err && text.contains("invalid id \"three\""), "{text}");
        let (err, text) = call(json!({"action": "complete", "id": 3, "title": "x"})).await;
        assert!(
            err && text.starts_with("complete: unknown field `title`"),
            "{text}"
        );
        assert_eq!(
            call(json!({"action": "complete", "id": "3"})).await,
            (false, "#3 [completed] (medium) one\n".to_owned())
        );
        let (_, text) = call(json!({"action": "help"})).await;
        let mut fields = help_fields(&text, "add");
        assert_eq!(fields.remove(0), "title");
        fields.sort();
        assert_eq!(
            fields,
            [
                "[blocked_by]",
                "[description]",
                "[id]",
                "[parent]",
                "[priority]",
                "[tags]"
            ]
        );
        assert!(text.contains("\nget {id}: one task."), "{text}");
    }
}
