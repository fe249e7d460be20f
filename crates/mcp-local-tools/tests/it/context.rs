//! Cancellation, progress and several roots, through the toolbox.

use std::sync::{Arc, Mutex};

use crate::common::{Sandbox, assert_outside_roots, fs, toolbox_result};
use mcp_local_tools::{Progress, Roots, ToolContext, Toolbox};
use serde_json::json;

#[tokio::test]
async fn a_cancelled_call_returns_cancelled() {
    let s = Sandbox::new();
    s.write("a.txt", "needle\n");
    let ctx = ToolContext::new(s.roots.clone());
    ctx.cancel.cancel();
    let args = json!({"action": "search", "pattern": "needle"});
    let result = toolbox_result(&Toolbox::with_default_tools(), "fs", ctx, args).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.content[0].as_text(), Some("cancelled"));
}

/// One progress report: (progress, total, message).
type Report = (f64, Option<f64>, Option<String>);

#[tokio::test]
async fn search_reports_progress_every_thousand_files() {
    let s = Sandbox::new();
    for i in 0..1500 {
        s.write(&format!("d{}/f{i}.txt", i % 10), "nothing here\n");
    }
    let reports: Arc<Mutex<Vec<Report>>> = Arc::default();
    let sink = reports.clone();
    let mut ctx = ToolContext::new(s.roots.clone());
    ctx.progress = Progress::new(move |p, t, m| sink.lock().unwrap().push((p, t, m)));
    let args = json!({"action": "search", "pattern": "needle"});
    let result = toolbox_result(&Toolbox::with_default_tools(), "fs", ctx, args).await;
    assert_eq!(result.content[0].as_text(), Some("[no match for needle]\n"));
    assert_eq!(
        *reports.lock().unwrap(),
        vec![(1000.0, None, Some("1000 files searched".to_owned()))]
    );
}

#[tokio::test]
async fn unknown_tool_is_none() {
    let s = Sandbox::new();
    let ctx = ToolContext::new(s.roots.clone());
    assert!(
        Toolbox::with_default_tools()
            .call("nope", Default::default(), ctx)
            .await
            .is_none()
    );
}

#[tokio::test]
async fn second_root_by_absolute_path() {
    let s = Sandbox::new();
    let other = s.base.join("outside");
    let roots = Roots::new(vec![s.root.clone(), other.clone()]).unwrap();
    let secret = other.join("secret.txt").to_string_lossy().into_owned();
    assert_eq!(
        fs(&roots, json!({"action": "read", "path": secret})).await,
        (false, "SECRET outside\n".to_owned())
    );
    let r = fs(
        &roots,
        json!({"action": "write", "path": other.join("new.txt").to_string_lossy(), "content": "x"}),
    )
    .await;
    assert_eq!(
        r,
        (
            false,
            format!(
                "wrote {} (1 bytes, a new file)",
                other.join("new.txt").to_string_lossy()
            )
        )
    );
    // root_evil is still outside both.
    let evil = json!({"action": "read", "path": s.abs("root_evil/secret.txt")});
    assert_outside_roots(&fs(&roots, evil).await);
}
