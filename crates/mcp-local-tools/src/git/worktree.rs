//! Changing the work tree and the index: `add`, `commit`, `reset`,
//! `stash`, `apply`, `clean`, `init`, and listing worktrees.

use std::time::Duration;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;

use super::run::{Access, Repo, as_refs, not_an_option};
use super::{only_paths, paths};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::util::ToolResult;

/// Arguments of `git add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AddArgs {
    /// The paths to stage (absolute or relative to the first root).
    pub paths: Option<Vec<String>>,
    /// Stage every change (default false).
    #[serde(default)]
    pub all: bool,
}

arguments! {
    /// Arguments of `git commit`.
    pub(crate) struct CommitArgs {
        /// The commit message.
        pub message: String,
        ..only_paths,
        /// Commit every tracked change (default false).
        #[serde(default)]
        pub all: bool,
    }
}

/// Arguments of `git reset`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResetArgs {
    /// The revision to move HEAD to (a branch, tag, hash, HEAD~2, ...; default HEAD).
    #[serde(rename = "ref")]
    pub rev: Option<String>,
    /// soft | mixed (default) | hard (hard needs confirm).
    pub mode: Option<String>,
    /// Unstage only these paths (absolute or relative to the first root).
    pub paths: Option<Vec<String>>,
    /// Really do a hard reset (default false).
    #[serde(default)]
    pub confirm: bool,
}

/// Arguments of `git stash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StashArgs {
    /// push (default) | list | pop | drop.
    pub subcommand: Option<String>,
    /// The message of the entry push makes.
    pub message: Option<String>,
    /// What push stashes: only these paths (absolute or relative to the first root).
    pub paths: Option<Vec<String>>,
    /// Which entry pop and drop take (stash@{index}, default 0).
    pub index: Option<u32>,
}

/// Arguments of `git apply`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApplyArgs {
    /// The unified diff.
    pub patch: String,
    /// Only check that the patch applies (default false).
    #[serde(default)]
    pub check: bool,
    /// Apply to the index too (default false).
    #[serde(default)]
    pub staged: bool,
}

arguments! {
    /// Arguments of `git clean`.
    pub(crate) struct CleanArgs {
        ..only_paths,
        /// Really remove them (default false: only list what would go).
        #[serde(default)]
        pub confirm: bool,
    }
}

/// Arguments of `git init`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct InitArgs {
    /// The folder to create the repository in (default: the first root).
    pub path: Option<String>,
    /// The initial branch (also accepted: branch).
    #[serde(alias = "branch")]
    pub name: Option<String>,
}

/// `git <first...> -- <paths>` as an argv.
fn with_paths(first: &[&str], paths: Vec<String>) -> Vec<String> {
    let mut argv: Vec<String> = first.iter().map(|a| (*a).to_owned()).collect();
    argv.push("--".to_owned());
    argv.extend(paths);
    argv
}

/// `text`, or `empty` when the command printed nothing.
fn or_when_silent(text: String, outcome_empty: bool, empty: &str) -> CallToolResult {
    CallToolResult::text(if outcome_empty {
        empty.to_owned()
    } else {
        text
    })
}

pub(crate) async fn add(args: &AddArgs, repo: &Repo<'_>) -> ToolResult {
    let all = args.all;
    if paths(&args.paths).is_empty() && !all {
        return Err("git add: give paths, or all: true for every change".to_owned());
    }
    let first: &[&str] = if all { &["add", "--all"] } else { &["add"] };
    let argv = with_paths(first, repo.paths(paths(&args.paths))?);
    let outcome = repo.run(Access::Write, &as_refs(&argv), None).await?;
    let text = repo.result("add", &outcome)?;
    let silent = outcome.stdout.total() == 0 && outcome.stderr.total() == 0;
    Ok(or_when_silent(text, silent, "staged\n"))
}

pub(crate) async fn commit(args: &CommitArgs, repo: &Repo<'_>) -> ToolResult {
    let message = args.message.as_str();
    if message.trim().is_empty() {
        return Err("git commit: message is empty".to_owned());
    }
    // The message goes through stdin: no caller text in the argv.
    let mut first = vec!["commit", "--file=-"];
    if args.all {
        first.push("--all");
    }
    let paths = repo.paths(paths(&args.paths))?;
    let argv = if paths.is_empty() {
        first.iter().map(|a| (*a).to_owned()).collect()
    } else {
        with_paths(&first, paths)
    };
    repo.call(Access::Write, &as_refs(&argv), Some(message.to_owned()))
        .await
}

pub(crate) async fn reset(args: &ResetArgs, repo: &Repo<'_>) -> ToolResult {
    let mode = args.mode.as_deref().unwrap_or("mixed");
    let flag = match mode {
        "soft" => "--soft",
        "mixed" => "--mixed",
        "hard" if args.confirm => "--hard",
        "hard" => {
            return Err(
                "git reset: mode hard discards uncommitted changes; pass confirm: true to do it"
                    .to_owned(),
            );
        }
        other => {
            return Err(format!(
                "git reset: unknown mode '{other}' (accepted: soft, mixed, hard)"
            ));
        }
    };
    let target = match &args.rev {
        Some(rev) => Some(repo.revision("ref", rev).await?),
        None => None,
    };
    let paths = repo.paths(paths(&args.paths))?;
    let mut argv: Vec<String> = vec!["reset".to_owned()];
    if paths.is_empty() {
        argv.push(flag.to_owned());
        argv.extend(target);
    } else {
        if mode != "mixed" {
            return Err("git reset: paths can only be unstaged (mode mixed)".to_owned());
        }
        argv.extend(target);
        argv.push("--".to_owned());
        argv.extend(paths);
    }
    let outcome = repo.run(Access::Write, &as_refs(&argv), None).await?;
    let text = repo.result("reset", &outcome)?;
    let silent = outcome.stdout.total() == 0 && outcome.stderr.total() == 0;
    Ok(or_when_silent(text, silent, "reset done\n"))
}

pub(crate) async fn stash(args: &StashArgs, repo: &Repo<'_>) -> ToolResult {
    let sub = args.subcommand.as_deref().unwrap_or("push");
    let entry = format!("stash@{{{}}}", args.index.unwrap_or(0));
    match sub {
        "push" => {
            let mut first = vec!["stash".to_owned(), "push".to_owned()];
            if let Some(message) = &args.message {
                // One argv element: the message is never an option.
                first.push(format!("--message={message}"));
            }
            let mut argv = first;
            let paths = repo.paths(paths(&args.paths))?;
            if !paths.is_empty() {
                argv.push("--".to_owned());
                argv.extend(paths);
            }
            repo.call(Access::Write, &as_refs(&argv), None).await
        }
        "list" => {
            let outcome = repo.run(Access::Read, &["stash", "list"], None).await?;
            let text = repo.result("stash", &outcome)?;
            Ok(or_when_silent(
                text,
                outcome.stdout.total() == 0,
                "no stashes\n",
            ))
        }
        "pop" | "drop" => {
            repo.call(
                Access::Write,
                &["stash", sub, "--end-of-options", &entry],
                None,
            )
            .await
        }
        other => Err(format!(
            "git stash: unknown subcommand '{other}' (accepted: push, list, pop, drop)"
        )),
    }
}

/// `git worktree list`. While no program may run, a worktree outside the
/// roots is listed without git's `prunable` mark: that mark says whether
/// the path its entry names exists, and an entry (`.git/worktrees/<id>/gitdir`
/// in a repository found in the roots) can name any path.
pub(crate) async fn worktree_list(repo: &Repo<'_>) -> ToolResult {
    if !repo.is_locked() {
        return repo.call(Access::Read, &["worktree", "list"], None).await;
    }
    let porcelain = repo
        .run(
            Access::Read,
            &["worktree", "list", "--porcelain", "-z"],
            None,
        )
        .await?;
    let records = repo.result("worktree", &porcelain)?;
    let hidden: Vec<String> = records
        .split("\0\0")
        .filter_map(|record| {
            let mut fields = record.split('\0');
            let path = fields.next()?.strip_prefix("worktree ")?;
            let prunable = fields.any(|f| f == "prunable" || f.starts_with("prunable "));
            (prunable && repo.roots().resolve(path).is_err()).then(|| path.to_owned())
        })
        .collect();
    let listing = repo.run(Access::Read, &["worktree", "list"], None).await?;
    let text = repo.result("worktree", &listing)?;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let outside = hidden.iter().any(|path| {
            body.strip_prefix(path.as_str())
                .is_some_and(|rest| rest.starts_with(' '))
        });
        match body.strip_suffix(" prunable") {
            Some(kept) if outside => {
                out.push_str(kept.trim_end());
                out.push_str(&line[body.len()..]);
            }
            _ => out.push_str(line),
        }
    }
    Ok(CallToolResult::text(out))
}

pub(crate) async fn apply(args: &ApplyArgs, repo: &Repo<'_>) -> ToolResult {
    let patch = args.patch.as_str();
    let check = args.check;
    let mut argv = vec!["apply"];
    if check {
        argv.push("--check");
    }
    if args.staged {
        argv.push("--index");
    }
    // The patch comes through stdin.
    argv.push("-");
    let outcome = repo
        .run(Access::Write, &argv, Some(patch.to_owned()))
        .await?;
    let text = repo.result("apply", &outcome)?;
    let silent = outcome.stdout.total() == 0 && outcome.stderr.total() == 0;
    let done = if check {
        "the patch applies\n"
    } else {
        "patch applied\n"
    };
    Ok(or_when_silent(text, silent, done))
}

pub(crate) async fn clean(args: &CleanArgs, repo: &Repo<'_>) -> ToolResult {
    let confirm = args.confirm;
    let first = ["clean", "-d", if confirm { "--force" } else { "--dry-run" }];
    let argv = with_paths(&first, repo.paths(paths(&args.paths))?);
    let outcome = repo.run(Access::Write, &as_refs(&argv), None).await?;
    let text = repo.result("clean", &outcome)?;
    if outcome.stdout.total() == 0 {
        return Ok(CallToolResult::text("nothing to clean\n"));
    }
    Ok(CallToolResult::text(if confirm {
        text
    } else {
        format!("{text}(dry run: nothing removed; pass confirm: true to remove these)\n")
    }))
}

pub(crate) async fn init(args: &InitArgs, ctx: &ToolContext, timeout: Duration) -> ToolResult {
    let (mut repo, target) = Repo::for_init(ctx, args.path.as_deref(), timeout)?;
    if !ctx.run_programs {
        let base = repo.cwd().to_path_buf();
        repo.lock(&base, &[]).await?;
    }
    if std::fs::symlink_metadata(target.join(".git")).is_ok() {
        // git init there reinitialises the repository its `.git` names,
        // which a `.git` file or symlink may place anywhere: it must pass
        // the checks of every other action first.
        Repo::open(ctx, args.path.as_deref(), timeout).await?;
    }
    let mut argv = vec!["init".to_owned()];
    if let Some(name) = &args.name {
        not_an_option("name", name)?;
        repo.branch_name("name", name).await?;
        argv.push(format!("--initial-branch={name}"));
    }
    argv.push("--end-of-options".to_owned());
    argv.push(target.to_string_lossy().into_owned());
    repo.call(Access::Write, &as_refs(&argv), None).await
}
