//! Component registries in the shadcn registry format: where they are,
//! what they hold, and a brief in-memory cache of their answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Method;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::net::{self, Http, Outgoing};

/// How long a registry answer is reused: 5 minutes.
pub const CACHE_TTL: Duration = Duration::from_secs(300);
/// Answers kept in the cache at most.
const CACHE_ENTRIES: usize = 128;

/// One component registry: where its index and its items are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    /// Its name (`hanzo`, `shadcn`), used by the `registry` field and by
    /// `@name/item` dependencies.
    pub name: String,
    /// The URL of its index: a `registry.json` with `items`, or an array of
    /// items.
    pub index_url: String,
    /// The URL of one item, with `{name}` where the item's name goes.
    pub item_url: String,
}

impl Registry {
    /// A registry laid out as the shadcn CLI builds one: `<base>/registry.json`
    /// and `<base>/<name>.json`. A `base` holding `{name}` is the item URL
    /// itself, and the index is `registry.json` in the same folder.
    pub fn from_base(name: &str, base: &str) -> Registry {
        let base = base.trim();
        if base.contains("{name}") {
            let folder = base.rsplit_once('/').map_or(base, |(folder, _)| folder);
            return Registry {
                name: name.to_owned(),
                index_url: format!("{folder}/registry.json"),
                item_url: base.to_owned(),
            };
        }
        let base = base.trim_end_matches('/');
        Registry {
            name: name.to_owned(),
            index_url: format!("{base}/registry.json"),
            item_url: format!("{base}/{{name}}.json"),
        }
    }

    /// Hanzo's registry, the one Hanzo's TypeScript server uses:
    /// `https://hanzo.ai/registry`.
    pub fn hanzo() -> Registry {
        Registry::from_base("hanzo", "https://hanzo.ai/registry")
    }

    /// shadcn's public registry (style `new-york-v4`).
    pub fn shadcn() -> Registry {
        Registry {
            name: "shadcn".to_owned(),
            index_url: "https://ui.shadcn.com/r/index.json".to_owned(),
            item_url: "https://ui.shadcn.com/r/styles/new-york-v4/{name}.json".to_owned(),
        }
    }

    /// Parses `name=URL` pairs separated by commas or whitespace (the
    /// `HANZO_MCP_UI_REGISTRIES` syntax); each URL as in
    /// [`Registry::from_base`]. Errors name the bad entry.
    pub fn parse_list(text: &str) -> Result<Vec<Registry>, String> {
        let mut out = Vec::new();
        for entry in text.split([',', ' ', '\n', '\t']).filter(|e| !e.is_empty()) {
            let (name, url) = entry
                .split_once('=')
                .ok_or_else(|| format!("registry '{entry}': expected name=URL"))?;
            if !valid_name(name) {
                return Err(format!(
                    "registry '{entry}': '{name}' is not a registry name"
                ));
            }
            net::parse_url(&url.replace("{name}", "x"))
                .map_err(|e| format!("registry '{entry}': {e}"))?;
            out.push(Registry::from_base(name, url));
        }
        if out.is_empty() {
            return Err("no registry given".to_owned());
        }
        Ok(out)
    }

    /// The URL of item `name` (a name already checked by [`valid_name`]).
    pub(crate) fn item(&self, name: &str) -> String {
        self.item_url.replace("{name}", name)
    }
}

/// True for a registry or item name: ASCII letters, digits, `.`, `_` and
/// `-`, starting with a letter or digit, at most 128 characters. Nothing a
/// shell or a path could read as syntax.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !name.contains("..")
}

/// A registry index: `{name, homepage, items}` or a bare array of items.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Index {
    Registry {
        #[serde(default)]
        items: Vec<Item>,
    },
    Items(Vec<Item>),
}

impl Index {
    pub(crate) fn items(self) -> Vec<Item> {
        match self {
            Index::Registry { items } | Index::Items(items) => items,
        }
    }
}

/// A registry item (shadcn `registry-item.json`); unknown fields are kept
/// in `extra` and ignored.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub(crate) struct Item {
    pub(crate) name: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub(crate) kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) dependencies: Vec<String>,
    #[serde(rename = "devDependencies", default)]
    pub(crate) dev_dependencies: Vec<String>,
    #[serde(rename = "registryDependencies", default)]
    pub(crate) registry_dependencies: Vec<String>,
    #[serde(default)]
    pub(crate) files: Vec<FileEntry>,
    #[serde(rename = "cssVars", default, skip_serializing_if = "Option::is_none")]
    pub(crate) css_vars: Option<Value>,
    #[serde(flatten)]
    pub(crate) extra: serde_json::Map<String, Value>,
}

/// One file of an item: shadcn's `{path, content, type, target}`,
/// Hanzo's older `{name, content}`, or a bare path (older indexes).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub(crate) enum FileEntry {
    Path(String),
    File(ItemFile),
}

/// A file of an item (see [`FileEntry`]).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub(crate) struct ItemFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) content: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub(crate) kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) target: Option<String>,
}

impl FileEntry {
    /// The file as `{path, content, type, target}`: Hanzo's `name` read as
    /// the path, a bare path without content.
    pub(crate) fn file(&self) -> ItemFile {
        match self {
            FileEntry::Path(path) => ItemFile {
                path: Some(path.clone()),
                ..ItemFile::default()
            },
            FileEntry::File(file) => {
                let mut file = file.clone();
                if file.path.is_none() {
                    file.path = file.name.clone();
                }
                file
            }
        }
    }
}

/// Reads registries through the tools' guarded client, caching answers
/// for [`CACHE_TTL`]. Cheap to clone; clones share the cache.
#[derive(Debug, Clone)]
pub(crate) struct RegistryClient {
    http: Http,
    max_bytes: usize,
    cache: Arc<Mutex<Cache>>,
}

/// Registry answers by URL, with when they arrived.
type Cache = HashMap<String, (Instant, Arc<Value>)>;

impl RegistryClient {
    pub(crate) fn new(http: Http, max_bytes: usize) -> RegistryClient {
        RegistryClient {
            http,
            max_bytes,
            cache: Arc::default(),
        }
    }

    /// The JSON at `url` (cached).
    pub(crate) async fn json(&self, url: &str) -> Result<Arc<Value>, String> {
        if let Ok(cache) = self.cache.lock()
            && let Some((at, value)) = cache.get(url)
            && at.elapsed() < CACHE_TTL
        {
            return Ok(value.clone());
        }
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        let outgoing = Outgoing {
            method: Method::GET,
            url: net::parse_url(url)?,
            headers,
            body: None,
        };
        let mut arrived = self.http.send(outgoing).await?;
        let status = arrived.response.status();
        if !status.is_success() {
            return Err(format!("HTTP {status} from {}", arrived.url));
        }
        let body = net::read_body(&mut arrived.response, self.max_bytes).await?;
        if !body.complete {
            return Err(format!(
                "{} answered more than {} bytes; refused",
                arrived.url, self.max_bytes
            ));
        }
        let value: Value = serde_json::from_slice(&body.bytes)
            .map_err(|e| format!("{} did not answer JSON: {e}", arrived.url))?;
        let value = Arc::new(value);
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHE_ENTRIES {
                cache.retain(|_, (at, _)| at.elapsed() < CACHE_TTL);
                if cache.len() >= CACHE_ENTRIES {
                    cache.clear();
                }
            }
            cache.insert(url.to_owned(), (Instant::now(), value.clone()));
        }
        Ok(value)
    }

    /// The items of `registry`'s index.
    pub(crate) async fn index(&self, registry: &Registry) -> Result<Vec<Item>, String> {
        let value = self.json(&registry.index_url).await?;
        Index::deserialize(&*value).map(Index::items).map_err(|e| {
            format!(
                "registry '{}': {} is not a registry index ({e})",
                registry.name, registry.index_url
            )
        })
    }

    /// The item at `url`, and its JSON as the registry sent it.
    pub(crate) async fn item(&self, url: &str) -> Result<(Item, Arc<Value>), String> {
        let value = self.json(url).await?;
        let item = Item::deserialize(&*value)
            .map_err(|e| format!("{url} is not a registry item ({e})"))?;
        Ok((item, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_lists() {
        for good in ["button", "data-table", "a1.b_c"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "",
            "button; touch owned",
            "../x",
            "-rf",
            "a/b",
            "a b",
            "$(x)",
            "a..b",
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
        let list =
            Registry::parse_list("acme=https://acme.test/r/, t=http://x.test/{name}.json").unwrap();
        assert_eq!(list[0].index_url, "https://acme.test/r/registry.json");
        assert_eq!(list[0].item("button"), "https://acme.test/r/button.json");
        assert_eq!(list[1].index_url, "http://x.test/registry.json");
        assert_eq!(list[1].item("card"), "http://x.test/card.json");
        assert!(Registry::parse_list("acme").is_err());
        assert!(Registry::parse_list("a;b=https://x.test").is_err());
        assert!(Registry::parse_list("a=file:///etc").is_err());
    }

    #[test]
    fn items_of_both_shapes() {
        let item: Item = serde_json::from_str(
            r#"{"name":"old","files":[{"name":"old.tsx","content":"x"}],"unknown":1}"#,
        )
        .unwrap();
        let file = item.files[0].file();
        assert_eq!(file.path.as_deref(), Some("old.tsx"));
        assert_eq!(file.content.as_deref(), Some("x"));
        let index: Index = serde_json::from_str(r#"[{"name":"a","files":["ui/a.tsx"]}]"#).unwrap();
        assert_eq!(
            index.items()[0].files[0].file().path.as_deref(),
            Some("ui/a.tsx")
        );
    }
}
