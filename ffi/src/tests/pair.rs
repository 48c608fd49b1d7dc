//! A client session and a server session talking through the C ABI only: the legacy
//! handshake and requests both ways (timeouts, cancellation, progress), then both sides
//! serving every revision and running stateless 2026-07-28.

use core::ptr;

use picomcp_core::protocol::Caps;

use super::{CAPS, Ev, Mem, config, deinit, drain, events, feed, init, s, text};
use crate::*;

#[test]
fn client_and_server_talk() {
    // A client from picomcp_session_new (heap) and a server in caller memory.
    let cc = config(picomcp_role::Client);
    let mut client = ptr::null_mut();
    // SAFETY: valid configuration and out pointer.
    let st = unsafe { picomcp_session_new(&cc, 0, &mut client) };
    assert_eq!(st, picomcp_status::Ok);
    // SAFETY: `client` is from picomcp_session_new.
    let st = unsafe { picomcp_session_deinit(client) };
    assert_eq!(st, picomcp_status::WrongRelease);
    let sc = config(picomcp_role::Server);
    let mut mem = Mem::for_config(&sc);
    let server = init(&sc, &mut mem);
    let pump = |from: *mut picomcp_session, to: *mut picomcp_session, now: u64| {
        for l in drain(from) {
            feed(to, now, &(l + "\n"));
        }
    };
    pump(client, server, 0); // initialize
    pump(server, client, 0); // result
    pump(client, server, 0); // initialized
    let cev = events(client);
    assert_eq!(cev[0].kind, picomcp_event_kind::Negotiated as u32);
    assert!(cev[0].json.contains("serverInfo"), "{cev:?}");
    assert_eq!(cev[1].kind, picomcp_event_kind::Ready as u32);
    let sev = events(server);
    assert_eq!(sev.len(), 2, "{sev:?}");
    let mut peer = 0;
    // SAFETY: live session, writable out.
    unsafe { picomcp_session_peer_capabilities(client, &mut peer) };
    assert_eq!(
        peer,
        Caps::from_json(picomcp_core::json::Json::new(CAPS).unwrap()).0
    );

    // A request with progress, answered with an escaped error message.
    let opts = picomcp_request_options {
        progress: true,
        ..Default::default()
    };
    let mut id = 0;
    // SAFETY: live session; readable strings and options.
    unsafe {
        assert_eq!(
            picomcp_session_send_request(
                client,
                5,
                s("tools/call"),
                s(r#"{"name":"x"}"#),
                &opts,
                &mut id
            ),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_send_request(client, 5, s("tools/call"), s("[]"), ptr::null(), &mut id),
            picomcp_status::ParamsNotObject
        );
        assert_eq!(
            picomcp_session_send_request(
                client,
                5,
                s("notifications/initialized"),
                picomcp_str::NONE,
                ptr::null(),
                &mut id
            ),
            picomcp_status::WrongDirection
        );
    }
    pump(client, server, 5);
    let req = events(server).remove(0);
    assert!(req.json.contains("progressToken"), "{req:?}");
    // SAFETY: live session; readable strings.
    unsafe {
        assert_eq!(
            picomcp_session_progress(server, req.id, 1.0, 2.0, s("half")),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_progress(server, req.id, 1.0, f64::NAN, picomcp_str::NONE),
            picomcp_status::ProgressNotIncreasing
        );
        assert_eq!(
            picomcp_session_respond_error(
                server,
                req.id,
                -32001,
                s("tab\there \u{e9}"),
                picomcp_str::NONE
            ),
            picomcp_status::Ok
        );
    }
    pump(server, client, 6);
    let evs = events(client);
    assert_eq!(evs.len(), 2, "{evs:?}");
    assert_eq!(evs[0].kind, picomcp_event_kind::Progress as u32);
    assert_eq!((evs[0].raw.progress, evs[0].raw.total), (1.0, 2.0));
    assert_eq!(evs[0].id, id_of_first(&evs));
    assert_eq!(evs[1].kind, picomcp_event_kind::ErrorResponse as u32);
    assert_eq!(evs[1].code, -32001);
    assert_eq!(evs[1].text, "tab\there \u{e9}");
    assert_eq!(evs[1].json, "<absent>");

    // Cancel, then a timeout.
    let mut id2 = 0;
    // SAFETY: live sessions; readable strings.
    unsafe {
        assert_eq!(
            picomcp_session_send_request(
                client,
                10,
                s("tools/list"),
                picomcp_str::NONE,
                ptr::null(),
                &mut id2
            ),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_cancel(client, id2, s("no \"need\"")),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_cancel(client, id2, picomcp_str::NONE),
            picomcp_status::UnknownRequest
        );
    }
    pump(client, server, 11);
    let evs = events(server);
    assert_eq!(evs[1].kind, picomcp_event_kind::Cancelled as u32);
    assert_eq!(evs[1].id, evs[0].id);
    assert_eq!(evs[1].text, "no \"need\"");
    // SAFETY: live session; answering a cancelled request is allowed and sends nothing.
    let st = unsafe { picomcp_session_respond(server, evs[0].id, s("{}")) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(drain(server).is_empty());

    let o = picomcp_request_options {
        timeout_ms: 50,
        ..Default::default()
    };
    let mut deadline = 0;
    // SAFETY: live session; readable options; writable outs.
    unsafe {
        assert_eq!(
            picomcp_session_send_request(
                client,
                100,
                s("tools/list"),
                picomcp_str::NONE,
                &o,
                &mut id2
            ),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_poll_timeout(client, &mut deadline),
            picomcp_status::Ok
        );
        assert_eq!(deadline, 150);
        assert_eq!(
            picomcp_session_handle_timeout(client, 150),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_poll_timeout(client, &mut deadline),
            picomcp_status::Ok
        );
        assert_eq!(deadline, PICOMCP_NO_DEADLINE);
    }
    let evs = events(client);
    assert_eq!(evs[0].kind, picomcp_event_kind::TimedOut as u32);
    assert_eq!(evs[0].id, id2);
    // SAFETY: live sessions; the client came from picomcp_session_new.
    unsafe {
        assert_eq!(picomcp_session_close(client), picomcp_status::Ok);
        assert_eq!(picomcp_session_free(client), picomcp_status::Ok);
    }
    deinit(server);
}

fn id_of_first(evs: &[Ev]) -> u32 {
    evs[0].id
}

#[test]
fn modern_era_pair() {
    // Both sides serve every revision: the client probes with server/discover and the
    // connection runs stateless 2026-07-28.
    let mut cc = config(picomcp_role::Client);
    cc.versions = PICOMCP_VERSIONS_ALL;
    let mut sc = config(picomcp_role::Server);
    sc.versions = PICOMCP_VERSIONS_ALL;
    let (mut cm, mut sm) = (Mem::for_config(&cc), Mem::for_config(&sc));
    let (client, server) = (init(&cc, &mut cm), init(&sc, &mut sm));
    let pump = |from: *mut picomcp_session, to: *mut picomcp_session| {
        let lines = drain(from);
        let n = lines.len();
        for l in lines {
            feed(to, 1, &(l + "\n"));
        }
        n
    };
    while pump(client, server) + pump(server, client) > 0 {}
    let mut era = 0;
    // SAFETY: live session, writable out.
    unsafe { picomcp_session_era(client, &mut era) };
    assert_eq!(era, picomcp_era::Modern as u32);
    let cev = events(client);
    assert!(
        cev.iter()
            .any(|e| e.kind == picomcp_event_kind::Negotiated as u32),
        "{cev:?}"
    );
    events(server);

    let mut id = 0;
    // SAFETY: live session; readable strings.
    let st = unsafe {
        picomcp_session_send_request(
            client,
            2,
            s("tools/list"),
            picomcp_str::NONE,
            ptr::null(),
            &mut id,
        )
    };
    assert_eq!(st, picomcp_status::Ok);
    pump(client, server);
    let req = events(server).remove(0);
    assert_eq!(req.kind, picomcp_event_kind::Request as u32);
    let mut info = picomcp_request_info {
        method: 0,
        method_name: picomcp_str::NONE,
        modern: false,
        client_capabilities: 0,
        log_level: 0,
        has_progress_token: false,
        cancelled: false,
    };
    let mut sent = true;
    let mut count = 9;
    // SAFETY: live session; readable strings; writable outs.
    unsafe {
        assert_eq!(
            picomcp_session_request_info(server, req.id, &mut info),
            picomcp_status::Ok
        );
        assert!(info.modern);
        assert_eq!(text(info.method_name), "tools/list");
        assert_eq!(info.log_level, picomcp_log_level::None as u32);
        // No log level asked for: nothing is sent.
        assert_eq!(
            picomcp_session_log_for_text(
                server,
                req.id,
                picomcp_log_level::Error as u32,
                picomcp_str::NONE,
                s("x"),
                &mut sent
            ),
            picomcp_status::Ok
        );
        assert!(!sent);
        assert_eq!(
            picomcp_session_respond(server, req.id, s(r#"{"tools":[]}"#)),
            picomcp_status::Ok
        );
        assert_eq!(
            picomcp_session_request_info(server, req.id, &mut info),
            picomcp_status::UnknownRequest
        );
        // Nobody listens: nothing is queued.
        assert_eq!(
            picomcp_session_notify(
                server,
                picomcp_change::ToolsListChanged as u32,
                picomcp_str::NONE,
                &mut count
            ),
            picomcp_status::Ok
        );
        assert_eq!(count, 0);
        assert_eq!(
            picomcp_session_notify(
                server,
                picomcp_change::ResourceUpdated as u32,
                picomcp_str::NONE,
                &mut count
            ),
            picomcp_status::BadChange
        );
        assert_eq!(
            picomcp_session_notify(
                server,
                picomcp_change::PromptsListChanged as u32,
                picomcp_str::NONE,
                &mut count
            ),
            picomcp_status::NotNegotiated
        );
        assert_eq!(
            picomcp_session_notify(server, 77, picomcp_str::NONE, &mut count),
            picomcp_status::BadChange
        );
    }
    pump(server, client);
    let evs = events(client);
    assert_eq!(evs[0].kind, picomcp_event_kind::Response as u32, "{evs:?}");
    assert_eq!(evs[0].id, id);
    assert!(evs[0].json.contains("\"tools\":[]"), "{evs:?}");
    deinit(client);
    deinit(server);
}
