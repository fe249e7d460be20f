//! `fetch` `download`: a body saved to a file inside the roots, streamed to
//! a temporary sibling and renamed into place.

use std::collections::BTreeMap;

use mcp_proto::CallToolResult;
use reqwest::{Method, Response};
use serde_json::json;
use tokio::io::AsyncWriteExt as _;

use super::{DEFAULT_DOWNLOAD_BYTES, FetchTool, call_timeout, request_headers, request_url};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::error::PathErrorKind;
use crate::net;
use crate::roots::Resolved;
use crate::util::ToolResult;

arguments! {
    /// Arguments of `fetch download`.
    pub(crate) struct DownloadArgs {
        ..request_url,
        /// Where to save the body, inside the roots.
        pub path: String,
        /// The most bytes to save (default 104857600); a longer body is refused and nothing is written.
        pub max_bytes: Option<u64>,
        /// Replace an existing file (default false).
        #[serde(default)]
        pub overwrite: bool,
        ..request_headers,
        ..call_timeout,
    }
}

impl FetchTool {
    pub(super) async fn download(&self, args: &DownloadArgs, ctx: &ToolContext) -> ToolResult {
        let path = args.path.as_str();
        let cap = args.max_bytes.unwrap_or(DEFAULT_DOWNLOAD_BYTES);
        if cap == 0 || cap > self.config.max_download_bytes {
            return Err(format!(
                "max_bytes must be 1..={} (got {cap})",
                self.config.max_download_bytes
            ));
        }
        let overwrite = args.overwrite;
        let target = ctx.roots.resolve(path).map_err(|e| e.to_string())?;
        if target.path.is_dir() {
            return Err(format!("path '{path}': is a directory"));
        }
        if target.exists && !overwrite {
            return Err(format!(
                "path '{path}': already exists (pass overwrite: true to replace it)"
            ));
        }
        let outgoing = Self::outgoing(&args.url, args.headers.as_ref(), Method::GET)?;
        let mut arrived = self.http.send(outgoing).await?;
        let url = arrived.url.to_string();
        check_answer(&arrived.response, &url, cap)?;
        let save = Save {
            target: &target,
            path,
            url: &url,
            cap,
            overwrite,
        };
        let written = save.stream_into_place(&mut arrived.response).await?;
        let shown = ctx.roots.display(&target.path);
        let media = net::media_type(arrived.response.headers());
        let mut result = CallToolResult::text(format!(
            "saved {written} bytes from {url} to {shown}{}\n",
            if media.is_empty() {
                String::new()
            } else {
                format!(" ({media})")
            }
        ));
        result.structured_content = Some(json!({
            "url": url,
            "path": shown,
            "bytes": written,
            "contentType": media,
        }));
        Ok(result)
    }
}

/// Refuses an answer that is not a success, or that announces more than
/// `cap` bytes, before anything is written.
fn check_answer(response: &Response, url: &str, cap: u64) -> Result<(), String> {
    let status = response.status();
    if !status.is_success() {
        return Err(format!("HTTP {status} from {url}; nothing was saved"));
    }
    if let Some(length) = response.content_length()
        && length > cap
    {
        return Err(format!(
            "{url} is {length} bytes, more than max_bytes ({cap}); nothing was saved"
        ));
    }
    Ok(())
}

/// Where and how one body is saved: `path` as the caller gave it, for
/// messages.
struct Save<'a> {
    target: &'a Resolved,
    path: &'a str,
    url: &'a str,
    cap: u64,
    overwrite: bool,
}

impl Save<'_> {
    /// Streams the body of `response` into a temporary sibling of the
    /// target and renames it into place; the bytes written.
    async fn stream_into_place(&self, response: &mut Response) -> Result<u64, String> {
        let target = self.target;
        let temp = crate::files::temp_sibling(target).map_err(|e| e.to_string())?;
        let file = crate::safe::open_at(&target.root, &temp, crate::safe::OpenMode::WriteTruncate)
            .map_err(|e| e.to_string())?;
        // Removes the temporary file on every way out but success, a
        // timeout or cancellation (this future dropped) included.
        let mut leftover = Leftover {
            root: &target.root,
            path: Some(&temp),
        };
        let mut file = tokio::fs::File::from_std(file);
        let written = self.copy_body(response, &mut file).await?;
        crate::safe::rename(
            &target.root,
            &temp,
            &target.root,
            &target.path,
            self.overwrite,
        )
        .map_err(|e| match e.kind {
            PathErrorKind::AlreadyExists => format!(
                "path '{}': already exists (pass overwrite: true to replace it)",
                self.path
            ),
            _ => e.to_string(),
        })?;
        leftover.path = None;
        Ok(written)
    }

    /// Copies the body into `file` and syncs it; refused as soon as it
    /// passes the cap.
    async fn copy_body(
        &self,
        response: &mut Response,
        file: &mut tokio::fs::File,
    ) -> Result<u64, String> {
        let (url, path, cap) = (self.url, self.path, self.cap);
        let mut written: u64 = 0;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("reading the body of {url}: {e}"))?
        {
            written += chunk.len() as u64;
            if written > cap {
                return Err(format!(
                    "{url} sent more than max_bytes ({cap}); nothing was saved"
                ));
            }
            file.write_all(&chunk)
                .await
                .map_err(|e| format!("writing '{path}': {e}"))?;
        }
        file.sync_all()
            .await
            .map_err(|e| format!("writing '{path}': {e}"))?;
        Ok(written)
    }
}

/// A temporary file to remove when dropped, unless `path` was cleared.
struct Leftover<'a> {
    root: &'a std::path::Path,
    path: Option<&'a std::path::Path>,
}

impl Drop for Leftover<'_> {
    fn drop(&mut self) {
        if let Some(path) = self.path {
            let _ = crate::safe::remove_file(self.root, path);
        }
    }
}
