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
//! config includes a file outside its own git directory is refused, as is
//! one with a worktree entry whose `commondir` names a folder outside the
//! roots (its branches and hashes would be shown) or whose config names a
//! TLS file (`http.sslKey`, ...) outside the roots.
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
    Action, ActionArgs, ActionFuture, ActionTool, FILE_CHANGES, NoArgs, WithCommon, actions,
    field_groups, local_tool,
};
use crate::capability::Capability;
use crate::context::ToolContext;
use crate::util::{About, Hints, ToolResult};
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
    pub(crate) enum GitAction for GitCall {
        Status(NoArgs) = "status" { reads: true, can: [ReadFiles], pool: false, usage: "branch, upstream, ahead/behind, staged, unstaged, unmerged and untracked files (from porcelain v2; also as structuredContent)." },
        Diff(diff::DiffArgs) = "diff" { reads: true, can: [ReadFiles], pool: false, usage: "unstaged changes, or staged ones, or from ref (to the work tree, or to `to`); a numstat header, then the patch capped per file and in total; stat gives the diffstat only." },
        Log(history::LogArgs) = "log" { reads: true, can: [ReadFiles], pool: false, usage: "commits as `hash date author: subject (refs)`, newest first (limit, also called count: default 20, at most 1000)." },
        Show(history::ShowArgs) = "show" { reads: true, can: [ReadFiles], pool: false, usage: "a commit (default HEAD) with its patch, or a tag, tree or blob (`HEAD:file`)." },
        Blame(history::BlameArgs) = "blame" { reads: true, can: [ReadFiles], pool: false, usage: "who last changed each line of the file." },
        Branch(refs::BranchArgs) = "branch" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "list (default; all adds remote branches), create name (at start, default HEAD), delete name (force deletes an unmerged branch)." },
        Switch(refs::SwitchArgs) = "switch" ["checkout"] { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "switch to a branch; create makes it first (at start); detach checks out a revision without a branch." },
        Add(worktree::AddArgs) = "add" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "stage paths, or every change (all); one of them is needed." },
        Commit(worktree::CommitArgs) = "commit" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "commit what is staged, or only paths, or every tracked change (all); runs the repository's hooks when programs may run." },
        Reset(worktree::ResetArgs) = "reset" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "move HEAD to ref (default HEAD); mode soft or mixed (default); hard only with confirm: true; with paths, unstage them." },
        Stash(worktree::StashArgs) = "stash" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "push (default; message, paths), list, pop or drop (index, default 0)." },
        Tag(refs::TagArgs) = "tag" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "list (default without name) or create name (at start, default HEAD; annotated when message is given)." },
        Remote(NoArgs) = "remote" { reads: true, can: [ReadFiles], pool: false, usage: "the configured remotes with their URLs." },
        Fetch(refs::RemoteArgs) = "fetch" { reads: false, can: [WriteFiles, Network], pool: false, usage: "fetch from a configured remote (default: git's choice)." },
        Pull(refs::RemoteArgs) = "pull" { reads: false, can: [ReadFiles, WriteFiles, Network], pool: false, usage: "fetch and integrate (the repository's pull settings; no editor)." },
        Push(refs::PushArgs) = "push" { reads: false, can: [ReadFiles, WriteFiles, Network], pool: false, usage: "push a branch; force is --force-with-lease, never a plain force." },
        Worktree(NoArgs) = "worktree" { reads: true, can: [ReadFiles], pool: false, usage: "the repository's worktrees." },
        RevParse(history::RevParseArgs) = "rev_parse" { reads: true, can: [ReadFiles], pool: false, usage: "the full object name of ref (default HEAD)." },
        Apply(worktree::ApplyArgs) = "apply" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "apply a unified diff to the work tree (staged: to the index too); check only tells whether it applies." },
        Clean(worktree::CleanArgs) = "clean" { reads: false, can: [ReadFiles, WriteFiles], pool: false, usage: "untracked files and folders; lists what would go unless confirm: true removes them." },
        Init(worktree::InitArgs) = "init" { reads: false, can: [WriteFiles], pool: false, usage: "create a repository (name: the initial branch)." },
    }
}

/// The fields every `git` action takes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GitCommon {
    /// The repository: its folder or any path in its work tree (default: the first root).
    pub path: Option<String>,
    /// How long git may run, in milliseconds (default 120000, at most 600000); the process group is killed after it.
    pub timeout_ms: Option<u64>,
}

field_groups! {
    /// The paths `log`, `show`, `diff`, `commit` and `clean` keep to.
    only_paths {
        /// Only these paths (absolute or relative to the first root).
        pub paths: Option<Vec<String>>,
    }

    /// `stat` of `show` and `diff`.
    diffstat {
        /// The diffstat only (default false).
        #[serde(default)]
        pub stat: bool,
    }

    /// The remote and branch of `fetch`, `pull` and `push`.
    remote_branch {
        /// A configured remote (default: git's choice).
        pub remote: Option<String>,
        /// The branch (needs remote; also accepted: branch).
        #[serde(alias = "branch")]
        pub name: Option<String>,
    }
}
// The groups the submodules' argument structs splice in.
use diffstat;
use only_paths;
use remote_branch;

/// One `git` call: the repository and timeout, and the action.
pub(crate) type Call = WithCommon<GitCommon, GitCall>;

impl Call {
    /// Where the repository is: `path` (`None`: the first root), which
    /// for `blame` is its file (`init` reads its own folder).
    fn repository(&self) -> Option<&str> {
        match &self.args {
            GitCall::Blame(args) => Some(args.path.as_str()),
            _ => self.common.path.as_deref(),
        }
    }
}

/// `timeout_ms`, checked.
fn timeout(timeout_ms: Option<u64>) -> Result<Duration, String> {
    match timeout_ms {
        None => Ok(Duration::from_millis(DEFAULT_TIMEOUT_MS)),
        Some(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Ok(Duration::from_millis(ms)),
        Some(ms) => Err(format!(
            "git: timeout_ms {ms} is out of range (1 to {MAX_TIMEOUT_MS})"
        )),
    }
}

/// The caller's `paths`, or none.
fn paths(paths: &Option<Vec<String>>) -> &[String] {
    paths.as_deref().unwrap_or_default()
}

const DESCRIPTION: &str = "Git on a repository inside the roots (the machine's git, never a shell): status (also structured), diff (unstaged, staged, between refs; capped per file with a numstat header), log, show, blame, branch, switch, add, commit, reset, stash, tag, remote, fetch, pull, push (force only with lease), worktree, rev_parse, apply, clean (dry run unless confirm), init. Options can never be injected through refs, names or paths. Call with {\"action\":\"help\"} for every action's fields.";

const HELP_NOTES: &str = "path is the repository's folder (or any path in its work tree; default the first root); it, its work tree, its git directories and object stores must be inside the roots, and no path inside a .git folder is accepted.
A ref, branch, tag or remote beginning with '-' is refused; remotes must be configured ones; paths go after '--' and are literal.
Reading actions run no program the repository's config names (fsmonitor, pager, external diff, textconv, filters, gpg) and never fetch (in a partial clone an object not yet fetched is an error); writing actions keep its hooks.
When this session may run no program (no run-programs action is reachable), every action runs git alone: the system and global config are not read (your identity and ordinary settings are passed on), every config key naming a program is overridden, no hook runs, only git, http and https remotes work (a local path or file:// remote would run git with the other repository's config), bundle URIs are off, and a repository is refused when its config includes a file outside its git directory or has a conditional include (includeIf), or when its git directory is not inside a .git folder or holds a symlink (hooks/ aside), or when a worktree entry's commondir names a folder outside the roots, or when its config names a TLS file outside the roots (http.sslCert, sslKey, sslCAInfo, sslCAPath and their proxy forms) or an fsck skip list outside the roots (fsck.skipList, fetch.fsck.skipList, receive.fsck.skipList); a mailmap.file outside the roots is not read; no automatic maintenance runs; these calls run one at a time, with no other call changing files meanwhile.
Each git command is bounded by timeout_ms (default 120000, at most 600000) and its output by 30000 bytes (head and tail kept); a failing command is an error with git's stderr and exit status.";

impl ActionTool for GitTool {
    type Args = Call;
    // Not read-only, not idempotent; fetch, pull and push reach remotes.
    const ABOUT: About = About::new("git", "Git", Hints::CHANGES_ANYWHERE, DESCRIPTION);
    const STARTS_CHILDREN: bool = true;
    const HELP_NOTES: &'static str = HELP_NOTES;
    const GUARDS_FILE_CHANGES: bool = true;

    fn time_limit(&self) -> Option<Duration> {
        // Each git command is bounded by its own timeout_ms (several run per
        // call); the toolbox's bound must not cut that short.
        Some(Duration::from_millis(MAX_TIMEOUT_MS) * 2)
    }

    fn run_async<'a>(&'a self, call: Call, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move { dispatch(&call, &ctx).await })
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

async fn dispatch(call: &Call, ctx: &ToolContext) -> ToolResult {
    let action = call.action();
    let timeout = timeout(call.common.timeout_ms)?;
    // While no program may run, what git may read and run is decided
    // from the repository as it is checked below; the whole call holds
    // the file-changes lock exclusively, so no other call of this process
    // changes a file (switches a branch, swaps a folder for a symlink)
    // between that check and git's last command. Otherwise a writing
    // action holds it shared, like every other tool's.
    let locked = !ctx.run_programs;
    let writes = action.spec().capabilities.contains(&Capability::WriteFiles);
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
    if let GitCall::Init(args) = &call.args {
        return worktree::init(args, ctx, timeout).await;
    }
    let mut repo = Repo::open(ctx, call.repository(), timeout).await?;
    // A locked repository (no program may run) has every filter off already.
    if action.spec().reads_only && ctx.run_programs {
        repo.without_repository_filters().await?;
    }
    // While no program may run, an action that changes the work tree or
    // the index is refused in a repository with submodules.
    if repo.is_locked() && action.touches_work_tree() {
        repo.refuse_submodules(action.spec().name).await?;
    }
    match &call.args {
        GitCall::Status(_) => status::status(&repo).await,
        GitCall::Diff(args) => diff::diff(args, &repo).await,
        GitCall::Log(args) => history::log(args, &repo).await,
        GitCall::Show(args) => history::show(args, &repo).await,
        GitCall::Blame(args) => history::blame(args, &repo).await,
        GitCall::RevParse(args) => history::rev_parse(args, &repo).await,
        GitCall::Branch(args) => refs::branch(args, &repo).await,
        GitCall::Switch(args) => refs::switch(args, &repo).await,
        GitCall::Tag(args) => refs::tag(args, &repo).await,
        GitCall::Remote(_) => refs::remote(&repo).await,
        GitCall::Fetch(args) => refs::fetch(args, &repo).await,
        GitCall::Pull(args) => refs::pull(args, &repo).await,
        GitCall::Push(args) => refs::push(args, &repo).await,
        GitCall::Add(args) => worktree::add(args, &repo).await,
        GitCall::Commit(args) => worktree::commit(args, &repo).await,
        GitCall::Reset(args) => worktree::reset(args, &repo).await,
        GitCall::Stash(args) => worktree::stash(args, &repo).await,
        GitCall::Worktree(_) => worktree::worktree_list(&repo).await,
        GitCall::Apply(args) => worktree::apply(args, &repo).await,
        GitCall::Clean(args) => worktree::clean(args, &repo).await,
        // Run above, before any repository is opened.
        GitCall::Init(_) => Err("git init: internal error: init opens no repository".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Call, GitCall, GitTool, timeout};
    use crate::util::parse_for_test;

    fn parse(args: Value) -> Result<Option<Call>, String> {
        parse_for_test::<GitTool>(args)
    }

    #[test]
    fn aliases_and_defaults_are_read() {
        match parse(json!({"action": "log", "count": 5, "ref": "main"})) {
            Ok(Some(Call {
                args: GitCall::Log(args),
                ..
            })) => {
                assert_eq!(args.limit, Some(5));
                assert_eq!(args.rev.as_deref(), Some("main"));
            }
            other => panic!("{other:?}"),
        }
        match parse(json!({"action": "checkout", "branch": "dev"})) {
            Ok(Some(Call {
                args: GitCall::Switch(args),
                ..
            })) => {
                assert_eq!(args.name, "dev");
                assert!(!args.create && !args.detach);
            }
            other => panic!("{other:?}"),
        }
        match parse(json!({"action": "init", "branch": "trunk", "path": "new"})) {
            Ok(Some(Call {
                args: GitCall::Init(args),
                common,
            })) => {
                assert_eq!(args.name.as_deref(), Some("trunk"));
                // Init's folder is its own field, not the repository's.
                assert_eq!(args.path.as_deref(), Some("new"));
                assert_eq!(common.path, None);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_action_names_its_repository_and_timeout() {
        let call = |args| parse(args).unwrap().unwrap();
        let blame = call(json!({"action": "blame", "path": "src/a.rs", "timeout_ms": 5}));
        assert_eq!(blame.repository(), Some("src/a.rs"));
        assert_eq!(blame.common.timeout_ms, Some(5));
        let status = call(json!({"action": "status"}));
        assert_eq!(status.repository(), None);
        assert_eq!(status.common.timeout_ms, None);
        let push = call(json!({"action": "push", "path": "sub"}));
        assert_eq!(push.repository(), Some("sub"));
    }

    #[test]
    fn a_field_the_action_does_not_take_is_refused() {
        let text = parse(json!({"action": "status", "paths": ["a"]})).unwrap_err();
        assert_eq!(
            text,
            "status: unknown field `paths`, expected `path` or `timeout_ms`"
        );
        let text = parse(json!({"action": "rev_parse", "paths": ["a"]})).unwrap_err();
        assert_eq!(
            text,
            "rev_parse: unknown field `paths`, expected one of `path`, `timeout_ms`, `ref`"
        );
        let text = parse(json!({"action": "blame", "path": "a", "paths": ["a"]})).unwrap_err();
        assert!(
            text.starts_with("blame: unknown field `paths`, expected one of `timeout_ms`, `path`,"),
            "{text}"
        );
        let text = parse(json!({"action": "log", "limit": 1, "count": 2})).unwrap_err();
        assert!(text.contains("duplicate field"), "{text}");
        let text = parse(json!({"action": "help", "path": "a"})).unwrap_err();
        assert!(text.starts_with("help: unknown field `path`"), "{text}");
    }

    #[test]
    fn help_is_left_to_the_framework() {
        assert!(parse(json!({"action": "help"})).unwrap().is_none());
    }

    #[test]
    fn timeout_ms_is_checked() {
        assert_eq!(timeout(None).unwrap().as_millis(), 120_000);
        assert_eq!(timeout(Some(600_000)).unwrap().as_millis(), 600_000);
        assert_eq!(
            timeout(Some(0)).unwrap_err(),
            "git: timeout_ms 0 is out of range (1 to 600000)"
        );
        assert!(timeout(Some(600_001)).is_err());
    }
}
