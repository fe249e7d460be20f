//! The address guard: which addresses a request may connect to, and the
//! resolver hook that enforces it at connection time.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The variable that allows private addresses (`1`, `true`, `yes` or `on`).
pub const ALLOW_PRIVATE_VAR: &str = "HANZO_MCP_FETCH_ALLOW_PRIVATE";

/// Why an address is refused by default: it reaches the machine itself or
/// the network it sits in rather than the public internet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddressClass {
    /// 127.0.0.0/8, `::1`.
    Loopback,
    /// RFC 1918: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16.
    Private,
    /// RFC 6598 shared address space (carrier-grade NAT): 100.64.0.0/10.
    SharedAddressSpace,
    /// 169.254.0.0/16 and `fe80::/10`; cloud metadata endpoints such as
    /// 169.254.169.254 live here.
    LinkLocal,
    /// IPv6 unique-local `fc00::/7` (and the deprecated site-local
    /// `fec0::/10`).
    UniqueLocal,
    /// 224.0.0.0/4, `ff00::/8`.
    Multicast,
    /// 0.0.0.0/8 ("this network"), `::`.
    Unspecified,
    /// 255.255.255.255, 240.0.0.0/4, 192.0.0.0/24, 198.18.0.0/15, the
    /// documentation ranges 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24
    /// (RFC 5737) and `2001:db8::/32`, the 6to4 relay 192.88.99.0/24,
    /// local-use NAT64 `64:ff9b:1::/48`, Teredo `2001::/32`, discard-only
    /// `100::/64`: not routable on the public internet.
    Reserved,
    /// An address of one of this machine's own network interfaces: a
    /// service listening on every address (`0.0.0.0`, `::`) answers
    /// there, whatever range the address is in.
    ThisHost,
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AddressClass::Loopback => "a loopback address",
            AddressClass::Private => "a private address (RFC 1918)",
            AddressClass::SharedAddressSpace => "a shared address (RFC 6598)",
            AddressClass::LinkLocal => "a link-local address (where cloud metadata services live)",
            AddressClass::UniqueLocal => "a unique-local IPv6 address",
            AddressClass::Multicast => "a multicast address",
            AddressClass::Unspecified => "an unspecified address",
            AddressClass::Reserved => "a reserved address",
            AddressClass::ThisHost => "an address of this machine",
        })
    }
}

/// The class of `ip` if it is refused by default, `None` for a public
/// address. IPv4 addresses embedded in IPv6 (IPv4-mapped `::ffff:a.b.c.d`,
/// IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are
/// judged by the IPv4 address they carry.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (127, ..) => AddressClass::Loopback,
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => AddressClass::Private,
        (100, 64..=127, _) => AddressClass::SharedAddressSpace,
        (169, 254, _) => AddressClass::LinkLocal,
        (0, ..) => AddressClass::Unspecified,
        (224..=239, ..) => AddressClass::Multicast,
        (240..=255, ..)
        | (192, 0, 0 | 2)
        | (192, 88, 99)
        | (198, 18..=19, _)
        | (198, 51, 100)
        | (203, 0, 113) => AddressClass::Reserved,
        _ => return None,
    })
}

/// The IPv4 address an IPv6 address carries, if it is of a form that
/// reaches it: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), NAT64
/// (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::/48`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let (s, o) = (ip.segments(), ip.octets());
    if s[..6] == [0, 0, 0, 0, 0, 0xffff]
        || s[..6] == [0; 6]
        || s[..6] == [0, 0, 0, 0, 0xffff, 0]
        || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0]
    {
        return Some(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
    }
    (s[0] == 0x2002).then(|| Ipv4Addr::new(o[2], o[3], o[4], o[5]))
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    if ip.is_unspecified() {
        return Some(AddressClass::Unspecified);
    }
    if ip.is_loopback() {
        return Some(AddressClass::Loopback);
    }
    let s = ip.segments();
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    // Local-use NAT64, Teredo, documentation, discard-only.
    if (s[0], s[1], s[2]) == (0x64, 0xff9b, 1)
        || (s[0], s[1]) == (0x2001, 0)
        || (s[0], s[1]) == (0x2001, 0xdb8)
        || s[..4] == [0x100, 0, 0, 0]
    {
        return Some(AddressClass::Reserved);
    }
    match s[0] {
        0xfc00..=0xfdff | 0xfec0..=0xfeff => Some(AddressClass::UniqueLocal),
        0xfe80..=0xfebf => Some(AddressClass::LinkLocal),
        0xff00..=0xffff => Some(AddressClass::Multicast),
        _ => None,
    }
}

/// Which addresses outbound requests may reach, shared by `fetch` and `ui`.
///
/// By default every address [`classify`] names is refused. The policy is
/// applied by [`GuardedResolver`] to every address a name resolves to, to
/// address literals before connecting, and again to the peer address of
/// each response, on every redirect hop.
#[derive(Debug, Clone, Default)]
pub struct NetPolicy {
    /// Allow every address, private ones included (`--fetch-allow-private`,
    /// [`ALLOW_PRIVATE_VAR`]). Default false.
    pub allow_private: bool,
    /// Addresses treated as public even though [`classify`] names them
    /// (a known internal host; loopback servers in tests). Default empty.
    pub allowed_addrs: Vec<IpAddr>,
    /// Names answered without DNS, like a hosts file of the tools' own;
    /// their answers still pass the policy. Default empty.
    pub hosts: Vec<(String, Vec<IpAddr>)>,
}

impl NetPolicy {
    /// The default policy, with `allow_private` read from
    /// [`ALLOW_PRIVATE_VAR`].
    pub fn from_env() -> NetPolicy {
        let allow = std::env::var(ALLOW_PRIVATE_VAR).is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        });
        NetPolicy {
            allow_private: allow,
            ..NetPolicy::default()
        }
    }

    /// `Ok` when `ip` may be connected to; else the refusal, naming `host`
    /// (how the caller spelled it) and the address class.
    pub fn check(&self, host: &str, ip: IpAddr) -> Result<(), Refused> {
        if self.allow_private || self.allowed_addrs.contains(&ip) {
            return Ok(());
        }
        match classify(ip).or_else(|| this_host(ip).then_some(AddressClass::ThisHost)) {
            None => Ok(()),
            Some(class) => Err(Refused {
                host: host.to_owned(),
                addr: ip,
                class,
            }),
        }
    }
}

/// Whether `ip` is an address of one of this machine's network interfaces,
/// as they are now (`getifaddrs`); `true` when they cannot be read (the
/// request is refused rather than risked).
fn this_host(ip: IpAddr) -> bool {
    // `::ffff:a.b.c.d` and the other forms carrying an IPv4 address reach
    // that address.
    let carried = match ip {
        IpAddr::V6(v6) => embedded_v4(v6).map(IpAddr::V4),
        IpAddr::V4(_) => None,
    };
    if_addrs::get_if_addrs().map_or(true, |interfaces| {
        interfaces
            .iter()
            .any(|interface| interface.ip() == ip || Some(interface.ip()) == carried)
    })
}

/// A request refused because its host is, or resolves to, an address of a
/// refused [`AddressClass`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The host as the URL named it.
    pub host: String,
    /// The refused address.
    pub addr: IpAddr,
    /// Its class.
    pub class: AddressClass,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let addr = self.addr.to_string();
        if self.host.trim_matches(['[', ']']) == addr {
            write!(f, "refused: {addr} is {}", self.class)?;
        } else {
            write!(
                f,
                "refused: '{}' resolves to {addr}, {}",
                self.host, self.class
            )?;
        }
        write!(
            f,
            "; requests to loopback, private, link-local and other internal addresses are off \
             (allow them with --fetch-allow-private or {ALLOW_PRIVATE_VAR}=1)"
        )
    }
}

impl std::error::Error for Refused {}

/// A name lookup: the addresses `host` resolves to.
pub type LookupFn = dyn Fn(&str) -> std::io::Result<Vec<IpAddr>> + Send + Sync;

/// The resolver hook of the tools' HTTP client: resolves a name (the
/// system resolver, or a lookup given for tests), then refuses the whole
/// name if any address it resolved to is refused by the [`NetPolicy`].
///
/// The client connects only to the addresses this returns, so the address
/// checked is the address connected to: a DNS answer that changes between
/// a check and the connection cannot slip through, because there is no
/// separate check.
#[derive(Clone)]
pub struct GuardedResolver {
    policy: Arc<NetPolicy>,
    lookup: Option<Arc<LookupFn>>,
}

impl fmt::Debug for GuardedResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuardedResolver")
            .field("policy", &self.policy)
            .field("custom_lookup", &self.lookup.is_some())
            .finish()
    }
}

impl GuardedResolver {
    /// A resolver using the system resolver (`getaddrinfo` on tokio's
    /// blocking pool).
    pub fn new(policy: Arc<NetPolicy>) -> GuardedResolver {
        GuardedResolver {
            policy,
            lookup: None,
        }
    }

    /// A resolver whose answers come from `lookup` instead of the system.
    pub fn with_lookup(
        policy: Arc<NetPolicy>,
        lookup: impl Fn(&str) -> std::io::Result<Vec<IpAddr>> + Send + Sync + 'static,
    ) -> GuardedResolver {
        GuardedResolver {
            policy,
            lookup: Some(Arc::new(lookup)),
        }
    }

    /// Resolves `host` and checks every address; the port of each
    /// returned address is 0 (the client puts in the URL's port).
    ///
    /// Errors: the lookup's error, no address, or [`Refused`] for the
    /// first refused address.
    pub async fn resolve_checked(&self, host: &str) -> Result<Vec<IpAddr>, ResolveError> {
        let key = host.trim_end_matches('.').to_ascii_lowercase();
        let addrs = if let Some((_, fixed)) = self.policy.hosts.iter().find(|(n, _)| *n == key) {
            fixed.clone()
        } else if let Some(lookup) = &self.lookup {
            lookup(&key).map_err(|e| ResolveError::Lookup(host.to_owned(), e.to_string()))?
        } else {
            tokio::net::lookup_host((key.as_str(), 0))
                .await
                .map_err(|e| ResolveError::Lookup(host.to_owned(), e.to_string()))?
                .map(|a| a.ip())
                .collect()
        };
        if addrs.is_empty() {
            return Err(ResolveError::Lookup(
                host.to_owned(),
                "no address".to_owned(),
            ));
        }
        for ip in &addrs {
            self.policy
                .check(host, *ip)
                .map_err(ResolveError::Refused)?;
        }
        Ok(addrs)
    }
}

/// Why [`GuardedResolver`] gave no address.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResolveError {
    /// The name did not resolve: the name and the resolver's message.
    Lookup(String, String),
    /// The name resolves to a refused address.
    Refused(Refused),
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::Lookup(host, why) => write!(f, "cannot resolve '{host}': {why}"),
            ResolveError::Refused(refused) => refused.fmt(f),
        }
    }
}

impl std::error::Error for ResolveError {}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        Box::pin(async move {
            let addrs = this.resolve_checked(name.as_str()).await?;
            let addrs: Addrs = Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let cases: &[(&str, Option<AddressClass>)] = &[
            ("127.0.0.1", Some(AddressClass::Loopback)),
            ("127.255.0.9", Some(AddressClass::Loopback)),
            ("::1", Some(AddressClass::Loopback)),
            ("::ffff:127.0.0.1", Some(AddressClass::Loopback)),
            ("::127.0.0.1", Some(AddressClass::Loopback)),
            ("64:ff9b::10.0.0.1", Some(AddressClass::Private)),
            ("2002:a9fe:a9fe::1", Some(AddressClass::LinkLocal)),
            ("10.0.0.1", Some(AddressClass::Private)),
            ("172.31.255.255", Some(AddressClass::Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(AddressClass::Private)),
            ("100.64.0.1", Some(AddressClass::SharedAddressSpace)),
            ("100.100.100.200", Some(AddressClass::SharedAddressSpace)),
            ("169.254.169.254", Some(AddressClass::LinkLocal)),
            ("::ffff:169.254.169.254", Some(AddressClass::LinkLocal)),
            ("fe80::1", Some(AddressClass::LinkLocal)),
            ("fd00:ec2::254", Some(AddressClass::UniqueLocal)),
            ("fc00::1", Some(AddressClass::UniqueLocal)),
            ("0.0.0.0", Some(AddressClass::Unspecified)),
            ("::", Some(AddressClass::Unspecified)),
            ("224.0.0.1", Some(AddressClass::Multicast)),
            ("ff02::1", Some(AddressClass::Multicast)),
            ("255.255.255.255", Some(AddressClass::Reserved)),
            ("192.0.2.2", Some(AddressClass::Reserved)),
            ("198.51.100.7", Some(AddressClass::Reserved)),
            ("203.0.113.9", Some(AddressClass::Reserved)),
            ("192.88.99.1", Some(AddressClass::Reserved)),
            ("192.0.3.1", None),
            ("::ffff:0:127.0.0.1", Some(AddressClass::Loopback)),
            ("::ffff:0:10.1.2.3", Some(AddressClass::Private)),
            ("64:ff9b:1::7f00:1", Some(AddressClass::Reserved)),
            ("2001::1", Some(AddressClass::Reserved)),
            ("2001:db8::1", Some(AddressClass::Reserved)),
            ("100::1", Some(AddressClass::Reserved)),
            ("2001:4860::8888", None),
            ("8.8.8.8", None),
            ("93.184.215.14", None),
            ("2606:4700::1111", None),
        ];
        for (text, class) in cases {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(classify(ip), *class, "{text}");
        }
    }

    #[test]
    fn every_address_of_this_machine_is_refused() {
        // A service listening on 0.0.0.0 answers on each of them, public
        // or not.
        let policy = NetPolicy::default();
        let interfaces = if_addrs::get_if_addrs().unwrap();
        assert!(!interfaces.is_empty());
        for interface in interfaces {
            let refused = policy.check("here", interface.ip()).unwrap_err();
            let class = classify(interface.ip()).unwrap_or(AddressClass::ThisHost);
            assert_eq!(refused.class, class, "{}", interface.ip());
        }
        assert!(!this_host("8.8.8.8".parse().unwrap()));
        // The IPv6 forms that carry one of its IPv4 addresses reach it too.
        for interface in if_addrs::get_if_addrs().unwrap() {
            if let IpAddr::V4(v4) = interface.ip() {
                let [a, b, c, d] = v4.octets();
                for text in [
                    format!("::ffff:{v4}"),
                    format!("64:ff9b::{v4}"),
                    format!("2002:{a:02x}{b:02x}:{c:02x}{d:02x}::1"),
                ] {
                    let ip: IpAddr = text.parse().unwrap();
                    assert!(this_host(ip), "{text}");
                }
            }
        }
    }
}
