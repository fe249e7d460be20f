//! Branches, tags and remotes: `branch`, `switch`, `tag`, `remote`,
//! `fetch`, `pull`, `push`.

use mcp_proto::CallToolResult;

use super::GitArgs;
use super::run::{Access, Repo, as_refs, not_an_option};
use crate::util::ToolResult;

/// `subcommand`, or `default`, checked against `known`.
fn subcommand<'a>(
    action: &str,
    args: &'a GitArgs,
    default: &'a str,
    known: &[&str],
) -> Result<&'a str, String> {
    let sub = args.subcommand.as_deref().unwrap_or(default);
    if known.contains(&sub) {
        Ok(sub)
    } else {
        Err(format!(
            "git {action}: unknown subcommand '{sub}' (accepted: {})",
            known.join(", ")
        ))
    }
}

/// `name`, or an error naming the action that needs it.
fn name<'a>(action: &str, args: &'a GitArgs) -> Result<&'a str, String> {
    args.name
        .as_deref()
        .ok_or_else(|| format!("git {action}: missing field 'name'"))
}

pub(crate) async fn branch(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let default = if args.name.is_some() {
        "create"
    } else {
        "list"
    };
    match subcommand("branch", args, default, &["list", "create", "delete"])? {
        "list" => {
            let mut argv = vec!["branch", "--list", "-vv"];
            if GitArgs::flag(args.all) {
                argv.push("--all");
            }
            repo.call(Access::Read, &argv, None).await
        }
        "create" => {
            let name = name("branch", args)?;
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
            let name = name("branch", args)?;
            not_an_option("name", name)?;
            let force = if GitArgs::flag(args.force) {
                "-D"
            } else {
                "-d"
            };
            repo.call(
                Access::Write,
                &["branch", force, "--end-of-options", name],
                None,
            )
            .await
        }
    }
}

pub(crate) async fn switch(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let name = name("switch", args)?;
    let mut argv: Vec<String> = vec!["switch".to_owned()];
    if GitArgs::flag(args.detach) {
        argv.push("--detach".to_owned());
        argv.push(repo.revision("name", name).await?);
    } else if GitArgs::flag(args.create) {
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

pub(crate) async fn tag(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let default = if args.name.is_some() {
        "create"
    } else {
        "list"
    };
    if subcommand("tag", args, default, &["list", "create"])? == "list" {
        let outcome = repo.run(Access::Read, &["tag", "--list"], None).await?;
        let text = repo.result("tag", &outcome)?;
        return Ok(CallToolResult::text(if outcome.stdout.total() == 0 {
            "no tags\n".to_owned()
        } else {
            text
        }));
    }
    let name = name("tag", args)?;
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
    args: &GitArgs,
    repo: &Repo<'_>,
) -> Result<Vec<String>, String> {
    repo.no_helper_remote(args.remote.as_deref())?;
    let mut tail = Vec::new();
    if let Some(remote) = &args.remote {
        repo.remote(remote).await?;
        tail.push(remote.clone());
    }
    if let Some(branch) = &args.name {
        if args.remote.is_none() {
            return Err(format!("git {action}: a branch (name) needs a remote"));
        }
        if branch.starts_with('+') {
            return Err(format!(
                "git {action}: name '{branch}' begins with '+' (a forced refspec) and is refused"
            ));
        }
        repo.branch_name("name", branch).await?;
        tail.push(branch.clone());
    }
    Ok(tail)
}

pub(crate) async fn fetch(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = vec!["fetch".to_owned(), "--end-of-options".to_owned()];
    argv.extend(remote_and_branch("fetch", args, repo).await?);
    repo.call(Access::Write, &as_refs(&argv), None).await
}

pub(crate) async fn pull(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = ["pull", "--no-edit", "--end-of-options"]
        .map(str::to_owned)
        .to_vec();
    argv.extend(remote_and_branch("pull", args, repo).await?);
    repo.call(Access::Write, &as_refs(&argv), None).await
}

pub(crate) async fn push(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = vec!["push".to_owned()];
    if GitArgs::flag(args.set_upstream) {
        argv.push("--set-upstream".to_owned());
    }
    if GitArgs::flag(args.force) {
        // Never a plain force: the remote branch must still be where this
        // repository last saw it.
        argv.push("--force-with-lease".to_owned());
    }
    argv.push("--end-of-options".to_owned());
    argv.extend(remote_and_branch("push", args, repo).await?);
    repo.call(Access::Write, &as_refs(&argv), None).await
}
