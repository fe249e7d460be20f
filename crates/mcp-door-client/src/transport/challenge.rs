//! A 401 from the door (RFC 9728 §5.1, HIP-0300 §2.2): the resource
//! metadata URL its `Bearer` challenge names, relayed to the caller only
//! when it is safe to show, else the origin's well-known URL.

use reqwest::Url;
use reqwest::header::{self, HeaderMap};

use crate::bearer::Bearer;

/// Longest resource metadata URL relayed from a 401, in bytes.
const MAX_METADATA_URL_BYTES: usize = 2048;

/// The resource metadata URL of a 401 (RFC 9728 §5.1): the
/// `resource_metadata` parameter of a `Bearer` challenge when
/// [`check_metadata_url`] accepts it, else
/// `<origin>/.well-known/oauth-protected-resource` (HIP-0300 §2.2). The URL
/// ends up in a tool result and on stderr, so a refused one is replaced,
/// with one warning that does not show it.
pub(super) fn resource_metadata(url: &Url, headers: &HeaderMap, bearer: Option<&Bearer>) -> String {
    let origin = url.origin().ascii_serialization();
    let fallback = format!("{origin}/.well-known/oauth-protected-resource");
    let offered = headers
        .get_all(header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(challenge_parameter);
    let Some(offered) = offered else {
        return fallback;
    };
    match check_metadata_url(&offered, bearer) {
        Ok(()) => offered,
        Err(reason) => {
            tracing::warn!(
                door = %origin,
                "the door's 401 named a resource metadata URL that {reason}; naming {fallback} instead"
            );
            fallback
        }
    }
}

/// `resource_metadata` from one `WWW-Authenticate` value, quoted or not,
/// as the door wrote it (checked by [`check_metadata_url`]).
fn challenge_parameter(value: &str) -> Option<String> {
    let start = value.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &value[start..];
    let found = if let Some(quoted) = rest.strip_prefix('"') {
        &quoted[..quoted.find('"')?]
    } else {
        rest.split([',', ' ']).next()?
    };
    Some(found.to_owned())
}

/// Whether a door's resource metadata URL may be shown to the caller: at
/// most [`MAX_METADATA_URL_BYTES`], no control character, an absolute
/// `https` URL (`http` only for the loopback hosts `127.0.0.1`, `::1` and
/// `localhost`), no user name or password, and not holding the bearer,
/// as is or percent-encoded (a hostile door could reflect it). `Err` says
/// why, without repeating the URL.
fn check_metadata_url(offered: &str, bearer: Option<&Bearer>) -> Result<(), &'static str> {
    if offered.len() > MAX_METADATA_URL_BYTES {
        return Err("is longer than 2048 bytes");
    }
    if offered.chars().any(char::is_control) {
        return Err("holds a control character");
    }
    let parsed = Url::parse(offered).map_err(|_| "is not an absolute URL")?;
    // The parser writes hosts in canonical form: lower case, IPv6 in brackets.
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"));
    match parsed.scheme() {
        "https" if parsed.host_str().is_some_and(|h| !h.is_empty()) => {}
        "http" if loopback => {}
        _ => return Err("is not an https URL (http only for a loopback host)"),
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("carries a user name or password");
    }
    if let Some(bearer) = bearer {
        let secret = bearer.expose_secret();
        if offered.contains(secret) || percent_decode(offered).contains(secret) {
            return Err("holds the bearer");
        }
    }
    Ok(())
}

/// `text` with every `%XX` escape decoded (bytes that do not form UTF-8
/// become U+FFFD); a `%` not followed by two hex digits stays as it is.
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn challenge_parameter_reads_quoted_and_bare() {
        assert_eq!(
            challenge_parameter(
                r#"Bearer resource_metadata="https://api.hanzo.ai/.well-known/oauth-protected-resource""#
            ),
            Some("https://api.hanzo.ai/.well-known/oauth-protected-resource".to_owned())
        );
        assert_eq!(
            challenge_parameter(
                "Bearer realm=x, resource_metadata=https://a.example/m, error=invalid_token"
            ),
            Some("https://a.example/m".to_owned())
        );
        assert_eq!(challenge_parameter("Bearer"), None);
        assert_eq!(
            challenge_parameter(r#"Bearer resource_metadata="not a url""#),
            Some("not a url".to_owned())
        );
    }

    #[test]
    fn metadata_urls_are_checked_before_they_are_relayed() {
        let bearer = Bearer::new("sk+tok/9=").expect("bearer");
        let check = |url: &str| check_metadata_url(url, Some(&bearer));
        assert_eq!(check("https://auth.example/.well-known/x"), Ok(()));
        assert_eq!(check("http://127.0.0.1:9/m"), Ok(()));
        assert_eq!(check("http://[::1]:9/m"), Ok(()));
        assert_eq!(check("http://LocalHost/m"), Ok(()));
        let not_https = Err("is not an https URL (http only for a loopback host)");
        assert_eq!(check("http://auth.example/m"), not_https);
        assert_eq!(check("http://127.0.0.2/m"), not_https);
        assert_eq!(check("javascript:alert(1)"), not_https);
        assert_eq!(check("file:///etc/passwd"), not_https);
        assert_eq!(check("not a url"), Err("is not an absolute URL"));
        assert_eq!(check("/relative/path"), Err("is not an absolute URL"));
        assert_eq!(
            check("https://a.example/\tx"),
            Err("holds a control character")
        );
        let long = format!("https://a.example/{}", "a".repeat(2048));
        assert_eq!(check(&long), Err("is longer than 2048 bytes"));
        let longest = format!("https://a.example/{}", "a".repeat(2048 - 18));
        assert_eq!(longest.len(), 2048);
        assert_eq!(check(&longest), Ok(()));
        assert_eq!(
            check("https://user:pw@a.example/m"),
            Err("carries a user name or password")
        );
        assert_eq!(
            check("https://a.example/m?t=sk+tok/9="),
            Err("holds the bearer")
        );
        assert_eq!(
            check("https://a.example/m?t=sk%2Btok%2F9%3D"),
            Err("holds the bearer")
        );
        assert_eq!(
            check("https://a.example/m?t=%73k%2btok%2f9%3d"),
            Err("holds the bearer")
        );
        assert_eq!(check("https://a.example/sk+tok"), Ok(()));
        assert_eq!(
            check_metadata_url("https://a.example/m?t=sk+tok/9=", None),
            Ok(())
        );
    }

    #[test]
    fn percent_decode_decodes_only_whole_escapes() {
        assert_eq!(percent_decode("a%2Fb%2fc"), "a/b/c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%+f%zz%4"), "%+f%zz%4");
        assert_eq!(percent_decode("%E4%B8%96"), "世");
        assert_eq!(percent_decode("%FF"), "\u{FFFD}");
    }

    #[test]
    fn a_refused_metadata_url_falls_back_to_the_origin() {
        let url = Url::parse("http://127.0.0.1:4000/v1/mcp").expect("url");
        let bearer = Bearer::new("sk-secret").expect("bearer");
        let mut headers = HeaderMap::new();
        let mut answer = |value: &'static str| {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(value));
            resource_metadata(&url, &headers, Some(&bearer))
        };
        let fallback = "http://127.0.0.1:4000/.well-known/oauth-protected-resource";
        assert_eq!(
            answer(r#"Bearer resource_metadata="https://evil.example/?k=sk-secret""#),
            fallback
        );
        assert_eq!(
            answer(r#"Bearer resource_metadata="javascript:x""#),
            fallback
        );
        assert_eq!(answer("Bearer"), fallback);
        assert_eq!(
            answer(r#"Bearer resource_metadata="https://auth.example/m""#),
            "https://auth.example/m"
        );
    }
}
