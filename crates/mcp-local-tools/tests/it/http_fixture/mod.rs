//! A small HTTP/1.1 server on loopback for the network tools' tests: each
//! request is logged (method, path, headers, body), answered by a handler,
//! and the connection closed. Connections are counted as they are
//! accepted, so a test can prove none arrived.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Logged {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Logged {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the handler answers.
pub enum Reply {
    /// A whole response.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// `total` bytes of `x`, generated while writing (never held whole).
    Stream { total: usize },
    /// Sleeps this long before answering 200 "late".
    Sleep(Duration),
    /// Announces `total` bytes, sends `sent` of them, then stalls for a
    /// minute.
    Stall { sent: usize, total: usize },
}

/// A 200 with `content_type` and `body`.
pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("Content-Type".to_owned(), content_type.to_owned())],
        body: body.into(),
    }
}

/// A redirect with `status` to `location`.
pub fn redirect(status: u16, location: &str) -> Reply {
    Reply::Full {
        status,
        headers: vec![("Location".to_owned(), location.to_owned())],
        body: Vec::new(),
    }
}

/// A 404.
pub fn not_found() -> Reply {
    Reply::Full {
        status: 404,
        headers: vec![("Content-Type".to_owned(), "text/plain".to_owned())],
        body: b"not found".to_vec(),
    }
}

/// Asserts `log` holds requests, none of which carried `canary` in a
/// header, or an `Authorization` or `Cookie` header, and each of which
/// named the agent `hanzo-mcp/0.…`.
pub fn assert_no_credential_sent(log: &[Logged], canary: &str) {
    assert!(!log.is_empty());
    for request in log {
        for (name, value) in &request.headers {
            assert!(!value.contains(canary), "{name} carried the bearer");
            assert!(!name.eq_ignore_ascii_case("authorization"));
            assert!(!name.eq_ignore_ascii_case("cookie"));
        }
        let agent = request.header("user-agent").unwrap();
        assert!(agent.starts_with("hanzo-mcp/0."), "{agent}");
    }
}

/// The network policy that lets a tool reach these loopback servers:
/// private addresses allowed.
pub fn private_allowed() -> mcp_local_tools::net::NetPolicy {
    mcp_local_tools::net::NetPolicy {
        allow_private: true,
        ..Default::default()
    }
}

type Handler = dyn Fn(&Logged) -> Reply + Send + Sync;

/// A running server; it stops when the test's runtime ends.
#[derive(Clone)]
pub struct Server {
    pub addr: SocketAddr,
    log: Arc<Mutex<Vec<Logged>>>,
    connections: Arc<AtomicUsize>,
}

impl Server {
    /// Starts a server on `ip` (a loopback address), port chosen by the
    /// system.
    pub async fn start(
        ip: &str,
        handler: impl Fn(&Logged) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind((ip, 0)).await.expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let server = Server {
            addr,
            log: log.clone(),
            connections: connections.clone(),
        };
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                connections.fetch_add(1, Ordering::SeqCst);
                let log = log.clone();
                let handler = handler.clone();
                tokio::spawn(async move {
                    let _ = serve(stream, &log, &*handler).await;
                });
            }
        });
        server
    }

    /// `http://<addr><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The requests so far.
    pub fn log(&self) -> Vec<Logged> {
        self.log.lock().unwrap().clone()
    }

    /// Connections accepted so far (even those that sent nothing).
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

async fn serve(
    mut stream: TcpStream,
    log: &Mutex<Vec<Logged>>,
    handler: &Handler,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 64 * 1024 {
            return Ok(());
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let method = first.next().unwrap_or("").to_owned();
    let path = first.next().unwrap_or("").to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let request = Logged {
        method,
        path,
        headers,
        body,
    };
    log.lock().unwrap().push(request.clone());
    match handler(&request) {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (n, v) in headers {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str("\r\n");
            stream.write_all(head.as_bytes()).await?;
            if request.method != "HEAD" {
                stream.write_all(&body).await?;
            }
        }
        Reply::Stream { total } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await?;
            let block = vec![b'x'; 64 * 1024];
            let mut left = total;
            while left > 0 {
                let n = left.min(block.len());
                stream.write_all(&block[..n]).await?;
                left -= n;
            }
        }
        Reply::Stall { sent, total } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(&vec![b'y'; sent]).await?;
            stream.flush().await?;
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        Reply::Sleep(pause) => {
            tokio::time::sleep(pause).await;
            stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlate")
                .await?;
        }
    }
    stream.shutdown().await
}
