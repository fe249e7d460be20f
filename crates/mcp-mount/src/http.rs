//! A mounted server over streamable HTTP (MCP 2025-11-25
//! basic/transports, streamable HTTP): every message is a POST; a request's
//! answer comes back as `application/json` or as a `text/event-stream` that
//! may carry the server's notifications and requests before it. The
//! session id the server gives on `initialize` (`Mcp-Session-Id`) and the
//! agreed revision (`MCP-Protocol-Version`) go on every later POST. Once
//! the revision is agreed, a GET stream carries what the server sends on
//! its own (`notifications/tools/list_changed`); a server without one
//! (405) is fine.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_proto::RequestId;
use mcp_proto::sse::SseParser;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::link::{Deliver, Link, Outbound, Outgoing, QUEUE};
use crate::spec::{HttpServer, Limits};
use crate::wire::{self, Incoming};

/// The session header (streamable HTTP, session management).
const SESSION: &str = "mcp-session-id";

struct State {
    client: reqwest::Client,
    spec: HttpServer,
    name: String,
    session: Mutex<Option<String>>,
    revision: Mutex<Option<String>>,
    deliver: Deliver,
    closed: CancellationToken,
    max: usize,
}

/// Opens the connection to the endpoint of `spec` for the server `name`
/// (nothing is sent until the first message).
///
/// # Errors
/// A sentence saying why the endpoint cannot be used (not http(s), or the
/// HTTP client could not be built).
pub(crate) fn connect(
    name: &str,
    spec: &HttpServer,
    limits: &Limits,
    deliver: Deliver,
) -> Result<Link, String> {
    if !(spec.url.starts_with("http://") || spec.url.starts_with("https://")) {
        return Err(format!(
            "{:?} is not an http:// or https:// address",
            spec.url
        ));
    }
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("the HTTP client could not be built: {e}"))?;
    let closed = CancellationToken::new();
    let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(QUEUE);
    let state = Arc::new(State {
        client,
        spec: spec.clone(),
        name: name.to_owned(),
        session: Mutex::new(None),
        revision: Mutex::new(None),
        deliver,
        closed: closed.clone(),
        max: limits.max_message_bytes,
    });
    let sender = {
        let state = state.clone();
        tokio::spawn(async move {
            while let Some(message) = out_rx.recv().await {
                // Until the revision is agreed (`initialize` answered, with
                // the session id), messages go one at a time; then
                // concurrently.
                let first = state
                    .revision
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .is_none();
                let state = state.clone();
                let post = async move {
                    state.post(message).await;
                };
                if first {
                    post.await;
                } else {
                    tokio::spawn(post);
                }
            }
            state.closed.cancel();
        })
    };
    let negotiated = {
        let state = state.clone();
        Box::new(move |revision: &str| {
            *state
                .revision
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(revision.to_owned());
            tokio::spawn(state.clone().listen());
        })
    };
    let guard = HttpGuard {
        tasks: vec![sender],
        state,
    };
    Ok(Link {
        out: Outbound::Queue(out_tx),
        closed,
        guard: Box::new(guard),
        negotiated,
    })
}

struct HttpGuard {
    tasks: Vec<tokio::task::JoinHandle<()>>,
    state: Arc<State>,
}

impl Drop for HttpGuard {
    fn drop(&mut self) {
        self.state.closed.cancel();
        for task in &self.tasks {
            task.abort();
        }
        // Ends the session on the server's side (streamable HTTP: a client
        // that no longer needs a session SHOULD send DELETE).
        let session = self
            .state
            .session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let (Some(session), Ok(runtime)) = (session, tokio::runtime::Handle::try_current()) {
            let request = self
                .state
                .request(reqwest::Method::DELETE)
                .header(SESSION, session);
            runtime.spawn(async move {
                let _ = tokio::time::timeout(Duration::from_secs(2), request.send()).await;
            });
        }
    }
}

impl State {
    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut request = self.client.request(method, &self.spec.url);
        for (name, value) in &self.spec.headers {
            request = request.header(name, value);
        }
        if let Some(bearer) = &self.spec.bearer {
            request = request.bearer_auth(bearer);
        }
        if let Some(revision) = &*self.revision.lock().unwrap_or_else(PoisonError::into_inner) {
            request = request.header("mcp-protocol-version", revision);
        }
        if let Some(session) = &*self.session.lock().unwrap_or_else(PoisonError::into_inner) {
            request = request.header(SESSION, session);
        }
        request
    }

    /// Answers the request `id` (when there is one) with `error`.
    async fn fail(&self, id: Option<RequestId>, error: String) {
        tracing::debug!(server = %self.name, %error, "a message to the server was not delivered");
        if let Some(id) = id {
            (self.deliver)(Incoming::Undelivered { id, why: error });
        }
    }

    async fn post(&self, message: Outgoing) {
        let request = self
            .request(reqwest::Method::POST)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.body);
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                let error = format!("the request could not be sent: {}", without_url(&error));
                return self.fail(message.id, error).await;
            }
        };
        let status = response.status();
        if let Some(session) = response
            .headers()
            .get(SESSION)
            .and_then(|v| v.to_str().ok())
        {
            let mut current = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            if current.is_none() {
                *current = Some(session.to_owned());
            }
        }
        if status == reqwest::StatusCode::NOT_FOUND
            && self
                .session
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some()
        {
            // The session is gone on the server's side: a new connection
            // starts a new one.
            self.fail(
                message.id,
                "the server ended the session (HTTP 404)".to_owned(),
            )
            .await;
            self.closed.cancel();
            return;
        }
        if !status.is_success() {
            let error = format!("HTTP {status}");
            return self.fail(message.id, error).await;
        }
        if status == reqwest::StatusCode::ACCEPTED || message.id.is_none() {
            return;
        }
        let answered = self.read_body(response).await;
        if !answered {
            self.fail(
                message.id,
                "the server's answer held no response".to_owned(),
            )
            .await;
        }
    }

    /// Reads a response body (JSON or an event stream) and passes on each
    /// message in it; whether any was a response.
    async fn read_body(&self, mut response: reqwest::Response) -> bool {
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
        let mut answered = false;
        if is_sse {
            let mut parser = SseParser::with_max_event_size(self.max);
            loop {
                let chunk = tokio::select! {
                    chunk = response.chunk() => chunk,
                    () = self.closed.cancelled() => return answered,
                };
                let Ok(Some(chunk)) = chunk else { break };
                for event in parser.feed(&chunk).into_iter().flatten() {
                    if event.event == "message" && !event.data.is_empty() {
                        answered |= self.pass_on(event.data.as_bytes()).await;
                    }
                }
            }
            return answered;
        }
        let mut body = Vec::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            if body.len() + chunk.len() > self.max {
                tracing::warn!(server = %self.name, max = self.max, "an answer of the server was longer than the limit and was dropped");
                return false;
            }
            body.extend_from_slice(&chunk);
        }
        self.pass_on(&body).await
    }

    /// Passes on one message; whether it was a response.
    async fn pass_on(&self, text: &[u8]) -> bool {
        match wire::parse(text) {
            Some(message) => {
                let response = matches!(message, Incoming::Response { .. });
                (self.deliver)(message);
                response
            }
            None => {
                tracing::debug!(server = %self.name, "an answer that is no JSON-RPC message was skipped");
                false
            }
        }
    }

    /// The GET stream for messages the server sends on its own; ends
    /// quietly when the server has none.
    async fn listen(self: Arc<Self>) {
        let request = self
            .request(reqwest::Method::GET)
            .header("accept", "text/event-stream");
        let response = tokio::select! {
            response = request.send() => response,
            () = self.closed.cancelled() => return,
        };
        let Ok(response) = response else { return };
        if !response.status().is_success() {
            return;
        }
        self.read_body(response).await;
    }
}

/// A reqwest error's text without the URL (which may carry credentials in
/// its query).
fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(&format!(" for url ({url})"), "");
        text = text.replace(url.as_str(), "the server");
    }
    // The cause says what went wrong (refused, no such host, TLS).
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
