//! Policies: what a server absent from the map (or a `null` map) gets.

use std::fmt;
use std::str::FromStr;

use crate::{AllowedTools, ConfigError, ServerAllowlist, ToolName};

/// How a configuration applies to a server it does not name: a policy
/// layered on top of the core (docs/ARCHITECTURE.md, "Gating").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Policy {
    /// The default and the core's semantics: `null` and an absent server keep
    /// every tool; only named servers are constrained.
    #[default]
    FailOpen,
    /// Only what is named is granted: `null` and an absent server keep no
    /// tool. A server with a list gets exactly what
    /// [`FailOpen`](Policy::FailOpen) gives it.
    DenyByDefault,
}

/// What a [`Policy`] grants one server under one configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant<'a> {
    /// Every tool (no filtering).
    All,
    /// The tools the list names (`[]` names none).
    Only(&'a ServerAllowlist),
    /// No tool (deny-by-default for an unnamed server).
    Nothing,
}

impl Grant<'_> {
    /// Whether the grant keeps a tool named `tool`.
    pub fn allows_tool(&self, tool: &str) -> bool {
        match self {
            Self::All => true,
            Self::Only(list) => list.allows_tool(tool),
            Self::Nothing => false,
        }
    }
}

impl Policy {
    /// The grant for `server` under `allowed`.
    pub fn grant<'a>(self, allowed: &'a AllowedTools, server: &str) -> Grant<'a> {
        match (allowed.server(server), self) {
            (Some(list), _) => Grant::Only(list),
            (None, Self::FailOpen) => Grant::All,
            (None, Self::DenyByDefault) => Grant::Nothing,
        }
    }

    /// The tools of `server` this policy permits under `allowed`: the input
    /// order is kept, and a tool is kept when any entry names it (whole or as
    /// `"<tool>:<op>"`; narrowing the op is [`GatedSurface`]'s job). Pure:
    /// the items are moved through, never changed; pass `&tools` to borrow.
    ///
    /// Cost: one hash lookup per tool, O(tools).
    ///
    /// [`GatedSurface`]: crate::GatedSurface
    pub fn resolve<I>(self, tools: I, allowed: &AllowedTools, server: &str) -> Vec<I::Item>
    where
        I: IntoIterator,
        I::Item: ToolName,
    {
        let grant = self.grant(allowed, server);
        match grant {
            Grant::All => tools.into_iter().collect(),
            Grant::Nothing => Vec::new(),
            Grant::Only(list) => tools
                .into_iter()
                .filter(|tool| list.allows_tool(tool.tool_name()))
                .collect(),
        }
    }

    /// The policy's name as configured: `fail-open` or `deny-by-default`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FailOpen => "fail-open",
            Self::DenyByDefault => "deny-by-default",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Policy {
    type Err = ConfigError;

    /// Parses `fail-open` or `deny-by-default` (exact spelling); anything
    /// else is [`ConfigError::UnknownPolicy`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "fail-open" => Ok(Self::FailOpen),
            "deny-by-default" => Ok(Self::DenyByDefault),
            other => Err(ConfigError::UnknownPolicy {
                input: other.to_owned(),
            }),
        }
    }
}
