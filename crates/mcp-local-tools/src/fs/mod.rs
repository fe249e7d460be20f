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

use schemars::JsonSchema;
use serde::Deserialize;

use crate::action::{Action, ActionTool, action_args, actions, local_tool};
use crate::context::ToolContext;
pub(crate) use crate::util::page_marker;
use crate::util::{Hints, ToolResult};

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
    pub(crate) enum FsAction {
        Read = "read" ["read_file", "read_text_file"] { reads: true, can: [ReadFiles], pool: true, usage: "{path, [offset], [limit], [tail], [line_numbers]}: text lines of a file (offset = lines to skip, limit default 2000, tail = only the last lines); images come back as image content; other binary files are refused. Also accepted: file_path for path, head for limit." },
        Write = "write" ["write_file"] { reads: false, can: [WriteFiles], pool: true, usage: "{path, content}: create or replace a file, creating parent directories. Also accepted: file_path for path." },
        Edit = "edit" { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "{path, old_text, new_text, [replace_all], [dry_run]}: replace the exact old_text, which must occur once unless replace_all; returns a unified diff (dry_run: without writing). Files and results are limited to 16 MiB. Also accepted: file_path, old_string or oldText, new_string or newText, replaceAll, dryRun." },
        MultiEdit = "multi_edit" ["edit_file"] { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "{path, edits: [{old_text, new_text, [replace_all]}], [dry_run]}: edits in order; if any fails, the file is unchanged (dry_run: the diff without writing). Also accepted: file_path, oldText/old_string and newText/new_string in each edit, dryRun." },
        Patch = "patch" { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "{diff, [path]}: apply a unified diff (at most 100000 lines) to one or more files; all files or none. Sections naming the same file apply in order; --- /dev/null creates a file (refused if it exists); +++ /dev/null deletes it (the hunks must empty it)." },
        List = "list" { reads: true, can: [ReadFiles], pool: true, usage: "{[path], [offset], [limit]}: entries of a directory (dir/, name, link -> target)." },
        Tree = "tree" { reads: true, can: [ReadFiles], pool: true, usage: "{[path], [depth], [hidden], [offset], [limit]}: indented tree, honouring .gitignore (depth default 3)." },
        Find = "find" { reads: true, can: [ReadFiles], pool: true, usage: "{pattern, [path], [hidden], [offset], [limit]}: files whose path relative to `path` matches the glob." },
        Search = "search" ["search_text"] { reads: true, can: [ReadFiles], pool: true, usage: "{pattern, [path], [literal], [ignore_case], [context], [glob], [hidden], [offset], [limit]}: matching lines as path:line:text (context lines as path-line-text, groups split by --) in a directory or one file, honouring .gitignore." },
        Info = "info" ["stat"] { reads: true, can: [ReadFiles], pool: true, usage: "{path}: type, size, modified time, permissions." },
        Mkdir = "mkdir" { reads: false, can: [WriteFiles], pool: true, usage: "{path}: create a directory and its parents." },
        Mv = "mv" { reads: false, can: [WriteFiles], pool: true, usage: "{path, to, [overwrite]}: move or rename; refuses to replace unless overwrite." },
        Rm = "rm" { reads: false, can: [WriteFiles], pool: true, usage: "{path, [recursive]}: remove a file, or a directory with recursive." },
        Help = "help" { reads: true, can: [], pool: false, usage: ": this text." },
    }
}

/// One replacement for `edit` and `multi_edit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditSpec {
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

/// Arguments of the `fs` tool: `action` plus that action's fields
/// (`{"action":"help"}` describes them).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FsArgs {
    /// read | write | edit | multi_edit | patch | list | tree | find | search | info | mkdir | mv | rm | help (also accepted: stat = info, search_text = search).
    pub action: FsAction,
    /// File or directory, absolute or relative to the first root (list, tree, find, search default to "."; also accepted: file_path).
    #[serde(alias = "file_path")]
    pub path: Option<String>,
    /// Items to skip: lines for read, entries for list/find/tree, matches for search (default 0).
    pub offset: Option<u64>,
    /// Most items to return: lines for read (2000), entries for list/find/tree (1000), matches for search (200) (also accepted: head).
    #[serde(alias = "head")]
    pub limit: Option<u64>,
    /// read: only the last this many lines of the file.
    pub tail: Option<u64>,
    /// read: prefix each line with its number.
    pub line_numbers: Option<bool>,
    /// write: the file's new content.
    pub content: Option<String>,
    /// edit: the exact text to replace (must be unique unless replace_all; also accepted: old_string, oldText).
    #[serde(alias = "old_string", alias = "oldText")]
    pub old_text: Option<String>,
    /// edit: the replacement text (also accepted: new_string, newText).
    #[serde(alias = "new_string", alias = "newText")]
    pub new_text: Option<String>,
    /// edit: replace every occurrence (also accepted: replaceAll).
    #[serde(alias = "replaceAll")]
    pub replace_all: Option<bool>,
    /// edit, multi_edit: return the diff without writing the file (also accepted: dryRun).
    #[serde(alias = "dryRun")]
    pub dry_run: Option<bool>,
    /// multi_edit: edits applied in order to one file; all succeed or none is written.
    pub edits: Option<Vec<EditSpec>>,
    /// patch: a unified diff (one or more files; paths from its headers unless `path` is given).
    pub diff: Option<String>,
    /// tree: how many levels to show (default 3).
    pub depth: Option<u32>,
    /// find: a glob over paths relative to `path` (e.g. "**/*.rs"); search: a regular expression.
    pub pattern: Option<String>,
    /// search: treat `pattern` as literal text.
    pub literal: Option<bool>,
    /// search: ignore case.
    pub ignore_case: Option<bool>,
    /// search: lines of context before and after each match (default 0, at most 10).
    pub context: Option<u32>,
    /// search: only files whose path matches this glob (e.g. "*.rs").
    pub glob: Option<String>,
    /// tree, find, search: include hidden files (default false). .gitignore is always honoured.
    pub hidden: Option<bool>,
    /// mv: the destination path.
    pub to: Option<String>,
    /// mv: replace an existing destination.
    pub overwrite: Option<bool>,
    /// rm: remove a directory and everything in it.
    pub recursive: Option<bool>,
}

impl FsArgs {
    /// `path`, or an error naming the action that needs it.
    pub(crate) fn path(&self) -> Result<&str, String> {
        self.path
            .as_deref()
            .ok_or_else(|| format!("{}: missing field 'path'", self.action.spec().name))
    }

    /// `path`, or "." for actions that default to the first root.
    pub(crate) fn path_or_root(&self) -> &str {
        self.path.as_deref().unwrap_or(".")
    }
}

const DESCRIPTION: &str = "Files inside the roots: read, write, edit (exact unique replace, returns a unified diff), multi_edit (all or none), patch (unified diff), list, tree (honours .gitignore), find (glob), search (regex over contents), info, mkdir, mv, rm. Paths are absolute or relative to the first root and may not leave the roots. Call with {\"action\":\"help\"} for every action's fields.";

action_args!(FsArgs => FsAction);

impl ActionTool for FsTool {
    type Args = FsArgs;
    const NAME: &'static str = "fs";
    const TITLE: &'static str = "Files";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: false,
    };
    const HELP_NOTES: &'static str =
        "Every result is capped; a line in brackets at the end says how to get the rest.";

    fn run_blocking(&self, args: FsArgs, ctx: &ToolContext) -> ToolResult {
        dispatch(args, ctx)
    }
}

local_tool!(FsTool);

fn dispatch(args: FsArgs, ctx: &ToolContext) -> ToolResult {
    match args.action {
        FsAction::Read => read::read(&args, ctx),
        FsAction::Write => edit::write(&args, ctx),
        FsAction::Edit => edit::edit(&args, ctx),
        FsAction::MultiEdit => edit::multi_edit(&args, ctx),
        FsAction::Patch => edit::patch(&args, ctx),
        FsAction::List => manage::list(&args, ctx),
        FsAction::Tree => walk::tree(&args, ctx),
        FsAction::Find => walk::find(&args, ctx),
        FsAction::Search => walk::search(&args, ctx),
        FsAction::Info => manage::info(&args, ctx),
        FsAction::Mkdir => manage::mkdir(&args, ctx),
        FsAction::Mv => manage::mv(&args, ctx),
        FsAction::Rm => manage::rm(&args, ctx),
        FsAction::Help => Ok(mcp_proto::CallToolResult::text(
            crate::action::help::<FsTool>(),
        )),
    }
}
