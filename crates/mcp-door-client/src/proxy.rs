//! The proxy variables of the environment, read as reqwest reads them
//! (hyper-util's matcher), so that a proxy named but unusable is found
//! before a request goes straight to its host, past the proxy the
//! operator named.

/// The proxy matcher reqwest uses.
type Matcher = hyper_util::client::proxy::matcher::Matcher;

/// The environment variables that name proxies, as reqwest reads them (an
/// upper-case name before its lower-case partner; `NO_PROXY`/`no_proxy`
/// only narrow them). [`check_proxy_environment`] checks them.
pub const PROXY_VARIABLES: [&str; 6] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// Why the proxy variables of the environment would not be used as they
/// say, if they would not: a value reqwest cannot read as a proxy (it
/// would then send calls straight to the upstream, past the proxy the
/// operator named), an empty upper-case name hiding a lower-case one
/// (`HTTP_PROXY=` with `http_proxy` set), or any of them while
/// `REQUEST_METHOD` is set (a CGI environment, in which reqwest ignores
/// them all). `hanzo-mcp door` refuses to
/// start then, and `hanzo-mcp serve` leaves the door off (its bearer is
/// never sent past the proxy).
///
/// # Errors
/// The text names the variable and what is wrong with it.
pub fn check_proxy_environment() -> Result<(), String> {
    let probe = http::Uri::from_static("http://upstream.invalid/");
    // reqwest reads the upper-case name first, empty or not.
    for pair in PROXY_VARIABLES.chunks(2) {
        let (upper, lower) = (pair[0], pair[1]);
        if std::env::var_os(upper).is_some_and(|v| v.is_empty())
            && std::env::var_os(lower).is_some_and(|v| !v.is_empty())
        {
            return Err(format!(
                "{upper} is set but empty, which hides {lower}: reqwest would use no proxy; \
                 unset {upper} or give it the proxy"
            ));
        }
    }
    for var in PROXY_VARIABLES {
        let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) else {
            continue;
        };
        if std::env::var_os("REQUEST_METHOD").is_some() {
            return Err(format!(
                "{var} is set, but proxies are ignored while REQUEST_METHOD is set (a CGI \
                 environment); unset one of them"
            ));
        }
        let value = value.to_string_lossy();
        let alone = Matcher::builder().http(value.as_ref()).build();
        if alone.intercept(&probe).is_none() {
            return Err(format!(
                "{var}={value:?} is not a proxy URL (http, https, socks4, socks4a, socks5 or \
                 socks5h, and a host); fix or unset it"
            ));
        }
    }
    Ok(())
}

/// Whether any of [`PROXY_VARIABLES`] is set and not empty (reqwest then
/// sends requests through a proxy, unless `NO_PROXY` names their host).
pub fn proxy_named() -> bool {
    PROXY_VARIABLES
        .iter()
        .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
}
