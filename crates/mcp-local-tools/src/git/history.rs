//! Reading history: `log`, `show`, `blame`, `rev_parse`.

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;

use super::run::{Access, Repo, as_refs};
use super::{diffstat, only_paths, paths};
use crate::action::arguments;
use crate::util::ToolResult;

/// Commits `log` shows by default.
const DEFAULT_LOG: u32 = 20;
/// The most commits one `log` shows.
const MAX_LOG: u32 = 1000;

/// The flags every reading command that may print a patch gets (with
/// [`Repo::submodule_flags`]).
pub(crate) const NO_PROGRAMS: [&str; 3] = ["--no-color", "--no-ext-diff", "--no-textconv"];

arguments! {
    /// Arguments of `git log`.
    pub(crate) struct LogArgs {
        /// The revision to list from (a branch, tag, hash, HEAD~2, ...; default HEAD).
        #[serde(rename = "ref")]
        pub rev: Option<String>,
        /// Most commits (default 20, at most 1000; also accepted: count).
        #[serde(alias = "count")]
        pub limit: Option<u32>,
        /// Commits after this date (anything git reads: 2024-01-31, "2 weeks ago").
        pub since: Option<String>,
        /// Commits before this date.
        pub until: Option<String>,
        /// Commits whose author matches this pattern.
        pub author: Option<String>,
        /// Commits whose message matches this pattern.
        pub grep: Option<String>,
        ..only_paths,
    }
}

arguments! {
    /// Arguments of `git show`.
    pub(crate) struct ShowArgs {
        /// What to show (default HEAD): a revision (a branch, tag, hash, HEAD~2, ...), or a tree or blob (`HEAD:file`).
        #[serde(rename = "ref")]
        pub rev: Option<String>,
        ..only_paths,
        ..diffstat,
    }
}

/// Arguments of `git blame`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BlameArgs {
    /// The file, absolute or relative to the first root; its repository is the one it lies in.
    pub path: String,
    /// The revision to blame at (a branch, tag, hash, HEAD~2, ...; default: the file in the work tree).
    #[serde(rename = "ref")]
    pub rev: Option<String>,
    /// The first line (1-based).
    pub start_line: Option<u32>,
    /// The last line (inclusive).
    pub end_line: Option<u32>,
}

/// Arguments of `git rev_parse`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RevParseArgs {
    /// The revision to resolve (a branch, tag, hash, HEAD~2, ...; default HEAD).
    #[serde(rename = "ref")]
    pub rev: Option<String>,
}

pub(crate) async fn log(args: &LogArgs, repo: &Repo<'_>) -> ToolResult {
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
    argv.extend(repo.paths(paths(&args.paths))?);
    let outcome = repo.run(Access::Read, &as_refs(&argv), None).await?;
    let text = repo.result("log", &outcome)?;
    Ok(CallToolResult::text(if outcome.stdout.total() == 0 {
        "no commits\n".to_owned()
    } else {
        text
    }))
}

pub(crate) async fn show(args: &ShowArgs, repo: &Repo<'_>) -> ToolResult {
    let mut argv: Vec<String> = vec!["show".to_owned()];
    argv.extend(NO_PROGRAMS.map(str::to_owned));
    argv.extend(repo.submodule_flags().iter().map(|f| (*f).to_owned()));
    if args.stat {
        argv.push("--stat".to_owned());
    }
    argv.push(
        repo.revision("ref", args.rev.as_deref().unwrap_or("HEAD"))
            .await?,
    );
    argv.push("--".to_owned());
    argv.extend(repo.paths(paths(&args.paths))?);
    repo.call(Access::Read, &as_refs(&argv), None).await
}

pub(crate) async fn blame(args: &BlameArgs, repo: &Repo<'_>) -> ToolResult {
    let file = repo.paths(std::slice::from_ref(&args.path))?.remove(0);
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

pub(crate) async fn rev_parse(args: &RevParseArgs, repo: &Repo<'_>) -> ToolResult {
    let name = repo
        .revision("ref", args.rev.as_deref().unwrap_or("HEAD"))
        .await?;
    Ok(CallToolResult::text(format!("{name}\n")))
}
