//! The bearer canary (HIP-0300 Security Considerations): with a unique bearer, run every
//! fake-door behaviour; the bearer never appears in a result, a snapshot, a
//! log line or a `Debug` string, and never reaches another origin.

use std::time::Duration;

use mcp_door_client::{DoorClient, merge};
use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::json;

use crate::common::{CANARY, capture_logs, config_for, params};

#[tokio::test]
async fn the_bearer_never_leaks() {
    let (logs, _guard) = capture_logs();
    let elsewhere = FakeDoor::start(Behaviour::Normal).expect("other origin");
    let behaviours = [
        Behaviour::Normal,
        Behaviour::Unauthorized,
        Behaviour::UnauthorizedBare,
        Behaviour::Sse,
        Behaviour::Html502,
        Behaviour::Garbage,
        Behaviour::Hang,
        Behaviour::Slow(Duration::from_millis(20)),
        Behaviour::ThreePages,
        Behaviour::CursorLoop,
        Behaviour::InvalidNames,
        Behaviour::Huge,
        Behaviour::Changing,
        Behaviour::RedirectTo(elsewhere.url()),
        Behaviour::RedirectLoop,
    ];
    let mut seen = String::new();
    for behaviour in behaviours {
        let fake = FakeDoor::start(behaviour.clone()).expect("fake door");
        let mut config = config_for(&fake);
        if behaviour == Behaviour::Hang {
            config.timeouts.list = Duration::from_millis(300);
            config.timeouts.call = Duration::from_millis(300);
        }
        seen.push_str(&format!("{config:?}\n"));
        let door = DoorClient::new(config).expect("door");
        seen.push_str(&format!("{door:?}\n"));
        let snapshot = door.fetch_now().await;
        seen.push_str(&format!("{snapshot:?}\n"));
        let merged = merge(&[], snapshot.list.as_deref());
        seen.push_str(&serde_json::to_string(&merged).expect("json"));
        let params = params(json!({
            "name": "agents",
            "arguments": {"op": "list_agents"},
            "_meta": {"progressToken": 1}
        }));
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        match door.call_tool(params, Some(sender)).await {
            Ok(result) => seen.push_str(&result.to_string()),
            Err(error) => seen.push_str(&format!("{error:?}")),
        }
        while let Ok(progress) = receiver.try_recv() {
            seen.push_str(&progress.to_string());
        }
        // The door we configured did receive it (so the test can fail).
        let requests = fake.requests();
        assert!(
            requests.iter().any(|r| r.to_text().contains(CANARY)),
            "{behaviour:?}: the configured door never saw the bearer"
        );
    }
    assert!(!seen.contains(CANARY), "the bearer leaked into a result");
    let logged = logs.text();
    assert!(!logged.is_empty(), "no log captured");
    assert!(!logged.contains(CANARY), "the bearer leaked into the logs");
    let other_origin = elsewhere.requests();
    assert_eq!(other_origin.len(), 2, "list and call were redirected there");
    for request in other_origin {
        assert!(
            !request.to_text().contains(CANARY),
            "the bearer was sent to another origin"
        );
    }
}
