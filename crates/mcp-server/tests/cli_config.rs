//! Command-line values that used to be taken silently: a `--log-level`
//! that is no filter directive, an `--allowed-tools` key naming no source,
//! and an `--http` host name. Each is refused with a message naming the
//! flag and the reason, exit status 2.

use std::process::{Command, Stdio};

use clap::Parser;
use clap::error::ErrorKind;
use mcp_local_server::cli::{Cli, Command as Sub};

/// The first line of the parser's refusal of `argv`.
fn refusal(argv: &[&str]) -> String {
    let error = Cli::try_parse_from(argv).expect_err("refused");
    assert_eq!(error.kind(), ErrorKind::ValueValidation, "{error}");
    error
        .to_string()
        .lines()
        .next()
        .expect("a message")
        .to_owned()
}

#[test]
fn an_invalid_log_level_is_refused_with_the_filter_parser_reason() {
    let cases = [
        (
            "[",
            "error: invalid value '[' for '--log-level <LEVEL>': invalid filter directive",
        ),
        (
            "foo=bar",
            "error: invalid value 'foo=bar' for '--log-level <LEVEL>': error parsing level filter: \
             expected one of \"off\", \"error\", \"warn\", \"info\", \"debug\", \"trace\", \
             or a number 0-5",
        ),
        (
            "nonsense=[[",
            "error: invalid value 'nonsense=[[' for '--log-level <LEVEL>': error parsing level \
             filter: expected one of \"off\", \"error\", \"warn\", \"info\", \"debug\", \
             \"trace\", or a number 0-5",
        ),
    ];
    for (level, expected) in cases {
        assert_eq!(
            refusal(&["hanzo-mcp", "serve", "--log-level", level]),
            expected,
            "{level}"
        );
    }
}

#[test]
fn valid_log_levels_are_kept_as_given() {
    for level in ["info", "warn", "mcp_local_server=debug,warn", "trace"] {
        let cli = Cli::try_parse_from(["hanzo-mcp", "serve", "--log-level", level])
            .unwrap_or_else(|e| panic!("{level}: {e}"));
        match cli.command {
            Sub::Serve(args) => assert_eq!(args.log_level.as_deref(), Some(level)),
            other => panic!("not serve: {other:?}"),
        }
    }
}

#[test]
fn the_binary_refuses_an_invalid_log_level_with_status_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"))
        .args(["serve", "--no-door", "--log-level", "foo=bar"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.lines().next(),
        Some(
            "error: invalid value 'foo=bar' for '--log-level <LEVEL>': error parsing level \
             filter: expected one of \"off\", \"error\", \"warn\", \"info\", \"debug\", \
             \"trace\", or a number 0-5"
        ),
        "{stderr}"
    );
}

#[test]
fn an_allowed_tools_key_naming_no_source_is_refused_with_status_2() {
    let root = tempfile::tempdir().expect("tempdir");
    let root_s = root.path().to_str().expect("utf-8");
    let cases = [
        (
            r#"{"Local":["fs"],"door":[]}"#,
            r#"hanzo-mcp: configuration: --allowed-tools: unknown server "Local" (the servers here are "local" and "door")"#,
        ),
        (
            r#"{"local":["fs"],"doors":[],"fs":[]}"#,
            r#"hanzo-mcp: configuration: --allowed-tools: unknown servers "doors", "fs" (the servers here are "local" and "door")"#,
        ),
    ];
    for (config, expected) in cases {
        for command in ["tools", "serve"] {
            let out = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"))
                .args([
                    command,
                    "--no-door",
                    "--root",
                    root_s,
                    "--allowed-tools",
                    config,
                ])
                .stdin(Stdio::null())
                .output()
                .expect("run");
            assert_eq!(out.status.code(), Some(2), "{command} {config}");
            assert!(out.stdout.is_empty(), "{command} {config}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!("{expected}\n"),
                "{command} {config}"
            );
        }
    }
}

#[test]
fn the_known_servers_are_still_accepted_by_tools() {
    let root = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"))
        .args(["tools", "--no-door", "--root"])
        .arg(root.path())
        .args(["--allowed-tools", r#"{"local":["fs"],"door":[]}"#])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["fs"]);
}

#[test]
fn a_host_name_for_http_is_refused_naming_ip_port() {
    assert_eq!(
        refusal(&["hanzo-mcp", "serve", "--http", "localhost:18084"]),
        "error: invalid value 'localhost:18084' for '--http <ADDR>': \"localhost:18084\" is \
         neither IP:PORT (an IP address and a port) nor a port number (for 127.0.0.1)"
    );
    let cli = Cli::try_parse_from(["hanzo-mcp", "serve", "--http", "[::1]:18084"]).expect("IPv6");
    match cli.command {
        Sub::Serve(args) => assert_eq!(args.http, Some("[::1]:18084".parse().expect("addr"))),
        other => panic!("not serve: {other:?}"),
    }
}

#[test]
fn serve_help_says_http_takes_ip_port() {
    let help = Cli::try_parse_from(["hanzo-mcp", "serve", "--help"])
        .expect_err("help is an early exit")
        .to_string();
    assert!(!help.contains("HOST:PORT"), "{help}");
    assert!(
        help.contains("`IP:PORT`, an IP address and a port, or a port alone for 127.0.0.1"),
        "{help}"
    );
}
