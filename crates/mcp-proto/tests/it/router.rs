//! The router: a request type of the embedder's own, added in a few lines
//! and routed with its params decoded and its result typed; a bad params
//! object, a method without a handler, a handler of text, the context's
//! refusal, work answered later, and typed notifications.

use mcp_proto::methods::{Cancelled, Method, Ping};
use mcp_proto::router::{Answer, Dispatch, Notified, Router};
use mcp_proto::{
    EmptyResult, ErrorObject, ListRootsResult, Notification, ReadResourceRequestParams, Request,
    RequestId, Root,
};
use serde_json::{Value, json};

/// A method this crate does not know: the URI back as the one root.
struct Reflect;

impl Method for Reflect {
    const METHOD: &'static str = "example/reflect";
    type Params = ReadResourceRequestParams;
    type Result = ListRootsResult;
}

#[derive(Default)]
struct State {
    reflected: Vec<String>,
    cancelled: Vec<RequestId>,
    text_calls: Vec<(RequestId, Option<String>)>,
}

/// The context is the request's id; `refuse` refuses every request.
fn context(
    refuse: bool,
) -> impl FnOnce(&mut State, &RequestId, &str, Option<&Value>) -> Result<RequestId, ErrorObject> {
    move |_, id, _, _| {
        if refuse {
            Err(ErrorObject::invalid_request("not now"))
        } else {
            Ok(id.clone())
        }
    }
}

fn router() -> Router<State, RequestId> {
    let mut router: Router<State, RequestId> = Router::new();
    router
        .request::<Reflect>(|state, _id, params| {
            state.reflected.push(params.uri.clone());
            Answer::Now(Ok(ListRootsResult {
                roots: vec![Root {
                    uri: params.uri,
                    ..Root::default()
                }],
                ..ListRootsResult::default()
            }))
        })
        .request::<Ping>(|_, _, _| Answer::Later(Box::pin(async { Ok(EmptyResult::default()) })))
        .notification::<Cancelled>(|state, params| {
            state.cancelled.extend(params.request_id);
        });
    router
}

/// The value of an answer given now.
fn now(dispatched: Dispatch<Value>) -> (RequestId, Result<Value, ErrorObject>) {
    match dispatched {
        Dispatch::Answer(id, Answer::Now(result)) => (id, result),
        other => panic!("answered now: {other:?}"),
    }
}

#[test]
fn a_new_request_type_is_routed_with_typed_params_and_result() {
    let router = router();
    let mut state = State::default();
    let request = Request::new(1, Reflect::METHOD, Some(json!({"uri": "file:///a"})));
    let (id, result) = now(router.dispatch(&mut state, request, context(false)));
    assert_eq!(id, RequestId::Number(1));
    assert_eq!(result, Ok(json!({"roots": [{"uri": "file:///a"}]})));
    assert_eq!(state.reflected, ["file:///a"]);
    assert!(router.handles(Reflect::METHOD));
}

#[test]
fn params_that_do_not_decode_are_32602_and_the_handler_never_runs() {
    let router = router();
    let mut state = State::default();
    let request = Request::new(2, Reflect::METHOD, Some(json!({"uri": 7})));
    let (_, result) = now(router.dispatch(&mut state, request, context(false)));
    let error = result.expect_err("refused");
    assert_eq!(error.code, -32602);
    assert!(
        error
            .message
            .starts_with("invalid params for example/reflect: params.uri"),
        "{}",
        error.message
    );
    assert!(state.reflected.is_empty());
}

#[test]
fn a_method_without_a_handler_is_32601_after_the_context_is_asked() {
    let router = router();
    let mut state = State::default();
    let (_, result) = now(router.dispatch(
        &mut state,
        Request::new(3, "example/missing", None),
        context(false),
    ));
    assert_eq!(result.expect_err("unknown").code, -32601);
    // The context's refusal comes first, for a known method or not.
    for method in [Reflect::METHOD, "example/missing"] {
        let (id, result) =
            now(router.dispatch(&mut state, Request::new(4, method, None), context(true)));
        assert_eq!(id, RequestId::Number(4));
        assert_eq!(result, Err(ErrorObject::invalid_request("not now")));
    }
    assert!(state.reflected.is_empty());
}

#[test]
fn work_answered_later_gives_its_typed_result() {
    let router = router();
    let mut state = State::default();
    let ping = Request::typed::<Ping>("p", &Default::default()).expect("a ping");
    let Dispatch::Answer(id, Answer::Later(work)) =
        router.dispatch(&mut state, ping, context(false))
    else {
        panic!("answered later");
    };
    assert_eq!(id, RequestId::String("p".into()));
    // The work is ready at its first poll.
    let mut work = work;
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert_eq!(
        work.as_mut().poll(&mut cx),
        std::task::Poll::Ready(Ok(json!({})))
    );
}

#[test]
fn a_handler_of_text_gets_the_params_as_they_came_and_no_context() {
    let mut router = router();
    router.request_text::<Reflect>(|state, id, params| {
        state
            .text_calls
            .push((id, params.map(|p| p.get().to_owned())));
    });
    let mut state = State::default();
    let text = r#"{"uri":"file:///b","n":1E400}"#;
    let request = Request {
        params: Some(serde_json::value::RawValue::from_string(text.to_owned()).expect("raw")),
        ..Request::new(5, Reflect::METHOD, None)
    };
    let dispatched = router.dispatch(&mut state, request, |_, _, _, _| -> Result<RequestId, _> {
        panic!("no context for a handler of text")
    });
    assert!(matches!(dispatched, Dispatch::Taken));
    assert_eq!(
        state.text_calls,
        [(RequestId::Number(5), Some(text.to_owned()))]
    );
}

#[test]
fn notifications_are_routed_typed_and_malformed_or_unknown_ones_call_nothing() {
    let router = router();
    let mut state = State::default();
    let cancel = Notification::new(Cancelled::NAME, Some(json!({"requestId": 9})));
    assert_eq!(router.notify(&mut state, cancel), Notified::Handled);
    assert_eq!(state.cancelled, [RequestId::Number(9)]);
    let malformed = Notification::new(Cancelled::NAME, Some(json!({"requestId": [9]})));
    assert!(matches!(
        router.notify(&mut state, malformed),
        Notified::Malformed(error) if error.code == -32602
    ));
    let unknown = Notification::new("notifications/example", None);
    assert_eq!(router.notify(&mut state, unknown), Notified::Unknown);
    assert_eq!(state.cancelled, [RequestId::Number(9)]);
}
