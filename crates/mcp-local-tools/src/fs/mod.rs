//! The `fs` tool: files and directories inside the roots.
//!
//! One MCP tool taking `action` plus that action's fields (docs/ARCHITECTURE.md,
//! "Local tools"). Every path goes through [`crate::Roots::resolve`]; every open
//! goes through the no-follow opener described in [`crate::roots`]. Walks
//! (`tree`, `find`, `search`) never follow symlinks and honour `.gitignore`.
//!
//! Check-then-use: on Linux, `read`, `write`, `edit`, `multi_edit`,
//! `patch` and the files `search` reads are opened beneath the root with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`; `mkdir`, `mv`, `rm` (a
//! folder's whole tree too, entry by entry from directory handles) and the
//! atomic-write rename act through a parent handle opened the same way. A
//! component swapped for a symlink after the check is refused.
//!
//! Residual race, documented rather than closed: `list`, `info`, `tree`,
//! `find` and the search walk read directory listings and metadata by path,
//! so a directory swapped for a symlink in the instant between resolving and
//! reading could have its names (never contents) listed from the new
//! target. On systems other than Linux, opens and removals are plain path
//! operations after the check, with the same window.

mod edit;
mod manage;
mod read;
mod walk;

use crate::action::{ActionTool, actions, arguments, field_groups, local_tool};
use crate::context::ToolContext;
use crate::error::{PathError, PathErrorKind};
use crate::roots::Resolved;
pub(crate) use crate::util::page_marker;
use crate::util::{About, Bounded, Hints, ToolResult};

/// The `fs` local tool. See the module docs for the actions.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsTool;

impl FsTool {
    /// The tool.
    pub fn new() -> FsTool {
        FsTool
    }
}

actions! {
    /// Which `fs` action to run.
    pub(crate) enum FsAction for FsCall {
        Read(read::ReadArgs) = "read" ["read_file", "read_text_file"] { reads: true, can: [ReadFiles], pool: true, usage: "text lines of a file (offset = lines to skip, limit default 2000, tail = only the last lines); images come back as image content; other binary files are refused. Also accepted: file_path for path, head for limit." },
        Write(edit::WriteArgs) = "write" ["write_file"] { reads: false, can: [WriteFiles], pool: true, usage: "create or replace a file, creating parent directories. Also accepted: file_path for path." },
        Edit(edit::EditArgs) = "edit" { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "replace the exact old_text, which must occur once unless replace_all; returns a unified diff (dry_run: without writing). Files and results are limited to 16 MiB. Also accepted: file_path, old_string or oldText, new_string or newText, replaceAll, dryRun." },
        MultiEdit(edit::MultiEditArgs) = "multi_edit" ["edit_file"] { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "edits ([{old_text, new_text, [replace_all]}]) in order; if any fails, the file is unchanged (dry_run: the diff without writing). Also accepted: file_path, oldText/old_string and newText/new_string in each edit, dryRun." },
        Patch(edit::PatchArgs) = "patch" { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "apply a unified diff (at most 100000 lines) to one or more files; all files or none. Sections naming the same file apply in order; --- /dev/null creates a file (refused if it exists); +++ /dev/null deletes it (the hunks must empty it)." },
        List(manage::ListArgs) = "list" { reads: true, can: [ReadFiles], pool: true, usage: "entries of a directory (dir/, name, link -> target)." },
        Tree(walk::TreeArgs) = "tree" { reads: true, can: [ReadFiles], pool: true, usage: "indented tree, honouring .gitignore (depth default 3)." },
        Find(walk::FindArgs) = "find" { reads: true, can: [ReadFiles], pool: true, usage: "files whose path relative to `path` matches the glob." },
        Search(walk::SearchArgs) = "search" ["search_text"] { reads: true, can: [ReadFiles], pool: true, usage: "matching lines as path:line:text (context lines as path-line-text, groups split by --) in a directory or one file, honouring .gitignore." },
        Info(manage::PathArgs) = "info" ["stat"] { reads: true, can: [ReadFiles], pool: true, usage: "type, size, modified time, permissions." },
        Mkdir(manage::PathArgs) = "mkdir" { reads: false, can: [WriteFiles], pool: true, usage: "create a directory and its parents." },
        Mv(manage::MvArgs) = "mv" { reads: false, can: [WriteFiles], pool: true, usage: "move or rename; refuses to replace unless overwrite." },
        Rm(manage::RmArgs) = "rm" { reads: false, can: [WriteFiles], pool: true, usage: "remove a file, or a directory with recursive." },
    }
}

field_groups! {
    /// The file `read`, `write`, `edit` and `multi_edit` work on.
    one_file {
        /// The file, absolute or relative to the first root (also accepted: file_path).
        #[serde(alias = "file_path")]
        pub path: String,
    }

    /// One replacement: `edit`'s, and each of `multi_edit`'s.
    replacement {
        /// The exact text to replace; must occur exactly once unless `replace_all` (also accepted: old_string, oldText).
        #[serde(alias = "old_string", alias = "oldText")]
        pub old_text: String,
        /// The text to put in its place (also accepted: new_string, newText).
        #[serde(alias = "new_string", alias = "newText")]
        pub new_text: String,
        /// Replace every occurrence (default false; also accepted: replaceAll).
        #[serde(default, alias = "replaceAll")]
        pub replace_all: bool,
    }

    /// `dry_run` of `edit` and `multi_edit`.
    dry_run {
        /// Return the diff without writing the file (default false; also accepted: dryRun).
        #[serde(default, alias = "dryRun")]
        pub dry_run: bool,
    }

    /// The directory `list`, `tree` and `find` start from.
    directory {
        /// The directory, absolute or relative to the first root (default ".").
        pub path: Option<String>,
    }

    /// Whether the walks (`tree`, `find`, `search`) show hidden files.
    hidden {
        /// Include hidden files (default false); .gitignore is always honoured.
        #[serde(default)]
        pub hidden: bool,
    }

    /// A page of the entries `list`, `tree` and `find` answer.
    entry_page {
        /// Entries to skip (default 0).
        pub offset: Option<u64>,
        /// Most entries to return (default and at most 1000).
        pub limit: Option<u64>,
    }
}
// The groups the submodules' argument structs splice in.
use directory;
use dry_run;
use entry_page;
use hidden;
use one_file;
use replacement;

arguments! {
    /// One replacement for `edit` and `multi_edit`.
    #[derive(Clone)]
    pub(crate) struct EditSpec {
        ..replacement,
    }
}

/// `path`, or "." (the first root) for the actions that default to it.
fn or_root(path: &Option<String>) -> &str {
    path.as_deref().unwrap_or(".")
}

/// The directory `input` names, which must exist inside the roots: what
/// `list` reads and the walks start from.
fn existing_dir(input: &str, ctx: &ToolContext) -> Result<Resolved, String> {
    let resolved = ctx
        .roots
        .resolve_existing(input)
        .map_err(|e| e.to_string())?;
    if !resolved.path.is_dir() {
        return Err(PathError::new(input, PathErrorKind::NotADirectory).to_string());
    }
    Ok(resolved)
}

/// Default and largest `limit` of `list`, `tree` and `find`, in entries.
const DEFAULT_ENTRIES: u64 = 1000;

/// The page of entries a call of `list`, `tree` or `find` asks for
/// ([`entry_page`]), and how far the answer got: entries are offered in
/// order, those from `offset` on are shown until `limit` of them are, or
/// the text is full.
struct EntryPage {
    offset: u64,
    limit: u64,
    /// Entries offered so far.
    seen: u64,
    /// One past the last entry shown.
    last: u64,
    /// True once an entry was left out: more exist.
    more: bool,
}

impl EntryPage {
    /// The page `offset` and `limit` ask for (defaults: 0 and
    /// [`DEFAULT_ENTRIES`], which is also the most).
    fn new(offset: Option<u64>, limit: Option<u64>) -> EntryPage {
        let offset = offset.unwrap_or(0);
        EntryPage {
            offset,
            limit: limit.unwrap_or(DEFAULT_ENTRIES).clamp(1, DEFAULT_ENTRIES),
            seen: 0,
            last: offset,
            more: false,
        }
    }

    /// Offers the next entry: shown in `out` as `line()` when it is on the
    /// page. False once the page is over (a walk stops there).
    fn offer(&mut self, out: &mut Bounded, line: impl FnOnce() -> String) -> bool {
        if self.seen >= self.offset {
            if self.seen >= self.offset + self.limit || out.is_full() || !out.push_line(&line()) {
                self.more = true;
                return false;
            }
            self.last = self.seen + 1;
        }
        self.seen += 1;
        true
    }

    /// The marker after a walk's page, counting `what`: how to go on,
    /// when more exist.
    fn marker(&self, what: &str) -> Option<String> {
        self.more
            .then(|| page_marker(what, self.offset, self.last, None))
    }
}

const DESCRIPTION: &str = "Files inside the roots: read, write, edit (exact unique replace, returns a unified diff), multi_edit (all or none), patch (unified diff), list, tree (honours .gitignore), find (glob), search (regex over contents), info, mkdir, mv, rm. Paths are absolute or relative to the first root and may not leave the roots. Call with {\"action\":\"help\"} for every action's fields.";

impl ActionTool for FsTool {
    type Args = FsCall;
    const ABOUT: About = About::new("fs", "Files", Hints::LOCAL_CHANGES, DESCRIPTION);
    const HELP_NOTES: &'static str =
        "Every result is capped; a line in brackets at the end says how to get the rest.";

    fn run_blocking(&self, args: FsCall, ctx: &ToolContext) -> ToolResult {
        dispatch(args, ctx)
    }
}

local_tool!(FsTool);

fn dispatch(call: FsCall, ctx: &ToolContext) -> ToolResult {
    match call {
        FsCall::Read(args) => read::read(&args, ctx),
        FsCall::Write(args) => edit::write(&args, ctx),
        FsCall::Edit(args) => edit::edit(args, ctx),
        FsCall::MultiEdit(args) => edit::multi_edit(&args, ctx),
        FsCall::Patch(args) => edit::patch(&args, ctx),
        FsCall::List(args) => manage::list(&args, ctx),
        FsCall::Tree(args) => walk::tree(&args, ctx),
        FsCall::Find(args) => walk::find(&args, ctx),
        FsCall::Search(args) => walk::search(&args, ctx),
        FsCall::Info(args) => manage::info(&args.path, ctx),
        FsCall::Mkdir(args) => manage::mkdir(&args.path, ctx),
        FsCall::Mv(args) => manage::mv(&args, ctx),
        FsCall::Rm(args) => manage::rm(&args, ctx),
    }
}
