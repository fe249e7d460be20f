//! Argument structs with named groups of fields ([`arguments!`],
//! [`field_groups!`]): fields several actions take with the same meaning
//! are written once and spliced into each struct, where they stay direct
//! fields (so `deny_unknown_fields` lists them, and an error names them as
//! it names any other field).

/// Declares an argument struct, deriving `Debug`, `Deserialize` (with
/// `deny_unknown_fields`) and `JsonSchema`. Among its fields, `..group`
/// splices in the fields of a group declared with [`field_groups!`], at
/// that place (the order of the fields is the order `help` and the
/// schema show):
///
/// ```text
/// field_groups! {
///     /// A page of entries.
///     entry_page {
///         /// Entries to skip (default 0).
///         pub offset: Option<u64>,
///     }
/// }
///
/// arguments! {
///     /// Arguments of `fs list`.
///     pub(crate) struct ListArgs {
///         /// The directory.
///         pub path: Option<String>,
///         ..entry_page,
///     }
/// }
/// ```
///
/// Further derives and attributes go before the struct as usual.
macro_rules! arguments {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident { $($body:tt)* }
    ) => {
        crate::action::arguments!(@fields [$(#[$meta])* $vis struct $Name] [] $($body)*);
    };
    // A group: its macro splices its fields in and goes on with the rest.
    (@fields $head:tt [$($done:tt)*] ..$group:ident $(, $($rest:tt)*)?) => {
        $group!(@splice $head [$($done)*] $($($rest)*)?);
    };
    // A field, as written.
    (
        @fields $head:tt [$($done:tt)*]
        $(#[$field_meta:meta])* $field_vis:vis $field:ident: $Type:ty $(, $($rest:tt)*)?
    ) => {
        crate::action::arguments!(
            @fields $head [$($done)* $(#[$field_meta])* $field_vis $field: $Type,] $($($rest)*)?
        );
    };
    (@fields [$(#[$meta:meta])* $vis:vis struct $Name:ident] [$($done:tt)*]) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        $vis struct $Name {
            $($done)*
        }
    };
}
pub(crate) use arguments;

/// Declares named groups of fields that [`arguments!`] splices into
/// argument structs with `..name`: each group's fields as a struct would
/// declare them (doc comments, serde attributes, visibility). A group is a
/// macro, in scope like one (`use` it from another module).
// Unused in a build without the tools that declare field groups.
#[allow(unused_macros)]
macro_rules! field_groups {
    ($(
        $(#[$doc:meta])*
        $name:ident {
            $($(#[$field_meta:meta])* $field_vis:vis $field:ident: $Type:ty),+ $(,)?
        }
    )+) => {
        $(
            crate::action::field_groups!(
                @with ($) $(#[$doc])* $name { $($(#[$field_meta])* $field_vis $field: $Type,)+ }
            );
        )+
    };
    // `$d` is a `$` for the macro declared here.
    (@with ($d:tt) $(#[$doc:meta])* $name:ident { $($fields:tt)* }) => {
        $(#[$doc])*
        macro_rules! $name {
            (@splice $d head:tt [$d ($d done:tt)*] $d ($d rest:tt)*) => {
                crate::action::arguments!(
                    @fields $d head [$d ($d done)* $($fields)*] $d ($d rest)*
                );
            };
        }
    };
}
pub(crate) use field_groups;
