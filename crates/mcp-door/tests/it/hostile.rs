//! Small documents that would cost huge memory: YAML aliases repeated
//! ("billion laughs") and one `$ref` repeated in examples. Each runs in a
//! process of its own (this test binary, re-run on [`child`] under a 1 GiB
//! address-space limit), so its peak resident memory is its own; the door
//! must stay under 256 MiB and keep answering.

use std::process::Command;

use mcp_door::{Door, DoorConfig, OpenApiSource};
use serde_json::{Value, json};

use crate::common::{call, list, post, spawn_door};

/// The environment variable naming the case [`child`] runs.
const CASE: &str = "MCP_DOOR_HOSTILE_CASE";
/// The most resident memory a case may take, in KiB.
const MAX_RSS_KIB: u64 = 256 << 10;

/// A YAML document of about `aliases * 4 + 10,000` bytes: one anchor, a
/// sequence of 2,000 scalars, then `aliases` aliases of it.
fn laughs(aliases: usize) -> String {
    let mut doc = String::from(
        "openapi: 3.1.0\ninfo: {title: laughs, version: \"1\"}\n\
         paths:\n  /items: {get: {operationId: listItems, tags: [items]}}\nx-lol: &a [",
    );
    doc.push_str(&vec!["lol"; 2000].join(", "));
    doc.push_str("]\nx-laughs: [");
    doc.push_str(&vec!["*a"; aliases].join(", "));
    doc.push_str("]\n");
    doc
}

/// A JSON document of about 430 KB whose one operation's body has 11,000
/// examples, each a `$ref` to a 32 KB string schema: inlined, one
/// `describe` answer would be about 360 MB (twice that as text and
/// structured content).
fn repeated_ref() -> String {
    let big = "x".repeat(32 << 10);
    let refs = vec![r##"{"$ref": "#/components/schemas/Big"}"##; 11_000].join(",");
    format!(
        r##"{{"openapi": "3.1.0", "info": {{"title": "refs", "version": "1"}},
        "paths": {{"/things": {{"post": {{"operationId": "createThing", "tags": ["things"],
          "requestBody": {{"content": {{"application/json": {{"schema": {{"type": "object",
            "properties": {{"thing": {{"type": "string", "examples": [{refs}]}}}}}}}}}}}}}}}}}},
        "components": {{"schemas": {{"Big": {{"type": "string", "example": "{big}"}}}}}}}}"##
    )
}

/// `VmHWM` (peak) and `VmRSS` of this process, in KiB.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// Runs `case` in a child process and returns its report.
fn run_case(case: &str) -> Value {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
        .arg(exe)
        .args(["hostile::child", "--exact", "--ignored", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(CASE, case)
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "case {case}: the door's process failed ({}):\n{}\n{}",
        out.status,
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("REPORT ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("case {case}: no report in {stdout}"));
    let report: Value = serde_json::from_str(line).unwrap();
    println!("{case}: {report}");
    let peak = report["peak_kib"].as_u64().unwrap();
    assert!(
        peak < MAX_RSS_KIB,
        "case {case}: peak RSS {peak} KiB is over {MAX_RSS_KIB} KiB"
    );
    report
}

/// What a case runs in its own process: the door over the hostile document,
/// served on loopback, asked what the case needs.
#[test]
#[ignore = "run by the other tests of this module, in a process of its own"]
fn child() {
    let Ok(case) = std::env::var(CASE) else {
        return;
    };
    let (_, before) = memory();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut report = runtime.block_on(async {
        let (label, doc) = match case.as_str() {
            "laughs_39k" => ("laughs.yaml", laughs(7_000)),
            "laughs_60k" => ("laughs.yaml", laughs(12_500)),
            "repeated_ref" => ("refs.json", repeated_ref()),
            other => panic!("unknown case {other}"),
        };
        let bytes = doc.len();
        let source = OpenApiSource::from_bytes(label, doc.as_bytes(), Some("http://127.0.0.1:9"));
        drop(doc);
        let door = Door::new(vec![source], DoorConfig::default()).unwrap();
        let url = format!("http://{}/v1/mcp", spawn_door(door).await);
        let mut report = json!({"bytes": bytes});
        if case == "repeated_ref" {
            let r = post(&url, &list(1), &[]).await;
            let op =
                r.body["result"]["tools"][1]["inputSchema"]["properties"]["op"]["enum"][0].clone();
            let r = post(&url, &call(1, "describe", json!({"op": op})), &[]).await;
            report["op"] = op;
            report["describe"] = r.body;
        }
        let r = post(&url, &list(2), &[]).await;
        report["list_status"] = json!(r.status);
        report["unavailable"] = r.body["result"]["_meta"]["hanzo.ai/unavailable"].clone();
        report["tools"] = json!(r.body["result"]["tools"].as_array().map(Vec::len));
        report
    });
    let (peak, _) = memory();
    report["peak_kib"] = json!(peak);
    report["growth_kib"] = json!(peak.saturating_sub(before));
    println!("REPORT {report}");
}

#[cfg(target_os = "linux")]
#[test]
fn yaml_aliases_are_bounded_by_their_expanded_size() {
    for case in ["laughs_39k", "laughs_60k"] {
        let report = run_case(case);
        assert_eq!(report["list_status"], 200, "{case}: the door keeps serving");
        let unavailable = &report["unavailable"][0];
        assert_eq!(unavailable["source"], "laughs.yaml", "{case}: {report}");
        let reason = unavailable["reason"].as_str().unwrap();
        assert!(
            reason.contains("aliases expand"),
            "{case}: the reason names the cause: {reason}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_repeated_ref_caps_the_describe_answer_with_an_error() {
    let report = run_case("repeated_ref");
    let bytes = report["bytes"].as_u64().unwrap();
    assert!((400_000..460_000).contains(&bytes), "{bytes}");
    let describe = &report["describe"];
    assert_eq!(describe["id"], 1);
    let result = &describe["result"];
    assert_eq!(result["isError"], true, "{describe}");
    let text = result["content"][0]["text"].as_str().unwrap();
    let op = report["op"].as_str().unwrap();
    assert!(
        text.starts_with(&format!("describe {op}: the input schema is larger than")),
        "{text}"
    );
    assert!(describe.to_string().len() < 4096);
    // And the door answers the next request.
    assert_eq!(report["list_status"], 200);
    assert_eq!(report["tools"], 2);
}
