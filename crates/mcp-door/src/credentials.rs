//! The caller's credential headers (HIP-0300 §1.6): `Authorization`,
//! `X-Authorization` and `Cookie`. The door carries them to the upstream
//! and validates none of them.

use std::fmt;

use axum::http::{HeaderMap, HeaderName, HeaderValue};

/// The credential header names, lower case, in the order they are sent.
pub const CREDENTIAL_HEADERS: [&str; 3] = ["authorization", "x-authorization", "cookie"];

/// [`CREDENTIAL_HEADERS`] as header names, made once.
const CREDENTIAL_NAMES: [HeaderName; 3] = [
    HeaderName::from_static(CREDENTIAL_HEADERS[0]),
    HeaderName::from_static(CREDENTIAL_HEADERS[1]),
    HeaderName::from_static(CREDENTIAL_HEADERS[2]),
];

/// The credential headers of one request, as the caller sent them. `Debug`
/// shows their names only, never their values.
#[derive(Clone, Default)]
pub struct Credentials {
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl Credentials {
    /// The non-empty credential headers of `headers`.
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let mut out = Vec::new();
        for name in &CREDENTIAL_NAMES {
            for value in headers.get_all(name) {
                if !value.as_bytes().iter().all(u8::is_ascii_whitespace) {
                    out.push((name.clone(), value.clone()));
                }
            }
        }
        Self { headers: out }
    }

    /// Whether the request carried no credential at all.
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
    }

    /// Adds the credential headers to `headers`, replacing any of the same name.
    pub(crate) fn apply(&self, headers: &mut HeaderMap) {
        for (name, _) in &self.headers {
            headers.remove(name);
        }
        for (name, value) in &self.headers {
            let mut value = value.clone();
            value.set_sensitive(true);
            headers.append(name.clone(), value);
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.headers.iter().map(|(n, _)| n.as_str()))
            .finish()
    }
}
