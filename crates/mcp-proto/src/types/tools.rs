use serde_json::Value;

use crate::decode::{JsonObject, wire_struct};
use crate::types::{ContentBlock, ObjectSchema};

wire_struct! {
    /// A tool the server offers (MCP 2025-11-25 server/tools `Tool`; `title`
    /// and `outputSchema` since 2025-06-18, `icons` and `execution` since
    /// 2025-11-25). See [`crate::validate_tool_name`] for the rule on `name`.
    #[derive(Default)]
    pub struct Tool {
        use BaseMetadata;
        /// What the tool does, for the model.
        pub description: Option<String> as "description",
        /// JSON Schema of the arguments; an object schema (`"type": "object"`),
        /// possibly kept as compiled-in text (see [`ObjectSchema`]).
        pub input_schema: ObjectSchema as "inputSchema",
        /// JSON Schema of `structuredContent` in the result.
        pub output_schema: Option<JsonObject> as "outputSchema",
        /// Behaviour hints.
        pub annotations: Option<ToolAnnotations> as "annotations",
        use Icons;
        /// How the tool runs (task support, 2025-11-25).
        pub execution: Option<ToolExecution> as "execution",
        use MetaObject;
    }

    /// Hints about a tool's behaviour; hints only, never to be trusted from an
    /// untrusted server (MCP 2025-03-26 `ToolAnnotations`).
    #[derive(Default)]
    pub struct ToolAnnotations {
        /// Display name.
        pub title: Option<String> as "title",
        /// The tool does not change its environment (default false).
        pub read_only_hint: Option<bool> as "readOnlyHint",
        /// The tool may destroy data (default true; meaningful when not read-only).
        pub destructive_hint: Option<bool> as "destructiveHint",
        /// Repeating a call has no further effect (default false).
        pub idempotent_hint: Option<bool> as "idempotentHint",
        /// The tool talks to an open world, such as the web (default true).
        pub open_world_hint: Option<bool> as "openWorldHint",
    }

    /// How a tool runs (MCP 2025-11-25 `ToolExecution`).
    #[derive(Default)]
    pub struct ToolExecution {
        /// `"forbidden"`, `"optional"` or `"required"`: whether the tool may be
        /// run as a task.
        pub task_support: Option<String> as "taskSupport",
    }

    /// The result of `tools/list` (MCP 2025-11-25 server/tools; `ttlMs`,
    /// `cacheScope` and `resultType` since 2026-07-28, where they are required).
    #[derive(Default)]
    pub struct ListToolsResult {
        /// The tools of this page.
        pub tools: Vec<Tool> as "tools",
        use PaginatedResult;
    }

    /// The params of `tools/call` (MCP 2025-11-25 server/tools; in 2026-07-28
    /// `_meta` carries the keys of [`crate::meta`]). Members such as
    /// 2026-07-28's `inputResponses` and `requestState` or 2025-11-25's `task`
    /// stay in `extra`.
    #[derive(Default)]
    pub struct CallToolRequestParams {
        /// The tool to call.
        pub name: String as "name",
        /// The arguments, an object matching the tool's `inputSchema`.
        pub arguments: Option<JsonObject> as "arguments",
        use RequestParams;
    }

    /// The result of `tools/call` (MCP 2025-11-25 server/tools;
    /// `structuredContent` since 2025-06-18, `resultType` since 2026-07-28).
    ///
    /// A tool's own failure is a result with `isError: true`, not a JSON-RPC
    /// error, so the model can see it.
    ///
    /// ```
    /// use mcp_proto::CallToolResult;
    ///
    /// let r = CallToolResult::error("file not found: a.txt");
    /// assert_eq!(
    ///     serde_json::to_string(&r).unwrap(),
    ///     r#"{"content":[{"type":"text","text":"file not found: a.txt"}],"isError":true}"#
    /// );
    /// ```
    #[derive(Default)]
    pub struct CallToolResult {
        /// Unstructured output.
        pub content: Vec<ContentBlock> as "content",
        /// Structured output matching the tool's `outputSchema`.
        pub structured_content: Option<Value> as "structuredContent",
        /// Whether the tool call failed (absent means false).
        pub is_error: Option<bool> as "isError",
        use Result;
    }
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            ..Self::default()
        }
    }

    /// A failed result with one text block and `isError: true`.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            is_error: Some(true),
            ..Self::default()
        }
    }
}

/// The first of `keys` that the `arguments` object of the `tools/call`
/// params text `params` holds more than once, if any, each key read as a
/// reader that ignores case would read it ([`read_as`]: `METHOD` is
/// `method` a second time) and a key spelled with escapes as the key it
/// spells. A tool that takes a discriminator (`op`, `action`) is checked,
/// gated and routed by one value of it; JSON readers keep the first or the
/// last of a repeated key, and some (Go's `encoding/json`, readers set to
/// ignore case) take `Op` for `op`, so a call naming one twice could be
/// checked by one value and run by the other, and is refused wherever it
/// is checked. `Ok(None)` when `arguments` is absent or `null`.
///
/// # Errors
/// The params text, or its `arguments`, is not JSON (an escaped lone
/// surrogate included: replace those first, [`crate::recover`]), or
/// `arguments` is neither an object nor `null`.
pub fn repeated_argument<'k>(
    params: &str,
    keys: &[&'k str],
) -> Result<Option<&'k str>, serde_json::Error> {
    /// The one member of the params looked at.
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<&'a serde_json::value::RawValue>,
    }
    let head: Params<'_> = serde_json::from_str(params)?;
    let Some(arguments) = head.arguments else {
        return Ok(None);
    };
    let repeated = repeated_key(arguments.get(), keys)?;
    Ok(repeated.and_then(|key| keys.iter().copied().find(|k| *k == key)))
}

/// The first key the JSON object text `object` holds more than once, of
/// `keys`, or of all its keys when `keys` is empty (a key spelled with
/// escapes counts as the key it spells); `Ok(None)` when there is none or
/// `object` is `null`. Only the object's own keys are compared, not those
/// of objects inside it. A key is one of `keys` as a reader that ignores
/// case reads it ([`read_as`]), so `{"op": "a", "Op": "b"}` holds `op`
/// twice; with `keys` empty, keys are compared as written.
///
/// # Errors
/// `object` is not JSON (an escaped lone surrogate included: replace
/// those first, [`crate::recover`]), or neither an object nor `null`.
pub fn repeated_key(object: &str, keys: &[&str]) -> Result<Option<String>, serde_json::Error> {
    /// The first of its keys (or of any, when empty) an object holds twice.
    struct Keys<'s, 'k>(&'s [&'k str]);
    impl<'de> serde::de::Visitor<'de> for Keys<'_, '_> {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut seen = std::collections::HashSet::new();
            let mut twice = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                if twice.is_some() {
                    continue;
                }
                let key = if self.0.is_empty() {
                    key
                } else {
                    match read_as(&key, self.0) {
                        Some(target) => std::borrow::Cow::Owned(target.to_owned()),
                        None => continue,
                    }
                };
                if seen.contains(&key) {
                    twice = Some(key.into_owned());
                } else {
                    seen.insert(key);
                }
            }
            Ok(twice)
        }
    }
    let mut de = serde_json::Deserializer::from_str(object);
    serde::Deserializer::deserialize_any(&mut de, Keys(keys))
}

/// The one of `targets` (names such as `name`, `op`) that a JSON reader
/// ignoring case reads `key` as, if any: `key` equal to it but for ASCII
/// case, or with `ſ` (U+017F) for `s` and `K` (U+212A,
/// Kelvin) for `k`, the two non-ASCII letters Unicode's simple case
/// folding takes to ASCII. That is how Go's `encoding/json` matches
/// object keys to struct fields (and how readers told to ignore case
/// match them), so a server written that way runs `{"Name": "b"}` as
/// `name` `b`; a gate that reads keys exactly must see both as one key.
///
/// ```
/// use mcp_proto::read_as;
///
/// assert_eq!(read_as("Name", &["name", "arguments"]), Some("name"));
/// assert_eq!(read_as("argument\u{17f}", &["name", "arguments"]), Some("arguments"));
/// assert_eq!(read_as("names", &["name"]), None);
/// ```
pub fn read_as<'t>(key: &str, targets: &[&'t str]) -> Option<&'t str> {
    let folded = |c: char| match c {
        '\u{17f}' => 's',
        '\u{212a}' => 'k',
        c => c.to_ascii_lowercase(),
    };
    targets.iter().copied().find(|target| {
        let mut chars = key.chars().map(folded);
        target.chars().map(folded).all(|t| chars.next() == Some(t)) && chars.next().is_none()
    })
}
