//! `hanzo-mcp serve --http` limit flags: `--http-max-sessions`,
//! `--http-session-idle`, `--http-header-timeout`, `--http-max-connections`,
//! `--http-body-timeout` (and their `HANZO_MCP_HTTP_*` variables) become the `HttpConfig` that
//! `serve_http` runs with; 0 and absurd values are refused by the parser.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use clap::Parser;
use clap::error::ErrorKind;
use mcp_local_server::cli::{Cli, Command as Sub, ServeArgs};
use mcp_local_server::http::HttpConfig;
use serde_json::json;

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

fn parse(extra: &[&str]) -> Result<ServeArgs, clap::Error> {
    let mut argv = vec!["hanzo-mcp", "serve", "--http", "127.0.0.1:0"];
    argv.extend_from_slice(extra);
    Cli::try_parse_from(argv).map(|cli| match cli.command {
        Sub::Serve(args) => args,
        other => panic!("not serve: {other:?}"),
    })
}

/// The first line of the parser's refusal of `extra`.
fn refusal(extra: &[&str]) -> String {
    let error = parse(extra).expect_err("refused");
    assert_eq!(error.kind(), ErrorKind::ValueValidation, "{error}");
    error
        .to_string()
        .lines()
        .next()
        .expect("a message")
        .to_owned()
}

#[test]
fn without_flags_the_limits_are_the_library_defaults() {
    let config = parse(&[]).expect("parsed").http_config();
    let defaults = HttpConfig::default();
    assert_eq!(config.max_sessions, 256);
    assert_eq!(config.session_idle, Duration::from_secs(1800));
    assert_eq!(config.header_read_timeout, Duration::from_secs(10));
    assert_eq!(config.max_connections, 512);
    assert_eq!(config.body_read_timeout, Duration::from_secs(30));
    assert_eq!(config.body_read_timeout, defaults.body_read_timeout);
    assert_eq!(config.max_sessions, defaults.max_sessions);
    assert_eq!(config.session_idle, defaults.session_idle);
    assert_eq!(config.header_read_timeout, defaults.header_read_timeout);
    assert_eq!(config.max_connections, defaults.max_connections);
    assert_eq!(config.path, "/mcp");
    assert_eq!(config.max_body_bytes, defaults.max_body_bytes);
}

#[test]
fn each_flag_sets_its_field() {
    let config = parse(&[
        "--http-max-sessions",
        "8",
        "--http-session-idle",
        "90",
        "--http-header-timeout",
        "3",
        "--http-max-connections",
        "64",
        "--http-body-timeout",
        "5",
    ])
    .expect("parsed")
    .http_config();
    assert_eq!(config.max_sessions, 8);
    assert_eq!(config.session_idle, Duration::from_secs(90));
    assert_eq!(config.header_read_timeout, Duration::from_secs(3));
    assert_eq!(config.max_connections, 64);
    assert_eq!(config.body_read_timeout, Duration::from_secs(5));
    assert_eq!(config.path, "/mcp");
}

#[test]
fn the_bounds_themselves_are_accepted() {
    let low = parse(&[
        "--http-max-sessions=1",
        "--http-session-idle=1",
        "--http-header-timeout=1",
        "--http-max-connections=1",
        "--http-body-timeout=1",
    ])
    .expect("parsed")
    .http_config();
    assert_eq!(
        (
            low.max_sessions,
            low.session_idle,
            low.header_read_timeout,
            low.max_connections,
            low.body_read_timeout
        ),
        (
            1,
            Duration::from_secs(1),
            Duration::from_secs(1),
            1,
            Duration::from_secs(1)
        )
    );
    let high = parse(&[
        "--http-max-sessions=65536",
        "--http-session-idle=604800",
        "--http-header-timeout=600",
        "--http-max-connections=65536",
        "--http-body-timeout=600",
    ])
    .expect("parsed")
    .http_config();
    assert_eq!(
        (
            high.max_sessions,
            high.session_idle,
            high.header_read_timeout,
            high.max_connections,
            high.body_read_timeout
        ),
        (
            65_536,
            Duration::from_secs(604_800),
            Duration::from_secs(600),
            65_536,
            Duration::from_secs(600)
        )
    );
}

#[test]
fn zero_and_absurd_values_are_refused_naming_the_flag_and_range() {
    let cases: [(&[&str], &str); 12] = [
        (
            &["--http-max-sessions", "0"],
            "error: invalid value '0' for '--http-max-sessions <N>': 0 is not in 1..=65536",
        ),
        (
            &["--http-max-sessions", "65537"],
            "error: invalid value '65537' for '--http-max-sessions <N>': 65537 is not in 1..=65536",
        ),
        (
            &["--http-session-idle", "0"],
            "error: invalid value '0' for '--http-session-idle <SECS>': 0 is not in 1..=604800",
        ),
        (
            &["--http-session-idle", "604801"],
            "error: invalid value '604801' for '--http-session-idle <SECS>': 604801 is not in 1..=604800",
        ),
        (
            &["--http-header-timeout", "0"],
            "error: invalid value '0' for '--http-header-timeout <SECS>': 0 is not in 1..=600",
        ),
        (
            &["--http-header-timeout", "86400"],
            "error: invalid value '86400' for '--http-header-timeout <SECS>': 86400 is not in 1..=600",
        ),
        (
            &["--http-body-timeout", "0"],
            "error: invalid value '0' for '--http-body-timeout <SECS>': 0 is not in 1..=600",
        ),
        (
            &["--http-body-timeout", "601"],
            "error: invalid value '601' for '--http-body-timeout <SECS>': 601 is not in 1..=600",
        ),
        (
            &["--http-max-connections", "0"],
            "error: invalid value '0' for '--http-max-connections <N>': 0 is not in 1..=65536",
        ),
        (
            &["--http-max-connections", "18446744073709551615"],
            "error: invalid value '18446744073709551615' for '--http-max-connections <N>': \
             18446744073709551615 is not in 1..=65536",
        ),
        (
            &["--http-max-connections=-1"],
            "error: invalid value '-1' for '--http-max-connections <N>': invalid digit found in string",
        ),
        (
            &["--http-session-idle", "1.5"],
            "error: invalid value '1.5' for '--http-session-idle <SECS>': invalid digit found in string",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(refusal(extra), expected, "{extra:?}");
    }
}

#[test]
fn serve_help_shows_each_flag_with_its_variable_and_default() {
    let help = Cli::try_parse_from(["hanzo-mcp", "serve", "--help"])
        .expect_err("help is an early exit")
        .to_string();
    for (flag, env, default) in [
        (
            "--http-max-sessions <N>",
            "HANZO_MCP_HTTP_MAX_SESSIONS",
            "256",
        ),
        (
            "--http-session-idle <SECS>",
            "HANZO_MCP_HTTP_SESSION_IDLE",
            "1800",
        ),
        (
            "--http-header-timeout <SECS>",
            "HANZO_MCP_HTTP_HEADER_TIMEOUT",
            "10",
        ),
        (
            "--http-max-connections <N>",
            "HANZO_MCP_HTTP_MAX_CONNECTIONS",
            "512",
        ),
        (
            "--http-body-timeout <SECS>",
            "HANZO_MCP_HTTP_BODY_TIMEOUT",
            "30",
        ),
    ] {
        let at = help
            .find(flag)
            .unwrap_or_else(|| panic!("{flag} missing from:\n{help}"));
        // The flag's own entry runs up to the next flag.
        let entry = &help[at..];
        let entry = &entry[..entry[2..].find("\n  -").map_or(entry.len(), |end| end + 2)];
        assert!(entry.contains(&format!("[env: {env}=]")), "{flag}: {entry}");
        assert!(
            entry.contains(&format!("[default: {default}]")),
            "{flag}: {entry}"
        );
    }
}

/// `hanzo-mcp serve --http 127.0.0.1:0 --no-door` with `env`; stops when dropped.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn spawn(env: &[(&str, &str)]) -> Running {
        let root = std::env::temp_dir();
        let mut command = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"));
        command
            .args(["serve", "--http", "127.0.0.1:0", "--no-door", "--root"])
            .arg(&root)
            .env("RUST_LOG", "info")
            .env_remove("HANZO_MCP_HTTP_BEARER")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("spawn hanzo-mcp");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running { child, lines }
    }

    /// The address from the "serving MCP over streamable HTTP" log line.
    fn bound(&self) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(PATIENCE)
                .expect("the serving line on stderr");
            if let Some(rest) = line.split("bound=").nth(1) {
                return rest
                    .split_whitespace()
                    .next()
                    .expect("an address")
                    .to_owned();
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_refused_variable_stops_the_binary_with_the_parser_message() {
    let mut running = Running::spawn(&[("HANZO_MCP_HTTP_MAX_CONNECTIONS", "0")]);
    let first = running.lines.recv_timeout(PATIENCE).expect("an error line");
    assert_eq!(
        first,
        "error: invalid value '0' for '--http-max-connections <N>': 0 is not in 1..=65536"
    );
    let status = running.child.wait().expect("exit status");
    assert_eq!(status.code(), Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_cap_from_the_environment_reaches_the_server() {
    let running = Running::spawn(&[("HANZO_MCP_HTTP_MAX_SESSIONS", "1")]);
    let url = format!("http://{}/mcp", running.bound());
    let client = reqwest::Client::new();
    let initialize = |id: i64| {
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(
                json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "http-flags", "version": "1" } } })
                .to_string(),
            )
            .send()
    };
    let first = initialize(1).await.expect("first initialize answered");
    assert_eq!(first.status(), reqwest::StatusCode::OK);
    assert!(first.headers().contains_key("mcp-session-id"));
    let second = initialize(2).await.expect("second initialize answered");
    assert_eq!(second.status(), reqwest::StatusCode::SERVICE_UNAVAILABLE);
}

#[test]
fn a_refused_body_timeout_variable_stops_the_binary_with_the_parser_message() {
    let mut running = Running::spawn(&[("HANZO_MCP_HTTP_BODY_TIMEOUT", "601")]);
    let first = running.lines.recv_timeout(PATIENCE).expect("an error line");
    assert_eq!(
        first,
        "error: invalid value '601' for '--http-body-timeout <SECS>': 601 is not in 1..=600"
    );
    let status = running.child.wait().expect("exit status");
    assert_eq!(status.code(), Some(2));
}
