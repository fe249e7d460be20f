//! Door configurations and call params, shared by the tests and the bench
//! (`benches/door.rs` includes this file by its path).

use std::time::Duration;

use mcp_door_client::{Bearer, BearerSource, DoorClientConfig, Wording};
use serde_json::{Map, Value};

/// A config for `url` that sends `token` as the bearer, with 5 s list and
/// call limits (tests of hanging behaviours set shorter ones) and the
/// words of Hanzo's local servers, as `from_env` gives them.
pub fn config_with_bearer(url: &str, token: &str) -> DoorClientConfig {
    let mut config = DoorClientConfig::new(url);
    config.wording = Wording::hanzo();
    config.bearer = BearerSource::Fixed(Bearer::new(token).expect("valid bearer"));
    config.timeouts.list = Duration::from_secs(5);
    config.timeouts.call = Duration::from_secs(5);
    config
}

/// The `tools/call` params a caller wrote as a `json!` object literal.
pub fn params(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("params must be an object, got {other}"),
    }
}
