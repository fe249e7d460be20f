//! Background jobs of `exec`: a table of running and finished commands,
//! each with its output spooled to a bounded file. A job is its session's
//! ([`crate::ToolContext::session`]): another session's calls neither list
//! it nor reach it by its id (over streamable HTTP, one client must not
//! read, write to or kill another's programs).
//!
//! A job's stdout and stderr go, in the order written, to
//! `<state folder>/jobs/<server pid>-<job id>.log`, at most
//! [`MAX_JOB_SPOOL_BYTES`]; past that the bytes are counted, not kept, so a
//! long job never grows memory or fills the disk. A finished job stays
//! listed for [`KEEP_FINISHED`] (at most [`MAX_FINISHED`] of them); its
//! spool is removed with it. Dropping the table (the server's exit) kills
//! every running job's process group and removes the spools.
//!
//! A server killed outright (SIGKILL) drops nothing: its spools stay, and
//! the children of a shell-form job keep running (the death signal reaches
//! the shell only). So on Linux each running job's process group is also
//! recorded in `<server pid>-<job id>.pgid` (the group id and its leader's
//! start time), and the first use of a job table sweeps the folder: the
//! files of a server pid that is no longer running are removed, and a
//! group they record is killed when its leader is still the process that
//! was recorded (same start time, still leading that group), never a later
//! group that reuses the number. A group whose leader already exited is
//! left alone, as is everything of a pid that runs again.

use std::collections::BTreeMap;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use mcp_proto::CallToolResult;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::ChildStdin;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::process::{self, End, Spec};
use crate::util::ToolResult;

/// Most bytes of output one job's spool file keeps: 64 MiB.
pub const MAX_JOB_SPOOL_BYTES: u64 = 64 * 1024 * 1024;
/// How long a finished job stays listed.
pub(crate) const KEEP_FINISHED: Duration = Duration::from_secs(3600);
/// Most finished jobs kept.
pub(crate) const MAX_FINISHED: usize = 32;
/// Most bytes one `output` or `wait` returns.
pub(crate) const READ_CAP: u64 = 30_000;
/// Default wait of `wait`.
pub(crate) const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The table of jobs.
#[derive(Debug)]
pub(crate) struct Jobs {
    spool_dir: Option<PathBuf>,
    next_id: AtomicU64,
    table: Mutex<BTreeMap<u64, Arc<Job>>>,
    /// The sweep of what killed servers left, done on first use.
    swept: Once,
}

#[derive(Debug)]
struct Job {
    id: u64,
    /// The session that started it; no other sees it.
    session: u64,
    command: String,
    pid: u32,
    started: Instant,
    spool: PathBuf,
    /// The record of its process group (removed when it ends).
    group_file: PathBuf,
    /// Bytes written to the spool, and bytes not kept past its cap.
    written: AtomicU64,
    dropped: AtomicU64,
    /// Where the last `output` or `wait` stopped.
    read_to: AtomicU64,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    /// `Some((end, runtime))` once it ended.
    ended: watch::Receiver<Option<(End, Duration)>>,
}

impl Jobs {
    pub(crate) fn new(spool_dir: Option<PathBuf>) -> Jobs {
        Jobs {
            spool_dir,
            next_id: AtomicU64::new(1),
            table: Mutex::new(BTreeMap::new()),
            swept: Once::new(),
        }
    }

    /// Once per table: removes the files of dead servers from the spool
    /// folder and kills the groups they recorded.
    fn sweep_once(&self) {
        self.swept.call_once(|| {
            if let Ok(dir) = self.dir() {
                sweep(&dir);
            }
        });
    }

    fn dir(&self) -> Result<PathBuf, String> {
        let dir = match &self.spool_dir {
            Some(dir) => dir.clone(),
            None => crate::state::state_dir()?.join("jobs"),
        };
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create the job spool folder {}: {e}", dir.display()))?;
        Ok(dir)
    }

    /// Starts `spec` as a job; answers its id at once.
    pub(crate) fn start(&self, session: u64, spec: Spec, command: String) -> ToolResult {
        self.sweep_once();
        self.prune();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let dir = self.dir()?;
        let spool = dir.join(format!("{}-{id}.log", std::process::id()));
        let group_file = dir.join(format!("{}-{id}.pgid", std::process::id()));
        let file = std::fs::File::create(&spool)
            .map_err(|e| format!("cannot create {}: {e}", spool.display()))?;
        let mut group = process::spawn(&spec)?;
        let pid = group.pid().unwrap_or(0);
        if let Some(start) = process::group_leader_start(pid) {
            // Best effort: without it only a killed server's leftovers stay.
            let _ = std::fs::write(&group_file, format!("{pid} {start}\n"));
        }
        let stdout = group.child.stdout.take();
        let stderr = group.child.stderr.take();
        let stdin = group.child.stdin.take();
        let initial = spec.stdin.unwrap_or_default();
        let (ended_tx, ended) = watch::channel(None);
        let job = Arc::new(Job {
            id,
            session,
            command: command.clone(),
            pid,
            started: Instant::now(),
            spool: spool.clone(),
            group_file,
            written: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            read_to: AtomicU64::new(0),
            stdin: Arc::new(tokio::sync::Mutex::new(stdin)),
            ended,
        });
        // The first text goes in before any `write`: the lock is taken
        // here and released once it is written.
        let mut first = job
            .stdin
            .clone()
            .try_lock_owned()
            .map_err(|_| "job stdin busy".to_owned())?;
        let runner = job.clone();
        tokio::spawn(async move {
            if !initial.is_empty()
                && let Some(pipe) = first.as_mut()
                && pipe.write_all(initial.as_bytes()).await.is_err()
            {
                *first = None;
            }
            drop(first);
            let spooling = runner.spool_output(file, stdout, stderr);
            let status = group.child.wait();
            let (_, status) = tokio::join!(spooling, status);
            let end = match status {
                Ok(status) => End::of(status),
                Err(_) => End::Exited(-1),
            };
            group.reap_leftovers();
            let _ = std::fs::remove_file(&runner.group_file);
            let _ = ended_tx.send(Some((end, runner.started.elapsed())));
        });
        self.table
            .lock()
            .map_err(|_| "job table poisoned".to_owned())?
            .insert(id, job);
        let text = format!(
            "job {id} started (pid {pid}): {command}\nRead its output with {{\"action\":\"output\",\"id\":\"{id}\"}}; wait, write and kill take the same id.\n"
        );
        let mut result = CallToolResult::text(text);
        result.structured_content =
            Some(json!({"id": id.to_string(), "pid": pid, "command": command}));
        Ok(result)
    }

    /// The job of `session` whose id is `id`, written as `start` printed
    /// it (decimal, no sign, no leading zero, no blank); another session's
    /// job is unknown here.
    fn get(&self, session: u64, id: &str) -> Result<Arc<Job>, String> {
        self.sweep_once();
        let unknown = || format!("no job '{}' (list shows the jobs)", id.escape_debug());
        let number: u64 = id.parse().map_err(|_| unknown())?;
        if number.to_string() != id {
            return Err(unknown());
        }
        self.table
            .lock()
            .map_err(|_| "job table poisoned".to_owned())?
            .get(&number)
            .filter(|job| job.session == session)
            .cloned()
            .ok_or_else(unknown)
    }

    /// Drops finished jobs older than [`KEEP_FINISHED`], and the oldest
    /// beyond [`MAX_FINISHED`], with their spools.
    fn prune(&self) {
        let Ok(mut table) = self.table.lock() else {
            return;
        };
        let mut finished: Vec<(u64, Instant)> = table
            .values()
            .filter_map(|job| {
                let ended = *job.ended.borrow();
                ended.map(|(_, runtime)| (job.id, job.started + runtime))
            })
            .collect();
        finished.sort_by_key(|&(_, at)| at);
        let excess = finished.len().saturating_sub(MAX_FINISHED);
        for (i, (id, at)) in finished.into_iter().enumerate() {
            if (i < excess || at.elapsed() > KEEP_FINISHED)
                && let Some(job) = table.remove(&id)
            {
                let _ = std::fs::remove_file(&job.spool);
                let _ = std::fs::remove_file(&job.group_file);
            }
        }
    }

    /// `output`: a page of the job's spool.
    pub(crate) fn output(
        &self,
        session: u64,
        id: &str,
        offset: Option<u64>,
        tail: Option<u64>,
    ) -> ToolResult {
        let job = self.get(session, id)?;
        job.page(offset, tail)
    }

    /// `wait`: until the job ends, `limit` passes or the call is cancelled.
    pub(crate) async fn wait(
        &self,
        session: u64,
        id: &str,
        limit: Duration,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let job = self.get(session, id)?;
        let mut ended = job.ended.clone();
        tokio::select! {
            _ = tokio::time::timeout(limit, ended.wait_for(Option::is_some)) => {}
            () = cancel.cancelled() => return Err("cancelled".to_owned()),
        }
        job.page(None, None)
    }

    /// `write`: text to the job's stdin; `eof` closes it. A job that has
    /// ended, a stdin closed by `eof` or by the process, and a write that
    /// fails or is not read within 10 s are errors naming the job.
    pub(crate) async fn write(&self, session: u64, id: &str, text: &str, eof: bool) -> ToolResult {
        let job = self.get(session, id)?;
        if job.ended.borrow().is_some() {
            let (state, _) = job.state();
            return Err(format!("job {id} has ended ({state}); nothing was written"));
        }
        let mut stdin = job.stdin.lock().await;
        let pipe = stdin
            .as_mut()
            .ok_or_else(|| format!("job {id}: stdin is closed"))?;
        let written = async {
            pipe.write_all(text.as_bytes()).await?;
            pipe.flush().await
        };
        match tokio::time::timeout(Duration::from_secs(10), written).await {
            Err(elapsed) => return Err(format!("job {id}: stdin is not being read ({elapsed})")),
            Ok(Err(e)) => {
                // The reading end is gone (the process closed its stdin or
                // ended): later writes are refused at once.
                *stdin = None;
                let why = if e.kind() != std::io::ErrorKind::BrokenPipe {
                    "it is closed now"
                } else if job.ended.borrow().is_some() {
                    "the process has ended"
                } else {
                    "the process closed it"
                };
                return Err(format!(
                    "job {id}: could not write to its stdin: {e}; {why}"
                ));
            }
            Ok(Ok(())) => {}
        }
        if eof {
            *stdin = None;
        }
        Ok(CallToolResult::text(format!(
            "job {id}: wrote {} bytes to stdin{}\n",
            text.len(),
            if eof { " and closed it" } else { "" }
        )))
    }

    /// `kill`: a signal to the job's process group.
    pub(crate) fn kill(&self, session: u64, id: &str, signal: Option<&str>) -> ToolResult {
        let job = self.get(session, id)?;
        let name = signal
            .unwrap_or("TERM")
            .trim_start_matches("SIG")
            .to_ascii_uppercase();
        let number = match name.as_str() {
            "TERM" => 15,
            "KILL" => 9,
            "INT" => 2,
            "HUP" => 1,
            "QUIT" => 3,
            "USR1" => 10,
            "USR2" => 12,
            _ => {
                return Err(format!(
                    "kill: unknown signal '{}' (accepted: TERM, KILL, INT, HUP, QUIT, USR1, USR2)",
                    signal.unwrap_or_default().escape_debug()
                ));
            }
        };
        if job.ended.borrow().is_some() {
            return Err(format!("job {id} has already ended"));
        }
        process::signal_group(job.pid, number);
        Ok(CallToolResult::text(format!(
            "job {id}: sent SIG{name} to process group {}\n",
            job.pid
        )))
    }

    /// `list`: every job of `session`, oldest first.
    pub(crate) fn list(&self, session: u64) -> CallToolResult {
        self.sweep_once();
        self.prune();
        let jobs: Vec<Arc<Job>> = match self.table.lock() {
            Ok(table) => table
                .values()
                .filter(|job| job.session == session)
                .cloned()
                .collect(),
            Err(_) => Vec::new(),
        };
        if jobs.is_empty() {
            return CallToolResult::text("no jobs\n");
        }
        let mut text = String::new();
        let mut rows = Vec::new();
        for job in jobs {
            let (state, runtime) = job.state();
            text.push_str(&format!(
                "{}\t{state}\tpid {}\t{} ms\t{}\n",
                job.id,
                job.pid,
                runtime.as_millis(),
                job.command
            ));
            rows.push(json!({
                "id": job.id.to_string(),
                "state": state,
                "pid": job.pid,
                "runtimeMs": runtime.as_millis() as u64,
                "command": job.command,
                "outputBytes": job.written.load(Ordering::Relaxed),
            }));
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({ "jobs": rows }));
        result
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        let Ok(table) = self.table.get_mut() else {
            return;
        };
        for job in table.values() {
            if job.ended.borrow().is_none() {
                process::signal_group(job.pid, process::libc_signal::KILL);
            }
            let _ = std::fs::remove_file(&job.spool);
            let _ = std::fs::remove_file(&job.group_file);
        }
    }
}

/// Sweeps `dir` of what servers killed outright left: every
/// `<pid>-<id>.log` and `<pid>-<id>.pgid` whose pid is not this process
/// and no longer runs is removed, and the process group a `.pgid` file
/// records (`<pgid> <leader start time>`) is sent SIGKILL when its leader
/// is still that very process.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((owner, kind)) = name.to_str().and_then(spool_file_owner) else {
            continue;
        };
        if owner == me || !process::is_gone(owner) {
            continue;
        }
        let path = entry.path();
        if kind == "pgid"
            && let Ok(record) = std::fs::read_to_string(&path)
            && let Some((pgid, start)) = parse_group_record(&record)
            && process::group_leader_start(pgid) == Some(start)
        {
            process::signal_group(pgid, process::libc_signal::KILL);
        }
        let _ = std::fs::remove_file(&path);
    }
}

/// `<pid>-<id>.log` or `<pid>-<id>.pgid` (decimal numbers, the pid not 0):
/// the pid and `log` or `pgid`.
fn spool_file_owner(name: &str) -> Option<(u32, &str)> {
    let (stem, kind) = name.rsplit_once('.')?;
    if kind != "log" && kind != "pgid" {
        return None;
    }
    let (pid, id) = stem.split_once('-')?;
    let decimal = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !decimal(pid) || !decimal(id) {
        return None;
    }
    let pid: u32 = pid.parse().ok()?;
    (pid > 0 && pid <= i32::MAX as u32).then_some((pid, kind))
}

/// `<pgid> <start time>\n` as written by `start`; the group id above 1.
fn parse_group_record(record: &str) -> Option<(u32, u64)> {
    let mut fields = record.split_whitespace();
    let pgid: u32 = fields.next()?.parse().ok()?;
    let start: u64 = fields.next()?.parse().ok()?;
    if fields.next().is_some() || pgid <= 1 || pgid > i32::MAX as u32 {
        return None;
    }
    Some((pgid, start))
}

impl Job {
    /// `running` or how it ended, and its runtime so far.
    fn state(&self) -> (String, Duration) {
        match *self.ended.borrow() {
            None => ("running".to_owned(), self.started.elapsed()),
            Some((end, runtime)) => (end.describe(Duration::ZERO), runtime),
        }
    }

    /// Copies both pipes into the spool file, up to its cap.
    async fn spool_output(
        &self,
        file: std::fs::File,
        stdout: Option<impl AsyncRead + Unpin>,
        stderr: Option<impl AsyncRead + Unpin>,
    ) {
        let file = Mutex::new(file);
        tokio::join!(self.copy(&file, stdout), self.copy(&file, stderr));
    }

    async fn copy(&self, file: &Mutex<std::fs::File>, reader: Option<impl AsyncRead + Unpin>) {
        let Some(mut reader) = reader else { return };
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            self.append(file, &buf[..n]);
        }
    }

    fn append(&self, file: &Mutex<std::fs::File>, bytes: &[u8]) {
        let written = self.written.load(Ordering::Relaxed);
        let room = MAX_JOB_SPOOL_BYTES.saturating_sub(written) as usize;
        let keep = bytes.len().min(room);
        if keep > 0
            && let Ok(mut file) = file.lock()
            && file.write_all(&bytes[..keep]).is_ok()
        {
            self.written.fetch_add(keep as u64, Ordering::Relaxed);
        }
        self.dropped
            .fetch_add((bytes.len() - keep) as u64, Ordering::Relaxed);
    }

    /// A page of the spool: from `offset`, the last `tail` lines, or since
    /// the last read; at most [`READ_CAP`] bytes, cut on a character
    /// boundary, with a line saying where to continue.
    fn page(&self, offset: Option<u64>, tail: Option<u64>) -> ToolResult {
        let written = self.written.load(Ordering::Relaxed);
        let mut file = std::fs::File::open(&self.spool)
            .map_err(|e| format!("job {}: cannot read its output: {e}", self.id))?;
        let start = match (offset, tail) {
            (Some(_), Some(_)) => return Err("output: give offset or tail, not both".to_owned()),
            (Some(offset), None) => offset.min(written),
            (None, Some(lines)) => tail_start(&mut file, written, lines)?,
            (None, None) => self.read_to.load(Ordering::Relaxed).min(written),
        };
        let len = (written - start).min(READ_CAP);
        let mut bytes = vec![0u8; len as usize];
        file.seek(SeekFrom::Start(start))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|e| format!("job {}: cannot read its output: {e}", self.id))?;
        // Stop before a character cut in two; the next read starts there.
        let valid = match std::str::from_utf8(&bytes) {
            Ok(_) => bytes.len(),
            Err(e) if e.error_len().is_none() && start + len < written => e.valid_up_to(),
            Err(_) => bytes.len(),
        };
        bytes.truncate(valid);
        let end = start + valid as u64;
        self.read_to.fetch_max(end, Ordering::Relaxed);
        let (state, runtime) = self.state();
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let dropped = self.dropped.load(Ordering::Relaxed);
        text.push_str(&format!(
            "[job {}: {state}, {} ms; output bytes {start}-{end} of {written}{}{}]\n",
            self.id,
            runtime.as_millis(),
            if end < written {
                format!("; continue with offset={end}")
            } else {
                String::new()
            },
            if dropped > 0 {
                format!("; {dropped} bytes past the 64 MiB spool cap not kept")
            } else {
                String::new()
            }
        ));
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "id": self.id.to_string(),
            "state": state,
            "running": self.ended.borrow().is_none(),
            "exitCode": match *self.ended.borrow() { Some((End::Exited(code), _)) => Some(code), _ => None },
            "offset": start,
            "nextOffset": end,
            "totalBytes": written,
        }));
        Ok(result)
    }
}

/// The byte offset where the last `lines` lines of the first `written`
/// bytes begin (reads at most the last 1 MiB); no lines begin at the end.
fn tail_start(file: &mut std::fs::File, written: u64, lines: u64) -> Result<u64, String> {
    if lines == 0 {
        return Ok(written);
    }
    let window = written.min(1024 * 1024);
    let from = written - window;
    let mut bytes = vec![0u8; window as usize];
    file.seek(SeekFrom::Start(from))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(|e| format!("cannot read the output: {e}"))?;
    // A final newline ends the last line; it does not start another.
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let mut seen = 0;
    for (i, &b) in body.iter().enumerate().rev() {
        if b == b'\n' {
            seen += 1;
            if seen == lines {
                return Ok(from + i as u64 + 1);
            }
        }
    }
    Ok(from)
}
