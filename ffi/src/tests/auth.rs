//! Authorization through the C ABI: an endpoint with `picomcp_auth_config`, a verifier
//! callback that reports claims as JSON, the 401 challenge, a delivered request and its
//! principal.

use core::ffi::c_void;
use core::ptr;

use super::s;
use crate::*;

const RESOURCE: &str = "http://localhost/mcp";

/// The host's verifier: the token is the claims' JSON text (a real one checks a
/// signature first, e.g. an HMAC-signed JWT); `forged` is refused.
unsafe extern "C" fn verify(
    user: *mut c_void,
    token: *const u8,
    len: usize,
    claims: *mut picomcp_claims,
) -> bool {
    // SAFETY: `user` is the counter this test passes; the token is `len` readable bytes.
    unsafe {
        *user.cast::<u32>() += 1;
        let t = core::slice::from_raw_parts(token, len);
        if t == b"forged" {
            return false;
        }
        let json: &[u8] = match t {
            b"basic" => br#"{"sub":"alice","client_id":"c1","aud":"http://localhost/mcp","exp":4000000000,"scope":"mcp"}"#,
            _ => br#"{"sub":"bob","aud":"http://elsewhere/mcp","exp":4000000000,"scope":"mcp"}"#,
        };
        picomcp_claims_report_json(claims, json.as_ptr(), json.len()) == picomcp_status::Ok
    }
}

fn request(
    ep: *mut picomcp_endpoint,
    token: Option<&str>,
    calls: &mut u32,
) -> picomcp_http_outcome {
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let bearer = token.map(|t| format!("Bearer {t}"));
    let h = |name: &str, value: &str| picomcp_http_header {
        name: s(name),
        value: value.as_ptr(),
        value_len: value.len(),
    };
    let mut headers = vec![
        h("Host", "localhost"),
        h("Accept", "application/json, text/event-stream"),
        h("Content-Type", "application/json"),
    ];
    if let Some(b) = &bearer {
        headers.push(h("Authorization", b));
    }
    let req = picomcp_http_request {
        kind: picomcp_http_poll::Request as u32,
        error_status: 0,
        method: picomcp_http_method::Post as u32,
        target: s("/mcp"),
        headers: headers.as_ptr(),
        header_count: headers.len(),
        body: body.as_ptr(),
        body_len: body.len(),
    };
    let entropy = [7u8; PICOMCP_ENDPOINT_ENTROPY_LEN];
    // SAFETY: an all-zero outcome is a valid value of this plain C struct.
    let mut oc: picomcp_http_outcome = unsafe { core::mem::zeroed() };
    // SAFETY: live endpoint; readable request views; 16 bytes of entropy; the callback
    // and its user pointer as the contract says.
    // SAFETY: plain C structs (all zero is valid), live objects, readable views.
    let st = unsafe {
        picomcp_endpoint_handle_request_auth(
            ep,
            1,
            &req,
            entropy.as_ptr(),
            1_800_000_000,
            Some(verify),
            (calls as *mut u32).cast(),
            &mut oc,
        )
    };
    assert_eq!(st, picomcp_status::Ok);
    oc
}

fn header(oc: &picomcp_http_outcome, name: &str) -> Option<String> {
    // The head's views are valid until the next endpoint call.
    oc.head.headers[..oc.head.header_count]
        .iter()
        .find(|h| super::text(h.name).eq_ignore_ascii_case(name))
        // SAFETY: each value is `value_len` readable bytes until the next endpoint call.
        .map(|h| {
            // SAFETY: plain C structs (all zero is valid), live objects, readable views.
            String::from_utf8_lossy(unsafe { core::slice::from_raw_parts(h.value, h.value_len) })
                .into_owned()
        })
}

#[test]
fn a_protected_endpoint_through_the_c_abi() {
    let servers = [s("http://localhost:9000")];
    let scopes = [s("mcp"), s("admin")];
    // SAFETY: plain C structs (all zero is valid), live objects, readable views.
    let mut ac: picomcp_auth_config = unsafe { core::mem::zeroed() };
    // SAFETY: writable configuration.
    assert_eq!(
        // SAFETY: plain C structs (all zero is valid), live objects, readable views.
        unsafe { picomcp_auth_config_init(&mut ac) },
        picomcp_status::Ok
    );
    assert_eq!(ac.leeway_s, 60);
    let mut resource = String::from(RESOURCE);
    ac.resource = s(&resource);
    ac.authorization_servers = servers.as_ptr();
    ac.authorization_server_count = 1;
    ac.scopes = scopes.as_ptr();
    ac.scope_count = 2;
    ac.required = s("mcp");
    // SAFETY: plain C structs (all zero is valid), live objects, readable views.
    let mut ec: picomcp_endpoint_config = unsafe { core::mem::zeroed() };
    // SAFETY: writable configuration.
    assert_eq!(
        // SAFETY: plain C structs (all zero is valid), live objects, readable views.
        unsafe { picomcp_endpoint_config_init(&mut ec) },
        picomcp_status::Ok
    );
    assert!(ec.auth.is_null());
    ec.max_body = 1024;
    ec.slots = 2;
    ec.streams = 2;
    ec.auth = &ac;
    let (mut size, mut align) = (0, 0);
    // SAFETY: readable configuration, writable out pointers.
    assert_eq!(
        // SAFETY: plain C structs (all zero is valid), live objects, readable views.
        unsafe { picomcp_endpoint_storage_size(&ec, &mut size, &mut align) },
        picomcp_status::Ok
    );
    let mut mem = vec![0u64; size.div_ceil(8)];
    let mut ep = ptr::null_mut();
    // SAFETY: `mem` is `size` bytes, 8-aligned, and outlives the endpoint.
    let st = unsafe { picomcp_endpoint_init(mem.as_mut_ptr().cast(), size, &ec, &mut ep) };
    assert_eq!(st, picomcp_status::Ok);
    // The configuration was copied: the caller's text may change or go now.
    resource.clear();
    resource.push_str("http://changed.example/xx");
    drop(resource);

    let mut calls = 0u32;
    let oc = request(ep, None, &mut calls);
    assert_eq!(
        (oc.kind, oc.head.status),
        (picomcp_outcome_kind::Respond as u32, 401)
    );
    assert_eq!(
        header(&oc, "WWW-Authenticate").as_deref(),
        Some(
            "Bearer resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\""
        )
    );
    for bad in ["forged", "elsewhere"] {
        let oc = request(ep, Some(bad), &mut calls);
        assert_eq!(oc.head.status, 401, "{bad}");
        assert!(
            header(&oc, "WWW-Authenticate")
                .unwrap()
                .contains("invalid_token")
        );
    }
    assert_eq!(calls, 2, "the verifier runs only when there is a token");
    // SAFETY: plain C structs (all zero is valid), live objects, readable views.
    let (mut p, mut found): (picomcp_principal, bool) = (unsafe { core::mem::zeroed() }, true);
    // SAFETY: live endpoint, writable out pointers.
    assert_eq!(
        // SAFETY: plain C structs (all zero is valid), live objects, readable views.
        unsafe { picomcp_endpoint_principal(ep, &mut p, &mut found) },
        picomcp_status::Ok
    );
    assert!(!found);

    let oc = request(ep, Some("basic"), &mut calls);
    assert_eq!(oc.kind, picomcp_outcome_kind::Deliver as u32);
    // SAFETY: as above.
    assert_eq!(
        // SAFETY: plain C structs (all zero is valid), live objects, readable views.
        unsafe { picomcp_endpoint_principal(ep, &mut p, &mut found) },
        picomcp_status::Ok
    );
    assert!(found);
    assert_eq!(super::text(p.subject), "alice");
    assert_eq!(super::text(p.client_id), "c1");
    assert_eq!(p.granted, 0b01);
    assert!(p.has_expiry && p.expires_at == 4_000_000_000);
    // SAFETY: live endpoint.
    assert_eq!(unsafe { picomcp_endpoint_deinit(ep) }, picomcp_status::Ok);
}
