//! `grep_replace`: a regex replaced across files. Every file is computed
//! before any is written, and a failed write puts back those already
//! written.

use std::path::{Path, PathBuf};

use mcp_proto::CallToolResult;

use super::{MAX_FILES, for_each_file, scope, walk_dirs};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::files::{unified_diff, write_atomic};
use crate::roots::Resolved;
use crate::util::{Bounded, MAX_RESULT_BYTES, ToolResult};

/// Most bytes one `grep_replace` holds: the old and new text of every
/// changed file, summed (32 MiB; twice the `fs` edit limit).
const MAX_REPLACE_BYTES: usize = 32 * 1024 * 1024;

/// One file to change.
struct Change {
    path: PathBuf,
    before: String,
    after: String,
    /// Matches replaced.
    count: usize,
}

arguments! {
    /// Arguments of `code grep_replace`.
    pub(crate) struct GrepReplaceArgs {
        /// A regular expression (or literal text with `literal`).
        pub pattern: String,
        /// The replacement; `$1` and `${name}` expand capture groups unless `literal`.
        pub replacement: String,
        ..scope,
        /// Only files whose path matches this glob (e.g. "*.rs").
        pub glob: Option<String>,
        /// Treat pattern and replacement as literal text (default false).
        #[serde(default)]
        pub literal: bool,
        /// Ignore case (default false).
        #[serde(default)]
        pub ignore_case: bool,
        /// Show the diffs, write nothing (default false).
        #[serde(default)]
        pub dry_run: bool,
    }
}

pub(super) fn grep_replace(args: &GrepReplaceArgs, ctx: &ToolContext) -> ToolResult {
    let (pattern, replacement) = (args.pattern.as_str(), args.replacement.as_str());
    let literal = args.literal;
    let re = compile(pattern, literal, args.ignore_case)?;
    let glob = match args.glob.as_deref() {
        Some(g) => Some(
            globset::Glob::new(g)
                .map_err(|e| format!("grep_replace: bad glob: {e}"))?
                .compile_matcher(),
        ),
        None => None,
    };
    let dirs = walk_dirs(args.path.as_deref(), ctx)?;
    let dry_run = args.dry_run;
    // Writers of the roots wait from the first read to the last write, as
    // for `fs` edits.
    let _lock = if dry_run {
        None
    } else {
        let roots: Vec<&Path> = ctx.roots.dirs().iter().map(|d| d.as_path()).collect();
        Some(crate::files::lock_roots(&roots)?)
    };
    let want = |path: &Path| match &glob {
        Some(g) => g.is_match(path.file_name().unwrap_or_default()) || g.is_match(path),
        None => true,
    };
    let mut collector = Collector {
        re: &re,
        replacement,
        literal,
        changes: Vec::new(),
        held: 0,
        too_big: None,
    };
    let capped = for_each_file(&dirs, ctx, &want, &mut |path, bytes| {
        collector.visit(path, bytes)
    })?;
    if let Some(path) = collector.too_big {
        return Err(format!(
            "grep_replace: the old and new text of the changed files would pass {MAX_REPLACE_BYTES} bytes (at {}); pass a narrower path or glob (nothing written)",
            ctx.roots.display(&path)
        ));
    }
    if capped {
        return Err(format!(
            "grep_replace: more than {MAX_FILES} files under the path; pass a narrower path or glob (nothing written)"
        ));
    }
    let changes = collector.changes;
    if changes.is_empty() {
        return Ok(CallToolResult::text(format!("[no match for {pattern}]\n")));
    }
    if !dry_run {
        write_all_or_restore(&changes, ctx)?;
    }
    Ok(CallToolResult::text(report(&changes, dry_run, ctx)))
}

/// `pattern` as a multi-line regex (escaped first when `literal`).
fn compile(pattern: &str, literal: bool, ignore_case: bool) -> Result<regex::Regex, String> {
    let source = if literal {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    regex::RegexBuilder::new(&source)
        .case_insensitive(ignore_case)
        .multi_line(true)
        .build()
        .map_err(|e| {
            format!(
                "grep_replace: bad pattern: {}",
                e.to_string().replace('\n', " ")
            )
        })
}

/// The changes a walk gathers, their old and new text held within
/// [`MAX_REPLACE_BYTES`].
struct Collector<'a> {
    re: &'a regex::Regex,
    replacement: &'a str,
    literal: bool,
    changes: Vec<Change>,
    /// Bytes of old and new text held so far.
    held: usize,
    /// The file at which the held text would pass the cap.
    too_big: Option<PathBuf>,
}

impl Collector<'_> {
    /// Replaces in one file's bytes (binary and non-UTF-8 files are left
    /// alone); `false`, to stop the walk, once the cap would be passed.
    fn visit(&mut self, path: &Path, bytes: &[u8]) -> bool {
        if bytes.contains(&0) {
            return true;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            return true;
        };
        let count = self.re.find_iter(text).count();
        if count == 0 {
            return true;
        }
        let budget = MAX_REPLACE_BYTES.saturating_sub(self.held + text.len());
        let Some(after) = replace_bounded(self.re, text, self.replacement, self.literal, budget)
        else {
            self.too_big = Some(path.to_path_buf());
            return false;
        };
        if after != text {
            self.held += after.len() + text.len();
            self.changes.push(Change {
                path: path.to_path_buf(),
                before: text.to_owned(),
                after,
                count,
            });
        }
        true
    }
}

/// The count of replacements and files, then each file's diff, cut at the
/// result cap.
fn report(changes: &[Change], dry_run: bool, ctx: &ToolContext) -> String {
    let total: usize = changes.iter().map(|c| c.count).sum();
    let files = changes.len();
    let mut out = Bounded::new(MAX_RESULT_BYTES);
    out.push_line(&format!(
        "{total} replacement{} in {files} file{}{}",
        if total == 1 { "" } else { "s" },
        if files == 1 { "" } else { "s" },
        if dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    ));
    for change in changes {
        let diff = unified_diff(
            &change.before,
            &change.after,
            &ctx.roots.display(&change.path),
        );
        if !out.push_line(diff.trim_end_matches('\n')) {
            break;
        }
    }
    let marker = out
        .is_full()
        .then(|| "[diffs cut at 64 KiB; pass a narrower path or glob to see the rest]".to_owned());
    out.finish(marker)
}

/// `re` replaced in `text` (expanding `$1` unless `literal`), or `None` as
/// soon as the result passes `budget` bytes.
fn replace_bounded(
    re: &regex::Regex,
    text: &str,
    replacement: &str,
    literal: bool,
    budget: usize,
) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(text) {
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&text[last..m.start()]);
        if literal {
            out.push_str(replacement);
        } else {
            caps.expand(replacement, &mut out);
        }
        last = m.end();
        if out.len() > budget {
            return None;
        }
    }
    out.push_str(&text[last..]);
    (out.len() <= budget).then_some(out)
}

/// Writes every change (each file atomically). When one write fails, the
/// files already written get their old text back, so a failed
/// `grep_replace` leaves the tree as it found it; the error names the file
/// that failed and, if a restore failed too, the files left changed.
fn write_all_or_restore(changes: &[Change], ctx: &ToolContext) -> Result<(), String> {
    let target = |path: &Path| -> Result<Resolved, String> {
        let root = ctx
            .roots
            .root_of(path)
            .ok_or_else(|| format!("{}: outside the roots", ctx.roots.display(path)))?;
        Ok(Resolved {
            path: path.to_path_buf(),
            root: root.to_path_buf(),
            exists: true,
        })
    };
    for (done, change) in changes.iter().enumerate() {
        let (path, after) = (&change.path, &change.after);
        let written = target(path)
            .and_then(|t| write_atomic(&t, after.as_bytes()).map_err(|e| e.to_string()));
        let Err(error) = written else { continue };
        let mut left_changed = Vec::new();
        for old in changes[..done].iter().rev() {
            let restored = target(&old.path)
                .and_then(|t| write_atomic(&t, old.before.as_bytes()).map_err(|e| e.to_string()));
            if restored.is_err() {
                left_changed.push(ctx.roots.display(&old.path));
            }
        }
        let outcome = if left_changed.is_empty() {
            format!("the {done} file(s) already written were restored; nothing changed")
        } else {
            format!(
                "these files could not be restored and keep the replacement: {}",
                left_changed.join(", ")
            )
        };
        return Err(format!(
            "grep_replace: writing {} failed: {error}; {outcome}",
            ctx.roots.display(path)
        ));
    }
    Ok(())
}
