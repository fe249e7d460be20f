//! What a tool call gets besides its arguments: roots, cancellation, progress.

use std::sync::{Arc, RwLock};

use tokio_util::sync::CancellationToken;

use crate::roots::Roots;

/// Everything a [`crate::LocalTool`] call may use besides its arguments.
///
/// Built by the server per call: `roots` are its `--root` flags or the
/// client's MCP roots; `cancel` fires on `notifications/cancelled`
/// (MCP 2025-11-25 utilities/cancellation); `progress` sends
/// `notifications/progress` when the request carried a `progressToken`
/// (MCP 2025-11-25 utilities/progress).
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The directories the call may touch.
    pub roots: Roots,
    /// Cancelled when the caller gives up; long actions check it and stop.
    pub cancel: CancellationToken,
    /// Where progress goes (a no-op unless the request asked for it).
    pub progress: Progress,
    /// The client connection the call came on (over stdio the one
    /// connection, 0; over streamable HTTP, a number per session). Tools
    /// that keep state per connection (`think`) key it by this.
    pub session: u64,
    /// Whether the call may start programs other than `git` itself. The
    /// server sets it per call: `false` when no action with
    /// [`crate::Capability::RunPrograms`] is reachable in the caller's
    /// session (gated out, or outside its mode). With `false`, every `git`
    /// action runs with a configuration that can name no program: the
    /// system and global config files are not read (the user's identity
    /// and a short list of ordinary settings are passed on), every key of
    /// the repository's config that names a program is overridden, hooks
    /// do not run, and only the `file`, `git`, `http` and `https`
    /// transports are allowed (see the `git` module). `true` in
    /// [`ToolContext::new`].
    pub run_programs: bool,
}

impl ToolContext {
    /// A context with `roots`, a fresh cancellation token, no progress,
    /// session 0, and programs allowed.
    pub fn new(roots: Roots) -> ToolContext {
        ToolContext {
            roots,
            cancel: CancellationToken::new(),
            progress: Progress::none(),
            session: 0,
            run_programs: true,
        }
    }
}

type ProgressFn = dyn Fn(f64, Option<f64>, Option<String>) + Send + Sync;

/// A progress reporter: `report(progress, total, message)` with the fields of
/// MCP `notifications/progress` (`progress` grows with each report; `total`
/// when known). Cheap to clone.
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Arc<ProgressFn>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.sink.is_some())
            .finish()
    }
}

impl Progress {
    /// A reporter that drops every report.
    pub fn none() -> Progress {
        Progress { sink: None }
    }

    /// A reporter that calls `sink(progress, total, message)` for each report.
    pub fn new(
        sink: impl Fn(f64, Option<f64>, Option<String>) + Send + Sync + 'static,
    ) -> Progress {
        Progress {
            sink: Some(Arc::new(sink)),
        }
    }

    /// True when reports go somewhere.
    pub fn is_enabled(&self) -> bool {
        self.sink.is_some()
    }

    /// Sends one report (no-op for [`Progress::none`]).
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if let Some(sink) = &self.sink {
            sink(progress, total, message);
        }
    }
}

/// What the server knows about the door (HIP-0300 §2.2), for `workspace`
/// `capabilities`: its address and whether it answered. Never a bearer.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DoorReport {
    /// The door's address (`HANZO_MCP_DOOR` or `<HANZO_API_BASE>/v1/mcp`).
    pub address: String,
    /// `Some(true)` when it last answered, `Some(false)` when it did not,
    /// `None` when not tried yet.
    pub answered: Option<bool>,
    /// A one-line note (for example the last failure), if any.
    pub note: Option<String>,
}

/// Shared, updatable facts about the toolbox's surroundings: the door (set
/// by the server) and the names of the tools in the toolbox. Cheap to clone;
/// every clone sees updates.
#[derive(Clone, Debug, Default)]
pub struct Surroundings {
    inner: Arc<RwLock<SurroundingsInner>>,
}

#[derive(Debug, Default)]
struct SurroundingsInner {
    door: Option<DoorReport>,
    tools: Vec<&'static str>,
}

impl Surroundings {
    /// Records what the server knows about the door (`None`: no door).
    pub fn set_door(&self, door: Option<DoorReport>) {
        if let Ok(mut inner) = self.inner.write() {
            inner.door = door;
        }
    }

    /// The last door report, if any.
    pub fn door(&self) -> Option<DoorReport> {
        self.inner.read().ok().and_then(|inner| inner.door.clone())
    }

    /// The names of the tools in the toolbox, in order.
    pub fn tools(&self) -> Vec<&'static str> {
        self.inner
            .read()
            .map(|inner| inner.tools.clone())
            .unwrap_or_default()
    }

    pub(crate) fn add_tool(&self, name: &'static str) {
        if let Ok(mut inner) = self.inner.write()
            && !inner.tools.contains(&name)
        {
            inner.tools.push(name);
        }
    }
}
