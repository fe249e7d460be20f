//! A few lines of HTTP/1.1 over `std::net` on 127.0.0.1, for tests that
//! script every answer of a server and read every request it got.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

/// One request as the server read it.
pub struct Received {
    /// Header values by lower-case name.
    pub headers: HashMap<String, String>,
    /// The `Content-Length` bytes after the header.
    pub body: Vec<u8>,
}

/// One answer: a status, extra headers and a JSON body.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// Serves `answer` to every request on 127.0.0.1, one thread a connection,
/// closing each connection after its answer. Returns the origin,
/// `http://127.0.0.1:<port>`.
pub fn serve(answer: impl Fn(Received) -> Reply + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let origin = format!("http://{}", listener.local_addr().expect("address"));
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let answer = Arc::clone(&answer);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                if let Some(request) = read_request(&mut reader) {
                    write_reply(reader.get_mut(), &answer(request));
                }
            });
        }
    });
    origin
}

/// The request line, the header and the body; `None` when the client went
/// away first.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut headers = HashMap::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.insert(name.to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received { headers, body })
}

fn write_reply(stream: &mut TcpStream, reply: &Reply) {
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(reply.body.as_bytes());
}
