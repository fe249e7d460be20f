//! Redirects, followed by hand: only 307 and 308 keep the method and the
//! body, so only those are followed, at most `max_redirects` hops.

use reqwest::header::{self, HeaderMap};
use reqwest::{StatusCode, Url};

use crate::error::DoorClientError;

/// Where an answer to a POST to `current` sends it next: for a 307 or 308,
/// the URL its `Location` names (one more of `hops`, which may not pass
/// `max_redirects`); `None` when the answer is not a redirect. Any other
/// 3xx is an error, since following it would turn the POST into a GET.
pub(super) fn next_hop(
    current: &Url,
    status: StatusCode,
    headers: &HeaderMap,
    hops: &mut usize,
    max_redirects: usize,
) -> Result<Option<Url>, DoorClientError> {
    if matches!(
        status,
        StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
    ) {
        *hops += 1;
        if *hops > max_redirects {
            return Err(DoorClientError::Redirect(format!(
                "more than {max_redirects} redirects"
            )));
        }
        return redirect_target(current, headers).map(Some);
    }
    if status.is_redirection() {
        return Err(DoorClientError::Redirect(format!(
            "HTTP {} would turn the POST into a GET",
            status.as_u16()
        )));
    }
    Ok(None)
}

/// The absolute URL a 307/308 points to.
fn redirect_target(current: &Url, headers: &HeaderMap) -> Result<Url, DoorClientError> {
    let location = headers
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| DoorClientError::Redirect("no Location header".into()))?;
    let next = current
        .join(location)
        .map_err(|_| DoorClientError::Redirect("unusable Location header".into()))?;
    if !matches!(next.scheme(), "http" | "https") {
        return Err(DoorClientError::Redirect(
            "Location is not an http(s) URL".into(),
        ));
    }
    Ok(next)
}
