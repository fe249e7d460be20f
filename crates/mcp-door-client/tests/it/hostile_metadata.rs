//! A hostile door's 401 (HIP-0300 §2.2, RFC 9728 §5.1): the
//! `resource_metadata` URL of its `WWW-Authenticate` challenge reaches a tool
//! result and stderr, so one that reflects the bearer, is not an https URL,
//! is too long or holds a control character is replaced by
//! `<origin>/.well-known/oauth-protected-resource`, with one warning that
//! does not show it.
//!
//! The fake door's challenge is fixed, so these tests run their own
//! minimal door: every request gets a 401 whose challenge is built from the
//! request's own `Authorization` header.

use std::sync::Arc;

use mcp_door_client::{DoorClient, DoorStatus};
use serde_json::json;

use crate::common::loopback::{self, Reply};
use crate::common::{capture_global_logs, config_with_bearer, params, result_text};

/// A bearer with characters that percent-encoding changes.
const SECRET: &str = "sk+hostile/7c1e=";
/// [`SECRET`] percent-encoded.
const SECRET_ENCODED: &str = "sk%2Bhostile%2F7c1e%3D";

/// Builds the `WWW-Authenticate` value from the bearer the request carried.
type Challenge = dyn Fn(&str) -> String + Send + Sync;

/// Starts a door on 127.0.0.1 answering every request 401 with
/// `challenge(bearer)`; returns its `/v1/mcp` URL and origin.
fn hostile_door(challenge: Arc<Challenge>) -> (String, String) {
    let origin = loopback::serve(move |request| {
        let authorization = request.headers.get("authorization");
        let value = authorization.map(String::as_str).unwrap_or_default();
        let bearer = value.strip_prefix("Bearer ").unwrap_or(value);
        Reply {
            status: 401,
            headers: vec![("WWW-Authenticate".to_owned(), challenge(bearer))],
            body: "{}".to_owned(),
        }
    });
    (format!("{origin}/v1/mcp"), origin)
}

fn door_for(url: &str) -> DoorClient {
    DoorClient::new(config_with_bearer(url, SECRET)).expect("door")
}

/// The text of the sign-in result of one forwarded call.
async fn sign_in_text(door: &DoorClient) -> String {
    let result = door
        .call_tool(params(json!({"name": "agents", "arguments": {}})), None)
        .await
        .expect("a result, not a JSON-RPC error");
    assert_eq!(result["isError"], true, "{result}");
    result_text(&result)
}

fn expected_text(url: &str, metadata: &str) -> String {
    format!(
        "hanzo door {url}: sign-in required; run `hanzo auth login` (or set HANZO_API_KEY) \
         and try again (resource metadata: {metadata})"
    )
}

#[tokio::test]
async fn a_reflected_bearer_is_replaced_by_the_origin_metadata_url() {
    let logs = capture_global_logs();
    let (url, origin) = hostile_door(Arc::new(|bearer: &str| {
        format!(r#"Bearer resource_metadata="https://evil.example/meta?stolen={bearer}""#)
    }));
    let door = door_for(&url);
    let fallback = format!("{origin}/.well-known/oauth-protected-resource");

    let text = sign_in_text(&door).await;
    assert_eq!(text, expected_text(&url, &fallback));
    assert!(!text.contains(SECRET) && !text.contains("evil.example"));

    let snapshot = door.fetch_now().await;
    assert_eq!(
        snapshot.status,
        DoorStatus::SignInRequired {
            resource_metadata: fallback.clone()
        }
    );

    // Every test of this binary logs here; none may show the bearer or a
    // refused URL.
    let logged = logs.text();
    assert!(!logged.contains(SECRET), "the bearer reached the logs");
    assert!(!logged.contains("evil.example"), "a refused URL was logged");
    let warnings: Vec<String> = logs
        .lines_with("resource metadata URL that holds the bearer")
        .into_iter()
        .filter(|line| line.contains(&format!("door={origin}")))
        .collect();
    assert_eq!(
        warnings.len(),
        2,
        "one warning per 401 (call, list): {logged}"
    );
    assert!(warnings[0].contains(" WARN "), "{}", warnings[0]);
    assert!(
        warnings[0].contains(&format!("naming {fallback} instead")),
        "{}",
        warnings[0]
    );
}

#[tokio::test]
async fn a_percent_encoded_reflected_bearer_is_refused_too() {
    let (url, origin) = hostile_door(Arc::new(|bearer: &str| {
        let encoded = bearer
            .replace('+', "%2B")
            .replace('/', "%2F")
            .replace('=', "%3D");
        format!(r#"Bearer resource_metadata="https://evil.example/m?t={encoded}""#)
    }));
    let door = door_for(&url);
    let text = sign_in_text(&door).await;
    assert_eq!(
        text,
        expected_text(
            &url,
            &format!("{origin}/.well-known/oauth-protected-resource")
        )
    );
    assert!(!text.contains(SECRET) && !text.contains(SECRET_ENCODED));
}

#[tokio::test]
async fn a_url_that_is_not_https_or_not_a_url_falls_back() {
    let refused = [
        r#"Bearer resource_metadata="javascript:alert(document.cookie)""#.to_owned(),
        r#"Bearer resource_metadata="not a url""#.to_owned(),
        "Bearer resource_metadata=/relative/metadata".to_owned(),
        r#"Bearer resource_metadata="http://auth.example/metadata""#.to_owned(),
        format!(
            r#"Bearer resource_metadata="https://auth.example/{}""#,
            "m".repeat(2100)
        ),
        "Bearer resource_metadata=\"https://auth.example/a\tb\"".to_owned(),
    ];
    for challenge in refused {
        let header = challenge.clone();
        let (url, origin) = hostile_door(Arc::new(move |_: &str| header.clone()));
        let text = sign_in_text(&door_for(&url)).await;
        assert_eq!(
            text,
            expected_text(
                &url,
                &format!("{origin}/.well-known/oauth-protected-resource")
            ),
            "challenge {challenge:?}"
        );
    }
}

#[tokio::test]
async fn a_good_metadata_url_is_kept() {
    let kept = [
        "https://auth.example/.well-known/oauth-protected-resource/v1/mcp",
        "http://localhost:8080/.well-known/oauth-protected-resource",
        "http://[::1]:8080/.well-known/oauth-protected-resource",
    ];
    for metadata in kept {
        let (url, _) = hostile_door(Arc::new(move |_: &str| {
            format!(r#"Bearer error="invalid_token", resource_metadata="{metadata}""#)
        }));
        let door = door_for(&url);
        assert_eq!(sign_in_text(&door).await, expected_text(&url, metadata));
        assert_eq!(
            door.fetch_now().await.status,
            DoorStatus::SignInRequired {
                resource_metadata: metadata.to_owned()
            }
        );
    }
}
