//! Each session's `mode` through the real binary: `mode list`, `current`,
//! `set` (and its alias `activate`) and `reset`; the list narrowed (tools
//! removed, `action` enums narrowed) with `mode` always kept; calls to what
//! the mode leaves out refused with -32602 exactly as gated-out ones;
//! `notifications/tools/list_changed` after a change and only then; never
//! wider than `--allowed-tools`; user presets from `--modes FILE` and
//! `HANZO_MCP_MODES`; the rmcp client told and re-listing; two HTTP
//! sessions, each with its own mode; and, in process, two sessions that
//! switch at once.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

use mcp_local_server::assembly::{Options, assemble};
use mcp_local_server::mcp_proto::Implementation;
use mcp_local_server::{Server, ServerConfig};

use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ServiceError, ServiceExt};
use serde_json::{Value, json};

use crate::common::driver::Connection;
use crate::common::http::{Http, Session, assert_sse};
use crate::common::{
    Proc, call_params, hanzo_mcp, http_port, listed_tool, modes_file, names, open_http_args,
    refusal, serve_no_door, servetest,
};

/// Every local tool, as `full` lists them.
const FULL: [&str; 12] = [
    "fs",
    "code",
    "workspace",
    "exec",
    "git",
    "fetch",
    "ui",
    "think",
    "memory",
    "plan",
    "tasks",
    "mode",
];

/// What `review` lists: every tool with an action that reads (each has at
/// least `help`), but never `exec`.
fn review() -> Vec<&'static str> {
    FULL.into_iter().filter(|tool| *tool != "exec").collect()
}

/// `fs`'s actions, all of them.
const FS_ALL: [&str; 14] = [
    "read",
    "write",
    "edit",
    "multi_edit",
    "patch",
    "list",
    "tree",
    "find",
    "search",
    "info",
    "mkdir",
    "mv",
    "rm",
    "help",
];

/// `fs`'s actions that only read.
const FS_READS: [&str; 7] = ["read", "list", "tree", "find", "search", "info", "help"];

/// `mode`'s actions, in every mode.
const MODE_ACTIONS: [&str; 5] = ["list", "current", "set", "reset", "help"];

/// The `review` preset's entries, as `mode list` shows them.
const REVIEW_ENTRIES: [&str; 53] = [
    "mode",
    "fs:read",
    "fs:list",
    "fs:tree",
    "fs:find",
    "fs:search",
    "fs:info",
    "fs:help",
    "code:outline",
    "code:symbols",
    "code:definition",
    "code:references",
    "code:summarize",
    "code:help",
    "workspace:detect",
    "workspace:capabilities",
    "workspace:help",
    "git:status",
    "git:diff",
    "git:log",
    "git:show",
    "git:blame",
    "git:remote",
    "git:worktree",
    "git:rev_parse",
    "git:help",
    "fetch:get",
    "fetch:head",
    "fetch:help",
    "ui:registries",
    "ui:list",
    "ui:search",
    "ui:view",
    "ui:add_command",
    "ui:get_framework",
    "ui:help",
    "think:think",
    "think:history",
    "think:help",
    "memory:recall",
    "memory:list",
    "memory:search",
    "memory:read_graph",
    "memory:search_nodes",
    "memory:open_nodes",
    "memory:help",
    "plan:get",
    "plan:next",
    "plan:help",
    "tasks:list",
    "tasks:get",
    "tasks:search",
    "tasks:help",
];

const FULL_DESCRIPTION: &str = "every tool the server is configured with";
const REVIEW_DESCRIPTION: &str =
    "only actions that read: no file changes, no commands, no git writes, no state changes";

const LIST_CHANGED: &str = "notifications/tools/list_changed";

/// The `action` enum of tool `name` in a `tools/list` response.
fn actions_of(list: &Value, name: &str) -> Value {
    listed_tool(list, name)["inputSchema"]["properties"]["action"]["enum"].clone()
}

/// A successful `tools/call` response's result with this one text block.
fn text_result(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

/// `refusal` as the session's mode `mode` words it: the mode named, and
/// how to leave it.
fn by_mode(mut refusal: Value, mode: &str) -> Value {
    let message = refusal["message"].as_str().expect("a message").to_owned();
    refusal["message"] = json!(format!(
        "{message} by this session's mode {mode:?}; `mode set full` (or `mode reset`) leaves it"
    ));
    refusal
}

/// The -32602 refusal of a tool the session's mode `mode` hides.
fn hidden_by_mode(name: &str, mode: &str) -> Value {
    by_mode(
        json!({
            "code": -32602,
            "message": format!("tool {name:?} is hidden"),
            "data": { "tool": name }
        }),
        mode,
    )
}

/// The -32602 refusal of a tool the session does not have.
fn unknown_tool(name: &str) -> Value {
    json!({
        "code": -32602,
        "message": format!("unknown tool: {name:?}"),
        "data": { "tool": name }
    })
}

/// Pings with `id` and asserts that the very next message is the answer:
/// the server sent nothing (no `list_changed`) before it.
fn assert_quiet(server: &mut Proc, id: i64) {
    server.request(id, "ping", json!({}));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": id, "result": {} })
    );
}

/// Calls `mode` with `arguments` (no notification may come first); the
/// response.
fn mode(server: &mut Proc, id: i64, arguments: Value) -> Value {
    server.request(id, "tools/call", call_params("mode", arguments));
    let response = server.recv();
    assert_eq!(response["id"], id, "{response}");
    response
}

/// Calls `mode` with `arguments`, expecting exactly two messages: the
/// response and `notifications/tools/list_changed`, in either order (the
/// session's loop and the call race to the output). The response.
fn mode_changing(server: &mut Proc, id: i64, arguments: Value) -> Value {
    server.request(id, "tools/call", call_params("mode", arguments));
    let (first, second) = (server.recv(), server.recv());
    let notification = json!({ "jsonrpc": "2.0", "method": LIST_CHANGED });
    let response = if first == notification {
        second
    } else {
        assert_eq!(second, notification, "after {first}");
        first
    };
    assert_eq!(response["id"], id, "{response}");
    response
}

servetest!(
    review_narrows_the_stdio_session_and_reset_restores_it,
    [],
    |server, root| {
        std::fs::write(root.join("a.txt"), "alpha\n").expect("write");
        let init = server.initialize("2025-11-25");
        assert_eq!(
            init["capabilities"],
            json!({ "tools": { "listChanged": true } })
        );

        let full = server.call(1, "tools/list", json!({}));
        assert_eq!(names(&full), FULL);
        assert_eq!(actions_of(&full, "fs"), json!(FS_ALL));

        let current = mode(&mut server, 2, json!({ "action": "current" }));
        assert_eq!(
            current["result"],
            json!({ "content": [{ "type": "text", "text": "mode: full\n" }],
                "structuredContent": { "mode": "full" } })
        );

        // Already full: nothing changes, nothing is announced.
        let same = mode(&mut server, 3, json!({ "action": "set", "name": "full" }));
        assert_eq!(
            same["result"],
            text_result(&format!("mode: full ({FULL_DESCRIPTION})\n"))
        );
        assert_quiet(&mut server, 4);

        let set = mode_changing(&mut server, 5, json!({ "action": "set", "name": "review" }));
        assert_eq!(
            set["result"],
            text_result(&format!("mode: review ({REVIEW_DESCRIPTION})\n"))
        );
        assert_quiet(&mut server, 6);

        let narrowed = server.call(7, "tools/list", json!({}));
        assert_eq!(names(&narrowed), review());
        let fs_action = &listed_tool(&narrowed, "fs")["inputSchema"]["properties"]["action"];
        assert_eq!(fs_action["enum"], json!(FS_READS));
        assert_eq!(
            fs_action["description"],
            "read | list | tree | find | search | info | help."
        );
        let fs_description = listed_tool(&narrowed, "fs")["description"]
            .as_str()
            .expect("text");
        assert_eq!(
            fs_description,
            format!(
                "{}\n\nAllowed here: `action` read, list, tree, find, search, info, help.",
                listed_tool(&full, "fs")["description"]
                    .as_str()
                    .expect("text")
            )
        );
        assert_eq!(listed_tool(&narrowed, "mode"), listed_tool(&full, "mode"));
        assert_eq!(actions_of(&narrowed, "mode"), json!(MODE_ACTIONS));
        assert_eq!(
            actions_of(&narrowed, "git"),
            json!([
                "status",
                "diff",
                "log",
                "show",
                "blame",
                "remote",
                "worktree",
                "rev_parse",
                "help"
            ])
        );
        assert_eq!(
            actions_of(&narrowed, "think"),
            json!(["think", "history", "help"])
        );

        let write = server.call_tool(
            8,
            "fs",
            json!({ "action": "write", "path": "b.txt", "content": "beta" }),
        );
        assert_eq!(
            write,
            json!({ "jsonrpc": "2.0", "id": 8, "error": by_mode(refusal("fs", "action", "write", &FS_READS), "review") })
        );
        assert!(!root.join("b.txt").exists());

        // Hanzo's name for `info` reads too, so review takes it.
        let stat = server.call_tool(90, "fs", json!({ "action": "stat", "path": "a.txt" }));
        let stat_text = stat["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(stat_text.contains("6 bytes"), "{stat}");

        let no_action = server.call_tool(9, "fs", json!({}));
        assert_eq!(
            no_action["error"],
            json!({
                "code": -32602,
                "message": "tool \"fs\" needs an allowed action here \
                    (allowed: read, list, tree, find, search, info, help)",
                "data": { "tool": "fs", "action": null, "allowed": FS_READS }
            })
        );

        let exec = server.call_tool(10, "exec", json!({ "action": "run", "command": ["true"] }));
        assert_eq!(
            exec,
            json!({ "jsonrpc": "2.0", "id": 10, "error": hidden_by_mode("exec", "review") })
        );

        let read = server.call_tool(11, "fs", json!({ "action": "read", "path": "a.txt" }));
        assert_eq!(read["result"], text_result("alpha\n"));

        let current = mode(&mut server, 12, json!({ "action": "current" }));
        assert_eq!(
            current["result"]["structuredContent"],
            json!({ "mode": "review" })
        );

        let reset = mode_changing(&mut server, 13, json!({ "action": "reset" }));
        assert_eq!(reset["result"], text_result("mode: full\n"));
        assert_quiet(&mut server, 14);
        let restored = server.call(15, "tools/list", json!({}));
        assert_eq!(
            restored,
            json!({ "jsonrpc": "2.0", "id": 15, "result": full["result"] })
        );

        let written = server.call_tool(
            16,
            "fs",
            json!({ "action": "write", "path": "b.txt", "content": "beta" }),
        );
        assert_eq!(written["result"]["isError"], Value::Null, "{written}");
        assert_eq!(
            std::fs::read_to_string(root.join("b.txt")).expect("read"),
            "beta"
        );

        // The alias `activate` switches too, and is announced the same way.
        let activated = mode_changing(
            &mut server,
            17,
            json!({ "action": "activate", "name": "review" }),
        );
        assert_eq!(
            activated["result"],
            text_result(&format!("mode: review ({REVIEW_DESCRIPTION})\n"))
        );
        let again = server.call(18, "tools/list", json!({}));
        assert_eq!(again["result"], narrowed["result"]);
        assert_eq!(server.wait().code(), Some(0));
    }
);

servetest!(
    mode_list_shows_every_preset_and_the_current_one,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        let review = REVIEW_ENTRIES.join(", ");
        let listed = mode(&mut server, 1, json!({ "action": "list" }));
        assert_eq!(
            listed["result"],
            json!({
                "content": [{ "type": "text", "text": format!(
                    "* full: {FULL_DESCRIPTION}\n    allows: everything\n  \
                     review: {REVIEW_DESCRIPTION}\n    allows: {review}\n"
                ) }],
                "structuredContent": { "modes": [
                    { "name": "full", "description": FULL_DESCRIPTION, "allowed": null,
                      "current": true },
                    { "name": "review", "description": REVIEW_DESCRIPTION,
                      "allowed": REVIEW_ENTRIES.as_slice(), "current": false },
                ] }
            })
        );

        mode_changing(&mut server, 2, json!({ "action": "set", "name": "review" }));
        let listed = mode(&mut server, 3, json!({ "action": "list" }));
        let rows = &listed["result"]["structuredContent"]["modes"];
        assert_eq!(rows[0]["current"], false);
        assert_eq!(rows[1]["current"], true);
        assert!(
            listed["result"]["content"][0]["text"]
                .as_str()
                .expect("text")
                .starts_with(&format!(
                    "  full: {FULL_DESCRIPTION}\n    allows: everything\n* review: "
                )),
            "{listed}"
        );

        // A name no preset has: an error result naming the presets, and the
        // mode stays as it was, unannounced.
        let unknown = mode(&mut server, 4, json!({ "action": "set", "name": "nope" }));
        assert_eq!(
            unknown["result"],
            json!({ "content": [{ "type": "text", "text": "no mode 'nope' (modes: full, review)" }],
            "isError": true })
        );
        let missing = mode(&mut server, 5, json!({ "action": "set" }));
        assert_eq!(
            missing["result"],
            json!({ "content": [{ "type": "text", "text": "set: missing field 'name'" }],
            "isError": true })
        );
        assert_quiet(&mut server, 6);
        let current = mode(&mut server, 7, json!({ "action": "current" }));
        assert_eq!(
            current["result"]["structuredContent"],
            json!({ "mode": "review" })
        );
        assert_eq!(server.wait().code(), Some(0));
    }
);

servetest!(
    under_an_allowlist_of_fs_read_and_mode_review_lists_the_same,
    ["--allowed-tools", r#"{"local":["fs:read","mode"]}"#],
    |server, root| {
        std::fs::write(root.join("a.txt"), "alpha\n").expect("write");
        server.initialize("2025-11-25");
        let full = server.call(1, "tools/list", json!({}));
        assert_eq!(names(&full), ["fs", "mode"]);
        assert_eq!(actions_of(&full, "fs"), json!(["read"]));
        assert_eq!(actions_of(&full, "mode"), json!(MODE_ACTIONS));

        // The mode's name changes, so the change is announced, though what
        // the session sees stays the same: review allows no more than the
        // allowlist left.
        mode_changing(&mut server, 2, json!({ "action": "set", "name": "review" }));
        let review = server.call(3, "tools/list", json!({}));
        assert_eq!(review["result"], full["result"]);

        // The allowlist refuses first, naming what it allows.
        let listed = server.call_tool(4, "fs", json!({ "action": "list", "path": "." }));
        assert_eq!(listed["error"], refusal("fs", "action", "list", &["read"]));
        let read = server.call_tool(5, "fs", json!({ "action": "read", "path": "a.txt" }));
        assert_eq!(read["result"], text_result("alpha\n"));
        let exec = server.call_tool(6, "exec", json!({ "action": "run" }));
        assert_eq!(exec["error"], unknown_tool("exec"));
        assert_eq!(server.wait().code(), Some(0));
    }
);

servetest!(
    under_an_allowlist_with_exec_review_lists_fewer,
    ["--allowed-tools", r#"{"local":["fs","exec","mode"]}"#],
    |server, _root| {
        server.initialize("2025-11-25");
        let full = server.call(1, "tools/list", json!({}));
        assert_eq!(names(&full), ["fs", "exec", "mode"]);
        assert_eq!(actions_of(&full, "fs"), json!(FS_ALL));

        mode_changing(&mut server, 2, json!({ "action": "set", "name": "review" }));
        let review = server.call(3, "tools/list", json!({}));
        assert_eq!(names(&review), ["fs", "mode"]);
        assert_eq!(actions_of(&review, "fs"), json!(FS_READS));
        let exec = server.call_tool(4, "exec", json!({ "action": "run", "command": ["true"] }));
        assert_eq!(exec["error"], hidden_by_mode("exec", "review"));
        assert_eq!(server.wait().code(), Some(0));
    }
);

servetest!(
    a_tool_narrowed_by_the_allowlist_and_the_mode_names_once_what_is_left,
    [
        "--allowed-tools",
        r#"{"local":["fs:read","fs:write","mode"]}"#
    ],
    |server, _root| {
        server.initialize("2025-11-25");
        let full = server.call(1, "tools/list", json!({}));
        assert_eq!(actions_of(&full, "fs"), json!(["read", "write"]));
        let description = listed_tool(&full, "fs")["description"]
            .as_str()
            .expect("text");
        let base = description
            .strip_suffix("\n\nAllowed here: `action` read, write.")
            .unwrap_or_else(|| panic!("the allowlist's sentence: {description}"));
        assert!(!base.contains("Allowed here"), "{base}");

        mode_changing(&mut server, 2, json!({ "action": "set", "name": "review" }));
        let review = server.call(3, "tools/list", json!({}));
        assert_eq!(names(&review), ["fs", "mode"]);
        let fs = listed_tool(&review, "fs");
        assert_eq!(
            fs["inputSchema"]["properties"]["action"],
            json!({ "type": "string", "enum": ["read"], "description": "read." })
        );
        assert_eq!(
            fs["description"],
            format!("{base}\n\nAllowed here: `action` read.")
        );
        // `mode` is whole in both: its description has no such sentence.
        assert_eq!(listed_tool(&review, "mode"), listed_tool(&full, "mode"));
        assert_eq!(server.wait().code(), Some(0));
    }
);

servetest!(
    a_call_sent_with_a_mode_change_is_checked_by_the_new_mode,
    [],
    |server, root| {
        server.initialize("2025-11-25");
        for round in 0..3 {
            let (set, write) = (100 + 10 * round, 101 + 10 * round);
            // Both in one write: the write is read while the mode call may
            // still be running.
            let lines = [
                json!({ "jsonrpc": "2.0", "id": set, "method": "tools/call",
                    "params": call_params("mode", json!({ "action": "set", "name": "review" })) }),
                json!({ "jsonrpc": "2.0", "id": write, "method": "tools/call",
                    "params": call_params("fs", json!({ "action": "write", "path": "b.txt", "content": "beta" })) }),
            ];
            server.send_line(&format!("{}\n{}", lines[0], lines[1]));
            let mut answers = std::collections::BTreeMap::new();
            while answers.len() < 2 {
                let message = server.recv();
                if let Some(id) = message["id"].as_i64() {
                    answers.insert(id, message);
                }
            }
            assert_eq!(
                answers[&write],
                json!({ "jsonrpc": "2.0", "id": write,
                    "error": by_mode(refusal("fs", "action", "write", &FS_READS), "review") }),
                "round {round}"
            );
            assert!(!root.join("b.txt").exists(), "round {round}");
            mode_changing(&mut server, set + 5, json!({ "action": "reset" }));
        }
    }
);

/// `hanzo-mcp serve --no-door --root <root> <extra>` with these variables,
/// past the handshake.
fn serve(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> Proc {
    let mut server = serve_no_door(root, extra, env);
    server.initialize("2025-11-25");
    server
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// What `--modes FILE` or `HANZO_MCP_MODES` adds, checked on `server`:
/// `docs` listed with the description `docs_description` and set, the list
/// narrowed to exactly `fs` (read) and `code` (all of it), plus `mode`.
fn docs_preset_narrows(server: &mut Proc, docs_description: &str) {
    let listed = mode(server, 1, json!({ "action": "list" }));
    let result = &listed["result"];
    assert_eq!(
        result["structuredContent"]["modes"][2],
        json!({ "name": "docs", "description": docs_description,
            "allowed": ["fs:read", "code"], "current": false })
    );
    let presets: Vec<&Value> = result["structuredContent"]["modes"]
        .as_array()
        .expect("modes")
        .iter()
        .map(|m| &m["name"])
        .collect();
    assert_eq!(presets, [&json!("full"), &json!("review"), &json!("docs")]);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .expect("text")
            .ends_with(&format!(
                "\n  docs: {docs_description}\n    allows: fs:read, code\n"
            )),
        "{listed}"
    );

    let set = mode_changing(server, 2, json!({ "action": "set", "name": "docs" }));
    assert_eq!(
        set["result"],
        text_result(&format!("mode: docs ({docs_description})\n"))
    );
    let list = server.call(3, "tools/list", json!({}));
    assert_eq!(names(&list), ["fs", "code", "mode"]);
    assert_eq!(actions_of(&list, "fs"), json!(["read"]));
    assert_eq!(
        actions_of(&list, "code"),
        json!([
            "outline",
            "symbols",
            "definition",
            "references",
            "grep_replace",
            "summarize",
            "help"
        ])
    );
    assert_eq!(actions_of(&list, "mode"), json!(MODE_ACTIONS));
    let workspace = server.call_tool(4, "workspace", json!({ "action": "detect" }));
    assert_eq!(workspace["error"], hidden_by_mode("workspace", "docs"));
    let tree = server.call_tool(5, "fs", json!({ "action": "tree" }));
    assert_eq!(
        tree["error"],
        by_mode(refusal("fs", "action", "tree", &["read"]), "docs")
    );
    let current = mode(server, 6, json!({ "action": "current" }));
    assert_eq!(
        current["result"]["structuredContent"],
        json!({ "mode": "docs" })
    );
}

#[test]
fn a_user_preset_from_a_modes_file_narrows_to_exactly_its_entries() {
    let root = tempfile::tempdir().expect("root");
    let (_presets, file) = modes_file(&json!({"docs": ["fs:read", "code"]}));
    let mut server = serve(root.path(), &["--modes", &file], &[]);
    docs_preset_narrows(&mut server, &format!("from {file}"));
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn a_described_user_preset_from_the_environment_narrows_the_same() {
    let root = tempfile::tempdir().expect("root");
    let (_presets, file) = modes_file(
        &json!({"docs": {"description": "reading the docs", "allowed": ["fs:read", "code"]}}),
    );
    let mut server = serve(root.path(), &[], &[("HANZO_MCP_MODES", &file)]);
    docs_preset_narrows(&mut server, "reading the docs");
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn a_user_preset_never_widens_past_the_allowlist() {
    let root = tempfile::tempdir().expect("root");
    let (_presets, file) = modes_file(&json!({"wide": ["fs", "exec", "code"]}));
    let mut server = serve(
        root.path(),
        &[
            "--modes",
            &file,
            "--allowed-tools",
            r#"{"local":["fs:read","mode"]}"#,
        ],
        &[],
    );
    mode_changing(&mut server, 1, json!({ "action": "set", "name": "wide" }));
    let list = server.call(2, "tools/list", json!({}));
    assert_eq!(names(&list), ["fs", "mode"]);
    assert_eq!(actions_of(&list, "fs"), json!(["read"]));
    for (id, name) in [(3, "exec"), (4, "code")] {
        let call = server.call_tool(id, name, json!({ "action": "help" }));
        assert_eq!(call["error"], unknown_tool(name), "{name}");
    }
    assert_eq!(server.wait().code(), Some(0));
}

/// An rmcp client that counts `notifications/tools/list_changed`.
#[derive(Clone)]
struct Recorder {
    changed: tokio::sync::mpsc::UnboundedSender<()>,
}

impl ClientHandler for Recorder {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }

    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.protocol_version = ProtocolVersion::V_2025_11_25;
        config
    }
}

/// The names and `fs` action enum of every tool rmcp lists.
async fn rmcp_listing(client: &RunningService<RoleClient, Recorder>) -> (Vec<String>, Value) {
    let tools = client.list_all_tools().await.expect("tools/list");
    let names = tools.iter().map(|t| t.name.to_string()).collect();
    let fs = tools.iter().find(|t| t.name == "fs").expect("fs listed");
    let actions = json!(fs.input_schema["properties"]["action"]["enum"]);
    (names, actions)
}

async fn rmcp_mode(client: &RunningService<RoleClient, Recorder>, arguments: Value) -> String {
    let params = CallToolRequestParams::new("mode")
        .with_arguments(arguments.as_object().expect("object").clone());
    let result = client.call_tool(params).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result.content[0].as_text().expect("text").text.clone()
}

/// Waits for the handler to see one more `list_changed`.
async fn next_change(changes: &mut tokio::sync::mpsc::UnboundedReceiver<()>) {
    tokio::time::timeout(crate::common::stdio::PATIENCE, changes.recv())
        .await
        .expect("list_changed within the patience bound")
        .expect("the handler is alive");
}

#[tokio::test]
async fn rmcp_client_is_told_the_list_changed_and_relists_narrowed() {
    let root = tempfile::tempdir().expect("root");
    let state = tempfile::tempdir().expect("state");
    let mut command = hanzo_mcp();
    command
        .args(["serve", "--no-door", "--root", utf8(root.path())])
        .env("HANZO_MCP_STATE", state.path());
    let (transport, _stderr) = TokioChildProcess::builder(tokio::process::Command::from(command))
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hanzo-mcp");
    let (changed, mut changes) = tokio::sync::mpsc::unbounded_channel();
    let client = Recorder { changed }
        .serve(transport)
        .await
        .expect("initialize");
    let tools = client
        .peer_info()
        .and_then(|info| info.capabilities.tools.clone())
        .expect("tools capability");
    assert_eq!(tools.list_changed, Some(true));

    let (names, fs) = rmcp_listing(&client).await;
    assert_eq!(names, FULL);
    assert_eq!(fs, json!(FS_ALL));

    let set = rmcp_mode(&client, json!({ "action": "set", "name": "review" })).await;
    assert_eq!(set, format!("mode: review ({REVIEW_DESCRIPTION})\n"));
    next_change(&mut changes).await;
    let (names, fs) = rmcp_listing(&client).await;
    assert_eq!(names, review());
    assert_eq!(fs, json!(FS_READS));

    let params = CallToolRequestParams::new("exec").with_arguments(
        json!({ "action": "run", "command": ["true"] })
            .as_object()
            .expect("object")
            .clone(),
    );
    match client.call_tool(params).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32602);
            assert_eq!(
                error.message,
                "tool \"exec\" is hidden by this session's mode \"review\"; `mode set full` (or `mode reset`) leaves it"
            );
            assert_eq!(error.data, Some(json!({ "tool": "exec" })));
        }
        other => panic!("exec is refused as an unknown tool, not {other:?}"),
    }

    let reset = rmcp_mode(&client, json!({ "action": "reset" })).await;
    assert_eq!(reset, "mode: full\n");
    next_change(&mut changes).await;
    let (names, fs) = rmcp_listing(&client).await;
    assert_eq!(names, FULL);
    assert_eq!(fs, json!(FS_ALL));
    // Two changes, two notifications: nothing else came.
    assert!(changes.try_recv().is_err());
    client.cancel().await.expect("close");
}

/// `hanzo-mcp serve --no-door --http 127.0.0.1:0 --root <root>` with its
/// state in `state`, and a client of it once it listens.
async fn serve_http(root: &Path, state: &Path) -> (Proc, Http) {
    let mut server =
        Proc::spawn_with_env(&open_http_args(root), &[("HANZO_MCP_STATE", utf8(state))]);
    let port = http_port(&mut server).await;
    (server, Http::new(&format!("http://127.0.0.1:{port}/mcp")))
}

async fn http_list(session: &Session, id: i64) -> Vec<String> {
    let list = session
        .call(
            id,
            &json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list" }),
        )
        .await;
    names(&list)
}

async fn http_call(session: &Session, id: i64, name: &str, arguments: Value) -> Value {
    session
        .call(
            id,
            &json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": call_params(name, arguments) }),
        )
        .await
}

#[tokio::test]
async fn two_http_sessions_each_keep_their_own_mode() {
    let root = tempfile::tempdir().expect("root");
    let state = tempfile::tempdir().expect("state");
    let (_server, http) = serve_http(root.path(), state.path()).await;
    let a = http.open_session(json!({})).await;
    let b = http.open_session(json!({})).await;
    assert_ne!(a.id, b.id);
    let stream = a.get().await;
    assert_sse(&stream);
    let mut a_events = crate::common::http::Events::of(stream);

    let set = http_call(&a, 1, "mode", json!({ "action": "set", "name": "review" })).await;
    assert_eq!(
        set["result"],
        text_result(&format!("mode: review ({REVIEW_DESCRIPTION})\n"))
    );
    assert_eq!(
        a_events.expect_next().await,
        json!({ "jsonrpc": "2.0", "method": LIST_CHANGED })
    );

    assert_eq!(http_list(&a, 2).await, review());
    assert_eq!(http_list(&b, 2).await, FULL);
    let a_mode = http_call(&a, 3, "mode", json!({ "action": "current" })).await;
    assert_eq!(
        a_mode["result"]["structuredContent"],
        json!({ "mode": "review" })
    );
    let b_mode = http_call(&b, 3, "mode", json!({ "action": "current" })).await;
    assert_eq!(
        b_mode["result"]["structuredContent"],
        json!({ "mode": "full" })
    );

    let run = json!({ "action": "run", "command": ["true"] });
    let a_exec = http_call(&a, 4, "exec", run.clone()).await;
    assert_eq!(
        a_exec,
        json!({ "jsonrpc": "2.0", "id": 4, "error": hidden_by_mode("exec", "review") })
    );
    let b_exec = http_call(&b, 4, "exec", run).await;
    assert_eq!(
        b_exec["result"]["structuredContent"]["exitCode"], 0,
        "{b_exec}"
    );
    let text = b_exec["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.starts_with("$ true\nexit code 0 · "), "{text}");
    assert!(text.ends_with(" ms\n"), "{text}");

    // A's reset is announced to A and widens only A.
    let reset = http_call(&a, 5, "mode", json!({ "action": "reset" })).await;
    assert_eq!(reset["result"], text_result("mode: full\n"));
    assert_eq!(
        a_events.expect_next().await,
        json!({ "jsonrpc": "2.0", "method": LIST_CHANGED })
    );
    assert_eq!(http_list(&a, 6).await, FULL);
}

/// The messages of `connection` up to and including the answer to `id`.
async fn until_answer(connection: &mut Connection, id: u64) -> Vec<Value> {
    let mut messages = Vec::new();
    loop {
        let message = connection.next().await;
        let answer = message["id"] == id;
        messages.push(message);
        if answer {
            return messages;
        }
    }
}

/// Two sessions of one server, in process, that switch modes at once (the
/// second before the first session's loop looked): each is told its own
/// list changed, and only once.
#[tokio::test]
async fn two_sessions_switching_at_once_are_each_told() {
    let root = tempfile::tempdir().expect("root");
    let mut options = Options::new();
    options.roots = vec![root.path().to_path_buf()];
    options.door = false;
    let assembly = assemble(&options).await.expect("assembly");
    let modes = assembly.modes.expect("mode is compiled in");
    let info = Implementation::new("two-sessions", "0");
    let server = Server::new(assembly.composition, ServerConfig::new(info)).with_modes(modes);
    let server = Arc::new(server);
    let mut a = Connection::open(server.clone());
    let mut b = Connection::open(server);
    a.handshake(json!({})).await;
    b.handshake(json!({})).await;
    a.assert_next_is_pong(1).await;
    b.assert_next_is_pong(1).await;

    let review = call_params("mode", json!({ "action": "set", "name": "review" }));
    a.request(2, "tools/call", review.clone()).await;
    b.request(2, "tools/call", review).await;
    let set = json!({ "jsonrpc": "2.0", "id": 2, "result":
        text_result(&format!("mode: review ({REVIEW_DESCRIPTION})\n")) });
    let changed = json!({ "jsonrpc": "2.0", "method": LIST_CHANGED });
    let pong = json!({ "jsonrpc": "2.0", "id": 3, "result": {} });
    for (name, connection) in [("A", &mut a), ("B", &mut b)] {
        // The call's answer and the notification race to the output; a
        // ping answered after the call's answer flushes what was pending.
        let mut seen = until_answer(connection, 2).await;
        connection.request(3, "ping", json!({})).await;
        seen.extend(until_answer(connection, 3).await);
        let (answers, notifications): (Vec<Value>, Vec<Value>) =
            seen.into_iter().partition(|m| m.get("id").is_some());
        assert_eq!(answers, [set.clone(), pong.clone()], "{name}");
        assert_eq!(notifications, std::slice::from_ref(&changed), "{name}");
    }
}

#[test]
fn a_modes_file_that_cannot_be_read_stops_the_start() {
    let root = tempfile::tempdir().expect("root");
    let missing = root.path().join("no-such-modes.json");
    let output = crate::common::stdio::hanzo_mcp()
        .args(["serve", "--no-door", "--modes"])
        .arg(&missing)
        .arg("--root")
        .arg(root.path())
        .stdin(Stdio::null())
        .output()
        .expect("run hanzo-mcp");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--modes: modes file") && stderr.contains("no-such-modes.json"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}
