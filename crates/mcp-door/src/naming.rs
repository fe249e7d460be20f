//! Names: subsystem tools from tags, ops as verb phrases (HIP-0300 §1.3).
//!
//! A subsystem name is the `x-tool` extension, else the first tag, else the
//! first path segment after a version segment, written as lower-case words
//! joined by `_`. An op name is a verb phrase of lower-case words joined by
//! `_` (`^[a-z][a-z0-9_]*$`): the `operationId` when it reads as one, else
//! a phrase built from the method and the path.

use crate::openapi::RawOperation;

/// The verbs an op name may start with (HIP-0300 §1.3: ops are verb phrases). An `operationId` whose first word is
/// not one of these is rebuilt from the method and the path.
pub const VERBS: &[&str] = &[
    "abort",
    "accept",
    "activate",
    "add",
    "allow",
    "analyze",
    "apply",
    "approve",
    "archive",
    "assign",
    "attach",
    "authorize",
    "backup",
    "block",
    "build",
    "calculate",
    "cancel",
    "charge",
    "check",
    "clone",
    "close",
    "commit",
    "compare",
    "complete",
    "configure",
    "confirm",
    "connect",
    "convert",
    "copy",
    "count",
    "create",
    "deactivate",
    "decline",
    "delete",
    "deny",
    "deploy",
    "deprovision",
    "describe",
    "detach",
    "diff",
    "disable",
    "disconnect",
    "dismiss",
    "download",
    "downgrade",
    "edit",
    "enable",
    "enroll",
    "estimate",
    "evaluate",
    "execute",
    "exchange",
    "export",
    "fetch",
    "find",
    "follow",
    "fork",
    "generate",
    "get",
    "grant",
    "hide",
    "import",
    "install",
    "invite",
    "invoke",
    "issue",
    "label",
    "link",
    "list",
    "lock",
    "login",
    "logout",
    "map",
    "mark",
    "merge",
    "migrate",
    "move",
    "mute",
    "open",
    "pause",
    "pay",
    "pin",
    "ping",
    "preview",
    "promote",
    "provision",
    "publish",
    "purchase",
    "query",
    "read",
    "reboot",
    "redeliver",
    "refresh",
    "refund",
    "register",
    "reject",
    "release",
    "remove",
    "rename",
    "render",
    "reopen",
    "replace",
    "report",
    "reprioritize",
    "request",
    "rerequest",
    "rerun",
    "resend",
    "reserve",
    "reset",
    "resolve",
    "restart",
    "restore",
    "resume",
    "retry",
    "review",
    "revoke",
    "rollback",
    "rotate",
    "run",
    "scale",
    "schedule",
    "scope",
    "search",
    "send",
    "set",
    "show",
    "sign",
    "snapshot",
    "star",
    "start",
    "stop",
    "submit",
    "subscribe",
    "suspend",
    "sync",
    "tag",
    "test",
    "transfer",
    "trigger",
    "unarchive",
    "unassign",
    "unblock",
    "unfollow",
    "unhide",
    "uninstall",
    "unlink",
    "unlock",
    "unmute",
    "unpin",
    "unpublish",
    "unregister",
    "unstack",
    "unstar",
    "unsubscribe",
    "unsuspend",
    "untag",
    "unwatch",
    "update",
    "upgrade",
    "upload",
    "validate",
    "verify",
    "view",
    "watch",
    "write",
];

/// Words that start a prepositional phrase: after them comes what the
/// operation is *for*, not its object.
pub(crate) const PREPOSITIONS: &[&str] = &[
    "about", "across", "as", "at", "between", "by", "for", "from", "in", "into", "of", "on",
    "over", "per", "to", "under", "via", "with", "within",
];

/// Whether `word` is one of [`VERBS`].
pub(crate) fn is_verb(word: &str) -> bool {
    VERBS.contains(&word)
}

/// Whether `word` is one of [`PREPOSITIONS`].
pub(crate) fn is_preposition(word: &str) -> bool {
    PREPOSITIONS.contains(&word)
}

/// Splits `text` into lower-case ASCII words at every character that is not
/// a letter or digit and at camelCase boundaries (`getHTTPServer` → `get`,
/// `http`, `server`). Other characters are dropped.
pub(crate) fn words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_ascii_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The singular of an English plural, by suffix (`policies` → `policy`,
/// `keys` → `key`, `boxes` → `box`; `status` and `analysis` stay).
pub(crate) fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies").filter(|s| s.len() > 1) {
        return format!("{stem}y");
    }
    for suffix in ["sses", "shes", "ches", "xes"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_owned();
        }
    }
    if word.len() > 2
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

/// Whether `segment` is a version segment such as `v1`, `v2beta` or `v1.2`.
pub(crate) fn is_version(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars.next().is_some_and(|c| c == 'v' || c == 'V')
        && chars.next().is_some_and(|c| c.is_ascii_digit())
}

/// The longest subsystem or op name the door makes, in characters; the MCP
/// tool-name rule allows 128 and gating adds `tool:op`.
const MAX_NAME: usize = 64;

fn join_capped(words: &[String]) -> String {
    let mut out = String::new();
    for w in words {
        if !out.is_empty() && out.len() + 1 + w.len() > MAX_NAME {
            break;
        }
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(w);
    }
    out.truncate(MAX_NAME);
    out
}

/// The subsystem an operation belongs to, as raw text: `x-tool`, else the
/// first tag, else the first path segment after a version segment (or the
/// first segment when there is no version segment).
pub(crate) fn raw_subsystem(op: &RawOperation) -> String {
    if let Some(t) = op.x_tool.as_ref().filter(|t| !t.trim().is_empty()) {
        return t.clone();
    }
    if let Some(t) = op.tags.iter().find(|t| !t.trim().is_empty()) {
        return t.clone();
    }
    let segments: Vec<&str> = op.path.split('/').filter(|s| !s.is_empty()).collect();
    let after = segments
        .iter()
        .position(|s| is_version(s))
        .map_or(0, |i| i + 1);
    segments[after.min(segments.len())..]
        .iter()
        .find(|s| !s.starts_with('{'))
        .map_or_else(|| "api".to_owned(), |s| (*s).to_owned())
}

/// A subsystem name under the MCP tool-name rule: lower-case words joined
/// by `_`, at most 64 characters, never empty, never starting with a digit,
/// never `describe` (that name is the door's own tool).
pub(crate) fn subsystem_name(raw: &str) -> String {
    let mut w = words(raw);
    if w.is_empty() {
        w.push("api".into());
    }
    if w[0].starts_with(|c: char| c.is_ascii_digit()) {
        w.insert(0, "api".into());
    }
    let name = join_capped(&w);
    if name == "describe" {
        return "describe_api".into();
    }
    name
}

/// The op name of `op` in `subsystem` (whose words are `subsystem_words`),
/// before it is made unique across the door.
pub(crate) fn op_name(op: &RawOperation, subsystem: &str) -> String {
    let sub: Vec<String> = subsystem.split('_').map(str::to_owned).collect();
    if let Some(id) = &op.operation_id {
        let tail = id.rsplit('/').next().unwrap_or(id);
        if let Some(phrase) = verb_phrase(words(tail), &sub) {
            return join_capped(&phrase);
        }
    }
    join_capped(&from_path(op, &sub))
}

/// The `operationId` words as a verb phrase, or `None` when they do not
/// read as one (an HTTP method word such as `post` first, no verb at all).
fn verb_phrase(mut w: Vec<String>, subsystem: &[String]) -> Option<Vec<String>> {
    w.retain(|x| !is_version(x));
    // `re-run`, `un-lock`: one verb written in two words.
    if w.len() >= 2
        && matches!(w[0].as_str(), "re" | "un" | "pre")
        && is_verb(&format!("{}{}", w[0], w[1]))
    {
        let joined = format!("{}{}", w[0], w[1]);
        w.splice(0..2, [joined]);
    }
    if w.first().is_some_and(|x| !is_verb(x)) {
        if w.get(1).is_some_and(|x| is_verb(x)) {
            // `projects.list`, `bulk-add`: the verb second. A lone modifier
            // left as the object (`bulk`) gets the subsystem's noun after it.
            w.swap(0, 1);
            let names_subsystem = subsystem
                .last()
                .is_some_and(|s| *s == w[1] || singular(s) == singular(&w[1]));
            if w.len() == 2 && !names_subsystem {
                w.extend(subsystem.iter().cloned());
            }
        } else if subsystem.len() == 1 && is_verb(&subsystem[0]) {
            // `search/code` in the `search` subsystem.
            w.insert(0, subsystem[0].clone());
        } else {
            return None;
        }
    }
    if w.is_empty() {
        return None;
    }
    // A bare verb, or a verb straight into a preposition, gets the
    // subsystem's noun as its object: `list-for-repo` in `issues` is
    // `list_issues_for_repo`, `get` in `repos` is `get_repo`.
    if w.len() == 1 || is_preposition(&w[1]) {
        let noun = subsystem_noun(subsystem, &w[0]);
        w.splice(1..1, noun);
    }
    Some(w)
}

/// The subsystem's words as the object of `verb`: plural after `list`,
/// `search` and a verb that is the subsystem itself, singular otherwise.
fn subsystem_noun(subsystem: &[String], verb: &str) -> Vec<String> {
    let mut noun: Vec<String> = subsystem.to_vec();
    if noun.len() == 1 && noun[0] == verb {
        return Vec::new();
    }
    if !matches!(verb, "list" | "search")
        && let Some(last) = noun.last_mut()
    {
        *last = singular(last);
    }
    noun
}

/// A verb phrase from the method and the path:
/// `POST /v1/projects/{slug}/deploy` → `deploy_project`,
/// `GET /repos/{owner}/{repo}/issues` → `list_issues_for_repo`.
fn from_path(op: &RawOperation, subsystem: &[String]) -> Vec<String> {
    let segments: Vec<&str> = op.path.split('/').filter(|s| !s.is_empty()).collect();
    let after = segments
        .iter()
        .position(|s| is_version(s))
        .map_or(0, |i| i + 1);
    // (words of a literal segment, whether a parameter follows it)
    let mut literals: Vec<(Vec<String>, bool)> = Vec::new();
    for s in &segments[after.min(segments.len())..] {
        if s.starts_with('{') {
            if let Some(last) = literals.last_mut() {
                last.1 = true;
            }
        } else {
            let w = words(s);
            if !w.is_empty() {
                literals.push((w, false));
            }
        }
    }
    let ends_in_param = segments.last().is_some_and(|s| s.starts_with('{'));
    let mut verb = match op.method {
        "get" if ends_in_param || literals.is_empty() => "get",
        "get" => "list",
        "head" => "check",
        "post" => "create",
        "put" => "set",
        "patch" => "update",
        "delete" => "delete",
        "options" => "describe",
        _ => "trace",
    }
    .to_owned();
    // A last literal that is itself a verb (`.../deploy`) is the action.
    if !ends_in_param
        && let Some((w, _)) = literals.last()
        && w.len() == 1
        && is_verb(&w[0])
        && (literals.len() > 1 || op.method != "get")
    {
        verb = w[0].clone();
        literals.pop();
    }
    let mut phrase = vec![verb.clone()];
    match literals.pop() {
        Some((mut object, followed_by_param)) => {
            if (verb != "list" || followed_by_param)
                && let Some(last) = object.last_mut()
            {
                *last = singular(last);
            }
            phrase.extend(object);
            if let Some((mut parent, _)) = literals.pop() {
                if let Some(last) = parent.last_mut() {
                    *last = singular(last);
                }
                phrase.push("for".into());
                phrase.extend(parent);
            }
        }
        None => phrase.extend(subsystem_noun(subsystem, &verb)),
    }
    if phrase.len() == 1 {
        phrase.push("root".into());
    }
    phrase
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(method: &'static str, path: &str, id: Option<&str>) -> RawOperation {
        RawOperation {
            method,
            path: path.into(),
            operation_id: id.map(str::to_owned),
            tags: Vec::new(),
            x_tool: None,
            x_public: None,
            summary: None,
            params: Vec::new(),
            body: None,
        }
    }

    #[test]
    fn names_read_as_verb_phrases() {
        let cases = [
            (
                "post",
                "/v1/projects/{slug}/deploy",
                None,
                "projects",
                "deploy_project",
            ),
            (
                "post",
                "/v1/projects/{slug}/deploy",
                Some("post_v1_projects_by_slug_deploy"),
                "projects",
                "deploy_project",
            ),
            (
                "get",
                "/repos/{owner}/{repo}/issues",
                Some("issues/list-for-repo"),
                "issues",
                "list_issues_for_repo",
            ),
            (
                "get",
                "/repos/{owner}/{repo}/issues",
                None,
                "issues",
                "list_issues_for_repo",
            ),
            (
                "get",
                "/repos/{owner}/{repo}",
                Some("repos/get"),
                "repos",
                "get_repo",
            ),
            (
                "get",
                "/search/code",
                Some("search/code"),
                "search",
                "search_code",
            ),
            ("post", "/x", Some("re-run-job"), "actions", "rerun_job"),
            (
                "get",
                "/v1/projects",
                Some("projects.list"),
                "projects",
                "list_projects",
            ),
            ("get", "/v1/projects/{id}", None, "projects", "get_project"),
            ("get", "/", None, "meta", "get_meta"),
            (
                "delete",
                "/v2/teams/{team}/members/{id}",
                Some("getV2X"),
                "teams",
                "get_x",
            ),
        ];
        for (method, path, id, sub, want) in cases {
            assert_eq!(
                op_name(&op(method, path, id), sub),
                want,
                "{method} {path} {id:?}"
            );
        }
    }

    #[test]
    fn subsystem_names_follow_the_tool_name_rule() {
        assert_eq!(subsystem_name("Security Advisories"), "security_advisories");
        assert_eq!(subsystem_name("describe"), "describe_api");
        assert_eq!(subsystem_name("2fa"), "api_2fa");
        assert_eq!(subsystem_name("---"), "api");
        assert_eq!(words("getHTTPServer2Go"), ["get", "http", "server2", "go"]);
    }
}
