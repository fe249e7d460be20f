//! An agent runtime that starts two MCP servers as child processes, talks
//! to each over stdio, and registers each server's tools through the
//! agent's `allowedTools`, built from the library's parts: `mcp-sources`'
//! `MountedSource` (an MCP client of a child process, from `mcp-mount`)
//! seen through a `GatedSource` (`mcp-gating`'s allowlist, per server).
//!
//! The gating happens where the registry is assembled, per server: a tool
//! gated out is never registered, so the runtime has nowhere to route a
//! call to it. The gated view refuses such a call itself, exactly as an
//! unknown tool (-32602), and the server never hears of it
//! (docs/ARCHITECTURE.md, "Gating").
//!
//! Both servers are `hanzo-mcp serve --no-door --root <folder>`, each on a
//! temporary folder of its own: `project`, which the agent may change, and
//! `docs`, which it may only read. The allowlist names `docs` alone, so
//! `project` keeps every tool it lists. The two list the same names, so
//! the runtime keeps one registry per server (as runtimes that show a
//! model `server__tool` names do) rather than one merged `Composition`.
//!
//! Run: `cargo run -p mcp-examples --example agent_loop`. The tests at the
//! bottom check each step and run with `cargo test` (`test = true` on this
//! example). The server binary is `$HANZO_MCP_BIN`, else a `hanzo-mcp` next
//! to this program (`cargo test --workspace` builds it there), else one
//! built on the spot with cargo.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use mcp_gating::{AllowedTools, GatedSurface, Policy};
use mcp_mount::{Limits, MountSpec, StdioServer, Transport};
use mcp_proto::{
    CallToolRequestParams, CallToolResult, ErrorObject, FromValue, Implementation, Tool,
};
use mcp_sources::gated::GatedSource;
use mcp_sources::mounted::MountedSource;
use mcp_sources::{CallContext, CallRequest, ToolSource};
use serde_json::{Value, json};
use tempfile::TempDir;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The agent's allowlist: `docs` may only be read; `project` is not named,
/// so it keeps everything (a server the map does not name is not gated).
const ALLOWED_TOOLS: &str = r#"{"docs": ["fs:read"]}"#;

/// One server the runtime is connected to.
struct Server {
    name: String,
    /// Every tool name the server listed, gated or not (for the printout).
    listed: Vec<String>,
    /// What the runtime registered from this server: the gated view, whose
    /// list is the tools shown to the model and which is the only way a
    /// call reaches the server.
    registry: GatedSource,
}

impl Server {
    /// Starts `hanzo-mcp` on `root`, connects, lists its tools and
    /// registers them through `allowed`.
    async fn start(
        binary: &Path,
        name: &str,
        root: &Path,
        state: &Path,
        allowed: &Arc<AllowedTools>,
    ) -> Result<Self> {
        let spec = MountSpec {
            name: name.to_owned(),
            transport: Transport::Stdio(StdioServer {
                command: binary.display().to_string(),
                args: ["serve", "--no-door", "--log-level", "warn", "--root"]
                    .map(String::from)
                    .into_iter()
                    .chain([root.display().to_string()])
                    .collect(),
                // Its memory, plans and exec spools stay in our temporary folder.
                env: vec![("HANZO_MCP_STATE".to_owned(), state.display().to_string())],
                // The runtime does the gating; a variable left in our own
                // environment must not narrow the server's list behind our back.
                env_remove: vec!["HANZO_MCP_ALLOWED_TOOLS".to_owned()],
                cwd: None,
                // The folder the server's tools may write holds no program
                // we start.
                untrusted_dirs: vec![root.to_path_buf()],
                // Our HOME is not in that folder: the child keeps it.
                home: None,
            }),
        };
        // hanzo-mcp's tools take an `action`: "tool:action" entries narrow it.
        let source = Arc::new(MountedSource::start(
            spec,
            Limits::default(),
            Duration::from_secs(30),
            "action",
            Arc::new(Vec::new),
            Implementation::new("agent_loop", env!("CARGO_PKG_VERSION")),
        ));
        let listed: Vec<Tool> = source.list_tools().await.tools;
        if listed.is_empty() {
            return Err(format!(
                "{name}: the server listed no tools ({:?})",
                source.server().status()
            )
            .into());
        }
        // The one gating step. The gated view keeps the tools the rule of
        // `resolve_allowed_tools` keeps (fail-open: a server the map does
        // not name keeps all), narrows a tool kept by `"tool:action"`
        // entries to those actions, and decides every call.
        let rules = source.surface_rules();
        let registry = GatedSource::new(source, &listed, allowed.clone(), Policy::FailOpen, rules);
        for unmatched in registry.surface().unmatched_entries() {
            eprintln!("warning: allowedTools for {name}: {unmatched}");
        }
        Ok(Self {
            name: name.to_owned(),
            listed: listed.into_iter().map(|tool| tool.name).collect(),
            registry,
        })
    }

    /// The gated surface: the registered tools and the call decisions.
    fn surface(&self) -> Arc<GatedSurface<Tool>> {
        self.registry.surface()
    }

    /// The registered tools as the model would see them, with the actions
    /// left to each narrowed tool.
    fn registered(&self) -> Vec<String> {
        let surface = self.surface();
        surface
            .tools()
            .iter()
            .map(|tool| match surface.allowed_values(&tool.name) {
                Some(actions) => format!("{} (action {})", tool.name, actions.join("|")),
                None => tool.name.clone(),
            })
            .collect()
    }
}

/// What became of a tool call.
#[derive(Debug)]
enum Outcome {
    /// The server ran it.
    Ran(CallToolResult),
    /// The registry answered it without sending anything: the error the
    /// model gets (the same as for a tool that does not exist).
    Refused(ErrorObject),
}

impl Outcome {
    fn summary(&self) -> String {
        match self {
            Outcome::Ran(result) => {
                let status = if result.is_error == Some(true) {
                    "tool error"
                } else {
                    "ok"
                };
                format!("{status}: {:?}", first_text(result).trim_end())
            }
            Outcome::Refused(error) => format!("refused {} {:?}", error.code, error.message),
        }
    }
}

/// The text of a result's first content block ("" when it has none).
fn first_text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap_or_default();
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The agent's connections and their registries.
struct Runtime {
    servers: Vec<Server>,
}

impl Runtime {
    /// Routes a call to `tool` of `server` through that server's registry,
    /// which refuses what it did not register or does not permit.
    async fn call(&self, server: &str, tool: &str, arguments: Value) -> Result<Outcome> {
        let Some(connected) = self.servers.iter().find(|s| s.name == server) else {
            return Ok(Outcome::Refused(ErrorObject::invalid_params(format!(
                "no server {server:?}"
            ))));
        };
        let params =
            CallToolRequestParams::from_value(json!({ "name": tool, "arguments": arguments }))?;
        match connected
            .registry
            .call_tool(CallRequest::from_params(&params), CallContext::default())
            .await
        {
            Ok(result) => Ok(Outcome::Ran(CallToolResult::from_value(
                serde_json::from_str(result.get())?,
            )?)),
            Err(error) => Ok(Outcome::Refused(error)),
        }
    }

    /// Unmounts every server: each child's process group is killed.
    fn shut_down(self) {
        drop(self.servers);
    }
}

/// The temporary folders of one run: each server's root, holding a note,
/// and a state folder per server. Removed on drop.
struct Folders {
    _temp: TempDir,
    project: PathBuf,
    docs: PathBuf,
    state: PathBuf,
}

impl Folders {
    fn new() -> Result<Self> {
        let temp = tempfile::tempdir()?;
        let folders = Folders {
            project: temp.path().join("project"),
            docs: temp.path().join("docs"),
            state: temp.path().join("state"),
            _temp: temp,
        };
        for (root, note) in [
            (&folders.project, "Project notes: ship on Friday.\n"),
            (&folders.docs, "Style guide: write plainly.\n"),
        ] {
            std::fs::create_dir_all(root)?;
            std::fs::write(root.join("note.txt"), note)?;
        }
        for server in ["project", "docs"] {
            std::fs::create_dir_all(folders.state.join(server))?;
        }
        Ok(folders)
    }
}

/// Both servers started, connected and registered under [`ALLOWED_TOOLS`].
async fn start_runtime(folders: &Folders) -> Result<Runtime> {
    let binary = hanzo_mcp_binary()?;
    let allowed: Arc<AllowedTools> = Arc::new(serde_json::from_str(ALLOWED_TOOLS)?);
    let mut servers = Vec::new();
    for (name, root) in [("project", &folders.project), ("docs", &folders.docs)] {
        let state = folders.state.join(name);
        servers.push(Server::start(&binary, name, root, &state, &allowed).await?);
    }
    Ok(Runtime { servers })
}

/// The `hanzo-mcp` to run: `$HANZO_MCP_BIN`; else one in this program's
/// folder or the two above it (`target/debug/examples/agent_loop` finds
/// `target/debug/hanzo-mcp`); else the one cargo builds now, into the same
/// target folder (`CARGO_TARGET_DIR` is passed on).
fn hanzo_mcp_binary() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("HANZO_MCP_BIN") {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(format!("HANZO_MCP_BIN={} is not a file", path.display()).into());
        }
        return Ok(path);
    }
    let file_name = format!("hanzo-mcp{}", std::env::consts::EXE_SUFFIX);
    let exe = std::env::current_exe()?;
    if let Some(found) = exe
        .ancestors()
        .skip(1)
        .take(3)
        .map(|dir| dir.join(&file_name))
        .find(|candidate| candidate.is_file())
    {
        return Ok(found);
    }
    build_hanzo_mcp()
}

/// Builds the `hanzo-mcp` binary with cargo and returns the path cargo
/// reports for it.
fn build_hanzo_mcp() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    eprintln!("building hanzo-mcp (set HANZO_MCP_BIN to use another) ...");
    let output = Command::new(cargo)
        .args(["build", "-p", "mcp-local-server", "--bin", "hanzo-mcp"])
        .args([
            "--message-format",
            "json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(manifest)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("hanzo-mcp not found, and cargo could not be run: {e}"))?;
    if !output.status.success() {
        return Err("hanzo-mcp not found, and `cargo build -p mcp-local-server` failed".into());
    }
    // One JSON message a line; the binary's is the artifact with an executable.
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| {
            message["reason"] == "compiler-artifact" && message["target"]["name"] == "hanzo-mcp"
        })
        .and_then(|message| message["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo built hanzo-mcp but did not say where".into())
}

#[tokio::main]
async fn main() -> Result<()> {
    let folders = Folders::new()?;
    let runtime = start_runtime(&folders).await?;

    println!("allowedTools = {ALLOWED_TOOLS}\n");
    for server in &runtime.servers {
        println!("{} listed:     {}", server.name, server.listed.join(", "));
        println!(
            "{} registered: {}\n",
            server.name,
            server.registered().join(", ")
        );
    }

    let read = |root: &Path| json!({"action": "read", "path": root.join("note.txt")});
    let touch = |root: &Path| json!({"action": "run", "command": ["touch", root.join("marker")]});
    let write =
        |root: &Path| json!({"action": "write", "path": root.join("new.txt"), "content": "x"});
    let calls = [
        ("project", "fs", read(&folders.project)),
        ("docs", "fs", read(&folders.docs)),
        ("project", "exec", touch(&folders.project)),
        ("docs", "exec", touch(&folders.docs)),
        ("docs", "fs", write(&folders.docs)),
    ];
    for (server, tool, arguments) in calls {
        let action = arguments["action"].as_str().unwrap_or_default().to_owned();
        let outcome = runtime.call(server, tool, arguments).await?;
        println!("{server} {tool} {action} -> {}", outcome.summary());
    }

    // What the servers did, seen from outside: only routed calls left a trace.
    println!();
    for (shown, path) in [
        ("project/marker", folders.project.join("marker")),
        ("docs/marker", folders.docs.join("marker")),
        ("docs/new.txt", folders.docs.join("new.txt")),
    ] {
        let exists = if path.exists() { "exists" } else { "absent" };
        println!("{shown}: {exists}");
    }
    runtime.shut_down();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_gating::{CallDecision, OpTool};
    use mcp_proto::JsonObject;

    /// The runtime of `main` on fresh folders.
    async fn started() -> (Runtime, Folders) {
        let folders = Folders::new().expect("temporary folders");
        let runtime = start_runtime(&folders).await.expect("both servers");
        (runtime, folders)
    }

    fn server<'r>(runtime: &'r Runtime, name: &str) -> &'r Server {
        runtime
            .servers
            .iter()
            .find(|server| server.name == name)
            .expect("a connected server")
    }

    fn arguments(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn ran_text(outcome: &Outcome) -> String {
        match outcome {
            Outcome::Ran(result) => {
                assert_ne!(result.is_error, Some(true), "{result:?}");
                first_text(result)
            }
            Outcome::Refused(error) => panic!("refused: {error:?}"),
        }
    }

    fn refusal_code(outcome: &Outcome) -> i64 {
        match outcome {
            Outcome::Refused(error) => error.code,
            Outcome::Ran(result) => panic!("the call reached the server: {result:?}"),
        }
    }

    #[tokio::test]
    async fn each_server_registers_what_allowed_tools_gives_it() {
        let (runtime, _folders) = started().await;
        let project = server(&runtime, "project");
        let docs = server(&runtime, "docs");
        // Both are the same server, so they list the same tools.
        assert_eq!(project.listed, docs.listed);
        assert!(project.listed.iter().any(|name| name == "exec"));

        // Not named in the allowlist: every listed tool, unchanged.
        let surface = project.surface();
        let registered: Vec<&str> = surface.tools().iter().map(|t| &*t.name).collect();
        assert_eq!(registered, project.listed);

        // "fs:read": fs alone, its action enum narrowed to read.
        assert_eq!(docs.registered(), ["fs (action read)"]);
        let surface = docs.surface();
        let fs = &surface.tools()[0];
        assert_eq!(fs.op_values("action"), Some(vec!["read".to_owned()]));
        runtime.shut_down();
    }

    #[tokio::test]
    async fn an_allowed_tool_runs_on_its_own_server() {
        let (runtime, folders) = started().await;
        for (name, root, text) in [
            (
                "project",
                &folders.project,
                "Project notes: ship on Friday.\n",
            ),
            ("docs", &folders.docs, "Style guide: write plainly.\n"),
        ] {
            let read = json!({"action": "read", "path": root.join("note.txt")});
            let outcome = runtime.call(name, "fs", read).await.expect("a call");
            assert_eq!(ran_text(&outcome), text, "{name}");
        }
        runtime.shut_down();
    }

    #[tokio::test]
    async fn a_gated_out_tool_is_refused_and_never_reaches_the_server() {
        let (runtime, folders) = started().await;
        let touch =
            |root: &Path| json!({"action": "run", "command": ["touch", root.join("marker")]});

        // The same call runs where exec is registered...
        let outcome = runtime
            .call("project", "exec", touch(&folders.project))
            .await;
        ran_text(&outcome.expect("a call"));
        assert!(folders.project.join("marker").exists());

        // ...and is refused, as an unknown tool, where it is not; the
        // server never ran it.
        let outcome = runtime.call("docs", "exec", touch(&folders.docs)).await;
        assert_eq!(refusal_code(&outcome.expect("a call")), -32602);
        assert!(!folders.docs.join("marker").exists());
        assert!(!server(&runtime, "docs").surface().owns("exec"));

        // A registered tool with an action left out of the allowlist.
        let write =
            json!({"action": "write", "path": folders.docs.join("new.txt"), "content": "x"});
        let outcome = runtime.call("docs", "fs", write.clone()).await;
        assert_eq!(refusal_code(&outcome.expect("a call")), -32602);
        assert!(!folders.docs.join("new.txt").exists());
        let docs = server(&runtime, "docs").surface();
        assert!(matches!(
            docs.check_call_arguments("fs", Some(&arguments(write))),
            CallDecision::Refused(_)
        ));
        runtime.shut_down();
    }
}
