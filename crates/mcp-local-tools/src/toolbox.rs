//! The toolbox: the local tools of one server, looked up by name.

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::{CallToolResult, Tool};
use serde_json::{Map, Value};

use crate::capability::ActionCapabilities;
use crate::child_env::ChildEnv;
use crate::context::{Surroundings, ToolContext};
use crate::tool::LocalTool;

/// An ordered set of local tools, looked up by name.
#[derive(Clone)]
pub struct Toolbox {
    tools: Vec<Arc<dyn LocalTool>>,
    surroundings: Surroundings,
    call_timeout: Option<Duration>,
    modes: Option<Arc<crate::mode::Modes>>,
    child_env: Arc<ChildEnv>,
}

/// How long one local tool call may run by default before
/// [`Toolbox::call`] gives up on it: 120 seconds.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

impl Default for Toolbox {
    fn default() -> Toolbox {
        Toolbox {
            tools: Vec::new(),
            surroundings: Surroundings::default(),
            call_timeout: Some(DEFAULT_CALL_TIMEOUT),
            modes: None,
            child_env: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Toolbox {
        Toolbox::default()
    }

    /// Every tool whose Cargo feature is on, in the order `fs`, `code`,
    /// `workspace`, `exec`, `git`, `fetch`, `ui`, `think`, `memory`, `plan`,
    /// `tasks`.
    /// `memory`, `plan` and `tasks` share one state database, opened on
    /// their first call.
    pub fn with_default_tools() -> Toolbox {
        #[allow(unused_mut)]
        let mut toolbox = Toolbox::new();
        #[cfg(feature = "fs")]
        toolbox.add(crate::fs::FsTool::new());
        #[cfg(feature = "code")]
        toolbox.add(crate::code::CodeTool::new());
        #[cfg(feature = "workspace")]
        {
            let workspace = crate::workspace::WorkspaceTool::new(toolbox.surroundings());
            toolbox.add(workspace);
        }
        #[cfg(feature = "exec")]
        toolbox.add(crate::exec::ExecTool::new());
        #[cfg(feature = "git")]
        toolbox.add(crate::git::GitTool::new());
        #[cfg(feature = "fetch")]
        toolbox.add(crate::fetch::FetchTool::new());
        #[cfg(feature = "ui")]
        toolbox.add(crate::ui::UiTool::new());
        #[cfg(any(feature = "memory", feature = "plan", feature = "tasks"))]
        let store = Arc::new(crate::store::Store::new());
        #[cfg(feature = "think")]
        toolbox.add(crate::think::ThinkTool::new());
        #[cfg(feature = "memory")]
        toolbox.add(crate::memory::MemoryTool::new(store.clone()));
        #[cfg(feature = "plan")]
        toolbox.add(crate::plan::PlanTool::new(store.clone()));
        #[cfg(feature = "tasks")]
        toolbox.add(crate::tasks::TasksTool::new(store));
        toolbox
    }

    /// Adds the `mode` tool, its `review` preset made of the reading
    /// actions of the tools added so far (add it last), and the presets of
    /// the file named by `HANZO_MCP_MODES`. Not part of
    /// [`Toolbox::with_default_tools`]: `mode` only records a connection's
    /// choice, and is offered by a server that applies it (through
    /// [`Toolbox::modes`]).
    #[cfg(feature = "mode")]
    pub fn with_mode(&mut self) -> &mut Toolbox {
        let file = std::env::var_os(crate::mode::MODES_VAR).filter(|f| !f.is_empty());
        self.with_mode_file(file.as_deref().map(std::path::Path::new))
    }

    /// [`Toolbox::with_mode`] with the presets of `file` (for example a
    /// `--modes` flag) instead of the file `HANZO_MCP_MODES` names.
    #[cfg(feature = "mode")]
    pub fn with_mode_file(&mut self, file: Option<&std::path::Path>) -> &mut Toolbox {
        // The presets are made at their first use: most sessions never
        // choose a mode.
        let tools = self.tools.clone();
        let mut modes = crate::mode::Modes::builtin_deferred(move || {
            tools.iter().map(|t| (t.name(), t.actions())).collect()
        })
        .with_aliases(self.action_aliases());
        if let Some(file) = file {
            modes = modes.with_file(file);
        }
        let modes = Arc::new(modes);
        self.modes = Some(modes.clone());
        self.add(crate::mode::ModeTool::new(modes))
    }

    /// The presets and per-connection choices of the `mode` tool, when the
    /// toolbox has one ([`Toolbox::with_mode`]): the server narrows each
    /// connection's tools with [`crate::mode::Modes::allowed_for`] and
    /// watches [`crate::mode::Modes::subscribe`]. `None` without the `mode`
    /// feature.
    pub fn modes(&self) -> Option<Arc<crate::mode::Modes>> {
        self.modes.clone()
    }

    /// Adds `tool`; a tool with the same name replaces the earlier one in
    /// its place.
    pub fn add(&mut self, tool: impl LocalTool) -> &mut Toolbox {
        let tool: Arc<dyn LocalTool> = Arc::new(tool);
        self.surroundings.add_tool(tool.name());
        match self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
        self
    }

    /// The tools' definitions, in the order they were added.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.iter().map(|t| t.definition()).collect()
    }

    /// The tool named `name`, if any.
    pub fn get(&self, name: &str) -> Option<Arc<dyn LocalTool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    /// The names of the tools, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// Every action alias of every tool, as `(tool, alias, action)`: what
    /// `mcp_gating::SurfaceRules::with_aliases` takes, so an allowlist or a
    /// call may name an action as Hanzo's other servers do.
    pub fn action_aliases(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        self.tools
            .iter()
            .flat_map(|tool| {
                let name = tool.name();
                tool.action_aliases()
                    .into_iter()
                    .map(move |(alias, action)| (name, alias, action))
            })
            .collect()
    }

    /// The capability table: every action of every tool, in tool order
    /// then each tool's action order, `help` included (with no
    /// capability). What a person reads to know what an allowlist entry
    /// gives (`tool` gives every row of that tool, `tool:action` one row).
    pub fn capabilities(&self) -> Vec<ActionCapabilities> {
        self.tools.iter().flat_map(|t| t.capabilities()).collect()
    }

    /// Names of variables removed from the environment of every child
    /// process (`exec`, `git`), besides `HANZO_API_KEY` and
    /// `HANZO_MCP_HTTP_BEARER`, which always are: the secrets the server
    /// holds (a bearer read from a file, a variable its config marks
    /// secret). Replaces the names set before; empty names are ignored.
    /// A call's own `env` (`exec run`) may still set such a name.
    pub fn set_secret_env(&mut self, names: impl IntoIterator<Item = String>) -> &mut Toolbox {
        let mut env = (*self.child_env).clone();
        env.secret = names.into_iter().filter(|n| !n.is_empty()).collect();
        self.child_env = Arc::new(env);
        self
    }

    /// Every name removed from the children's environment:
    /// `HANZO_API_KEY`, `HANZO_MCP_HTTP_BEARER`, then those given to
    /// [`Toolbox::set_secret_env`] (each once).
    pub fn secret_env(&self) -> Vec<String> {
        self.child_env.removed()
    }

    /// Variables every child process gets as if they were in the
    /// server's environment (`HOME` for `git`, say), without changing the
    /// server's own: for an embedder that runs tools for another user, and
    /// for tests that run in parallel. Replaces the variables set before.
    /// The names of [`Toolbox::secret_env`] are still removed.
    pub fn set_child_env(
        &mut self,
        vars: impl IntoIterator<Item = (String, String)>,
    ) -> &mut Toolbox {
        let mut env = (*self.child_env).clone();
        env.add = vars.into_iter().collect();
        self.child_env = Arc::new(env);
        self
    }

    /// The shared facts tools may report (door status, tool names); the
    /// server sets the door with [`Surroundings::set_door`].
    pub fn surroundings(&self) -> Surroundings {
        self.surroundings.clone()
    }

    /// Sets how long one call may run (`None`: no bound). Default
    /// [`DEFAULT_CALL_TIMEOUT`]; a tool whose [`LocalTool::time_limit`] is
    /// longer gets that.
    pub fn set_call_timeout(&mut self, timeout: Option<Duration>) -> &mut Toolbox {
        self.call_timeout = timeout;
        self
    }

    /// The bound on one call's run time, if any.
    pub fn call_timeout(&self) -> Option<Duration> {
        self.call_timeout
    }

    /// Calls the tool `name`; `None` when there is no such tool (the server
    /// answers that with JSON-RPC -32602).
    ///
    /// A call still running after [`Toolbox::call_timeout`] has its
    /// cancellation token cancelled (so the work stops at its next check)
    /// and answers `isError: true` with
    /// `<tool>: timed out after <N> ms (no result)`.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        mut ctx: ToolContext,
    ) -> Option<CallToolResult> {
        let tool = self.get(name)?;
        let env = self.child_env.clone();
        let Some(limit) = self.call_timeout else {
            return Some(crate::child_env::scope(env, tool.call(arguments, ctx)).await);
        };
        let limit = tool.time_limit().map_or(limit, |own| own.max(limit));
        // A child token: cancelling it on expiry stops this call's work
        // without touching the caller's token.
        let token = ctx.cancel.child_token();
        ctx.cancel = token.clone();
        let _cancel_on_drop = token.clone().drop_guard();
        let work = crate::child_env::scope(env, tool.call(arguments, ctx));
        match tokio::time::timeout(limit, work).await {
            Ok(result) => Some(result),
            Err(_) => {
                token.cancel();
                Some(CallToolResult::error(format!(
                    "{name}: timed out after {} ms (no result)",
                    limit.as_millis()
                )))
            }
        }
    }
}
