//! The `door` source as `hanzo-mcp` composes it: built only when a request
//! needs it, and never waited for while its address refuses connections.
//!
//! Building the door's HTTP client loads the system's TLS roots (about 19
//! million instructions, several milliseconds, and their memory): work a
//! session that only uses local tools never needs, and that must not stand
//! between spawn and the `initialize` answer. So the door is built (on the
//! blocking pool) by the first `tools/list` or the first call of a name no
//! local tool has, and then fetches its list. Before that only a TCP
//! connect to the door's host and port is tried (the probe). It starts
//! when something first asks: [`DoorProbe::start`],
//! [`DoorProbe::reach_within`] (`hanzo-mcp serve`'s start-up line asks,
//! over stdio just after the first answer is written, so not even the
//! connect stands between spawn and the `initialize` answer), the first
//! `tools/list` or the first call for the door. What it finds:
//!
//! - accepted, or not known (the probe still runs after
//!   [`PROBE_HEAD_START`]; it is not tried at all when a proxy is
//!   configured, which the probe would bypass): `tools/list` builds the
//!   door and waits for its list at most `--door-wait` (HIP-0300 §2.2);
//! - refused, or no address to connect to: the door cannot answer now, so
//!   `tools/list` answers without it at once and builds nothing. A later
//!   `tools/list` probes again (at most once per the door's
//!   [`retry_after`](mcp_door_client::CachePolicy::retry_after)); a door
//!   that has come up is then built on the next `tools/list`, and its
//!   tools are announced with `notifications/tools/list_changed` when they
//!   arrive.
//!
//! A call of a name no local tool has builds the door and waits for it
//! whatever the probe said: it is forwarded, or answered with the door's
//! failure.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use mcp_door_client::{DoorClient, DoorClientConfig, DoorStatus, OutageLog};
use mcp_local_tools::{DoorReport, Surroundings};
use tokio::sync::watch;

use crate::door::DoorSource;
use crate::source::{
    BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource, unknown_tool,
};

/// How long a `tools/list` gives the first probe before it builds the
/// door anyway: enough for a refusal on this machine or the local network
/// (microseconds), not a round trip to a door far away, whose build then
/// runs alongside its connect.
const PROBE_HEAD_START: Duration = Duration::from_millis(5);

/// Where the door's handle is.
#[derive(Clone)]
enum DoorSlot {
    /// Not built: no request needed it yet.
    Idle,
    /// Being built on the blocking pool.
    Building,
    /// Built and fetching.
    Ready(DoorSource),
    /// Its configuration was refused (logged): local tools only.
    Off,
}

/// What the probe found at the door's host and port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Not known: the probe runs, or was not tried.
    Unknown,
    /// A connection was accepted.
    Open,
    /// Refused, or no address to connect to.
    Unreachable,
}

/// What building the door takes; the first build takes it.
struct Build {
    config: DoorClientConfig,
    wait: Duration,
}

struct Shared {
    slot: watch::Sender<DoorSlot>,
    reach: watch::Sender<Reach>,
    /// The door's list generations, relayed once it is built.
    generations: watch::Sender<u64>,
    build: Mutex<Option<Build>>,
    surroundings: Surroundings,
    address: String,
    /// When the last probe started, and the shortest time between two.
    last_probe: Mutex<Instant>,
    retry_after: Duration,
    /// The outage lines, shared with the door once it is built.
    outage: OutageLog,
    /// Why the last probe found the door unreachable.
    why: Mutex<String>,
    /// Whether the first probe has finished (or none runs).
    probed: watch::Sender<bool>,
    /// Why no probe runs, when none does.
    unprobed: Option<String>,
    /// Where the first probe connects, until something starts it.
    held_probe: Mutex<Option<(String, u16)>>,
}

/// What the first TCP connect to the door's host and port found: the
/// door's state in `hanzo-mcp serve`'s start-up line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DoorReach {
    /// A connection was accepted (whether the door answers MCP is known at
    /// the first `tools/list`).
    Reachable,
    /// Refused, no route, or the name does not resolve; why, in one line.
    Unreachable(String),
    /// Not known yet: why (behind a proxy, still connecting).
    NotKnown(String),
}

/// A handle on the door source of an [`Assembly`](crate::assembly::Assembly)
/// that starts the first connect to the door and tells what it found, for
/// a start-up line.
#[derive(Debug, Clone)]
pub struct DoorProbe {
    door: Arc<DeferredDoor>,
}

impl DoorProbe {
    pub(crate) fn new(door: Arc<DeferredDoor>) -> Self {
        Self { door }
    }

    /// The door's address as configured (HIP-0300 §2.2).
    pub fn address(&self) -> &str {
        self.door.address()
    }

    /// Starts the first connect to the door, unless it has started (or no
    /// connect is tried: an address that is not http(s), a proxy). Outside
    /// a Tokio runtime it does nothing.
    pub fn start(&self) {
        self.door.start_probe();
    }

    /// What the first connect to the door found, waiting for it at most
    /// `within` (it is started first when nothing has started it).
    pub async fn reach_within(&self, within: Duration) -> DoorReach {
        self.door.reach_within(within).await
    }

    /// Takes the report of the door's current outage: `true` when nobody
    /// has reported it yet, and the caller now says it in a line of its
    /// own (then no other outage line follows until the door answers
    /// again, whose recovery line still comes); `false` when it was
    /// reported already.
    pub fn take_outage_report(&self) -> bool {
        self.door.shared.outage.take_report()
    }
}

/// The `door` source, built once it may be needed (see the module docs).
pub(crate) struct DeferredDoor {
    shared: Arc<Shared>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl DeferredDoor {
    /// The door of `config`: builds nothing and connects nowhere; the
    /// probe starts when something first asks (see the module docs). Once
    /// built the door fetches its list (`wait`: the `tools/list` budget)
    /// and reports its state to `surroundings`.
    pub(crate) fn start(
        config: DoorClientConfig,
        wait: Duration,
        surroundings: Surroundings,
    ) -> Self {
        let address = config.address.trim().to_owned();
        surroundings.set_door(Some(DoorReport {
            address: address.clone(),
            answered: None,
            note: None,
        }));
        let target = probe_target(&address);
        let unprobed = match &target {
            None => Some("not an http(s) address".to_owned()),
            Some(_) if proxy_configured() => {
                Some(match mcp_door_client::check_proxy_environment() {
                    // The client refuses to be built then (nothing is sent).
                    Err(why) => format!("off: {why}"),
                    Ok(()) => "behind a proxy: checked on first use".to_owned(),
                })
            }
            Some(_) => None,
        };
        let target = target.filter(|_| unprobed.is_none());
        Self {
            shared: Arc::new(Shared {
                slot: watch::Sender::new(DoorSlot::Idle),
                reach: watch::Sender::new(Reach::Unknown),
                generations: watch::Sender::new(0),
                retry_after: config.cache.retry_after,
                build: Mutex::new(Some(Build { config, wait })),
                surroundings,
                address,
                last_probe: Mutex::new(Instant::now()),
                outage: OutageLog::new(),
                why: Mutex::new(String::new()),
                probed: watch::Sender::new(unprobed.is_some()),
                unprobed,
                held_probe: Mutex::new(target),
            }),
        }
    }

    /// Starts the first probe, unless it has started or none is tried.
    fn start_probe(&self) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let Some(target) = lock(&self.shared.held_probe).take() else {
            return;
        };
        *lock(&self.shared.last_probe) = Instant::now();
        spawn_probe(Arc::downgrade(&self.shared), target);
    }

    fn reach(&self) -> Reach {
        *self.shared.reach.borrow()
    }

    /// Starts building the door, unless it was started before.
    fn build(&self) {
        build(&self.shared);
    }

    /// Probes again when the door is not built, the last probe found it
    /// unreachable, and that was at least `retry_after` ago. A probe that
    /// finds it open lets the next `tools/list` build it.
    fn probe_again_if_due(&self) {
        if self.reach() != Reach::Unreachable || lock(&self.shared.build).is_none() {
            return;
        }
        let Some(target) = probe_target(&self.shared.address) else {
            return;
        };
        {
            let mut last = lock(&self.shared.last_probe);
            if last.elapsed() < self.shared.retry_after {
                return;
            }
            *last = Instant::now();
        }
        if tokio::runtime::Handle::try_current().is_ok() {
            spawn_probe(Arc::downgrade(&self.shared), target);
        }
    }

    /// The door once built; `None` when it is off. Call [`Self::build`] first.
    async fn ready(&self) -> Option<DoorSource> {
        let mut slot = self.shared.slot.subscribe();
        let done = slot
            .wait_for(|slot| matches!(slot, DoorSlot::Ready(_) | DoorSlot::Off))
            .await;
        match done.as_deref() {
            Ok(DoorSlot::Ready(source)) => Some(source.clone()),
            _ => None,
        }
    }

    /// The door's list as cached now, without waiting (empty while it is
    /// not built or its first fetch runs).
    fn list_now(&self) -> SourceList {
        let DoorSlot::Ready(source) = &*self.shared.slot.borrow() else {
            return SourceList::default();
        };
        match source.door().snapshot().list {
            Some(list) => SourceList {
                tools: list.tools.clone(),
                meta: list.meta.clone(),
            },
            None => SourceList::default(),
        }
    }

    /// The outage line for what the probe found (HIP-0300 §2.2: one line
    /// per outage, shared with the door's own requests once it is built).
    fn report_unreachable(&self) {
        let why = lock(&self.shared.why).clone();
        self.shared.outage.failed(&self.shared.address, &why);
    }

    /// What the first probe found, waiting for it at most `within`.
    pub(crate) async fn reach_within(&self, within: Duration) -> DoorReach {
        if let Some(why) = &self.shared.unprobed {
            return DoorReach::NotKnown(why.clone());
        }
        self.start_probe();
        let mut probed = self.shared.probed.subscribe();
        let finished = tokio::time::timeout(within, probed.wait_for(|done| *done)).await;
        if finished.is_err() {
            return DoorReach::NotKnown("still connecting".to_owned());
        }
        match self.reach() {
            Reach::Open => DoorReach::Reachable,
            Reach::Unreachable => DoorReach::Unreachable(lock(&self.shared.why).clone()),
            Reach::Unknown => DoorReach::NotKnown(lock(&self.shared.why).clone()),
        }
    }

    /// The door's address as configured.
    pub(crate) fn address(&self) -> &str {
        &self.shared.address
    }

    /// Completes once the probe has found the door unreachable.
    async fn unreachable(&self) {
        let mut reach = self.shared.reach.subscribe();
        // The sender lives as long as `self`.
        let _ = reach.wait_for(|reach| *reach == Reach::Unreachable).await;
    }
}

/// Starts building the door of `shared` unless it was started before.
fn build(shared: &Arc<Shared>) {
    let Some(Build { config, wait }) = lock(&shared.build).take() else {
        return;
    };
    shared.slot.send_replace(DoorSlot::Building);
    let weak = Arc::downgrade(shared);
    let surroundings = shared.surroundings.clone();
    let outage = shared.outage.clone();
    tokio::spawn(async move {
        let built =
            tokio::task::spawn_blocking(move || DoorClient::with_outage_log(config, outage)).await;
        let door = match built {
            Ok(Ok(door)) => Some(door),
            Ok(Err(error)) => {
                tracing::warn!(%error, "the door is off: local tools only");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "the door is off: building it failed");
                None
            }
        };
        let Some(shared) = weak.upgrade() else {
            return;
        };
        let Some(door) = door else {
            shared.slot.send_replace(DoorSlot::Off);
            return;
        };
        report_door(&door, surroundings);
        let source = DoorSource::start(door, wait);
        let changes = source.list_changes();
        shared.slot.send_replace(DoorSlot::Ready(source));
        drop(shared);
        if let Some(mut changes) = changes {
            // The door counts from 0; a fetch that finished before this
            // subscription is a change too.
            let mut generation = *changes.borrow_and_update();
            loop {
                if generation != 0 {
                    let Some(shared) = weak.upgrade() else {
                        break;
                    };
                    shared.generations.send_replace(generation);
                }
                if changes.changed().await.is_err() {
                    break;
                }
                generation = *changes.borrow_and_update();
            }
        }
    });
}

/// Runs one probe of `target` and records what it finds for `tools/list`,
/// and an unreachable door for the local tools' report as well.
fn spawn_probe(shared: Weak<Shared>, target: (String, u16)) {
    tokio::spawn(async move {
        let (reach, why) = probe(&target.0, target.1).await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if reach != Reach::Open {
            lock(&shared.why).clone_from(&why);
        }
        shared.reach.send_replace(reach);
        shared.probed.send_replace(true);
        if reach == Reach::Unreachable && lock(&shared.build).is_some() {
            tracing::debug!(address = shared.address, why, "the door is unreachable");
            shared.surroundings.set_door(Some(DoorReport {
                address: shared.address.clone(),
                answered: Some(false),
                note: Some(why),
            }));
        }
    });
}

/// The host and port a connection to `address` goes to; `None` for what
/// does not parse as an http(s) URL with a host (the build then reports
/// it).
fn probe_target(address: &str) -> Option<(String, u16)> {
    let url = url::Url::parse(address).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let port = url.port_or_known_default()?;
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']');
    (!host.is_empty()).then(|| (host.to_owned(), port))
}

/// Whether the environment names an HTTP proxy, which the door's client
/// would connect through (so a direct connection says nothing about it).
/// Outside Linux the client may also take the system's proxy settings:
/// there every door counts as behind one.
fn proxy_configured() -> bool {
    !cfg!(target_os = "linux") || mcp_door_client::proxy_named()
}

/// A TCP connect to `host:port` (every address a name resolves to), and
/// why the door is unreachable when it is. A connect that hangs keeps the
/// probe waiting, and the door counts as not known meanwhile.
async fn probe(host: &str, port: u16) -> (Reach, String) {
    let addresses: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => match tokio::net::lookup_host((host, port)).await {
            Ok(found) => found.collect(),
            Err(error) => {
                return (
                    Reach::Unreachable,
                    format!("cannot resolve {host}: {error}"),
                );
            }
        },
    };
    let mut why = format!("{host} has no address");
    for address in addresses {
        match tokio::net::TcpStream::connect(address).await {
            Ok(_) => return (Reach::Open, String::new()),
            Err(error) if unreachable(&error) => why = format!("{address}: {error}"),
            Err(error) => return (Reach::Unknown, error.to_string()),
        }
    }
    (Reach::Unreachable, why)
}

/// Whether a connect error says nothing listens there or no route leads
/// there (as opposed to, say, running out of descriptors).
fn unreachable(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionRefused
            | ErrorKind::ConnectionReset
            | ErrorKind::HostUnreachable
            | ErrorKind::NetworkUnreachable
            | ErrorKind::AddrNotAvailable
    )
}

impl std::fmt::Debug for DeferredDoor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &*self.shared.slot.borrow() {
            DoorSlot::Idle => "idle",
            DoorSlot::Building => "building",
            DoorSlot::Ready(_) => "ready",
            DoorSlot::Off => "off",
        };
        f.debug_struct("DeferredDoor")
            .field("state", &state)
            .field("reach", &self.reach())
            .finish()
    }
}

impl ToolSource for DeferredDoor {
    fn name(&self) -> &str {
        "door"
    }

    /// `op` is the discriminator and `describe` describes an op
    /// (HIP-0300 §1.3).
    fn surface_rules(&self) -> mcp_gating::SurfaceRules {
        mcp_gating::SurfaceRules::door()
    }

    /// The door's list, waiting for it (at most `--door-wait` once built)
    /// unless the probe finds the door unreachable: then the list as
    /// cached now, without waiting. A first probe still running gets
    /// [`PROBE_HEAD_START`] before the door is built (once it is built,
    /// no list waits for the probe).
    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async move {
            self.start_probe();
            // (The reach is known only once the probe has finished.)
            let idle = matches!(*self.shared.slot.borrow(), DoorSlot::Idle);
            if idle && !*self.shared.probed.borrow() {
                // A door that refuses at once (the default address,
                // offline) is known in a few microseconds: then nothing
                // is built.
                let mut probed = self.shared.probed.subscribe();
                let _ = tokio::time::timeout(PROBE_HEAD_START, probed.wait_for(|done| *done)).await;
            }
            if self.reach() == Reach::Unreachable {
                self.report_unreachable();
                self.probe_again_if_due();
                return self.list_now();
            }
            self.build();
            let listed = async {
                match self.ready().await {
                    Some(source) => source.list_tools().await,
                    None => SourceList::default(),
                }
            };
            tokio::select! {
                biased;
                list = listed => list,
                () = self.unreachable() => {
                    self.report_unreachable();
                    self.list_now()
                }
            }
        })
    }

    /// While the door is not built, every name is taken; the call then
    /// checks with the built door (an unknown name gets -32602, as when no
    /// source owns it).
    fn owns(&self, tool: &str) -> bool {
        match &*self.shared.slot.borrow() {
            DoorSlot::Idle | DoorSlot::Building => true,
            DoorSlot::Ready(source) => source.owns(tool),
            DoorSlot::Off => false,
        }
    }

    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            self.start_probe();
            self.build();
            match self.ready().await {
                Some(source) if source.owns(call.name()) => source.call_tool(call, cx).await,
                _ => Err(unknown_tool(call.name())),
            }
        })
    }

    fn list_changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.shared.generations.subscribe())
    }

    /// The door's stamp once its first fetch has finished. While the probe
    /// finds the door unreachable and it has no list, the list is empty
    /// for now: stamp 0, the generation of a door without a list (a list
    /// arriving later bumps it). Reading it may start a probe that is due.
    fn list_stamp(&self) -> Option<u64> {
        let unreachable = self.reach() == Reach::Unreachable;
        let stamp = match &*self.shared.slot.borrow() {
            DoorSlot::Ready(source) => source.list_stamp().or(unreachable.then_some(0)),
            // Refused: it lists nothing, for good.
            DoorSlot::Off => Some(0),
            DoorSlot::Idle | DoorSlot::Building => unreachable.then_some(0),
        };
        if unreachable {
            self.probe_again_if_due();
        }
        stamp
    }
}

/// Keeps the local tools' view of the door (`workspace` `capabilities`)
/// current: its address, and whether its last list fetch answered.
fn report_door(door: &DoorClient, surroundings: Surroundings) {
    let address = door.address().to_owned();
    surroundings.set_door(Some(DoorReport {
        address: address.clone(),
        answered: None,
        note: None,
    }));
    let mut snapshots = door.subscribe();
    tokio::spawn(async move {
        while snapshots.changed().await.is_ok() {
            let status = snapshots.borrow_and_update().status.clone();
            let (answered, note) = match status {
                DoorStatus::Ready => (Some(true), None),
                DoorStatus::Unavailable { reason } => (Some(false), Some(reason)),
                DoorStatus::SignInRequired { resource_metadata } => (
                    Some(true),
                    Some(format!("sign-in required; see {resource_metadata}")),
                ),
                _ => (None, None),
            };
            surroundings.set_door(Some(DoorReport {
                address: address.clone(),
                answered,
                note,
            }));
        }
    });
}
