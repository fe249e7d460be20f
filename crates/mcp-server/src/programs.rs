//! Whether a session may start programs (docs/ARCHITECTURE.md, "Gating"):
//! true when some local action that runs programs (`exec`'s) is reachable
//! through the server's allowlist and every `mode` layer of the session.
//! A call then runs with [`CallContext::run_programs`](crate::CallContext)
//! set, and the local tools start no program beyond their own when it is
//! false (no `git` hook, filter, driver or helper).

use std::sync::{Arc, OnceLock};

use mcp_gating::{AllowedTools, ServerAllowlist, SurfaceRules, ToolGrant};
use mcp_local_tools::{Capability, Toolbox};

/// `(tool, action)` of every local action that runs programs, and the
/// rules that read an entry's action aliases (`exec:exec` for `run`).
type Table = (Vec<(&'static str, &'static str)>, SurfaceRules);

/// The local actions that run programs, and what the server's allowlist
/// grants of them.
#[derive(Clone)]
pub struct ProgramGate {
    /// Where the actions and their aliases are read from, on first use
    /// (start-up does not pay for the tables).
    toolbox: Option<Toolbox>,
    /// The program-running actions and the alias rules ([`Table`]).
    table: Arc<OnceLock<Table>>,
    /// The allowlist of `local`, when the server has one.
    local: Option<ServerAllowlist>,
}

impl std::fmt::Debug for ProgramGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgramGate")
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

impl ProgramGate {
    /// A gate over the actions of `toolbox` whose capabilities include
    /// [`Capability::RunPrograms`] (its capability table), under the
    /// `local` entry of `allowed`.
    pub fn new(toolbox: Toolbox, allowed: &AllowedTools) -> Self {
        Self {
            toolbox: Some(toolbox),
            table: Arc::default(),
            local: allowed.server("local").cloned(),
        }
    }

    /// A gate over the given program-running `actions`, read with `rules`
    /// (for a source other than [`Toolbox`]).
    pub fn with_actions(
        actions: Vec<(&'static str, &'static str)>,
        rules: SurfaceRules,
        allowed: &AllowedTools,
    ) -> Self {
        Self {
            toolbox: None,
            table: Arc::new(OnceLock::from((actions, rules))),
            local: allowed.server("local").cloned(),
        }
    }

    fn table(&self) -> &Table {
        self.table.get_or_init(|| {
            let Some(toolbox) = &self.toolbox else {
                return (Vec::new(), SurfaceRules::local());
            };
            let actions = toolbox
                .capabilities()
                .into_iter()
                .filter(|row| row.capabilities.contains(&Capability::RunPrograms))
                .map(|row| (row.tool, row.action))
                .collect();
            (
                actions,
                SurfaceRules::local().with_aliases(toolbox.action_aliases()),
            )
        })
    }

    /// Whether some program-running action is allowed by the server's
    /// allowlist and by every layer of mode entries (`tool` or
    /// `tool:action`, as a mode preset holds them). A layer that cannot be
    /// read allows nothing.
    pub fn allows(&self, layers: &[Vec<String>]) -> bool {
        let layers: Option<Vec<ServerAllowlist>> = layers
            .iter()
            .map(|entries| ServerAllowlist::parse("mode", entries).ok())
            .collect();
        let Some(layers) = layers else {
            return false;
        };
        let (actions, rules) = self.table();
        actions.iter().any(|(tool, action)| {
            self.local
                .as_ref()
                .is_none_or(|local| grants(rules, local, tool, action))
                && layers
                    .iter()
                    .all(|layer| grants(rules, layer, tool, action))
        })
    }
}

/// Whether `list` grants `action` of `tool`, an alias standing for its
/// action.
fn grants(rules: &SurfaceRules, list: &ServerAllowlist, tool: &str, action: &str) -> bool {
    match list.grant(tool) {
        None => false,
        Some(ToolGrant::Ops(ops)) => ops.iter().any(|op| rules.canonical(tool, op) == action),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(allowed: &str) -> ProgramGate {
        let allowed: AllowedTools = serde_json::from_str(allowed).unwrap();
        ProgramGate::with_actions(
            vec![("exec", "run"), ("exec", "background")],
            SurfaceRules::local().with_aliases([("exec", "exec", "run")]),
            &allowed,
        )
    }

    fn layer(entries: &[&str]) -> Vec<String> {
        entries.iter().map(|e| (*e).to_owned()).collect()
    }

    #[test]
    fn programs_follow_the_allowlist_and_every_mode_layer() {
        assert!(gate("null").allows(&[]));
        assert!(gate(r#"{"door": []}"#).allows(&[]));
        assert!(gate(r#"{"local": ["exec"]}"#).allows(&[]));
        assert!(gate(r#"{"local": ["exec:exec"]}"#).allows(&[]));
        assert!(gate(r#"{"local": ["exec:background"]}"#).allows(&[]));
        assert!(!gate(r#"{"local": ["exec:list"]}"#).allows(&[]));
        assert!(!gate(r#"{"local": ["fs", "git"]}"#).allows(&[]));
        assert!(!gate(r#"{"local": []}"#).allows(&[]));
        assert!(!gate("null").allows(&[layer(&["fs", "git"])]));
        assert!(gate("null").allows(&[layer(&["exec:run"])]));
        assert!(!gate("null").allows(&[layer(&["exec:run"]), layer(&["exec:background"])]));
        assert!(!gate(r#"{"local": ["exec:run"]}"#).allows(&[layer(&["exec:background"])]));
        assert!(!gate("null").allows(&[layer(&["bad entry:"])]));
    }
}
