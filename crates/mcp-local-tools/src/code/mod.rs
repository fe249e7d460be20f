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

use crate::action::{ActionTool, actions, arguments, field_groups, local_tool};
use crate::context::ToolContext;
use crate::files::open_regular;
use crate::roots::Resolved;
use crate::safe::RootHandle;
use crate::util::{About, Bounded, Hints, MAX_RESULT_BYTES, ToolResult, walk_builder};
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
    /// Which `code` action to run.
    pub(crate) enum CodeAction for CodeCall {
        Outline(OutlineArgs) = "outline" { reads: true, can: [ReadFiles], pool: true, usage: "the definitions in one file as `line: kind name`, nested by indentation." },
        Symbols(SymbolsArgs) = "symbols" { reads: true, can: [ReadFiles], pool: true, usage: "definitions whose name contains query (case-insensitive), in path or every root, as path:line: kind name; with only path, every definition in it (give query or path)." },
        Definition(NameArgs) = "definition" { reads: true, can: [ReadFiles], pool: true, usage: "definitions named exactly name, as path:line: kind name." },
        References(NameArgs) = "references" { reads: true, can: [ReadFiles], pool: true, usage: "identifiers spelled name (not in comments or strings), as path:line:column: source line." },
        GrepReplace(replace::GrepReplaceArgs) = "grep_replace" { reads: false, can: [ReadFiles, WriteFiles], pool: true, usage: "replace across files; returns the unified diffs; dry_run writes nothing; refused when the old and new text of the changed files pass 32 MiB." },
        Summarize(SummarizeArgs) = "summarize" { reads: true, can: [ReadFiles], pool: true, usage: "a unified diff (text) as files, hunks and lines added/removed per file, with totals; a file (path) as its outline (give text or path)." },
    }
}

/// Arguments of `code outline`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OutlineArgs {
    /// The file to outline.
    pub path: String,
}

field_groups! {
    /// Where `symbols`, `definition`, `references` and `grep_replace` look.
    scope {
        /// The directory (or file) to look in (default: every root).
        pub path: Option<String>,
    }

    /// The page of result lines `symbols`, `definition` and `references`
    /// answer ([`Page`]).
    result_page {
        /// Result lines to skip (default 0).
        pub offset: Option<u64>,
        /// Most result lines (default and maximum 200).
        pub limit: Option<u64>,
    }
}
// The group `grep_replace`'s arguments (in `replace`) splice in too.
use scope;

arguments! {
    /// Arguments of `code symbols`.
    pub(crate) struct SymbolsArgs {
        /// Part of the name to look for (case-insensitive); without it, every symbol in path.
        pub query: Option<String>,
        ..scope,
        /// Only this kind (fn, struct, enum, trait, impl, mod, class, def, function, method, interface, type, func, ...).
        pub kind: Option<String>,
        ..result_page,
    }
}

arguments! {
    /// Arguments of `code definition` and `code references`: one identifier.
    pub(crate) struct NameArgs {
        /// The exact identifier.
        pub name: String,
        ..scope,
        ..result_page,
    }
}

/// Arguments of `code summarize`: `text` or `path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SummarizeArgs {
    /// A unified diff.
    pub text: Option<String>,
    /// The file to outline.
    pub path: Option<String>,
}

/// Which result lines a call asks for: `offset` and `limit`.
#[derive(Debug, Clone, Copy)]
struct Page {
    offset: Option<u64>,
    limit: Option<u64>,
}

const DESCRIPTION: &str = "Code structure and refactoring for Rust, Python, TypeScript/JavaScript and Go (tree-sitter): outline of a file, symbols by name across the roots (or every symbol of a path), definition and references of an identifier, grep_replace (regex replace across files, with a dry-run preview), and summarize (a unified diff's files, hunks and lines added/removed, or a file's outline). Call with {\"action\":\"help\"} for every action's fields.";

const HELP_NOTES: &str = "Languages: Rust, Python, TypeScript, TSX, JavaScript, Go (by extension: .rs, .py, .pyi, .ts, .mts, .cts, .tsx, .js, .jsx, .mjs, .cjs, .go).
Walks honour .gitignore; every result is capped, and a line in brackets at the end says how to get the rest.";

impl ActionTool for CodeTool {
    type Args = CodeCall;
    const ABOUT: About = About::new("code", "Code", Hints::LOCAL_CHANGES, DESCRIPTION);
    const HELP_NOTES: &'static str = HELP_NOTES;

    fn run_blocking(&self, call: CodeCall, ctx: &ToolContext) -> ToolResult {
        match call {
            CodeCall::Outline(args) => outline(&args.path, ctx),
            CodeCall::Symbols(args) => symbols(&args, ctx),
            CodeCall::Definition(args) => definition(&args, ctx),
            CodeCall::References(args) => references(&args, ctx),
            CodeCall::GrepReplace(args) => replace::grep_replace(&args, ctx),
            CodeCall::Summarize(args) => summarize(&args, ctx),
        }
    }
}

local_tool!(CodeTool);

fn outline(input: &str, ctx: &ToolContext) -> ToolResult {
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
        for entry in walk_builder(&dir.root, &dir.path, true, false).build() {
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
fn paged(lines: Vec<String>, page: Page, capped: bool, empty: String) -> CallToolResult {
    if lines.is_empty() {
        return CallToolResult::text(format!("{empty}\n"));
    }
    let offset = page.offset.unwrap_or(0);
    let limit = page
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

fn symbols(args: &SymbolsArgs, ctx: &ToolContext) -> ToolResult {
    let page = Page {
        offset: args.offset,
        limit: args.limit,
    };
    let Some(query) = args.query.as_deref() else {
        // Only a path: every symbol in it.
        let path = args.path.as_deref().ok_or(
            "symbols: give query (a part of the name), or path to list every symbol in it",
        )?;
        return find_symbols(
            Some(path),
            page,
            ctx,
            |_| true,
            |s| args.kind.as_deref().is_none_or(|k| k == s.kind),
            format!("[no symbols in {path}]"),
        );
    };
    let needle = query.to_lowercase();
    find_symbols(
        args.path.as_deref(),
        page,
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

fn summarize(args: &SummarizeArgs, ctx: &ToolContext) -> ToolResult {
    match (&args.text, &args.path) {
        (Some(text), None) => {
            let summary = summarize::summarize(text)?;
            let mut result = CallToolResult::text(summarize::render(&summary));
            result.structured_content =
                Some(serde_json::to_value(&summary).map_err(|e| format!("summarize: {e}"))?);
            Ok(result)
        }
        (None, Some(path)) => outline(path, ctx),
        (Some(_), Some(_)) => {
            Err("summarize: give text (a unified diff) or path, not both".to_owned())
        }
        (None, None) => {
            Err("summarize: give text (a unified diff) or path (a file to outline)".to_owned())
        }
    }
}

fn definition(args: &NameArgs, ctx: &ToolContext) -> ToolResult {
    let name = args.name.as_str();
    find_symbols(
        args.path.as_deref(),
        Page {
            offset: args.offset,
            limit: args.limit,
        },
        ctx,
        |bytes| contains(bytes, name.as_bytes()),
        // An `impl` block extends a type; it does not define the name.
        |s| s.name == name && s.kind != "impl",
        format!("[no definition of {name} found]"),
    )
}

/// Walks the source files under `path` (default: every root), parses those
/// that pass `prefilter` (a cheap test on the raw bytes), and lists the
/// symbols that `keep` accepts as `path:line: kind name`, paged as `page`
/// says; `empty` when none.
fn find_symbols(
    path: Option<&str>,
    page: Page,
    ctx: &ToolContext,
    prefilter: impl Fn(&[u8]) -> bool,
    keep: impl Fn(&lang::Symbol) -> bool,
    empty: String,
) -> ToolResult {
    let dirs = walk_dirs(path, ctx)?;
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
    Ok(paged(lines, page, capped, empty))
}

fn references(args: &NameArgs, ctx: &ToolContext) -> ToolResult {
    let name = args.name.as_str();
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
    let page = Page {
        offset: args.offset,
        limit: args.limit,
    };
    Ok(paged(
        lines,
        page,
        capped,
        format!("[no reference to {name} found]"),
    ))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::CodeTool;
    use crate::util::call_for_test;

    /// A root holding `a.rs` with two functions.
    fn root() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn alpha() {}\nfn alps() {}\n").unwrap();
        dir
    }

    /// Calls `code` with `args` in `root`: whether it failed, and its text.
    async fn call(root: &tempfile::TempDir, args: Value) -> (bool, String) {
        call_for_test(&CodeTool, root.path(), args).await
    }

    #[tokio::test]
    async fn one_of_two_fields_is_still_checked_by_the_action() {
        let dir = root();
        // The integration tests name the first missing field of each action.
        assert_eq!(
            call(&dir, json!({"action": "grep_replace", "pattern": "a"})).await,
            (true, "grep_replace: missing field 'replacement'".to_owned())
        );
        assert_eq!(
            call(&dir, json!({"action": "symbols"})).await,
            (
                true,
                "symbols: give query (a part of the name), or path to list every symbol in it"
                    .to_owned()
            )
        );
        assert_eq!(
            call(&dir, json!({"action": "summarize"})).await,
            (
                true,
                "summarize: give text (a unified diff) or path (a file to outline)".to_owned()
            )
        );
        assert_eq!(
            call(
                &dir,
                json!({"action": "summarize", "text": "", "path": "a.rs"})
            )
            .await,
            (
                true,
                "summarize: give text (a unified diff) or path, not both".to_owned()
            )
        );
    }

    #[tokio::test]
    async fn a_field_of_another_action_is_refused() {
        let dir = root();
        for args in [
            json!({"action": "outline", "path": "a.rs", "kind": "fn"}),
            json!({"action": "definition", "name": "alpha", "kind": "fn"}),
            json!({"action": "summarize", "path": "a.rs", "offset": 1}),
        ] {
            let (err, text) = call(&dir, args.clone()).await;
            assert!(err && text.contains("unknown field"), "{args}: {text}");
        }
    }

    #[tokio::test]
    async fn each_action_gets_its_own_fields() {
        let dir = root();
        let outline = (false, "1: fn alpha\n2: fn alps\n".to_owned());
        assert_eq!(
            call(&dir, json!({"action": "outline", "path": "a.rs"})).await,
            outline
        );
        assert_eq!(
            call(&dir, json!({"action": "summarize", "path": "a.rs"})).await,
            outline
        );
        assert_eq!(
            call(
                &dir,
                json!({"action": "symbols", "query": "ALP", "kind": "fn", "limit": 1})
            )
            .await,
            (
                false,
                "a.rs:1: fn alpha\n[results 1-1 of 2; continue with offset=1]\n".to_owned()
            )
        );
        assert_eq!(
            call(
                &dir,
                json!({"action": "definition", "name": "alps", "path": "a.rs", "offset": 0})
            )
            .await,
            (false, "a.rs:2: fn alps\n".to_owned())
        );
        let (err, text) = call(
            &dir,
            json!({"action": "grep_replace", "pattern": "alps", "replacement": "beta", "dry_run": true}),
        )
        .await;
        assert!(!err && text.contains("+fn beta() {}"), "{text}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.rs")).unwrap(),
            "fn alpha() {}\nfn alps() {}\n"
        );
    }

    #[tokio::test]
    async fn help_lists_each_actions_fields() {
        let (err, text) = call(&root(), json!({"action": "help"})).await;
        assert!(!err);
        assert!(
            text.starts_with("code actions (fields in brackets are optional):\noutline {path}: "),
            "{text}"
        );
        assert!(
            text.contains("\ndefinition {name, [limit], [offset], [path]}: "),
            "{text}"
        );
        assert!(
            text.contains("\ngrep_replace {pattern, replacement, [dry_run], [glob], [ignore_case], [literal], [path]}: "),
            "{text}"
        );
    }
}
