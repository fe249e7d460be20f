//! The `code` tool: symbols from tree-sitter grammars (Rust, Python,
//! TypeScript/TSX, JavaScript, Go) and regex replace across files.
//!
//! - `outline {path}`: the definitions of one file, nested by indentation.
//! - `symbols {query, [path], [kind]}`: definitions whose name contains
//!   `query` (case-insensitive) across the roots or `path`; with only a
//!   `path`, every definition in it.
//! - `definition {name, [path]}`: definitions named exactly `name`.
//! - `references {name, [path]}`: identifiers spelled `name` (comments and
//!   strings excluded).
//! - `grep_replace {pattern, replacement, [path], [glob], [literal],
//!   [ignore_case], [dry_run]}`: regex replace across files; `dry_run`
//!   shows the diffs and writes nothing. All files are computed before any
//!   is written, each written atomically.
//! - `summarize {text | path}`: a unified diff given as `text` becomes its
//!   files, hunks and lines added and removed per file, with totals (also
//!   as `structuredContent`); a `path` gets its outline.
//!
//! Walks honour `.gitignore`, skip hidden entries, never follow symlinks and
//! read every file through the no-follow opener. Files over 2 MiB are
//! skipped; at most [`MAX_FILES`] files are looked at per call.

mod lang;
mod replace;
mod summarize;

use std::path::Path;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::action::{ActionTool, action_args, actions, local_tool};
use crate::context::ToolContext;
use crate::files::open_regular;
use crate::roots::Resolved;
use crate::safe::RootHandle;
use crate::util::{Bounded, Hints, MAX_RESULT_BYTES, ToolResult};
use lang::{EXTENSIONS, Lang};

/// Most files one `code` call looks at.
pub const MAX_FILES: usize = 50_000;
/// Files larger than this are skipped (bytes).
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Default and largest `limit`, in result lines.
const DEFAULT_RESULTS: u64 = 200;

/// The `code` local tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct CodeTool;

impl CodeTool {
    /// The tool.
    pub fn new() -> CodeTool {
        CodeTool
    }
}

actions! {
    pub(crate) enum CodeAction {
        Outline = "outline" { reads: true, can: [ReadFiles], pool: true, usage: "{path}: the definitions in one file as `line: kind name`, nested by indentation." },
        Symbols = "symbols" { reads: true, can: [ReadFiles], pool: true, usage: "{query | path, [kind], [offset], [limit]}: definitions whose name contains query (case-insensitive), in path or every root, as path:line: kind name; with only path, every definition in it." },
        Definition = "definition" { reads: true, can: [ReadFiles], pool: true, usage: "{name, [path]}: definitions named exactly name, as path:line: kind name." },
        References = "references" { reads: true, can: [ReadFiles], pool: true, usage: "{name, [path], [offset], [limit]}: identifiers spelled name (not in comments or strings), as path:line:column: source line." },
        GrepReplace = "grep_replace" { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "{pattern, replacement, [path], [glob], [literal], [ignore_case], [dry_run]}: replace across files; returns the unified diffs; dry_run writes nothing; refused when the old and new text of the changed files pass 32 MiB." },
        Summarize = "summarize" { reads: true, can: [ReadFiles], pool: true, usage: "{text | path}: a unified diff (text) as files, hunks and lines added/removed per file, with totals; a file (path) as its outline." },
        Help = "help" { reads: true, can: [], pool: false, usage: ": this text." },
    }
}

/// Arguments of the `code` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CodeArgs {
    /// outline | symbols | definition | references | grep_replace | summarize | help.
    action: CodeAction,
    /// outline, summarize: the file; other actions: the directory (or file) to look in (default: every root).
    path: Option<String>,
    /// symbols: part of the name to look for (case-insensitive); without it, every symbol in path.
    query: Option<String>,
    /// summarize: a unified diff.
    text: Option<String>,
    /// symbols: only this kind (fn, struct, enum, trait, impl, mod, class, def, function, method, interface, type, func, ...).
    kind: Option<String>,
    /// definition, references: the exact identifier.
    name: Option<String>,
    /// grep_replace: a regular expression (or literal text with `literal`).
    pattern: Option<String>,
    /// grep_replace: the replacement; `$1` and `${name}` expand capture groups unless `literal`.
    replacement: Option<String>,
    /// grep_replace: only files whose path matches this glob (e.g. "*.rs").
    glob: Option<String>,
    /// grep_replace: treat pattern and replacement as literal text.
    literal: Option<bool>,
    /// grep_replace: ignore case.
    ignore_case: Option<bool>,
    /// grep_replace: show the diffs, write nothing (default false).
    dry_run: Option<bool>,
    /// Result lines to skip (default 0).
    offset: Option<u64>,
    /// Most result lines (default and maximum 200).
    limit: Option<u64>,
}

const DESCRIPTION: &str = "Code structure and refactoring for Rust, Python, TypeScript/JavaScript and Go (tree-sitter): outline of a file, symbols by name across the roots (or every symbol of a path), definition and references of an identifier, grep_replace (regex replace across files, with a dry-run preview), and summarize (a unified diff's files, hunks and lines added/removed, or a file's outline). Call with {\"action\":\"help\"} for every action's fields.";

const HELP_NOTES: &str = "Languages: Rust, Python, TypeScript, TSX, JavaScript, Go (by extension: .rs, .py, .pyi, .ts, .mts, .cts, .tsx, .js, .jsx, .mjs, .cjs, .go).
Walks honour .gitignore; every result is capped, and a line in brackets at the end says how to get the rest.";

action_args!(CodeArgs => CodeAction);

impl ActionTool for CodeTool {
    type Args = CodeArgs;
    const NAME: &'static str = "code";
    const TITLE: &'static str = "Code";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: false,
    };
    const HELP_NOTES: &'static str = HELP_NOTES;

    fn run_blocking(&self, args: CodeArgs, ctx: &ToolContext) -> ToolResult {
        match args.action {
            CodeAction::Outline => outline(&args, ctx),
            CodeAction::Symbols => symbols(&args, ctx),
            CodeAction::Definition => definition(&args, ctx),
            CodeAction::References => references(&args, ctx),
            CodeAction::GrepReplace => replace::grep_replace(&args, ctx),
            CodeAction::Summarize => summarize(&args, ctx),
            CodeAction::Help => Ok(CallToolResult::text(crate::action::help::<Self>())),
        }
    }
}

local_tool!(CodeTool);

fn outline(args: &CodeArgs, ctx: &ToolContext) -> ToolResult {
    let input = args
        .path
        .as_deref()
        .ok_or("outline: missing field 'path'")?;
    let resolved = ctx
        .roots
        .resolve_existing(input)
        .map_err(|e| e.to_string())?;
    let lang = Lang::of(&resolved.path).ok_or_else(|| {
        format!("outline: unsupported file type '{input}' (supported: {EXTENSIONS})")
    })?;
    let source = read_source(&resolved, input)?;
    let mut out = Bounded::new(MAX_RESULT_BYTES);
    let symbols = lang::symbols(lang, &source);
    if symbols.is_empty() {
        return Ok(CallToolResult::text("[no definitions found]\n"));
    }
    for symbol in &symbols {
        let line = format!(
            "{}{}: {} {}",
            "  ".repeat(symbol.depth),
            symbol.line,
            symbol.kind,
            symbol.name
        );
        if !out.push_line(&line) {
            break;
        }
    }
    let marker = out
        .is_full()
        .then(|| "[outline cut at 64 KiB; use symbols with a query to narrow]".to_owned());
    Ok(CallToolResult::text(out.finish(marker)))
}

fn read_source(resolved: &Resolved, input: &str) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let (file, _) = open_regular(resolved, input)?;
    let mut source = Vec::new();
    file.take(MAX_FILE_BYTES)
        .read_to_end(&mut source)
        .map_err(|e| format!("{}: {e}", resolved.path.to_string_lossy()))?;
    Ok(source)
}

/// The directories a cross-file action walks: `path` or every root.
fn walk_dirs(path: Option<&str>, ctx: &ToolContext) -> Result<Vec<Resolved>, String> {
    match path {
        Some(input) => {
            let resolved = ctx
                .roots
                .resolve_existing(input)
                .map_err(|e| e.to_string())?;
            Ok(vec![resolved])
        }
        None => Ok(ctx
            .roots
            .dirs()
            .iter()
            .map(|d| Resolved {
                path: d.clone(),
                root: d.clone(),
                exists: true,
            })
            .collect()),
    }
}

/// Calls `visit(path, contents)` for each readable file under the
/// directories (sorted, `.gitignore` honoured) accepted by `want`; stops
/// early when `visit` returns false. Returns whether the file cap was hit.
fn for_each_file(
    dirs: &[Resolved],
    ctx: &ToolContext,
    want: &dyn Fn(&Path) -> bool,
    visit: &mut dyn FnMut(&Path, &[u8]) -> bool,
) -> Result<bool, String> {
    use std::io::Read as _;
    let mut seen = 0usize;
    for dir in dirs {
        let handle = RootHandle::open(&dir.root).map_err(|e| e.to_string())?;
        let mut walk = ignore::WalkBuilder::new(&dir.path);
        walk.follow_links(false)
            .require_git(false)
            .git_global(false)
            .sort_by_file_name(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
        for entry in walk.build() {
            let Ok(entry) = entry else { continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) || !want(entry.path()) {
                continue;
            }
            if seen.is_multiple_of(256) && ctx.cancel.is_cancelled() {
                return Err("cancelled".to_owned());
            }
            seen += 1;
            if seen > MAX_FILES {
                return Ok(true);
            }
            if seen.is_multiple_of(500) {
                ctx.progress
                    .report(seen as f64, None, Some(format!("{seen} files read")));
            }
            let Ok(file) = handle.open_read(entry.path()) else {
                continue;
            };
            if file.metadata().map_or(true, |m| m.len() > MAX_FILE_BYTES) {
                continue;
            }
            let mut bytes = Vec::new();
            if file.take(MAX_FILE_BYTES).read_to_end(&mut bytes).is_err() {
                continue;
            }
            if !visit(entry.path(), &bytes) {
                return Ok(false);
            }
        }
    }
    Ok(false)
}

fn has_lang(path: &Path) -> bool {
    Lang::of(path).is_some()
}

/// Paged result lines with the usual marker.
fn paged(lines: Vec<String>, args: &CodeArgs, capped: bool, empty: String) -> CallToolResult {
    if lines.is_empty() {
        return CallToolResult::text(format!("{empty}\n"));
    }
    let offset = args.offset.unwrap_or(0);
    let limit = args
        .limit
        .unwrap_or(DEFAULT_RESULTS)
        .clamp(1, DEFAULT_RESULTS);
    let total = lines.len() as u64;
    let mut out = Bounded::new(MAX_RESULT_BYTES);
    let mut last = offset;
    for line in lines.iter().skip(offset as usize).take(limit as usize) {
        if !out.push_line(line) {
            break;
        }
        last += 1;
    }
    let mut marker =
        (last < total).then(|| crate::util::page_marker("results", offset, last, Some(total)));
    if capped {
        let note = format!("[stopped after {MAX_FILES} files; pass a narrower path]");
        marker = Some(match marker {
            Some(m) => format!("{m}\n{note}"),
            None => note,
        });
    }
    CallToolResult::text(out.finish(marker))
}

fn symbols(args: &CodeArgs, ctx: &ToolContext) -> ToolResult {
    let Some(query) = args.query.as_deref() else {
        // Only a path: every symbol in it.
        let path = args.path.as_deref().ok_or(
            "symbols: give query (a part of the name), or path to list every symbol in it",
        )?;
        return find_symbols(
            args,
            ctx,
            |_| true,
            |s| args.kind.as_deref().is_none_or(|k| k == s.kind),
            format!("[no symbols in {path}]"),
        );
    };
    let needle = query.to_lowercase();
    find_symbols(
        args,
        ctx,
        // Cheap pre-filter before parsing.
        |bytes| {
            String::from_utf8_lossy(bytes)
                .to_lowercase()
                .contains(&needle)
        },
        |s| {
            s.name.to_lowercase().contains(&needle)
                && args.kind.as_deref().is_none_or(|k| k == s.kind)
        },
        format!("[no symbol matching {query}]"),
    )
}

fn summarize(args: &CodeArgs, ctx: &ToolContext) -> ToolResult {
    match (&args.text, &args.path) {
        (Some(text), None) => {
            let summary = summarize::summarize(text)?;
            let mut result = CallToolResult::text(summarize::render(&summary));
            result.structured_content =
                Some(serde_json::to_value(&summary).map_err(|e| format!("summarize: {e}"))?);
            Ok(result)
        }
        (None, Some(_)) => outline(args, ctx),
        (Some(_), Some(_)) => {
            Err("summarize: give text (a unified diff) or path, not both".to_owned())
        }
        (None, None) => {
            Err("summarize: give text (a unified diff) or path (a file to outline)".to_owned())
        }
    }
}

fn definition(args: &CodeArgs, ctx: &ToolContext) -> ToolResult {
    let name = args
        .name
        .as_deref()
        .ok_or("definition: missing field 'name'")?;
    find_symbols(
        args,
        ctx,
        |bytes| contains(bytes, name.as_bytes()),
        // An `impl` block extends a type; it does not define the name.
        |s| s.name == name && s.kind != "impl",
        format!("[no definition of {name} found]"),
    )
}

/// Walks the source files under `args.path`, parses those that pass
/// `prefilter` (a cheap test on the raw bytes), and lists the symbols that
/// `keep` accepts as `path:line: kind name`, paged; `empty` when none.
fn find_symbols(
    args: &CodeArgs,
    ctx: &ToolContext,
    prefilter: impl Fn(&[u8]) -> bool,
    keep: impl Fn(&lang::Symbol) -> bool,
    empty: String,
) -> ToolResult {
    let dirs = walk_dirs(args.path.as_deref(), ctx)?;
    let mut lines = Vec::new();
    let capped = for_each_file(&dirs, ctx, &has_lang, &mut |path, bytes| {
        if !prefilter(bytes) {
            return true;
        }
        let Some(lang) = Lang::of(path) else {
            return true;
        };
        for s in lang::symbols(lang, bytes) {
            if keep(&s) {
                lines.push(format!(
                    "{}:{}: {} {}",
                    ctx.roots.display(path),
                    s.line,
                    s.kind,
                    s.name
                ));
            }
        }
        true
    })?;
    Ok(paged(lines, args, capped, empty))
}

fn references(args: &CodeArgs, ctx: &ToolContext) -> ToolResult {
    let name = args
        .name
        .as_deref()
        .ok_or("references: missing field 'name'")?;
    let dirs = walk_dirs(args.path.as_deref(), ctx)?;
    let mut lines = Vec::new();
    let capped = for_each_file(&dirs, ctx, &has_lang, &mut |path, bytes| {
        if !contains(bytes, name.as_bytes()) {
            return true;
        }
        let Some(lang) = Lang::of(path) else {
            return true;
        };
        let source_lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        for at in lang::occurrences(lang, bytes, name) {
            let text = source_lines.get(at.line - 1).copied().unwrap_or_default();
            let text = String::from_utf8_lossy(text);
            let text: String = text.trim().chars().take(200).collect();
            lines.push(format!(
                "{}:{}:{}: {text}",
                ctx.roots.display(path),
                at.line,
                at.column
            ));
        }
        true
    })?;
    Ok(paged(
        lines,
        args,
        capped,
        format!("[no reference to {name} found]"),
    ))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}
