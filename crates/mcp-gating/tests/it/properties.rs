//! The properties of the pure core (docs/ARCHITECTURE.md, "Gating"), checked with proptest over small name
//! alphabets (so names collide, repeat and miss often): here for one server,
//! in [`sources`] for N sources with the per-source semantics.

use std::collections::BTreeSet;

use mcp_gating::{
    AllowedTools, GatedSurface, OpArg, Policy, SurfaceRules, ToolGrant, resolve_allowed_tools,
};
use proptest::prelude::*;

use crate::common::{TestTool, grouped};

mod sources;

/// Tool names from a five-letter alphabet, one or two letters.
fn name() -> impl Strategy<Value = String> {
    "[a-e]{1,2}"
}

/// A server's tools: duplicates allowed.
fn tools() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name(), 0..24)
}

/// A list of entries: whole names and `name:op` entries.
fn entries() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop_oneof![
            name(),
            (name(), "[xyz]").prop_map(|(tool, op)| format!("{tool}:{op}"))
        ],
        0..12,
    )
}

fn with_server(server: &str, list: &[String]) -> AllowedTools {
    AllowedTools::from_servers([(server, list)]).expect("generated entries are well formed")
}

/// The tool part of each entry.
fn entry_tools(list: &[String]) -> BTreeSet<String> {
    list.iter()
        .map(|entry| entry.split(':').next().unwrap_or_default().to_owned())
        .collect()
}

fn is_subsequence(small: &[String], big: &[String]) -> bool {
    let mut rest = big.iter();
    small.iter().all(|item| rest.any(|other| other == item))
}

proptest! {
    #[test]
    fn result_is_an_ordered_subset_of_the_input(tools in tools(), list in entries()) {
        let allowed = with_server("s", &list);
        let kept = resolve_allowed_tools(tools.clone(), &allowed, "s");
        prop_assert!(kept.iter().all(|tool| tools.contains(tool)));
        prop_assert!(is_subsequence(&kept, &tools));
    }

    #[test]
    fn result_is_the_input_filtered_by_the_list(tools in tools(), list in entries()) {
        let allowed = with_server("s", &list);
        let named = entry_tools(&list);
        let expected: Vec<String> = tools.iter().filter(|tool| named.contains(*tool)).cloned().collect();
        prop_assert_eq!(resolve_allowed_tools(tools, &allowed, "s"), expected);
    }

    #[test]
    fn resolving_twice_changes_nothing(tools in tools(), list in entries(), policy in policy()) {
        let allowed = with_server("s", &list);
        let once = policy.resolve(tools, &allowed, "s");
        let twice = policy.resolve(once.clone(), &allowed, "s");
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn null_and_an_absent_server_are_the_identity(tools in tools(), list in entries()) {
        prop_assert_eq!(
            resolve_allowed_tools(tools.clone(), &AllowedTools::unrestricted(), "s"),
            tools.clone()
        );
        let other = with_server("other", &list);
        prop_assert_eq!(resolve_allowed_tools(tools.clone(), &other, "s"), tools);
    }

    #[test]
    fn an_empty_list_gives_nothing(tools in tools()) {
        let allowed = with_server("s", &[]);
        prop_assert!(resolve_allowed_tools(tools, &allowed, "s").is_empty());
    }

    #[test]
    fn adding_a_name_never_removes_a_tool(tools in tools(), list in entries(), extra in name()) {
        let before = resolve_allowed_tools(tools.clone(), &with_server("s", &list), "s");
        let mut longer = list.clone();
        longer.push(extra);
        let after = resolve_allowed_tools(tools, &with_server("s", &longer), "s");
        prop_assert!(is_subsequence(&before, &after));
    }

    #[test]
    fn entries_for_other_servers_change_nothing(
        tools in tools(),
        list in prop::option::of(entries()),
        others in prop::collection::btree_map("[f-h]", entries(), 0..4),
        policy in policy(),
    ) {
        let only_this = AllowedTools::from_servers(list.iter().map(|list| ("s", list))).unwrap();
        let with_others = AllowedTools::from_servers(
            list.iter().map(|list| ("s".to_owned(), list.clone())).chain(others),
        )
        .unwrap();
        prop_assert_eq!(
            policy.resolve(tools.clone(), &only_this, "s"),
            policy.resolve(tools, &with_others, "s")
        );
    }

    #[test]
    fn deny_by_default_is_within_fail_open(
        tools in tools(),
        config in prop::option::of(prop::collection::btree_map("[s-t]", entries(), 0..3)),
    ) {
        let allowed = match config {
            None => AllowedTools::unrestricted(),
            Some(map) => AllowedTools::from_servers(map).unwrap(),
        };
        let strict = Policy::DenyByDefault.resolve(tools.clone(), &allowed, "s");
        let open = Policy::FailOpen.resolve(tools, &allowed, "s");
        prop_assert!(is_subsequence(&strict, &open));
    }

    #[test]
    fn op_narrowing_never_adds_an_op(
        tools in prop::collection::vec((name(), prop::collection::vec("[wxyz]", 0..4)), 0..10),
        list in entries(),
        rules in prop_oneof![Just(SurfaceRules::door()), Just(SurfaceRules::local())],
    ) {
        let tools: Vec<TestTool> = tools
            .iter()
            .map(|(name, ops)| grouped(name, &ops.iter().map(String::as_str).collect::<Vec<_>>()))
            .collect();
        let before = tools.clone();
        let allowed = with_server("s", &list);
        let surface = GatedSurface::new("s", &tools, &allowed, Policy::FailOpen, rules);
        prop_assert_eq!(&tools, &before);
        let grants = allowed.server("s").unwrap();
        for listed in surface.tools() {
            let narrowed_ops = listed.ops.clone().unwrap_or_default();
            // Some input tool of that name had every one of these ops.
            prop_assert!(tools.iter().any(|tool| tool.name == listed.name
                && narrowed_ops.iter().all(|op| tool.ops.as_ref().is_some_and(|ops| ops.contains(op)))));
            if let Some(ToolGrant::Ops(allowed_ops)) = grants.grant(&listed.name) {
                prop_assert!(narrowed_ops.iter().all(|op| allowed_ops.contains(op)));
            }
        }
    }

    #[test]
    fn what_a_local_surface_lists_is_exactly_what_it_routes(tools in tools(), list in entries(), policy in policy()) {
        let tools: Vec<TestTool> = tools.iter().map(|name| grouped(name, &["x", "y"])).collect();
        let allowed = with_server("local", &list);
        let surface = GatedSurface::new("local", &tools, &allowed, policy, SurfaceRules::local());
        for tool in &tools {
            let listed = surface.tools().iter().any(|kept| kept.name == tool.name);
            prop_assert_eq!(surface.owns(&tool.name), listed);
            for op in ["x", "y"] {
                let permitted = surface.check_call(&tool.name, OpArg::Value(op)) == mcp_gating::CallDecision::Permitted;
                let listed_op = surface.tools().iter().any(|kept| {
                    kept.name == tool.name && kept.ops.as_ref().is_some_and(|ops| ops.iter().any(|o| o == op))
                });
                prop_assert_eq!(permitted, listed_op);
            }
        }
    }
}

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![Just(Policy::FailOpen), Just(Policy::DenyByDefault)]
}
