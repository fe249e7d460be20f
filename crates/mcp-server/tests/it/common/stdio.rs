//! The one stdio client of a server process, for the tests and the
//! benches (`#[path]`-included there): newline-delimited JSON over the
//! child's stdin and stdout, read on the caller's thread (no hop through
//! another thread, so a bench measures the server), with its stderr
//! collected line by line.
//!
//! Every blocking read or wait is guarded by a watchdog that kills the
//! child after [`PATIENCE`], so a server that hangs fails the test with a
//! message instead of hanging it. A safety net, not a timing assertion.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one read or wait may block before the child is killed.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// `hanzo-mcp` with none of the caller's `HANZO_*` variables and
/// `RUST_LOG=warn`: a child sees only the environment its test gives it.
pub fn hanzo_mcp() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"));
    hermetic(&mut command);
    command
}

/// Removes the caller's `HANZO_*` variables, proxy variables (with
/// `NO_PROXY` and `REQUEST_METHOD`, which change how those are read) from
/// `command`, sets `RUST_LOG=warn` and points the config folder where no
/// configuration file is (a later `.env` overrides any of them).
pub fn hermetic(command: &mut Command) {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("HANZO_") {
            command.env_remove(key);
        }
    }
    let proxies = mcp_door_client::PROXY_VARIABLES.iter();
    for var in proxies.chain(&["NO_PROXY", "no_proxy", "REQUEST_METHOD"]) {
        command.env_remove(var);
    }
    command.env("RUST_LOG", "warn");
    command.env("XDG_CONFIG_HOME", "/nonexistent/hanzo-mcp-tests");
}

/// The `p` quantile (0 to 1) of `samples`, nearest rank (sorts them).
pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

/// Whether the JSON-RPC `line` carries `"id":<id>` (a number id), without
/// parsing it.
pub fn line_has_id(line: &str, id: u64) -> bool {
    let needle = format!("\"id\":{id}");
    line.match_indices(&needle).any(|(at, _)| {
        matches!(
            line.as_bytes().get(at + needle.len()),
            Some(b',' | b'}' | b' ')
        )
    })
}

/// Kills a child whose read or wait outlives its deadline.
struct Watchdog {
    /// Milliseconds since `epoch` at which the current wait expires; 0
    /// when nothing waits.
    deadline_ms: AtomicU64,
    fired: AtomicBool,
    done: AtomicBool,
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    u64::try_from(epoch().elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Watchdog {
    fn start(pid: u32) -> Arc<Self> {
        let dog = Arc::new(Self {
            deadline_ms: AtomicU64::new(0),
            fired: AtomicBool::new(false),
            done: AtomicBool::new(false),
        });
        let watching = Arc::clone(&dog);
        thread::spawn(move || {
            while !watching.done.load(Ordering::Acquire) {
                thread::sleep(Duration::from_millis(200));
                let deadline = watching.deadline_ms.load(Ordering::Acquire);
                if deadline != 0 && now_ms() > deadline && !watching.done.load(Ordering::Acquire) {
                    watching.fired.store(true, Ordering::Release);
                    let _ = Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .stderr(Stdio::null())
                        .status();
                    return;
                }
            }
        });
        dog
    }

    fn arm(&self) {
        let deadline = now_ms() + u64::try_from(PATIENCE.as_millis()).unwrap_or(u64::MAX);
        self.deadline_ms.store(deadline, Ordering::Release);
    }

    fn disarm(&self) {
        self.deadline_ms.store(0, Ordering::Release);
    }
}

/// A server process spoken to over its stdin and stdout.
pub struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Receiver<String>,
    line: String,
    watchdog: Arc<Watchdog>,
}

impl Proc {
    /// Spawns `hanzo-mcp <args>` (see [`hanzo_mcp`]).
    pub fn spawn(args: &[&str]) -> Self {
        Self::spawn_with_env(args, &[])
    }

    /// Spawns `hanzo-mcp <args>` with these variables set.
    pub fn spawn_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = hanzo_mcp();
        command.args(args);
        for (key, value) in env {
            command.env(key, value);
        }
        Self::start(command)
    }

    /// Starts `command` (any program) with stdin, stdout and stderr piped.
    pub fn start(command: Command) -> Self {
        Self::start_with_stderr(command, Stdio::piped())
    }

    /// Starts `command` with stdin and stdout piped and stderr as given;
    /// [`stderr_lines`](Self::stderr_lines) sees it only when piped.
    pub fn start_with_stderr(mut command: Command, stderr: Stdio) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {:?}: {e}", command.get_program()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, stderr) = channel();
        if let Some(err_pipe) = child.stderr.take() {
            thread::spawn(move || {
                for line in BufReader::new(err_pipe).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let watchdog = Watchdog::start(child.id());
        Self {
            child,
            stdin,
            stdout,
            stderr,
            line: String::new(),
            watchdog,
        }
    }

    /// The child's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    // Writing.

    /// Writes `bytes` with no newline after them.
    pub fn send_unterminated(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes `bytes` and a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes one line of text.
    pub fn send_line(&mut self, line: &str) {
        self.send_raw(line.as_bytes());
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

    /// Closes stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    // Reading, as text.

    /// The next stdout line (without its newline), or `None` at the end.
    pub fn read_line(&mut self) -> Option<&str> {
        self.line.clear();
        self.watchdog.arm();
        let read = self.stdout.read_line(&mut self.line);
        self.watchdog.disarm();
        let n = read.expect("read stdout");
        if n == 0 {
            assert!(
                !self.watchdog.fired.load(Ordering::Acquire),
                "no line from the server within {PATIENCE:?}: killed"
            );
            return None;
        }
        Some(self.line.trim_end_matches(['\n', '\r']))
    }

    /// Reads lines until the response to `id`; returns it as text.
    pub fn response(&mut self, id: u64) -> &str {
        loop {
            let line = self.read_line().expect("the server closed stdout");
            if line_has_id(line, id) {
                break;
            }
        }
        self.line.trim_end()
    }

    /// Reads lines until the next one with an id (a response); returns it.
    pub fn any_response(&mut self) -> &str {
        loop {
            let line = self.read_line().expect("the server closed stdout");
            if line.contains("\"id\":") {
                break;
            }
        }
        self.line.trim_end()
    }

    // Reading, as JSON.

    /// The next message, or `None` when stdout is closed.
    pub fn try_recv(&mut self) -> Option<Value> {
        let line = self.read_line()?;
        Some(
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}")),
        )
    }

    /// The next message.
    pub fn recv(&mut self) -> Value {
        self.try_recv().expect("the server closed stdout")
    }

    /// Every remaining message until stdout closes.
    pub fn drain(&mut self) -> Vec<Value> {
        std::iter::from_fn(|| self.try_recv()).collect()
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

    /// Calls tool `name` with `arguments` (`tools/call`, request `id`) and
    /// returns the response, skipping notifications.
    pub fn call_tool(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        let params = json!({ "name": name, "arguments": arguments });
        self.call(id, mcp_proto::methods::CallTool::NAME, params)
    }

    /// `initialize` (id 0) with `revision` and `capabilities` alone; its
    /// whole response.
    pub fn initialize_only(&mut self, revision: &str, capabilities: Value) -> Value {
        self.call(
            0,
            "initialize",
            json!({
                "protocolVersion": revision,
                "capabilities": capabilities,
                "clientInfo": { "name": "test", "version": "0" }
            }),
        )
    }

    /// `initialize` with `revision` and `capabilities`, then
    /// `notifications/initialized`; the whole `initialize` response.
    pub fn handshake(&mut self, revision: &str, capabilities: Value) -> Value {
        let response = self.initialize_only(revision, capabilities);
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        response
    }

    /// The handshake with no client capabilities; the `initialize` result.
    pub fn initialize(&mut self, revision: &str) -> Value {
        self.handshake(revision, json!({}))["result"].clone()
    }

    /// `calls` sequential requests made of `template` (its `"ID"` replaced
    /// by the id, 1 up), each sent when the last was answered: the round
    /// trips after the first `warm_up`. The first answer must contain
    /// `expect` (`name` says whose it is when it does not). For the
    /// benches.
    pub fn timed_calls(
        &mut self,
        template: &str,
        calls: usize,
        warm_up: usize,
        expect: &str,
        name: &str,
    ) -> Vec<Duration> {
        let mut times = Vec::with_capacity(calls.saturating_sub(warm_up));
        for id in 1..=calls {
            let line = template.replace("\"ID\"", &id.to_string());
            let start = Instant::now();
            self.send_line(&line);
            let answer = self.response(id as u64);
            let elapsed = start.elapsed();
            if id == 1 {
                assert!(answer.contains(expect), "{name}: {answer}");
            }
            if id > warm_up {
                times.push(elapsed);
            }
        }
        times
    }

    // The process.

    /// Closes stdin and waits for the exit.
    pub fn wait(&mut self) -> ExitStatus {
        self.close_stdin();
        self.watchdog.arm();
        let status = self.child.wait();
        self.watchdog.disarm();
        assert!(
            !self.watchdog.fired.load(Ordering::Acquire),
            "the server did not exit within {PATIENCE:?}: killed"
        );
        status.expect("wait")
    }

    /// Closes stdin and waits for the exit (for a bench).
    pub fn finish(mut self) {
        self.wait();
    }

    /// Whether the process has exited (without waiting).
    pub fn has_exited(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_some()
    }

    /// Sends SIGTERM.
    pub fn terminate(&mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Everything written to stderr so far (after the exit: all of it).
    pub fn stderr_lines(&mut self) -> Vec<String> {
        let mut all = Vec::new();
        while let Ok(line) = self.stderr.recv_timeout(Duration::from_millis(200)) {
            all.push(line);
        }
        all
    }

    /// The next stderr line, waiting at most [`PATIENCE`].
    pub fn stderr_line(&mut self) -> String {
        self.stderr
            .recv_timeout(PATIENCE)
            .expect("a line on stderr")
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

    /// CPU time (user + system) the process has used so far, from
    /// `/proc/<pid>/stat` (clock ticks of 10 ms).
    pub fn cpu_time(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        cpu_time_of(&stat)
    }
}

/// User plus system time from the text of a `/proc/<pid>/stat`.
pub fn cpu_time_of(stat: &str) -> Duration {
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15; after the name, 12 and 13.
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.watchdog.done.store(true, Ordering::Release);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first three fields of `/proc/loadavg` (1, 5 and 15 minutes): how
/// busy the machine was, for a bench to print beside its figures;
/// `unknown` where the file cannot be read.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}
