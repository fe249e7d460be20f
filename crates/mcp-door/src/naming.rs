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
    "advance",
    "allow",
    "analyze",
    "apply",
    "approve",
    "archive",
    "assign",
    "attach",
    "attest",
    "authorize",
    "backup",
    "block",
    "build",
    "calculate",
    "cancel",
    "capture",
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
    "deliver",
    "deny",
    "destroy",
    "deploy",
    "deprovision",
    "describe",
    "detach",
    "diff",
    "disable",
    "disconnect",
    "dismiss",
    "downgrade",
    "download",
    "edit",
    "enable",
    "enroll",
    "estimate",
    "evaluate",
    "exchange",
    "execute",
    "expire",
    "export",
    "fail",
    "fetch",
    "finalize",
    "find",
    "follow",
    "fork",
    "fund",
    "generate",
    "get",
    "grant",
    "hide",
    "import",
    "increment",
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
    "modify",
    "move",
    "mute",
    "open",
    "patch",
    "pause",
    "pay",
    "pin",
    "ping",
    "place",
    "present",
    "preview",
    "promote",
    "provision",
    "publish",
    "purchase",
    "query",
    "reactivate",
    "read",
    "reboot",
    "reconcile",
    "redact",
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
    "retrieve",
    "retry",
    "return",
    "reverse",
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
    "ship",
    "show",
    "sign",
    "simulate",
    "snapshot",
    "star",
    "start",
    "stop",
    "submit",
    "subscribe",
    "succeed",
    "suspend",
    "sync",
    "tag",
    "test",
    "trace",
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
    "upsert",
    "validate",
    "verify",
    "view",
    "void",
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

/// Whether `word` is a version word of an API (`v1`, `v1beta3`, `v2alpha1`).
pub(crate) fn is_version_word(word: &str) -> bool {
    is_version(word) && word.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The plural of an English noun, by suffix (`policy` → `policies`, `box`
/// → `boxes`, `pod` → `pods`); uncountable nouns (`data`, `usage`) and
/// words that read as adjectives (`stubbed`, `accessible`) stay.
pub(crate) fn plural(word: &str) -> String {
    const UNCOUNTABLE: &[&str] = &[
        "access",
        "activity",
        "content",
        "data",
        "feedback",
        "history",
        "info",
        "information",
        "metadata",
        "news",
        "traffic",
        "usage",
    ];
    let adjective = ["ed", "able", "ible", "ing", "al"]
        .iter()
        .any(|e| word.ends_with(e));
    if UNCOUNTABLE.contains(&word) || adjective || singular(word) != word {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
        && !stem.is_empty()
    {
        return format!("{stem}ies");
    }
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| word.ends_with(e))
    {
        return format!("{word}es");
    }
    format!("{word}s")
}

/// Whether `a` and `b` are one word, plural or not.
fn same_word(a: &str, b: &str) -> bool {
    a == b || singular(a) == singular(b)
}

/// The longest subsystem name the door makes, in characters; the MCP
/// tool-name rule allows 128 and gating adds `tool:op`.
const MAX_NAME: usize = 64;

/// The most words an op name has (HIP-0300 §1.3: a verb and its object).
pub(crate) const MAX_OP_WORDS: usize = 6;

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
/// by `_`, version words left out (Kubernetes' `apps_v1` and `apps` are one
/// subsystem, `apps`), at most 64 characters, never empty, never starting
/// with a digit, never `describe` (that name is the door's own tool).
pub(crate) fn subsystem_name(raw: &str) -> String {
    let mut w = words(raw);
    if w.iter().any(|x| !is_version_word(x)) {
        w.retain(|x| !is_version_word(x));
    }
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

/// One way an op name is made more specific when another op would share
/// it, tried in order (HIP-0300 §1.3: names differ by what differs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Words put before the object: the resource the op is under, or its
    /// subsystem (`org` in `list_org_repos`).
    Qualify(Vec<String>),
    /// The verb of the HTTP method instead of the `operationId`'s (`PUT`
    /// → `replace`).
    Verb(String),
    /// Words put after the object (`by_id`).
    By(Vec<String>),
}

impl Step {
    /// The order kinds of step are tried in: qualifiers, then the verb,
    /// then the parameter.
    pub(crate) fn rank(&self) -> u8 {
        match self {
            Step::Qualify(_) => 0,
            Step::Verb(_) => 1,
            Step::By(_) => 2,
        }
    }
}

/// An op name before it is made unique: a verb phrase of `verb`, `object`
/// and a prepositional `tail`, and the [`Step`]s that make it more specific.
#[derive(Debug, Clone)]
pub(crate) struct OpName {
    verb: Vec<String>,
    object: Vec<String>,
    tail: Vec<String>,
    /// Tried in order when another op would share the name.
    pub steps: Vec<Step>,
}

impl OpName {
    /// The name with `applied` steps taken: lower-case words joined by
    /// `_`, no word twice, at most [`MAX_OP_WORDS`] words.
    pub(crate) fn render(&self, applied: &[&Step]) -> String {
        let mut verb = self.verb.clone();
        let mut qualifiers: Vec<String> = Vec::new();
        let mut by: Vec<String> = Vec::new();
        for step in applied {
            match step {
                Step::Qualify(w) => {
                    let mut q = w.clone();
                    q.append(&mut qualifiers);
                    qualifiers = q;
                }
                Step::Verb(v) => verb = v.split('_').map(str::to_owned).collect(),
                Step::By(w) => by.extend(w.iter().cloned()),
            }
        }
        compact(verb, qualifiers, self.object.clone(), self.tail.clone(), by)
    }

    /// The verb phrase whole, before any step or cut: what the refusal
    /// rule reads besides the name shown (HIP-0300 §1.4).
    pub(crate) fn phrase(&self) -> String {
        let mut all = self.verb.clone();
        all.extend(self.object.iter().cloned());
        all.extend(self.tail.iter().cloned());
        all.join("_")
    }
}

/// Joins the parts of a name: each word once (a later copy of a word, plural
/// or not, is left out), no dangling preposition, and at most
/// [`MAX_OP_WORDS`] words: past that a last `for X` moves before the object
/// (`org_...`), then each phrase of the tail keeps only its head noun
/// (`for_authenticated_user` → `for_user`), then the object's first words
/// are left out (`horizontal_pod_autoscalers` → `pod_autoscalers`), then the
/// tail's last phrases; the object and the preposition after it, which the
/// refusal rule reads, stay.
fn compact(
    verb: Vec<String>,
    mut qualifiers: Vec<String>,
    mut object: Vec<String>,
    mut tail: Vec<String>,
    mut by: Vec<String>,
) -> String {
    let mut seen: Vec<String> = verb.clone();
    let mut keep = |part: &mut Vec<String>| {
        part.retain(|w| {
            let fresh = is_preposition(w) || !seen.iter().any(|s| same_word(s, w));
            if fresh {
                seen.push(w.clone());
            }
            fresh
        });
    };
    keep(&mut qualifiers);
    keep(&mut object);
    keep(&mut tail);
    keep(&mut by);
    tidy_prepositions(&mut tail);
    tidy_prepositions(&mut by);
    let total = |q: &[String], o: &[String], t: &[String], b: &[String]| {
        verb.len() + q.len() + o.len() + t.len() + b.len()
    };
    // The last phrase of the tail, when it is `for X`, moves before the
    // object: `list_labels_for_runner_for_org` → `list_org_labels_for_runner`.
    let mut owner_from_tail: Option<String> = None;
    let last_phrase = tail.iter().rposition(|w| is_preposition(w));
    if total(&qualifiers, &object, &tail, &by) > MAX_OP_WORDS
        && let Some(i) = last_phrase
        && tail.len() == i + 2
        && matches!(tail[i].as_str(), "for" | "of" | "in" | "on")
    {
        let owner = tail.pop().expect("two words");
        tail.pop();
        owner_from_tail = Some(owner.clone());
        qualifiers.push(owner);
    }
    // Each phrase of the tail cut to its preposition and head noun, first
    // phrase first: `for_self_hosted_runner` → `for_runner`.
    let mut start = 0;
    while total(&qualifiers, &object, &tail, &by) > MAX_OP_WORDS && start < tail.len() {
        let end = tail[start + 1..]
            .iter()
            .position(|w| is_preposition(w))
            .map_or(tail.len(), |j| start + 1 + j);
        // `authenticated_user`, `all_namespaces`: a head noun that keeps
        // the word before it.
        let keep = if end >= 2 && matches!(tail[end - 2].as_str(), "authenticated" | "all") {
            2
        } else {
            1
        };
        if is_preposition(&tail[start]) && end > start + 1 + keep {
            tail.drain(start + 1..end - keep);
            start += 1 + keep;
        } else {
            start = end;
        }
    }
    if total(&qualifiers, &object, &tail, &by) > MAX_OP_WORDS
        && let Some(owner) = owner_from_tail
    {
        qualifiers.retain(|q| *q != owner);
    }
    // The object's first words, a method word aside (Kubernetes'
    // `connect_get_pod_proxy`).
    while total(&qualifiers, &object, &tail, &by) > MAX_OP_WORDS && object.len() > 1 {
        let i = usize::from(METHOD_WORDS.contains(&object[0].as_str()) && object.len() > 2);
        let gone = object.remove(i);
        // `artifact_and_log` → `log`, `self_hosted_runner` → `runner`.
        while object.len() > 1
            && (matches!(object[i].as_str(), "and" | "or")
                || gone == "self" && object[i] == "hosted")
        {
            object.remove(i);
        }
    }
    // The tail's last phrases, then its last words.
    while total(&qualifiers, &object, &tail, &by) > MAX_OP_WORDS && tail.len() > 2 {
        match tail.iter().rposition(|w| is_preposition(w)) {
            Some(i) if i > 0 => tail.truncate(i),
            _ => {
                tail.pop();
            }
        }
    }
    // A preposition once: a second phrase with the same one goes.
    if let Some(i) =
        (1..tail.len()).find(|&i| is_preposition(&tail[i]) && tail[..i].contains(&tail[i]))
    {
        tail.truncate(i);
    }
    tidy_prepositions(&mut tail);
    if by.first().is_some_and(|b| tail.contains(b)) {
        by[0] = "with".into();
    }
    while total(&qualifiers, &object, &tail, &by) > MAX_OP_WORDS && !qualifiers.is_empty() {
        qualifiers.remove(0);
    }
    if total(&qualifiers, &object, &tail, &by) > MAX_OP_WORDS {
        tail.clear();
    }
    let mut all = verb;
    all.extend(qualifiers);
    all.extend(object);
    all.extend(tail);
    all.extend(by);
    all.truncate(MAX_OP_WORDS.max(2));
    if all.len() == 1 {
        all.push("root".into());
    }
    all.join("_")
}

/// Leaves out prepositions with nothing after them (`for` alone, `for_in_x`
/// → `in_x`).
fn tidy_prepositions(part: &mut Vec<String>) {
    let mut i = 0;
    while i < part.len() {
        let next_is_prep = part.get(i + 1).is_none_or(|w| is_preposition(w));
        if is_preposition(&part[i]) && next_is_prep {
            part.remove(i);
        } else {
            i += 1;
        }
    }
}

/// The HTTP method names, which an `operationId` made from the method and
/// the path starts with (`GetAccountsAccount`, `get_brands_brands_get`).
const METHOD_WORDS: &[&str] = &[
    "get", "head", "post", "put", "patch", "delete", "options", "trace",
];

/// A path read as resources: its literal segments after the version
/// segment, each with whether a parameter follows it, and its parameters.
struct PathShape {
    literals: Vec<(Vec<String>, bool)>,
    params: Vec<String>,
    ends_in_param: bool,
    /// Every word of the path, literals and parameter names, in order.
    words: Vec<String>,
}

impl PathShape {
    fn of(path: &str) -> PathShape {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let after = segments
            .iter()
            .position(|s| is_version(s))
            .map_or(0, |i| i + 1);
        let mut shape = PathShape {
            literals: Vec::new(),
            params: Vec::new(),
            ends_in_param: segments.last().is_some_and(|s| s.starts_with('{')),
            words: segments.iter().flat_map(|s| words(s)).collect(),
        };
        for s in &segments[after.min(segments.len())..] {
            if s.starts_with('{') {
                if let Some(last) = shape.literals.last_mut() {
                    last.1 = true;
                }
                shape.params.push((*s).to_owned());
            } else {
                let mut w = words(s);
                w.retain(|x| !is_version_word(x));
                if !w.is_empty() {
                    shape.literals.push((w, false));
                }
            }
        }
        shape
    }
}

/// The name of `op` in `subsystem` before it is made unique across the
/// door: `x-mcp-name` when the document gives one, else the
/// `operationId` when it reads as a verb phrase, else a phrase from the
/// method and the path (HIP-0300 §1.3).
pub(crate) fn op_name(op: &RawOperation, subsystem: &str, x_mcp_name: Option<&str>) -> OpName {
    let sub: Vec<String> = subsystem.split('_').map(str::to_owned).collect();
    let shape = PathShape::of(&op.path);
    let by_method = method_verb(op.method, &shape);
    let from_id = x_mcp_name.is_some() || op.operation_id.is_some();
    let mut name = match x_mcp_name.map(words).filter(|w| !w.is_empty()) {
        Some(w) => OpName {
            verb: w,
            object: Vec::new(),
            tail: Vec::new(),
            steps: Vec::new(),
        },
        None => op
            .operation_id
            .as_deref()
            .and_then(|id| from_operation_id(id, op, &sub, &shape))
            .map(|w| split_phrase(w, &sub))
            .unwrap_or_else(|| from_path(op, &sub, &shape)),
    };
    // The method's verb tells apart ops that share an `operationId`; a
    // name from the path has it already.
    let verb = if from_id {
        by_method
    } else {
        name.verb.join("_")
    };
    name.steps = steps(&name, &sub, &shape, &verb);
    name
}

/// The words of a verb phrase split into verb (`create_or_update` is one),
/// object and tail (from the first preposition on), the object without
/// the subsystem's own words before it and, after `list`, plural.
fn split_phrase(mut w: Vec<String>, subsystem: &[String]) -> OpName {
    let verb_len = if w.len() >= 3 && matches!(w[1].as_str(), "or" | "and") && is_verb(&w[2]) {
        3
    } else {
        1
    };
    let rest = w.split_off(verb_len.min(w.len()));
    let cut = rest
        .iter()
        .position(|x| is_preposition(x))
        .unwrap_or(rest.len());
    let mut object = rest[..cut].to_vec();
    let tail = rest[cut..].to_vec();
    drop_subsystem_prefix(&mut object, subsystem);
    let verb = w;
    if verb == ["watch"] && object.len() > 1 && object.last().is_some_and(|x| x == "list") {
        object.pop();
        pluralize_last(&mut object);
    } else if verb == ["list"] && !object.iter().any(|w| singular(w) != *w) {
        pluralize_last(&mut object);
    }
    OpName {
        verb,
        object,
        tail,
        steps: Vec::new(),
    }
}

fn pluralize_last(object: &mut [String]) {
    if let Some(last) = object.last_mut() {
        *last = plural(last);
    }
}

/// Leaves out the subsystem's words at the head of `object` when other
/// words follow them (`flowcontrol_apiserver_priority_level` in
/// `flowcontrol_apiserver` → `priority_level`).
fn drop_subsystem_prefix(object: &mut Vec<String>, subsystem: &[String]) {
    let n = subsystem.len();
    if object.len() > n && object.iter().zip(subsystem).all(|(o, s)| same_word(o, s)) {
        object.drain(..n);
    }
}

/// The `operationId` as verb-phrase words, or `None` when it does not read
/// as one: no verb, or the method and the path's own words
/// (`GetAccountsAccountBankAccountsId`, `get_brands_brands_get`).
fn from_operation_id(
    id: &str,
    op: &RawOperation,
    subsystem: &[String],
    shape: &PathShape,
) -> Option<Vec<String>> {
    let tail = id.rsplit('/').next().unwrap_or(id);
    let mut w = words(tail);
    w.retain(|x| !is_version_word(x));
    if w.len() > 2 && w.last().is_some_and(|x| x == op.method) {
        w.pop();
    }
    // The path's words at the end: the id was made from the path, after
    // the method (`GetAccountsAccount`) or a function name
    // (`deploy_project_projects__slug__deploy`).
    let path_words: Vec<&String> = shape.words.iter().filter(|x| !is_version_word(x)).collect();
    let n = path_words.len();
    if n > 0
        && w.len() > n
        && w[w.len() - n..]
            .iter()
            .zip(&path_words)
            .all(|(a, b)| same_word(a, b))
    {
        if METHOD_WORDS.contains(&w[0].as_str()) {
            return None;
        }
        if w.len() - n >= 2 {
            w.truncate(w.len() - n);
        }
    }
    verb_phrase(w, subsystem)
}

/// The words as a verb phrase, or `None` when they do not read as one.
fn verb_phrase(mut w: Vec<String>, subsystem: &[String]) -> Option<Vec<String>> {
    // `re-run`, `un-lock`: one verb written in two words.
    if w.len() >= 2
        && matches!(w[0].as_str(), "re" | "un" | "pre")
        && is_verb(&format!("{}{}", w[0], w[1]))
    {
        let joined = format!("{}{}", w[0], w[1]);
        w.splice(0..2, [joined]);
    }
    if w.first().is_some_and(|x| !is_verb(x)) {
        if let Some(i) = w.iter().take(3).position(|x| is_verb(x)).filter(|&i| i > 0) {
            // `projects.list`, `sshKeys_create`, `bulk-add`: the verb after
            // the object. A lone modifier left as the object (`bulk`) gets
            // the subsystem's noun after it.
            let verb = w.remove(i);
            w.insert(0, verb);
            let names_subsystem = subsystem
                .last()
                .is_some_and(|s| w.last().is_some_and(|x| same_word(s, x)));
            if w.len() == 2 && i == 1 && !names_subsystem {
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

/// The verb of a method on a path: `GET` of a collection (a plural last
/// segment) is `list`, of one item `get`; `POST` to a collection is
/// `create`, to one item (Stripe's update) `update`; `PUT` is `replace`.
fn method_verb(method: &str, shape: &PathShape) -> String {
    let collection = !shape.ends_in_param
        && shape
            .literals
            .last()
            .and_then(|(w, _)| w.last())
            .is_some_and(|w| singular(w) != *w);
    match method {
        "get" if collection => "list",
        "get" => "get",
        "head" => "check",
        "post" if collection => "create",
        "post" if shape.ends_in_param || !shape.literals.is_empty() => "update",
        "post" => "create",
        "put" => "replace",
        "patch" => "update",
        "delete" => "delete",
        "options" => "describe",
        _ => "trace",
    }
    .to_owned()
}

/// A verb phrase from the method and the path:
/// `POST /v1/projects/{slug}/deploy` → `deploy_project`,
/// `GET /repos/{owner}/{repo}/issues` → `list_repo_issues`,
/// `POST /v1/charges/{charge}/capture` → `capture_charge`.
fn from_path(op: &RawOperation, subsystem: &[String], shape: &PathShape) -> OpName {
    let mut literals = shape.literals.clone();
    let mut verb = method_verb(op.method, shape);
    let mut complement: Vec<String> = Vec::new();
    // A last literal that starts with a verb (`.../deploy`,
    // `.../mark_uncollectible`) is the action.
    let action = literals
        .last()
        .filter(|(w, _)| !shape.ends_in_param && is_verb(&w[0]))
        .filter(|_| shape.literals.len() > 1 || op.method != "get")
        .map(|(w, _)| w.clone());
    if let Some(w) = action {
        verb = w[0].clone();
        complement = w[1..].to_vec();
        literals.pop();
    }
    let mut object: Vec<String> = match literals.pop() {
        Some((mut o, _)) => {
            if !matches!(verb.as_str(), "list" | "search")
                && let Some(last) = o.last_mut()
            {
                *last = singular(last);
            }
            o
        }
        // `GET /` with the id `meta/root` is `get_root`.
        None => match op
            .operation_id
            .as_deref()
            .map(|id| words(id.rsplit('/').next().unwrap_or(id)))
        {
            Some(w) if !w.is_empty() && !w.iter().any(|x| is_verb(x) || is_version_word(x)) => w,
            _ => subsystem_noun(subsystem, &verb),
        },
    };
    // The resource the op is under (a literal followed by a parameter),
    // unless it is the subsystem itself: `repo` in `list_repo_issues`.
    if let Some((parent, true)) = literals.last() {
        let parent: Vec<String> = parent.iter().map(|w| singular(w)).collect();
        let is_subsystem = parent.len() == subsystem.len()
            && parent.iter().zip(subsystem).all(|(p, s)| same_word(p, s));
        if !is_subsystem {
            let mut o = parent;
            o.append(&mut object);
            object = o;
        }
    }
    if !complement.is_empty() {
        object = complement;
    }
    OpName {
        verb: vec![verb],
        object,
        tail: Vec::new(),
        steps: Vec::new(),
    }
}

/// What may make `name` more specific, in order: the resources its path is
/// under (nearest first), its subsystem, the verb of its method (which
/// leaves a name that has it as it is), then its last path parameter
/// (`by_id`).
fn steps(name: &OpName, subsystem: &[String], shape: &PathShape, verb: &str) -> Vec<Step> {
    // What the name shows already, after any cut.
    let mut present: Vec<String> = name.render(&[]).split('_').map(str::to_owned).collect();
    let has = |present: &[String], w: &[String]| {
        w.iter().all(|x| present.iter().any(|p| same_word(p, x)))
    };
    let mut out = Vec::new();
    for (lit, _) in shape.literals.iter().rev() {
        let q: Vec<String> = lit.iter().map(|w| singular(w)).collect();
        if q.is_empty() || has(&present, &q) {
            continue;
        }
        present.extend(q.iter().cloned());
        out.push(Step::Qualify(q));
    }
    let sub: Vec<String> = subsystem.iter().map(|w| singular(w)).collect();
    if !has(&present, &sub) {
        out.push(Step::Qualify(sub));
    }
    out.push(Step::Verb(verb.to_owned()));
    // The path parameters, last first; the last is `by_id` when its words
    // are in the name already (`GET /v1/accounts/{account}` beside
    // `GET /v1/account`).
    for (k, param) in shape.params.iter().rev().enumerate() {
        let mut w = words(param);
        if has(&present, &w) {
            if k > 0 {
                continue;
            }
            w = vec!["id".to_owned()];
        }
        let mut by = vec!["by".to_owned()];
        by.extend(w);
        out.push(Step::By(by));
    }
    out
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
                "list_repo_issues",
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
            // A good operationId is kept, snake-cased.
            (
                "post",
                "/store/order",
                Some("placeOrder"),
                "store",
                "place_order",
            ),
            // Ids made of the method and the path are read from the path.
            (
                "get",
                "/v1/accounts/{account}/bank_accounts/{id}",
                Some("GetAccountsAccountBankAccountsId"),
                "accounts",
                "get_bank_account",
            ),
            (
                "post",
                "/v1/accounts/{account}/bank_accounts",
                Some("PostAccountsAccountBankAccounts"),
                "accounts",
                "create_bank_account",
            ),
            (
                "post",
                "/v1/test_helpers/treasury/outbound_transfers/{outbound_transfer}/fail",
                Some("PostTestHelpersTreasuryOutboundTransfersOutboundTransferFail"),
                "test_helpers",
                "fail_outbound_transfer",
            ),
            (
                "get",
                "/brands",
                Some("get_brands_brands_get"),
                "brands",
                "list_brands",
            ),
            (
                "get",
                "/brands/{brand_id}",
                Some("get_brand_brands__brand_id__get"),
                "brands",
                "get_brand",
            ),
            (
                "get",
                "/brands",
                Some("get_brands_brands"),
                "brands",
                "list_brands",
            ),
            // Versions and the subsystem's own words are left out.
            (
                "get",
                "/apis/flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations/{name}/status",
                Some("readFlowcontrolApiserverV1beta3PriorityLevelConfigurationStatus"),
                "flowcontrol_apiserver",
                "read_priority_level_configuration_status",
            ),
            (
                "get",
                "/api/v1/watch/namespaces/{namespace}/pods",
                Some("watchCoreV1NamespacedPodList"),
                "core",
                "watch_namespaced_pods",
            ),
            (
                "get",
                "/api/v1/namespaces/{namespace}/pods",
                Some("listCoreV1NamespacedPod"),
                "core",
                "list_namespaced_pods",
            ),
            (
                "get",
                "/v2/account/keys",
                Some("sshKeys_list"),
                "ssh_keys",
                "list_ssh_keys",
            ),
        ];
        for (method, path, id, sub, want) in cases {
            assert_eq!(
                op_name(&op(method, path, id), sub, None).render(&[]),
                want,
                "{method} {path} {id:?}"
            );
        }
    }

    #[test]
    fn x_mcp_name_overrides_and_long_names_are_cut() {
        let o = op("post", "/v1/things", Some("postThings"));
        assert_eq!(
            op_name(&o, "things", Some("launchThing")).render(&[]),
            "launch_thing"
        );
        let o = op(
            "get",
            "/orgs/{org}/actions/runner-groups",
            Some("actions/list-self-hosted-runner-groups-for-org"),
        );
        assert_eq!(
            op_name(&o, "actions", None).render(&[]),
            "list_org_self_hosted_runner_groups"
        );
    }

    #[test]
    fn steps_qualify_by_what_differs() {
        let a = op_name(
            &op("get", "/v1/accounts/{account}/bank_accounts/{id}", None),
            "accounts",
            None,
        );
        let c = op_name(
            &op("get", "/v1/customers/{customer}/bank_accounts/{id}", None),
            "customers",
            None,
        );
        // `account` is in the name already: only the parameter is left.
        assert_eq!(a.steps.iter().filter(|s| s.rank() == 0).count(), 0);
        assert_eq!(a.render(&[&a.steps[1]]), "get_bank_account_by_id");
        assert_eq!(c.render(&[&c.steps[0]]), "get_customer_bank_account");
    }

    #[test]
    fn subsystem_names_follow_the_tool_name_rule() {
        assert_eq!(subsystem_name("Security Advisories"), "security_advisories");
        assert_eq!(subsystem_name("describe"), "describe_api");
        assert_eq!(subsystem_name("2fa"), "api_2fa");
        assert_eq!(subsystem_name("---"), "api");
        assert_eq!(subsystem_name("apps_v1"), "apps");
        assert_eq!(
            subsystem_name("flowcontrolApiserver_v1beta3"),
            "flowcontrol_apiserver"
        );
        assert_eq!(subsystem_name("v1"), "v1");
        assert_eq!(words("getHTTPServer2Go"), ["get", "http", "server2", "go"]);
        assert_eq!(plural("policy"), "policies");
        assert_eq!(plural("pod"), "pods");
        assert_eq!(plural("status"), "statuses");
        assert_eq!(plural("keys"), "keys");
    }
}
