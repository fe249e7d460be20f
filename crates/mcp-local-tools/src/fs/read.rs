//! `fs` `read`: lines of a text file, images as image content.

use std::io::{BufRead, BufReader, Read};

use mcp_proto::{CallToolResult, ContentBlock, ImageContent};

use super::one_file;
use super::page_marker;
use crate::action::arguments;
use crate::context::ToolContext;
use crate::util::{Bounded, MAX_RESULT_BYTES, ToolResult};

/// Default and largest `limit` for `read`, in lines.
const DEFAULT_LINES: u64 = 2000;
/// A longer line is cut to this many bytes with a note.
const MAX_LINE_BYTES: usize = 4000;
/// Largest image returned as image content (bytes).
const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;
/// Past the page, lines are counted only in the first 64 MiB.
const MAX_COUNT_BYTES: u64 = 64 * 1024 * 1024;
/// How much of the start is inspected for binary content.
const SNIFF_BYTES: usize = 8192;

arguments! {
    /// Arguments of `fs read`.
    pub(crate) struct ReadArgs {
        ..one_file,
        /// Lines to skip (default 0).
        pub offset: Option<u64>,
        /// Most lines to return (default and at most 2000; also accepted: head).
        #[serde(alias = "head")]
        pub limit: Option<u64>,
        /// Only the last this many lines of the file.
        pub tail: Option<u64>,
        /// Prefix each line with its number (default false).
        #[serde(default)]
        pub line_numbers: bool,
    }
}

pub(super) fn read(args: &ReadArgs, ctx: &ToolContext) -> ToolResult {
    let input = args.path.as_str();
    let resolved = ctx
        .roots
        .resolve_existing(input)
        .map_err(|e| e.to_string())?;
    let shown = ctx.roots.display(&resolved.path);
    let (file, file_len) = crate::files::open_regular(&resolved, input).map_err(|e| {
        if e.ends_with(": is a directory") {
            format!("{e} (use action list)")
        } else {
            e
        }
    })?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader
        .fill_buf()
        .map_err(|e| format!("path '{input}': {e}"))?;
    let sniff = &head[..head.len().min(SNIFF_BYTES)];
    if let Some(mime) = image_mime(sniff) {
        return image(reader, file_len, mime, input);
    }
    if sniff.contains(&0) {
        return Err(format!(
            "path '{shown}': binary file ({} bytes), not shown as text",
            file_len
        ));
    }
    let (offset, limit) = match args.tail {
        Some(_) if args.offset.is_some() || args.limit.is_some() => {
            return Err("read: give tail alone, or offset and limit (head), not both".to_owned());
        }
        Some(tail) => {
            let total = count_lines(&resolved, input)?;
            (total.saturating_sub(tail), tail)
        }
        None => (
            args.offset.unwrap_or(0),
            args.limit.unwrap_or(DEFAULT_LINES),
        ),
    };
    let page = LinePage {
        offset,
        limit: limit.clamp(1, DEFAULT_LINES),
        numbers: args.line_numbers,
    };
    let text = page.read(&mut reader, ctx, input)?;
    Ok(CallToolResult::text(text))
}

/// The lines of the file at `resolved` (a last line without a newline
/// counts), reading at most [`MAX_COUNT_BYTES`].
fn count_lines(resolved: &crate::roots::Resolved, input: &str) -> Result<u64, String> {
    let (file, _) = crate::files::open_regular(resolved, input)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file.take(MAX_COUNT_BYTES));
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        let chunk = reader
            .fill_buf()
            .map_err(|e| format!("path '{input}': {e}"))?;
        let Some(&end) = chunk.last() else {
            break;
        };
        lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        last = end;
        let n = chunk.len();
        reader.consume(n);
    }
    Ok(lines + u64::from(last != b'\n'))
}

/// The whole file as image content, when it is not over [`MAX_IMAGE_BYTES`].
fn image(mut reader: impl Read, file_len: u64, mime: &str, input: &str) -> ToolResult {
    if file_len > MAX_IMAGE_BYTES {
        return Err(format!(
            "path '{input}': image of {} bytes is larger than {MAX_IMAGE_BYTES}",
            file_len
        ));
    }
    let mut bytes = Vec::with_capacity(file_len as usize);
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| format!("path '{input}': {e}"))?;
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(CallToolResult {
        content: vec![ContentBlock::Image(ImageContent {
            data,
            mime_type: mime.to_owned(),
            ..ImageContent::default()
        })],
        ..CallToolResult::default()
    })
}

/// The lines `read` shows: `limit` from `offset` (from 0), numbered or not.
struct LinePage {
    offset: u64,
    limit: u64,
    numbers: bool,
}

impl LinePage {
    /// The page's lines of `reader`, each cut at [`MAX_LINE_BYTES`], and a
    /// marker saying where the page lies in the file. Past the page, lines
    /// are only counted, and only in the first [`MAX_COUNT_BYTES`].
    fn read(
        &self,
        reader: &mut impl BufRead,
        ctx: &ToolContext,
        input: &str,
    ) -> Result<String, String> {
        let (offset, limit) = (self.offset, self.limit);
        let mut out = Bounded::new(MAX_RESULT_BYTES);
        let mut line = Vec::with_capacity(256);
        let mut index: u64 = 0;
        let mut last_shown = offset;
        let mut consumed: u64 = 0;
        let mut counted_all = true;
        loop {
            if index.is_multiple_of(4096) && ctx.cancel.is_cancelled() {
                return Err("cancelled".to_owned());
            }
            let page_done = index >= offset + limit || out.is_full();
            if page_done && consumed > MAX_COUNT_BYTES {
                // Past the page in a huge file: stop counting lines.
                counted_all = false;
                break;
            }
            let (n, full_len) = read_line_bounded(reader, &mut line, MAX_LINE_BYTES)
                .map_err(|e| format!("path '{input}': {e}"))?;
            if n == 0 {
                break;
            }
            consumed += n as u64;
            if index >= offset && !page_done && self.push(&mut out, index, &line, full_len) {
                last_shown = index + 1;
            }
            index += 1;
        }
        let total = counted_all.then_some(index);
        Ok(out.finish(self.marker(last_shown, total)))
    }

    /// Adds line number `index` (from 0) to `out`; whether it fitted.
    fn push(&self, out: &mut Bounded, index: u64, line: &[u8], full_len: usize) -> bool {
        let mut text = String::from_utf8_lossy(line).into_owned();
        if full_len > line.len() {
            text.push_str(&format!(" [line cut: {full_len} bytes in all]"));
        }
        if self.numbers {
            out.push_line(&format!("{:>6}\t{text}", index + 1))
        } else {
            out.push_line(&text)
        }
    }

    /// The marker after the lines shown up to `last_shown`, of `total`
    /// lines when they were all counted.
    fn marker(&self, last_shown: u64, total: Option<u64>) -> Option<String> {
        let offset = self.offset;
        match total {
            None => Some(page_marker("lines", offset, last_shown, None)),
            Some(total) if total > 0 && offset >= total => Some(format!(
                "[offset {offset} is past the end: the file has {total} lines]"
            )),
            Some(total) if last_shown < total => {
                Some(page_marker("lines", offset, last_shown, Some(total)))
            }
            Some(_) => None,
        }
    }
}

/// Reads one line into `line` (without its `\n`), keeping at most `max`
/// bytes of it; returns (bytes consumed, the line's full length). Memory
/// stays bounded however long the line is.
fn read_line_bounded(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, usize)> {
    line.clear();
    let mut consumed = 0;
    let mut full_len = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((consumed, full_len));
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = max.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        full_len += chunk.len();
        let used = done.unwrap_or(buf.len());
        reader.consume(used);
        consumed += used;
        if done.is_some() {
            return Ok((consumed, full_len));
        }
    }
}

/// The MIME type of an image recognised by its first bytes.
fn image_mime(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}
