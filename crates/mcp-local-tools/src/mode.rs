//! The `mode` tool: named presets of what the agent may use, per connection.
//!
//! A preset is a list of allowlist entries in the `allowedTools` syntax
//! (`"fs"` for a whole tool, `"fs:read"` for one action). Built in:
//!
//! - `full`: everything the server is configured with;
//! - `review`: only the actions that read (from each tool's action table:
//!   no `fs` write, edit or remove, no `exec`, no `git` writes, no state
//!   changes), plus `mode` itself.
//!
//! More come from a JSON file (`{"<name>": ["fs:read", "code"]}` or
//! `{"<name>": {"description": "...", "allowed": [...]}}`), named by
//! `HANZO_MCP_MODES` or given to [`Modes::with_file`].
//!
//! This tool only records the connection's choice ([`Modes::allowed_for`])
//! and announces it ([`Modes::subscribe`]); the server applies it through
//! its gating layer, after and never wider than its own allowlist, and
//! sends `notifications/tools/list_changed`. `mode` stays callable in every
//! preset.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::action::{ActionFuture, ActionTool, action_args, actions, local_tool};
use crate::context::ToolContext;
use crate::util::Hints;

/// How many changes a slow receiver of [`Modes::subscribe`] may miss
/// before it is told it lagged.
const CHANGES_BACKLOG: usize = 256;

/// The variable naming a file of user presets.
pub const MODES_VAR: &str = "HANZO_MCP_MODES";

/// One preset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    /// Its name (`review`).
    pub name: String,
    /// What it is for, one line.
    pub description: String,
    /// Allowlist entries (`tool` or `tool:action`); `None`: everything.
    pub allowed: Option<Vec<String>>,
}

/// The presets, and each connection's choice. Shared by the `mode` tool and
/// the server that applies it.
#[derive(Debug)]
pub struct Modes {
    presets: Vec<Preset>,
    /// A file of presets that could not be read, and why.
    file_error: Option<String>,
    current: Mutex<HashMap<u64, String>>,
    /// Each change, as the number of the connection whose mode changed.
    changed: tokio::sync::broadcast::Sender<u64>,
}

impl Modes {
    /// The built-in presets `full` and `review`, `review` made of the
    /// reading actions in `tools` (name and `(action, reads_only)` pairs, as
    /// [`crate::LocalTool::actions`] gives them); `exec` is left out of
    /// `review` whatever its actions.
    pub fn builtin(tools: &[(&str, Vec<(&'static str, bool)>)]) -> Modes {
        let mut review = vec!["mode".to_owned()];
        for (tool, actions) in tools {
            if *tool == "exec" || *tool == "mode" {
                continue;
            }
            review.extend(
                actions
                    .iter()
                    .filter(|(_, reads)| *reads)
                    .map(|(action, _)| format!("{tool}:{action}")),
            );
        }
        Modes {
            presets: vec![
                Preset {
                    name: "full".to_owned(),
                    description: "every tool the server is configured with".to_owned(),
                    allowed: None,
                },
                Preset {
                    name: "review".to_owned(),
                    description: "only actions that read: no file changes, no commands, no git writes, no state changes".to_owned(),
                    allowed: Some(review),
                },
            ],
            file_error: None,
            current: Mutex::new(HashMap::new()),
            changed: tokio::sync::broadcast::channel(CHANGES_BACKLOG).0,
        }
    }

    /// Adds the presets of the JSON file at `path` (a preset of the same
    /// name replaces a built-in one). A file that cannot be read or parsed
    /// is kept as an error ([`Modes::file_error`]) that `list` and a `set`
    /// of an unknown name report; the built-in presets still work.
    pub fn with_file(mut self, path: &Path) -> Modes {
        match read_presets(path) {
            Ok(presets) => {
                for preset in presets {
                    self.presets.retain(|p| p.name != preset.name);
                    self.presets.push(preset);
                }
            }
            Err(e) => self.file_error = Some(e),
        }
        self
    }

    /// Why the presets file could not be read, when it could not (its
    /// presets are then missing; the built-in ones work).
    pub fn file_error(&self) -> Option<&str> {
        self.file_error.as_deref()
    }

    /// The presets, built-in first.
    pub fn presets(&self) -> &[Preset] {
        &self.presets
    }

    /// The allowlist entries of connection `session`'s mode, with `mode`
    /// itself; `None` when its mode allows everything.
    pub fn allowed_for(&self, session: u64) -> Option<Vec<String>> {
        let name = self.current_name(session);
        let preset = self.presets.iter().find(|p| p.name == name)?;
        let mut allowed = preset.allowed.clone()?;
        if !allowed.iter().any(|e| e == "mode") {
            allowed.push("mode".to_owned());
        }
        Some(allowed)
    }

    /// A receiver that sees the number of each connection whose mode
    /// changed, one message per change, so changes of several connections
    /// at once are all seen. A receiver that falls more than 256 changes
    /// behind gets `Lagged` and should treat its own list as changed.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Forgets a closed connection's choice.
    pub fn forget(&self, session: u64) {
        if let Ok(mut current) = self.current.lock() {
            current.remove(&session);
        }
    }

    fn current_name(&self, session: u64) -> String {
        self.current
            .lock()
            .ok()
            .and_then(|c| c.get(&session).cloned())
            .unwrap_or_else(|| "full".to_owned())
    }

    fn set(&self, session: u64, name: &str) -> Result<&Preset, String> {
        let preset = self
            .presets
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.presets.iter().map(|p| p.name.as_str()).collect();
                let mut text = format!(
                    "no mode '{}' (modes: {})",
                    name.escape_debug(),
                    names.join(", ")
                );
                if let Some(error) = &self.file_error {
                    text.push_str(&format!("; the presets file was not read: {error}"));
                }
                text
            })?;
        let mut current = self
            .current
            .lock()
            .map_err(|_| "mode: the record is poisoned".to_owned())?;
        let before = current.insert(session, preset.name.clone());
        drop(current);
        if before.as_deref().unwrap_or("full") != preset.name {
            // No receiver (no server applies modes) is not an error.
            let _ = self.changed.send(session);
        }
        Ok(preset)
    }
}

/// One preset in a file: a list of entries, or a description and the list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum FilePreset {
    Entries(Vec<String>),
    Described {
        #[serde(default)]
        description: String,
        allowed: Vec<String>,
    },
}

fn read_presets(path: &Path) -> Result<Vec<Preset>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("modes file {}: {e}", path.display()))?;
    let presets: BTreeMap<String, FilePreset> = serde_json::from_str(&text).map_err(|e| {
        format!(
            "modes file {}: {e} (expected {{\"<name>\": [\"tool\", \"tool:action\", ...]}})",
            path.display()
        )
    })?;
    presets
        .into_iter()
        .map(|(name, preset)| {
            if mcp_proto::validate_tool_name(&name).is_err() {
                return Err(format!(
                    "modes file {}: '{}' is not a mode name (letters, digits, _ - .)",
                    path.display(),
                    name.escape_debug()
                ));
            }
            let (description, allowed) = match preset {
                FilePreset::Entries(allowed) => (format!("from {}", path.display()), allowed),
                FilePreset::Described {
                    description,
                    allowed,
                } => (description, allowed),
            };
            Ok(Preset {
                name,
                description,
                allowed: Some(allowed),
            })
        })
        .collect()
}

/// The `mode` local tool. Cheap to clone; clones share the [`Modes`].
#[derive(Debug, Clone)]
pub struct ModeTool {
    modes: Arc<Modes>,
}

impl ModeTool {
    /// The tool over `modes` (which the server also holds, to apply them).
    pub fn new(modes: Arc<Modes>) -> ModeTool {
        ModeTool { modes }
    }

    /// The presets and choices this tool records.
    pub fn modes(&self) -> Arc<Modes> {
        self.modes.clone()
    }
}

actions! {
    /// Which `mode` action to run.
    pub(crate) enum ModeAction {
        List = "list" { reads: true, pool: false, usage: ": the modes, what each allows, and which is this connection's." },
        Current = "current" { reads: true, pool: false, usage: ": this connection's mode." },
        Set = "set" ["activate"] { reads: false, pool: false, usage: "{name}: switch this connection to mode name; the tool list narrows (never past the server's own allowlist) and the client is told it changed." },
        Reset = "reset" { reads: false, pool: false, usage: ": back to full." },
        Help = "help" { reads: true, pool: false, usage: ": this text." },
    }
}

/// Arguments of the `mode` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ModeArgs {
    /// list | current | set | reset | help (also accepted: activate = set).
    action: ModeAction,
    /// set: the mode's name (list shows them).
    name: Option<String>,
}

action_args!(ModeArgs => ModeAction);

const DESCRIPTION: &str = "Switch what this connection may use among named modes: full (everything configured), review (only actions that read), and any the user defined. The server narrows the tool list to match and tells the client it changed. Call with {\"action\":\"help\"} for the fields.";

impl ActionTool for ModeTool {
    type Args = ModeArgs;
    const NAME: &'static str = "mode";
    const TITLE: &'static str = "Mode";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: false,
    };

    fn run_async<'a>(&'a self, args: ModeArgs, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move {
            let modes = &self.modes;
            match args.action {
                ModeAction::List => Ok(list(modes, ctx.session)),
                ModeAction::Current => {
                    let name = modes.current_name(ctx.session);
                    let mut result = CallToolResult::text(format!("mode: {name}\n"));
                    result.structured_content = Some(json!({"mode": name}));
                    Ok(result)
                }
                ModeAction::Set => {
                    let name = args.name.as_deref().ok_or("set: missing field 'name'")?;
                    let preset = modes.set(ctx.session, name)?;
                    Ok(CallToolResult::text(format!(
                        "mode: {} ({})\n",
                        preset.name, preset.description
                    )))
                }
                ModeAction::Reset => {
                    modes.set(ctx.session, "full")?;
                    Ok(CallToolResult::text("mode: full\n"))
                }
                ModeAction::Help => Ok(CallToolResult::text(crate::action::help::<Self>())),
            }
        })
    }
}

local_tool!(ModeTool);

fn list(modes: &Modes, session: u64) -> CallToolResult {
    let current = modes.current_name(session);
    let mut text = String::new();
    let mut rows = Vec::new();
    for preset in modes.presets() {
        let mark = if preset.name == current { "*" } else { " " };
        let allowed = match &preset.allowed {
            None => "everything".to_owned(),
            Some(entries) => entries.join(", "),
        };
        text.push_str(&format!(
            "{mark} {}: {}\n    allows: {allowed}\n",
            preset.name, preset.description
        ));
        rows.push(json!({
            "name": preset.name,
            "description": preset.description,
            "allowed": preset.allowed,
            "current": preset.name == current,
        }));
    }
    if let Some(error) = modes.file_error() {
        text.push_str(&format!(
            "(the presets file was not read: {error}; the built-in modes work)\n"
        ));
    }
    let mut result = CallToolResult::text(text);
    result.structured_content = Some(json!({ "modes": rows }));
    result
}
