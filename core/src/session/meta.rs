//! The 2026-07-28 vocabulary both sides share: the `_meta` keys, its error codes, the
//! `subscriptions/listen` filter bits, the era claim, and [`Change`] (what a server
//! announces, delivered per era).

use crate::json::{Json, JsonStr};
use crate::protocol::{Caps, Method};

pub(crate) use crate::protocol::meta::{
    CLIENT_CAPABILITIES as KEY_CAPS, CLIENT_INFO as KEY_CLIENT_INFO, LOG_LEVEL as KEY_LOG_LEVEL,
    PROTOCOL_VERSION as KEY_VERSION, SERVER_INFO as KEY_SERVER_INFO,
    SUBSCRIPTION_ID as KEY_SUBSCRIPTION,
};

/// A change the host announces once; the core delivers it the right way for the
/// connection's era (an unsolicited notification in the legacy era, a tagged copy per
/// matching `subscriptions/listen` stream in the modern era), or not at all when nobody
/// asked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change<'a> {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// The resource with this URI changed.
    ResourceUpdated(&'a str),
}

pub(crate) const L_TOOLS: u8 = 1;
pub(crate) const L_PROMPTS: u8 = 2;
pub(crate) const L_RESOURCES: u8 = 4;
pub(crate) const L_SUBSCRIBE: u8 = 8;

/// True when the request claims the modern era (its `_meta` names a protocol version).
pub(crate) fn modern_claim(params: Option<Json<'_>>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .is_some_and(|m| m.get(KEY_VERSION).is_some())
}

/// Checks that an `input_required` answer only asks for input kinds the client
/// capabilities `caps` allow.
pub(crate) fn input_requests_allowed(caps: Caps, requests: Json<'_>) -> bool {
    requests.is_object()
        && requests.members().all(|(_, r)| {
            let m = r.get("method").and_then(|m| m.as_str());
            let Some(m) = m.and_then(Method::from_json_str) else {
                return false;
            };
            match m {
                Method::ElicitationCreate => {
                    let url = r
                        .get("params")
                        .and_then(|p| p.get("mode"))
                        .and_then(|m| m.as_str())
                        .is_some_and(|m| m.eq_str("url"));
                    caps.contains(if url {
                        Caps::ELICITATION_URL
                    } else {
                        Caps::ELICITATION_FORM
                    })
                }
                Method::SamplingCreateMessage => {
                    let tools = r
                        .get("params")
                        .is_some_and(crate::protocol::content::sampling_uses_tools);
                    caps.contains(Caps::SAMPLING) && (!tools || caps.contains(Caps::SAMPLING_TOOLS))
                }
                Method::RootsList => caps.contains(Caps::ROOTS),
                _ => false,
            }
        })
}

#[cfg(feature = "content-rules")]
/// Checks the content rules of each input request of an `input_required` result
/// (2026-07-28: an elicitation carries no `elicitationId`).
pub(crate) fn input_requests_content(
    requests: Json<'_>,
) -> Result<(), crate::protocol::content::ContentError> {
    use crate::protocol::content;
    let v = crate::protocol::ProtocolVersion::V2026_07_28;
    for (_, r) in requests.members() {
        let m = r.get("method").and_then(|m| m.as_str());
        let p = r.get("params").unwrap_or(Json::EMPTY_OBJECT);
        match m.and_then(Method::from_json_str) {
            Some(Method::ElicitationCreate) => content::check_elicitation(p, v, true)?,
            Some(Method::SamplingCreateMessage) => content::check_sampling(p, v)?,
            _ => {}
        }
    }
    Ok(())
}

/// A stored (escaped) URI equals `u`.
pub(crate) fn uri_matches(stored: &[u8], u: &str) -> bool {
    JsonStr::from_validated(core::str::from_utf8(stored).unwrap_or(""), true).eq_str(u)
}
