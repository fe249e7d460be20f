//! Drives the real `hanzo-mcp` binary over pipes, one JSON message a line.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// How long a test waits for one message before it fails. A safety net
/// against a hang, not a timing assertion.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A running `hanzo-mcp` with its stdin, and its stdout read line by line.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Receiver<String>,
}

impl Server {
    /// Spawns `hanzo-mcp <args>`.
    pub fn spawn(args: &[&str]) -> Self {
        Self::spawn_with_env(args, &[])
    }

    /// Spawns `hanzo-mcp <args>` with extra environment variables.
    pub fn spawn_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"));
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_LOG", "warn");
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("spawn hanzo-mcp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let err_pipe = child.stderr.take().expect("stderr");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (etx, stderr) = channel();
        thread::spawn(move || {
            for line in BufReader::new(err_pipe).lines() {
                let Ok(line) = line else { break };
                if etx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Writes raw bytes followed by a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes raw bytes with no newline after them.
    pub fn send_unterminated(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes one message.
    pub fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// Writes a request.
    pub fn request(&mut self, id: impl Into<Value>, method: &str, params: Value) {
        self.send(
            &json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params }),
        );
    }

    /// The next line on stdout, parsed.
    pub fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}")),
            Err(RecvTimeoutError::Timeout) => panic!("no message from hanzo-mcp"),
            Err(RecvTimeoutError::Disconnected) => panic!("hanzo-mcp closed stdout"),
        }
    }

    /// The next message, or `None` when stdout is closed.
    pub fn try_recv(&mut self) -> Option<Value> {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => Some(
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}")),
            ),
            Err(RecvTimeoutError::Timeout) => panic!("no message from hanzo-mcp"),
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Sends a request and returns its response, skipping notifications.
    pub fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.request(id, method, params);
        loop {
            let message = self.recv();
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(
                message.get("method").is_some(),
                "unexpected response while waiting for id {id}: {message}"
            );
        }
    }

    /// Completes the `initialize` handshake with `revision`; returns the
    /// `initialize` result.
    pub fn initialize(&mut self, revision: &str) -> Value {
        let response = self.call(
            0,
            "initialize",
            json!({
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": { "name": "test", "version": "0" }
            }),
        );
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        response["result"].clone()
    }

    /// Closes stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Every remaining message until stdout closes.
    pub fn drain(&mut self) -> Vec<Value> {
        let mut all = Vec::new();
        while let Some(message) = self.try_recv() {
            all.push(message);
        }
        all
    }

    /// Waits for the process to exit.
    pub fn wait(&mut self) -> ExitStatus {
        self.close_stdin();
        self.child.wait().expect("wait")
    }

    /// Peak resident set size of the process so far (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc status")
    }

    /// Sends SIGTERM.
    pub fn terminate(&mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Everything written to stderr so far (after exit: all of it).
    pub fn stderr_lines(&mut self) -> Vec<String> {
        let mut all = Vec::new();
        while let Ok(line) = self.stderr.recv_timeout(Duration::from_millis(200)) {
            all.push(line);
        }
        all
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `tools/call` params object.
pub fn call_params(name: &str, arguments: Value) -> Value {
    json!({ "name": name, "arguments": arguments })
}

/// The text of the first content block of a `tools/call` result.
pub fn first_text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"))
}

/// Pids of live (not zombie) processes whose command line holds `marker`,
/// after waiting up to 5 s for them to be gone.
pub fn processes_left(marker: &str) -> Vec<u32> {
    let live = || -> Vec<u32> {
        let entries = std::fs::read_dir("/proc").expect("/proc");
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                !stat.contains(") Z ") && String::from_utf8_lossy(&cmdline).contains(marker)
            })
            .collect()
    };
    for _ in 0..50 {
        if live().is_empty() {
            break;
        }
        thread::sleep(std::time::Duration::from_millis(100));
    }
    live()
}

/// A sleep of about 30 s whose duration (`30.<digits>`) is unique to this
/// test process and `n`, so `processes_left` can find it.
pub fn sleep_marker(n: u32) -> String {
    format!("30.{}{n:03}", std::process::id())
}
