//! The message-level session (`Server::connect`): typed messages and text
//! in, tagged messages out; every kind of input answered with its id;
//! unread output stopping input; a request in flight answered after the
//! input is dropped, and the output ending after it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_local_server::mcp_proto::methods::{CallTool, Ping};
use mcp_local_server::mcp_proto::{
    CallToolRequestParams, ErrorObject, Message, Request, RequestId,
};
use mcp_local_server::{Incoming, Kind, SessionEnded};
use serde_json::json;
use tokio::sync::oneshot;

use crate::common::tools::{Tools, text};
use crate::common::{assert_each_answered_once, assert_stalls_below, backlog_server, within};

fn ping(id: i64) -> Incoming {
    Incoming::Message(Message::Request(
        Request::typed::<Ping>(id, &Default::default()).expect("a ping"),
    ))
}

#[tokio::test]
async fn messages_text_and_refusals_are_each_answered_with_their_id() {
    let mut connection = backlog_server(1 << 20).connect();

    connection.send(ping(1)).await.expect("sent");
    let answer = connection.recv().await.expect("an answer");
    assert_eq!(answer.bytes, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert_eq!(
        answer.kind,
        Kind::Response {
            id: Some(RequestId::Number(1)),
            error: None
        }
    );
    assert_eq!(answer.related, None);

    // Text is parsed by the session, as a transport's bytes would be.
    connection
        .send(Incoming::Text(
            br#"{"jsonrpc":"2.0","id":"two","method":"ping"}"#.to_vec(),
        ))
        .await
        .expect("sent");
    let answer = connection.recv().await.expect("an answer");
    assert_eq!(answer.bytes, br#"{"jsonrpc":"2.0","id":"two","result":{}}"#);

    // Text that is no message: -32700, to the id that can still be read.
    connection
        .send(Incoming::Text(
            br#"{"jsonrpc":"2.0","id":3,"method":"ping""#.to_vec(),
        ))
        .await
        .expect("sent");
    let answer = connection.recv().await.expect("an answer");
    let Message::Response(response) = answer.message().expect("a message") else {
        panic!("a response: {answer:?}");
    };
    assert_eq!(response.id, Some(RequestId::Number(3)));
    assert_eq!(
        answer.kind,
        Kind::Response {
            id: Some(RequestId::Number(3)),
            error: Some(-32700)
        }
    );

    // A malformed response (both `result` and `error`) is never answered:
    // the next answer is the refusal's.
    connection
        .send(Incoming::Text(
            br#"{"jsonrpc":"2.0","id":9,"result":{},"error":{"code":1}}"#.to_vec(),
        ))
        .await
        .expect("sent");
    // What a transport refused is answered with its error and id.
    connection
        .send(Incoming::Refused {
            id: Some(RequestId::Number(4)),
            error: ErrorObject::invalid_request("the line is too long"),
        })
        .await
        .expect("sent");
    let answer = connection.recv().await.expect("an answer");
    assert_eq!(
        answer.message().expect("a message"),
        Message::Response(mcp_local_server::mcp_proto::Response::error(
            Some(RequestId::Number(4)),
            ErrorObject::invalid_request("the line is too long"),
        ))
    );
    connection.send(ping(5)).await.expect("sent");
    let answer = connection.recv().await.expect("an answer");
    assert_eq!(answer.bytes, br#"{"jsonrpc":"2.0","id":5,"result":{}}"#);
}

#[tokio::test]
async fn a_call_in_flight_is_answered_after_the_input_is_dropped_then_the_output_ends() {
    let (release, released) = oneshot::channel::<()>();
    let released = Arc::new(tokio::sync::Mutex::new(Some(released)));
    let server = Tools::new("slow", &["wait"], move |_, _| {
        let released = released.clone();
        async move {
            if let Some(released) = released.lock().await.take() {
                let _ = released.await;
            }
            text("done")
        }
    })
    .serve("connection-test");
    let (input, mut output) = Arc::new(server).connect().split();
    let call = Request::typed::<CallTool>(
        7,
        &CallToolRequestParams {
            name: "wait".into(),
            ..Default::default()
        },
    )
    .expect("a call");
    // A stateless (2026-07-28) call needs no handshake: `_meta` names the
    // revision.
    let mut call = serde_json::to_value(call).expect("JSON");
    call["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    input
        .send(Incoming::Text(call.to_string().into_bytes()))
        .await
        .expect("sent");
    drop(input);
    release.send(()).expect("the call waits");

    let answer = within("the next output", output.recv())
        .await
        .expect("the call's answer");
    let Message::Response(response) = answer.message().expect("a message") else {
        panic!("a response: {answer:?}");
    };
    assert_eq!(response.id, Some(RequestId::Number(7)));
    let result: serde_json::Value = response.parse_result().expect("a result");
    assert_eq!(
        result,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "done"}]})
    );
    let end = within("the next output", output.recv()).await;
    assert!(end.is_none(), "nothing after the last answer: {end:?}");
}

#[tokio::test]
async fn a_connection_whose_output_is_unread_stops_taking_input_then_answers_every_ping() {
    const PINGS: i64 = 20_000;
    let (input, mut output) = backlog_server(16 * 1024).connect().split();
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let writer = tokio::spawn(async move {
        for id in 1..=PINGS {
            input.send(ping(id)).await?;
            counter.fetch_add(1, Ordering::Relaxed);
        }
        Ok::<_, SessionEnded>(input)
    });

    // Nobody reads the output: the session stops taking input.
    // 16 KiB of ~36-byte answers, and 64 inputs queued.
    assert_stalls_below(&sent, &writer, 1_000).await;

    assert_each_answered_once(PINGS as usize, async || {
        let answer = within("the next output", output.recv())
            .await
            .expect("an answer");
        let Kind::Response {
            id: Some(RequestId::Number(id)),
            error: None,
        } = answer.kind
        else {
            panic!("a ping's answer: {answer:?}");
        };
        id
    })
    .await;
    let input = writer.await.expect("the writer ends").expect("all sent");
    drop(input);
    assert!(output.recv().await.is_none());
}
