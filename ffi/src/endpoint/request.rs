//! One HTTP request in: the endpoint applies every MCP rule of Streamable HTTP (both
//! eras; Bearer tokens when configured with authorization) and says what to do next in a
//! `picomcp_http_outcome`: answer at once, deliver the body to the session in a slot, or
//! serve a GET stream. Under authorization, `picomcp_endpoint_principal` names the
//! verified caller.

use core::ffi::c_void;
use core::ptr;

use picomcp_core::http::endpoint::{ENTROPY_LEN, Head, Outcome, StreamHandle};
use picomcp_core::http::{Header, Request};

use crate::boundary::{in_bytes, input, out, str_arg};
use crate::http::{
    PICOMCP_HTTP_MAX_HEADERS, method_from_c, picomcp_http_head, picomcp_http_request,
};
use crate::status::picomcp_status;

use super::{picomcp_endpoint, picomcp_http_outcome, picomcp_outcome_kind, with_endpoint};

/// Takes one HTTP request (from `picomcp_http_connection_poll_request` or any parser);
/// `entropy` is `PICOMCP_ENDPOINT_ENTROPY_LEN` fresh random bytes (a new session's id).
/// See `picomcp_outcome_kind` for what to do next.
///
/// # Safety
/// `endpoint` live; `request` readable with readable views; `entropy` 16 readable bytes;
/// `out_outcome` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_handle_request(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    request: *const picomcp_http_request,
    entropy: *const u8,
    out_outcome: *mut picomcp_http_outcome,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe { handle(endpoint, now_ms, request, entropy, None, out_outcome) }
}

/// `picomcp_endpoint_handle_request` under `picomcp_endpoint_config.auth`: `verify` (with
/// `user`) checks the Bearer token and reports its claims; `unix_s` is now in Unix
/// seconds (token expiry is absolute time). A request without a valid token, for another
/// resource, expired, or without the scopes the endpoint needs is answered here (400,
/// 401 or 403 with a `WWW-Authenticate` challenge) and reaches no session;
/// `picomcp_endpoint_principal` then names the caller of a delivered request. The
/// metadata document is served at `/.well-known/oauth-protected-resource[/path]`.
///
/// # Safety
/// As `picomcp_endpoint_handle_request`; `verify` NULL or callable as
/// `picomcp_verify_fn` says, with `user`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_handle_request_auth(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    request: *const picomcp_http_request,
    entropy: *const u8,
    unix_s: u64,
    verify: crate::auth::picomcp_verify_fn,
    user: *mut c_void,
    out_outcome: *mut picomcp_http_outcome,
) -> picomcp_status {
    let v = crate::auth::CVerifier { f: verify, user };
    // SAFETY: caller contract.
    unsafe {
        handle(
            endpoint,
            now_ms,
            request,
            entropy,
            Some((unix_s, v)),
            out_outcome,
        )
    }
}

/// The verified caller of the request the endpoint took last (under auth, for a
/// delivered request or stream); `*out_found` false otherwise. Views are valid until the
/// next call that takes the endpoint. Never the token.
///
/// # Safety
/// `endpoint` live; the out pointers writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_endpoint_principal(
    endpoint: *mut picomcp_endpoint,
    out_principal: *mut crate::auth::picomcp_principal,
    out_found: *mut bool,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            let (o, f) = (out(out_principal)?, out(out_found)?);
            *f = false;
            if let Some(p) = b.ep.principal() {
                crate::auth::principal_to_c(p, o);
                *f = true;
            }
            Ok(())
        })
    }
}

/// The body of both request functions.
///
/// # Safety
/// As `picomcp_endpoint_handle_request`.
unsafe fn handle(
    endpoint: *mut picomcp_endpoint,
    now_ms: u64,
    request: *const picomcp_http_request,
    entropy: *const u8,
    auth: Option<(u64, crate::auth::CVerifier)>,
    out_outcome: *mut picomcp_http_outcome,
) -> picomcp_status {
    // SAFETY: caller contract.
    unsafe {
        with_endpoint(endpoint, |b| {
            let o = out(out_outcome)?;
            let r = input(request)?;
            let ent: &[u8; ENTROPY_LEN] = in_bytes(entropy, ENTROPY_LEN)?
                .try_into()
                .map_err(|_| picomcp_status::NullArgument)?;
            if r.header_count > PICOMCP_HTTP_MAX_HEADERS {
                return Err(picomcp_status::InvalidArgument);
            }
            let mut headers = [Header::EMPTY; PICOMCP_HTTP_MAX_HEADERS];
            if r.header_count > 0 {
                if r.headers.is_null() {
                    return Err(picomcp_status::NullArgument);
                }
                let cs = core::slice::from_raw_parts(r.headers, r.header_count);
                for (slot, c) in headers.iter_mut().zip(cs) {
                    *slot = c.to_rust()?;
                }
            }
            let req = Request {
                method: method_from_c(r.method)?,
                target: str_arg(r.target)?,
                headers: &headers[..r.header_count],
                body: in_bytes(r.body, r.body_len)?,
            };
            let accepted = Head::accepted();
            let mut oc = picomcp_http_outcome {
                kind: 0,
                head: picomcp_http_head::EMPTY,
                body: ptr::null(),
                body_len: 0,
                slot: 0,
                fresh: false,
                has_stream: false,
                stream: 0,
            };
            let policy = b
                .server
                .map(|s| s as &dyn picomcp_core::http::auth::ScopePolicy);
            let mut verifier = auth;
            let input = verifier
                .as_mut()
                .map(|(unix_s, v)| picomcp_core::http::auth::AuthInput {
                    unix_s: *unix_s,
                    verifier: v,
                    policy,
                });
            match b.ep.handle_request_as(now_ms, &req, ent, input) {
                Outcome::Respond { head, body } => {
                    oc.kind = picomcp_outcome_kind::Respond as u32;
                    oc.head = picomcp_http_head::of(head.status, head.body, head.headers());
                    oc.body = body.as_ptr();
                    oc.body_len = body.len();
                }
                Outcome::Deliver {
                    slot,
                    fresh,
                    stream,
                } => {
                    oc.kind = picomcp_outcome_kind::Deliver as u32;
                    oc.head = picomcp_http_head::of(accepted.status, accepted.body, &[]);
                    oc.slot = slot;
                    oc.fresh = fresh;
                    oc.has_stream = stream.is_some();
                    oc.stream = stream.map_or(0, StreamHandle::to_bits);
                }
                Outcome::Stream(h) => {
                    oc.kind = picomcp_outcome_kind::Stream as u32;
                    oc.has_stream = true;
                    oc.stream = h.to_bits();
                }
            }
            *o = oc;
            Ok(())
        })
    }
}
