//! Turning a response body into text: HTML to Markdown or plain text with
//! the main content extracted, JSON pretty-printed, and paging by
//! characters.

use dom_smoothie::{Config, Readability, TextMode};

/// The tags dropped before a whole page is converted (the fallback when no
/// main content is found): they hold no readable text.
const NOT_TEXT: &str = "script, style, noscript, template, svg, canvas, iframe, object";

/// The readable content of `html` as Markdown (`markdown: true`) or plain
/// text: the main content as a readability-style extractor finds it, with
/// the page's title as a heading; else the whole page. `url` resolves
/// relative links.
///
/// Errors when neither yields any text (a page built by scripts, an empty
/// page): the message suggests `format: raw`.
pub(crate) fn html_to_text(html: &str, url: &str, markdown: bool) -> Result<String, String> {
    let mode = if markdown {
        TextMode::Markdown
    } else {
        TextMode::Formatted
    };
    let config = Config {
        text_mode: mode,
        ..Config::default()
    };
    let article = Readability::new(html, Some(url), Some(config))
        .ok()
        .and_then(|mut r| r.parse().ok());
    if let Some(article) = article {
        let body = tidy(&article.text_content);
        if !body.is_empty() {
            let title = article.title.trim();
            if title.is_empty() || body.starts_with(&format!("# {title}")) || !markdown {
                return Ok(body);
            }
            return Ok(format!("# {title}\n\n{body}"));
        }
    }
    let document = dom_query::Document::from(html);
    document.select(NOT_TEXT).remove();
    let body = document.select("body");
    let whole = if markdown {
        body.nodes().first().map(|n| n.md(None).to_string())
    } else {
        Some(body.formatted_text().to_string())
    };
    let whole = tidy(&whole.unwrap_or_default());
    if whole.is_empty() {
        return Err(format!(
            "no readable text found in the HTML of {url} ({} bytes; the page may be built by scripts); \
             use format: raw for the HTML itself",
            html.len()
        ));
    }
    Ok(whole)
}

/// Trailing spaces dropped from each line, runs of blank lines collapsed
/// to one, surrounding blank lines removed.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

/// `body` pretty-printed as JSON, two spaces a level, keys in their
/// order and numbers as spelled; errors when it is not JSON.
pub(crate) fn pretty_json(body: &[u8]) -> Result<String, String> {
    serde_json::from_slice::<serde::de::IgnoredAny>(body).map_err(|e| {
        format!("the body is not JSON ({e}); use format: text or raw for it as it is")
    })?;
    let text = String::from_utf8_lossy(body);
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                // An empty object or array stays on one line.
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.push(chars.next().unwrap_or(']'));
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    Ok(out)
}

/// One page of `text` by characters (never splitting one): the slice from
/// character `start` holding at most `max` characters and at most
/// `max_bytes` bytes, the total count, and the `start` of the next page
/// when more remains.
///
/// Errors when `start` is past the end (`start` 0 of an empty text is an
/// empty page).
pub(crate) fn page(
    text: &str,
    start: usize,
    max: usize,
    max_bytes: usize,
) -> Result<Page<'_>, String> {
    let total = text.chars().count();
    if start > total || (start == total && total > 0) {
        return Err(format!(
            "start_index {start} is past the end: the content has {total} characters"
        ));
    }
    let from = text
        .char_indices()
        .nth(start)
        .map_or(text.len(), |(offset, _)| offset);
    // Characters taken, and the byte where the page ends; a page holds at
    // least one character, so paging always moves on.
    let (mut taken, mut to) = (0, from);
    for c in text[from..].chars() {
        if taken == max || (taken > 0 && to + c.len_utf8() - from > max_bytes) {
            break;
        }
        taken += 1;
        to += c.len_utf8();
    }
    let end_char = start + taken;
    Ok(Page {
        text: &text[from..to],
        total,
        next: (end_char < total).then_some(end_char),
    })
}

/// A page of text (see [`page`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Page<'a> {
    pub(crate) text: &'a str,
    pub(crate) total: usize,
    pub(crate) next: Option<usize>,
}

/// True when `body` is not text: a media type that is never text, or a
/// NUL byte in its first 8 KiB.
pub(crate) fn is_binary(media_type: &str, body: &[u8]) -> bool {
    let never_text = ["image/", "audio/", "video/", "font/"]
        .iter()
        .any(|p| media_type.starts_with(p))
        || matches!(
            media_type,
            "application/octet-stream"
                | "application/pdf"
                | "application/zip"
                | "application/gzip"
                | "application/wasm"
        );
    never_text || body.iter().take(8192).any(|b| *b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_split_on_characters() {
        let text = "aé😀b";
        let p = page(text, 0, 2, usize::MAX).unwrap();
        assert_eq!((p.text, p.total, p.next), ("aé", 4, Some(2)));
        let p = page(text, 2, 2, usize::MAX).unwrap();
        assert_eq!((p.text, p.next), ("😀b", None));
        let p = page(text, 3, 100, usize::MAX).unwrap();
        assert_eq!((p.text, p.next), ("b", None));
        assert!(page(text, 4, 1, usize::MAX).is_err());
        assert_eq!(page("", 0, 5, usize::MAX).unwrap().text, "");
        // The byte budget ends a page first, never inside a character and
        // never before its first one.
        let p = page(text, 0, 10, 4).unwrap();
        assert_eq!((p.text, p.next), ("aé", Some(2)));
        let p = page(text, 2, 10, 3).unwrap();
        assert_eq!((p.text, p.next), ("😀", Some(3)));
    }

    #[test]
    fn json_keeps_order_and_spelling() {
        let text =
            pretty_json(br#" {"b": [1, {}, []], "a": {"x": "q\"{,:"}, "n": 1.50e3} "#).unwrap();
        assert_eq!(
            text,
            "{\n  \"b\": [\n    1,\n    {},\n    []\n  ],\n  \"a\": {\n    \"x\": \"q\\\"{,:\"\n  },\n  \"n\": 1.50e3\n}"
        );
        assert!(pretty_json(b"{").is_err());
    }

    #[test]
    fn tidy_collapses_blank_lines() {
        assert_eq!(tidy("\n\na  \n\n\n\nb\nc\n\n"), "a\n\nb\nc");
    }
}
