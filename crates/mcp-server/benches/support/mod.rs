//! The stdio client the benches share: one server process, one JSON-RPC
//! line each way.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A server process spoken to over its stdin and stdout.
pub struct Proc {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Proc {
    /// Spawns `program args`, stderr discarded.
    pub fn spawn(program: &Path, args: &[&str]) -> Proc {
        Proc::spawn_with_env(program, args, &[])
    }

    /// Writes one message line.
    pub fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.write_all(b"\n").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Reads lines until the response to `id`.
    pub fn response(&mut self, id: usize) -> &str {
        let needle = format!("\"id\":{id}");
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).expect("read");
            assert!(n > 0, "server closed stdout");
            if self.line.contains(&needle) {
                return &self.line;
            }
        }
    }

    /// Reads lines until the next response, whatever its id.
    pub fn any_response(&mut self) -> &str {
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).expect("read");
            assert!(n > 0, "server closed stdout");
            if self.line.contains("\"id\":") {
                return &self.line;
            }
        }
    }

    /// The `initialize` handshake (2025-11-25).
    pub fn initialize(&mut self) {
        self.send(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
        );
        let answer = self.response(0);
        assert!(answer.contains("protocolVersion"), "{answer}");
    }

    /// Peak RSS (`VmHWM`) of the server, in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM")
    }

    /// Closes stdin and waits for the exit.
    pub fn finish(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

impl Proc {
    /// Spawns with extra environment variables.
    pub fn spawn_with_env(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Proc {
        let mut command = Command::new(program);
        command
            .args(args)
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Proc {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    }
}
