//! `git diff`: a numstat header (every file with its lines added and
//! removed, and whether its patch was cut; a name holding a control
//! character, `"` or `\` quoted as git quotes it), then the patch, capped
//! per file and in total.

use mcp_proto::CallToolResult;

use super::run::{Access, OUTPUT_CAP, Repo, as_refs, quoted_path};
use super::{diffstat, only_paths};
use crate::action::arguments;
use crate::util::ToolResult;

/// The most bytes of one file's patch shown.
pub(crate) const FILE_CAP: usize = 10_000;
/// The most patch bytes read from git before cutting (4 MiB).
const READ_CAP: usize = 4 * 1024 * 1024;
/// The most files listed in the header.
const HEADER_FILES: usize = 200;
/// The largest `context_lines`.
const MAX_CONTEXT: u32 = 10_000;

/// One line of `git diff --numstat -z`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Numstat {
    /// Lines added; `None` for a binary file.
    pub(crate) added: Option<u64>,
    /// Lines removed; `None` for a binary file.
    pub(crate) removed: Option<u64>,
    /// The path (the new one for a rename).
    pub(crate) path: String,
    /// For a rename or copy, the old path.
    pub(crate) from: Option<String>,
}

arguments! {
    /// Arguments of `git diff`.
    pub(crate) struct DiffArgs {
        /// Staged changes: the index against HEAD, or against ref (default false).
        #[serde(default)]
        pub staged: bool,
        /// The revision to diff from (a branch, tag, hash, HEAD~2, ...): to the work tree, or to `to`.
        #[serde(rename = "ref")]
        pub rev: Option<String>,
        /// The second revision (the diff goes from ref to to).
        pub to: Option<String>,
        ..only_paths,
        /// Lines of context around each change (default 3).
        pub context_lines: Option<u32>,
        ..diffstat,
    }
}

pub(crate) async fn diff(args: &DiffArgs, repo: &Repo<'_>) -> ToolResult {
    let mut options: Vec<String> = super::history::NO_PROGRAMS.map(str::to_owned).to_vec();
    options.extend(repo.submodule_flags().iter().map(|f| (*f).to_owned()));
    let staged = args.staged;
    if staged {
        options.push("--cached".to_owned());
    }
    if let Some(n) = args.context_lines {
        options.push(format!("-U{}", n.min(MAX_CONTEXT)));
    }
    match (&args.rev, &args.to) {
        (None, Some(_)) => {
            return Err("git diff: `to` needs `ref` (the diff goes from ref to to)".to_owned());
        }
        (Some(_), Some(_)) if staged => {
            return Err(
                "git diff: staged compares the index; it cannot be combined with `to`".to_owned(),
            );
        }
        _ => {}
    }
    if let Some(rev) = &args.rev {
        options.push(repo.revision("ref", rev).await?);
    }
    if let Some(to) = &args.to {
        options.push(repo.revision("to", to).await?);
    }
    options.push("--".to_owned());
    options.extend(repo.paths(super::paths(&args.paths))?);
    let with = |first: &[&'static str]| -> Vec<String> {
        first
            .iter()
            .map(|a| (*a).to_owned())
            .chain(options.iter().cloned())
            .collect()
    };

    if args.stat {
        let argv = with(&["diff", "--stat"]);
        return repo.call(Access::Read, &as_refs(&argv), None).await;
    }

    let argv = with(&["diff", "--numstat", "-z"]);
    let outcome = repo
        .run_capped(Access::Read, &as_refs(&argv), None, READ_CAP)
        .await?;
    repo.result("diff", &outcome)?;
    let stats = parse_numstat(&outcome.stdout.text(""));
    if stats.is_empty() {
        return Ok(CallToolResult::text("no changes\n"));
    }

    let argv = with(&["diff"]);
    let outcome = repo
        .run_capped(Access::Read, &as_refs(&argv), None, READ_CAP)
        .await?;
    let patch = repo.result("diff", &outcome)?;
    let read_cut = outcome.stdout.dropped() > 0;
    Ok(CallToolResult::text(render(&stats, &patch, read_cut)))
}

/// Parses `git diff --numstat -z`: `added TAB removed TAB path NUL`, or
/// for a rename `added TAB removed TAB NUL from NUL to NUL`; `-` counts
/// mark a binary file.
pub(crate) fn parse_numstat(raw: &str) -> Vec<Numstat> {
    let mut out = Vec::new();
    let mut fields = raw.split('\0');
    while let Some(field) = fields.next() {
        let mut parts = field.splitn(3, '\t');
        let (Some(added), Some(removed), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (path, from) = if path.is_empty() {
            let from = fields.next().unwrap_or_default().to_owned();
            (fields.next().unwrap_or_default().to_owned(), Some(from))
        } else {
            (path.to_owned(), None)
        };
        out.push(Numstat {
            added: added.parse().ok(),
            removed: removed.parse().ok(),
            path,
            from,
        });
    }
    out
}

/// What happened to one file's patch in the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Whole,
    Cut(usize),
    Omitted,
}

/// The header and the capped patch.
fn render(stats: &[Numstat], patch: &str, read_cut: bool) -> String {
    let chunks = split_files(patch);
    // Per file: what is shown of its patch.
    let mut budget = OUTPUT_CAP.saturating_sub(100 * stats.len().min(HEADER_FILES));
    let mut body = String::new();
    let mut shown = Vec::with_capacity(chunks.len());
    for chunk in &chunks {
        let cap = FILE_CAP.min(budget);
        if chunk.len() <= cap {
            body.push_str(chunk);
            budget -= chunk.len();
            shown.push(Shown::Whole);
        } else if cap >= 200 {
            let kept = cut_at_line(chunk, cap);
            body.push_str(kept);
            body.push_str(&format!(
                "[... {} more bytes of this file's patch not shown; diff it alone (paths) for more]\n",
                chunk.len() - kept.len()
            ));
            budget -= kept.len();
            shown.push(Shown::Cut(chunk.len() - kept.len()));
        } else {
            budget = 0;
            shown.push(Shown::Omitted);
        }
    }
    let (mut added, mut removed) = (0u64, 0u64);
    for s in stats {
        added += s.added.unwrap_or(0);
        removed += s.removed.unwrap_or(0);
    }
    let mut header = format!(
        "{} file{} changed, +{added} -{removed}\n",
        stats.len(),
        if stats.len() == 1 { "" } else { "s" }
    );
    // The patch lists the files in numstat order, one chunk each; when the
    // counts differ, no per-file note is given.
    let aligned = chunks.len() == stats.len();
    for (i, s) in stats.iter().enumerate().take(HEADER_FILES) {
        let counts = match (s.added, s.removed) {
            (Some(a), Some(r)) => format!("+{a} -{r}"),
            _ => "binary".to_owned(),
        };
        // One line per file: a name holding a newline is quoted.
        let name = match &s.from {
            Some(from) => format!("{} -> {}", quoted_path(from), quoted_path(&s.path)),
            None => quoted_path(&s.path),
        };
        let note = match shown.get(i).filter(|_| aligned) {
            Some(Shown::Cut(bytes)) => format!(" (patch cut, {bytes} bytes not shown)"),
            Some(Shown::Omitted) => " (patch not shown: output cap reached)".to_owned(),
            _ => String::new(),
        };
        header.push_str(&format!("{counts} {name}{note}\n"));
    }
    if stats.len() > HEADER_FILES {
        header.push_str(&format!(
            "[... {} more files; pass paths to narrow]\n",
            stats.len() - HEADER_FILES
        ));
    }
    let hidden = shown.iter().filter(|s| **s == Shown::Omitted).count();
    if hidden > 0 {
        header.push_str(&format!(
            "[patches of {hidden} file{} not shown; pass paths to see them]\n",
            if hidden == 1 { "" } else { "s" }
        ));
    }
    if read_cut {
        header.push_str(
            "[the patch passed 4 MiB; files after the cut may be missing; pass paths to narrow]\n",
        );
    }
    header.push('\n');
    header.push_str(&body);
    header
}

/// The patch split before each `diff --git ` line (text before the first
/// one, if any, is its own piece).
fn split_files(patch: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = patch
        .match_indices("diff --git ")
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || patch.as_bytes()[i - 1] == b'\n')
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let mut chunks = Vec::with_capacity(starts.len());
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(patch.len());
        if end > start {
            chunks.push(&patch[start..end]);
        }
    }
    chunks
}

/// The longest prefix of `text` of at most `cap` bytes ending at a line
/// end (or at a character boundary when no line ends in it).
fn cut_at_line(text: &str, cap: usize) -> &str {
    let mut end = cap.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(i) => &text[..=i],
        None => &text[..end],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_with_rename_and_binary() {
        let raw = concat!("1\t0\tg.txt\0-\t-\timg.png\0", "0\t0\t\0f.txt\0h.txt\0");
        assert_eq!(
            parse_numstat(raw),
            vec![
                Numstat {
                    added: Some(1),
                    removed: Some(0),
                    path: "g.txt".to_owned(),
                    from: None
                },
                Numstat {
                    added: None,
                    removed: None,
                    path: "img.png".to_owned(),
                    from: None
                },
                Numstat {
                    added: Some(0),
                    removed: Some(0),
                    path: "h.txt".to_owned(),
                    from: Some("f.txt".to_owned())
                },
            ]
        );
    }

    #[test]
    fn cuts_a_large_file_and_says_so() {
        let big: String = (0..2000).map(|i| format!("+line {i}\n")).collect();
        let patch = format!("diff --git a/a b/a\n{big}diff --git a/b b/b\n+x\n");
        let stats = vec![
            Numstat {
                added: Some(2000),
                removed: Some(0),
                path: "a".to_owned(),
                from: None,
            },
            Numstat {
                added: Some(1),
                removed: Some(0),
                path: "b".to_owned(),
                from: None,
            },
        ];
        let text = render(&stats, &patch, false);
        assert!(text.starts_with("2 files changed, +2001 -0\n+2000 -0 a (patch cut, "));
        assert!(text.contains("\n+1 -0 b\n\ndiff --git a/a b/a\n"));
        assert!(text.ends_with("diff --git a/b b/b\n+x\n"));
        assert!(text.len() < FILE_CAP + 1000);
    }
}
