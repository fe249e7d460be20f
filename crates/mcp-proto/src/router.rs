//! Dispatch by method type (after async-lsp's `Router`): a handler is
//! registered for a method of [`crate::methods`], gets that method's
//! params already decoded and answers with its typed result, so a handler
//! cannot pair the wrong params and result, and no method name is written
//! as a string.
//!
//! The router owns no runtime. `S` is the state handlers act on (a
//! session), `C` what each request brings besides its params (its id,
//! revision, cancellation: the embedder's context, built by the closure
//! given to [`Router::dispatch`]), and `R` the form a result takes once
//! its type is erased (a [`serde_json::Value`] by default).
//!
//! ```
//! use mcp_proto::methods::{Ping, ListRoots, Initialized};
//! use mcp_proto::router::{Answer, Dispatch, Router};
//! use mcp_proto::{EmptyResult, ListRootsResult, Request, RequestId};
//! use serde_json::Value;
//!
//! #[derive(Default)]
//! struct State { pings: u32, initialized: bool }
//!
//! let mut router: Router<State, RequestId> = Router::new();
//! router
//!     .request::<Ping>(|state, _id, _params| {
//!         state.pings += 1;
//!         Answer::Now(Ok(EmptyResult::default()))
//!     })
//!     // Work that answers later: the embedder runs the future (a task).
//!     .request::<ListRoots>(|_, _, _| Answer::Later(Box::pin(async {
//!         Ok(ListRootsResult::default())
//!     })))
//!     .notification::<Initialized>(|state, _| state.initialized = true);
//!
//! let mut state = State::default();
//! let ping = Request::typed::<Ping>(1, &Default::default()).unwrap();
//! let context = |_: &mut State, id: &RequestId, _: &str, _: Option<&Value>| Ok(id.clone());
//! let Dispatch::Answer(id, Answer::Now(Ok(result))) = router.dispatch(&mut state, ping, context)
//! else {
//!     panic!("answered at once");
//! };
//! assert_eq!((id, result, state.pings), (RequestId::Number(1), serde_json::json!({}), 1));
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::decode::FromValue;
use crate::error::ErrorObject;
use crate::message::{Notification, Request, RequestId};
use crate::methods::{Method, NotificationMethod};

/// A future a handler answers with later: sent to another task, so
/// `Send` and owning what it uses.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What a request handler answers with.
pub enum Answer<T> {
    /// The result or error, now.
    Now(Result<T, ErrorObject>),
    /// Work whose output is the result or error; the embedder decides
    /// where it runs (a task that a cancellation can stop).
    Later(BoxFuture<Result<T, ErrorObject>>),
}

impl<T: Send + 'static> Answer<T> {
    /// The answer with its result turned into `U` by `convert` (now, or
    /// when the work completes).
    pub fn map<U, F>(self, convert: F) -> Answer<U>
    where
        F: FnOnce(T) -> Result<U, ErrorObject> + Send + 'static,
    {
        match self {
            Answer::Now(result) => Answer::Now(result.and_then(convert)),
            Answer::Later(work) => {
                Answer::Later(Box::pin(async move { work.await.and_then(convert) }))
            }
        }
    }
}

impl<T> std::fmt::Debug for Answer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Now(result) => f
                .debug_tuple("Now")
                .field(&result.as_ref().map(|_| "result"))
                .finish(),
            Answer::Later(_) => f.write_str("Later(..)"),
        }
    }
}

/// The form a typed result takes once the router erases its type.
pub trait FromResult: Sized + Send + 'static {
    /// `result` in this form.
    ///
    /// # Errors
    /// -32603 when the result cannot be serialized.
    fn from_result<T: Serialize>(result: &T) -> Result<Self, ErrorObject>;
}

impl FromResult for Value {
    fn from_result<T: Serialize>(result: &T) -> Result<Self, ErrorObject> {
        serde_json::to_value(result)
            .map_err(|e| ErrorObject::internal_error(format!("cannot serialize a result: {e}")))
    }
}

/// What [`Router::dispatch`] did with a request.
pub enum Dispatch<R> {
    /// The answer to the request with this id (an error too: a method no
    /// handler has is -32601, params that do not decode are -32602).
    Answer(RequestId, Answer<R>),
    /// A handler of the params' text took the request and answers it
    /// itself ([`Router::request_text`]).
    Taken,
}

impl<R> std::fmt::Debug for Dispatch<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dispatch::Answer(id, answer) => {
                f.debug_tuple("Answer").field(id).field(answer).finish()
            }
            Dispatch::Taken => f.write_str("Taken"),
        }
    }
}

/// What [`Router::notify`] did with a notification.
#[derive(Debug, Clone, PartialEq)]
pub enum Notified {
    /// Its handler ran.
    Handled,
    /// No handler has its method (JSON-RPC 2.0 §4.1: nothing is answered).
    Unknown,
    /// Its params did not decode; no handler ran. The error says why.
    Malformed(ErrorObject),
}

type RequestFn<S, C, R> = dyn Fn(&mut S, C, Option<Value>) -> Answer<R> + Send + Sync;
type TextFn<S> = dyn Fn(&mut S, RequestId, Option<Box<RawValue>>) + Send + Sync;
type NotificationFn<S> = dyn Fn(&mut S, Option<Value>) -> Notified + Send + Sync;

/// A request handler: of decoded params, or of their text.
enum Handler<S, C, R> {
    Decoded(Box<RequestFn<S, C, R>>),
    Text(Box<TextFn<S>>),
}

/// Request and notification handlers by method (see the module docs).
pub struct Router<S, C, R = Value> {
    requests: HashMap<&'static str, Handler<S, C, R>>,
    notifications: HashMap<&'static str, Box<NotificationFn<S>>>,
}

impl<S, C, R> Default for Router<S, C, R> {
    fn default() -> Self {
        Self {
            requests: HashMap::new(),
            notifications: HashMap::new(),
        }
    }
}

impl<S, C, R> std::fmt::Debug for Router<S, C, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut requests: Vec<&str> = self.requests.keys().copied().collect();
        let mut notifications: Vec<&str> = self.notifications.keys().copied().collect();
        requests.sort_unstable();
        notifications.sort_unstable();
        f.debug_struct("Router")
            .field("requests", &requests)
            .field("notifications", &notifications)
            .finish()
    }
}

/// The params of method `name` decoded as `T` (absent params read as
/// `{}`): -32602 naming the method and the member at fault otherwise.
fn decode<T: FromValue>(name: &str, params: Option<Value>) -> Result<T, ErrorObject> {
    let params = params.unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    T::from_value(params).map_err(|e| {
        ErrorObject::invalid_params(format!("invalid params for {name}: {}", e.at_key("params")))
    })
}

impl<S: 'static, C: 'static, R: FromResult> Router<S, C, R> {
    /// A router with no handler: every request is -32601.
    pub fn new() -> Self {
        Self::default()
    }

    /// Routes requests of method `M` to `handler`, which gets the params
    /// decoded as `M::Params` and answers with an `M::Result`. Params that
    /// do not decode are answered -32602 without calling it. A second
    /// handler for the same method replaces the first.
    pub fn request<M>(
        &mut self,
        handler: impl Fn(&mut S, C, M::Params) -> Answer<M::Result> + Send + Sync + 'static,
    ) -> &mut Self
    where
        M: Method,
        M::Result: Send + 'static,
    {
        self.request_params::<M>(move |state, cx, params| {
            match decode::<M::Params>(M::METHOD, params) {
                Ok(params) => handler(state, cx, params),
                Err(error) => Answer::Now(Err(error)),
            }
        })
    }

    /// As [`Router::request`], for a handler that reads the params itself
    /// (to name what is wrong in its own words, or to read members its
    /// params type does not have); its result is still an `M::Result`.
    pub fn request_params<M>(
        &mut self,
        handler: impl Fn(&mut S, C, Option<Value>) -> Answer<M::Result> + Send + Sync + 'static,
    ) -> &mut Self
    where
        M: Method,
        M::Result: Send + 'static,
    {
        self.request_erased::<M>(move |state, cx, params| {
            handler(state, cx, params).map(|result| R::from_result(&result))
        })
    }

    /// As [`Router::request_params`], for a handler whose result is in
    /// the erased form already (a result kept as serialized text, say).
    /// Prefer the typed registrations: this one cannot check the result's
    /// type.
    pub fn request_erased<M: Method>(
        &mut self,
        handler: impl Fn(&mut S, C, Option<Value>) -> Answer<R> + Send + Sync + 'static,
    ) -> &mut Self {
        self.requests
            .insert(M::METHOD, Handler::Decoded(Box::new(handler)));
        self
    }

    /// Routes requests of method `M` to `handler` with their params as
    /// the text they came in, never decoded (a call forwarded byte for
    /// byte); the handler answers the request itself. No context is built
    /// for them.
    pub fn request_text<M: Method>(
        &mut self,
        handler: impl Fn(&mut S, RequestId, Option<Box<RawValue>>) + Send + Sync + 'static,
    ) -> &mut Self {
        self.requests
            .insert(M::METHOD, Handler::Text(Box::new(handler)));
        self
    }

    /// Routes notifications of method `N` to `handler`, with the params
    /// decoded as `N::Params`; params that do not decode call nothing
    /// ([`Notified::Malformed`]).
    pub fn notification<N: NotificationMethod>(
        &mut self,
        handler: impl Fn(&mut S, N::Params) + Send + Sync + 'static,
    ) -> &mut Self {
        self.notifications.insert(
            N::METHOD,
            Box::new(
                move |state, params| match decode::<N::Params>(N::METHOD, params) {
                    Ok(params) => {
                        handler(state, params);
                        Notified::Handled
                    }
                    Err(error) => Notified::Malformed(error),
                },
            ),
        );
        self
    }

    /// Whether requests of `method` have a handler.
    pub fn handles(&self, method: &str) -> bool {
        self.requests.contains_key(method)
    }

    /// Routes `request`. A handler of text ([`Router::request_text`]) gets
    /// it as it is. Otherwise the params are read as JSON, `context`
    /// builds the request's context from the state, id, method and params
    /// (its error is the answer; it runs for a method no handler has too,
    /// so a request the embedder must refuse first is refused the same
    /// way), and the method's handler answers; a method without one is
    /// -32601.
    pub fn dispatch<F>(&self, state: &mut S, request: Request, context: F) -> Dispatch<R>
    where
        F: FnOnce(&mut S, &RequestId, &str, Option<&Value>) -> Result<C, ErrorObject>,
    {
        let handler = self.requests.get(request.method.as_str());
        if let Some(Handler::Text(handler)) = handler {
            handler(state, request.id, request.params);
            return Dispatch::Taken;
        }
        let params = match request.params_value() {
            Ok(params) => params,
            Err(error) => return Dispatch::Answer(request.id, Answer::Now(Err(error))),
        };
        let Request { id, method, .. } = request;
        let cx = match context(state, &id, &method, params.as_ref()) {
            Ok(cx) => cx,
            Err(error) => return Dispatch::Answer(id, Answer::Now(Err(error))),
        };
        let answer = match handler {
            Some(Handler::Decoded(handler)) => handler(state, cx, params),
            _ => Answer::Now(Err(ErrorObject::method_not_found(&method))),
        };
        Dispatch::Answer(id, answer)
    }

    /// Routes `notification` to its method's handler.
    pub fn notify(&self, state: &mut S, notification: Notification) -> Notified {
        let Some(handler) = self.notifications.get(notification.method.as_str()) else {
            return Notified::Unknown;
        };
        handler(state, notification.params)
    }
}
