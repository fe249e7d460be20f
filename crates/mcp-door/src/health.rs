//! Liveness and readiness: `GET /healthz` answers while the process
//! serves; `GET /readyz` answers 200 only when every configured document
//! is loaded and every upstream answers its probe, else 503, with the
//! reasons in the body either way.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};

use crate::door::Door;

/// What `GET /readyz` checks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadinessConfig {
    /// The path probed on each upstream with a `GET` and no credential
    /// (default `/`); a document's own probe path
    /// ([`crate::SourceOptions::probe`]) wins for its upstream. An upstream
    /// answers when it returns any HTTP status below 500.
    pub probe_path: String,
    /// How long one probe may take (default 2 s).
    pub probe_timeout: Duration,
    /// How long a readiness answer is reused (default 1 s), so frequent
    /// `GET /readyz` requests cost the upstreams at most one probe each
    /// per interval.
    pub reuse_for: Duration,
}

impl Default for ReadinessConfig {
    fn default() -> Self {
        Self {
            probe_path: "/".into(),
            probe_timeout: Duration::from_secs(2),
            reuse_for: Duration::from_secs(1),
        }
    }
}

/// The answer to `GET /readyz`.
#[derive(Debug, Clone, PartialEq)]
pub struct Readiness {
    /// Every document loaded and every upstream answering.
    pub ready: bool,
    /// `{ready, documents: [{source, loaded, error?, stale?}], upstreams:
    /// [{url, status} | {url, error}]}`.
    pub body: Value,
}

impl Door {
    /// Checks readiness now: the documents as loaded, and one probe per
    /// distinct upstream probe URL, all at once, each within
    /// [`ReadinessConfig::probe_timeout`].
    pub async fn readiness(&self) -> Readiness {
        let config = &self.config().readiness;
        let mut documents = Vec::new();
        let mut probes: BTreeSet<String> = BTreeSet::new();
        let mut ready = true;
        for source in self.sources() {
            let mut entry = json!({"source": source.label(), "loaded": source.is_loaded()});
            if let Some(error) = source.load_error() {
                entry["error"] = Value::String(error.to_owned());
                ready = false;
            }
            if let Some(stale) = source.stale_reason() {
                entry["stale"] = Value::String(stale.to_owned());
            }
            documents.push(entry);
            if let Some(upstream) = source.upstream() {
                let path = source
                    .options()
                    .probe
                    .as_deref()
                    .unwrap_or(&config.probe_path);
                probes.insert(format!("{upstream}{path}"));
            }
        }
        let timeout = config.probe_timeout;
        let mut set = tokio::task::JoinSet::new();
        for (i, url) in probes.into_iter().enumerate() {
            let client = self.http_client().clone();
            set.spawn(async move { (i, probe(&client, url, timeout).await) });
        }
        let mut answers = set.join_all().await;
        answers.sort_by_key(|(i, _)| *i);
        let answers = answers.into_iter().map(|(_, answer)| answer);
        let mut upstreams = Vec::new();
        for (ok, entry) in answers {
            ready &= ok;
            upstreams.push(entry);
        }
        Readiness {
            ready,
            body: json!({"ready": ready, "documents": documents, "upstreams": upstreams}),
        }
    }
}

/// One probe: `(answered, {url, status} | {url, error})`.
async fn probe(client: &reqwest::Client, url: String, timeout: Duration) -> (bool, Value) {
    match client.get(&url).timeout(timeout).send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            (status < 500, json!({"url": url, "status": status}))
        }
        Err(e) => {
            let error = if e.is_timeout() {
                format!("no answer within {} ms", timeout.as_millis())
            } else if e.is_connect() {
                "cannot connect".to_owned()
            } else {
                e.to_string()
            };
            (false, json!({"url": url, "error": error}))
        }
    }
}
