//! The `fetch` tool: read the web from this machine (HIP-0300 §2.1),
//! without reaching the network it runs in.
//!
//! - `get {url, [format], [start_index], [max_length], [headers],
//!   [timeout_ms]}` (alias `fetch`): the page as text. HTML becomes
//!   Markdown (`format: markdown`, the default for HTML) or plain text
//!   (`text`) with the main content extracted, else the whole page; JSON
//!   may be pretty-printed (`json`); `raw` is the body as it came. The text
//!   is paged by characters: at most `max_length` (default
//!   [`DEFAULT_MAX_LENGTH`]) and at most [`crate::MAX_RESULT_BYTES`] from
//!   `start_index`, and the result names the next `start_index`. A page from which no text can be extracted is an
//!   error suggesting `format: raw`, never an empty success.
//! - `head {url, [headers]}`: status and headers.
//! - `request {url, [method], [headers], [body]}`: GET, POST, PUT, PATCH or
//!   DELETE; status, headers and the body, paged like `get`.
//! - `download {url, path, [max_bytes], [overwrite]}`: the body saved to a
//!   file inside the roots, streamed to a temporary sibling and renamed
//!   into place; an existing file is kept unless `overwrite`.
//!
//! Limits: http and https only; every call bounded by `timeout_ms`
//! (default [`DEFAULT_TIMEOUT`], at most the configured maximum); bodies
//! read while streaming up to [`DEFAULT_MAX_BYTES`] (`download`: its
//! `max_bytes`); at most [`crate::net::MAX_REDIRECTS`] redirects. Every
//! request, and every redirect hop, goes through the address guard of
//! [`crate::net`]: loopback, private, link-local and other internal
//! addresses are refused unless [`FetchConfig::policy`] allows them. The
//! tool's client sends no credential of the server, asks for no
//! compression, and reads bodies as UTF-8 (bytes that are not UTF-8 become
//! U+FFFD; other charsets are not converted).

mod convert;
mod download;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::Duration;

use mcp_proto::CallToolResult;
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::action::{ActionFuture, ActionTool, actions, arguments, field_groups, local_tool};
use crate::context::ToolContext;

use crate::net::{self, Http, NetPolicy, Outgoing};
use crate::util::{About, Hints, MAX_RESULT_BYTES, ToolResult};

/// Default `max_length` of `get` and `request`: 20,000 characters.
pub const DEFAULT_MAX_LENGTH: usize = 20_000;
/// Largest `max_length` a call may ask for: 100,000 characters.
pub const MAX_MAX_LENGTH: usize = 100_000;
/// Default cap on the bytes of a body `get`, `head` and `request` read:
/// 10 MiB.
pub const DEFAULT_MAX_BYTES: usize = 10 * 1024 * 1024;
/// Default `max_bytes` of `download`: 100 MiB.
pub const DEFAULT_DOWNLOAD_BYTES: u64 = 100 * 1024 * 1024;
/// Default `timeout_ms`: 30,000 ms.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default largest `timeout_ms` a call may ask for: 120,000 ms.
pub const DEFAULT_MAX_TIMEOUT: Duration = Duration::from_secs(120);

/// How the `fetch` tool is set up.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Which addresses requests may reach (default: public ones only).
    pub policy: NetPolicy,
    /// Cap on the bytes of a body read by `get`, `head` and `request`
    /// (default [`DEFAULT_MAX_BYTES`]); reading stops there.
    pub max_bytes: usize,
    /// Largest `max_bytes` a `download` may ask for (default 1 GiB).
    pub max_download_bytes: u64,
    /// `timeout_ms` when a call gives none (default [`DEFAULT_TIMEOUT`]).
    pub default_timeout: Duration,
    /// Largest `timeout_ms` a call may ask for (default
    /// [`DEFAULT_MAX_TIMEOUT`]).
    pub max_timeout: Duration,
}

impl Default for FetchConfig {
    fn default() -> FetchConfig {
        FetchConfig {
            policy: NetPolicy::default(),
            max_bytes: DEFAULT_MAX_BYTES,
            max_download_bytes: 1 << 30,
            default_timeout: DEFAULT_TIMEOUT,
            max_timeout: DEFAULT_MAX_TIMEOUT,
        }
    }
}

impl FetchConfig {
    /// The defaults, with the policy from the environment
    /// ([`NetPolicy::from_env`]: `HANZO_MCP_FETCH_ALLOW_PRIVATE`).
    pub fn from_env() -> FetchConfig {
        FetchConfig {
            policy: NetPolicy::from_env(),
            ..FetchConfig::default()
        }
    }
}

/// The `fetch` local tool. Cheap to clone; clones share the HTTP client.
#[derive(Debug, Clone)]
pub struct FetchTool {
    config: std::sync::Arc<FetchConfig>,
    http: Http,
}

impl Default for FetchTool {
    fn default() -> FetchTool {
        FetchTool::new()
    }
}

impl FetchTool {
    /// The tool with [`FetchConfig::from_env`].
    pub fn new() -> FetchTool {
        FetchTool::with_config(FetchConfig::from_env())
    }

    /// The tool with `config`.
    pub fn with_config(config: FetchConfig) -> FetchTool {
        FetchTool {
            http: Http::new(config.policy.clone()),
            config: std::sync::Arc::new(config),
        }
    }
}

actions! {
    /// Which `fetch` action to run.
    pub(crate) enum FetchAction for FetchCall {
        Get(GetArgs) = "get" ["fetch"] { reads: true, can: [Network], pool: false, usage: "the page as text: HTML as Markdown (format: markdown, the default for HTML) or plain text (text) with the main content extracted; json pretty-prints; raw is the body as it came. At most max_length characters (default 20000, at most 100000) and 64 KiB from start_index (default 0); the result names the next start_index." },
        Head(HeadArgs) = "head" { reads: true, can: [Network], pool: false, usage: "status and headers only." },
        Request(RequestArgs) = "request" { reads: false, can: [Network], pool: false, usage: "an HTTP request (method GET, POST, PUT, PATCH or DELETE; default GET) with a text body; returns the status, headers and the body, paged like get." },
        Download(download::DownloadArgs) = "download" { reads: false, can: [WriteFiles, Network], pool: false, usage: "save the body to path inside the roots (at most max_bytes, default 104857600); an existing file is kept unless overwrite." },
    }
}

/// The Markdown `get` makes of an HTML page fetched from `url` (which
/// resolves relative links): the main content as a readability-style
/// extractor finds it, with the page's title as a heading, else the whole
/// page without scripts and styles.
///
/// Errors when neither holds any text (a page built by scripts), with a
/// message suggesting `format: raw`.
pub fn html_to_markdown(html: &str, url: &str) -> Result<String, String> {
    convert::html_to_text(html, url, true)
}

/// How `get` turns the body into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Format {
    // HTML as Markdown, main content extracted; other bodies as they are.
    Markdown,
    // HTML as plain text, main content extracted; other bodies as they are.
    Text,
    // The body as it came (UTF-8, invalid bytes replaced).
    Raw,
    // The body parsed as JSON and pretty-printed.
    Json,
}

field_groups! {
    /// Where every action sends its request.
    request_url {
        /// The http or https URL.
        pub url: String,
    }

    /// The caller's headers of every action's request.
    request_headers {
        /// Request headers to send (name to value). Host cannot be set.
        pub headers: Option<BTreeMap<String, String>>,
    }

    /// Every action's bound ([`FetchCall::timeout_ms`]).
    call_timeout {
        /// Milliseconds the whole call may take (default 30000, at most 120000).
        pub timeout_ms: Option<u64>,
    }

    /// The page of text `get` and `request` answer.
    text_page {
        /// The first character to return (default 0); use the next start_index a result names.
        pub start_index: Option<u64>,
        /// The most characters to return (default 20000, at most 100000); a page also ends at 64 KiB.
        pub max_length: Option<u64>,
    }
}
// The groups the submodules' argument structs splice in.
use call_timeout;
use request_headers;
use request_url;

arguments! {
    /// Arguments of `fetch get`.
    pub(crate) struct GetArgs {
        ..request_url,
        /// markdown (HTML as Markdown, main content extracted; the default for HTML), text (HTML as plain text), raw (the body as it came; the default for other types) or json (pretty-printed).
        pub format: Option<Format>,
        ..text_page,
        ..request_headers,
        ..call_timeout,
    }
}

arguments! {
    /// Arguments of `fetch head`.
    pub(crate) struct HeadArgs {
        ..request_url,
        ..request_headers,
        ..call_timeout,
    }
}

arguments! {
    /// Arguments of `fetch request`.
    pub(crate) struct RequestArgs {
        ..request_url,
        /// GET (default), POST, PUT, PATCH or DELETE.
        pub method: Option<String>,
        ..request_headers,
        /// The request body (text).
        pub body: Option<String>,
        ..text_page,
        ..call_timeout,
    }
}

impl FetchCall {
    /// The call's `timeout_ms` (every action takes one).
    fn timeout_ms(&self) -> Option<u64> {
        match self {
            FetchCall::Get(args) => args.timeout_ms,
            FetchCall::Head(args) => args.timeout_ms,
            FetchCall::Request(args) => args.timeout_ms,
            FetchCall::Download(args) => args.timeout_ms,
        }
    }
}

const DESCRIPTION: &str = "Read the web from this machine: get a page as Markdown (main content extracted), text, raw or pretty JSON, paged by characters with start_index; head; request with a method, headers and body; download a file into the roots. http and https only; requests to loopback, private, link-local and other internal addresses are refused (every redirect hop included); bodies and time are capped. Call with {\"action\":\"help\"} for every action's fields.";

impl ActionTool for FetchTool {
    type Args = FetchCall;
    const ABOUT: About = About::new("fetch", "Fetch from the web", Hints::NETWORK, DESCRIPTION);
    const HELP_NOTES: &'static str = "Requests to loopback, private (RFC 1918, RFC 6598), link-local (cloud metadata), unique-local, multicast and unspecified addresses are refused, on every redirect hop and for every address a name resolves to, unless the server runs with --fetch-allow-private (HANZO_MCP_FETCH_ALLOW_PRIVATE=1). At most 5 redirects are followed; bodies are read up to 10 MiB (download: max_bytes). No credential of the server is ever sent.";

    fn time_limit(&self) -> Option<Duration> {
        Some(self.config.max_timeout + Duration::from_secs(5))
    }

    fn run_async<'a>(&'a self, call: FetchCall, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move {
            let timeout = self.timeout(call.timeout_ms())?;
            let work = async {
                match call {
                    FetchCall::Get(args) => self.get(&args).await,
                    FetchCall::Head(args) => self.head(&args).await,
                    FetchCall::Request(args) => self.request(&args).await,
                    FetchCall::Download(args) => self.download(&args, &ctx).await,
                }
            };
            tokio::select! {
                biased;
                () = ctx.cancel.cancelled() => Err("cancelled".to_owned()),
                done = tokio::time::timeout(timeout, work) => done.unwrap_or_else(|_| {
                    Err(format!("timed out after {} ms", timeout.as_millis()))
                }),
            }
        })
    }
}

local_tool!(FetchTool);

impl FetchTool {
    fn timeout(&self, asked: Option<u64>) -> Result<Duration, String> {
        let max = self.config.max_timeout;
        match asked {
            None => Ok(self.config.default_timeout.min(max)),
            Some(ms) if ms == 0 || Duration::from_millis(ms) > max => Err(format!(
                "timeout_ms must be 1..={} (got {ms})",
                max.as_millis()
            )),
            Some(ms) => Ok(Duration::from_millis(ms)),
        }
    }

    /// The request to `url` with the caller's `headers`, without a body.
    fn outgoing(
        url: &str,
        headers: Option<&BTreeMap<String, String>>,
        method: Method,
    ) -> Result<Outgoing, String> {
        Ok(Outgoing {
            method,
            url: net::parse_url(url)?,
            headers: net::caller_headers(headers.into_iter().flatten())?,
            body: None,
        })
    }

    /// The first character and the most characters to return, from
    /// `start_index` and `max_length`.
    fn paging(start_index: Option<u64>, max_length: Option<u64>) -> Result<(usize, usize), String> {
        let start = start_index.unwrap_or(0);
        let max = max_length.unwrap_or(DEFAULT_MAX_LENGTH as u64);
        if max == 0 || max > MAX_MAX_LENGTH as u64 {
            return Err(format!(
                "max_length must be 1..={MAX_MAX_LENGTH} (got {max})"
            ));
        }
        Ok((usize::try_from(start).unwrap_or(usize::MAX), max as usize))
    }

    async fn get(&self, args: &GetArgs) -> ToolResult {
        let (start, max) = Self::paging(args.start_index, args.max_length)?;
        let outgoing = Self::outgoing(&args.url, args.headers.as_ref(), Method::GET)?;
        let asked = outgoing.url.to_string();
        let mut arrived = self.http.send(outgoing).await?;
        let status = arrived.response.status();
        let media = net::media_type(arrived.response.headers());
        let body = net::read_body(&mut arrived.response, self.config.max_bytes).await?;
        let url = arrived.url.to_string();
        let raw = page_text(&url, status, &media, &body)?;
        let html = media == "text/html"
            || media == "application/xhtml+xml"
            || (media.is_empty() && looks_like_html(&raw));
        let format = args
            .format
            .unwrap_or(if html { Format::Markdown } else { Format::Raw });
        let text = self.formatted(format, html, raw, &url, &body).await?;
        let page = convert::page(&text, start, max, MAX_RESULT_BYTES)?;
        let mut out = String::with_capacity(page.text.len() + 1);
        self.push_page(&mut out, &page, start, body.complete);
        let mut result = CallToolResult::text(out);
        result.structured_content = Some(json!({
            "url": asked,
            "finalUrl": url,
            "redirects": arrived.redirects,
            "status": status.as_u16(),
            "contentType": media,
            "format": format_name(format, html),
            "startIndex": start,
            "totalChars": page.total,
            "nextStartIndex": page.next,
            "bodyBytes": body.bytes.len(),
            "bodyComplete": body.complete,
        }));
        Ok(result)
    }

    /// `raw`, the text of the page at `url`, in `format`: HTML converted,
    /// JSON pretty-printed (a whole body only), anything else as it came.
    async fn formatted(
        &self,
        format: Format,
        html: bool,
        raw: Cow<'_, str>,
        url: &str,
        body: &net::Body,
    ) -> Result<String, String> {
        match format {
            // Parsing a page of up to the body cap is CPU work: off the
            // connection's task.
            Format::Markdown | Format::Text if html => {
                let (html_text, page_url) = (raw.into_owned(), url.to_owned());
                let markdown = format == Format::Markdown;
                tokio::task::spawn_blocking(move || {
                    convert::html_to_text(&html_text, &page_url, markdown)
                })
                .await
                .map_err(|e| format!("internal error: the conversion failed ({e})"))?
            }
            Format::Json => {
                if !body.complete {
                    return Err(format!(
                        "the JSON body of {url} is larger than {} bytes (read no further); use format: raw to page what was read",
                        self.config.max_bytes
                    ));
                }
                convert::pretty_json(&body.bytes)
            }
            _ => Ok(raw.into_owned()),
        }
    }

    /// The note on a body read only up to the byte cap.
    fn cut_note(&self) -> String {
        format!(
            "[the body is larger than {} bytes; only the first {} bytes were read]\n",
            self.config.max_bytes, self.config.max_bytes
        )
    }

    /// Appends `page` (of a text paged from character `start`) to `out`,
    /// ending its last line; then the note on a body read only up to the
    /// byte cap (`complete` false), and where the next page starts.
    fn push_page(&self, out: &mut String, page: &convert::Page<'_>, start: usize, complete: bool) {
        out.push_str(page.text);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if !complete {
            out.push_str(&self.cut_note());
        }
        if let Some(next) = page.next {
            out.push_str(&format!(
                "[characters {start}-{next} of {}; continue with start_index={next}]\n",
                page.total
            ));
        }
    }

    async fn head(&self, args: &HeadArgs) -> ToolResult {
        let outgoing = Self::outgoing(&args.url, args.headers.as_ref(), Method::HEAD)?;
        let arrived = self.http.send(outgoing).await?;
        let (text, headers) = status_and_headers(&arrived);
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "url": arrived.url.as_str(),
            "status": arrived.response.status().as_u16(),
            "headers": headers,
        }));
        Ok(result)
    }

    async fn request(&self, args: &RequestArgs) -> ToolResult {
        let (start, max) = Self::paging(args.start_index, args.max_length)?;
        let method = match args
            .method
            .as_deref()
            .unwrap_or("GET")
            .to_ascii_uppercase()
            .as_str()
        {
            "GET" => Method::GET,
            "POST" => Method::POST,
            "PUT" => Method::PUT,
            "PATCH" => Method::PATCH,
            "DELETE" => Method::DELETE,
            other => {
                return Err(format!(
                    "method '{other}' is not accepted (GET, POST, PUT, PATCH or DELETE)"
                ));
            }
        };
        let mut outgoing = Self::outgoing(&args.url, args.headers.as_ref(), method)?;
        outgoing.body = args.body.as_ref().map(|b| b.as_bytes().to_vec());
        let mut arrived = self.http.send(outgoing).await?;
        let (mut text, headers) = status_and_headers(&arrived);
        let media = net::media_type(arrived.response.headers());
        let body = net::read_body(&mut arrived.response, self.config.max_bytes).await?;
        let mut next = None;
        let mut total = 0;
        text.push('\n');
        if convert::is_binary(&media, &body.bytes) {
            text.push_str(&format!(
                "[binary body, {} bytes; use download to save it]\n",
                body.bytes.len()
            ));
        } else {
            let raw = String::from_utf8_lossy(&body.bytes);
            let page = convert::page(&raw, start, max, MAX_RESULT_BYTES)?;
            self.push_page(&mut text, &page, start, body.complete);
            next = page.next;
            total = page.total;
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "url": arrived.url.as_str(),
            "status": arrived.response.status().as_u16(),
            "headers": headers,
            "totalChars": total,
            "nextStartIndex": next,
            "bodyBytes": body.bytes.len(),
            "bodyComplete": body.complete,
        }));
        Ok(result)
    }
}

/// `HTTP <status>` and one `name: value` line per header, and the headers
/// as a JSON object (a repeated header's values joined by `, `).
fn status_and_headers(arrived: &net::Arrived) -> (String, serde_json::Value) {
    let response = &arrived.response;
    let mut text = format!("HTTP {} ({})\n", response.status(), arrived.url);
    let mut map = serde_json::Map::new();
    for (name, value) in response.headers() {
        let value = String::from_utf8_lossy(value.as_bytes());
        text.push_str(&format!("{name}: {value}\n"));
        match map.get_mut(name.as_str()) {
            Some(serde_json::Value::String(old)) => {
                old.push_str(", ");
                old.push_str(&value);
            }
            _ => {
                map.insert(name.as_str().to_owned(), value.into_owned().into());
            }
        }
    }
    (text, serde_json::Value::Object(map))
}

/// The body of a page as text: refused when it is binary, or (with its
/// start) when the status is not a success.
fn page_text<'b>(
    url: &str,
    status: reqwest::StatusCode,
    media: &str,
    body: &'b net::Body,
) -> Result<Cow<'b, str>, String> {
    if convert::is_binary(media, &body.bytes) {
        return Err(format!(
            "{url} answered binary content ({}, {} bytes read); use download to save it",
            if media.is_empty() { "no type" } else { media },
            body.bytes.len()
        ));
    }
    let raw = String::from_utf8_lossy(&body.bytes);
    if !status.is_success() {
        let mut snippet: String = raw.chars().take(500).collect();
        if snippet.len() < raw.len() {
            snippet.push('…');
        }
        return Err(format!("HTTP {status} from {url}\n{snippet}"));
    }
    Ok(raw)
}

fn looks_like_html(text: &str) -> bool {
    let head: String = text
        .trim_start()
        .chars()
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

fn format_name(format: Format, html: bool) -> &'static str {
    match format {
        Format::Markdown if html => "markdown",
        Format::Text if html => "text",
        Format::Json => "json",
        _ => "raw",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{FetchConfig, FetchTool};
    use crate::util::call_for_test;

    /// Calls `fetch` with `args` in a fresh root: whether it failed, and
    /// its text. Every call here fails before any request.
    async fn call(args: Value) -> (bool, String) {
        let dir = tempfile::tempdir().unwrap();
        let tool = FetchTool::with_config(FetchConfig::default());
        call_for_test(&tool, dir.path(), args).await
    }

    #[tokio::test]
    async fn a_second_missing_field_is_named_with_its_action() {
        assert_eq!(
            call(json!({"action": "download", "url": "http://example.invalid/"})).await,
            (true, "download: missing field 'path'".to_owned())
        );
    }

    #[tokio::test]
    async fn every_action_takes_timeout_ms_and_checks_it_first() {
        for args in [
            json!({"action": "get", "url": "http://example.invalid/", "timeout_ms": 0}),
            json!({"action": "head", "url": "http://example.invalid/", "timeout_ms": 0}),
            json!({"action": "request", "url": "http://example.invalid/", "timeout_ms": 0}),
            json!({"action": "download", "url": "http://example.invalid/", "path": "a", "timeout_ms": 0}),
        ] {
            assert_eq!(
                call(args.clone()).await,
                (true, "timeout_ms must be 1..=120000 (got 0)".to_owned()),
                "{args}"
            );
        }
        for action in ["get", "request"] {
            assert_eq!(
                call(json!({"action": action, "url": "http://example.invalid/", "max_length": 0}))
                    .await,
                (true, "max_length must be 1..=100000 (got 0)".to_owned()),
                "{action}"
            );
        }
    }

    #[tokio::test]
    async fn a_field_of_another_action_is_refused() {
        for (args, field) in [
            (
                json!({"action": "head", "url": "http://example.invalid/", "format": "raw"}),
                "format",
            ),
            (
                json!({"action": "get", "url": "http://example.invalid/", "path": "a"}),
                "path",
            ),
            (
                json!({"action": "download", "url": "http://example.invalid/", "path": "a", "start_index": 1}),
                "start_index",
            ),
        ] {
            let (err, text) = call(args.clone()).await;
            assert!(
                err && text.contains(&format!("unknown field `{field}`")),
                "{args}: {text}"
            );
        }
    }

    #[tokio::test]
    async fn help_lists_each_actions_fields() {
        let (err, text) = call(json!({"action": "help"})).await;
        assert!(!err);
        assert!(
            text.contains("\nhead {url, [headers], [timeout_ms]}: "),
            "{text}"
        );
        assert!(
            text.contains(
                "\ndownload {url, path, [headers], [max_bytes], [overwrite], [timeout_ms]}: "
            ),
            "{text}"
        );
    }
}
