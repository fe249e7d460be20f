//! Child processes for `exec` and `git`: argv only, in a process group of
//! their own, bounded in time and in the output kept, killed with their
//! whole group on timeout, cancellation or drop.
//!
//! A child never touches the server's stdin or stdout (those carry the MCP
//! stream): its stdin is the given text or empty, its stdout and stderr are
//! pipes.
//!
//! Every way the server ends on its own terms (a normal exit, EOF on its
//! stdin, SIGTERM) and every timeout and cancellation kills the whole group.
//! A server killed outright (SIGKILL) runs no code: on Linux the child gets
//! `PR_SET_PDEATHSIG(SIGKILL)`, but that signal reaches the direct child
//! only, so the children of a shell (`sh -c 'sleep 60'`: `sleep` is the
//! child of `sh`, in its group) outlive it. For background jobs the next
//! server on the same state folder kills such a leftover group (see the
//! job table). What remains possible besides: a grandchild that leaves the
//! group (`setsid`, a double fork into a new group) is beyond the group kill
//! and the death signal; the pipes it holds are then abandoned after
//! [`DRAIN_AFTER_KILL`].

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// How long the pipes are still read after the group was killed.
pub(crate) const DRAIN_AFTER_KILL: Duration = Duration::from_secs(1);
/// How long a group has between SIGTERM and SIGKILL.
pub(crate) const KILL_GRACE: Duration = Duration::from_millis(200);

/// What to run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spec {
    /// The program and its arguments, never through a shell.
    pub(crate) argv: Vec<String>,
    /// The working directory (already checked to lie inside the roots).
    pub(crate) cwd: PathBuf,
    /// Variables added to (or replacing) the server's environment. The
    /// server's credentials are removed before these are set (see the
    /// toolbox's secret variables), so only a caller's own value of such a
    /// name reaches the child.
    pub(crate) env: Vec<(String, String)>,
    /// Variables removed from the environment.
    pub(crate) env_remove: Vec<String>,
    /// Text written to the child's stdin, which is then closed (empty when
    /// `None`).
    pub(crate) stdin: Option<String>,
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (its number).
    Signaled(i32),
    /// The timeout passed; the group was killed.
    TimedOut,
    /// The caller cancelled; the group was killed.
    Cancelled,
}

impl End {
    pub(crate) fn of(status: ExitStatus) -> End {
        use std::os::unix::process::ExitStatusExt as _;
        match (status.code(), status.signal()) {
            (Some(code), _) => End::Exited(code),
            (None, Some(signal)) => End::Signaled(signal),
            (None, None) => End::Exited(-1),
        }
    }

    /// True for exit code 0.
    pub(crate) fn success(self) -> bool {
        self == End::Exited(0)
    }

    /// `exit code 3`, `killed by signal 9`, `timed out after 2000 ms`.
    pub(crate) fn describe(self, timeout: Duration) -> String {
        match self {
            End::Exited(code) => format!("exit code {code}"),
            End::Signaled(signal) => format!("killed by signal {signal}"),
            End::TimedOut => format!(
                "timed out after {} ms (process group killed)",
                timeout.as_millis()
            ),
            End::Cancelled => "cancelled (process group killed)".to_owned(),
        }
    }
}

/// Output of one stream, kept within a byte cap: the first half and the
/// last half of the cap, and the count of bytes dropped between them.
#[derive(Debug, Clone)]
pub(crate) struct Capture {
    cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl Capture {
    /// Empty, keeping at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> Capture {
        Capture {
            cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// Adds bytes read from the stream.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let head_cap = self.cap / 2;
        if self.head.len() < head_cap {
            let take = bytes.len().min(head_cap - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        let tail_cap = self.cap - head_cap;
        if bytes.len() >= tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - tail_cap..]);
        } else {
            let overflow = (self.tail.len() + bytes.len()).saturating_sub(tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(bytes);
        }
    }

    /// Every byte the stream produced.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Bytes not kept.
    pub(crate) fn dropped(&self) -> u64 {
        self.total - (self.head.len() + self.tail.len()) as u64
    }

    /// The kept text (lossy UTF-8), with a marker line between head and
    /// tail naming the bytes dropped and `how_to_see_all`.
    pub(crate) fn text(&self, how_to_see_all: &str) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(&tail);
        if self.dropped() == 0 {
            return format!("{head}{tail}");
        }
        // Cut at line ends where there is one near, so no line is half shown.
        let head = match head.rfind('\n') {
            Some(i) if i + 1 >= head.len() / 2 => &head[..=i],
            _ => &head[..],
        };
        let tail = match tail.find('\n') {
            Some(i) if i < tail.len() / 2 => &tail[i + 1..],
            _ => &tail[..],
        };
        let kept = (head.len() + tail.len()) as u64;
        format!(
            "{head}{}[... {} of {} bytes not shown; {how_to_see_all} ...]\n{tail}",
            if head.ends_with('\n') { "" } else { "\n" },
            self.total - kept.min(self.total),
            self.total
        )
    }
}

/// The result of [`run`].
#[derive(Debug)]
pub(crate) struct Outcome {
    /// How it ended.
    pub(crate) end: End,
    /// Its stdout, capped.
    pub(crate) stdout: Capture,
    /// Its stderr, capped.
    pub(crate) stderr: Capture,
    /// Wall time from spawn to the end (`exec` reports it).
    #[cfg_attr(not(feature = "exec"), allow(dead_code))]
    pub(crate) duration: Duration,
}

/// A live child and its group; dropping it kills the group.
#[derive(Debug)]
pub(crate) struct Group {
    pub(crate) child: tokio::process::Child,
    pgid: Option<u32>,
}

impl Group {
    /// The process id of the group leader (the child), while it runs
    /// (`exec`'s background jobs report it).
    #[cfg(feature = "exec")]
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pgid
    }

    /// SIGTERM to the group, then SIGKILL after [`KILL_GRACE`] to whatever
    /// is left, and reaps the leader.
    pub(crate) async fn kill(&mut self) {
        let Some(pgid) = self.pgid else { return };
        signal_group(pgid, libc_signal::TERM);
        let _ = tokio::time::timeout(KILL_GRACE, self.child.wait()).await;
        signal_group(pgid, libc_signal::KILL);
        let _ = self.child.wait().await;
        self.pgid = None;
    }

    /// After the leader exited on its own, kills what it left in its group
    /// (a foreground command leaves nothing running).
    pub(crate) fn reap_leftovers(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            signal_group(pgid, libc_signal::KILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, libc_signal::KILL);
        }
    }
}

/// Signal numbers used here (the same on every Linux and BSD).
pub(crate) mod libc_signal {
    /// SIGTERM.
    pub(crate) const TERM: i32 = 15;
    /// SIGKILL.
    pub(crate) const KILL: i32 = 9;
}

/// Sends `signal` to the process group `pgid` (a gone group is no error).
pub(crate) fn signal_group(pgid: u32, signal: i32) {
    let (Some(pid), Some(signal)) = (
        rustix::process::Pid::from_raw(pgid as i32),
        rustix::process::Signal::from_named_raw(signal),
    ) else {
        return;
    };
    // ESRCH (the group is gone already) is the expected race.
    let _ = rustix::process::kill_process_group(pid, signal);
}

/// Linux: the start time (clock ticks after boot, field 22 of
/// `/proc/<pgid>/stat`) of the process `pgid` while it is alive and leads
/// the process group `pgid`. `None` when it is gone, a zombie, in another
/// group, or off Linux. With the start time recorded when the group was
/// made, it tells that group from a later one that reuses the number.
#[cfg(feature = "exec")]
pub(crate) fn group_leader_start(pgid: u32) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pgid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: the
    // fields after it follow the last ") ".
    let (_, rest) = stat.rsplit_once(") ")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Field 3 is the state, field 5 the group, field 22 the start time.
    let (state, group, start) = (fields.first()?, fields.get(2)?, fields.get(19)?);
    if *state == "Z" || group.parse::<u32>().ok()? != pgid {
        return None;
    }
    start.parse().ok()
}

/// True when no process has the id `pid` (a process of another user
/// counts as alive).
#[cfg(feature = "exec")]
pub(crate) fn is_gone(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}

/// Starts `spec` in a new process group, stdin piped (or empty), stdout and
/// stderr piped. The error names the program and the reason.
pub(crate) fn spawn(spec: &Spec) -> Result<Group, String> {
    let (program, args) = spec
        .argv
        .split_first()
        .ok_or_else(|| "empty command".to_owned())?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(&spec.cwd)
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    // The server's environment, with what the toolbox adds, without its
    // credentials; then what this run removes and sets itself.
    let child_env = crate::child_env::current();
    for (name, value) in &child_env.add {
        command.env(name, value);
    }
    for name in child_env.removed() {
        command.env_remove(name);
    }
    for name in &spec.env_remove {
        command.env_remove(name);
    }
    for (name, value) in &spec.env {
        command.env(name, value);
    }
    die_with_parent(&mut command);
    let child = command
        .spawn()
        .map_err(|e| format!("could not start '{program}': {e}"))?;
    let pgid = child.id();
    Ok(Group { child, pgid })
}

/// Linux: the child gets SIGKILL when the thread that spawned it ends (the
/// server's runtime threads live as long as the server). The child only:
/// its own children are not signalled.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(command: &mut tokio::process::Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec and calls
    // only prctl and getppid (async-signal-safe system calls); it allocates
    // nothing and touches no lock.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent may have died before prctl took effect.
            if rustix::process::getppid().map(|p| p.as_raw_nonzero().get() as u32) != Some(parent) {
                return Err(std::io::Error::other("the server is gone"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut tokio::process::Command) {}

/// A line-progress hook: called with the newest complete output line, at
/// most once per `every`.
pub(crate) struct LineProgress<'a> {
    /// Called with the line.
    pub(crate) report: &'a (dyn Fn(&str) + Send + Sync),
    /// The least time between two calls.
    pub(crate) every: Duration,
}

/// Runs `spec` to its end or `timeout` or `cancel`, keeping at most `cap`
/// bytes of each stream. On timeout or cancellation the whole group is
/// killed and the output read so far is returned; after a normal end, what
/// the command left in its group is killed too.
pub(crate) async fn run(
    spec: &Spec,
    timeout: Duration,
    cancel: &CancellationToken,
    cap: usize,
    progress: Option<LineProgress<'_>>,
) -> Result<Outcome, String> {
    let started = Instant::now();
    let mut group = spawn(spec)?;
    if let (Some(text), Some(mut stdin)) = (&spec.stdin, group.child.stdin.take()) {
        let text = text.clone().into_bytes();
        // A child that never reads its stdin must not block us: written on
        // a task of its own; a closed pipe is the child's business.
        tokio::spawn(async move {
            let _ = stdin.write_all(&text).await;
        });
    }
    let stdout = group.child.stdout.take();
    let stderr = group.child.stderr.take();
    let mut out = Capture::new(cap);
    let mut err = Capture::new(cap);
    let deadline = tokio::time::Instant::now() + timeout;
    let mut last_report: Option<Instant> = None;
    let mut pending_line = Vec::new();
    let ended = {
        let reading = read_both(stdout, stderr, &mut out, &mut err, |chunk| {
            if let Some(p) = &progress {
                note_progress(p, chunk, &mut pending_line, &mut last_report);
            }
        });
        tokio::pin!(reading);
        let mut exited = None;
        let mut streams_done = false;
        loop {
            tokio::select! {
                () = &mut reading, if !streams_done => streams_done = true,
                status = group.child.wait(), if exited.is_none() => {
                    exited = Some(status.map_err(|e| format!("waiting for the command: {e}"))?);
                }
                () = tokio::time::sleep_until(deadline) => break End::TimedOut,
                () = cancel.cancelled() => break End::Cancelled,
            }
            if let (Some(status), true) = (exited, streams_done) {
                break End::of(status);
            }
            if let Some(status) = exited {
                // The leader is done; anything it left holding the pipes is
                // killed, then the pipes are read to their end.
                group.reap_leftovers();
                let _ = tokio::time::timeout(DRAIN_AFTER_KILL, &mut reading).await;
                break End::of(status);
            }
        }
    };
    if matches!(ended, End::TimedOut | End::Cancelled) {
        group.kill().await;
    } else {
        group.reap_leftovers();
    }
    Ok(Outcome {
        end: ended,
        stdout: out,
        stderr: err,
        duration: started.elapsed(),
    })
}

fn note_progress(
    progress: &LineProgress<'_>,
    chunk: &[u8],
    pending: &mut Vec<u8>,
    last: &mut Option<Instant>,
) {
    pending.extend_from_slice(chunk);
    let Some(end) = pending.iter().rposition(|&b| b == b'\n') else {
        if pending.len() > 4096 {
            pending.drain(..pending.len() - 4096);
        }
        return;
    };
    let complete = &pending[..end];
    let start = complete
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = String::from_utf8_lossy(&complete[start..])
        .trim_end()
        .to_owned();
    pending.drain(..=end);
    if line.is_empty() || last.is_some_and(|t| t.elapsed() < progress.every) {
        return;
    }
    *last = Some(Instant::now());
    let line: String = line.chars().take(200).collect();
    (progress.report)(&line);
}

/// Reads both pipes to their end into the captures, calling `seen` with
/// every chunk in the order read.
async fn read_both(
    stdout: Option<impl AsyncRead + Unpin>,
    stderr: Option<impl AsyncRead + Unpin>,
    out: &mut Capture,
    err: &mut Capture,
    mut seen: impl FnMut(&[u8]),
) {
    let mut stdout = stdout;
    let mut stderr = stderr;
    let mut buf_out = vec![0u8; 16 * 1024];
    let mut buf_err = vec![0u8; 16 * 1024];
    loop {
        tokio::select! {
            n = read_some(&mut stdout, &mut buf_out), if stdout.is_some() => match n {
                Some(n) => { out.push(&buf_out[..n]); seen(&buf_out[..n]); }
                None => stdout = None,
            },
            n = read_some(&mut stderr, &mut buf_err), if stderr.is_some() => match n {
                Some(n) => { err.push(&buf_err[..n]); seen(&buf_err[..n]); }
                None => stderr = None,
            },
            else => return,
        }
    }
}

/// One read; `None` at the end of the stream or on an error.
async fn read_some(reader: &mut Option<impl AsyncRead + Unpin>, buf: &mut [u8]) -> Option<usize> {
    let reader = reader.as_mut()?;
    match reader.read(buf).await {
        Ok(0) | Err(_) => None,
        Ok(n) => Some(n),
    }
}

#[cfg(test)]
mod tests {
    use super::Capture;

    #[test]
    fn capture_keeps_head_and_tail() {
        let mut c = Capture::new(10);
        c.push(b"abc");
        c.push(b"defghijklmnop");
        c.push(b"qr");
        assert_eq!(c.total(), 18);
        assert_eq!(c.dropped(), 8);
        assert_eq!(c.head, b"abcde");
        assert_eq!(c.tail.iter().copied().collect::<Vec<_>>(), b"nopqr");
        let mut small = Capture::new(100);
        small.push(b"all of it\n");
        assert_eq!(small.text("x"), "all of it\n");
    }

    #[test]
    fn capture_text_names_what_was_dropped() {
        let mut c = Capture::new(20);
        c.push(b"line1\nline2\nline3\nline4\nline5\nline6\n");
        let text = c.text("see the job's output");
        assert!(text.starts_with("line1\n"), "{text}");
        assert!(text.ends_with("line6\n"), "{text}");
        assert!(
            text.contains("bytes not shown; see the job's output ...]"),
            "{text}"
        );
    }
}
