//! Reading history: `log`, `show`, `blame`, `rev_parse`.

use mcp_proto::CallToolResult;

use super::GitArgs;
use super::run::{Access, Repo, as_refs};
use crate::util::ToolResult;

/// Commits `log` shows by default.
const DEFAULT_LOG: u32 = 20;
/// The most commits one `log` shows.
const MAX_LOG: u32 = 1000;

/// The flags every reading command that may print a patch gets (with
/// [`Repo::submodule_flags`]).
pub(crate) const NO_PROGRAMS: [&str; 3] = ["--no-color", "--no-ext-diff", "--no-textconv"];

pub(crate) async fn log(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let limit = args.limit.unwrap_or(DEFAULT_LOG).clamp(1, MAX_LOG);
    let mut argv: Vec<String> = vec!["log".to_owned()];
    argv.extend(NO_PROGRAMS.map(str::to_owned));
    argv.extend(repo.submodule_flags().iter().map(|f| (*f).to_owned()));
    argv.push("--format=%h %as %an: %s%d".to_owned());
    argv.push(format!("--max-count={limit}"));
    // Each value shares its argv element with its option: never an option
    // of its own.
    for (option, value) in [
        ("--since", &args.since),
        ("--until", &args.until),
        ("--author", &args.author),
        ("--grep", &args.grep),
    ] {
        if let Some(value) = value {
            argv.push(format!("{option}={value}"));
        }
    }
    if let Some(rev) = &args.rev {
        argv.push(repo.revision("ref", rev).await?);
    }
    argv.push("--".to_owned());
    argv.extend(repo.paths(args.paths())?);
    let outcome = repo.run(Access::Read, &as_refs(&argv), None).await?;
    let text = repo.result("log", &outcome)?;
    Ok(CallToolResult::text(if outcome.stdout.total() == 0 {
        "no commits\n".to_owned()
    } else {
        text
    }))
}

pub(crate) async fn show(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = vec!["show".to_owned()];
    argv.extend(NO_PROGRAMS.map(str::to_owned));
    argv.extend(repo.submodule_flags().iter().map(|f| (*f).to_owned()));
    if GitArgs::flag(args.stat) {
        argv.push("--stat".to_owned());
    }
    argv.push(
        repo.revision("ref", args.rev.as_deref().unwrap_or("HEAD"))
            .await?,
    );
    argv.push("--".to_owned());
    argv.extend(repo.paths(args.paths())?);
    repo.call(Access::Read, &as_refs(&argv), None).await
}

pub(crate) async fn blame(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let path = args
        .path
        .as_deref()
        .ok_or("git blame: missing field 'path' (the file)")?;
    let file = repo.paths(&[path.to_owned()])?.remove(0);
    // `--no-ignore-revs-file` drops the files `blame.ignoreRevsFile` names:
    // any file on the machine, whose first bad line git would print (an
    // empty value in `-c` does not clear the list).
    let mut argv: Vec<String> = [
        "blame",
        "--no-progress",
        "--no-textconv",
        "--no-ignore-revs-file",
        "--date=short",
    ]
    .map(str::to_owned)
    .to_vec();
    match (args.start_line, args.end_line) {
        (None, None) => {}
        (start, end) => {
            let start = start.unwrap_or(1).max(1);
            let range = match end {
                Some(end) if end < start => {
                    return Err(format!(
                        "git blame: end_line {end} is before start_line {start}"
                    ));
                }
                Some(end) => format!("-L{start},{end}"),
                None => format!("-L{start},"),
            };
            argv.push(range);
        }
    }
    // blame does not take --end-of-options before a revision; the revision
    // is passed as the full object name rev-parse gave.
    if let Some(rev) = &args.rev {
        argv.push(repo.revision("ref", rev).await?);
    }
    argv.push("--".to_owned());
    argv.push(file);
    repo.call(Access::Read, &as_refs(&argv), None).await
}

pub(crate) async fn rev_parse(args: &GitArgs, repo: &Repo<'_>) -> ToolResult {
    let name = repo
        .revision("ref", args.rev.as_deref().unwrap_or("HEAD"))
        .await?;
    Ok(CallToolResult::text(format!("{name}\n")))
}
