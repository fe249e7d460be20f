//! Branches, tags and remotes: `branch`, `switch`, `tag`, `remote`,
//! `fetch`, `pull`, `push`.

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;

use super::remote_branch;
use super::run::{Access, Repo, as_refs, not_an_option};
use crate::action::arguments;
use crate::util::ToolResult;

/// Arguments of `git branch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BranchArgs {
    /// list | create | delete (default: create when name is given, list otherwise).
    pub subcommand: Option<String>,
    /// The branch to create or delete (needed by create and delete; also accepted: branch).
    #[serde(alias = "branch")]
    pub name: Option<String>,
    /// Where a new branch starts (default HEAD).
    pub start: Option<String>,
    /// Delete the branch even when it is not merged (default false).
    #[serde(default)]
    pub force: bool,
    /// List remote branches too (default false).
    #[serde(default)]
    pub all: bool,
}

/// Arguments of `git switch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SwitchArgs {
    /// The branch (or, with detach, the revision) to switch to (also accepted: branch).
    #[serde(alias = "branch")]
    pub name: String,
    /// Create the branch first (default false).
    #[serde(default)]
    pub create: bool,
    /// Where a created branch starts (default HEAD).
    pub start: Option<String>,
    /// Check out a revision without a branch (default false).
    #[serde(default)]
    pub detach: bool,
}

/// Arguments of `git tag`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TagArgs {
    /// list | create (default: create when name is given, list otherwise).
    pub subcommand: Option<String>,
    /// The tag to create (needed by create; also accepted: branch).
    #[serde(alias = "branch")]
    pub name: Option<String>,
    /// Where the new tag points (default HEAD).
    pub start: Option<String>,
    /// The message of an annotated tag (without it the tag is lightweight).
    pub message: Option<String>,
}

arguments! {
    /// Arguments of `git fetch` and `git pull`.
    pub(crate) struct RemoteArgs {
        ..remote_branch,
    }
}

arguments! {
    /// Arguments of `git push`.
    pub(crate) struct PushArgs {
        ..remote_branch,
        /// Set the branch's upstream (-u; default false).
        #[serde(default)]
        pub set_upstream: bool,
        /// Push with --force-with-lease, never a plain force (default false).
        #[serde(default)]
        pub force: bool,
    }
}

/// `subcommand`, or `default`, checked against `known`.
fn subcommand<'a>(
    action: &str,
    subcommand: Option<&'a str>,
    default: &'a str,
    known: &[&str],
) -> Result<&'a str, String> {
    let sub = subcommand.unwrap_or(default);
    if known.contains(&sub) {
        Ok(sub)
    } else {
        Err(format!(
            "git {action}: unknown subcommand '{sub}' (accepted: {})",
            known.join(", ")
        ))
    }
}

/// `name`, or an error naming the action whose subcommand needs it.
fn name<'a>(action: &str, name: Option<&'a str>) -> Result<&'a str, String> {
    name.ok_or_else(|| format!("git {action}: missing field 'name'"))
}

pub(crate) async fn branch(args: &BranchArgs, repo: &Repo<'_>) -> ToolResult {
    let default = if args.name.is_some() {
        "create"
    } else {
        "list"
    };
    let sub = args.subcommand.as_deref();
    match subcommand("branch", sub, default, &["list", "create", "delete"])? {
        "list" => {
            let mut argv = vec!["branch", "--list", "-vv"];
            if args.all {
                argv.push("--all");
            }
            repo.call(Access::Read, &argv, None).await
        }
        "create" => {
            let name = name("branch", args.name.as_deref())?;
            repo.branch_name("name", name).await?;
            let mut argv = vec![
                "branch".to_owned(),
                "--end-of-options".to_owned(),
                name.to_owned(),
            ];
            if let Some(start) = &args.start {
                argv.push(repo.revision("start", start).await?);
            }
            let outcome = repo.run(Access::Write, &as_refs(&argv), None).await?;
            let text = repo.result("branch", &outcome)?;
            Ok(CallToolResult::text(
                if outcome.stdout.total() == 0 && outcome.stderr.total() == 0 {
                    format!("Created branch '{name}'.\n")
                } else {
                    text
                },
            ))
        }
        _ => {
            let name = name("branch", args.name.as_deref())?;
            not_an_option("name", name)?;
            let force = if args.force { "-D" } else { "-d" };
            repo.call(
                Access::Write,
                &["branch", force, "--end-of-options", name],
                None,
            )
            .await
        }
    }
}

pub(crate) async fn switch(args: &SwitchArgs, repo: &Repo<'_>) -> ToolResult {
    let name = args.name.as_str();
    let mut argv: Vec<String> = vec!["switch".to_owned()];
    if args.detach {
        argv.push("--detach".to_owned());
        argv.push(repo.revision("name", name).await?);
    } else if args.create {
        repo.branch_name("name", name).await?;
        argv.push(format!("--create={name}"));
        if let Some(start) = &args.start {
            argv.push(repo.revision("start", start).await?);
        }
    } else {
        not_an_option("name", name)?;
        argv.push("--end-of-options".to_owned());
        argv.push(name.to_owned());
    }
    repo.call(Access::Write, &as_refs(&argv), None).await
}

pub(crate) async fn tag(args: &TagArgs, repo: &Repo<'_>) -> ToolResult {
    let default = if args.name.is_some() {
        "create"
    } else {
        "list"
    };
    if subcommand(
        "tag",
        args.subcommand.as_deref(),
        default,
        &["list", "create"],
    )? == "list"
    {
        let outcome = repo.run(Access::Read, &["tag", "--list"], None).await?;
        let text = repo.result("tag", &outcome)?;
        return Ok(CallToolResult::text(if outcome.stdout.total() == 0 {
            "no tags\n".to_owned()
        } else {
            text
        }));
    }
    let name = name("tag", args.name.as_deref())?;
    repo.tag_name("name", name).await?;
    let mut argv: Vec<String> = vec!["tag".to_owned()];
    let stdin = args.message.clone();
    if stdin.is_some() {
        // Annotated; the message comes through stdin.
        argv.extend(["--annotate", "--file=-"].map(str::to_owned));
    }
    argv.push("--end-of-options".to_owned());
    argv.push(name.to_owned());
    if let Some(start) = &args.start {
        argv.push(repo.revision("start", start).await?);
    }
    let outcome = repo.run(Access::Write, &as_refs(&argv), stdin).await?;
    let text = repo.result("tag", &outcome)?;
    Ok(CallToolResult::text(
        if outcome.stdout.total() == 0 && outcome.stderr.total() == 0 {
            format!("Created tag '{name}'.\n")
        } else {
            text
        },
    ))
}

pub(crate) async fn remote(repo: &Repo<'_>) -> ToolResult {
    let outcome = repo.run(Access::Read, &["remote", "-v"], None).await?;
    let text = repo.result("remote", &outcome)?;
    Ok(CallToolResult::text(if outcome.stdout.total() == 0 {
        "no remotes\n".to_owned()
    } else {
        text
    }))
}

/// The `remote` and branch `name` of fetch, pull and push, checked, as
/// the argv tail after `--end-of-options`. A branch alone needs a remote;
/// a branch may not begin with `+` (a forced refspec) and must be a valid
/// branch name (no `:`, so no deleting refspec).
async fn remote_and_branch(
    action: &str,
    remote: Option<&str>,
    branch: Option<&str>,
    repo: &Repo<'_>,
) -> Result<Vec<String>, String> {
    repo.no_helper_remote(remote)?;
    let mut tail = Vec::new();
    if let Some(remote) = remote {
        repo.remote(remote).await?;
        tail.push(remote.to_owned());
    }
    if let Some(branch) = branch {
        if remote.is_none() {
            return Err(format!("git {action}: a branch (name) needs a remote"));
        }
        if branch.starts_with('+') {
            return Err(format!(
                "git {action}: name '{branch}' begins with '+' (a forced refspec) and is refused"
            ));
        }
        repo.branch_name("name", branch).await?;
        tail.push(branch.to_owned());
    }
    Ok(tail)
}

pub(crate) async fn fetch(args: &RemoteArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = vec!["fetch".to_owned(), "--end-of-options".to_owned()];
    let (remote, branch) = (args.remote.as_deref(), args.name.as_deref());
    argv.extend(remote_and_branch("fetch", remote, branch, repo).await?);
    repo.call(Access::Write, &as_refs(&argv), None).await
}

pub(crate) async fn pull(args: &RemoteArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = ["pull", "--no-edit", "--end-of-options"]
        .map(str::to_owned)
        .to_vec();
    let (remote, branch) = (args.remote.as_deref(), args.name.as_deref());
    argv.extend(remote_and_branch("pull", remote, branch, repo).await?);
    repo.call(Access::Write, &as_refs(&argv), None).await
}

pub(crate) async fn push(args: &PushArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = vec!["push".to_owned()];
    if args.set_upstream {
        argv.push("--set-upstream".to_owned());
    }
    if args.force {
        // Never a plain force: the remote branch must still be where this
        // repository last saw it.
        argv.push("--force-with-lease".to_owned());
    }
    argv.push("--end-of-options".to_owned());
    let (remote, branch) = (args.remote.as_deref(), args.name.as_deref());
    argv.extend(remote_and_branch("push", remote, branch, repo).await?);
    repo.call(Access::Write, &as_refs(&argv), None).await
}
