//! The per-source semantics over N sources (docs/ARCHITECTURE.md, "Gating"):
//! one to six sources with distinct names, each with its own tools (names
//! overlap between sources), and an allowlist that is `null` or a map naming
//! some of the sources, sometimes servers that are no source, with lists that
//! may be `[]` or name tools nobody has.
//!
//! Each expectation is computed from the generated data by [`model`], not
//! by the crate; the tools and entries come from the parent module's
//! strategies.

use std::collections::{BTreeMap, HashSet};

use mcp_gating::{
    AllowedTools, GatedSurface, Policy, SurfaceRules, resolve_allowed_tools, route_call,
};
use proptest::prelude::*;
use proptest::sample::Index;

use super::{entries, entry_tools, is_subsequence, policy, tools};
use crate::common::{TestTool, config, plain};

/// The server names sources and allowlists draw from: a configuration names
/// some sources, and some servers no source has.
const SERVERS: [&str; 8] = [
    "local", "door", "github", "fs", "web", "db", "ghost", "typo",
];

/// The most sources a case has.
const MAX_SOURCES: usize = 6;

/// One tool source: its name (the key in the configuration) and its tools,
/// in the order it lists them (repeats allowed).
#[derive(Clone, Debug, PartialEq)]
struct Source {
    name: String,
    tools: Vec<String>,
}

/// An allowlist as written: `None` is `null`, else server → entries.
type RawMap = BTreeMap<String, Vec<String>>;

/// One to six sources with distinct names, in a random order.
fn sources() -> impl Strategy<Value = Vec<Source>> {
    prop::sample::subsequence(SERVERS.to_vec(), 1..=MAX_SOURCES)
        .prop_shuffle()
        .prop_flat_map(|names| {
            let count = names.len();
            (Just(names), prop::collection::vec(tools(), count))
        })
        .prop_map(|(names, tools)| {
            names
                .into_iter()
                .zip(tools)
                .map(|(name, tools)| Source {
                    name: name.to_owned(),
                    tools,
                })
                .collect()
        })
}

/// One server's list: `[]` often, else entries (possibly naming no tool).
fn list() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![1 => Just(Vec::new()), 3 => entries()]
}

/// A map configuration over [`SERVERS`].
fn raw_map() -> impl Strategy<Value = RawMap> {
    prop::collection::btree_map(
        prop::sample::select(SERVERS.to_vec()).prop_map(str::to_owned),
        list(),
        0..SERVERS.len(),
    )
}

/// `null` (one case in five) or a map.
fn raw_config() -> impl Strategy<Value = Option<RawMap>> {
    prop_oneof![1 => Just(None), 4 => raw_map().prop_map(Some)]
}

/// The crate's configuration for `raw`.
fn allowlist(raw: Option<&RawMap>) -> AllowedTools {
    raw.map_or_else(AllowedTools::unrestricted, |map| {
        AllowedTools::from_servers(map).expect("generated entries are well formed")
    })
}

/// What the semantics say `source` keeps under `raw` (fail-open): every tool
/// when `null` or unnamed, else the tools its entries name, in tool order.
fn model(raw: Option<&RawMap>, source: &Source) -> Vec<String> {
    match raw.and_then(|map| map.get(&source.name)) {
        None => source.tools.clone(),
        Some(list) => {
            let named = entry_tools(list);
            source
                .tools
                .iter()
                .filter(|tool| named.contains(*tool))
                .cloned()
                .collect()
        }
    }
}

/// Each source's tools as `policy` resolves them, in source order.
fn resolve_each(sources: &[Source], allowed: &AllowedTools, policy: Policy) -> Vec<Vec<String>> {
    sources
        .iter()
        .map(|source| policy.resolve(source.tools.iter().cloned(), allowed, &source.name))
        .collect()
}

/// `source`'s tools as plain [`TestTool`]s (no declared ops).
fn plain_tools(source: &Source) -> Vec<TestTool> {
    source.tools.iter().map(|name| plain(name)).collect()
}

/// `source`'s gated surface under `allowed` (fail-open), with the door's
/// or a local toolbox's rules.
fn surface(source: &Source, allowed: &AllowedTools, door: bool) -> GatedSurface<TestTool> {
    let rules = if door {
        SurfaceRules::door()
    } else {
        SurfaceRules::local()
    };
    GatedSurface::new(
        &source.name,
        &plain_tools(source),
        allowed,
        Policy::FailOpen,
        rules,
    )
}

/// The names a surface lists.
fn listed(surface: &GatedSurface<TestTool>) -> Vec<String> {
    surface
        .tools()
        .iter()
        .map(|tool| tool.name.clone())
        .collect()
}

/// Merges per-source lists as a server does for `tools/list`: in source
/// order, the first source to list a name wins; each item is (source index,
/// name).
fn merge_first_wins(lists: &[Vec<String>]) -> Vec<(usize, String)> {
    let mut seen = HashSet::new();
    let mut merged = Vec::new();
    for (index, list) in lists.iter().enumerate() {
        for name in list {
            if seen.insert(name.as_str()) {
                merged.push((index, name.clone()));
            }
        }
    }
    merged
}

proptest! {
    /// Fail-open per server: a source the (non-null) map does not name keeps
    /// every tool, in order, whatever the map says about other servers.
    #[test]
    fn an_unnamed_source_keeps_every_tool_in_order(
        sources in sources(),
        mut map in raw_map(),
        focus in any::<Index>(),
    ) {
        map.remove(&sources[focus.index(sources.len())].name);
        let allowed = allowlist(Some(&map));
        for source in sources.iter().filter(|source| !map.contains_key(&source.name)) {
            prop_assert_eq!(
                &resolve_allowed_tools(source.tools.iter().cloned(), &allowed, &source.name),
                &source.tools
            );
            prop_assert_eq!(
                &Policy::FailOpen.resolve(source.tools.iter().cloned(), &allowed, &source.name),
                &source.tools
            );
        }
    }

    /// `[]` denies: a source mapped to an empty list keeps nothing, under
    /// either policy.
    #[test]
    fn an_empty_list_denies_its_source_everything(
        sources in sources(),
        mut map in raw_map(),
        focus in any::<Index>(),
        policy in policy(),
    ) {
        map.insert(sources[focus.index(sources.len())].name.clone(), Vec::new());
        let allowed = allowlist(Some(&map));
        for source in sources.iter().filter(|source| map.get(&source.name).is_some_and(Vec::is_empty)) {
            prop_assert!(resolve_allowed_tools(&source.tools, &allowed, &source.name).is_empty());
            prop_assert!(policy.resolve(&source.tools, &allowed, &source.name).is_empty());
        }
    }

    /// A source with a list keeps exactly the tools the list names, in the
    /// order the tools came: reversing the list, or dropping its entries
    /// that match none of the source's tools, changes nothing.
    #[test]
    fn a_list_keeps_exactly_the_named_tools_in_tool_order(
        sources in sources(),
        mut map in raw_map(),
        focus in any::<Index>(),
        focus_list in entries(),
    ) {
        map.insert(sources[focus.index(sources.len())].name.clone(), focus_list);
        let allowed = allowlist(Some(&map));
        for source in &sources {
            let Some(list) = map.get(&source.name) else { continue };
            let kept = resolve_allowed_tools(source.tools.iter().cloned(), &allowed, &source.name);
            prop_assert_eq!(&kept, &model(Some(&map), source));
            prop_assert!(is_subsequence(&kept, &source.tools));

            let mut reversed = map.clone();
            reversed.insert(source.name.clone(), list.iter().rev().cloned().collect());
            prop_assert_eq!(
                &resolve_allowed_tools(source.tools.iter().cloned(), &allowlist(Some(&reversed)), &source.name),
                &kept
            );

            let mut matching = map.clone();
            let named: Vec<String> = list
                .iter()
                .filter(|entry| entry_tools(std::slice::from_ref(*entry)).iter().any(|tool| source.tools.contains(tool)))
                .cloned()
                .collect();
            matching.insert(source.name.clone(), named);
            prop_assert_eq!(
                &resolve_allowed_tools(source.tools.iter().cloned(), &allowlist(Some(&matching)), &source.name),
                &kept
            );
        }
    }

    /// The input is never changed: after resolving (borrowed or by value,
    /// under either policy) and building a gated surface for every source,
    /// the tools and the allowlist equal what they were.
    #[test]
    fn resolving_never_changes_the_input(
        sources in sources(),
        raw in raw_config(),
        policy in policy(),
        door in any::<bool>(),
    ) {
        let allowed = allowlist(raw.as_ref());
        let (sources_before, allowed_before) = (sources.clone(), allowed.clone());
        for source in &sources {
            let plain = plain_tools(source);
            let plain_before = plain.clone();
            let _ = resolve_allowed_tools(&source.tools, &allowed, &source.name);
            let _ = resolve_allowed_tools(source.tools.as_slice(), &allowed, &source.name);
            let _ = policy.resolve(source.tools.iter().map(String::as_str), &allowed, &source.name);
            let by_value = policy.resolve(source.tools.clone(), &allowed, &source.name);
            prop_assert!(is_subsequence(&by_value, &source.tools));
            let rules = if door { SurfaceRules::door() } else { SurfaceRules::local() };
            let _ = GatedSurface::new(&source.name, &plain, &allowed, policy, rules);
            prop_assert_eq!(&plain, &plain_before);
        }
        prop_assert_eq!(&sources, &sources_before);
        prop_assert_eq!(&allowed, &allowed_before);
    }

    /// Independence: what one source keeps depends only on its own tools
    /// and its own entry. Replacing every other source's tools, and every
    /// other server's entry (adding, removing or changing it, or making the
    /// map `null` when the source has no entry), changes neither its
    /// resolved tools nor its gated surface.
    #[test]
    fn a_source_depends_only_on_its_own_tools_and_entry(
        sources in sources(),
        raw in raw_config(),
        focus in any::<Index>(),
        other_tools in prop::collection::vec(tools(), MAX_SOURCES),
        other_raw in raw_config(),
        policy in policy(),
        door in any::<bool>(),
    ) {
        let focus = focus.index(sources.len());
        let name = &sources[focus].name;

        let changed: Vec<Source> = sources
            .iter()
            .zip(other_tools)
            .enumerate()
            .map(|(index, (source, tools))| Source {
                name: source.name.clone(),
                tools: if index == focus { source.tools.clone() } else { tools },
            })
            .collect();
        let own = raw.as_ref().and_then(|map| map.get(name)).cloned();
        let mut changed_raw = other_raw;
        if let Some(map) = changed_raw.as_mut() {
            map.remove(name);
        }
        if let Some(list) = own {
            changed_raw.get_or_insert_with(BTreeMap::new).insert(name.clone(), list);
        }

        let (allowed, changed_allowed) = (allowlist(raw.as_ref()), allowlist(changed_raw.as_ref()));
        prop_assert_eq!(
            &resolve_each(&sources, &allowed, policy)[focus],
            &resolve_each(&changed, &changed_allowed, policy)[focus]
        );
        prop_assert_eq!(
            listed(&surface(&sources[focus], &allowed, door)),
            listed(&surface(&changed[focus], &changed_allowed, door))
        );
    }

    /// A `null` allowlist (built or parsed from JSON `null`) keeps every
    /// tool of every source, and leaves every surface ungated.
    #[test]
    fn null_keeps_every_tool_of_every_source(sources in sources(), door in any::<bool>()) {
        for allowed in [AllowedTools::unrestricted(), config("null")] {
            let expected: Vec<Vec<String>> = sources.iter().map(|source| source.tools.clone()).collect();
            prop_assert_eq!(&resolve_each(&sources, &allowed, Policy::FailOpen), &expected);
            for source in &sources {
                prop_assert_eq!(
                    &resolve_allowed_tools(source.tools.iter().cloned(), &allowed, &source.name),
                    &source.tools
                );
                let surface = surface(source, &allowed, door);
                prop_assert!(!surface.is_gated());
                prop_assert_eq!(&listed(&surface), &source.tools);
            }
        }
    }

    /// Composition: filtering each source and then merging first-wins by
    /// name in source order (what a server lists) equals one walk over all
    /// sources' tools in order that keeps a name the first time a source
    /// which has it also keeps it (per the model). Each source's gated
    /// surface lists exactly what the core keeps, so merging the surfaces
    /// gives the same list.
    #[test]
    fn filtering_each_then_merging_is_gating_while_merging(
        sources in sources(),
        raw in raw_config(),
        doors in prop::collection::vec(any::<bool>(), MAX_SOURCES),
    ) {
        let allowed = allowlist(raw.as_ref());
        let filtered = resolve_each(&sources, &allowed, Policy::FailOpen);
        let merged = merge_first_wins(&filtered);

        let mut seen = HashSet::new();
        let mut expected = Vec::new();
        for (index, source) in sources.iter().enumerate() {
            let kept = model(raw.as_ref(), source);
            for name in &source.tools {
                if kept.contains(name) && seen.insert(name.clone()) {
                    expected.push((index, name.clone()));
                }
            }
        }
        prop_assert_eq!(&merged, &expected);

        let surfaces: Vec<Vec<String>> = sources
            .iter()
            .zip(&doors)
            .map(|(source, door)| listed(&surface(source, &allowed, *door)))
            .collect();
        prop_assert_eq!(&surfaces, &filtered);
        prop_assert_eq!(&merge_first_wins(&surfaces), &merged);
    }

    /// A name gated out of source i is never attributed to source i in the
    /// merged list; it appears exactly when some other source (earlier or
    /// later) has it and keeps it, attributed to the first such source.
    /// Routing agrees: a call of that name is never routed to source i.
    #[test]
    fn a_name_gated_out_of_a_source_is_never_attributed_to_it(
        sources in sources(),
        raw in raw_config(),
        doors in prop::collection::vec(any::<bool>(), MAX_SOURCES),
        op in prop_oneof![Just(None), "[xyz]".prop_map(Some)],
    ) {
        let allowed = allowlist(raw.as_ref());
        let filtered = resolve_each(&sources, &allowed, Policy::FailOpen);
        let merged = merge_first_wins(&filtered);
        let surfaces: Vec<GatedSurface<TestTool>> = sources
            .iter()
            .zip(&doors)
            .map(|(source, door)| surface(source, &allowed, *door))
            .collect();

        for (index, source) in sources.iter().enumerate() {
            for name in source.tools.iter().filter(|name| !filtered[index].contains(*name)) {
                prop_assert!(!merged.contains(&(index, name.clone())));
                let keeper = (0..sources.len()).find(|other| filtered[*other].contains(name));
                prop_assert!(keeper.is_none_or(|other| other != index));
                let attributed = merged.iter().find(|(_, merged_name)| merged_name == name).map(|(other, _)| *other);
                prop_assert_eq!(attributed, keeper);

                let routed = route_call(&surfaces, name, |_| mcp_gating::OpArg::from_option(op.as_deref()));
                prop_assert_ne!(routed, Some(index));
            }
        }
    }
}
