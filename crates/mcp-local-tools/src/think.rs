//! The `think` tool: a step of reasoning, recorded, with the running
//! summary answered (the reference sequential-thinking server's fields).
//!
//! `{"thought": "…"}` alone works (`action` defaults to `think`, as Hanzo's
//! servers are called). Numbers and booleans sent as strings are accepted;
//! camelCase field names too. The thoughts are kept per connection
//! ([`crate::ToolContext::session`]), in memory, at most [`MAX_THOUGHTS`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::json;

use crate::action::NoArgs;
use crate::action::{ActionFuture, ActionTool, actions, local_tool};
use crate::context::ToolContext;
use crate::util::{About, Hints};

/// Most thoughts kept per connection; the oldest go first.
pub const MAX_THOUGHTS: usize = 500;
/// Largest thought number accepted.
pub const MAX_THOUGHT_NUMBER: u64 = 1_000_000;
/// Largest thought, in bytes.
pub const MAX_THOUGHT_BYTES: usize = 16 * 1024;

/// The `think` local tool. Cheap to clone; clones share the record.
#[derive(Debug, Clone, Default)]
pub struct ThinkTool {
    sessions: Arc<Mutex<HashMap<u64, Vec<Thought>>>>,
}

impl ThinkTool {
    /// The tool, with nothing recorded.
    pub fn new() -> ThinkTool {
        ThinkTool::default()
    }
}

// `think` counts as reading: it changes nothing outside this connection's
// own list of thoughts (the tool is read-only by its annotations too), so
// the `review` mode keeps it. `clear` forgets the list and does not.
actions! {
    /// Which `think` action to run.
    pub(crate) enum ThinkAction for ThinkCall {
        Think(ThinkArgs) = "think" { reads: true, can: [], pool: false, usage: "record a step of reasoning (the default action); answers the running summary." },
        History(NoArgs) = "history" { reads: true, can: [], pool: false, usage: "every thought of this connection, in order." },
        Clear(NoArgs) = "clear" { reads: false, can: [], pool: false, usage: "forget this connection's thoughts." },
    }
}

/// A whole number, given as a number or as a string of digits.
fn lenient_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(u64),
        Text(String),
    }
    match Option::<Either>::deserialize(d)? {
        None => Ok(None),
        Some(Either::Number(n)) => Ok(Some(n)),
        Some(Either::Text(t)) => t
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("'{t}' is not a whole number"))),
    }
}

/// A boolean, given as `true`/`false` or as the strings "true"/"false".
fn lenient_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Bool(bool),
        Text(String),
    }
    match Option::<Either>::deserialize(d)? {
        None => Ok(None),
        Some(Either::Bool(b)) => Ok(Some(b)),
        Some(Either::Text(t)) => match t.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(serde::de::Error::custom(format!(
                "'{t}' is not true or false"
            ))),
        },
    }
}

/// Arguments of `think think`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ThinkArgs {
    /// This step of reasoning.
    thought: String,
    /// Its number, from 1 (default: the next).
    #[serde(default, alias = "thoughtNumber", deserialize_with = "lenient_number")]
    thought_number: Option<u64>,
    /// How many steps are expected in all.
    #[serde(default, alias = "totalThoughts", deserialize_with = "lenient_number")]
    total_thoughts: Option<u64>,
    /// Whether another step follows (default true).
    #[serde(
        default,
        alias = "nextThoughtNeeded",
        deserialize_with = "lenient_bool"
    )]
    next_thought_needed: Option<bool>,
    /// This step revises an earlier one.
    #[serde(default, alias = "isRevision", deserialize_with = "lenient_bool")]
    is_revision: Option<bool>,
    /// The number of the step revised.
    #[serde(default, alias = "revisesThought", deserialize_with = "lenient_number")]
    revises_thought: Option<u64>,
    /// The step this branch starts from.
    #[serde(
        default,
        alias = "branchFromThought",
        deserialize_with = "lenient_number"
    )]
    branch_from_thought: Option<u64>,
    /// The branch's name.
    #[serde(alias = "branchId")]
    branch_id: Option<String>,
    /// More steps are needed than total_thoughts said.
    #[serde(
        default,
        alias = "needsMoreThoughts",
        deserialize_with = "lenient_bool"
    )]
    needs_more_thoughts: Option<bool>,
}

/// One recorded thought.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Thought {
    thought: String,
    thought_number: u64,
    total_thoughts: u64,
    next_thought_needed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    revises_thought: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    branch_from_thought: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    branch_id: Option<String>,
}

const DESCRIPTION: &str = "Think step by step: record one step of reasoning at a time (revise or branch earlier steps) and get the running summary back. Call with just {\"thought\": \"...\"}; {\"action\":\"help\"} lists the optional fields. Nothing outside this connection changes.";

impl ActionTool for ThinkTool {
    type Args = ThinkCall;
    const ABOUT: About = About::new("think", "Think", Hints::SESSION_RECORD, DESCRIPTION);
    const DEFAULT_ACTION: Option<&'static str> = Some("think");

    fn run_async<'a>(&'a self, call: ThinkCall, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move {
            // A poisoned lock still holds whole thoughts (a push is the
            // only write); the record stays usable.
            let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            let thoughts = sessions.entry(ctx.session).or_default();
            match call {
                ThinkCall::Think(args) => record(thoughts, args),
                ThinkCall::History(NoArgs {}) => Ok(summary(thoughts, true)),
                ThinkCall::Clear(NoArgs {}) => {
                    let n = thoughts.len();
                    thoughts.clear();
                    Ok(CallToolResult::text(format!("cleared {n} thoughts\n")))
                }
            }
        })
    }
}

local_tool!(ThinkTool);

fn record(thoughts: &mut Vec<Thought>, args: ThinkArgs) -> Result<CallToolResult, String> {
    let thought = args.thought;
    if thought.trim().is_empty() {
        return Err("think: 'thought' is empty".to_owned());
    }
    if thought.len() > MAX_THOUGHT_BYTES {
        return Err(format!(
            "think: the thought is {} bytes; at most {MAX_THOUGHT_BYTES}",
            thought.len()
        ));
    }
    let number = args.thought_number.unwrap_or(
        thoughts
            .last()
            .map_or(1, |t| t.thought_number.saturating_add(1)),
    );
    for (field, value) in [
        ("thought_number", Some(number)),
        ("total_thoughts", args.total_thoughts),
        ("revises_thought", args.revises_thought),
        ("branch_from_thought", args.branch_from_thought),
    ] {
        if value.is_some_and(|v| v == 0 || v > MAX_THOUGHT_NUMBER) {
            return Err(format!("think: {field} must be 1..={MAX_THOUGHT_NUMBER}"));
        }
    }
    // A step numbered past the expected total widens the total.
    let total = args.total_thoughts.unwrap_or(number).max(number);
    let revises = if args.is_revision == Some(true) {
        Some(
            args.revises_thought
                .ok_or("think: is_revision needs revises_thought")?,
        )
    } else {
        args.revises_thought
    };
    if thoughts.len() >= MAX_THOUGHTS {
        thoughts.remove(0);
    }
    thoughts.push(Thought {
        thought,
        thought_number: number,
        total_thoughts: total,
        next_thought_needed: args.next_thought_needed.unwrap_or(true)
            || args.needs_more_thoughts == Some(true),
        revises_thought: revises,
        branch_from_thought: args.branch_from_thought,
        branch_id: args.branch_id,
    });
    Ok(summary(thoughts, false))
}

fn summary(thoughts: &[Thought], all: bool) -> CallToolResult {
    let mut branches: Vec<&str> = thoughts
        .iter()
        .filter_map(|t| t.branch_id.as_deref())
        .collect();
    branches.sort_unstable();
    branches.dedup();
    let last = thoughts.last();
    let mut text = String::new();
    if all {
        for t in thoughts {
            text.push_str(&format!(
                "{}/{}: {}\n",
                t.thought_number, t.total_thoughts, t.thought
            ));
        }
    }
    text.push_str(&match last {
        None => "no thoughts yet\n".to_owned(),
        Some(t) => format!(
            "thought {} of {}; {} recorded; {} revisions; branches: {}; next thought {}\n",
            t.thought_number,
            t.total_thoughts,
            thoughts.len(),
            thoughts
                .iter()
                .filter(|t| t.revises_thought.is_some())
                .count(),
            if branches.is_empty() {
                "none".to_owned()
            } else {
                branches.join(", ")
            },
            if t.next_thought_needed {
                "needed"
            } else {
                "not needed"
            }
        ),
    });
    let mut result = CallToolResult::text(text);
    result.structured_content = Some(json!({
        "thoughtNumber": last.map(|t| t.thought_number),
        "totalThoughts": last.map(|t| t.total_thoughts),
        "nextThoughtNeeded": last.map(|t| t.next_thought_needed),
        "branches": branches,
        "thoughtHistoryLength": thoughts.len(),
        "thoughts": if all { serde_json::to_value(thoughts).unwrap_or_default() } else { json!(null) },
    }));
    result
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ThinkTool;
    use crate::util::{call_for_test, help_fields};

    #[tokio::test]
    async fn each_action_takes_its_own_fields() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let think = ThinkTool::new();
        let call = |args| call_for_test(&think, dir.path(), args);
        assert_eq!(
            call(json!({})).await,
            (true, "think: missing field 'thought'".to_owned())
        );
        assert_eq!(
            call(json!({"thought": "  "})).await,
            (true, "think: 'thought' is empty".to_owned())
        );
        let (err, text) = call(json!({"thought": "a", "thoughtNumber": "two"})).await;
        assert!(
            err && text.contains("'two' is not a whole number"),
            "{text}"
        );
        let (err, text) = call(json!({"thought": "a", "is_revision": "true"})).await;
        assert_eq!(
            (err, text.as_str()),
            (true, "think: is_revision needs revises_thought")
        );
        let (err, text) = call(
            json!({"thought": "a", "thoughtNumber": "2", "totalThoughts": 3, "nextThoughtNeeded": "false"}),
        )
        .await;
        assert!(!err, "{text}");
        assert_eq!(
            text,
            "thought 2 of 3; 1 recorded; 0 revisions; branches: none; next thought not needed\n"
        );
        // `history` and `clear` take no fields.
        let (err, text) = call(json!({"action": "history", "thought": "b"})).await;
        assert!(
            err && text.starts_with("history: unknown field `thought`"),
            "{text}"
        );
        let (_, text) = call(json!({"action": "history"})).await;
        assert!(text.starts_with("2/3: a\n"), "{text}");
        let (_, text) = call(json!({"action": "help"})).await;
        assert!(
            text.contains("\nhistory: every thought of this connection, in order. [can: none]\n"),
            "{text}"
        );
        let mut fields = help_fields(&text, "think");
        assert_eq!(fields.remove(0), "thought");
        fields.sort();
        assert_eq!(
            fields,
            [
                "[branch_from_thought]",
                "[branch_id]",
                "[is_revision]",
                "[needs_more_thoughts]",
                "[next_thought_needed]",
                "[revises_thought]",
                "[thought_number]",
                "[total_thoughts]"
            ]
        );
        assert!(help_fields(&text, "history").is_empty());
        assert_eq!(
            call(json!({"action": "clear"})).await,
            (false, "cleared 1 thoughts\n".to_owned())
        );
    }
}
