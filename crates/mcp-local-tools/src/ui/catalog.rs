//! The `ui` actions that read the registries: `registries`, `list`,
//! `search` and `view`.

use mcp_proto::CallToolResult;
use serde_json::json;

use super::registry::{Item, Registry};
use super::{UiTool, check_name, item_type, registry_name};
use crate::action::arguments;
use crate::util::{ToolResult, page_marker};

arguments! {
    /// Arguments of `ui list`.
    pub(crate) struct ListArgs {
        ..registry_name,
        ..item_type,
        /// Items to skip (default 0).
        pub offset: Option<u64>,
        /// Most items to show (default 100, at most 1000).
        pub limit: Option<u64>,
    }
}

arguments! {
    /// Arguments of `ui search`.
    pub(crate) struct SearchArgs {
        /// Text to look for in names, titles and descriptions.
        pub query: String,
        /// The registry's name (default: every configured registry).
        pub registry: Option<String>,
        ..item_type,
        /// Most items to show (default 100, at most 1000).
        pub limit: Option<u64>,
    }
}

arguments! {
    /// Arguments of `ui view`.
    pub(crate) struct ViewArgs {
        /// An item name (`item` or `@registry/item`; also accepted: component).
        #[serde(alias = "component")]
        pub name: String,
        ..registry_name,
    }
}

/// `registry:ui` for `ui`, the name itself when it has a `:`.
fn full_kind(kind: &str) -> String {
    if kind.contains(':') {
        kind.to_owned()
    } else {
        format!("registry:{kind}")
    }
}

/// `name · type · description` (the parts present).
fn item_line(registry: Option<&str>, item: &Item) -> String {
    let mut line = match registry {
        Some(r) => format!("{r}/{}", item.name),
        None => item.name.clone(),
    };
    if let Some(kind) = &item.kind {
        line.push_str(&format!(" · {kind}"));
    }
    if let Some(text) = item.description.as_ref().or(item.title.as_ref()) {
        line.push_str(&format!(" · {}", text.replace('\n', " ")));
    }
    line
}

impl UiTool {
    pub(super) fn registries(&self) -> CallToolResult {
        let mut text = String::new();
        for (i, r) in self.config.registries.iter().enumerate() {
            text.push_str(&format!(
                "{}{}: index {} · items {}\n",
                r.name,
                if i == 0 { " (default)" } else { "" },
                r.index_url,
                r.item_url
            ));
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({ "registries": self.config.registries }));
        result
    }

    pub(super) async fn list(&self, args: &ListArgs) -> ToolResult {
        let registry = self.registry(args.registry.as_deref())?;
        let kind = args.kind.as_deref().map(full_kind);
        let items: Vec<Item> = self
            .client
            .index(registry)
            .await?
            .into_iter()
            .filter(|i| kind.is_none() || i.kind == kind)
            .collect();
        let offset = args.offset.unwrap_or(0) as usize;
        let limit = args.limit.unwrap_or(100).clamp(1, 1000) as usize;
        let shown: Vec<&Item> = items.iter().skip(offset).take(limit).collect();
        let mut text = format!(
            "{} item{} in {}{}\n",
            items.len(),
            if items.len() == 1 { "" } else { "s" },
            registry.name,
            kind.as_deref()
                .map(|k| format!(" of type {k}"))
                .unwrap_or_default()
        );
        for item in &shown {
            text.push_str(&item_line(None, item));
            text.push('\n');
        }
        let end = offset + shown.len();
        if end < items.len() {
            text.push_str(&page_marker(
                "items",
                offset as u64,
                end as u64,
                Some(items.len() as u64),
            ));
            text.push('\n');
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "registry": registry.name,
            "total": items.len(),
            "items": shown.iter().map(|i| json!({"name": i.name, "type": i.kind, "title": i.title, "description": i.description})).collect::<Vec<_>>(),
        }));
        Ok(result)
    }

    pub(super) async fn search(&self, args: &SearchArgs) -> ToolResult {
        let query = args.query.trim().to_lowercase();
        if query.is_empty() {
            return Err("search: 'query' is empty".to_owned());
        }
        let kind = args.kind.as_deref().map(full_kind);
        let limit = args.limit.unwrap_or(100).clamp(1, 1000) as usize;
        let registries: Vec<&Registry> = match args.registry.as_deref() {
            Some(name) => vec![self.registry(Some(name))?],
            None => self.config.registries.iter().collect(),
        };
        let mut found = Vec::new();
        let mut failed = Vec::new();
        for registry in &registries {
            match self.client.index(registry).await {
                Ok(items) => {
                    for item in items {
                        let hit = [
                            Some(&item.name),
                            item.title.as_ref(),
                            item.description.as_ref(),
                        ]
                        .into_iter()
                        .flatten()
                        .any(|t| t.to_lowercase().contains(&query));
                        if hit && (kind.is_none() || item.kind == kind) {
                            found.push((registry.name.clone(), item));
                        }
                    }
                }
                Err(e) if registries.len() > 1 => failed.push(format!("{}: {e}", registry.name)),
                Err(e) => return Err(e),
            }
        }
        if found.is_empty() && failed.len() == registries.len() {
            return Err(format!("no registry answered: {}", failed.join("; ")));
        }
        let mut text = format!(
            "{} match{} for '{query}'\n",
            found.len(),
            if found.len() == 1 { "" } else { "es" }
        );
        for (registry, item) in found.iter().take(limit) {
            text.push_str(&item_line(Some(registry), item));
            text.push('\n');
        }
        if found.len() > limit {
            text.push_str(&format!(
                "[{limit} of {} shown; narrow the query or raise limit]\n",
                found.len()
            ));
        }
        for failure in &failed {
            text.push_str(&format!("[not searched: {failure}]\n"));
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "matches": found.iter().take(limit).map(|(r, i)| json!({"registry": r, "name": i.name, "type": i.kind, "title": i.title, "description": i.description})).collect::<Vec<_>>(),
            "total": found.len(),
        }));
        Ok(result)
    }

    pub(super) async fn view(&self, args: &ViewArgs) -> ToolResult {
        let name = args.name.as_str();
        check_name(name, "view")?;
        let default = self.registry(args.registry.as_deref())?;
        let (registry, plain) = self.locate(name, default)?;
        let url = registry.item(plain);
        let (item, raw) = self.client.item(&url).await?;
        let mut text = format!(
            "{} from {} ({url})\n",
            item_line(None, &item),
            registry.name
        );
        let pretty = serde_json::to_string_pretty(&*raw).map_err(|e| e.to_string())?;
        // The structured copy is kept only when the text holds it whole
        // (the text itself is cut at the tool's result cap).
        let whole = pretty.len() + text.len() < crate::util::RESULT_CAP;
        text.push_str(&pretty);
        text.push('\n');
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "registry": registry.name,
            "url": url,
            "item": if whole { (*raw).clone() } else { serde_json::Value::Null },
        }));
        Ok(result)
    }
}
