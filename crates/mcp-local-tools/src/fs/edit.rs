//! `fs` `write`, `edit`, `multi_edit`, `patch`.
//!
//! Changes are computed in memory first and written atomically (a temporary
//! file next to the target, then `rename`), so a failed edit or a failed
//! hunk leaves every file as it was.

use std::io::Read;

use mcp_proto::CallToolResult;
use tokio_util::sync::CancellationToken;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{EditSpec, dry_run, one_file, replacement};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::error::{PathError, PathErrorKind};
use crate::files::{lock_roots, open_regular, unified_diff, write_atomic};
use crate::roots::Resolved;
use crate::safe;
use crate::util::ToolResult;

/// Largest file the editing actions load, and largest text they write
/// (bytes).
pub(crate) const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

arguments! {
    /// Arguments of `fs write`.
    pub(crate) struct WriteArgs {
        ..one_file,
        /// The file's new content.
        pub content: String,
    }
}

arguments! {
    /// Arguments of `fs edit`.
    pub(crate) struct EditArgs {
        ..one_file,
        ..replacement,
        ..dry_run,
    }
}

arguments! {
    /// Arguments of `fs multi_edit`.
    pub(crate) struct MultiEditArgs {
        ..one_file,
        /// Edits applied in order to the file; all succeed or none is written.
        pub edits: Vec<EditSpec>,
        ..dry_run,
    }
}

/// Arguments of `fs patch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PatchArgs {
    /// A unified diff (one or more files; paths from its headers unless `path` is given).
    pub diff: String,
    /// The one file the diff applies to, in place of its headers' path.
    pub path: Option<String>,
}

pub(super) fn write(args: &WriteArgs, ctx: &ToolContext) -> ToolResult {
    let (input, content) = (args.path.as_str(), args.content.as_str());
    if input.ends_with('/') || input.ends_with(std::path::MAIN_SEPARATOR) {
        return Err(format!(
            "write: path '{input}' ends with '/'; a file path cannot name a directory"
        ));
    }
    let resolved = ctx.roots.resolve(input).map_err(|e| e.to_string())?;
    if resolved.exists && resolved.path.is_dir() {
        return Err(PathError::new(input, PathErrorKind::IsADirectory).to_string());
    }
    let _lock = lock_roots(&[&resolved.root])?;
    write_atomic(&resolved, content.as_bytes()).map_err(|e| e.to_string())?;
    let what = if resolved.exists {
        "replaced the file"
    } else {
        "a new file"
    };
    Ok(CallToolResult::text(format!(
        "wrote {} ({} bytes, {what})",
        ctx.roots.display(&resolved.path),
        content.len()
    )))
}

pub(super) fn edit(args: EditArgs, ctx: &ToolContext) -> ToolResult {
    let spec = EditSpec {
        old_text: args.old_text,
        new_text: args.new_text,
        replace_all: args.replace_all,
    };
    edit_file(&args.path, args.dry_run, ctx, std::slice::from_ref(&spec))
}

pub(super) fn multi_edit(args: &MultiEditArgs, ctx: &ToolContext) -> ToolResult {
    if args.edits.is_empty() {
        return Err("multi_edit: 'edits' is empty".to_owned());
    }
    edit_file(&args.path, args.dry_run, ctx, &args.edits)
}

fn edit_file(input: &str, dry_run: bool, ctx: &ToolContext, edits: &[EditSpec]) -> ToolResult {
    let resolved = ctx
        .roots
        .resolve_existing(input)
        .map_err(|e| e.to_string())?;
    let shown = ctx.roots.display(&resolved.path);
    // Held from the read to the write: a concurrent edit waits, then reads
    // this one's result.
    let _lock = lock_roots(&[&resolved.root])?;
    let before = read_text(&resolved, input)?;
    let mut after = before.clone();
    let mut replacements = 0;
    for (i, spec) in edits.iter().enumerate() {
        let (next, count) = apply_edit(&after, spec).map_err(|e| {
            if edits.len() == 1 {
                format!("edit {shown}: {e}; file unchanged")
            } else {
                format!(
                    "edit {} of {} on {shown}: {e}; file unchanged",
                    i + 1,
                    edits.len()
                )
            }
        })?;
        after = next;
        replacements += count;
    }
    if !dry_run {
        write_atomic(&resolved, after.as_bytes()).map_err(|e| e.to_string())?;
    }
    let plural = if replacements == 1 { "" } else { "s" };
    let verb = if dry_run {
        "would edit (dry run, nothing written)"
    } else {
        "edited"
    };
    let mut text = format!("{verb} {shown}: {replacements} replacement{plural}\n");
    text.push_str(&unified_diff(&before, &after, &shown));
    Ok(CallToolResult::text(text))
}

/// One edit on `content`: the new text and how many replacements.
fn apply_edit(content: &str, spec: &EditSpec) -> Result<(String, usize), String> {
    if spec.old_text.is_empty() {
        return Err("old_text is empty".to_owned());
    }
    if spec.old_text == spec.new_text {
        return Err("old_text and new_text are the same".to_owned());
    }
    let count = content.matches(spec.old_text.as_str()).count();
    let replaced = if spec.replace_all {
        count
    } else {
        count.min(1)
    };
    // The size of the result, known before building it.
    let size = (content.len() - replaced * spec.old_text.len())
        .saturating_add(replaced.saturating_mul(spec.new_text.len()));
    if size as u64 > MAX_EDIT_BYTES {
        return Err(format!(
            "the result would be {size} bytes, more than the {MAX_EDIT_BYTES}-byte limit"
        ));
    }
    match count {
        0 => Err("old_text not found".to_owned()),
        1 => Ok((content.replacen(&spec.old_text, &spec.new_text, 1), 1)),
        n if spec.replace_all => Ok((content.replace(&spec.old_text, &spec.new_text), n)),
        n => Err(format!(
            "old_text occurs {n} times; add context to make it unique or pass replace_all: true"
        )),
    }
}

/// One file's part of a unified diff.
struct FilePatch {
    target: String,
    text: String,
    added: usize,
    removed: usize,
    /// `--- /dev/null`: the file must not exist yet.
    creates: bool,
    /// `+++ /dev/null`: the file is removed once the hunks empty it.
    deletes: bool,
}

/// Most lines a diff given to `patch` may have.
pub(crate) const MAX_PATCH_LINES: usize = 100_000;

/// What `patch` will do to one path once every section applied.
struct Planned {
    resolved: Resolved,
    /// The new content; `None` when the file is to be removed.
    after: Option<String>,
}

pub(super) fn patch(args: &PatchArgs, ctx: &ToolContext) -> ToolResult {
    let diff = args.diff.as_str();
    let line_count = diff.lines().count();
    if line_count > MAX_PATCH_LINES {
        return Err(format!(
            "patch: the diff has {line_count} lines, more than the {MAX_PATCH_LINES}-line limit; split it (no file changed)"
        ));
    }
    let files = split_diff(diff)?;
    if args.path.is_some() && files.len() > 1 {
        return Err(format!(
            "patch: the diff touches {} files; omit 'path' to use the paths in its headers",
            files.len()
        ));
    }
    // Every root is held from the first read to the last write.
    let roots: Vec<&std::path::Path> = ctx.roots.dirs().iter().map(|d| d.as_path()).collect();
    let _lock = lock_roots(&roots)?;
    let mut plan = PatchPlan::default();
    for file in &files {
        let input = args.path.as_deref().unwrap_or(&file.target);
        plan.add_section(file, input, ctx)?;
    }
    if ctx.cancel.is_cancelled() {
        return Err("cancelled".to_owned());
    }
    plan.write()?;
    Ok(CallToolResult::text(plan.report))
}

/// What a whole diff does, computed before anything is written: sections
/// naming the same file apply in order, each to the result of the one
/// before.
#[derive(Default)]
struct PatchPlan {
    planned: Vec<Planned>,
    /// One line per section: `patched x (+a -r)` or `deleted x (-r)`.
    report: String,
}

impl PatchPlan {
    /// Applies one file's section of the diff to the file as planned so far.
    fn add_section(
        &mut self,
        file: &FilePatch,
        input: &str,
        ctx: &ToolContext,
    ) -> Result<(), String> {
        let resolved = ctx.roots.resolve(input).map_err(|e| e.to_string())?;
        let parsed = diffy::Patch::from_str(&file.text)
            .map_err(|e| format!("patch: {input}: not a valid unified diff: {e}"))?;
        if parsed.hunks().is_empty() {
            return Err(format!(
                "patch: {input}: the diff has file headers but no hunk ('@@ ... @@'); no file changed"
            ));
        }
        let slot = self
            .planned
            .iter()
            .position(|p| p.resolved.path == resolved.path);
        let before = self.text_before(slot, file, &resolved, input)?;
        let after = apply_hunks(&before, &parsed, &ctx.cancel)
            .map_err(|e| format!("patch: {input}: {e}; no file changed"))?;
        if after.len() as u64 > MAX_EDIT_BYTES {
            return Err(format!(
                "patch: {input}: the result would be {} bytes, more than the {MAX_EDIT_BYTES}-byte limit; no file changed",
                after.len()
            ));
        }
        let shown = ctx.roots.display(&resolved.path);
        let after = self.outcome(file, input, &shown, after)?;
        match slot {
            Some(i) => self.planned[i].after = after,
            None => self.planned.push(Planned { resolved, after }),
        }
        Ok(())
    }

    /// The text a section applies to: none for a file it creates, else the
    /// file as an earlier section (`slot`) left it or as it is on disk. A
    /// section that creates a file that exists, or changes one that does
    /// not, is refused.
    fn text_before(
        &self,
        slot: Option<usize>,
        file: &FilePatch,
        resolved: &Resolved,
        input: &str,
    ) -> Result<String, String> {
        let exists_now = match slot {
            Some(i) => self.planned[i].after.is_some(),
            None => resolved.exists,
        };
        if file.creates && exists_now {
            return Err(format!(
                "patch: {input}: already exists; a diff from /dev/null only creates new files (no file changed)"
            ));
        }
        if !file.creates && !exists_now {
            return Err(format!(
                "patch: {input}: no such file (or removed earlier in this diff); no file changed"
            ));
        }
        match (slot, file.creates) {
            (_, true) => Ok(String::new()),
            (Some(i), false) => Ok(self.planned[i].after.clone().unwrap_or_default()),
            (None, false) => read_text(resolved, input),
        }
    }

    /// The file's content after the section, `None` when a deletion
    /// section removes it (it must leave the file empty), and the report
    /// line saying so.
    fn outcome(
        &mut self,
        file: &FilePatch,
        input: &str,
        shown: &str,
        after: String,
    ) -> Result<Option<String>, String> {
        if !file.deletes {
            self.report.push_str(&format!(
                "patched {shown} (+{} -{})\n",
                file.added, file.removed
            ));
            return Ok(Some(after));
        }
        if !after.is_empty() {
            return Err(format!(
                "patch: {input}: the deletion diff leaves {} bytes in the file; no file changed",
                after.len()
            ));
        }
        self.report
            .push_str(&format!("deleted {shown} (-{})\n", file.removed));
        Ok(None)
    }

    /// Writes each planned file atomically, or removes it.
    fn write(&self) -> Result<(), String> {
        for plan in &self.planned {
            match &plan.after {
                Some(after) => write_atomic(&plan.resolved, after.as_bytes()),
                None if plan.resolved.exists => {
                    safe::remove_file(&plan.resolved.root, &plan.resolved.path)
                }
                None => Ok(()),
            }
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// Applies the hunks of `patch` to `before`, in order and without overlap.
///
/// Each hunk goes where its header says (shifted by how far the previous
/// hunk moved), else at the nearest later-or-earlier exact match after the
/// previous hunk. Matching is a KMP scan over lines, so the work is linear
/// in file lines plus hunk lines per hunk; `cancel` is checked as it goes.
fn apply_hunks(
    before: &str,
    patch: &diffy::Patch<'_, str>,
    cancel: &CancellationToken,
) -> Result<String, String> {
    use diffy::Line;
    let lines: Vec<&str> = before.split_inclusive('\n').collect();
    let mut out = String::with_capacity(before.len());
    let mut next = 0usize;
    let mut shift: isize = 0;
    for (i, hunk) in patch.hunks().iter().enumerate() {
        if cancel.is_cancelled() {
            return Err("cancelled".to_owned());
        }
        let pre: Vec<&str> = hunk
            .lines()
            .iter()
            .filter_map(|l| match l {
                Line::Context(s) | Line::Delete(s) => Some(*s),
                Line::Insert(_) => None,
            })
            .collect();
        let range = hunk.old_range();
        let stated = if range.is_empty() {
            range.start()
        } else {
            range.start().saturating_sub(1)
        };
        let expected = stated.saturating_add_signed(shift).clamp(next, lines.len());
        let at = find_hunk(&lines, next, expected, &pre, cancel)?
            .ok_or_else(|| format!("hunk {} does not apply", i + 1))?;
        shift = at as isize - stated as isize;
        lines[next..at].iter().for_each(|l| out.push_str(l));
        for line in hunk.lines() {
            if let Line::Context(s) | Line::Insert(s) = line {
                out.push_str(s);
            }
        }
        next = at + pre.len();
    }
    lines[next..].iter().for_each(|l| out.push_str(l));
    Ok(out)
}

/// Where `pre` occurs in `lines[from..]` closest to `expected`, if anywhere.
fn find_hunk(
    lines: &[&str],
    from: usize,
    expected: usize,
    pre: &[&str],
    cancel: &CancellationToken,
) -> Result<Option<usize>, String> {
    if pre.is_empty() || lines[expected..].starts_with(pre) {
        return Ok(Some(expected));
    }
    // KMP failure table over the hunk's lines.
    let mut fail = vec![0usize; pre.len()];
    let mut k = 0;
    for j in 1..pre.len() {
        while k > 0 && pre[j] != pre[k] {
            k = fail[k - 1];
        }
        if pre[j] == pre[k] {
            k += 1;
        }
        fail[j] = k;
    }
    let mut best: Option<usize> = None;
    let mut k = 0;
    for (j, line) in lines.iter().enumerate().skip(from) {
        if j % 4096 == 0 && cancel.is_cancelled() {
            return Err("cancelled".to_owned());
        }
        while k > 0 && *line != pre[k] {
            k = fail[k - 1];
        }
        if *line == pre[k] {
            k += 1;
        }
        if k == pre.len() {
            let at = j + 1 - pre.len();
            k = fail[k - 1];
            if at <= expected {
                best = Some(at);
            } else {
                let closer = best.is_none_or(|b| at - expected < expected - b);
                return Ok(Some(if closer { at } else { best.unwrap_or(at) }));
            }
        }
    }
    Ok(best)
}

/// Splits a unified diff into one part per file (`--- ` then `+++ `),
/// dropping git's extended header lines.
fn split_diff(diff: &str) -> Result<Vec<FilePatch>, String> {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut files: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let next = lines.get(i + 1).copied().unwrap_or("");
        if line.starts_with("--- ") && next.starts_with("+++ ") {
            let old = header_path(line);
            let new = header_path(next);
            let creates = old.is_none();
            let deletes = new.is_none();
            let target = new
                .or(old)
                .ok_or("patch: a file header names /dev/null twice")?;
            files.push(FilePatch {
                target,
                text: format!("{line}{next}"),
                added: 0,
                removed: 0,
                creates,
                deletes,
            });
            i += 2;
            continue;
        }
        if let Some(file) = files.last_mut() {
            let git_header = [
                "diff ",
                "index ",
                "new file mode",
                "deleted file mode",
                "similarity ",
                "rename ",
                "old mode",
                "new mode",
            ]
            .iter()
            .any(|p| line.starts_with(p));
            if !git_header {
                if line.starts_with('+') {
                    file.added += 1;
                } else if line.starts_with('-') {
                    file.removed += 1;
                }
                file.text.push_str(line);
            }
        }
        i += 1;
    }
    if files.is_empty() {
        return Err("patch: no file header ('--- a/x' then '+++ b/x') in the diff".to_owned());
    }
    Ok(files)
}

/// The path in a `--- ` / `+++ ` header, without `a/` or `b/` and any
/// tab-separated timestamp; `None` for `/dev/null`.
fn header_path(line: &str) -> Option<String> {
    let rest = line[4..].trim_end_matches(['\n', '\r']);
    let rest = rest.split('\t').next().unwrap_or(rest).trim();
    if rest == "/dev/null" {
        return None;
    }
    let path = rest
        .strip_prefix("a/")
        .or_else(|| rest.strip_prefix("b/"))
        .unwrap_or(rest);
    Some(path.to_owned())
}

/// The file's content as UTF-8 text (refusing binary or huge files).
fn read_text(resolved: &Resolved, input: &str) -> Result<String, String> {
    let (file, len) = open_regular(resolved, input)?;
    if len > MAX_EDIT_BYTES {
        return Err(format!(
            "path '{input}': {len} bytes is larger than the {MAX_EDIT_BYTES}-byte edit limit"
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("path '{input}': {e}"))?;
    if bytes.contains(&0) {
        return Err(format!("path '{input}': binary file, not edited"));
    }
    String::from_utf8(bytes).map_err(|_| format!("path '{input}': not UTF-8 text, not edited"))
}
