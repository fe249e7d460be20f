//! The base interfaces of the MCP schema (`BaseMetadata`, `Icons`,
//! `Annotated`, `RequestParams`, `NotificationParams`, `Result`,
//! `CacheableResult`, `PaginatedResult`) as groups of fields for
//! [`crate::decode::wire_struct!`].
//!
//! A wire struct names a base with a line `use Base;` where the base's
//! members stand among its own on the wire; the base's fields, with their
//! docs, become direct fields of the struct there. `PaginatedResult` is
//! the one base kept whole: a list result (such as `ListToolsResult`) ends
//! with it, in the field `page` of type [`crate::types::PaginatedResult`],
//! flattened. A struct that uses `Result`, `CacheableResult` or
//! `PaginatedResult` also gets its [`ResultMembers`].
//!
//! [`ResultMembers`]: crate::types::ResultMembers

/// Expands the base `$base` in place in a [`crate::decode::wire_struct!`]
/// body: called by that macro with its state (the struct's head, the fields
/// and decode list so far) and the rest of the body, it hands the base's
/// fields back to it, followed by that rest.
macro_rules! wire_base {
    (BaseMetadata $head:tt $fields:tt $decode:tt $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head $fields $decode
            /// Programmatic name; also shown where `title` is absent.
            pub name: String as "name",
            /// Display name.
            pub title: Option<String> as "title",
            $($rest)*);
    };
    (Icons $head:tt $fields:tt $decode:tt $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head $fields $decode
            /// Icons for display.
            pub icons: Option<Vec<$crate::types::Icon>> as "icons",
            $($rest)*);
    };
    (Annotated $head:tt $fields:tt $decode:tt $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head $fields $decode
            /// Display hints.
            pub annotations: Option<$crate::types::Annotations> as "annotations",
            $($rest)*);
    };
    (RequestParams $head:tt $fields:tt $decode:tt $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head $fields $decode
            /// Request metadata: `progressToken`, `io.modelcontextprotocol/*`.
            pub meta: Option<$crate::types::Meta> as "_meta",
            $($rest)*);
    };
    (NotificationParams $head:tt $fields:tt $decode:tt $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head $fields $decode
            /// Notification metadata.
            pub meta: Option<$crate::types::Meta> as "_meta",
            $($rest)*);
    };
    (Result [$(#[$attr:meta])* pub struct $name:ident] $fields:tt $decode:tt $($rest:tt)*) => {
        impl $crate::types::ResultMembers for $name {
            fn mark_complete(&mut self) {
                self.result_type.get_or_insert_with(|| "complete".to_owned());
            }
        }
        $crate::types::bases::wire_base!(@result [$(#[$attr])* pub struct $name] $fields $decode
            [] $($rest)*);
    };
    (CacheableResult [$(#[$attr:meta])* pub struct $name:ident] $fields:tt $decode:tt
        $($rest:tt)*) => {
        impl $crate::types::ResultMembers for $name {
            fn mark_complete(&mut self) {
                self.result_type.get_or_insert_with(|| "complete".to_owned());
            }
            fn allow_caching(&mut self, ttl_ms: u64, scope: $crate::types::CacheScope) {
                self.ttl_ms.get_or_insert(ttl_ms);
                self.cache_scope.get_or_insert(scope);
            }
        }
        $crate::types::bases::wire_base!(@result [$(#[$attr])* pub struct $name] $fields $decode [
            /// How long the result may be cached, in milliseconds (2026-07-28).
            pub ttl_ms: Option<u64> as "ttlMs",
            /// Who may share the cached result (2026-07-28).
            pub cache_scope: Option<$crate::types::CacheScope> as "cacheScope",
        ] $($rest)*);
    };
    // The members of `PaginatedResult` (and so of `CacheableResult`) in one
    // field, flattened: a list result ends with it, after its items.
    (PaginatedResult [$(#[$attr:meta])* pub struct $name:ident] $fields:tt $decode:tt) => {
        impl $crate::types::ResultMembers for $name {
            fn mark_complete(&mut self) {
                self.page.mark_complete();
            }
            fn allow_caching(&mut self, ttl_ms: u64, scope: $crate::types::CacheScope) {
                self.page.allow_caching(ttl_ms, scope);
            }
        }
        $crate::decode::wire_struct!(@field [$(#[$attr])* pub struct $name] $fields $decode
            /// `nextCursor`, the caching members, `resultType`, `_meta` and the
            /// members not known to this crate, beside the items on the wire.
            pub page: $crate::types::PaginatedResult as ..);
    };
    // The members of `Result`, after the fields `$before`.
    (@result $head:tt $fields:tt $decode:tt [$($before:tt)*] $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head $fields $decode
            $($before)*
            /// `"complete"`, or another kind such as `"input_required"`
            /// (2026-07-28; absent means complete).
            pub result_type: Option<String> as "resultType",
            /// Metadata.
            pub meta: Option<$crate::types::Meta> as "_meta",
            $($rest)*);
    };
}

pub(crate) use wire_base;
