//! Sending a forwarded call's REST request to its upstream and reading the
//! answer, within the call's bounds (HIP-0300 §1.6).
//!
//! Two ways, one behaviour:
//!
//! - a plain `http://` upstream, and an `https://` one when the crate's
//!   `rustls` feature is on, is reached over HTTP/1.1 connections the
//!   door keeps itself ([`Pool`]): hyper's client connection (over
//!   rustls for `https://`, the certificate checked by the platform's
//!   verifier as reqwest does), driven inside the task that serves the
//!   call (no connection task, no thread hop), taken from a small stack of
//!   idle connections per upstream and caller and put back as soon as the
//!   answer has been read whole;
//! - every upstream when the environment names an HTTP proxy
//!   (`HTTP_PROXY`, `http_proxy`, `ALL_PROXY`, `all_proxy`), and
//!   `https://` ones with the `native-tls` feature alone, goes through
//!   reqwest (the proxy honoured), on a new connection for every call:
//!   reqwest's idle connections would be shared by all callers.
//!
//! Both follow no redirect (a 3xx is the answer, its `Location` shown), send
//! nothing but the request built by [`crate::forward`] (whose URL was
//! checked to stay inside the upstream), bound the connect by the door's
//! connect timeout and the whole exchange by the call timeout, and read at
//! most the body cap, marking an answer cut there.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::Poll;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use reqwest::header::{
    ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HOST, HeaderMap, HeaderValue, LOCATION,
};
use reqwest::{Method, StatusCode, Url};
use tokio::net::TcpStream;

/// One REST request, built and checked.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub method: Method,
    pub url: Url,
    pub headers: HeaderMap,
    pub body: Option<Bytes>,
}

/// An upstream answer, its body read up to the cap.
#[derive(Debug)]
pub(crate) struct Received {
    pub status: StatusCode,
    pub content_type: String,
    pub location: Option<String>,
    pub body: Vec<u8>,
    /// The body was longer than the cap and is cut there.
    pub cut: bool,
}

impl Received {
    fn new(status: StatusCode, headers: &HeaderMap) -> Self {
        let header = |name| {
            headers
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_owned)
        };
        Received {
            status,
            content_type: header(CONTENT_TYPE).unwrap_or_default(),
            location: header(LOCATION),
            body: Vec::new(),
            cut: false,
        }
    }

    /// Appends `chunk`, keeping at most `max` bytes; `false` once the cap
    /// is reached (the rest is not read).
    fn take(&mut self, chunk: &[u8], max: usize) -> bool {
        let room = max.saturating_sub(self.body.len());
        if chunk.len() > room {
            self.body.extend_from_slice(&chunk[..room]);
            self.cut = true;
            return false;
        }
        self.body.extend_from_slice(chunk);
        true
    }
}

/// Why no answer came.
#[derive(Debug)]
pub(crate) enum SendError {
    /// Not within the call timeout.
    Timeout,
    /// No connection could be made.
    Connect,
    /// The exchange failed otherwise (the text says how).
    Failed(String),
}

/// The senders of forwarded calls: the door's own connections for plain
/// HTTP, reqwest for the rest.
#[derive(Debug)]
pub(crate) struct Upstreams {
    client: reqwest::Client,
    pool: Pool,
    /// The proxies the environment names, read as reqwest reads them
    /// (hyper-util's matcher, `NO_PROXY` included); `None` when it names
    /// none.
    proxies: Option<Matcher>,
}

/// The proxy matcher reqwest uses.
type Matcher = hyper_util::client::proxy::matcher::Matcher;

impl Upstreams {
    /// `client` for the upstreams the environment names a proxy for (and
    /// `https://` ones without the `rustls` feature): reqwest honours the
    /// proxy there. The door's own connections, made within
    /// `connect_timeout`, for the others.
    pub(crate) fn new(client: reqwest::Client, connect_timeout: Duration) -> Self {
        let named = mcp_door_client::proxy_named();
        Upstreams {
            client,
            pool: Pool::new(connect_timeout),
            proxies: named.then(Matcher::from_env),
        }
    }

    /// Whether a call to `url` goes through a proxy.
    fn proxied(&self, url: &Url) -> bool {
        let Some(proxies) = &self.proxies else {
            return false;
        };
        // A URL hyper cannot read goes to reqwest, which says why.
        url.as_str()
            .parse::<hyper::Uri>()
            .map_or(true, |uri| proxies.intercept(&uri).is_some())
    }

    /// The reqwest client (readiness probes use it too).
    pub(crate) fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Sends `outgoing` and reads the answer, keeping at most
    /// `max_body_bytes` of its body, all within `timeout`.
    pub(crate) async fn send(
        &self,
        outgoing: Outgoing,
        timeout: Duration,
        max_body_bytes: usize,
    ) -> Result<Received, SendError> {
        let exchange = async {
            match &self.pool {
                pool if pool.serves(outgoing.url.scheme()) && !self.proxied(&outgoing.url) => {
                    pool.send(outgoing, max_body_bytes).await
                }
                _ => by_reqwest(&self.client, outgoing, max_body_bytes).await,
            }
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .unwrap_or(Err(SendError::Timeout))
    }
}

async fn by_reqwest(
    client: &reqwest::Client,
    outgoing: Outgoing,
    max_body_bytes: usize,
) -> Result<Received, SendError> {
    let classify = |e: reqwest::Error| {
        if e.is_timeout() {
            SendError::Timeout
        } else if e.is_connect() {
            SendError::Connect
        } else {
            SendError::Failed(e.to_string())
        }
    };
    let mut request = client
        .request(outgoing.method, outgoing.url)
        .headers(outgoing.headers);
    if let Some(body) = outgoing.body {
        request = request.body(body);
    }
    let mut response = request.send().await.map_err(classify)?;
    let mut received = Received::new(response.status(), response.headers());
    while let Some(chunk) = response.chunk().await.map_err(classify)? {
        if !received.take(&chunk, max_body_bytes) {
            break;
        }
    }
    Ok(received)
}

/// Idle connections kept per upstream address and caller.
const MAX_IDLE_PER_KEY: usize = 64;
/// Idle connections kept in all.
const MAX_IDLE_TOTAL: usize = 256;
/// How long a connection may sit idle before it is closed rather than
/// used (upstreams close idle connections on their own schedule; one
/// older than this is likely closed or about to be).
const MAX_IDLE_FOR: Duration = Duration::from_secs(30);

/// The door's plain-HTTP connections: per upstream `host:port` and
/// caller, a stack of idle HTTP/1.1 connections (the most recently used on
/// top).
///
/// A caller is the headers its request carries (its credentials, and any
/// an operation's header parameters set): a connection carries the requests of one caller
/// only. HTTP/1.1 pairs answers with requests by their order alone, so an
/// upstream that sends one answer too many (a bug, or a response split by
/// what a request held) shifts every later answer on that connection by
/// one; whatever the checks before reuse find, an answer that arrives
/// just after the next request was written is taken for its answer. Kept
/// per caller, such a shift hands a caller an answer to its own request,
/// never one made for another caller's credentials.
#[derive(Debug)]
pub(crate) struct Pool {
    idle: Mutex<IdleSet>,
    /// Keys the caller fingerprints (random per process).
    hasher: std::collections::hash_map::RandomState,
    connect_timeout: Duration,
    /// TLS for `https://` upstreams; `None` leaves them to reqwest (no
    /// verifier could be made).
    #[cfg(feature = "rustls")]
    tls: Option<Tls>,
}

/// The TLS client set-up ([`tls_connector`]).
#[cfg(feature = "rustls")]
struct Tls(tokio_rustls::TlsConnector);

#[cfg(feature = "rustls")]
impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls")
    }
}

/// An upstream (`scheme://host:port`) and a caller's fingerprint.
type Key = (String, u64);

/// The byte stream of an upstream connection: TCP, or TLS over it.
enum Stream {
    Plain(TcpStream),
    #[cfg(feature = "rustls")]
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl tokio::io::AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            #[cfg(feature = "rustls")]
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl tokio::io::AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            #[cfg(feature = "rustls")]
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            #[cfg(feature = "rustls")]
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            #[cfg(feature = "rustls")]
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            #[cfg(feature = "rustls")]
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            #[cfg(feature = "rustls")]
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// The TLS client set-up for `https://` upstreams: the process's default
/// crypto provider (else aws-lc-rs, as reqwest picks), the platform's
/// certificate verifier (as reqwest uses), HTTP/1.1 by ALPN. `None` when
/// the verifier cannot be made (no certificate store readable): such
/// upstreams then go through reqwest.
#[cfg(feature = "rustls")]
fn tls_connector() -> Option<Tls> {
    use std::sync::Arc;
    let provider = rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
    let verifier = rustls_platform_verifier::Verifier::new(Arc::clone(&provider)).ok()?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Some(Tls(tokio_rustls::TlsConnector::from(Arc::new(config))))
}

#[derive(Debug, Default)]
struct IdleSet {
    stacks: HashMap<Key, Vec<Idle>>,
    total: usize,
    /// When connections idle too long were last dropped from every stack
    /// (`None`: never).
    swept: Option<Instant>,
}

impl IdleSet {
    /// Drops, from every stack, the connections idle for longer than
    /// [`MAX_IDLE_FOR`]: those of callers that never came back (one-off
    /// credentials) would otherwise keep their sockets and their places
    /// for good; and the stacks left empty.
    fn sweep(&mut self) {
        let IdleSet {
            stacks,
            total,
            swept,
        } = self;
        stacks.retain(|_, stack| {
            let stale = stack.partition_point(|i| i.since.elapsed() > MAX_IDLE_FOR);
            stack.drain(..stale);
            *total -= stale;
            !stack.is_empty()
        });
        *swept = Some(Instant::now());
    }

    /// Drops the connection idle the longest of all, to make room.
    fn drop_oldest(&mut self) {
        let oldest = self
            .stacks
            .iter()
            .filter_map(|(key, stack)| stack.first().map(|i| (i.since, key.clone())))
            .min_by_key(|(since, _)| *since);
        if let Some((_, key)) = oldest
            && let Some(stack) = self.stacks.get_mut(&key)
        {
            stack.remove(0);
            self.total -= 1;
            if stack.is_empty() {
                self.stacks.remove(&key);
            }
        }
    }
}

/// A connection: the request half and the connection's state machine,
/// which the task using it drives.
struct Conn {
    /// A second descriptor of the socket `driver`'s stream owns, for the
    /// look at it before reuse.
    #[cfg(unix)]
    socket: Option<std::os::fd::OwnedFd>,
    sender: http1::SendRequest<Full<Bytes>>,
    driver: Pin<Box<http1::Connection<TokioIo<Stream>, Full<Bytes>>>>,
    /// The driver has ended (the connection is closed): it is never
    /// polled again nor put back.
    ended: bool,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Conn")
    }
}

#[derive(Debug)]
struct Idle {
    conn: Conn,
    since: Instant,
}

/// How one exchange on a connection ended.
enum Exchange {
    /// An answer; `true` when the connection may serve another request.
    Answered(Received, bool),
    /// The request was not written (the connection had closed): it comes
    /// back to be sent on another connection.
    NotSent(Box<hyper::Request<Full<Bytes>>>),
    /// The request may have been written, and no answer to it began (the
    /// connection failed or ended first): resent on a new connection only
    /// when its method is idempotent and the connection was a reused one
    /// (an upstream closing an idle connection just as a request goes out
    /// on it).
    NoAnswer(String),
    /// It failed after its answer began: never resent.
    Failed(String),
}

impl Pool {
    fn new(connect_timeout: Duration) -> Self {
        Pool {
            idle: Mutex::new(IdleSet::default()),
            hasher: std::collections::hash_map::RandomState::new(),
            connect_timeout,
            #[cfg(feature = "rustls")]
            tls: tls_connector(),
        }
    }

    /// Whether upstreams of `scheme` can go through this pool.
    fn serves(&self, scheme: &str) -> bool {
        match scheme {
            "http" => true,
            #[cfg(feature = "rustls")]
            "https" => self.tls.is_some(),
            _ => false,
        }
    }

    async fn send(&self, outgoing: Outgoing, max_body_bytes: usize) -> Result<Received, SendError> {
        let Outgoing {
            method,
            url,
            mut headers,
            body,
        } = outgoing;
        let host = url
            .host_str()
            .ok_or_else(|| SendError::Failed("the upstream URL has no host".into()))?;
        let port = url.port_or_known_default().unwrap_or(80);
        // `scheme://host:port`, of which `host:port` is connected to.
        let mut upstream = String::with_capacity(url.scheme().len() + host.len() + 9);
        upstream.push_str(url.scheme());
        upstream.push_str("://");
        upstream.push_str(host);
        upstream.push(':');
        upstream.push_str(itoa::Buffer::new().format(port));
        let key = (upstream, self.caller(&headers));
        let address = &key.0[url.scheme().len() + 3..];
        // The name the upstream's certificate must carry.
        let server_name = || match url.host() {
            Some(url::Host::Domain(name)) => name.to_owned(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => String::new(),
        };
        // `host:port` as the URL names it (the port only when written).
        let authority = match url.port() {
            Some(_) => address,
            None => host,
        };
        let host_value = HeaderValue::from_str(authority)
            .map_err(|_| SendError::Failed("the upstream host is not a header value".into()))?;
        headers.insert(HOST, host_value);
        let target = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(target)
            .body(Full::new(body.unwrap_or_default()))
            .map_err(|e| SendError::Failed(format!("the request cannot be made: {e}")))?;
        *request.headers_mut() = headers;

        // Idle connections first (one that turns out closed before the
        // request was written gives it back for the next), then a new one.
        // A request that met a reused connection closed under it goes once
        // more, on a new connection, when its method allows.
        let mut fresh_only = false;
        loop {
            let idle = if fresh_only {
                None
            } else {
                self.checkout(&key)
            };
            let reused = idle.is_some();
            let mut conn = match idle {
                Some(mut conn) => {
                    if !conn.still_idle().await {
                        continue;
                    }
                    conn
                }
                None => {
                    let tls = (url.scheme() == "https").then(server_name);
                    self.connect(address, tls.as_deref()).await?
                }
            };
            let again = (reused && idempotent(request.method())).then(|| copy(&request));
            match conn.exchange(request, max_body_bytes).await {
                Exchange::Answered(received, reusable) => {
                    if reusable {
                        self.checkin(&key, conn);
                    }
                    return Ok(received);
                }
                Exchange::NotSent(back) if reused => request = *back,
                Exchange::NotSent(_) => {
                    return Err(SendError::Failed(
                        "the upstream closed the connection before the request was sent".into(),
                    ));
                }
                Exchange::NoAnswer(error) => match again {
                    Some(copy) => {
                        request = copy;
                        fresh_only = true;
                    }
                    None => return Err(SendError::Failed(error)),
                },
                Exchange::Failed(error) => return Err(SendError::Failed(error)),
            }
        }
    }

    /// The caller `headers` are from: a fingerprint of every header the
    /// request carries but those that say nothing of who sends it (`Host`,
    /// `Accept`, `Content-Type`, `Content-Length`): the credential headers
    /// and whatever an operation's header parameters carry (an API key in
    /// `X-Api-Key` is a credential too), names and values in the order
    /// sent.
    fn caller(&self, headers: &HeaderMap) -> u64 {
        use std::hash::{BuildHasher as _, Hasher as _};
        let mut hasher = self.hasher.build_hasher();
        for (name, value) in headers {
            if [HOST, ACCEPT, CONTENT_TYPE, CONTENT_LENGTH].contains(name) {
                continue;
            }
            // Lengths first, so that no two different lists hash alike by
            // their concatenation.
            hasher.write_usize(name.as_str().len());
            hasher.write(name.as_str().as_bytes());
            hasher.write_usize(value.len());
            hasher.write(value.as_bytes());
        }
        hasher.finish()
    }

    /// The most recently used idle connection for `key` that is not too
    /// old; older ones are dropped (closed) on the way.
    fn checkout(&self, key: &Key) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let IdleSet { stacks, total, .. } = &mut *idle;
        let stack = stacks.get_mut(key)?;
        // The oldest are at the bottom: drop those past the limit.
        let stale = stack.partition_point(|i| i.since.elapsed() > MAX_IDLE_FOR);
        stack.drain(..stale);
        let conn = stack.pop();
        // Not kept empty: callers that come once must not add up.
        if stack.is_empty() {
            stacks.remove(key);
        }
        *total -= stale + usize::from(conn.is_some());
        conn.map(|i| i.conn)
    }

    /// Keeps `conn` for `key`'s next request, unless as many are kept for
    /// `key` already. Every [`MAX_IDLE_FOR`], and whenever all places are
    /// taken, connections idle too long are dropped from every stack; if
    /// all places are still taken, the one idle the longest makes room.
    fn checkin(&self, key: &Key, conn: Conn) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if idle.total >= MAX_IDLE_TOTAL
            || idle
                .swept
                .is_none_or(|t| now.saturating_duration_since(t) > MAX_IDLE_FOR)
        {
            idle.sweep();
        }
        if idle.total >= MAX_IDLE_TOTAL {
            idle.drop_oldest();
        }
        let kept = Idle { conn, since: now };
        let IdleSet { stacks, total, .. } = &mut *idle;
        // The key is copied only for a stack not there yet.
        match stacks.get_mut(key) {
            Some(stack) if stack.len() >= MAX_IDLE_PER_KEY => return,
            Some(stack) => stack.push(kept),
            None => {
                stacks.insert(key.clone(), vec![kept]);
            }
        }
        *total += 1;
    }

    /// A new connection to `address` (`host:port`), over TLS checked for
    /// `server_name` when that is given; TCP and TLS within the connect
    /// timeout.
    async fn connect(&self, address: &str, server_name: Option<&str>) -> Result<Conn, SendError> {
        let deadline = tokio::time::Instant::now() + self.connect_timeout;
        let stream = tokio::time::timeout_at(deadline, TcpStream::connect(address))
            .await
            .map_err(|_| SendError::Connect)?
            .map_err(|_| SendError::Connect)?;
        let _ = stream.set_nodelay(true);
        #[cfg(unix)]
        let socket = std::os::fd::AsFd::as_fd(&stream).try_clone_to_owned().ok();
        let stream = match server_name {
            None => Stream::Plain(stream),
            #[cfg(feature = "rustls")]
            Some(name) => {
                let (Some(tls), Ok(name)) = (
                    &self.tls,
                    rustls::pki_types::ServerName::try_from(name.to_owned()),
                ) else {
                    return Err(SendError::Failed(format!(
                        "{name:?} cannot be checked against a TLS certificate"
                    )));
                };
                let handshake = tls.0.connect(name, stream);
                let tls = tokio::time::timeout_at(deadline, handshake)
                    .await
                    .map_err(|_| SendError::Connect)?
                    .map_err(|e| SendError::Failed(format!("the TLS handshake failed: {e}")))?;
                Stream::Tls(Box::new(tls))
            }
            #[cfg(not(feature = "rustls"))]
            Some(_) => return Err(SendError::Connect),
        };
        let (sender, driver) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| SendError::Failed(format!("the HTTP handshake failed: {e}")))?;
        Ok(Conn {
            #[cfg(unix)]
            socket,
            sender,
            driver: Box::pin(driver),
            ended: false,
        })
    }
}

impl Conn {
    /// Whether the connection may carry a new request: its driver, polled
    /// once, has not ended. Polling an idle HTTP/1.1 client connection
    /// reads what the socket holds, so the upstream's end of it (a close
    /// after its idle timeout), or bytes it sent that no request asked for
    /// (an extra or late answer, already buffered or still in the socket),
    /// end the connection here, before a request is written on it: such
    /// bytes would otherwise be read as the answer to the next caller's
    /// request.
    ///
    /// The driver sees what hyper has buffered, and the socket as far as
    /// the runtime has told it; what has reached the socket since (the
    /// runtime's I/O events not yet read, as on a busy runtime) is found
    /// by asking the kernel: a `recv` with `MSG_PEEK` that must find
    /// nothing to read, and no end.
    async fn still_idle(&mut self) -> bool {
        if self.ended {
            return false;
        }
        let driver = &mut self.driver;
        let pending =
            std::future::poll_fn(|cx| Poll::Ready(driver.as_mut().poll(cx).is_pending())).await;
        self.ended = !pending || !self.socket_quiet();
        !self.ended
    }

    /// Whether the socket holds nothing to read and has not ended (`false`
    /// when it cannot be asked).
    #[cfg(unix)]
    fn socket_quiet(&self) -> bool {
        use rustix::net::RecvFlags;
        let Some(socket) = &self.socket else {
            return false;
        };
        let mut byte = [0u8; 1];
        matches!(
            rustix::net::recv(socket, &mut byte, RecvFlags::PEEK | RecvFlags::DONTWAIT),
            Err(rustix::io::Errno::AGAIN)
        )
    }

    /// Elsewhere the driver's look is the only one.
    #[cfg(not(unix))]
    fn socket_quiet(&self) -> bool {
        true
    }

    /// Sends `request` and reads the answer (at most `max_body_bytes` of
    /// its body), driving the connection meanwhile.
    async fn exchange(
        &mut self,
        request: hyper::Request<Full<Bytes>>,
        max_body_bytes: usize,
    ) -> Exchange {
        if self.ended {
            return Exchange::NotSent(Box::new(request));
        }
        let Conn {
            sender,
            driver,
            ended,
            ..
        } = self;
        let work = async {
            if sender.ready().await.is_err() {
                return Exchange::NotSent(Box::new(request));
            }
            let response = match sender.try_send_request(request).await {
                Ok(response) => response,
                Err(mut error) => {
                    return match error.take_message() {
                        Some(request) => Exchange::NotSent(Box::new(request)),
                        None => Exchange::NoAnswer(failed(&error.into_error())),
                    };
                }
            };
            let (parts, mut body) = response.into_parts();
            let mut received = Received::new(parts.status, &parts.headers);
            match read_body(&mut body, &mut received, max_body_bytes).await {
                Ok(whole) => Exchange::Answered(received, whole),
                Err(error) => Exchange::Failed(failed(&error)),
            }
        };
        let mut work = std::pin::pin!(work);
        // The connection must be driven while the request is written and
        // its answer read; it ending first means the upstream closed it.
        std::future::poll_fn(|cx| {
            if let Poll::Ready(outcome) = work.as_mut().poll(cx) {
                return Poll::Ready(outcome);
            }
            if driver.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            *ended = true;
            // Ended or failed: the request half now knows whether the
            // request went out.
            Poll::Ready(match work.as_mut().poll(cx) {
                Poll::Ready(Exchange::Answered(received, _)) => Exchange::Answered(received, false),
                Poll::Ready(outcome) => outcome,
                Poll::Pending => {
                    Exchange::Failed("the upstream closed the connection during the call".into())
                }
            })
        })
        .await
    }
}

/// Whether a request of `method` may be sent twice (RFC 9110 §9.2.2).
fn idempotent(method: &Method) -> bool {
    matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE | Method::PUT | Method::DELETE
    )
}

/// A copy of `request` (its method, target, headers and body).
fn copy(request: &hyper::Request<Full<Bytes>>) -> hyper::Request<Full<Bytes>> {
    let mut copy = hyper::Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.headers_mut() = request.headers().clone();
    copy
}

/// Reads `body` into `received` up to `max` bytes; `Ok(true)` when read to
/// its end (the connection may serve again), `Ok(false)` when cut.
async fn read_body(
    body: &mut Incoming,
    received: &mut Received,
    max: usize,
) -> Result<bool, hyper::Error> {
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame?.into_data()
            && !received.take(&data, max)
        {
            return Ok(false);
        }
    }
    Ok(true)
}

fn failed(error: &hyper::Error) -> String {
    use std::error::Error as _;
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
