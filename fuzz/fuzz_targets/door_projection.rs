//! Fuzzes the door's projection (mcp-door, HIP-0300 §1.3): arbitrary bytes
//! as an OpenAPI document, JSON or YAML. Never a panic or a hang; what
//! projects obeys the projection's invariants.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run door_projection`.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use mcp_door::{DESCRIBE, Projection, ProjectionConfig};

fuzz_target!(|data: &[u8]| {
    let config = ProjectionConfig::default();
    let Ok(projection) = Projection::from_document(data, Some("http://127.0.0.1:9"), &config) else {
        return;
    };
    let tools = projection.tools();
    assert_eq!(tools[0].name, DESCRIBE);
    assert!(tools.len() <= config.max_tools);
    let mut names = HashSet::new();
    for tool in tools {
        assert!(mcp_proto::validate_tool_name(&tool.name).is_ok(), "{}", tool.name);
        assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()));
    }
    for op in projection.ops() {
        assert!(names.insert(op.name.clone()), "{} twice", op.name);
        assert!(op.name.starts_with(|c: char| c.is_ascii_lowercase()));
        assert!(op.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
        assert!(projection.refused().iter().all(|r| r != &op.name));
        let described = projection.describe(&op.name).expect("an offered op is described");
        assert_eq!(described["inputSchema"]["type"], "object");
    }
});
