//! The tools of `tools/list` (HIP-0300 §1.3): `describe`, and one tool per
//! subsystem taking `{op, input}`.

use mcp_proto::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::{DESCRIBE, OpEntry};
use crate::naming::{singular, words};

/// The members of `v`, an object literal (empty for anything else).
fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// `describe`, listed first: `{op}` to an op's input schema.
pub(crate) fn describe_tool() -> Tool {
    Tool {
        name: DESCRIBE.into(),
        description: Some(
            "Returns the input schema of one op of the tools listed here: call it with \
             {\"op\": \"<name from a tool's op enum>\"}. The schema merges the op's path, query \
             and header parameters and its request body into one object; pass that object as \
             `input` to the op's tool."
                .into(),
        ),
        input_schema: object(json!({
            "type": "object",
            "properties": {"op": {"type": "string", "description": "An op name from any tool's op enum."}},
            "required": ["op"],
            "additionalProperties": false
        })),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }),
        ..Tool::default()
    }
}

/// The most bytes a subsystem tool's description takes for each op it
/// offers, beyond [`DESCRIPTION_BASE`]: op names and their one-line
/// summaries share it, summaries cut (at a word, marked `…`) or left out to
/// fit. Chosen so that `tools/list` of each public description in the
/// crate's tests is no larger than when descriptions named the ops alone.
const DESCRIPTION_PER_OP: usize = 36;
/// The bytes of a subsystem tool's description allowed whatever its ops:
/// the lead (its tag's first sentence) and `Ops`.
const DESCRIPTION_BASE: usize = 160;
/// The longest summary shown, in characters; shorter caps are tried in
/// turn until the description fits its budget, and at the last but one as
/// many summaries as fit are shown.
const SUMMARY_CAPS: [usize; 7] = [72, 56, 44, 36, 28, 20, 0];

/// The tool of subsystem `name`: its ops as the enum of `op`, read-only
/// when every op is a GET or HEAD. The description lists every op with its
/// one-line summary (HIP-0300 §1.3), a summary left out where it only
/// repeats the op name, within the budget above.
pub(crate) fn subsystem_tool(name: &str, description: Option<String>, entries: &[OpEntry]) -> Tool {
    let ops: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let lead = description
        .filter(|d| !d.is_empty())
        .map_or_else(String::new, |d| format!("{d} "));
    let budget = DESCRIPTION_BASE + DESCRIPTION_PER_OP * entries.len();
    let lines: Vec<(&str, Option<&str>)> = entries
        .iter()
        .map(|e| {
            let line = e.line.as_deref().filter(|l| !repeats_name(l, &e.name));
            (e.name.as_str(), line)
        })
        .collect();
    // Every summary at `cap` characters, else as many as fit at the
    // smallest cap, in op order.
    let compose = |cap: usize, room: usize| {
        let mut out = format!("{lead}Ops (describe one for its input):");
        let mut rest: usize = lines.iter().map(|(op, _)| op.len() + 1).sum();
        for (op, line) in &lines {
            out.push('\n');
            out.push_str(op);
            rest -= op.len() + 1;
            if let Some(l) = line.filter(|_| cap > 0) {
                let l = cut(l, cap);
                if out.len() + 2 + l.len() + rest <= room {
                    out.push_str(": ");
                    out.push_str(&l);
                }
            }
        }
        out
    };
    let description = SUMMARY_CAPS
        .iter()
        .map(|&cap| compose(cap, usize::MAX))
        .find(|d| d.len() <= budget)
        .unwrap_or_else(|| compose(SUMMARY_CAPS[SUMMARY_CAPS.len() - 2], budget));
    let read_only = entries.iter().all(|e| matches!(e.method, "get" | "head"));
    Tool {
        name: name.to_owned(),
        description: Some(description),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ops},
                "input": {"type": "object", "description": "The op's input (describe gives its schema)."}
            },
            "required": ["op"],
            "additionalProperties": false
        })),
        annotations: read_only.then(|| ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }),
        ..Tool::default()
    }
}

/// Whether a summary says no more than the op name: every word of it,
/// small words aside, is a word of the name (`List repository issues` for
/// `list_repo_issues` is not: `repository` is not `repo`).
fn repeats_name(line: &str, name: &str) -> bool {
    const SMALL: &[&str] = &[
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "by",
        "and",
        "or",
        "with",
        "your",
        "all",
        "its",
        "this",
        "that",
        "from",
        "new",
        "given",
        "specified",
        "specific",
        "existing",
    ];
    let name_words: Vec<String> = name.split('_').map(singular).collect();
    words(line)
        .iter()
        .filter(|w| !SMALL.contains(&w.as_str()))
        .all(|w| name_words.contains(&singular(w)))
}

/// `text` cut to at most `cap` characters at a word boundary, `…` marking
/// the cut.
fn cut(text: &str, cap: usize) -> String {
    if text.chars().count() <= cap {
        return text.to_owned();
    }
    let head: String = text.chars().take(cap.saturating_sub(1)).collect();
    let head = match head.rfind(' ') {
        Some(i) if i > cap / 2 => &head[..i],
        _ => head.as_str(),
    };
    format!("{}…", head.trim_end_matches([' ', ',', ';', ':', '.']))
}

/// One line of an op's summary or description: HTML tags and Markdown
/// links' targets left out, white space collapsed, the first sentence.
pub(crate) fn one_line(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                plain.push(' ');
            }
            _ if !in_tag => plain.push(c),
            _ => {}
        }
    }
    let collapsed = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = first_sentence(&collapsed);
    sentence.trim_end_matches('.').to_owned()
}

/// The first sentence of `text`'s first non-blank line, at most 200
/// characters, ending in a full stop: a tag description made a tool's lead.
pub(crate) fn first_sentence(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let end = line.find(". ").map_or(line.len(), |i| i + 1);
    let mut s: String = line[..end].chars().take(200).collect();
    if !s.ends_with('.') && !s.is_empty() {
        s.push('.');
    }
    s
}
