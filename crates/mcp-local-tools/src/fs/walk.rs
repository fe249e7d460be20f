//! `fs` `tree`, `find`, `search`: walks that honour `.gitignore` (also
//! outside a git repository, and those of parent directories) and
//! `.ignore`, skip hidden entries unless asked, always skip `.git`, and
//! never follow symlinks (a link is listed, not entered).

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use grep::regex::RegexMatcherBuilder;
use grep::searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::{WalkBuilder, WalkState};
use mcp_proto::CallToolResult;

use super::{EntryPage, directory, entry_page, existing_dir, hidden, or_root, page_marker};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::roots::Resolved;
use crate::safe::RootHandle;
use crate::util::{Bounded, MAX_RESULT_BYTES, ToolResult, walk_builder};

/// Default `depth` of `tree`.
const DEFAULT_DEPTH: u32 = 3;
/// Default and largest `limit` of `search`, in matching lines.
const DEFAULT_MATCHES: u64 = 200;
/// A search stops collecting after this many matching lines.
const MAX_COLLECTED_MATCHES: u64 = 20_000;
/// Matched and context lines are cut to this many bytes.
const MAX_MATCH_LINE_BYTES: usize = 500;

/// The walk of `dir` for `tree`, `find` and `search` ([`walk_builder`]),
/// with hidden entries when `hidden`.
fn walker(dir: &Resolved, hidden: bool, sorted: bool) -> WalkBuilder {
    // Git's own store is never content to show, hidden or not.
    let mut builder = walk_builder(&dir.root, &dir.path, sorted, true);
    builder.hidden(!hidden);
    builder
}

/// One entry as listings show it: name, `/` for a directory, ` -> target`
/// for a symlink.
fn entry_suffix(entry: &ignore::DirEntry) -> String {
    match entry.file_type() {
        Some(t) if t.is_dir() => "/".to_owned(),
        Some(t) if t.is_symlink() => match std::fs::read_link(entry.path()) {
            Ok(target) => format!(" -> {}", target.to_string_lossy()),
            Err(_) => " -> ?".to_owned(),
        },
        _ => String::new(),
    }
}

arguments! {
    /// Arguments of `fs tree`.
    pub(crate) struct TreeArgs {
        ..directory,
        /// How many levels to show (default 3).
        pub depth: Option<u32>,
        ..hidden,
        ..entry_page,
    }
}

arguments! {
    /// Arguments of `fs find`.
    pub(crate) struct FindArgs {
        /// A glob over paths relative to `path` (e.g. "**/*.rs").
        pub pattern: String,
        ..directory,
        ..hidden,
        ..entry_page,
    }
}

arguments! {
    /// Arguments of `fs search`.
    pub(crate) struct SearchArgs {
        /// A regular expression (or literal text with `literal`).
        pub pattern: String,
        /// A directory or one file, absolute or relative to the first root (default ".").
        pub path: Option<String>,
        /// Treat `pattern` as literal text (default false).
        #[serde(default)]
        pub literal: bool,
        /// Ignore case (default false).
        #[serde(default)]
        pub ignore_case: bool,
        /// Lines of context before and after each match (default 0, at most 10).
        pub context: Option<u32>,
        /// Only files whose path matches this glob (e.g. "*.rs").
        pub glob: Option<String>,
        ..hidden,
        /// Matching lines to skip (default 0).
        pub offset: Option<u64>,
        /// Most matching lines to return (default and at most 200).
        pub limit: Option<u64>,
    }
}

pub(super) fn tree(args: &TreeArgs, ctx: &ToolContext) -> ToolResult {
    let dir = existing_dir(or_root(&args.path), ctx)?;
    let depth = args.depth.unwrap_or(DEFAULT_DEPTH).clamp(1, 64) as usize;
    let mut page = EntryPage::new(args.offset, args.limit);
    let mut out = Bounded::new(MAX_RESULT_BYTES);
    out.push_line(&format!("{}/", ctx.roots.display(&dir.path)));
    let mut builder = walker(&dir, args.hidden, true);
    builder.max_depth(Some(depth));
    for entry in builder.build() {
        let Ok(entry) = entry else { continue };
        if entry.depth() == 0 {
            continue;
        }
        if page.seen.is_multiple_of(1024) && ctx.cancel.is_cancelled() {
            return Err("cancelled".to_owned());
        }
        let line = || {
            format!(
                "{}{}{}",
                "  ".repeat(entry.depth()),
                entry.file_name().to_string_lossy(),
                entry_suffix(&entry)
            )
        };
        if !page.offer(&mut out, line) {
            break;
        }
    }
    Ok(CallToolResult::text(out.finish(page.marker("entries"))))
}

pub(super) fn find(args: &FindArgs, ctx: &ToolContext) -> ToolResult {
    let pattern = args.pattern.as_str();
    let dir = existing_dir(or_root(&args.path), ctx)?;
    let glob = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("find: bad glob: {e}"))?
        .compile_matcher();
    let by_name = !pattern.contains('/');
    let mut page = EntryPage::new(args.offset, args.limit);
    let mut out = Bounded::new(MAX_RESULT_BYTES);
    for (seen, entry) in walker(&dir, args.hidden, true).build().enumerate() {
        let Ok(entry) = entry else { continue };
        if seen.is_multiple_of(1024) && ctx.cancel.is_cancelled() {
            return Err("cancelled".to_owned());
        }
        if entry.depth() == 0 {
            continue;
        }
        let rel = entry.path().strip_prefix(&dir.path).unwrap_or(entry.path());
        let hit = if by_name {
            glob.is_match(entry.file_name())
        } else {
            glob.is_match(rel)
        };
        if !hit {
            continue;
        }
        let line = || {
            format!(
                "{}{}",
                ctx.roots.display(entry.path()),
                entry_suffix(&entry)
            )
        };
        if !page.offer(&mut out, line) {
            break;
        }
    }
    let marker = if page.seen == 0 {
        Some(format!("[no match for {pattern}]"))
    } else {
        page.marker("paths")
    };
    Ok(CallToolResult::text(out.finish(marker)))
}

/// One line a search reports: its number, whether it matched (else it is
/// context), its text; `None` marks a break between context groups.
type HitLine = Option<(u64, bool, String)>;

/// What a search found in one file.
struct FileHits {
    path: PathBuf,
    lines: Vec<HitLine>,
    matches: u64,
}

/// Collects one file's matched and context lines.
struct Collect<'a> {
    lines: Vec<HitLine>,
    matches: u64,
    total: &'a AtomicU64,
}

fn clip(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.len() <= MAX_MATCH_LINE_BYTES {
        String::from_utf8_lossy(bytes).into_owned()
    } else {
        let mut text = String::from_utf8_lossy(&bytes[..MAX_MATCH_LINE_BYTES]).into_owned();
        text.push_str(" [cut]");
        text
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.lines
            .push(Some((m.line_number().unwrap_or(0), true, clip(m.bytes()))));
        self.matches += 1;
        let total = self.total.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(total < MAX_COLLECTED_MATCHES)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.lines
            .push(Some((c.line_number().unwrap_or(0), false, clip(c.bytes()))));
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.lines.push(None);
        Ok(true)
    }
}

pub(super) fn search(args: &SearchArgs, ctx: &ToolContext) -> ToolResult {
    let (input, pattern) = (or_root(&args.path), args.pattern.as_str());
    // A directory is walked; a single file is searched on its own.
    let dir = ctx
        .roots
        .resolve_existing(input)
        .map_err(|e| e.to_string())?;
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(args.ignore_case)
        .fixed_strings(args.literal)
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| format!("search: bad pattern: {e}"))?;
    let context = args.context.unwrap_or(0).min(10) as usize;
    let file_glob = match args.glob.as_deref() {
        Some(g) => Some(
            globset::GlobBuilder::new(g)
                .build()
                .map_err(|e| format!("search: bad glob: {e}"))?
                .compile_matcher(),
        ),
        None => None,
    };
    let handle = RootHandle::open(&dir.root).map_err(|e| e.to_string())?;
    let found = collect_hits(
        ctx,
        &dir,
        &handle,
        &matcher,
        context,
        file_glob.as_ref(),
        args.hidden,
    );
    let (mut files, stopped, mut skipped) = found?;
    files.sort_by(|a, b| {
        a.path
            .as_os_str()
            .as_encoded_bytes()
            .cmp(b.path.as_os_str().as_encoded_bytes())
    });
    let mut text = render_hits(ctx, &files, stopped, args, pattern);
    if !skipped.is_empty() {
        skipped.sort();
        let shown: Vec<String> = skipped
            .iter()
            .take(MAX_SKIPPED_SHOWN)
            .map(|p| ctx.roots.display(p))
            .collect();
        let more = skipped.len().saturating_sub(MAX_SKIPPED_SHOWN);
        text.push_str(&format!(
            "[skipped {} file{} with a line longer than the {SEARCH_HEAP_LIMIT}-byte search buffer: {}{}]\n",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
    }
    Ok(CallToolResult::text(text))
}

/// Most memory one search thread's buffer may take (bytes); a file with a
/// longer line is skipped and named in the result.
pub(crate) const SEARCH_HEAP_LIMIT: usize = 4 * 1024 * 1024;
/// Most skipped files named in a result.
const MAX_SKIPPED_SHOWN: usize = 10;

/// Walks `dir` in parallel and searches every file; the hits, whether the
/// collection cap stopped it, and the files skipped for a line too long.
fn collect_hits(
    ctx: &ToolContext,
    dir: &Resolved,
    handle: &RootHandle,
    matcher: &grep::regex::RegexMatcher,
    context: usize,
    file_glob: Option<&globset::GlobMatcher>,
    hidden: bool,
) -> Result<(Vec<FileHits>, bool, Vec<PathBuf>), String> {
    let shared = SearchShared {
        dir,
        handle,
        file_glob,
        cancel: &ctx.cancel,
        progress: &ctx.progress,
        results: Mutex::new(Vec::new()),
        skipped: Mutex::new(Vec::new()),
        total: AtomicU64::new(0),
        files_seen: AtomicU64::new(0),
        cancelled: AtomicBool::new(false),
    };
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(12);
    let walk = walker(dir, hidden, false).threads(threads).build_parallel();
    walk.run(|| {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .before_context(context)
            .after_context(context)
            .binary_detection(BinaryDetection::quit(0))
            .heap_limit(Some(SEARCH_HEAP_LIMIT))
            .build();
        let matcher = matcher.clone();
        let shared = &shared;
        Box::new(move |entry| shared.visit(&mut searcher, &matcher, entry))
    });
    if shared.cancelled.load(Ordering::Relaxed) {
        return Err("cancelled".to_owned());
    }
    let stopped = shared.total.load(Ordering::Relaxed) >= MAX_COLLECTED_MATCHES;
    let files = shared.results.into_inner().unwrap_or_default();
    let skipped = shared.skipped.into_inner().unwrap_or_default();
    Ok((files, stopped, skipped))
}

/// What the search threads share: where and what they search, and what
/// they found.
struct SearchShared<'a> {
    dir: &'a Resolved,
    handle: &'a RootHandle,
    file_glob: Option<&'a globset::GlobMatcher>,
    cancel: &'a tokio_util::sync::CancellationToken,
    progress: &'a crate::context::Progress,
    results: Mutex<Vec<FileHits>>,
    /// Files whose search failed (a line past the heap limit, or a read
    /// error).
    skipped: Mutex<Vec<PathBuf>>,
    /// Matching lines collected, across threads.
    total: AtomicU64,
    files_seen: AtomicU64,
    cancelled: AtomicBool,
}

impl SearchShared<'_> {
    /// Searches one walked entry with the calling thread's `searcher`.
    fn visit(
        &self,
        searcher: &mut Searcher,
        matcher: &grep::regex::RegexMatcher,
        entry: Result<ignore::DirEntry, ignore::Error>,
    ) -> WalkState {
        if self.cancel.is_cancelled() {
            self.cancelled.store(true, Ordering::Relaxed);
            return WalkState::Quit;
        }
        if self.total.load(Ordering::Relaxed) >= MAX_COLLECTED_MATCHES {
            return WalkState::Quit;
        }
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        if !self.wanted(&entry) {
            return WalkState::Continue;
        }
        let seen = self.files_seen.fetch_add(1, Ordering::Relaxed) + 1;
        if seen.is_multiple_of(1000) {
            self.progress
                .report(seen as f64, None, Some(format!("{seen} files searched")));
        }
        // The no-follow opener: a file swapped for a symlink after the
        // walk saw it is refused, not read.
        let Ok(file) = self.handle.open_read(entry.path()) else {
            return WalkState::Continue;
        };
        let mut sink = Collect {
            lines: Vec::new(),
            matches: 0,
            total: &self.total,
        };
        if searcher.search_file(matcher, &file, &mut sink).is_err() {
            // The only error a file yields here is the heap limit (a
            // line too long to buffer) or a read error: name it.
            if let Ok(mut all) = self.skipped.lock() {
                all.push(entry.into_path());
            }
            return WalkState::Continue;
        }
        if sink.matches > 0
            && let Ok(mut all) = self.results.lock()
        {
            all.push(FileHits {
                path: entry.into_path(),
                lines: sink.lines,
                matches: sink.matches,
            });
        }
        WalkState::Continue
    }

    /// Whether `entry` is a file to search: the glob, when there is one,
    /// matches its name or its path under the walked directory.
    fn wanted(&self, entry: &ignore::DirEntry) -> bool {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return false;
        }
        match self.file_glob {
            Some(glob) => {
                glob.is_match(entry.file_name())
                    || glob.is_match(
                        entry
                            .path()
                            .strip_prefix(&self.dir.path)
                            .unwrap_or(entry.path()),
                    )
            }
            None => true,
        }
    }
}

/// `path:line:text` for matches, `path-line-text` for context, `--` between
/// groups; paged by matching lines.
fn render_hits(
    ctx: &ToolContext,
    files: &[FileHits],
    stopped: bool,
    args: &SearchArgs,
    pattern: &str,
) -> String {
    let offset = args.offset.unwrap_or(0);
    let limit = args
        .limit
        .unwrap_or(DEFAULT_MATCHES)
        .clamp(1, DEFAULT_MATCHES);
    let total: u64 = files.iter().map(|f| f.matches).sum();
    let end = offset.saturating_add(limit);
    let mut out = Bounded::new(MAX_RESULT_BYTES);
    // Ordinal of the next matching line; `last` = matches shown so far + offset.
    let mut index: u64 = 0;
    let mut last = offset;
    let mut groups_shown = 0usize;
    let context = args.context.unwrap_or(0).min(10) as usize;
    let with_context = context > 0;
    'files: for file in files {
        let shown = ctx.roots.display(&file.path);
        for group in file.lines.split(Option::is_none) {
            let lines: Vec<&(u64, bool, String)> = group.iter().flatten().collect();
            let Some((from, to)) = page_window(&lines, &mut index, offset..end, context) else {
                if index >= end {
                    break 'files;
                }
                continue;
            };
            if with_context && groups_shown > 0 && !out.push_line("--") {
                break 'files;
            }
            groups_shown += 1;
            for (number, matched, text) in &lines[from..=to] {
                let sep = if *matched { ':' } else { '-' };
                if !out.push_line(&format!("{shown}{sep}{number}{sep}{text}")) {
                    break 'files;
                }
                if *matched {
                    last += 1;
                }
            }
        }
    }
    out.finish(hits_marker(total, offset, last, stopped, pattern))
}

/// The lines of one group to show, as a range of positions: from the first
/// to the last match whose ordinal is in `page` (ordinals counted on from
/// `index`, which moves past the group's matches), widened by up to
/// `context` non-matching lines each side. `None` when no match of the group
/// is in the page.
fn page_window(
    lines: &[&(u64, bool, String)],
    index: &mut u64,
    page: std::ops::Range<u64>,
    context: usize,
) -> Option<(usize, usize)> {
    let mut first = None;
    let mut final_ = None;
    for (pos, (_, matched, _)) in lines.iter().enumerate() {
        if *matched {
            if page.contains(index) {
                first.get_or_insert(pos);
                final_ = Some(pos);
            }
            *index += 1;
        }
    }
    let (mut from, mut to) = (first?, final_?);
    let (lower, upper) = (from.saturating_sub(context), to + context);
    while from > lower && !lines[from - 1].1 {
        from -= 1;
    }
    while to < upper && to + 1 < lines.len() && !lines[to + 1].1 {
        to += 1;
    }
    Some((from, to))
}

/// The note after the hits: no match at all, or where the page lies (and
/// that the search stopped at [`MAX_COLLECTED_MATCHES`]) when matches are
/// left to show.
fn hits_marker(total: u64, offset: u64, last: u64, stopped: bool, pattern: &str) -> Option<String> {
    if total == 0 {
        Some(format!("[no match for {pattern}]"))
    } else if last < total {
        let mut m = page_marker("matches", offset, last, (!stopped).then_some(total));
        if stopped {
            m.push_str(&format!(
                " [the search stopped after {MAX_COLLECTED_MATCHES} matching lines; narrow the pattern, path or glob]"
            ));
        }
        Some(m)
    } else {
        None
    }
}
