//! What each action of a local tool can do: the capability table.
//!
//! Every action of every tool declares its capabilities once, in its
//! tool's action table (see `docs/ARCHITECTURE.md`, "Local tools"). The
//! table is what a person reads to know what an allowlist entry gives
//! (`fs` gives every `fs` action; `fs:read` only that one); `help` prints
//! it per action, [`crate::Toolbox::capabilities`] returns it whole, and
//! the built-in `review` mode is made from it.

/// What an action can do, one flag each.
///
/// Reading server state (a memory, the plan, a job's output) is no
/// capability: only changing it is ([`Capability::State`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    /// Reads files inside the roots.
    ReadFiles,
    /// Creates, changes or removes files inside the roots (a git commit,
    /// a branch or a download included).
    WriteFiles,
    /// Starts a program other than `git` itself (`exec`), or drives one
    /// already started (its stdin, its signals). With every such action
    /// out of reach, `git` runs with a configuration that can name no
    /// program ([`crate::ToolContext::run_programs`]).
    RunPrograms,
    /// Reaches the network beyond the machine (a URL, a git remote, a
    /// component registry).
    Network,
    /// Changes state the server keeps across calls: the state database
    /// (`memory`, `plan`, `tasks`), the connection's mode, a remembered
    /// setting.
    State,
}

impl Capability {
    /// Every capability, in table order.
    pub const ALL: [Capability; 5] = [
        Capability::ReadFiles,
        Capability::WriteFiles,
        Capability::RunPrograms,
        Capability::Network,
        Capability::State,
    ];

    /// The name a person reads: `read files`, `write files`,
    /// `run programs`, `network`, `state`.
    pub fn name(self) -> &'static str {
        match self {
            Capability::ReadFiles => "read files",
            Capability::WriteFiles => "write files",
            Capability::RunPrograms => "run programs",
            Capability::Network => "network",
            Capability::State => "state",
        }
    }

    /// True for the capabilities that change something on the machine or
    /// in the server (write files, run programs, state): an action with
    /// none of them may be part of the `review` mode.
    pub(crate) fn changes(self) -> bool {
        matches!(
            self,
            Capability::WriteFiles | Capability::RunPrograms | Capability::State
        )
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One row of the capability table: an action of a tool, the other names
/// it answers to, and what it can do (in [`Capability::ALL`] order; empty
/// for an action such as `help`, which only answers text).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ActionCapabilities {
    /// The tool (`git`).
    pub tool: &'static str,
    /// The action's wire name (`commit`).
    pub action: &'static str,
    /// Other names the action answers to (`checkout` for `git switch`).
    pub aliases: Vec<&'static str>,
    /// What it can do.
    pub capabilities: Vec<Capability>,
}

/// `capabilities` as a person reads them: `read files, write files`, or
/// `none`.
pub(crate) fn describe(capabilities: &[Capability]) -> String {
    if capabilities.is_empty() {
        return "none".to_owned();
    }
    capabilities
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(", ")
}
