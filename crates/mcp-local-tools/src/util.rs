//! Helpers every tool shares: argument parsing, schemas, running blocking
//! work with cancellation, and bounded output.

// Which helpers a build uses depends on the tool features it enables.
#![cfg_attr(
    not(all(feature = "fs", feature = "code", feature = "workspace")),
    allow(dead_code)
)]

use mcp_proto::CallToolResult;
#[cfg(any(test, feature = "exec", feature = "tasks"))]
use serde_json::Value;

use crate::context::ToolContext;

/// An id given as a string or as a whole number (`"3"` or `3`), as text:
/// models write ids either way whatever the schema says. For a required
/// field: `null` is no id, and refused.
#[cfg(feature = "exec")]
pub(crate) fn text_id<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<String, D::Error> {
    use serde::{Deserialize as _, de::Error as _};
    match Value::deserialize(deserializer)? {
        Value::String(text) => Ok(text),
        Value::Number(n) if n.is_u64() || n.is_i64() => Ok(n.to_string()),
        other => Err(D::Error::custom(format!(
            "invalid id {other}: expected a string or a whole number"
        ))),
    }
}

/// An id given as a whole number or as its decimal string (`3` or
/// `"3"`).
#[cfg(feature = "tasks")]
pub(crate) fn number_id<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<i64>, D::Error> {
    use serde::{Deserialize as _, de::Error as _};
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(value) => one_number_id(&value).map(Some).map_err(D::Error::custom),
    }
}

/// A required id, taken as [`number_id`] takes it (a missing one is
/// named by the framework).
#[cfg(feature = "tasks")]
pub(crate) fn required_number_id<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<i64, D::Error> {
    use serde::{Deserialize as _, de::Error as _};
    one_number_id(&Value::deserialize(deserializer)?).map_err(D::Error::custom)
}

/// A list of ids, each as [`number_id`] takes it.
#[cfg(feature = "tasks")]
pub(crate) fn number_ids<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<i64>>, D::Error> {
    use serde::{Deserialize as _, de::Error as _};
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(one_number_id)
            .collect::<Result<Vec<i64>, String>>()
            .map(Some)
            .map_err(D::Error::custom),
        Some(other) => Err(D::Error::custom(format!(
            "invalid ids {other}: expected an array of whole numbers"
        ))),
    }
}

#[cfg(feature = "tasks")]
fn one_number_id(value: &Value) -> Result<i64, String> {
    let parsed = match value {
        Value::Number(n) => n.as_i64(),
        Value::String(text) => text.trim().parse::<i64>().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| {
        format!("invalid id {value}: expected a whole number (or its decimal string)")
    })
}

/// The most bytes of text one page of a result carries (64 KiB): an
/// action stops its output there, with a marker line saying how to get
/// the rest (an offset, a start index, a narrower request).
///
/// This is the one result-size policy of every tool. The framework
/// enforces it as well: a result whose text passes [`RESULT_CAP`] (this
/// page plus room for the lines an action writes around it) is cut there,
/// with a marker, and its structured copy is left out when that alone
/// passes the cap.
pub const MAX_RESULT_BYTES: usize = 64 * 1024;

/// The most bytes of text the framework lets through in one result:
/// [`MAX_RESULT_BYTES`] and 4 KiB for the marker and note lines around a
/// page.
pub const RESULT_CAP: usize = MAX_RESULT_BYTES + 4 * 1024;

/// A tool failure: becomes a result with `isError: true` and this text.
pub(crate) type ToolResult = Result<CallToolResult, String>;

/// Runs blocking `work` on tokio's blocking pool (not at all when already
/// cancelled); returns early with an error result when `ctx.cancel` fires
/// (walks and reads see the same token and stop at their next check; a
/// write already under way finishes, atomically).
pub(crate) async fn run_blocking<F>(ctx: &ToolContext, work: F) -> CallToolResult
where
    F: FnOnce() -> ToolResult + Send + 'static,
{
    if ctx.cancel.is_cancelled() {
        return CallToolResult::error("cancelled".to_owned());
    }
    let task = tokio::task::spawn_blocking(work);
    tokio::select! {
        // Cancellation first: a call cancelled before it finished gets no
        // result of its work.
        biased;
        () = ctx.cancel.cancelled() => CallToolResult::error("cancelled".to_owned()),
        joined = task => match joined {
            Ok(Ok(result)) => result,
            Ok(Err(message)) => CallToolResult::error(message),
            Err(e) => CallToolResult::error(format!("internal error: the tool's task failed ({e})")),
        },
    }
}

/// Text that stops growing at a byte cap.
#[derive(Debug)]
pub(crate) struct Bounded {
    text: String,
    cap: usize,
    full: bool,
}

impl Bounded {
    /// Empty, holding at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> Bounded {
        Bounded {
            text: String::new(),
            cap,
            full: false,
        }
    }

    /// Appends `line` and a newline; false (and nothing appended) when that
    /// would pass the cap, after which every push fails.
    pub(crate) fn push_line(&mut self, line: &str) -> bool {
        if self.full || self.text.len() + line.len() + 1 > self.cap {
            self.full = true;
            return false;
        }
        self.text.push_str(line);
        self.text.push('\n');
        true
    }

    /// True once a push was refused.
    pub(crate) fn is_full(&self) -> bool {
        self.full
    }

    /// The text, with `marker` on its own line when given.
    pub(crate) fn finish(mut self, marker: Option<String>) -> String {
        if let Some(marker) = marker {
            self.text.push_str(&marker);
            self.text.push('\n');
        }
        self.text
    }
}

/// A walk of `dir` (inside `root`) as the tools walk a tree: the ignore
/// files of `root` and of the folders below it honoured ([`Ignores`]: in
/// a git repository or not; the user's global excludes and the folders
/// above `root` are not read), symlinks never followed, the server's own folders left out (and
/// every `.git` folder when `no_git`), and the entries of each directory
/// in the byte order of their names when `sorted`.
#[cfg(any(feature = "fs", feature = "code", feature = "workspace"))]
pub(crate) fn walk_builder(
    root: &std::path::Path,
    dir: &std::path::Path,
    sorted: bool,
    no_git: bool,
) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(dir);
    // The walker reads no ignore file itself: it would follow a link (a
    // `.gitignore` linked to `/dev/zero` grows a walk without end, one
    // linked to a file outside the roots, or to `~/.hanzo/config.json`,
    // lets an agent test its lines by which files vanish) and read the
    // folders above the roots. [`Ignores`] reads them instead.
    builder
        .follow_links(false)
        .require_git(false)
        .git_global(false)
        .git_ignore(false)
        .git_exclude(false)
        .ignore(false)
        .parents(false);
    // The state folder's entry is left out (so is all below it), unless
    // the walk starts in it; so is `.git` when `no_git`.
    let own: Vec<std::path::PathBuf> = crate::state::folders()
        .into_iter()
        .filter(|own| !dir.starts_with(own))
        .collect();
    let ignores = Ignores::new(root);
    builder.filter_entry(move |entry| {
        let git = no_git && entry.file_name() == ".git";
        let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
        !git && !own.iter().any(|o| o == entry.path()) && !ignores.ignored(entry.path(), is_dir)
    });
    if sorted {
        builder.sort_by_file_name(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    }
    builder
}

/// The most of an ignore file [`Ignores`] reads: a larger one is not
/// read at all.
#[cfg(any(feature = "fs", feature = "code", feature = "workspace"))]
const MAX_IGNORE_FILE_BYTES: u64 = 1 << 20;

/// The ignore rules of the folders of one root, as git applies them
/// (`.git/info/exclude`, then `.gitignore`, then `.ignore`, a deeper
/// folder's over a shallower one's), each file read beneath the root
/// through no symbolic link ([`crate::safe::open_at`]), as a regular file
/// of at most [`MAX_IGNORE_FILE_BYTES`]; one that is not is not read.
#[cfg(any(feature = "fs", feature = "code", feature = "workspace"))]
struct Ignores {
    root: std::path::PathBuf,
    /// Each folder's rules, read once; `None` for a folder without any.
    read: std::sync::Mutex<
        std::collections::HashMap<
            std::path::PathBuf,
            Option<std::sync::Arc<ignore::gitignore::Gitignore>>,
        >,
    >,
}

#[cfg(any(feature = "fs", feature = "code", feature = "workspace"))]
impl Ignores {
    fn new(root: &std::path::Path) -> Self {
        Self {
            root: root.to_path_buf(),
            read: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Whether `path` (inside the root) is ignored by the rules of the
    /// folders from the root down to its own.
    fn ignored(&self, path: &std::path::Path, is_dir: bool) -> bool {
        let mut folders: Vec<&std::path::Path> = path
            .ancestors()
            .skip(1)
            .take_while(|folder| folder.starts_with(&self.root))
            .collect();
        folders.reverse();
        let mut ignored = false;
        for folder in folders {
            if let Some(rules) = self.rules(folder) {
                let found = rules.matched(path, is_dir);
                if found.is_ignore() {
                    ignored = true;
                } else if found.is_whitelist() {
                    ignored = false;
                }
            }
        }
        ignored
    }

    fn rules(
        &self,
        folder: &std::path::Path,
    ) -> Option<std::sync::Arc<ignore::gitignore::Gitignore>> {
        let mut read = self
            .read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(rules) = read.get(folder) {
            return rules.clone();
        }
        let mut builder = ignore::gitignore::GitignoreBuilder::new(folder);
        let mut any = false;
        for name in [".git/info/exclude", ".gitignore", ".ignore"] {
            let file = folder.join(name);
            let Some(text) = self.text(&file) else {
                continue;
            };
            for line in text.lines() {
                any |= builder.add_line(Some(file.clone()), line).is_ok();
            }
        }
        let rules = any
            .then(|| builder.build().ok())
            .flatten()
            .map(std::sync::Arc::new);
        read.insert(folder.to_path_buf(), rules.clone());
        rules
    }

    /// The text of the ignore file `file`, when it is a regular file
    /// beneath the root, reached through no link, of at most
    /// [`MAX_IGNORE_FILE_BYTES`].
    fn text(&self, file: &std::path::Path) -> Option<String> {
        use std::io::Read as _;
        let opened = crate::safe::open_at(&self.root, file, crate::safe::OpenMode::Read).ok()?;
        let meta = opened.metadata().ok()?;
        if !meta.is_file() || meta.len() > MAX_IGNORE_FILE_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        opened
            .take(MAX_IGNORE_FILE_BYTES)
            .read_to_end(&mut bytes)
            .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// The behaviour hints of a tool (MCP 2025-03-26 `ToolAnnotations`), all
/// stated explicitly so no client falls back to a default.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hints {
    pub(crate) read_only: bool,
    pub(crate) destructive: bool,
    pub(crate) idempotent: bool,
    pub(crate) open_world: bool,
}

// Which presets a build uses depends on the tools compiled in.
#[allow(dead_code)]
impl Hints {
    /// A tool that only reads: it changes nothing, a repeated call has no
    /// further effect, and it reaches nothing outside this machine.
    pub(crate) const READ_ONLY: Hints = Hints {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    };

    /// A tool that changes nothing outside the connection's own record,
    /// to which every call adds.
    pub(crate) const SESSION_RECORD: Hints = Hints {
        idempotent: false,
        ..Hints::READ_ONLY
    };

    /// A tool that changes a setting of the connection: the same call
    /// again changes nothing more.
    pub(crate) const SESSION_SETTING: Hints = Hints {
        read_only: false,
        ..Hints::READ_ONLY
    };

    /// A tool that changes (and may remove) files or state on this
    /// machine, with effects a repeated call adds to, and reaches nothing
    /// outside it.
    pub(crate) const LOCAL_CHANGES: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: false,
    };

    /// As [`Hints::LOCAL_CHANGES`], and it also reaches other machines
    /// (the network, a repository's remotes), where it may change things
    /// too.
    pub(crate) const CHANGES_ANYWHERE: Hints = Hints {
        open_world: true,
        ..Hints::LOCAL_CHANGES
    };

    /// A tool that reaches other machines (the network) and may add files
    /// here (a download, an install), with no destructive update.
    pub(crate) const NETWORK: Hints = Hints {
        destructive: false,
        ..Hints::CHANGES_ANYWHERE
    };
}

/// What `tools/list` says of a tool besides its input schema: its name,
/// title, description and behaviour hints, stated once per tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct About {
    /// Its name (`fs`).
    pub(crate) name: &'static str,
    /// Its title (`Files`), also the annotations' title.
    pub(crate) title: &'static str,
    /// Its description.
    pub(crate) description: &'static str,
    /// Its behaviour hints.
    pub(crate) hints: Hints,
}

impl About {
    /// The tool `name`, with its `title`, `hints` and `description`.
    pub(crate) const fn new(
        name: &'static str,
        title: &'static str,
        hints: Hints,
        description: &'static str,
    ) -> About {
        About {
            name,
            title,
            description,
            hints,
        }
    }

    /// The tool definition as `tools/list` shows it, with `input_schema`.
    pub(crate) fn definition(&self, input_schema: mcp_proto::ObjectSchema) -> mcp_proto::Tool {
        let hints = self.hints;
        mcp_proto::Tool {
            name: self.name.to_owned(),
            title: Some(self.title.to_owned()),
            description: Some(self.description.to_owned()),
            input_schema,
            annotations: Some(mcp_proto::ToolAnnotations {
                title: Some(self.title.to_owned()),
                read_only_hint: Some(hints.read_only),
                destructive_hint: Some(hints.destructive),
                idempotent_hint: Some(hints.idempotent),
                open_world_hint: Some(hints.open_world),
                ..mcp_proto::ToolAnnotations::default()
            }),
            ..mcp_proto::Tool::default()
        }
    }
}

/// The page marker: `[items a-b of total; continue with offset=b]`.
pub(crate) fn page_marker(
    what: &str,
    shown_from: u64,
    shown_to: u64,
    total: Option<u64>,
) -> String {
    match total {
        Some(total) => format!(
            "[{what} {}-{shown_to} of {total}; continue with offset={shown_to}]",
            shown_from + 1
        ),
        None => format!(
            "[{what} {}-{shown_to} shown, more exist; continue with offset={shown_to}]",
            shown_from + 1
        ),
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch (UTC).
pub(crate) fn utc_timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm), proleptic Gregorian.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// An `offset` argument as SQLite takes it (at most `i64::MAX`, so a huge
/// one is past the end rather than wrapped to a negative number).
#[cfg(any(feature = "memory", feature = "tasks"))]
pub(crate) fn sql_offset(offset: Option<u64>) -> i64 {
    offset.unwrap_or(0).min(i64::MAX as u64) as i64
}

/// Calls `tool` with `args` (a JSON object) through the action framework,
/// in a context whose one root is `root`; whether the result is an error,
/// and its text.
#[cfg(test)]
pub(crate) async fn call_for_test<T: crate::action::ActionTool>(
    tool: &T,
    root: &std::path::Path,
    args: Value,
) -> (bool, String) {
    let root = std::fs::canonicalize(root).expect("the test's root exists");
    let roots = crate::Roots::new(vec![root]).expect("the test's root is a root");
    let Value::Object(args) = args else {
        panic!("test arguments are an object: {args}")
    };
    let result = crate::action::call(tool, args, ToolContext::new(roots)).await;
    let text = result
        .content
        .iter()
        .filter_map(|block| match block {
            mcp_proto::ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect();
    (result.is_error == Some(true), text)
}

/// Parses `args` (a JSON object) as a call of `T`, as the framework does
/// before running it (`None`: `help`).
#[cfg(test)]
pub(crate) fn parse_for_test<T: crate::action::ActionTool>(
    args: Value,
) -> Result<Option<T::Args>, String> {
    let Value::Object(args) = args else {
        panic!("test arguments are an object: {args}")
    };
    crate::action::parse_call::<T>(args)
}

/// A temporary folder holding a root (`root`, returned too) and a state
/// database (`state/state.db`, not created yet) for a test.
#[cfg(all(test, any(feature = "memory", feature = "plan", feature = "tasks")))]
pub(crate) fn store_for_test() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    std::sync::Arc<crate::store::Store>,
) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path().join("root");
    std::fs::create_dir(&root).expect("the root");
    let store = crate::store::Store::at(dir.path().join("state/state.db"));
    (dir, root, std::sync::Arc::new(store))
}

/// The fields `help` lists for `action` in `help` (the text between the
/// braces of its line); empty when it lists none.
#[cfg(test)]
pub(crate) fn help_fields(help: &str, action: &str) -> Vec<String> {
    let Some(line) = help.lines().find(|line| {
        line.starts_with(&format!("{action} {{")) || line.starts_with(&format!("{action}:"))
    }) else {
        panic!("no line for {action} in {help}")
    };
    match line
        .split_once('{')
        .and_then(|(_, rest)| rest.split_once("}:"))
    {
        Some((fields, _)) if line.starts_with(&format!("{action} {{")) => {
            fields.split(", ").map(str::to_owned).collect()
        }
        _ => Vec::new(),
    }
}
