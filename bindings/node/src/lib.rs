//! The native half of the `picomcp` npm package: the core session and the core's server
//! application layer for Node.
//!
//! A thin wrapper: every byte goes through [`picomcp::session::Session`], every list,
//! call check and result shape through [`picomcp::server::Server`]; nothing here parses
//! JSON-RPC, tracks the lifecycle or validates arguments. JSON crosses the boundary as text, validated
//! by the core on the way in; `lib/index.js` turns it into JavaScript values (one
//! `JSON.parse`/`JSON.stringify` each way) and errors into the package's error classes.

#![deny(clippy::all)]

#[cfg(target_os = "linux")]
mod alloc;
mod answer;
mod arena;
mod catalog;
mod endpoint;
mod event;
mod server;
mod session;

pub use endpoint::NativeEndpoint;
pub use event::Event;
pub use server::NativeServer;
pub use session::{NativeSession, SessionOptions};

/// Blocks of 128 KiB and more are mappings of their own (see `alloc.rs`).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: alloc::Alloc = alloc::Alloc;

/// `n` bytes from the operating system's random number generator (for keys: the
/// `Server` helper's default `requestState` key), without loading `node:crypto`.
#[napi_derive::napi]
pub fn random_bytes(n: u32) -> napi::Result<napi::bindgen_prelude::Buffer> {
    let mut buf = vec![0u8; n as usize];
    getrandom::fill(&mut buf)
        .map_err(|e| napi::Error::from_reason(format!("no randomness from the system: {e}")))?;
    Ok(buf.into())
}

/// Frees the memory of an `ArrayBuffer` now (detaches it: it is empty after this), rather
/// than at the next scavenge. The stdio server gives it each chunk of stdin once the session
/// has taken all of it: Node makes a buffer per read, and the helper allocates so little
/// JavaScript per request that scavenges are rare, so at 64 pings in flight those buffers
/// held about 1.5 MiB of malloc heap between two scavenges. False when it cannot be
/// detached (nothing happens then).
#[napi_derive::napi]
pub fn release_buffer(buffer: napi::bindgen_prelude::ArrayBuffer) -> bool {
    buffer.detach().is_ok()
}

/// The protocol revisions the core knows, oldest first.
#[napi_derive::napi]
pub fn protocol_versions() -> Vec<&'static str> {
    picomcp::protocol::ProtocolVersion::ALL
        .iter()
        .map(|v| v.as_str())
        .collect()
}

/// The names of every difference between revisions in the core's feature table, in
/// table order.
#[napi_derive::napi]
pub fn feature_names() -> Vec<&'static str> {
    picomcp::protocol::FEATURES.iter().map(|f| f.name).collect()
}

/// The names of the features protocol revision `version` has (`"output_schema"`,
/// `"argument_errors_as_tool_results"`, ...): the core's table of what each revision
/// changes. Throws a TypeError for an unknown revision.
#[napi_derive::napi]
pub fn features(version: String) -> napi::Result<Vec<&'static str>> {
    let v = picomcp::protocol::ProtocolVersion::parse(&version).ok_or_else(|| {
        napi::Error::from_reason(format!("TypeError: unknown protocol version {version:?}"))
    })?;
    Ok(picomcp::protocol::Features::of(v)
        .iter()
        .map(|f| f.name())
        .collect())
}

/// Whether `target` (an absolute path or a `file:` URI) lies inside one of `roots` (the
/// `file:` URIs of the client's `roots/list`): the index of the first root that contains
/// it, or null. The core's rules (`picomcp::uri::roots`); a target or root it cannot
/// judge (a `%2F` inside a name, NUL, bad escapes, a foreign host, a query) throws a
/// TypeError.
#[napi_derive::napi]
pub fn roots_contain(
    roots: Vec<String>,
    target: String,
    case_insensitive: Option<bool>,
    windows: Option<bool>,
) -> napi::Result<Option<u32>> {
    let rules = picomcp::uri::roots::PathRules {
        case_insensitive: case_insensitive.unwrap_or(false),
        windows: windows.unwrap_or(false),
    };
    match picomcp::uri::roots::contains(roots.iter().map(String::as_str), &target, rules) {
        Ok(found) => Ok(found.map(|i| u32::try_from(i).unwrap_or(u32::MAX))),
        Err(e) => Err(napi::Error::from_reason(format!("TypeError: {e}"))),
    }
}

/// Of `keys`, those a 2026-07-28 retry answers for a question asked with `state`: the
/// core's rule (`picomcp::server::Retry::answer`, the Python helper's too): the answer is
/// an object, and with `state` the retry echoed exactly that state. `retry` is the JSON
/// text of `{inputResponses, requestState}` as the core read them from the call; `[]`
/// when it is not valid retry members.
#[napi_derive::napi]
pub fn retry_answered(retry: String, keys: Vec<String>, state: Option<String>) -> Vec<String> {
    let Some(r) = picomcp::json::Json::new(&retry)
        .ok()
        .and_then(|p| picomcp::server::Retry::of(p).ok())
    else {
        return Vec::new();
    };
    keys.into_iter()
        .filter(|k| r.answer(k, state.as_deref()).is_some())
        .collect()
}
