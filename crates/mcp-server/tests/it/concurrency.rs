//! Concurrency, cancellation, progress and shutdown over raw pipes against
//! the binary (MCP 2025-11-25 basic/utilities/cancellation and progress;
//! basic/lifecycle, shutdown).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::common::{Proc, call_params, first_text, processes_left, servetest, sleep_marker};

fn write_files(root: &std::path::Path, count: usize) {
    for i in 0..count {
        std::fs::write(root.join(format!("f{i}.txt")), format!("file number {i}\n"))
            .expect("write");
    }
}

fn read_call(root: &std::path::Path, i: usize) -> Value {
    call_params(
        "fs",
        json!({ "action": "read", "path": root.join(format!("f{}.txt", i)).to_str().expect("utf-8") }),
    )
}

/// Responses by id; panics on a second response for an id.
fn by_id(messages: Vec<Value>) -> HashMap<i64, Value> {
    let mut out = HashMap::new();
    for message in messages {
        if message.get("method").is_some() {
            continue;
        }
        let id = message["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("response without integer id: {message}"));
        assert!(out.insert(id, message).is_none(), "id {id} answered twice");
    }
    out
}

servetest!(
    two_hundred_concurrent_calls_each_answered_once,
    ["--test-tools"],
    |server, root| {
        server.initialize("2025-11-25");
        write_files(root, 200);
        for i in 0..200 {
            let params = read_call(root, i);
            server.request(1000 + i as i64, "tools/call", params);
        }
        let mut messages = Vec::new();
        for _ in 0..200 {
            messages.push(server.recv());
        }
        let answers = by_id(messages);
        assert_eq!(answers.len(), 200);
        for i in 0..200 {
            let answer = &answers[&(1000 + i as i64)];
            assert!(answer["result"]["isError"] != json!(true), "{answer}");
            assert_eq!(
                first_text(&answer["result"]),
                format!("file number {i}\n"),
                "{answer}"
            );
        }
        assert_eq!(server.wait().code(), Some(0));
        assert!(server.drain().is_empty());
    }
);

servetest!(
    cancelling_leaves_every_other_call_answered,
    ["--test-tools"],
    |server, root| {
        server.initialize("2025-11-25");
        write_files(root, 20);
        server.request(
            1,
            "tools/call",
            call_params("test_sleep", json!({ "ms": 600000 })),
        );
        server.request(
            2,
            "tools/call",
            call_params("test_sleep", json!({ "ms": 50 })),
        );
        for i in 0..20 {
            let params = read_call(root, i);
            server.request(100 + i as i64, "tools/call", params);
        }
        server.send(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": 1 }
        }));
        server.close_stdin();
        let answers = by_id(server.drain());
        assert_eq!(server.wait().code(), Some(0));
        let mut ids: Vec<i64> = answers.keys().copied().collect();
        ids.sort_unstable();
        let mut expected: Vec<i64> = vec![2];
        expected.extend(100..120);
        assert_eq!(ids, expected);
        assert_eq!(first_text(&answers[&2]["result"]), "slept 50 ms");
    }
);

servetest!(
    end_of_input_with_calls_in_flight_answers_all_before_exit,
    ["--test-tools"],
    |server, root| {
        server.initialize("2025-11-25");
        write_files(root, 50);
        for i in 0..10 {
            server.request(
                i,
                "tools/call",
                call_params("test_sleep", json!({ "ms": 300 + 10 * i })),
            );
        }
        for i in 0..50 {
            let params = read_call(root, i);
            server.request(100 + i as i64, "tools/call", params);
        }
        server.close_stdin();
        let answers = by_id(server.drain());
        assert_eq!(server.wait().code(), Some(0));
        assert_eq!(answers.len(), 60);
        for i in 0..10 {
            assert_eq!(
                first_text(&answers[&i]["result"]),
                format!("slept {} ms", 300 + 10 * i)
            );
        }
        for i in 0..50 {
            assert_eq!(
                first_text(&answers[&(100 + i)]["result"]),
                format!("file number {i}\n")
            );
        }
    }
);

servetest!(
    sigterm_with_calls_in_flight_answers_all_and_exits_zero,
    ["--test-tools"],
    |server, _root| {
        server.initialize("2025-11-25");
        for i in 0..5 {
            server.request(
                i,
                "tools/call",
                call_params("test_sleep", json!({ "ms": 400 })),
            );
        }
        // Make sure the calls were read before the signal arrives.
        let ping = server.call(99, "ping", json!({}));
        assert_eq!(ping["result"], json!({}));
        server.terminate();
        let answers = by_id(server.drain());
        let status = server.wait();
        assert_eq!(status.code(), Some(0));
        let mut ids: Vec<i64> = answers.keys().copied().collect();
        ids.sort_unstable();
        assert_eq!(ids, vec![0, 1, 2, 3, 4]);
        for i in 0..5 {
            assert_eq!(first_text(&answers[&i]["result"]), "slept 400 ms");
        }
    }
);

servetest!(
    a_second_sigterm_ends_the_grace_at_once,
    ["--test-tools"],
    |server, _root| {
        server.initialize("2025-11-25");
        // A call that would hold the graceful end for its whole grace (10 s).
        server.request(
            1,
            "tools/call",
            call_params("test_sleep", json!({ "ms": 30_000 })),
        );
        let ping = server.call(99, "ping", json!({}));
        assert_eq!(ping["result"], json!({}));
        server.terminate();
        std::thread::sleep(std::time::Duration::from_millis(300));
        server.terminate();
        // Had the grace run out, the call would be answered with an error;
        // ended at once, it gets no answer at all.
        let answers = by_id(server.drain());
        assert!(!answers.contains_key(&1), "{answers:?}");
        assert_eq!(server.wait().code(), Some(0));
        let lines = server.stderr_lines();
        assert!(
            lines
                .iter()
                .any(|l| l
                    .contains("a second signal: ending now, without waiting for calls in flight")),
            "{lines:?}"
        );
    }
);

servetest!(
    progress_notifications_carry_the_token,
    ["--test-tools"],
    |server, _root| {
        server.initialize("2025-11-25");
        server.request(
            7,
            "tools/call",
            json!({ "name": "test_sleep", "arguments": { "ms": 30, "steps": 3 },
                "_meta": { "progressToken": "tok-7" } }),
        );
        let mut progress = Vec::new();
        let response = loop {
            let message = server.recv();
            if message.get("id").is_some() {
                break message;
            }
            progress.push(message);
        };
        assert_eq!(response["id"], 7);
        assert_eq!(first_text(&response["result"]), "slept 30 ms");
        let expected: Vec<Value> = (1..=3)
            .map(|step| {
                json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": { "progressToken": "tok-7", "progress": step as f64, "total": 3.0 }
                })
            })
            .collect();
        assert_eq!(progress, expected);
    }
);

servetest!(
    no_progress_without_a_token,
    ["--test-tools"],
    |server, _root| {
        server.initialize("2025-11-25");
        server.request(
            7,
            "tools/call",
            call_params("test_sleep", json!({ "ms": 10, "steps": 3 })),
        );
        // The very next message is the response: no notification came first.
        let response = server.recv();
        assert_eq!(response["id"], 7);
        assert_eq!(first_text(&response["result"]), "slept 10 ms");
        server.close_stdin();
        assert!(server.drain().is_empty());
    }
);

/// A server whose `exec` job spools live in a temporary state folder.
fn start_exec() -> (Proc, tempfile::TempDir) {
    let state = tempfile::tempdir().expect("tempdir");
    let root = state.path().to_str().expect("utf-8").to_owned();
    let mut server = Proc::spawn_with_env(
        &["serve", "--no-door", "--root", &root],
        &[("HANZO_MCP_STATE", &root)],
    );
    server.initialize("2025-11-25");
    (server, state)
}

#[test]
fn cancelling_an_exec_run_kills_its_group_and_sends_no_response() {
    let (mut server, _state) = start_exec();
    let mark = sleep_marker(1);
    server.request(
        5,
        "tools/call",
        call_params(
            "exec",
            json!({"action": "run", "command": format!("sleep {mark} & sleep {mark}")}),
        ),
    );
    // Wait (at most ~10 s) until the command runs.
    for _ in 0..1000 {
        if !processes_left(&mark).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    server.send(&json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": { "requestId": 5, "reason": "test" }
    }));
    assert_eq!(processes_left(&mark), Vec::<u32>::new());
    let pong = server.call(6, "ping", json!({}));
    assert_eq!(pong["result"], json!({}));
    server.close_stdin();
    let rest = server.drain();
    assert!(
        rest.iter().all(|m| m.get("id") != Some(&json!(5))),
        "the cancelled call was answered: {rest:?}"
    );
}

#[test]
fn end_of_input_with_a_background_job_leaves_no_process() {
    let (mut server, _state) = start_exec();
    let mark = sleep_marker(2);
    let started = server.call_tool(
        1,
        "exec",
        json!({"action": "run", "background": true,
                   "command": format!("sleep {mark} & sleep {mark}")}),
    );
    assert!(
        first_text(&started["result"]).starts_with("job 1 started (pid "),
        "{started}"
    );
    let listed = server.call_tool(2, "exec", json!({"action": "ps"}));
    assert_eq!(
        listed["result"]["structuredContent"]["jobs"][0]["state"],
        "running"
    );
    assert!(server.wait().success());
    assert_eq!(processes_left(&mark), Vec::<u32>::new());
}

/// `memory store` and `tasks add` calls streamed at a server that is then
/// SIGKILLed: after a restart on the same state folder every write that
/// was answered is there, and the database opens cleanly. 20 rounds.
#[test]
fn answered_writes_survive_sigkill() {
    let state = tempfile::tempdir().expect("tempdir");
    let dir = state.path().to_str().expect("utf-8").to_owned();
    let spawn = || {
        let mut server = Proc::spawn_with_env(
            &["serve", "--no-door", "--root", &dir],
            &[("HANZO_MCP_STATE", &dir)],
        );
        server.initialize("2025-11-25");
        server
    };
    let mut answered_memories = Vec::new();
    let mut answered_tasks = Vec::new();
    for round in 0..20 {
        let mut server = spawn();
        for i in 0..60 {
            let key = format!("r{round}-m{i}");
            server.request(
                2 * i,
                "tools/call",
                call_params(
                    "memory",
                    json!({"action": "store", "key": key, "content": "kept"}),
                ),
            );
            server.request(
                2 * i + 1,
                "tools/call",
                call_params(
                    "tasks",
                    json!({"action": "add", "title": format!("r{round}-t{i}")}),
                ),
            );
        }
        // Read some answers, then kill the server mid-stream.
        for _ in 0..(20 + round) {
            let message = server.recv();
            let Some(id) = message["id"].as_i64() else {
                continue;
            };
            assert_ne!(message["result"]["isError"], true, "{message}");
            if id % 2 == 0 {
                answered_memories.push(format!("r{round}-m{}", id / 2));
            } else {
                answered_tasks.push(format!("r{round}-t{}", id / 2));
            }
        }
        drop(server);
    }
    let mut server = spawn();
    for (n, key) in answered_memories.iter().enumerate() {
        let recalled = server.call_tool(
            10_000 + n as i64,
            "memory",
            json!({"action": "recall", "key": key}),
        );
        assert_eq!(
            first_text(&recalled["result"]),
            format!("{key}: kept\n"),
            "an answered store was lost"
        );
    }
    let mut offset = 0;
    let mut titles = Vec::new();
    loop {
        let page = server.call_tool(
            2 + offset as i64,
            "tasks",
            json!({"action": "list", "offset": offset, "limit": 100}),
        );
        let tasks = page["result"]["structuredContent"]["tasks"]
            .as_array()
            .expect("tasks")
            .clone();
        if tasks.is_empty() {
            break;
        }
        offset += tasks.len();
        titles.extend(
            tasks
                .iter()
                .map(|t| t["title"].as_str().unwrap_or("").to_owned()),
        );
    }
    for title in &answered_tasks {
        assert!(titles.contains(title), "answered task {title} lost");
    }
    assert!(answered_memories.len() + answered_tasks.len() >= 20 * 20);
}

/// Two servers on one root, 50 pipelined `fs edit` calls each on one file,
/// every edit replacing `END` with its marker line and `END`: all 100
/// markers are in the file. Five rounds.
#[test]
fn two_servers_editing_one_file_lose_no_edit() {
    for round in 0..5 {
        let root = tempfile::tempdir().expect("tempdir");
        let file = root.path().join("shared.txt");
        std::fs::write(&file, "START\nEND\n").expect("write");
        let dir = root.path().to_str().expect("utf-8").to_owned();
        let mut servers: Vec<Proc> = (0..2)
            .map(|_| {
                let mut server = Proc::spawn(&["serve", "--no-door", "--root", &dir]);
                server.initialize("2025-11-25");
                server
            })
            .collect();
        for (s, server) in servers.iter_mut().enumerate() {
            for i in 0..50 {
                server.request(
                    i + 1,
                    "tools/call",
                    call_params(
                        "fs",
                        json!({"action": "edit", "path": "shared.txt", "old_text": "END",
                               "new_text": format!("r{round}-s{s}-{i}\nEND")}),
                    ),
                );
            }
        }
        for server in &mut servers {
            let mut answered = 0;
            while answered < 50 {
                let message = server.recv();
                if message.get("id").is_some() {
                    assert_ne!(message["result"]["isError"], true, "{message}");
                    answered += 1;
                }
            }
        }
        let text = std::fs::read_to_string(&file).expect("read");
        for s in 0..2 {
            for i in 0..50 {
                assert!(
                    text.contains(&format!("r{round}-s{s}-{i}\n")),
                    "round {round}: edit {s}-{i} lost"
                );
            }
        }
    }
}
