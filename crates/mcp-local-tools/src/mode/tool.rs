//! The `mode` local tool over [`Modes`].

use std::sync::Arc;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::Modes;
use crate::action::NoArgs;
use crate::action::{ActionFuture, ActionTool, actions, local_tool};
use crate::context::ToolContext;
use crate::util::{About, Hints};

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
    pub(crate) enum ModeAction for ModeCall {
        List(NoArgs) = "list" { reads: true, can: [], pool: false, usage: "the modes, what each allows, and which is this connection's." },
        Current(NoArgs) = "current" { reads: true, can: [], pool: false, usage: "this connection's mode." },
        Set(SetArgs) = "set" ["activate"] { reads: false, can: [State], pool: false, usage: "switch this connection to mode name; the tool list narrows (never past the server's own allowlist) and the client is told it changed." },
        Reset(NoArgs) = "reset" { reads: false, can: [State], pool: false, usage: "back to full." },
    }
}

/// Arguments of `mode set`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetArgs {
    /// The mode's name (list shows them).
    name: String,
}

const DESCRIPTION: &str = "Switch what this connection may use among named modes: full (everything configured), review (only actions that read), and any the user defined. The server narrows the tool list to match and tells the client it changed. Call with {\"action\":\"help\"} for the fields.";

impl ActionTool for ModeTool {
    type Args = ModeCall;
    const ABOUT: About = About::new(
        super::TOOL_NAME,
        "Mode",
        Hints::SESSION_SETTING,
        DESCRIPTION,
    );

    fn run_async<'a>(&'a self, call: ModeCall, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move {
            let modes = &self.modes;
            match call {
                ModeCall::List(NoArgs {}) => Ok(list(modes, ctx.session)),
                ModeCall::Current(NoArgs {}) => {
                    let name = modes.current_name(ctx.session);
                    let text = match modes.floor() {
                        Some(floor) if floor == name => {
                            format!("mode: {name}{}\n", floor_note(floor))
                        }
                        _ => format!("mode: {name}\n"),
                    };
                    let mut result = CallToolResult::text(text);
                    result.structured_content = Some(match modes.floor() {
                        Some(floor) => json!({"mode": name, "floor": floor}),
                        None => json!({"mode": name}),
                    });
                    Ok(result)
                }
                ModeCall::Set(args) => {
                    let preset = modes.set(ctx.session, &args.name)?;
                    Ok(CallToolResult::text(format!(
                        "mode: {} ({}){}\n",
                        preset.name,
                        preset.description,
                        modes.floor().map(within_floor).unwrap_or_default()
                    )))
                }
                ModeCall::Reset(NoArgs {}) => {
                    modes.set(ctx.session, "full")?;
                    Ok(CallToolResult::text(match modes.floor() {
                        Some(floor) => format!("mode: {floor}{}\n", floor_note(floor)),
                        None => "mode: full\n".to_owned(),
                    }))
                }
            }
        })
    }
}

local_tool!(ModeTool);

/// What `mode current` adds for the host's floor.
fn floor_note(floor: &str) -> String {
    format!(
        " (the host binds every session to {floor}; `mode set` narrows within it, never past it)"
    )
}

/// What `mode set` adds under the host's floor.
fn within_floor(floor: &str) -> String {
    format!("; within the host's mode {floor}, which every session keeps")
}

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
    if let Some(floor) = modes.floor() {
        text.push_str(&format!(
            "(the host binds every session to {floor}; a mode narrows within it, never past it)\n"
        ));
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::ModeTool;
    use crate::mode::Modes;
    use crate::util::call_for_test;

    #[tokio::test]
    async fn set_needs_a_name_and_the_others_take_no_fields() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mode = ModeTool::new(Arc::new(Modes::builtin(&[])));
        let call = |args| call_for_test(&mode, dir.path(), args);
        assert_eq!(
            call(json!({"action": "set"})).await,
            (true, "set: missing field 'name'".to_owned())
        );
        let (err, text) = call(json!({"action": "activate", "name": "review"})).await;
        assert!(!err && text.starts_with("mode: review ("), "{text}");
        assert_eq!(
            call(json!({"action": "current"})).await,
            (false, "mode: review\n".to_owned())
        );
        let (err, text) = call(json!({"action": "reset", "name": "full"})).await;
        assert!(
            err && text.starts_with("reset: unknown field `name`"),
            "{text}"
        );
        assert_eq!(
            call(json!({"action": "reset"})).await,
            (false, "mode: full\n".to_owned())
        );
        let (_, text) = call(json!({"action": "help"})).await;
        assert!(
            text.contains("\nset {name}: switch this connection"),
            "{text}"
        );
        assert!(text.contains("\nreset: back to full."), "{text}");
    }
}
