//! The `plan` tool: the agent's current plan, per workspace, in the state
//! database, so it survives a compacted context and a restarted server.
//!
//! Shaped after Claude Code's todo list (`todos: [{content, status,
//! activeForm}]`) and Codex's `update_plan` (`explanation`, `plan: [{step,
//! status}]`); both spellings are accepted. At most one step is
//! `in_progress`.

use std::sync::Arc;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::action::NoArgs;
use crate::action::{ActionTool, actions, local_tool};
use crate::context::ToolContext;
use crate::store::{Store, WriteError, now, workspace_scope};
use crate::util::{About, Hints, ToolResult};

/// Most steps in one plan.
pub const MAX_STEPS: usize = 200;

/// The `plan` local tool. Cheap to clone; clones share the store.
#[derive(Debug, Clone)]
pub struct PlanTool {
    store: Arc<Store>,
}

impl PlanTool {
    /// The tool over `store` (shared with `memory` and `tasks`).
    pub fn new(store: Arc<Store>) -> PlanTool {
        PlanTool { store }
    }
}

actions! {
    /// Which `plan` action to run.
    pub(crate) enum PlanAction for PlanCall {
        Set(SetArgs) = "set" { reads: false, can: [State], pool: true, usage: "replace the whole plan; each step is {content, [status], [active_form], [note]} (steps may also be given as todos or plan; content as step; status pending, in_progress or completed; at most one in_progress)." },
        Update(UpdateArgs) = "update" { reads: false, can: [State], pool: true, usage: "change step `index` (1-based)." },
        Get(NoArgs) = "get" ["show"] { reads: true, can: [], pool: true, usage: "the plan." },
        Next(NoArgs) = "next" { reads: true, can: [], pool: true, usage: "the step in progress, else the first pending one." },
        Clear(NoArgs) = "clear" { reads: false, can: [State], pool: true, usage: "remove the plan." },
    }
}

/// A step's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StepStatus {
    /// Not started.
    #[default]
    Pending,
    /// Being worked on (at most one).
    InProgress,
    /// Done.
    Completed,
}

impl StepStatus {
    fn mark(self) -> &'static str {
        match self {
            StepStatus::Pending => "[ ]",
            StepStatus::InProgress => "[~]",
            StepStatus::Completed => "[x]",
        }
    }
}

/// One step of the plan.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Step {
    /// What to do.
    #[serde(alias = "step")]
    content: String,
    /// pending (default), in_progress or completed.
    #[serde(default)]
    status: StepStatus,
    /// The step in the present continuous ("Running the tests").
    #[serde(alias = "activeForm", skip_serializing_if = "Option::is_none")]
    active_form: Option<String>,
    /// A note on the step.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Arguments of `plan set`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetArgs {
    /// The steps, in order (also accepted as todos or plan).
    #[serde(alias = "todos", alias = "plan")]
    steps: Vec<Step>,
    /// Why the plan is what it is.
    explanation: Option<String>,
}

/// Arguments of `plan update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateArgs {
    /// The step's number, from 1.
    index: usize,
    /// The step's new status.
    status: Option<StepStatus>,
    /// A note on the step.
    note: Option<String>,
}

/// A stored plan.
#[derive(Debug, Default, Serialize)]
struct Plan {
    explanation: Option<String>,
    steps: Vec<Step>,
}

const DESCRIPTION: &str = "The agent's current plan for this workspace, kept in a local database so it survives a compacted context or a restarted server: set the whole list (Claude Code todos or Codex update_plan shape), update one step, get it, get the next step, clear it. At most one step in progress. Call with {\"action\":\"help\"} for the fields.";

impl ActionTool for PlanTool {
    type Args = PlanCall;
    const ABOUT: About = About::new("plan", "Plan", Hints::LOCAL_CHANGES, DESCRIPTION);

    fn run_blocking(&self, call: PlanCall, ctx: &ToolContext) -> ToolResult {
        let scope = workspace_scope(ctx);
        self.store.ready(&ctx.roots)?;
        match call {
            PlanCall::Set(args) => self.set(&scope, args),
            PlanCall::Update(args) => self.update(&scope, &args),
            PlanCall::Get(NoArgs {}) => Ok(shown(&self.load(&scope)?)),
            PlanCall::Next(NoArgs {}) => Ok(next_step(&self.load(&scope)?)),
            PlanCall::Clear(NoArgs {}) => {
                self.store.write(|tx| {
                    tx.execute("DELETE FROM plans WHERE scope = ?1", [&scope])?;
                    Ok(())
                })?;
                Ok(CallToolResult::text("plan cleared\n"))
            }
        }
    }
}

local_tool!(PlanTool);

impl PlanTool {
    /// Replaces the plan with `args.steps` (and its explanation).
    fn set(&self, scope: &str, args: SetArgs) -> ToolResult {
        let steps = args.steps;
        if steps.len() > MAX_STEPS {
            return Err(format!(
                "set: {} steps; a plan holds at most {MAX_STEPS}",
                steps.len()
            ));
        }
        check_one_in_progress(&steps)?;
        let plan = Plan {
            explanation: args.explanation,
            steps,
        };
        self.save(scope, &plan)?;
        Ok(shown(&plan))
    }

    /// Sets the status or note of step `args.index` (from 1), in one
    /// transaction with reading the plan.
    fn update(&self, scope: &str, args: &UpdateArgs) -> ToolResult {
        let index = args.index;
        if args.status.is_none() && args.note.is_none() {
            return Err("update: give 'status' or 'note'".to_owned());
        }
        let plan = self.store.write(|tx| {
            let mut plan = load(tx, scope)?;
            let count = plan.steps.len();
            let step = index
                .checked_sub(1)
                .and_then(|i| plan.steps.get_mut(i))
                .ok_or_else(|| {
                    WriteError::Refused(format!("update: no step {index} (the plan has {count})"))
                })?;
            if let Some(status) = args.status {
                step.status = status;
            }
            if let Some(note) = &args.note {
                step.note = Some(note.clone());
            }
            check_one_in_progress(&plan.steps).map_err(WriteError::Refused)?;
            store_plan(tx, scope, &plan)?;
            Ok(plan)
        })?;
        Ok(shown(&plan))
    }

    fn save(&self, scope: &str, plan: &Plan) -> Result<(), String> {
        self.store.write(|tx| Ok(store_plan(tx, scope, plan)?))
    }

    fn load(&self, scope: &str) -> Result<Plan, String> {
        self.store.with(|conn| load(conn, scope))
    }
}

fn check_one_in_progress(steps: &[Step]) -> Result<(), String> {
    let busy = steps
        .iter()
        .filter(|s| s.status == StepStatus::InProgress)
        .count();
    if busy > 1 {
        return Err(format!("{busy} steps are in_progress; at most one may be"));
    }
    Ok(())
}

fn load(conn: &rusqlite::Connection, scope: &str) -> rusqlite::Result<Plan> {
    use rusqlite::OptionalExtension as _;
    let row: Option<(Option<String>, String)> = conn
        .query_row(
            "SELECT explanation, steps FROM plans WHERE scope = ?1",
            [scope],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((explanation, steps)) = row else {
        return Ok(Plan::default());
    };
    let steps = serde_json::from_str(&steps).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(Plan { explanation, steps })
}

fn store_plan(tx: &rusqlite::Transaction<'_>, scope: &str, plan: &Plan) -> rusqlite::Result<()> {
    let steps = serde_json::to_string(&plan.steps)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    tx.execute(
        "INSERT INTO plans (scope, explanation, steps, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (scope) DO UPDATE SET explanation = ?2, steps = ?3, updated_at = ?4",
        (scope, &plan.explanation, steps, now()),
    )?;
    Ok(())
}

/// The step in progress, else the first pending one, as `n. [~] text`
/// with its mark; a note when there is none.
fn next_step(plan: &Plan) -> CallToolResult {
    let next = plan
        .steps
        .iter()
        .enumerate()
        .find(|(_, s)| s.status == StepStatus::InProgress)
        .or_else(|| {
            plan.steps
                .iter()
                .enumerate()
                .find(|(_, s)| s.status == StepStatus::Pending)
        });
    match next {
        Some((i, step)) => {
            let mut result = CallToolResult::text(format!(
                "{}. {} {}\n",
                i + 1,
                step.status.mark(),
                step.content
            ));
            result.structured_content = Some(json!({"index": i + 1, "step": step}));
            result
        }
        None if plan.steps.is_empty() => CallToolResult::text("[no plan]\n"),
        None => CallToolResult::text("[every step is completed]\n"),
    }
}

fn shown(plan: &Plan) -> CallToolResult {
    if plan.steps.is_empty() {
        let mut result = CallToolResult::text("[no plan]\n");
        result.structured_content = Some(json!({"steps": []}));
        return result;
    }
    let mut text = String::new();
    if let Some(explanation) = &plan.explanation {
        text.push_str(explanation);
        text.push('\n');
    }
    for (i, step) in plan.steps.iter().enumerate() {
        text.push_str(&format!(
            "{}. {} {}",
            i + 1,
            step.status.mark(),
            step.content
        ));
        if let Some(note) = &step.note {
            text.push_str(&format!(" ({note})"));
        }
        text.push('\n');
    }
    let done = plan
        .steps
        .iter()
        .filter(|s| s.status == StepStatus::Completed)
        .count();
    text.push_str(&format!("[{done} of {} completed]\n", plan.steps.len()));
    let mut result = CallToolResult::text(text);
    result.structured_content = Some(json!({
        "explanation": plan.explanation,
        "steps": plan.steps,
        "completed": done,
    }));
    result
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::PlanTool;
    use crate::util::{call_for_test, help_fields, store_for_test};

    #[tokio::test]
    async fn set_needs_steps_and_update_an_index() {
        let (_dir, root, store) = store_for_test();
        let plan = PlanTool::new(store);
        let call = |args| call_for_test(&plan, &root, args);
        let (err, text) =
            call(json!({"action": "set", "plan": [{"step": "a"}, {"step": "b"}]})).await;
        assert!(!err, "{text}");
        assert_eq!(
            call(json!({"action": "update", "index": 1})).await,
            (true, "update: give 'status' or 'note'".to_owned())
        );
        let (_, text) = call(json!({"action": "update", "index": 1, "status": "completed"})).await;
        assert_eq!(text, "1. [x] a\n2. [ ] b\n[1 of 2 completed]\n");
        let (err, text) = call(json!({"action": "next", "index": 1})).await;
        assert!(
            err && text.starts_with("next: unknown field `index`"),
            "{text}"
        );
        assert_eq!(
            call(json!({"action": "next"})).await,
            (false, "2. [ ] b\n".to_owned())
        );
        let (_, text) = call(json!({"action": "help"})).await;
        assert_eq!(help_fields(&text, "set"), ["steps", "[explanation]"]);
        let mut fields = help_fields(&text, "update");
        assert_eq!(fields.remove(0), "index");
        fields.sort();
        assert_eq!(fields, ["[note]", "[status]"]);
    }
}
