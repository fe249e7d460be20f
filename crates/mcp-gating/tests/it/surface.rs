//! The routing-side decision: what each source lists and which calls it takes
//! (docs/ARCHITECTURE.md, "Gating").

use mcp_gating::{
    CallDecision, GatedSurface, Mismatch, OpArg, Policy, Refusal, SurfaceRules, route_call,
};

use crate::common::{TestTool, config, door_surface, grouped, local_surface, plain};

fn local_tools() -> Vec<TestTool> {
    vec![
        grouped("fs", &["read", "write", "help"]),
        grouped("exec", &["run", "help"]),
        grouped("git", &["status", "commit", "help"]),
    ]
}

fn door_tools() -> Vec<TestTool> {
    vec![
        plain("describe"),
        grouped(
            "billing",
            &["get_invoice", "list_invoices", "refund_invoice"],
        ),
        grouped("git", &["create_repo", "delete_repo"]),
        grouped("agents", &["list_agents"]),
    ]
}

fn surfaces(json: &str, policy: Policy) -> [GatedSurface<TestTool>; 2] {
    let allowed = config(json);
    [
        GatedSurface::new(
            "local",
            &local_tools(),
            &allowed,
            policy,
            SurfaceRules::local(),
        ),
        GatedSurface::new(
            "door",
            &door_tools(),
            &allowed,
            policy,
            SurfaceRules::door(),
        ),
    ]
}

fn names(surface: &GatedSurface<TestTool>) -> Vec<&str> {
    surface
        .tools()
        .iter()
        .map(|tool| tool.name.as_str())
        .collect()
}

fn route(
    surfaces: &[GatedSurface<TestTool>],
    name: &str,
    op: Option<&'static str>,
) -> Option<usize> {
    route_call(surfaces, name, |_| OpArg::from_option(op))
}

const LOCAL: Option<usize> = Some(0);
const DOOR: Option<usize> = Some(1);

#[test]
fn local_fs_and_a_closed_door() {
    let s = surfaces(r#"{"local": ["fs"], "door": []}"#, Policy::FailOpen);
    assert_eq!(names(&s[0]), ["fs"]);
    assert!(names(&s[1]).is_empty());
    assert_eq!(route(&s, "fs", Some("write")), LOCAL);
    for name in [
        "exec",
        "git",
        "billing",
        "describe",
        "get_invoice",
        "anything",
    ] {
        assert_eq!(route(&s, name, None), None, "{name}");
    }
}

#[test]
fn local_fs_and_door_billing() {
    let s = surfaces(
        r#"{"local": ["fs"], "door": ["billing"]}"#,
        Policy::FailOpen,
    );
    assert_eq!(names(&s[0]), ["fs"]);
    assert_eq!(names(&s[1]), ["billing"]);
    assert_eq!(route(&s, "fs", Some("read")), LOCAL);
    assert_eq!(route(&s, "billing", Some("refund_invoice")), DOOR);
    // `git` is gated out of both sources, `describe` out of the door.
    assert_eq!(route(&s, "git", Some("status")), None);
    assert_eq!(route(&s, "git", Some("create_repo")), None);
    assert_eq!(route(&s, "describe", Some("get_invoice")), None);
    // billing is allowed whole, so its ops are callable by name; others are not.
    assert_eq!(route(&s, "get_invoice", None), DOOR);
    assert_eq!(route(&s, "create_repo", None), None);
}

#[test]
fn a_tool_gated_out_of_local_falls_through_to_an_ungated_door() {
    let s = surfaces(r#"{"local": ["fs"]}"#, Policy::FailOpen);
    assert!(!s[1].is_gated());
    assert_eq!(names(&s[1]), ["describe", "billing", "git", "agents"]);
    assert_eq!(route(&s, "fs", Some("read")), LOCAL);
    assert_eq!(route(&s, "git", Some("status")), DOOR);
    // An ungated door owns every name, listed or not.
    assert_eq!(route(&s, "not_listed_anywhere", None), DOOR);
    assert_eq!(
        s[1].check_call("x", OpArg::NotAString),
        CallDecision::Permitted
    );
}

#[test]
fn null_routes_local_names_locally_and_the_rest_to_the_door() {
    let s = surfaces("null", Policy::FailOpen);
    assert_eq!(names(&s[0]), ["fs", "exec", "git"]);
    assert_eq!(route(&s, "git", Some("create_repo")), LOCAL);
    assert_eq!(route(&s, "billing", Some("anything")), DOOR);
    assert!(s[0].unmatched_entries().is_empty());
}

#[test]
fn op_entries_narrow_the_door_tool_and_refuse_other_ops() {
    let s = surfaces(
        r#"{"door": ["describe", "billing:get_invoice", "billing:list_invoices"]}"#,
        Policy::FailOpen,
    );
    assert_eq!(
        s[1].tools(),
        [
            plain("describe"),
            grouped("billing", &["get_invoice", "list_invoices"])
        ]
    );
    let door = &s[1];
    assert_eq!(
        door.check_call("billing", OpArg::Value("list_invoices")),
        CallDecision::Permitted
    );
    assert_eq!(
        door.check_call("billing", OpArg::Value("refund_invoice")),
        CallDecision::Refused(Refusal::OpNotAllowed {
            tool: "billing".to_owned(),
            discriminator: "op".to_owned(),
            value: Some("refund_invoice".to_owned()),
        })
    );
    assert!(matches!(
        door.check_call("billing", OpArg::Absent),
        CallDecision::Refused(_)
    ));
    assert!(matches!(
        door.check_call("billing", OpArg::NotAString),
        CallDecision::Refused(_)
    ));
    // A refusal stops routing: it is never tried elsewhere.
    assert_eq!(route(&s, "billing", Some("refund_invoice")), None);
    // Direct op names: only allowed ops.
    assert_eq!(
        door.check_call("get_invoice", OpArg::Absent),
        CallDecision::Permitted
    );
    assert_eq!(
        door.check_call("refund_invoice", OpArg::Absent),
        CallDecision::NotOwned
    );
    assert_eq!(
        door.check_call("create_repo", OpArg::Absent),
        CallDecision::NotOwned
    );
    // describe: only for allowed ops.
    assert_eq!(
        door.check_call("describe", OpArg::Value("get_invoice")),
        CallDecision::Permitted
    );
    assert_eq!(
        door.check_call("describe", OpArg::Value("refund_invoice")),
        CallDecision::Refused(Refusal::DescribeNotAllowed {
            tool: "describe".to_owned(),
            op: Some("refund_invoice".to_owned()),
        })
    );
    assert!(matches!(
        door.check_call("describe", OpArg::Absent),
        CallDecision::Refused(_)
    ));
}

#[test]
fn describe_s_own_enum_is_narrowed_to_allowed_ops_only() {
    let door_tools = vec![
        grouped(
            "describe",
            &["get_invoice", "refund_invoice", "create_repo"],
        ),
        grouped("billing", &["get_invoice", "refund_invoice"]),
        grouped("git", &["create_repo"]),
    ];
    let allowed = config(r#"{"door": ["describe", "billing:get_invoice"]}"#);
    let door = door_surface(&door_tools, &allowed);
    assert_eq!(
        door.tools(),
        [
            grouped("describe", &["get_invoice"]),
            grouped("billing", &["get_invoice"])
        ]
    );
    // describe's enum lists every op, but allowing describe grants none of them.
    assert_eq!(
        door.check_call("create_repo", OpArg::Absent),
        CallDecision::NotOwned
    );
    assert!(matches!(
        door.check_call("describe", OpArg::Value("create_repo")),
        CallDecision::Refused(_)
    ));
}

#[test]
fn local_actions_are_narrowed_and_other_actions_refused() {
    let s = surfaces(
        r#"{"local": ["fs:read", "fs:help", "git"]}"#,
        Policy::FailOpen,
    );
    assert_eq!(
        s[0].tools(),
        [
            grouped("fs", &["read", "help"]),
            grouped("git", &["status", "commit", "help"])
        ]
    );
    let local = &s[0];
    assert_eq!(
        local.check_call("fs", OpArg::Value("read")),
        CallDecision::Permitted
    );
    assert_eq!(
        local.check_call("fs", OpArg::Value("write")),
        CallDecision::Refused(Refusal::OpNotAllowed {
            tool: "fs".to_owned(),
            discriminator: "action".to_owned(),
            value: Some("write".to_owned()),
        })
    );
    // The ungated door must not receive a refused local call either.
    assert_eq!(route(&s, "fs", Some("write")), None);
    // Local sources never take op names as tool names.
    assert_eq!(
        local.check_call("read", OpArg::Absent),
        CallDecision::NotOwned
    );
    assert_eq!(
        local.check_call("exec", OpArg::Value("run")),
        CallDecision::NotOwned
    );
    assert_eq!(route(&s, "exec", Some("run")), DOOR);
}

#[test]
fn a_gated_door_owns_allowed_names_it_has_not_listed_yet() {
    // The door's list may still be loading (or the door is down).
    let allowed = config(r#"{"door": ["billing", "git:create_repo"]}"#);
    let door = door_surface(&Vec::<TestTool>::new(), &allowed);
    assert!(door.tools().is_empty());
    assert_eq!(
        door.check_call("billing", OpArg::Value("anything")),
        CallDecision::Permitted
    );
    assert_eq!(
        door.check_call("git", OpArg::Value("create_repo")),
        CallDecision::Permitted
    );
    assert!(matches!(
        door.check_call("git", OpArg::Value("delete_repo")),
        CallDecision::Refused(_)
    ));
    assert_eq!(
        door.check_call("create_repo", OpArg::Absent),
        CallDecision::Permitted
    );
    assert_eq!(
        door.check_call("agents", OpArg::Absent),
        CallDecision::NotOwned
    );
    // A local source is definitive about its names.
    let local = local_surface(&Vec::<TestTool>::new(), &allowed);
    assert_eq!(
        local.check_call("billing", OpArg::Absent),
        CallDecision::NotOwned
    );
}

#[test]
fn deny_by_default_gives_unnamed_servers_nothing() {
    let s = surfaces(r#"{"local": ["fs"]}"#, Policy::DenyByDefault);
    assert_eq!(names(&s[0]), ["fs"]);
    assert!(s[1].is_gated());
    assert!(names(&s[1]).is_empty());
    assert_eq!(route(&s, "git", Some("status")), None);
    assert_eq!(route(&s, "billing", Some("get_invoice")), None);

    let s = surfaces("null", Policy::DenyByDefault);
    assert!(names(&s[0]).is_empty() && names(&s[1]).is_empty());
    assert_eq!(route(&s, "fs", Some("read")), None);
}

#[test]
fn entries_that_match_nothing_are_reported() {
    let s = surfaces(
        r#"{"local": ["fs", "gti", "fs:delete", "gti"], "door": ["billing:refund", "describe"]}"#,
        Policy::FailOpen,
    );
    let local: Vec<String> = s[0]
        .unmatched_entries()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        local,
        [
            r#""gti" matches no tool"#,
            r#""fs:delete": tool "fs" has no such op"#
        ]
    );
    assert_eq!(s[0].unmatched_entries()[1].mismatch, Mismatch::NoSuchOp);
    // billing:refund matches no op, so billing could take no call: not listed.
    let door: Vec<String> = s[1]
        .unmatched_entries()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(door, [r#""billing:refund": tool "billing" has no such op"#]);
    assert_eq!(names(&s[1]), ["describe"]);
    assert_eq!(
        s[1].check_call("billing", OpArg::Value("refund")),
        CallDecision::NotOwned
    );
}

#[test]
fn tools_without_declared_values_take_op_entries_on_trust() {
    let tools = vec![plain("deploy")];
    let allowed = config(r#"{"door": ["deploy:preview"]}"#);
    let door = door_surface(&tools, &allowed);
    assert_eq!(door.tools(), [plain("deploy")]);
    assert_eq!(
        door.check_call("deploy", OpArg::Value("preview")),
        CallDecision::Permitted
    );
    assert!(matches!(
        door.check_call("deploy", OpArg::Value("production")),
        CallDecision::Refused(_)
    ));
    assert!(door.unmatched_entries().is_empty());
    assert_eq!(door.source(), "door");
    assert!(door.owns("preview"));
}

#[test]
fn an_op_spelled_like_a_gated_out_tool_does_not_reopen_it() {
    // `agents` has an op named `git`; the door's `git` tool is gated out.
    let tools = vec![
        grouped("agents", &["git", "list_agents"]),
        grouped("git", &["create_repo"]),
    ];
    let allowed = config(r#"{"door": ["agents"]}"#);
    let door = door_surface(&tools, &allowed);
    assert_eq!(
        door.check_call("list_agents", OpArg::Absent),
        CallDecision::Permitted
    );
    assert_eq!(
        door.check_call("git", OpArg::Value("create_repo")),
        CallDecision::NotOwned
    );
    assert_eq!(
        door.check_call("agents", OpArg::Value("git")),
        CallDecision::Permitted
    );
}

/// An alias names the value it stands for: in entries (`"fs:stat"` allows
/// `info`, and is not reported as matching nothing) and in calls (`stat`
/// is checked as `info`).
#[test]
fn aliases_stand_for_their_values_in_entries_and_calls() {
    let tools = vec![grouped("fs", &["read", "info", "help"])];
    let rules = SurfaceRules::local().with_aliases([("fs", "stat", "info"), ("fs", "cat", "read")]);
    // (allowlist, the actions listed, (a call's action, whether permitted))
    type Case<'a> = (&'a str, Vec<&'a str>, &'a [(&'a str, bool)]);
    let cases: [Case; 3] = [
        (
            r#"{"local":["fs:stat"]}"#,
            vec!["info"],
            &[
                ("stat", true),
                ("info", true),
                ("read", false),
                ("cat", false),
            ],
        ),
        (
            r#"{"local":["fs:stat","fs:info","fs:cat"]}"#,
            vec!["read", "info"],
            &[
                ("stat", true),
                ("cat", true),
                ("read", true),
                ("help", false),
            ],
        ),
        (
            r#"{"local":["fs:info"]}"#,
            vec!["info"],
            &[("stat", true), ("info", true), ("cat", false)],
        ),
    ];
    for (json, listed, calls) in cases {
        let surface = GatedSurface::new(
            "local",
            &tools,
            &config(json),
            Policy::FailOpen,
            rules.clone(),
        );
        assert_eq!(
            surface.tools()[0].ops,
            Some(listed.iter().map(|s| (*s).to_owned()).collect()),
            "{json}"
        );
        assert!(surface.unmatched_entries().is_empty(), "{json}");
        for (action, permitted) in calls {
            let decision = surface.check_call("fs", OpArg::Value(action));
            assert_eq!(
                decision == CallDecision::Permitted,
                *permitted,
                "{json}: {action}"
            );
        }
    }
    // Without the aliases, the same entry matches nothing and the tool goes.
    let plain_rules = GatedSurface::new(
        "local",
        &tools,
        &config(r#"{"local":["fs:stat"]}"#),
        Policy::FailOpen,
        SurfaceRules::local(),
    );
    assert!(plain_rules.tools().is_empty());
    assert_eq!(
        plain_rules.unmatched_entries()[0].mismatch,
        Mismatch::NoSuchOp
    );
}
