//! `think`, `memory`, `plan` and `tasks` on a real SQLite database in a
//! temporary folder.

use std::sync::Arc;

use crate::common::{Sandbox, assert_outside_roots, cases, err, ok};
use mcp_local_tools::memory::MemoryTool;
use mcp_local_tools::plan::PlanTool;
use mcp_local_tools::store::Store;
use mcp_local_tools::tasks::TasksTool;
use mcp_local_tools::think::ThinkTool;
use mcp_local_tools::{LocalTool, ToolContext};
use serde_json::{Value, json};

/// Calls `tool`; returns (isError, text, structuredContent).
async fn call(tool: &dyn LocalTool, ctx: ToolContext, args: Value) -> (bool, String, Value) {
    crate::common::call_tool(tool, ctx, args).await
}

struct State {
    s: Sandbox,
    store: Arc<Store>,
}

impl State {
    fn new() -> State {
        let s = Sandbox::new();
        let store = Arc::new(Store::at(s.base.join("state/state.db")));
        State { s, store }
    }

    fn ctx(&self) -> ToolContext {
        ToolContext::new(self.s.roots.clone())
    }

    async fn memory(&self, args: Value) -> (bool, String, Value) {
        call(&MemoryTool::new(self.store.clone()), self.ctx(), args).await
    }

    async fn plan(&self, args: Value) -> (bool, String, Value) {
        call(&PlanTool::new(self.store.clone()), self.ctx(), args).await
    }

    async fn tasks(&self, args: Value) -> (bool, String, Value) {
        call(&TasksTool::new(self.store.clone()), self.ctx(), args).await
    }

    /// Calls `tool` ("memory", "plan" or "tasks") with each case's
    /// arguments in turn, asserting the whole answer (isError, text).
    async fn answers(&self, tool: &str, cases: impl IntoIterator<Item = (Value, (bool, String))>) {
        for (args, expected) in cases {
            let (is_error, text, _) = match tool {
                "memory" => self.memory(args.clone()).await,
                "plan" => self.plan(args.clone()).await,
                _ => self.tasks(args.clone()).await,
            };
            assert_eq!((is_error, text), expected, "{tool} {args}");
        }
    }
}

#[tokio::test]
async fn think_with_only_a_thought_and_lenient_fields() {
    let s = Sandbox::new();
    let think = ThinkTool::new();
    let ctx = || ToolContext::new(s.roots.clone());
    let (is_error, text, _) = call(&think, ctx(), json!({"thought": "first, read the code"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        "thought 1 of 1; 1 recorded; 0 revisions; branches: none; next thought needed\n"
    );
    let (_, text, summary) = call(
        &think,
        ctx(),
        json!({"thought": "second", "thoughtNumber": "2", "total_thoughts": 3,
               "nextThoughtNeeded": "false", "branch_id": "alt", "branchFromThought": 1}),
    )
    .await;
    assert_eq!(
        text,
        "thought 2 of 3; 2 recorded; 0 revisions; branches: alt; next thought not needed\n"
    );
    assert_eq!(summary["thoughtHistoryLength"], 2);
    let (_, text, _) = call(
        &think,
        ctx(),
        json!({"action": "think", "thought": "first, better", "is_revision": true, "revises_thought": 1}),
    )
    .await;
    assert!(text.contains("; 1 revisions;"), "{text}");
    let (_, text, _) = call(&think, ctx(), json!({"action": "history"})).await;
    assert!(
        text.starts_with("1/1: first, read the code\n2/3: second\n3/3: first, better\n"),
        "{text}"
    );
    // Another connection has its own record.
    let mut other = ctx();
    other.session = 7;
    let (_, text, _) = call(&think, other, json!({"action": "history"})).await;
    assert_eq!(text, "no thoughts yet\n");
    let (_, text, _) = call(&think, ctx(), json!({"action": "clear"})).await;
    assert_eq!(text, "cleared 3 thoughts\n");
    let (is_error, text, _) = call(&think, ctx(), json!({"thoughtNumber": "two"})).await;
    assert!(is_error);
    assert!(text.contains("'two' is not a whole number"), "{text}");
}

#[tokio::test]
async fn memory_search_matches_word_forms() {
    let st = State::new();
    st.memory(
        json!({"action": "store", "key": "a", "content": "I was committing the release notes"}),
    )
    .await;
    st.memory(json!({"action": "store", "key": "b", "content": "two commits landed"}))
        .await;
    st.memory(json!({"action": "store", "key": "c", "content": "the committee met"}))
        .await;
    let (err, text, _) = st
        .memory(json!({"action": "search", "query": "commit"}))
        .await;
    assert!(!err, "{text}");
    assert!(text.contains("committing the release notes"), "{text}");
    assert!(text.contains("two commits landed"), "{text}");
    assert!(!text.contains("committee"), "{text}");
}

#[tokio::test]
async fn keyed_memories() {
    let st = State::new();
    let (is_error, text, out) = st
        .memory(json!({"action": "store", "key": "style", "content": "use tabs in Go files", "tags": ["go", "style"]}))
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(text, "stored memory 'style'\n");
    assert_eq!(out["replaced"], false);
    let cases = cases![
        {"action": "store", "content": "the deploy needs VPN access"} => ok("stored memory 'memory-2'\n"),
        {"action": "store", "key": "style", "content": "gofmt decides", "tags": ["go"]} => ok("replaced memory 'style'\n"),
        {"action": "recall", "key": "style"} => ok("style [go]: gofmt decides\n"),
        {"action": "recall", "query": "deploy"} => ok("memory-2: the deploy needs VPN access\n"),
    ];
    st.answers("memory", cases).await;
    let (_, text, _) = st
        .memory(json!({"action": "search", "query": "VPN OR\" gofmt"}))
        .await;
    assert_eq!(
        text.lines().count(),
        2,
        "FTS syntax in the query is quoted: {text}"
    );
    let cases = cases![
        {"action": "list", "tag": "go"} => ok("style [go]: gofmt decides\n"),
        {"action": "update", "key": "memory-2", "tags": ["ops"]} => ok("updated memory 'memory-2'\n"),
        {"action": "list", "tag": "ops"} => ok("memory-2 [ops]: the deploy needs VPN access\n"),
        // Scopes are separate.
        {"action": "list", "scope": "global"} => ok("[no memories]\n"),
        {"action": "delete", "key": "memory-2"} => ok("forgot memory 'memory-2'\n"),
        {"action": "forget", "key": "memory-2"} => err("no memory 'memory-2' in this scope"),
        {"action": "list", "scope": "team"} => err("scope: 'team' is not a scope (accepted: workspace, global)"),
    ];
    st.answers("memory", cases).await;
}

#[tokio::test]
async fn knowledge_graph_in_the_reference_shapes() {
    let st = State::new();
    let (is_error, text, _) = st
        .memory(
            json!({"action": "create_entities", "scope": "global", "entities": [
                {"name": "Ada", "entityType": "person", "observations": ["writes Rust"]},
                {"name": "Hanzo", "entityType": "company", "observations": []}
            ]}),
        )
        .await;
    assert!(!is_error, "{text}");
    st.memory(
        json!({"action": "create_relations", "scope": "global", "relations": [
            {"from": "Ada", "to": "Hanzo", "relationType": "works_at"}
        ]}),
    )
    .await;
    let (_, _, added) = st
        .memory(
            json!({"action": "add_observations", "scope": "global", "observations": [
                {"entityName": "Ada", "contents": ["likes MCP", "writes Rust"]}
            ]}),
        )
        .await;
    assert_eq!(
        added["items"],
        json!([{"entityName": "Ada", "addedObservations": ["likes MCP"]}])
    );
    let (_, _, graph) = st
        .memory(json!({"action": "read_graph", "scope": "global"}))
        .await;
    assert_eq!(
        graph,
        json!({"entities": [
            {"name": "Ada", "entityType": "person", "observations": ["writes Rust", "likes MCP"]},
            {"name": "Hanzo", "entityType": "company", "observations": []}],
          "relations": [{"from": "Ada", "to": "Hanzo", "relationType": "works_at"}]})
    );
    let (_, _, found) = st
        .memory(json!({"action": "search_nodes", "scope": "global", "query": "mcp"}))
        .await;
    assert_eq!(found["entities"][0]["name"], "Ada");
    assert_eq!(found["relations"], json!([]));
    let (_, _, opened) = st
        .memory(json!({"action": "open_nodes", "scope": "global", "names": ["Ada", "Hanzo"]}))
        .await;
    assert_eq!(opened["relations"].as_array().unwrap().len(), 1);
    let cases = cases![
        {"action": "delete_observations", "scope": "global", "deletions": [{"entityName": "Ada", "observations": ["likes MCP"]}]} => ok("deleted 1 observations\n"),
        {"action": "delete_relations", "scope": "global", "relations": [{"from": "Ada", "to": "Hanzo", "relationType": "works_at"}]} => ok("deleted 1 relations\n"),
        {"action": "delete_entities", "scope": "global", "entityNames": ["Hanzo"]} => ok("deleted 1 entities\n"),
        {"action": "add_observations", "scope": "global", "observations": [{"entityName": "Nobody", "contents": ["x"]}]} => err("add_observations: no entity 'Nobody'"),
    ];
    st.answers("memory", cases).await;
}

#[tokio::test]
async fn import_ten_thousand_lines_with_three_bad_ones_and_export() {
    let st = State::new();
    let mut jsonl = String::new();
    for i in 0..10_000 {
        if i % 2 == 0 {
            jsonl.push_str(&format!(
                "{{\"type\":\"entity\",\"name\":\"e{i}\",\"entityType\":\"thing\",\"observations\":[\"o{i}\"]}}\n"
            ));
        } else {
            jsonl.push_str(&format!(
                "{{\"type\":\"relation\",\"from\":\"e{}\",\"to\":\"e{}\",\"relationType\":\"next\"}}\n",
                i - 1,
                i + 1
            ));
        }
        if i == 10 || i == 5000 || i == 9998 {
            jsonl.push_str(["{not json", "{\"type\":\"bogus\"}", "{\"type\":\"entity\"}"][i % 3]);
            jsonl.push('\n');
        }
    }
    st.s.write("memory.jsonl", &jsonl);
    let (is_error, text, out) = st
        .memory(json!({"action": "import", "path": "memory.jsonl"}))
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(out["entities"], 5000);
    assert_eq!(out["relations"], 5000);
    let bad: Vec<String> = out["badLines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().split(':').next().unwrap().to_owned())
        .collect();
    assert_eq!(bad, ["line 12", "line 5003", "line 10002"]);
    assert!(
        text.starts_with("imported 5000 entities and 5000 relations from memory.jsonl"),
        "{text}"
    );

    let cases = cases![
        {"action": "export", "path": "memory.jsonl"} => err("export: 'memory.jsonl' exists; pass overwrite: true to replace it"),
        {"action": "export", "path": "out.jsonl"} => ok("exported 5000 entities and 5000 relations to out.jsonl\n"),
    ];
    st.answers("memory", cases).await;
    let exported = st.s.read("out.jsonl");
    assert_eq!(exported.lines().count(), 10_000);
    assert_eq!(
        exported.lines().next().unwrap(),
        r#"{"type":"entity","name":"e0","entityType":"thing","observations":["o0"]}"#
    );
    let outside = json!({"action": "import", "path": "../outside/secret.txt"});
    let (is_error, text, _) = st.memory(outside).await;
    assert_outside_roots(&(is_error, text));
}

#[tokio::test]
async fn plan_in_both_shapes() {
    let st = State::new();
    let cases = cases![
        {"action": "set", "explanation": "ship it", "todos": [{"content": "write code", "status": "completed", "activeForm": "Writing code"}, {"content": "run tests", "status": "in_progress"}, {"content": "release"}]} => ok("ship it\n1. [x] write code\n2. [~] run tests\n3. [ ] release\n[1 of 3 completed]\n"),
        {"action": "next"} => ok("2. [~] run tests\n"),
    ];
    st.answers("plan", cases).await;
    let (_, text, _) = st
        .plan(json!({"action": "update", "index": 2, "status": "completed", "note": "all green"}))
        .await;
    assert!(text.contains("2. [x] run tests (all green)\n"), "{text}");
    let (is_error, text, _) = st
        .plan(json!({"action": "set", "plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}))
        .await;
    assert!(is_error);
    assert_eq!(text, "2 steps are in_progress; at most one may be");
    // The refused set changed nothing; the plan survives a new tool (a
    // restarted server) on the same database.
    let (_, text, _) = call(
        &PlanTool::new(Arc::new(Store::at(st.s.base.join("state/state.db")))),
        st.ctx(),
        json!({"action": "show"}),
    )
    .await;
    assert!(
        text.starts_with("ship it\n1. [x] write code\n2. [x] run tests (all green)\n"),
        "{text}"
    );
    let cases = cases![
        {"action": "clear"} => ok("plan cleared\n"),
        {"action": "get"} => ok("[no plan]\n"),
    ];
    st.answers("plan", cases).await;
}

#[tokio::test]
async fn task_ids_are_taken_as_numbers_or_their_strings() {
    let st = State::new();
    st.tasks(json!({"action": "add", "title": "one"})).await;
    let (_, text, _) = st
        .tasks(json!({"action": "add", "title": "two", "parent": "1", "blocked_by": ["1"]}))
        .await;
    assert_eq!(text, "added task 2: two\n");
    let (err, text, _) = st.tasks(json!({"action": "get", "id": "2"})).await;
    assert!(!err, "{text}");
    assert!(text.starts_with("#2 [pending] (medium) two"), "{text}");
    let (err, text, _) = st.tasks(json!({"action": "complete", "id": 1})).await;
    assert!(!err, "{text}");
    let (err, text, _) = st.tasks(json!({"action": "get", "id": "two"})).await;
    assert!(err);
    assert!(text.contains("invalid id \"two\""), "{text}");
}

#[tokio::test]
async fn an_id_given_to_add_is_kept_when_free_and_refused_when_taken() {
    let st = State::new();
    let (is_error, text, structured) = st
        .tasks(json!({"action": "add", "id": "7", "title": "seven"}))
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(text, "added task 7: seven\n");
    assert_eq!(structured, json!({"id": 7}));
    let cases = cases![
        // Without an id, the next one after the largest.
        {"action": "add", "title": "eight"} => ok("added task 8: eight\n"),
        {"action": "add", "id": 7, "title": "again"} => err("add: task id 7 is taken; omit id to get a new one, or update task 7"),
    ];
    st.answers("tasks", cases).await;
    let (is_error, text, _) = st
        .tasks(json!({"action": "add", "id": 0, "title": "zero"}))
        .await;
    assert!(is_error);
    assert!(text.starts_with("add: id 0 is not a task id"), "{text}");
    // Nothing was written by the refusals.
    assert_eq!(total(&st, "tasks", "tasks").await, 2);
    // Ids are shared by every workspace: another one is told so, and not
    // sent to update a task it cannot see.
    let elsewhere = tempfile::tempdir().expect("another workspace");
    let roots = mcp_local_tools::Roots::new(vec![elsewhere.path().to_path_buf()]).expect("roots");
    let (is_error, text, _) = call(
        &TasksTool::new(st.store.clone()),
        ToolContext::new(roots),
        json!({"action": "add", "id": 7, "title": "mine"}),
    )
    .await;
    assert!(is_error);
    assert_eq!(
        text,
        "add: task id 7 belongs to another workspace's task (ids are shared by every workspace); omit id to get a new one"
    );
}

#[tokio::test]
async fn tasks_with_blocking_filters_and_aliases() {
    let st = State::new();
    let (_, text, a) = st
        .tasks(json!({"action": "add", "title": "design", "priority": "high", "tags": ["core"]}))
        .await;
    assert_eq!(text, "added task 1: design\n");
    assert_eq!(a["id"], 1);
    let cases = cases![
        {"action": "create", "subject": "build", "blocked_by": [1], "description": "after design"} => ok("added task 2: build\n"),
        {"action": "add", "text": "celebrate", "priority": "low"} => ok("added task 3: celebrate\n"),
        {"action": "add", "content": "fix prod", "priority": "urgent"} => ok("added task 4: fix prod\n"),
        {"action": "list"} => ok("#4 [pending] (urgent) fix prod\n#1 [pending] (high) design [core]\n#2 [pending] (medium) build (blocked by #1)\n#3 [pending] (low) celebrate\n"),
        {"action": "complete", "id": 1} => ok("#1 [completed] (high) design [core]\n"),
        {"action": "get", "id": 2} => ok("#2 [pending] (medium) build\nafter design\n"),
        {"action": "list", "status": "pending", "limit": 2} => ok("#4 [pending] (urgent) fix prod\n#2 [pending] (medium) build\n[tasks 1-2 of 3; continue with offset=2]\n"),
        {"action": "list", "tag": "core"} => ok("#1 [completed] (high) design [core]\n"),
        {"action": "update", "id": 3, "status": "in_progress", "title": "celebrate loudly"} => ok("#3 [in_progress] (low) celebrate loudly\n"),
        {"action": "search", "query": "PROD"} => ok("#4 [pending] (urgent) fix prod\n"),
        // LIKE wildcards in the query are literal.
        {"action": "search", "query": "%"} => ok("[no tasks]\n"),
        {"action": "delete", "id": 4} => ok("removed task 4\n"),
        {"action": "remove", "id": 4} => err("no task 4 in this workspace"),
    ];
    st.answers("tasks", cases).await;
    let (is_error, text, _) = st
        .tasks(json!({"action": "add", "priority": "soon", "title": "x"}))
        .await;
    assert!(is_error);
    assert!(text.starts_with("invalid arguments: unknown variant `soon`, expected one of `low`, `medium`, `high`, `urgent`"), "{text}");
}

#[test]
fn two_stores_on_one_file_lose_nothing() {
    let st = State::new();
    let path = st.s.base.join("state/state.db");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let store = Arc::new(Store::at(path.clone()));
            let ctx = st.ctx();
            runtime.spawn(async move {
                let memory = MemoryTool::new(store.clone());
                let tasks = TasksTool::new(store);
                for i in 0..500 {
                    let (e, t, _) = call(
                        &memory,
                        ctx.clone(),
                        json!({"action": "store", "key": format!("w{w}-{i}"), "content": "x"}),
                    )
                    .await;
                    assert!(!e, "{t}");
                    let (e, t, _) = call(
                        &tasks,
                        ctx.clone(),
                        json!({"action": "add", "title": format!("w{w}-{i}")}),
                    )
                    .await;
                    assert!(!e, "{t}");
                }
            })
        })
        .collect();
    runtime.block_on(async {
        for w in writers {
            w.await.unwrap();
        }
    });
    runtime.block_on(async {
        assert_eq!(total(&st, "memory", "memories").await, 1000);
        assert_eq!(total(&st, "tasks", "tasks").await, 1000);
    });
}

/// The total a `list` with limit 1 names in its page marker.
async fn total(st: &State, tool: &str, what: &str) -> u64 {
    let args = json!({"action": "list", "limit": 1});
    let (_, text, _) = match tool {
        "memory" => st.memory(args).await,
        _ => st.tasks(args).await,
    };
    let marker = text.lines().last().unwrap();
    marker
        .strip_prefix(&format!("[{what} 1-1 of "))
        .and_then(|rest| rest.split(';').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"))
}

#[tokio::test]
async fn a_corrupt_database_is_reported_and_left_unchanged() {
    let st = State::new();
    let path = st.s.base.join("state/state.db");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let garbage: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&path, &garbage).unwrap();
    let (is_error, text, _) = st.memory(json!({"action": "list"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "state database {} cannot be used: file is not a database. It was left unchanged; move it aside (or set HANZO_MCP_STATE to another folder) and call again",
            path.display()
        )
    );
    let (is_error, _, _) = st.tasks(json!({"action": "add", "title": "x"})).await;
    assert!(is_error);
    assert_eq!(std::fs::read(&path).unwrap(), garbage);
    // The other tools still work.
    let (is_error, text) = crate::common::fs(&st.s.roots, json!({"action": "list"})).await;
    assert!(!is_error, "{text}");
}

#[tokio::test]
async fn mode_presets_per_connection() {
    let s = Sandbox::new();
    let mut toolbox = mcp_local_tools::Toolbox::with_default_tools();
    toolbox.with_mode();
    let modes = toolbox.modes().expect("the mode tool was added");
    let mode = toolbox.get("mode").expect("mode");
    let ctx = |session: u64| {
        let mut ctx = ToolContext::new(s.roots.clone());
        ctx.session = session;
        ctx
    };
    let mut changes = modes.subscribe();

    let (_, text, _) = call(mode.as_ref(), ctx(1), json!({"action": "current"})).await;
    assert_eq!(text, "mode: full\n");
    assert_eq!(modes.allowed_for(1), None);

    let (is_error, text, _) = call(
        mode.as_ref(),
        ctx(1),
        json!({"action": "activate", "name": "review"}),
    )
    .await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with("mode: review (only actions that read"),
        "{text}"
    );
    assert_eq!(changes.try_recv(), Ok(1));
    let review = modes.allowed_for(1).expect("review narrows");
    for kept in [
        "mode",
        "fs:read",
        "fs:search",
        "git:status",
        "git:log",
        "code:outline",
        "plan:get",
        "tasks:list",
        "memory:recall",
        "think:think",
        "think:history",
    ] {
        assert!(
            review.iter().any(|e| e == kept),
            "review keeps {kept}: {review:?}"
        );
    }
    for dropped in [
        "fs:write",
        "fs:edit",
        "fs:rm",
        "git:commit",
        "git:push",
        "exec:run",
        "exec:list",
        "code:grep_replace",
        "memory:store",
        "tasks:add",
        "think:clear",
    ] {
        assert!(
            !review.iter().any(|e| e == dropped),
            "review drops {dropped}"
        );
    }
    // Connection 2 is untouched.
    assert_eq!(modes.allowed_for(2), None);
    let (_, text, listed) = call(mode.as_ref(), ctx(2), json!({"action": "list"})).await;
    assert!(
        text.starts_with(
            "* full: every tool the server is configured with\n    allows: everything\n  review: "
        ),
        "{text}"
    );
    assert_eq!(listed["modes"][1]["current"], false);

    let (is_error, text, _) = call(
        mode.as_ref(),
        ctx(1),
        json!({"action": "set", "name": "yolo"}),
    )
    .await;
    assert!(is_error);
    assert_eq!(text, "no mode 'yolo' (modes: full, review)");
    let (_, text, _) = call(mode.as_ref(), ctx(1), json!({"action": "reset"})).await;
    assert_eq!(text, "mode: full\n");
    assert_eq!(modes.allowed_for(1), None);
}

#[test]
fn mode_presets_from_a_file() {
    use mcp_local_tools::mode::Modes;
    let s = Sandbox::new();
    let file = s.base.join("modes.json");
    std::fs::write(
        &file,
        r#"{"docs": ["fs:read", "fs:write"], "triage": {"description": "read issues", "allowed": ["tasks"]}}"#,
    )
    .unwrap();
    let modes = Modes::builtin(&[]).with_file(&file);
    let names: Vec<&str> = modes.presets().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["full", "review", "docs", "triage"]);
    assert_eq!(modes.presets()[3].description, "read issues");
    std::fs::write(&file, r#"{"docs": "fs"}"#).unwrap();
    let broken = Modes::builtin(&[]).with_file(&file);
    assert_eq!(broken.presets().len(), 2, "a bad file adds nothing");
    assert_eq!(
        broken.file_error(),
        Some(
            format!(
                r#"modes file {}: mode 'docs' is neither a list of entries nor an object with "allowed" (expected {{"<name>": ["tool", "tool:action", ...]}} or {{"<name>": {{"description": "...", "allowed": [...]}}}})"#,
                file.display()
            )
            .as_str()
        )
    );
    // The built-in names cannot be taken over: `reset` must lead back to
    // everything and `review` must keep reading only.
    for name in ["full", "review"] {
        std::fs::write(
            &file,
            format!(r#"{{"{name}": ["fs"], "docs": ["fs:read"]}}"#),
        )
        .unwrap();
        let refused = Modes::builtin(&[]).with_file(&file);
        assert_eq!(
            refused.file_error(),
            Some(
                format!(
                    "modes file {}: '{name}' is a built-in mode; give the preset another name",
                    file.display()
                )
                .as_str()
            )
        );
        let names: Vec<&str> = refused.presets().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["full", "review"], "nothing of the file is taken");
        assert_eq!(refused.presets()[0].allowed, None);
    }
}

/// Hostile input the state tools must refuse or survive.
#[tokio::test]
async fn hostile_input_is_refused_or_survived() {
    let st = State::new();
    // think: a number at the top of u64 is refused; the record goes on.
    let think = ThinkTool::new();
    let (is_error, text, _) = call(
        &think,
        st.ctx(),
        json!({"thought": "a", "thought_number": u64::MAX, "total_thoughts": 1}),
    )
    .await;
    assert!(is_error, "{text}");
    assert_eq!(text, "think: thought_number must be 1..=1000000");
    let (is_error, _, _) = call(&think, st.ctx(), json!({"thought": "b"})).await;
    assert!(!is_error);

    // memory: a store without a key never replaces an existing memory.
    st.memory(json!({"action": "store", "key": "memory-2", "content": "explicit"}))
        .await;
    let (_, first, _) = st
        .memory(json!({"action": "store", "content": "auto a"}))
        .await;
    let (_, second, _) = st
        .memory(json!({"action": "store", "content": "auto b"}))
        .await;
    assert_eq!(first, "stored memory 'memory-3'\n");
    assert_eq!(second, "stored memory 'memory-4'\n");
    let (_, text, _) = st
        .memory(json!({"action": "recall", "key": "memory-2"}))
        .await;
    assert_eq!(text, "memory-2: explicit\n");
    let (is_error, text, _) = st
        .memory(json!({"action": "store", "key": "k\u{0}", "content": "x"}))
        .await;
    assert!(is_error);
    assert_eq!(
        text,
        "key must be 1 to 1024 bytes without control characters"
    );
    let (is_error, text, _) = st
        .memory(json!({"action": "create_entities", "entities": [
            {"name": "big", "entityType": "t", "observations": ["x".repeat(20_000)]}]}))
        .await;
    assert!(is_error);
    assert_eq!(text, "an observation is 20000 bytes; at most 16384");

    // import: a line that is not UTF-8 and an entity without a name are bad
    // lines, not the end of the import.
    let mut file = b"{\"type\":\"entity\",\"name\":\"ok\",\"entityType\":\"t\"}\n".to_vec();
    file.extend_from_slice(b"{\"type\":\"entity\",\"name\":\"\xff\xfe\",\"entityType\":\"t\"}\n");
    file.extend_from_slice(b"{\"type\":\"entity\",\"name\":\"\",\"entityType\":\"t\"}\n");
    std::fs::write(st.s.root.join("h.jsonl"), &file).unwrap();
    let (is_error, _, out) = st
        .memory(json!({"action": "import", "path": "h.jsonl"}))
        .await;
    assert!(!is_error);
    assert_eq!(out["entities"], 1);
    assert_eq!(out["badLines"].as_array().unwrap().len(), 2);

    // tasks: no self-blocking, no link to a missing task, no parent cycle,
    // a huge offset is past the end.
    let (is_error, text, _) = st
        .tasks(json!({"action": "add", "title": "c", "blocked_by": [1]}))
        .await;
    assert!(is_error);
    assert_eq!(text, "no task 1 in this workspace");
    st.tasks(json!({"action": "add", "title": "one"})).await;
    st.tasks(json!({"action": "add", "title": "two", "parent": 1}))
        .await;
    let (is_error, text, _) = st
        .tasks(json!({"action": "update", "id": 1, "blocked_by": [1]}))
        .await;
    assert!(is_error);
    assert_eq!(text, "task 1 cannot be its own parent or blocker");
    let (is_error, text, _) = st
        .tasks(json!({"action": "update", "id": 1, "parent": 2}))
        .await;
    assert!(is_error);
    assert_eq!(text, "parent 2: task 1 is already its ancestor");
    let (_, text, _) = st
        .tasks(json!({"action": "list", "offset": 9_223_372_036_854_775_808u64}))
        .await;
    assert_eq!(text, "[no tasks]\n");
}

/// A structured copy over the cap is left out, with a note.
#[tokio::test]
async fn an_oversized_structured_copy_is_left_out() {
    let st = State::new();
    for i in 0..40 {
        st.memory(json!({"action": "create_entities", "entities": [
            {"name": format!("e{i}"), "entityType": "t", "observations": ["y".repeat(16_000)]}]}))
            .await;
    }
    let (is_error, text, structured) = st.memory(json!({"action": "read_graph"})).await;
    assert!(!is_error);
    assert_eq!(structured, Value::Null);
    assert!(
        text.ends_with("bytes, over the 69632-byte cap; narrow or page the request]\n"),
        "{}",
        &text[text.len() - 300..]
    );
    let (_, help, _) = st.memory(json!({"action": "help"})).await;
    assert!(
        help.ends_with(
            "Actions that only read: recall, list, search, read_graph, search_nodes, open_nodes.\n"
        ),
        "{help}"
    );
}

/// `export` writes a file like `fs write` does: never over an existing
/// file unless `overwrite: true`, never inside `.git` (any spelling),
/// never outside the roots.
#[tokio::test]
async fn export_keeps_files_git_internals_and_the_outside_safe() {
    let st = State::new();
    let (is_error, text, _) = st
        .memory(json!({"action": "create_entities", "entities": [{"name": "a", "entityType": "t", "observations": ["x"]}]}))
        .await;
    assert!(!is_error, "{text}");
    st.s.write(".envrc", "export KEEP=1\n");
    let (is_error, text, _) = st
        .memory(json!({"action": "export", "path": ".envrc"}))
        .await;
    assert!(is_error);
    assert_eq!(
        text,
        "export: '.envrc' exists; pass overwrite: true to replace it"
    );
    assert_eq!(st.s.read(".envrc"), "export KEEP=1\n");
    let (is_error, text, _) = st
        .memory(json!({"action": "export", "path": ".envrc", "overwrite": true}))
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(
        st.s.read(".envrc"),
        "{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"t\",\"observations\":[\"x\"]}\n"
    );
    std::fs::create_dir_all(st.s.root.join(".git/hooks")).unwrap();
    for path in [".git/hooks/pre-commit", ".GIT/config", "sub/.git/x"] {
        let (is_error, text, _) = st
            .memory(json!({"action": "export", "path": path, "overwrite": true}))
            .await;
        assert!(is_error, "{path}: {text}");
        assert!(text.contains(".git"), "{path}: {text}");
    }
    assert!(!st.s.root.join(".git/hooks/pre-commit").exists());
    assert!(!st.s.root.join("sub").exists());
    let (is_error, text, _) = st
        .memory(json!({"action": "export", "path": "../outside/new.jsonl"}))
        .await;
    assert!(is_error);
    assert!(text.contains("outside the roots"), "{text}");
    assert!(!st.s.base.join("outside/new.jsonl").exists());
}

/// A state folder reached through a symlink inside the roots (one the
/// agent could make with `git apply`) is refused: the database is neither
/// created nor read where it points. The same with the database file
/// itself linked. A symlink outside the roots (the user's) is followed.
#[tokio::test]
async fn a_state_path_through_a_symlink_inside_the_roots_is_refused() {
    let s = Sandbox::new();
    let outside = s.base.join("outside/state");
    std::fs::create_dir_all(&outside).unwrap();
    let ctx = || ToolContext::new(s.roots.clone());
    let store_args = json!({"action": "store", "key": "k", "content": "PWNED"});

    std::os::unix::fs::symlink(&outside, s.root.join("linked")).unwrap();
    let store = Arc::new(Store::at(s.root.join("linked/state.db")));
    let (is_error, text, _) = call(&MemoryTool::new(store), ctx(), store_args.clone()).await;
    assert!(is_error, "{text}");
    assert!(text.contains("is a symlink inside the roots"), "{text}");
    assert!(!outside.join("state.db").exists());

    std::fs::create_dir(s.root.join("real")).unwrap();
    std::os::unix::fs::symlink(outside.join("x.db"), s.root.join("real/state.db")).unwrap();
    let store = Arc::new(Store::at(s.root.join("real/state.db")));
    let (is_error, text, _) = call(&MemoryTool::new(store), ctx(), store_args.clone()).await;
    assert!(is_error, "{text}");
    assert!(!outside.join("x.db").exists());

    let users = s.base.join("users-link");
    std::os::unix::fs::symlink(&outside, &users).unwrap();
    let store = Arc::new(Store::at(users.join("state.db")));
    let (is_error, text, _) = call(&MemoryTool::new(store), ctx(), store_args).await;
    assert!(!is_error, "{text}");
    assert!(outside.join("state.db").exists());
}
