//! `git status`: `git status --porcelain=v2 --branch -z`, parsed into a
//! short text (a path holding a control character, `"` or `\` quoted as
//! git quotes it) and `structuredContent` (paths as they are).

use mcp_proto::CallToolResult;
use serde::Serialize;

use super::run::{Access, Repo, quoted_path};
use crate::util::ToolResult;

/// The branch headers of porcelain v2.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct Branch {
    /// The commit checked out; `None` before the first commit.
    pub(crate) oid: Option<String>,
    /// The branch name; `None` when HEAD is detached.
    pub(crate) head: Option<String>,
    /// The upstream branch, if set.
    pub(crate) upstream: Option<String>,
    /// Commits ahead of the upstream.
    pub(crate) ahead: Option<u64>,
    /// Commits behind the upstream.
    pub(crate) behind: Option<u64>,
}

/// One path of porcelain v2.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `changed`, `renamed` (or copied), `unmerged`, `untracked`, `ignored`.
    pub(crate) kind: &'static str,
    /// The path, relative to the work tree's top.
    pub(crate) path: String,
    /// For `renamed`: the path it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) orig_path: Option<String>,
    /// The index (staged) status letter; `.` when unchanged.
    pub(crate) index: String,
    /// The work tree (unstaged) status letter; `.` when unchanged.
    pub(crate) worktree: String,
}

/// All of porcelain v2.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct Status {
    pub(crate) branch: Branch,
    pub(crate) entries: Vec<Entry>,
    /// True when no entry is there (ignored files aside).
    pub(crate) clean: bool,
}

pub(crate) async fn status(repo: &Repo<'_>) -> ToolResult {
    let mut argv = vec!["status", "--porcelain=v2", "--branch", "-z"];
    // `status` takes the first of them only (no `--submodule`).
    argv.extend(repo.submodule_flags().first());
    let outcome = repo
        .run_capped(
            Access::Read,
            &argv,
            None,
            // Parsed, not shown: kept whole up to a large bound.
            16 * 1024 * 1024,
        )
        .await?;
    repo.result("status", &outcome)?;
    if outcome.stdout.dropped() > 0 {
        return Err("git status: more than 16 MiB of output; pass a narrower path".to_owned());
    }
    let raw = outcome.stdout.text("");
    let parsed = parse(&raw)?;
    let text = render(&parsed);
    let mut result = CallToolResult::text(text);
    result.structured_content =
        Some(serde_json::to_value(&parsed).map_err(|e| format!("git status: {e}"))?);
    Ok(result)
}

/// Parses `git status --porcelain=v2 --branch -z` output.
pub(crate) fn parse(raw: &str) -> Result<Status, String> {
    let mut status = Status::default();
    let mut fields = raw.split('\0').filter(|f| !f.is_empty());
    let bad = |record: &str| format!("git status: unexpected porcelain v2 record '{record}'");
    while let Some(record) = fields.next() {
        if let Some(header) = record.strip_prefix("# ") {
            let (key, value) = header.split_once(' ').unwrap_or((header, ""));
            let b = &mut status.branch;
            match key {
                "branch.oid" if value != "(initial)" => b.oid = Some(value.to_owned()),
                "branch.head" if value != "(detached)" => b.head = Some(value.to_owned()),
                "branch.upstream" => b.upstream = Some(value.to_owned()),
                "branch.ab" => {
                    let mut parts = value.split(' ');
                    b.ahead = parts
                        .next()
                        .and_then(|a| a.trim_start_matches('+').parse().ok());
                    b.behind = parts
                        .next()
                        .and_then(|a| a.trim_start_matches('-').parse().ok());
                }
                _ => {}
            }
            continue;
        }
        let (tag, rest) = record.split_once(' ').ok_or_else(|| bad(record))?;
        let entry = match tag {
            // 1 XY sub mH mI mW hH hI path
            "1" => changed("changed", rest, 6, None).ok_or_else(|| bad(record))?,
            // 2 XY sub mH mI mW hH hI Xscore path, then the original path
            "2" => {
                let orig = fields.next().ok_or_else(|| bad(record))?;
                changed("renamed", rest, 7, Some(orig)).ok_or_else(|| bad(record))?
            }
            // u XY sub m1 m2 m3 mW h1 h2 h3 path
            "u" => changed("unmerged", rest, 8, None).ok_or_else(|| bad(record))?,
            "?" => plain("untracked", rest),
            "!" => plain("ignored", rest),
            _ => return Err(bad(record)),
        };
        status.entries.push(entry);
    }
    status.clean = status.entries.iter().all(|e| e.kind == "ignored");
    Ok(status)
}

/// An entry whose record is `XY` then `skip` more fields, then the path.
fn changed(kind: &'static str, rest: &str, skip: usize, orig: Option<&str>) -> Option<Entry> {
    let mut parts = rest.splitn(skip + 2, ' ');
    let xy = parts.next()?;
    let path = parts.nth(skip)?;
    let mut letters = xy.chars();
    Some(Entry {
        kind,
        path: path.to_owned(),
        orig_path: orig.map(str::to_owned),
        index: letters.next()?.to_string(),
        worktree: letters.next()?.to_string(),
    })
}

fn plain(kind: &'static str, path: &str) -> Entry {
    let letter = if kind == "untracked" { "?" } else { "!" };
    Entry {
        kind,
        path: path.to_owned(),
        orig_path: None,
        index: letter.to_owned(),
        worktree: letter.to_owned(),
    }
}

/// What a status letter means.
fn word(letter: &str) -> &'static str {
    match letter {
        "M" => "modified",
        "T" => "type changed",
        "A" => "added",
        "D" => "deleted",
        "R" => "renamed",
        "C" => "copied",
        "U" => "unmerged",
        _ => "changed",
    }
}

/// The text of a status: the branch line, then one section per kind of
/// change, or `nothing to commit, working tree clean`.
pub(crate) fn render(status: &Status) -> String {
    let mut text = branch_lines(&status.branch);
    let tracked = || {
        status
            .entries
            .iter()
            .filter(|e| matches!(e.kind, "changed" | "renamed"))
    };
    let of_kind = |kind: &'static str| status.entries.iter().filter(move |e| e.kind == kind);
    let sections = [
        (
            "Staged:",
            tracked()
                .filter(|e| e.index != ".")
                .map(|e| change_line(e, &e.index))
                .collect::<Vec<_>>(),
        ),
        (
            "Not staged:",
            tracked()
                .filter(|e| e.worktree != ".")
                .map(|e| {
                    // The work tree side of a rename is the renamed file.
                    let plain = Entry {
                        orig_path: None,
                        ..e.clone()
                    };
                    change_line(&plain, &e.worktree)
                })
                .collect(),
        ),
        (
            "Unmerged:",
            of_kind("unmerged")
                .map(|e| format!("  {}{}: {}\n", e.index, e.worktree, quoted_path(&e.path)))
                .collect(),
        ),
        (
            "Untracked:",
            of_kind("untracked")
                .map(|e| format!("  {}\n", quoted_path(&e.path)))
                .collect(),
        ),
    ];
    for (title, lines) in sections {
        if !lines.is_empty() {
            text.push_str(title);
            text.push('\n');
            lines.iter().for_each(|l| text.push_str(l));
        }
    }
    if status.clean {
        text.push_str("nothing to commit, working tree clean\n");
    }
    text
}

/// Where HEAD is (`On branch main`, or detached at a commit), and how the
/// branch stands against its upstream when it has one.
fn branch_lines(b: &Branch) -> String {
    let mut text = match (&b.head, &b.oid) {
        (Some(head), Some(_)) => format!("On branch {head}\n"),
        (Some(head), None) => format!("On branch {head} (no commits yet)\n"),
        (None, Some(oid)) => format!("HEAD detached at {}\n", &oid[..oid.len().min(12)]),
        (None, None) => "HEAD detached\n".to_owned(),
    };
    if let Some(upstream) = &b.upstream {
        match (b.ahead, b.behind) {
            (Some(ahead), Some(behind)) => text.push_str(&format!(
                "Upstream {upstream}: ahead {ahead}, behind {behind}\n"
            )),
            _ => text.push_str(&format!("Upstream {upstream} (gone)\n")),
        }
    }
    text
}

/// One changed file under its status letter's word: `  modified: x`, or
/// `  renamed: old -> new`.
fn change_line(e: &Entry, letter: &str) -> String {
    match &e.orig_path {
        Some(orig) => format!(
            "  {}: {} -> {}\n",
            word(letter),
            quoted_path(orig),
            quoted_path(&e.path)
        ),
        None => format!("  {}: {}\n", word(letter), quoted_path(&e.path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_record_kind() {
        let raw = "# branch.oid 1111111111111111111111111111111111111111\0# branch.head main\0# branch.upstream origin/main\0# branch.ab +2 -1\0\
1 M. N... 100644 100644 100644 aaaa bbbb staged file.txt\0\
1 .M N... 100644 100644 100644 aaaa aaaa with space.txt\0\
2 R. N... 100644 100644 100644 aaaa aaaa R100 new.txt\0old.txt\0\
u UU N... 100644 100644 100644 100644 aaaa bbbb cccc both.txt\0\
? new dir/\0";
        let status = parse(raw).unwrap();
        assert_eq!(status.branch.ahead, Some(2));
        assert_eq!(status.branch.behind, Some(1));
        assert_eq!(status.entries[0].path, "staged file.txt");
        assert_eq!(status.entries[1].path, "with space.txt");
        assert_eq!(status.entries[2].orig_path.as_deref(), Some("old.txt"));
        assert_eq!(status.entries[3].kind, "unmerged");
        assert_eq!(status.entries[4].path, "new dir/");
        assert_eq!(
            render(&status),
            "On branch main\nUpstream origin/main: ahead 2, behind 1\nStaged:\n  modified: staged file.txt\n  renamed: old.txt -> new.txt\nNot staged:\n  modified: with space.txt\nUnmerged:\n  UU: both.txt\nUntracked:\n  new dir/\n"
        );
    }

    #[test]
    fn refuses_a_record_it_does_not_know() {
        assert!(parse("x what\0").is_err());
        assert!(parse("1 M.\0").is_err());
    }
}
