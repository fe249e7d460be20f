//! The base interfaces of the MCP schema (`BaseMetadata`, `Icons`,
//! `Annotated`, `RequestParams`, `NotificationParams`, `Result`,
//! `CacheableResult`, `PaginatedResult`) as groups of fields for
//! [`crate::decode::wire_struct!`], and `MetaObject`, the `_meta` member
//! of any other object. Every `_meta` of the wire types comes from here.
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
/// fields back to it (through `@with`), followed by that rest. A base's
/// fields may themselves hold a `use Base;` line.
macro_rules! wire_base {
    (BaseMetadata $($state:tt)*) => {
        $crate::types::bases::wire_base!(@with [
            /// Programmatic name; also shown where `title` is absent.
            pub name: String as "name",
            /// Display name.
            pub title: Option<String> as "title",
        ] $($state)*);
    };
    (Icons $($state:tt)*) => {
        $crate::types::bases::wire_base!(@with [
            /// Icons for display.
            pub icons: Option<Vec<$crate::types::Icon>> as "icons",
        ] $($state)*);
    };
    (Annotated $($state:tt)*) => {
        $crate::types::bases::wire_base!(@with [
            /// Display hints.
            pub annotations: Option<$crate::types::Annotations> as "annotations",
        ] $($state)*);
    };
    // Not a base in the schema but the type of `_meta` on objects other than
    // params and results (2026-07-28 `MetaObject`).
    (MetaObject $($state:tt)*) => {
        $crate::types::bases::wire_base!(@meta "Metadata." $($state)*);
    };
    (RequestParams $($state:tt)*) => {
        $crate::types::bases::wire_base!(
            @meta "Request metadata: `progressToken`, `io.modelcontextprotocol/*`." $($state)*);
    };
    (NotificationParams $($state:tt)*) => {
        $crate::types::bases::wire_base!(@meta "Notification metadata." $($state)*);
    };
    (Result $head:tt $($state:tt)*) => {
        $crate::types::bases::wire_base!(@result_members $head {});
        $crate::types::bases::wire_base!(@result [] $head $($state)*);
    };
    (CacheableResult $head:tt $($state:tt)*) => {
        $crate::types::bases::wire_base!(@result_members $head {
            fn allow_caching(&mut self, ttl_ms: u64, scope: $crate::types::CacheScope) {
                self.ttl_ms.get_or_insert(ttl_ms);
                self.cache_scope.get_or_insert(scope);
            }
        });
        $crate::types::bases::wire_base!(@result [
            /// How long the result may be cached, in milliseconds (2026-07-28).
            pub ttl_ms: Option<u64> as "ttlMs",
            /// Who may share the cached result (2026-07-28).
            pub cache_scope: Option<$crate::types::CacheScope> as "cacheScope",
        ] $head $($state)*);
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
    (@result [$($before:tt)*] $($state:tt)*) => {
        $crate::types::bases::wire_base!(@with [
            $($before)*
            /// `"complete"`, or another kind such as `"input_required"`
            /// (2026-07-28; absent means complete).
            pub result_type: Option<String> as "resultType",
            use MetaObject;
        ] $($state)*);
    };
    // `ResultMembers` for a struct with `resultType`, and the methods `$more`.
    (@result_members [$(#[$attr:meta])* pub struct $name:ident] { $($more:tt)* }) => {
        impl $crate::types::ResultMembers for $name {
            fn mark_complete(&mut self) {
                self.result_type.get_or_insert_with(|| "complete".to_owned());
            }
            $($more)*
        }
    };
    // A `_meta` member with the doc `$doc`.
    (@meta $doc:literal $($state:tt)*) => {
        $crate::types::bases::wire_base!(@with [
            #[doc = $doc]
            pub meta: Option<$crate::types::Meta> as "_meta",
        ] $($state)*);
    };
    // Hands the fields `$base_fields` back to `wire_struct!`, before `$rest`.
    (@with [$($base_fields:tt)*] $head:tt $fields:tt $decode:tt $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head $fields $decode $($base_fields)* $($rest)*);
    };
}

pub(crate) use wire_base;
