//! The `git` tool: the machine's `git` binary on a repository inside the
//! roots, argv only, never through a shell (HIP-0300 §2.1 local tools).
//!
//! Every action runs `git` as a child in a process group of its own,
//! bounded by `timeout_ms` (default 120 000, at most 600 000; the group is
//! killed when it passes), with stdout capped at 30 000 bytes (head and
//! tail kept, a marker counting the bytes dropped). A failing command is a
//! result with `isError: true` carrying git's stderr and exit status.
//!
//! # The repository
//!
//! `path` (default: the first root) is the repository's folder or any path
//! inside its work tree; for `blame` it is the file. It must exist inside
//! the roots; repository discovery stops at the root holding it
//! (`GIT_CEILING_DIRECTORIES`), and the work tree git finds must lie
//! inside the roots too. So must, resolved, its git directory, its common
//! git directory and its object store: a `.git` file (`gitdir: ...`) or
//! symlink naming a repository elsewhere is refused, and so is an
//! `objects/info/alternates` (the repository's, or an alternate's) naming
//! an object store outside the roots. A linked worktree whose git directory
//! is in `.git/worktrees/` of a repository inside the roots is fine.
//! `init` in a folder that already has a `.git` (which it would
//! reinitialise) checks that repository the same way first.
//! `GIT_DIR`, `GIT_WORK_TREE`, `GIT_ALTERNATE_OBJECT_DIRECTORIES` and the
//! other location variables of the server's environment are not passed on.
//!
//! # Caller text never becomes an option
//!
//! - A revision, branch, tag or remote that begins with `-` is refused.
//!   Revisions are resolved with `git rev-parse --verify --end-of-options`
//!   and git gets the full object name; new branch and tag names pass
//!   `git check-ref-format`; a remote must be one the repository has
//!   configured (no URL or path).
//! - Paths are resolved inside the roots, passed as absolute paths after
//!   `--`, and read literally (`--literal-pathspecs`: no globs, no magic).
//! - Messages (commit, tag, stash) and patches go through stdin; numbers
//!   are formatted by this crate; no caller text lands in a `-c` option.
//!
//! # A repository the user did not write
//!
//! Every run has `core.fsmonitor` off, no pager (`--no-pager`,
//! `GIT_PAGER=cat`), `GIT_TERMINAL_PROMPT=0`, `GIT_EDITOR=true`, and no
//! `GIT_ASKPASS` or `SSH_ASKPASS`, so nothing waits for a person. Reading
//! actions also run without external diff drivers or textconv
//! (`--no-ext-diff --no-textconv`), without signature checks (a
//! repository's `gpg.program` is never run), without optional locks, and
//! with the clean, smudge and process filters of the repository's own
//! config turned off (those of the user's global config, such as Git LFS,
//! stay on), and without the files a config may name anywhere on the
//! machine for them: `mailmap.file` and `mailmap.blob` are emptied, and
//! `blame` drops `blame.ignoreRevsFile` (`--no-ignore-revs-file`). Writing actions keep the repository's hooks and filters: they
//! are the user's. `fetch`, `pull` and `push` run with the repository's
//! transport configuration (`core.sshCommand`, credential helpers), bounded
//! by the timeout; a submodule's own config is not inspected.
//!
//! # When no program may run
//!
//! With [`crate::ToolContext::run_programs`] `false` (the server sets it
//! when no action that runs programs is reachable in the session), every
//! action runs git alone, whatever config any scope holds: the system and
//! global files are not read (the identity and ordinary settings are
//! passed on), every key naming a program is overridden on the command
//! scope, no hook runs, only the `file`, `git`, `http` and `https`
//! transports are allowed, submodules are never entered (reading actions
//! pass `--ignore-submodules=all`, which beats a `.gitmodules` entry as no
//! config does), a writing
//! action in a repository with submodules is refused (git would run itself
//! inside each, with the submodule's own config), and a repository whose
//! config includes a file outside its own git directory is refused.
//! The details are in `src/git/lock.rs`.

mod diff;
mod history;
mod lock;
mod refs;
mod run;
mod status;
mod worktree;

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::action::{
    Action, ActionFuture, ActionTool, FILE_CHANGES, action_args, actions, local_tool,
};
use crate::capability::Capability;
use crate::context::ToolContext;
use crate::util::{Hints, ToolResult};
use run::Repo;

/// The default bound on one git command, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest `timeout_ms` accepted.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// The `git` local tool. See the module docs for the actions and the
/// safety rules.
#[derive(Debug, Default, Clone, Copy)]
pub struct GitTool;

impl GitTool {
    /// The tool.
    pub fn new() -> GitTool {
        GitTool
    }
}

actions! {
    /// Which `git` action to run.
    pub(crate) enum GitAction {
        Status = "status" { reads: true, can: [ReadFiles], pool: false, usage: "{[path]}: branch, upstream, ahead/behind, staged, unstaged, unmerged and untracked files (from porcelain v2; also as structuredContent)." },
        Diff = "diff" { reads: true, can: [ReadFiles], pool: false, usage: "{[staged], [ref], [to], [paths], [context_lines], [stat]}: unstaged changes, or staged ones, or from ref (to the work tree, or to `to`); a numstat header, then the patch capped per file and in total; stat gives the diffstat only." },
        Log = "log" { reads: true, can: [ReadFiles], pool: false, usage: "{[ref], [limit], [since], [until], [author], [grep], [paths]}: commits as `hash date author: subject (refs)`, newest first (limit, also called count: default 20, at most 1000)." },
        Show = "show" { reads: true, can: [ReadFiles], pool: false, usage: "{[ref], [paths], [stat]}: a commit (default HEAD) with its patch, or a tag, tree or blob (`HEAD:file`)." },
        Blame = "blame" { reads: true, can: [ReadFiles], pool: false, usage: "{path, [ref], [start_line], [end_line]}: who last changed each line of the file." },
        Branch = "branch" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{[subcommand], [name], [start], [force], [all]}: list (default; all adds remote branches), create name (at start, default HEAD), delete name (force deletes an unmerged branch)." },
        Switch = "switch" ["checkout"] { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{name, [create], [start], [detach]}: switch to a branch; create makes it first (at start); detach checks out a revision without a branch." },
        Add = "add" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{paths | all}: stage those paths, or every change (all)." },
        Commit = "commit" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{message, [paths], [all]}: commit what is staged, or only paths, or every tracked change (all); runs the repository's hooks when programs may run." },
        Reset = "reset" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{[ref], [mode], [paths], [confirm]}: move HEAD to ref (default HEAD); mode soft or mixed (default); hard only with confirm: true; with paths, unstage them." },
        Stash = "stash" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{[subcommand], [message], [paths], [index]}: push (default; message, paths), list, pop or drop (index, default 0)." },
        Tag = "tag" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{[subcommand], [name], [start], [message]}: list (default without name) or create name (at start, default HEAD; annotated when message is given)." },
        Remote = "remote" { reads: true, can: [ReadFiles], pool: false, usage: "{[path]}: the configured remotes with their URLs." },
        Fetch = "fetch" { reads: false, can: [WriteFiles, Network], pool: false, usage: "{[remote], [timeout_ms]}: fetch from a configured remote (default: git's choice)." },
        Pull = "pull" { reads: false, can: [ReadFiles, WriteFiles, Network], pool: false, usage: "{[remote], [name], [timeout_ms]}: fetch and integrate (the repository's pull settings; no editor)." },
        Push = "push" { reads: false, can: [ReadFiles, WriteFiles, Network], pool: false, usage: "{[remote], [name], [set_upstream], [force], [timeout_ms]}: push a branch; force is --force-with-lease, never a plain force." },
        Worktree = "worktree" { reads: true, can: [ReadFiles], pool: false, usage: "{[path]}: the repository's worktrees." },
        RevParse = "rev_parse" { reads: true, can: [ReadFiles], pool: false, usage: "{[ref]}: the full object name of ref (default HEAD)." },
        Apply = "apply" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{patch, [check], [staged]}: apply a unified diff to the work tree (staged: to the index too); check only tells whether it applies." },
        Clean = "clean" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "{[paths], [confirm]}: untracked files and folders; lists what would go unless confirm: true removes them." },
        Init = "init" { reads: false, can: [WriteFiles], pool: false, usage: "{[path], [name]}: create a repository (name: the initial branch)." },
        Help = "help" { reads: true, can: [], pool: false, usage: ": this text." },
    }
}

/// Arguments of the `git` tool: `action` plus that action's fields
/// (`{"action":"help"}` describes them).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GitArgs {
    /// status | diff | log | show | blame | branch | switch | add | commit | reset | stash | tag | remote | fetch | pull | push | worktree | rev_parse | apply | clean | init | help (also accepted: checkout = switch).
    action: GitAction,
    /// The repository: its folder or any path in its work tree (default: the first root); blame: the file; init: the folder to create it in.
    path: Option<String>,
    /// diff, log, show, add, commit, reset, stash push, clean: only these paths (absolute or relative to the first root).
    paths: Option<Vec<String>>,
    /// A revision (a branch, tag, hash, HEAD~2, ...): diff from it, log from it, show, blame at it, reset to it, rev_parse it.
    #[serde(rename = "ref")]
    rev: Option<String>,
    /// diff: the second revision (the diff goes from ref to to).
    to: Option<String>,
    /// diff: staged changes (index against HEAD, or against ref); apply: to the index too.
    staged: Option<bool>,
    /// diff: lines of context around each change (default 3).
    context_lines: Option<u32>,
    /// diff, show: the diffstat only.
    stat: Option<bool>,
    /// log: most commits (default 20, at most 1000; also accepted as count).
    #[serde(alias = "count")]
    limit: Option<u32>,
    /// log: commits after this date (anything git reads: 2024-01-31, "2 weeks ago").
    since: Option<String>,
    /// log: commits before this date.
    until: Option<String>,
    /// log: commits whose author matches this pattern.
    author: Option<String>,
    /// log: commits whose message matches this pattern.
    grep: Option<String>,
    /// blame: the first line (1-based).
    start_line: Option<u32>,
    /// blame: the last line (inclusive).
    end_line: Option<u32>,
    /// branch: list | create | delete; stash: push | list | pop | drop; tag: list | create.
    subcommand: Option<String>,
    /// branch, tag: the name to create or delete; switch: the branch (or, with detach, the revision); pull, push: the branch; init: the initial branch (also accepted as branch).
    #[serde(alias = "branch")]
    name: Option<String>,
    /// branch, tag, switch with create: where the new ref starts (default HEAD).
    start: Option<String>,
    /// switch: create the branch first.
    create: Option<bool>,
    /// switch: check out a revision without a branch.
    detach: Option<bool>,
    /// commit: the message (required).
    message: Option<String>,
    /// add: every change; commit: every tracked change; branch list: remote branches too.
    all: Option<bool>,
    /// reset: soft | mixed (default) | hard (hard needs confirm).
    mode: Option<String>,
    /// reset with mode hard, clean: really do it (clean without it only lists).
    confirm: Option<bool>,
    /// stash pop, drop: which entry (stash@{index}, default 0).
    index: Option<u32>,
    /// fetch, pull, push: a configured remote (default: git's choice).
    remote: Option<String>,
    /// push: set the branch's upstream (-u).
    set_upstream: Option<bool>,
    /// branch delete: also an unmerged branch; push: --force-with-lease.
    force: Option<bool>,
    /// apply: the unified diff.
    patch: Option<String>,
    /// apply: only check that the patch applies.
    check: Option<bool>,
    /// How long git may run, in milliseconds (default 120000, at most 600000); the process group is killed after it.
    timeout_ms: Option<u64>,
}

impl GitArgs {
    /// `timeout_ms`, checked.
    fn timeout(&self) -> Result<Duration, String> {
        match self.timeout_ms {
            None => Ok(Duration::from_millis(DEFAULT_TIMEOUT_MS)),
            Some(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Ok(Duration::from_millis(ms)),
            Some(ms) => Err(format!(
                "git: timeout_ms {ms} is out of range (1 to {MAX_TIMEOUT_MS})"
            )),
        }
    }

    /// The caller's paths, or none.
    fn paths(&self) -> &[String] {
        self.paths.as_deref().unwrap_or_default()
    }

    /// `true` when the flag is set.
    fn flag(flag: Option<bool>) -> bool {
        flag.unwrap_or(false)
    }
}

const DESCRIPTION: &str = "Git on a repository inside the roots (the machine's git, never a shell): status (also structured), diff (unstaged, staged, between refs; capped per file with a numstat header), log, show, blame, branch, switch, add, commit, reset, stash, tag, remote, fetch, pull, push (force only with lease), worktree, rev_parse, apply, clean (dry run unless confirm), init. Options can never be injected through refs, names or paths. Call with {\"action\":\"help\"} for every action's fields.";

const HELP_NOTES: &str = "path is the repository's folder (or any path in its work tree; default the first root); it, its work tree, its git directories and object stores must be inside the roots, and no path inside a .git folder is accepted.
A ref, branch, tag or remote beginning with '-' is refused; remotes must be configured ones; paths go after '--' and are literal.
Reading actions run no program the repository's config names (fsmonitor, pager, external diff, textconv, filters, gpg); writing actions keep its hooks.
When this session may run no program (no run-programs action is reachable), every action runs git alone: the system and global config are not read (your identity and ordinary settings are passed on), every config key naming a program is overridden, no hook runs, only git, http and https remotes work (a local path or file:// remote would run git with the other repository's config), bundle URIs are off, and a repository is refused when its config includes a file outside its git directory or has a conditional include (includeIf), or when its git directory is not inside a .git folder or holds a symlink (hooks/ aside); no automatic maintenance runs; these calls run one at a time, with no other call changing files meanwhile.
Each git command is bounded by timeout_ms (default 120000, at most 600000) and its output by 30000 bytes (head and tail kept); a failing command is an error with git's stderr and exit status.";

action_args!(GitArgs => GitAction);

impl ActionTool for GitTool {
    type Args = GitArgs;
    const NAME: &'static str = "git";
    const TITLE: &'static str = "Git";
    const DESCRIPTION: &'static str = DESCRIPTION;
    // Not read-only, not idempotent; fetch, pull and push reach remotes.
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };
    const STARTS_CHILDREN: bool = true;
    const HELP_NOTES: &'static str = HELP_NOTES;
    const GUARDS_FILE_CHANGES: bool = true;

    fn time_limit(&self) -> Option<Duration> {
        // Each git command is bounded by its own timeout_ms (several run per
        // call); the toolbox's bound must not cut that short.
        Some(Duration::from_millis(MAX_TIMEOUT_MS) * 2)
    }

    fn run_async<'a>(&'a self, args: GitArgs, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move { dispatch(&args, &ctx).await })
    }
}

local_tool!(GitTool);

impl GitAction {
    /// Whether the action changes the work tree or the index, where git
    /// would look inside submodules.
    fn touches_work_tree(self) -> bool {
        matches!(
            self,
            GitAction::Add
                | GitAction::Commit
                | GitAction::Reset
                | GitAction::Stash
                | GitAction::Switch
                | GitAction::Pull
                | GitAction::Apply
                | GitAction::Clean
        )
    }
}

async fn dispatch(args: &GitArgs, ctx: &ToolContext) -> ToolResult {
    let timeout = args.timeout()?;
    // While no program may run, what git may read and run is decided
    // from the repository as it is checked below; the whole call holds
    // the file-changes lock exclusively, so no other call of this process
    // changes a file (switches a branch, swaps a folder for a symlink)
    // between that check and git's last command. Otherwise a writing
    // action holds it shared, like every other tool's.
    let locked = !ctx.run_programs;
    let writes = args
        .action
        .spec()
        .capabilities
        .contains(&Capability::WriteFiles);
    let _exclusive = if locked {
        Some(FILE_CHANGES.write().await)
    } else {
        None
    };
    let _shared = if !locked && writes {
        Some(FILE_CHANGES.read().await)
    } else {
        None
    };
    if args.action == GitAction::Init {
        return worktree::init(args, ctx, timeout).await;
    }
    let mut repo = Repo::open(ctx, args.path.as_deref(), timeout).await?;
    // A locked repository (no program may run) has every filter off already.
    if args.action.spec().reads_only && ctx.run_programs {
        repo.without_repository_filters().await?;
    }
    // While no program may run, an action that changes the work tree or
    // the index is refused in a repository with submodules.
    if repo.is_locked() && args.action.touches_work_tree() {
        repo.refuse_submodules(args.action.spec().name).await?;
    }
    match args.action {
        GitAction::Status => status::status(&repo).await,
        GitAction::Diff => diff::diff(args, &repo).await,
        GitAction::Log => history::log(args, &repo).await,
        GitAction::Show => history::show(args, &repo).await,
        GitAction::Blame => history::blame(args, &repo).await,
        GitAction::RevParse => history::rev_parse(args, &repo).await,
        GitAction::Branch => refs::branch(args, &repo).await,
        GitAction::Switch => refs::switch(args, &repo).await,
        GitAction::Tag => refs::tag(args, &repo).await,
        GitAction::Remote => refs::remote(&repo).await,
        GitAction::Fetch => refs::fetch(args, &repo).await,
        GitAction::Pull => refs::pull(args, &repo).await,
        GitAction::Push => refs::push(args, &repo).await,
        GitAction::Add => worktree::add(args, &repo).await,
        GitAction::Commit => worktree::commit(args, &repo).await,
        GitAction::Reset => worktree::reset(args, &repo).await,
        GitAction::Stash => worktree::stash(args, &repo).await,
        GitAction::Worktree => worktree::worktree_list(&repo).await,
        GitAction::Apply => worktree::apply(args, &repo).await,
        GitAction::Clean => worktree::clean(args, &repo).await,
        GitAction::Init | GitAction::Help => {
            Ok(mcp_proto::CallToolResult::text(crate::action::help::<
                GitTool,
            >()))
        }
    }
}
