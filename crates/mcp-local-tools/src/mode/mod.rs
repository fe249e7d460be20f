//! The `mode` tool: named presets of what the agent may use, per connection.
//!
//! A preset is a list of allowlist entries in the `allowedTools` syntax
//! (`"fs"` for a whole tool, `"fs:read"` for one action). Built in:
//!
//! - `full`: everything the server is configured with;
//! - `review`: the actions that only read, from the capability table
//!   ([`crate::Capability`]): an action is in when its table row says it
//!   changes nothing, it has none of the capabilities write files, run
//!   programs or state, and its tool runs no programs (so no `exec` at
//!   all: its reading actions show what programs printed). So: no `fs`
//!   write, edit or remove, no `git` writes, no HTTP request other than
//!   `get` and `head`, no state changes; reading files and fetching pages
//!   stay. Plus `mode` itself.
//!
//! More come from a JSON file (`{"<name>": ["fs:read", "code"]}` or
//! `{"<name>": {"description": "...", "allowed": [...]}}`), named by
//! `HANZO_MCP_MODES` or given to [`Modes::with_file`].
//!
//! The presets and choices ([`Modes`]) are always compiled; the tool itself
//! (`ModeTool`) is behind the `mode` feature. Without it no connection can
//! choose a mode, so a server that applies [`Modes`] lists every tool.
//!
//! This tool only records the connection's choice ([`Modes::allowed_for`])
//! and announces it ([`Modes::subscribe`]); the server applies it through
//! its gating layer, after and never wider than its own allowlist, and
//! sends `notifications/tools/list_changed`. `mode` stays callable in every
//! preset.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

use serde::Deserialize;

#[cfg(feature = "mode")]
mod tool;
#[cfg(feature = "mode")]
pub use tool::ModeTool;

/// The `mode` tool's name: kept in every preset, and a call to it changes
/// what the session's later calls may use.
pub const TOOL_NAME: &str = "mode";

/// How many changes a slow receiver of [`Modes::subscribe`] may miss
/// before it is told it lagged.
const CHANGES_BACKLOG: usize = 256;

/// The names of the built-in presets, which a file cannot reuse.
const BUILT_IN: [&str; 2] = ["full", "review"];

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

/// How deferred presets are made, at their first use
/// ([`Modes::builtin_deferred`]).
type MakePresets = Box<dyn FnOnce() -> Vec<Preset> + Send>;

/// The presets, and each connection's choice. Shared by the `mode` tool and
/// the server that applies it.
#[derive(Debug)]
pub struct Modes {
    presets: std::sync::OnceLock<Vec<Preset>>,
    /// What makes `presets` while they are deferred and not yet needed.
    make: Deferred,
    /// A file of presets that could not be read, and why.
    file_error: Option<String>,
    current: Mutex<HashMap<u64, String>>,
    /// Each change, as the number of the connection whose mode changed.
    changed: tokio::sync::broadcast::Sender<u64>,
    /// The tools' action aliases, `(tool, alias, action)`.
    aliases: Vec<(&'static str, &'static str, &'static str)>,
    /// The preset the host binds every connection to (`--mode`), which a
    /// connection narrows within but never leaves.
    floor: std::sync::OnceLock<String>,
}

impl Modes {
    /// The built-in presets `full` and `review`, `review` made of the
    /// actions in `tools` that only read (name and `(action, only_reads)`
    /// pairs, as [`crate::LocalTool::actions`] gives them from the
    /// capability table).
    pub fn builtin(tools: &[(&str, Vec<(&'static str, bool)>)]) -> Modes {
        Modes::new(std::sync::OnceLock::from(builtin_presets(tools)), None)
    }

    /// [`Modes::builtin`] of the list `tools` returns, made when a preset
    /// is first needed (a `mode` call, a connection that chose one, or a
    /// host that reads them, as `--mode` does at start), not before: a
    /// server that never needs one never builds the `review` list (a
    /// string per reading action, some 40,000 instructions). If `tools`
    /// panics, the panic reaches the first caller that needed the presets,
    /// and the presets stay empty.
    pub fn builtin_deferred<F>(tools: F) -> Modes
    where
        F: FnOnce() -> Vec<(&'static str, Vec<(&'static str, bool)>)> + Send + 'static,
    {
        let make: MakePresets = Box::new(move || builtin_presets(&tools()));
        Modes::new(std::sync::OnceLock::new(), Some(make))
    }

    fn new(presets: std::sync::OnceLock<Vec<Preset>>, make: Option<MakePresets>) -> Modes {
        Modes {
            presets,
            make: Deferred(Mutex::new(make)),
            file_error: None,
            current: Mutex::new(HashMap::new()),
            changed: tokio::sync::broadcast::channel(CHANGES_BACKLOG).0,
            aliases: Vec::new(),
            floor: std::sync::OnceLock::new(),
        }
    }

    /// These modes with the tools' action aliases, `(tool, alias, action)`
    /// as [`crate::Toolbox::action_aliases`] gives them: a preset entry or
    /// a call that names an action by an alias means that action.
    pub fn with_aliases(
        mut self,
        aliases: Vec<(&'static str, &'static str, &'static str)>,
    ) -> Modes {
        self.aliases = aliases;
        self
    }

    /// The action aliases the server applies with the presets
    /// ([`Modes::with_aliases`]).
    pub fn aliases(&self) -> &[(&'static str, &'static str, &'static str)] {
        &self.aliases
    }

    /// Adds the presets of the JSON file at `path`. The built-in names
    /// (`full`, `review`) cannot be reused: `mode reset` must always lead
    /// back to everything, and `review` must keep meaning "reads only". A
    /// file that cannot be read or parsed, or that reuses a built-in name,
    /// is kept as an error ([`Modes::file_error`]) that `list` and a `set`
    /// of an unknown name report; the built-in presets still work.
    pub fn with_file(mut self, path: &Path) -> Modes {
        match read_presets(path) {
            // Names are unique in the file and never a built-in one.
            Ok(presets) => match self.presets.get_mut() {
                Some(made) => made.extend(presets),
                None => {
                    let make = self.make.take();
                    let then: MakePresets = Box::new(move || {
                        let mut made = make.map_or_else(Vec::new, |make| make());
                        made.extend(presets);
                        made
                    });
                    self.make = Deferred(Mutex::new(Some(then)));
                }
            },
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
        self.presets
            .get_or_init(|| self.make.take().map_or_else(Vec::new, |make| make()))
    }

    /// The allowlist entries of connection `session`'s mode, with `mode`
    /// itself; `None` when its mode allows everything.
    pub fn allowed_for(&self, session: u64) -> Option<Vec<String>> {
        // The floor is the host's layer, applied by the host. The name is
        // read under the lock, not copied out (this runs for every call);
        // the preset's list is copied after the lock is let go.
        let preset = {
            let current = self.current.lock().ok();
            // No choice is `full`, which allows everything: the presets
            // are not made for it. A recorded choice went through `set`,
            // which made them, so nothing is made under this lock.
            let name = current.as_ref().and_then(|c| c.get(&session))?;
            self.presets().iter().find(|p| &p.name == name)
        }?;
        let mut allowed = preset.allowed.clone()?;
        if !allowed.iter().any(|e| e == "mode") {
            allowed.push(TOOL_NAME.to_owned());
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

    /// Binds every connection to preset `name` (the host's `--mode`):
    /// what [`Modes::current_name`] says until a connection narrows
    /// further, and what `mode list`, `current` and `set` name. Only the
    /// first call counts.
    pub fn set_floor(&self, name: &str) {
        let _ = self.floor.set(name.to_owned());
    }

    /// The preset every connection is bound to, if the host set one.
    pub fn floor(&self) -> Option<&str> {
        self.floor.get().map(String::as_str)
    }

    /// The name of connection `session`'s own mode (`full` until it sets
    /// one), not counting the host's floor.
    fn own_name(&self, session: u64) -> String {
        self.current
            .lock()
            .ok()
            .and_then(|c| c.get(&session).cloned())
            .unwrap_or_else(|| "full".to_owned())
    }

    /// The name of the mode connection `session` works in: its own, when
    /// it set one other than `full`; else the host's floor, if any; else
    /// `full`.
    pub fn current_name(&self, session: u64) -> String {
        let own = self.own_name(session);
        match self.floor() {
            Some(floor) if own == "full" => floor.to_owned(),
            _ => own,
        }
    }

    #[cfg_attr(not(feature = "mode"), allow(dead_code))]
    pub(super) fn set(&self, session: u64, name: &str) -> Result<&Preset, String> {
        let preset = self
            .presets()
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.presets().iter().map(|p| p.name.as_str()).collect();
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

/// The built-in presets `full` and `review` ([`Modes::builtin`]).
fn builtin_presets(tools: &[(&str, Vec<(&'static str, bool)>)]) -> Vec<Preset> {
    let mut review = vec![TOOL_NAME.to_owned()];
    for (tool, actions) in tools {
        if *tool == "mode" {
            continue;
        }
        review.extend(
            actions
                .iter()
                .filter(|(_, reads)| *reads)
                .map(|(action, _)| {
                    // Built by hand: `format!` costs several times as much.
                    let mut entry = String::with_capacity(tool.len() + 1 + action.len());
                    entry.push_str(tool);
                    entry.push(':');
                    entry.push_str(action);
                    entry
                }),
        );
    }
    vec![
        Preset {
            name: "full".to_owned(),
            description: "every tool the server is configured with".to_owned(),
            allowed: None,
        },
        Preset {
            name: "review".to_owned(),
            description: "only actions that read: no file changes, no commands, no git writes, \
                          no state changes"
                .to_owned(),
            allowed: Some(review),
        },
    ]
}

/// The maker of deferred presets; taken once, by the first use.
struct Deferred(Mutex<Option<MakePresets>>);

impl Deferred {
    fn take(&self) -> Option<MakePresets> {
        self.0.lock().ok().and_then(|mut make| make.take())
    }
}

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pending = self.0.lock().is_ok_and(|make| make.is_some());
        f.write_str(if pending { "pending" } else { "made" })
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
    const SHAPE: &str = r#"expected {"<name>": ["tool", "tool:action", ...]} or {"<name>": {"description": "...", "allowed": [...]}}"#;
    let presets: BTreeMap<String, serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| format!("modes file {}: {e} ({SHAPE})", path.display()))?;
    presets
        .into_iter()
        .map(|(name, preset)| {
            if BUILT_IN.contains(&name.as_str()) {
                return Err(format!(
                    "modes file {}: '{name}' is a built-in mode; give the preset another name",
                    path.display()
                ));
            }
            let preset = FilePreset::deserialize(&preset).map_err(|_| {
                format!(
                    "modes file {}: mode '{}' is neither a list of entries nor an object with \
                     \"allowed\" ({SHAPE})",
                    path.display(),
                    name.escape_debug()
                )
            })?;
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::Modes;

    fn tools() -> Vec<(&'static str, Vec<(&'static str, bool)>)> {
        vec![
            ("fs", vec![("read", true), ("write", false)]),
            ("git", vec![("status", true), ("commit", false)]),
            ("mode", vec![("set", false)]),
        ]
    }

    #[test]
    fn deferred_presets_are_made_once_at_first_use_as_the_eager_ones_are() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let file = dir.path().join("modes.json");
        std::fs::write(&file, r#"{"triage": ["fs:read"]}"#).expect("write the modes file");
        let made = Arc::new(AtomicUsize::new(0));
        let counter = made.clone();
        let deferred = Modes::builtin_deferred(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            tools()
        })
        .with_file(&file);
        assert_eq!(made.load(Ordering::SeqCst), 0, "made before any use");
        assert!(
            format!("{deferred:?}").contains("make: pending"),
            "{deferred:?}"
        );
        // A connection that never chose a mode needs no preset.
        assert_eq!(deferred.allowed_for(3), None);
        assert_eq!(
            made.load(Ordering::SeqCst),
            0,
            "made for a connection in `full`"
        );

        let eager = Modes::builtin(&tools()).with_file(&file);
        assert_eq!(deferred.presets(), eager.presets());
        let names: Vec<&str> = deferred.presets().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["full", "review", "triage"]);
        assert_eq!(
            deferred.presets()[1].allowed.as_deref(),
            Some(
                &[
                    "mode".to_owned(),
                    "fs:read".to_owned(),
                    "git:status".to_owned()
                ][..]
            )
        );
        deferred.set(3, "triage").expect("a preset of the file");
        assert_eq!(
            deferred.allowed_for(3),
            Some(vec!["fs:read".to_owned(), "mode".to_owned()])
        );
        assert_eq!(made.load(Ordering::SeqCst), 1, "made more than once");
        assert!(
            format!("{deferred:?}").contains("make: made"),
            "{deferred:?}"
        );
    }
}
