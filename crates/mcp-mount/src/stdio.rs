//! A mounted server as a child process: newline-delimited JSON-RPC on its
//! stdin and stdout (MCP 2025-11-25 basic/transports, stdio), its stderr
//! copied to ours one line at a time, prefixed with its name and bounded.
//!
//! The child runs in a process group of its own, which is killed when the
//! connection is dropped; on Linux it also gets `PR_SET_PDEATHSIG(SIGKILL)`,
//! so it dies with its parent even when the parent is killed outright.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_proto::framing::{AsyncFrameReader, FrameError};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use crate::link::{Deliver, Link, Outbound};
use crate::spec::{Limits, StdioServer};
use crate::wire;

/// The most stderr lines copied per [`STDERR_WINDOW`]; the rest are counted
/// and the count reported.
const STDERR_LINES: u32 = 100;
/// See [`STDERR_LINES`].
const STDERR_WINDOW: Duration = Duration::from_secs(10);
/// The longest stderr line copied, in bytes; the rest of it is cut.
const STDERR_LINE_BYTES: usize = 1024;

/// Starts the child of `spec` for the server `name`.
///
/// # Errors
/// A sentence naming the program and why it could not start.
pub(crate) fn connect(
    name: &str,
    spec: &StdioServer,
    limits: &Limits,
    deliver: Deliver,
) -> Result<Link, String> {
    let mut command = tokio::process::Command::new(&spec.command);
    command
        .args(&spec.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    for variable in &spec.env_remove {
        command.env_remove(variable);
    }
    for (variable, value) in &spec.env {
        command.env(variable, value);
    }
    if let Some(dir) = &spec.cwd {
        command.current_dir(dir);
    }
    die_with_parent(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| format!("could not start {:?}: {e}", spec.command))?;
    let pid = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the child's pipes were not made".to_owned());
    };
    let closed = CancellationToken::new();
    let exited = Arc::new(AtomicBool::new(false));
    let reader = {
        let closed = closed.clone();
        let name = name.to_owned();
        let max = limits.max_message_bytes;
        tokio::spawn(async move {
            let mut lines =
                AsyncFrameReader::with_max_line_len(tokio::io::BufReader::new(stdout), max);
            loop {
                match lines.read_line().await {
                    Ok(Some(line)) => match wire::parse(&line) {
                        Some(message) => deliver(message),
                        None => {
                            tracing::debug!(server = %name, "a line that is no JSON-RPC message was skipped")
                        }
                    },
                    Ok(None) => break,
                    Err(FrameError::LineTooLong { .. }) => {
                        tracing::warn!(server = %name, max, "the server wrote a message longer than the limit; its connection is closed");
                        break;
                    }
                    Err(error) => {
                        tracing::debug!(server = %name, %error, "reading the server's stdout failed");
                        break;
                    }
                }
            }
            closed.cancel();
        })
    };
    let stderr_copy = tokio::spawn(copy_stderr(name.to_owned(), stderr));
    let waiter = {
        let closed = closed.clone();
        let exited = exited.clone();
        let name = name.to_owned();
        tokio::spawn(async move {
            let status = child.wait().await;
            exited.store(true, Ordering::SeqCst);
            match status {
                Ok(status) => {
                    tracing::debug!(server = %name, %status, "the server's process ended")
                }
                Err(error) => {
                    tracing::debug!(server = %name, %error, "waiting for the server's process failed")
                }
            }
            closed.cancel();
        })
    };
    let guard = ChildGuard {
        pid,
        exited,
        tasks: vec![reader, stderr_copy, waiter],
    };
    Ok(Link {
        out: Outbound::Pipe(Arc::new(tokio::sync::Mutex::new(stdin))),
        closed,
        guard: Box::new(guard),
        negotiated: Box::new(|_| {}),
    })
}

/// Kills the child's process group and stops the tasks of one connection
/// when dropped.
struct ChildGuard {
    pid: Option<u32>,
    exited: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.pid
            && !self.exited.load(Ordering::SeqCst)
            && let Some(group) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
        {
            // The group is the child's own (process_group(0)); a group
            // that is gone already is no error.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Copies the child's stderr to ours through `tracing`, one line at a time,
/// each prefixed with the server's name, cut at [`STDERR_LINE_BYTES`], at
/// most [`STDERR_LINES`] per [`STDERR_WINDOW`].
async fn copy_stderr(name: String, mut stderr: impl AsyncRead + Unpin) {
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    let mut window = Instant::now();
    let mut copied = 0u32;
    let mut dropped = 0u64;
    loop {
        let n = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        buffer.extend_from_slice(&chunk[..n]);
        let mut start = 0;
        while let Some(at) = buffer[start..].iter().position(|b| *b == b'\n') {
            let line = &buffer[start..start + at];
            start += at + 1;
            if window.elapsed() >= STDERR_WINDOW {
                if dropped > 0 {
                    tracing::warn!(server = %name, dropped, "stderr lines of the server were not copied (too many)");
                }
                window = Instant::now();
                copied = 0;
                dropped = 0;
            }
            if copied < STDERR_LINES {
                copied += 1;
                let text = String::from_utf8_lossy(&line[..line.len().min(STDERR_LINE_BYTES)]);
                tracing::info!(target: "mcp_mount::stderr", "[{name}] {}", text.trim_end());
            } else {
                dropped += 1;
            }
        }
        buffer.drain(..start);
        // A line longer than the cap is cut now, not kept growing.
        if buffer.len() > STDERR_LINE_BYTES {
            buffer.truncate(STDERR_LINE_BYTES);
        }
    }
}

/// Linux: the child gets SIGKILL when the thread that spawned it ends (the
/// runtime's threads live as long as the process).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(command: &mut tokio::process::Command) {
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child before exec and calls
    // only prctl and getppid (async-signal-safe system calls); it allocates
    // nothing and touches no lock.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent may have died before prctl took effect.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("the parent is gone"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_: &mut tokio::process::Command) {}
