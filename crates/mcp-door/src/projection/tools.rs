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
        }))
        .into(),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }),
        ..Tool::default()
    }
}

/// The bytes a subsystem tool's description may take for each op it
/// offers, beyond [`DESCRIPTION_BASE`]. The budgets of a door's tools are
/// pooled: what one tool does not use goes to the next that needs it, in
/// list order. Chosen so that `tools/list` of each public description in
/// the crate's tests is no larger than when descriptions named the ops
/// alone.
const DESCRIPTION_PER_OP: usize = 30;
/// The bytes of a subsystem tool's description allowed whatever its ops:
/// the lead (its tag's first sentence) and the line on the `op` enum.
const DESCRIPTION_BASE: usize = 160;
/// The longest summary shown, in characters; shorter caps are tried in
/// turn until the description fits its budget, and at the last but one as
/// many summaries as fit are shown.
const SUMMARY_CAPS: [usize; 6] = [72, 56, 44, 36, 28, 0];

/// One subsystem tool to describe: its name, its tag's description and
/// its ops.
pub(crate) struct Subsystem<'a> {
    pub name: &'a str,
    pub description: Option<String>,
    pub entries: &'a [OpEntry],
}

/// The tools of `subsystems` ([`subsystem_tool`]), their descriptions
/// within one pooled budget of [`DESCRIPTION_BASE`] plus
/// [`DESCRIPTION_PER_OP`] per op: every summary at the longest cap of
/// [`SUMMARY_CAPS`] at which all of them fit; when none does, at the
/// smallest cap, each tool first within its own share, then what the
/// others left given, in list order, to the tools whose summaries did not
/// all fit.
pub(crate) fn subsystem_tools(subsystems: &[Subsystem<'_>]) -> Vec<Tool> {
    let own = |s: &Subsystem<'_>| DESCRIPTION_BASE + DESCRIPTION_PER_OP * s.entries.len();
    let pool: usize = subsystems.iter().map(own).sum();
    let at_cap = |cap: usize| -> Vec<String> {
        subsystems
            .iter()
            .map(|s| describe_ops(s.description.as_deref(), s.entries, cap, usize::MAX))
            .collect()
    };
    let texts = SUMMARY_CAPS[..SUMMARY_CAPS.len() - 1]
        .iter()
        .map(|&cap| at_cap(cap))
        .find(|texts| texts.iter().map(String::len).sum::<usize>() <= pool)
        .unwrap_or_else(|| shared_out(subsystems, own));
    subsystems
        .iter()
        .zip(texts)
        .map(|(s, text)| subsystem_tool(s.name, text, s.entries))
        .collect()
}

/// The descriptions at the smallest cap when not every summary fits the
/// pool: each tool within its own share, then the rest in list order.
fn shared_out(subsystems: &[Subsystem<'_>], own: impl Fn(&Subsystem<'_>) -> usize) -> Vec<String> {
    let cap = SUMMARY_CAPS[SUMMARY_CAPS.len() - 2];
    let mut texts: Vec<String> = subsystems
        .iter()
        .map(|s| describe_ops(s.description.as_deref(), s.entries, cap, own(s)))
        .collect();
    let mut spare: usize = subsystems
        .iter()
        .zip(&texts)
        .map(|(s, text)| own(s).saturating_sub(text.len()))
        .sum();
    for (s, text) in subsystems.iter().zip(texts.iter_mut()) {
        // `spare` counts what this tool left of its own share already.
        let wider = describe_ops(s.description.as_deref(), s.entries, cap, text.len() + spare);
        if wider.len() > text.len() {
            spare = spare.saturating_sub(wider.len() - text.len());
            *text = wider;
        }
    }
    texts
}

/// The description of a subsystem tool: its lead, then one line per op
/// whose summary says more than the op's name (HIP-0300 §1.3: the ops with
/// their summaries), each summary cut at `cap` characters, as many as fit
/// in `room` bytes, in op order. An op whose summary only repeats its name
/// gets no line: its name is in the `op` enum.
fn describe_ops(lead: Option<&str>, entries: &[OpEntry], cap: usize, room: usize) -> String {
    let mut out = match lead.filter(|d| !d.is_empty()) {
        Some(lead) => format!("{lead} "),
        None => String::new(),
    };
    out.push_str("Every op is in the `op` enum; describe one for its input.");
    if cap == 0 {
        return out;
    }
    for entry in entries {
        let Some(line) = entry
            .line
            .as_deref()
            .filter(|l| !repeats_name(l, &entry.name))
        else {
            continue;
        };
        let line = cut(line, cap);
        if out.len() + 3 + entry.name.len() + line.len() <= room {
            out.push('\n');
            out.push_str(&entry.name);
            out.push_str(": ");
            out.push_str(&line);
        }
    }
    out
}

/// The tool of subsystem `name` with `description`: its ops as the enum of
/// `op`, read-only when every op is a GET or HEAD.
fn subsystem_tool(name: &str, description: String, entries: &[OpEntry]) -> Tool {
    let ops: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
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
        }))
        .into(),
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
    let name_words: Vec<String> = name.split('_').map(singular).map(short_form).collect();
    words(line)
        .iter()
        .filter(|w| !SMALL.contains(&w.as_str()))
        .all(|w| name_words.contains(&short_form(singular(w))))
}

/// The short form op names use for a word of a summary (`repository` →
/// `repo`), else the word.
fn short_form(word: String) -> String {
    const SHORT: &[(&str, &str)] = &[
        ("repository", "repo"),
        ("organization", "org"),
        ("organisation", "org"),
        ("configuration", "config"),
        ("environment", "env"),
        ("application", "app"),
        ("information", "info"),
        ("identifier", "id"),
        ("specification", "spec"),
        ("statistic", "stat"),
        ("directory", "dir"),
        ("authentication", "auth"),
        ("authorization", "auth"),
        ("retrieve", "get"),
        ("fetch", "get"),
        ("remove", "delete"),
    ];
    SHORT
        .iter()
        .find(|(long, _)| *long == word)
        .map_or(word, |(_, short)| (*short).to_owned())
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
