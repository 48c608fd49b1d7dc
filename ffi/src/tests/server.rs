//! The server layer through the C ABI: tables of C structs, a server in caller memory,
//! calls as events and answers as C structs (run under Miri too).

use core::ffi::{CStr, c_char};
use core::ptr;

use super::{INIT, INITIALIZED, Mem, config, drain, feed, init, s, text};
use crate::*;

fn c(s: &'static CStr) -> *const c_char {
    s.as_ptr()
}

const ECHO: &CStr = c"{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}";
const SUM: &CStr =
    c"{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}";

fn tool(name: &'static CStr, schema: &'static CStr) -> picomcp_tool {
    picomcp_tool {
        name: c(name),
        title: ptr::null(),
        description: ptr::null(),
        input_schema: c(schema),
        output_schema: ptr::null(),
        annotations: ptr::null(),
        icons: ptr::null(),
        execution: ptr::null(),
        meta: ptr::null(),
        scopes: ptr::null(),
    }
}

fn template(uri: &'static CStr) -> picomcp_resource_template {
    picomcp_resource_template {
        uri_template: c(uri),
        name: c(c"item"),
        title: ptr::null(),
        description: ptr::null(),
        mime_type: ptr::null(),
        annotations: ptr::null(),
        icons: ptr::null(),
        meta: ptr::null(),
        completable: true,
        scopes: ptr::null(),
    }
}

/// The tables of the tests, in `Vec`s: their buffers stay put while a server uses them
/// (moving a `Vec` moves no element, so the raw pointers into them stay valid).
struct Tables {
    _tools: Vec<picomcp_tool>,
    _templates: Vec<picomcp_resource_template>,
    _args: Vec<picomcp_prompt_argument>,
    _prompts: Vec<picomcp_prompt>,
    catalog: picomcp_catalog,
}

fn tables() -> Tables {
    let mut add = tool(c"add", c"{\"type\":\"object\"}");
    add.output_schema = c(SUM);
    let tools = vec![tool(c"echo", ECHO), add];
    let templates = vec![template(c"test://item/{id}")];
    let args = vec![picomcp_prompt_argument {
        name: c(c"who"),
        title: ptr::null(),
        description: ptr::null(),
        required: true,
        completable: true,
    }];
    let prompts = vec![picomcp_prompt {
        name: c(c"greet"),
        title: ptr::null(),
        description: c(c"Greets"),
        arguments: args.as_ptr(),
        argument_count: 1,
        icons: ptr::null(),
        meta: ptr::null(),
        scopes: ptr::null(),
    }];
    let catalog = picomcp_catalog {
        tools: tools.as_ptr(),
        tool_count: tools.len(),
        resources: ptr::null(),
        resource_count: 0,
        templates: templates.as_ptr(),
        template_count: templates.len(),
        prompts: prompts.as_ptr(),
        prompt_count: prompts.len(),
    };
    Tables {
        _tools: tools,
        _templates: templates,
        _args: args,
        _prompts: prompts,
        catalog,
    }
}

/// A server and its slots, in memory the test owns (it outlives every use).
struct Srv {
    server: Vec<picomcp_server>,
    _slots: Vec<picomcp_server_slot>,
}

fn server(cat: &picomcp_catalog) -> Srv {
    let mut n = 0;
    // SAFETY: a readable catalog; `n` writable.
    let st = unsafe { picomcp_server_slots_needed(cat, &mut n) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(n, 5); // 2 tools, 1 template, 1 prompt, 1 argument
    let mut slots: Vec<picomcp_server_slot> = (0..n)
        .map(|_| picomcp_server_slot {
            opaque: [0; PICOMCP_SERVER_SLOT_WORDS],
        })
        .collect();
    let mut server = vec![picomcp_server {
        opaque: [0; PICOMCP_SERVER_WORDS],
    }];
    let mut err = picomcp_server_error::NONE;
    // SAFETY: valid pointers; the catalog's strings are static, the slots live in `Srv`.
    let st = unsafe {
        picomcp_server_init(
            server.as_mut_ptr(),
            cat,
            ptr::null(),
            slots.as_mut_ptr(),
            n,
            &mut err,
        )
    };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(err.kind, picomcp_server_error_kind::None as u32);
    Srv {
        server,
        _slots: slots,
    }
}

fn caps(srv: &picomcp_server) -> String {
    let mut buf = [0 as c_char; PICOMCP_SERVER_CAPABILITIES_MAX];
    let mut n = 0;
    // SAFETY: a live server; `buf` and `n` writable.
    let st = unsafe { picomcp_server_capabilities(srv, buf.as_mut_ptr(), buf.len(), &mut n) };
    assert_eq!(st, picomcp_status::Ok);
    // SAFETY: the function wrote a NUL-terminated string.
    let t = unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(t.len(), n);
    t
}

fn message(e: &picomcp_server_error) -> String {
    // SAFETY: the library keeps `message` NUL-terminated.
    unsafe { CStr::from_ptr(e.message.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn init_checks_the_tables_and_derives_capabilities() {
    let t = tables();
    let owned = server(&t.catalog);
    let srv = &owned.server[0];
    assert_eq!(
        caps(srv),
        r#"{"tools":{"listChanged":true},"resources":{"listChanged":true},"prompts":{"listChanged":true},"completions":{},"logging":{}}"#
    );
    // Too few slots, a NULL required string, a schema that is not JSON.
    let mut slots: Vec<picomcp_server_slot> = (0..4)
        .map(|_| picomcp_server_slot {
            opaque: [0; PICOMCP_SERVER_SLOT_WORDS],
        })
        .collect();
    let mut out = picomcp_server {
        opaque: [0; PICOMCP_SERVER_WORDS],
    };
    let mut err = picomcp_server_error::NONE;
    // SAFETY: valid pointers for every call below.
    unsafe {
        let st = picomcp_server_init(
            &mut out,
            &t.catalog,
            ptr::null(),
            slots.as_mut_ptr(),
            4,
            &mut err,
        );
        assert_eq!(st, picomcp_status::MemoryTooSmall);
        let mut broken = [tool(c"x", ECHO), tool(c"y", c"{not json")];
        broken[0].input_schema = ptr::null();
        let mut cat = picomcp_catalog {
            tools: broken.as_ptr(),
            tool_count: 2,
            ..t.catalog
        };
        cat.template_count = 0;
        cat.prompt_count = 0;
        let st = picomcp_server_init(&mut out, &cat, ptr::null(), slots.as_mut_ptr(), 4, &mut err);
        assert_eq!(st, picomcp_status::BadDefinition);
        assert_eq!(err.kind, picomcp_server_error_kind::Missing as u32);
        assert_eq!((err.table, err.index), (picomcp_table::Tools as u32, 0));
        assert_eq!(text(err.field), "inputSchema");
        assert_eq!(
            message(&err),
            "tool 0: inputSchema: is required (NULL given)"
        );
        broken[0].input_schema = c(ECHO);
        cat.tools = broken.as_ptr();
        let st = picomcp_server_init(&mut out, &cat, ptr::null(), slots.as_mut_ptr(), 4, &mut err);
        assert_eq!(st, picomcp_status::BadDefinition);
        assert_eq!(err.kind, picomcp_server_error_kind::InvalidJson as u32);
        assert_eq!(err.index, 1);
        assert!(
            message(&err).starts_with("tool 1: inputSchema: "),
            "{}",
            message(&err)
        );
        // A failed init leaves no live server behind.
        let mut n = 0;
        let st = picomcp_server_capabilities(&out, ptr::null_mut(), 0, &mut n);
        assert_eq!(st, picomcp_status::InvalidServer);
        let mut o = picomcp_server_options {
            page_size: 0,
            list_changed: true,
            subscribe: false,
            logging: true,
            schema_depth: 1,
        };
        picomcp_server_options_init(&mut o);
        assert_eq!((o.page_size, o.schema_depth), (100, 32));
        o.page_size = 0;
        let st = picomcp_server_init(&mut out, &cat, &o, slots.as_mut_ptr(), 4, &mut err);
        assert_eq!(st, picomcp_status::BadDefinition);
        assert_eq!(err.kind, picomcp_server_error_kind::PageSize as u32);
    }
}

/// A server session after the handshake, with the layer's capabilities.
fn served(srv: &picomcp_server, mem: &mut Mem) -> *mut picomcp_session {
    let caps = caps(srv);
    let mut cfg = config(picomcp_role::Server);
    cfg.capabilities = s(&caps);
    *mem = Mem::for_config(&cfg);
    let sess = init(&cfg, mem);
    feed(sess, 0, INIT);
    feed(sess, 0, INITIALIZED);
    drain(sess);
    sess
}

fn poll(sess: *mut picomcp_session, srv: &picomcp_server) -> (picomcp_event, picomcp_call) {
    let mut e = picomcp_event::EMPTY;
    let mut call = picomcp_call::EMPTY;
    // SAFETY: live session and server; writable outputs.
    let st = unsafe { picomcp_session_poll_served(sess, srv, &mut e, &mut call) };
    assert_eq!(st, picomcp_status::Ok);
    (e, call)
}

/// The next event that is not part of the handshake.
fn next(sess: *mut picomcp_session, srv: &picomcp_server) -> (picomcp_event, picomcp_call) {
    loop {
        let (e, c) = poll(sess, srv);
        let k = e.kind;
        if k != picomcp_event_kind::Negotiated as u32 && k != picomcp_event_kind::Ready as u32 {
            return (e, c);
        }
    }
}

fn req(id: u32, method: &str, params: &str) -> String {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{method}\",\"params\":{params}}}\n")
}

#[test]
fn calls_come_out_as_events_and_answers_are_shaped() {
    let t = tables();
    let owned = server(&t.catalog);
    let srv = &owned.server[0];
    let mut mem = Mem(Vec::new());
    let sess = served(srv, &mut mem);
    // A list is answered by the layer: no event.
    feed(sess, 0, &req(2, "tools/list", "{}"));
    let (e, _) = next(sess, srv);
    assert_eq!(e.kind, picomcp_event_kind::None as u32);
    let out = drain(sess);
    assert!(out[0].contains(r#""name":"add""#), "{out:?}");
    // tools/call: the arguments as a view; the answer quotes them byte for byte.
    feed(
        sess,
        0,
        &req(
            3,
            "tools/call",
            r#"{"name":"echo","arguments":{"text":"h\u00e9"}}"#,
        ),
    );
    let (e, call) = next(sess, srv);
    assert_eq!(e.kind, picomcp_event_kind::CallTool as u32);
    assert_eq!(
        (call.target, call.index),
        (picomcp_call_target::Tool as u32, 0)
    );
    assert_eq!(text(e.method_name), "tools/call");
    assert_eq!(text(call.arguments), r#"{"text":"h\u00e9"}"#);
    let raw = &text(call.arguments)[8..text(call.arguments).len() - 1];
    let block = picomcp_content {
        kind: picomcp_content_kind::Text as u32,
        text: s(raw),
        text_is_json: true,
        data: picomcp_str::NONE,
        mime_type: picomcp_str::NONE,
        uri: picomcp_str::NONE,
        name: picomcp_str::NONE,
        description: picomcp_str::NONE,
        json: picomcp_str::NONE,
    };
    let mut r = picomcp_tool_result {
        content: &block,
        content_count: 1,
        structured: picomcp_str::NONE,
        is_error: false,
        meta: picomcp_str::NONE,
    };
    let mut err = picomcp_server_error::NONE;
    // SAFETY: live server and session; readable result.
    let st = unsafe { picomcp_server_respond_tool(srv, sess, e.id, call.index, &r, &mut err) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(
        drain(sess),
        [r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"h\u00e9"}]}}"#]
    );
    // add has an outputSchema: blocks alone are refused, with a reason; structured content
    // that matches is sent with its JSON text.
    feed(
        sess,
        0,
        &req(
            4,
            "tools/call",
            r#"{"name":"add","arguments":{"a":1,"b":2}}"#,
        ),
    );
    let (e, call) = next(sess, srv);
    assert_eq!(
        (e.kind, call.index),
        (picomcp_event_kind::CallTool as u32, 1)
    );
    // SAFETY: as above.
    let st = unsafe { picomcp_server_respond_tool(srv, sess, e.id, call.index, &r, &mut err) };
    assert_eq!(st, picomcp_status::MissingStructured);
    assert_eq!(
        err.kind,
        picomcp_server_error_kind::MissingStructured as u32
    );
    assert!(message(&err).contains("outputSchema"), "{}", message(&err));
    r.content = ptr::null();
    r.content_count = 0;
    r.structured = s(r#"{"sum":"three"}"#);
    // SAFETY: as above.
    let st = unsafe { picomcp_server_respond_tool(srv, sess, e.id, call.index, &r, &mut err) };
    assert_eq!(st, picomcp_status::InvalidStructured);
    assert_eq!(
        err.kind,
        picomcp_server_error_kind::InvalidStructured as u32
    );
    assert!(message(&err).contains("/sum"), "{}", message(&err));
    r.structured = s(r#"{"sum":3}"#);
    // SAFETY: as above.
    let st = unsafe { picomcp_server_respond_tool(srv, sess, e.id, 7, &r, &mut err) };
    assert_eq!(st, picomcp_status::UnknownDefinition);
    // SAFETY: as above.
    let st = unsafe { picomcp_server_respond_tool(srv, sess, e.id, call.index, &r, &mut err) };
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(err.kind, picomcp_server_error_kind::None as u32);
    let out = drain(sess);
    assert!(
        out[0].contains(r#""structuredContent":{"sum":3}"#),
        "{out:?}"
    );
    // resources/read of a template: the decoded URI and the variables.
    feed(
        sess,
        0,
        &req(5, "resources/read", r#"{"uri":"test:\/\/item\/42"}"#),
    );
    let (e, call) = next(sess, srv);
    assert_eq!(e.kind, picomcp_event_kind::CallRead as u32);
    assert_eq!(
        (call.target, call.index),
        (picomcp_call_target::Template as u32, 0)
    );
    assert_eq!(text(call.uri), "test://item/42");
    assert_eq!(call.var_count, 1);
    assert_eq!(
        (text(call.vars[0].name), text(call.vars[0].value)),
        ("id".into(), "42".into())
    );
    let item = picomcp_resource_contents {
        uri: call.uri,
        mime_type: picomcp_str::NONE,
        text: s("forty-two"),
        text_is_json: false,
        blob: picomcp_str::NONE,
    };
    // SAFETY: live server and session; readable contents (the URI is the call's view).
    let st = unsafe { picomcp_server_respond_read(srv, sess, e.id, &item, 1) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(drain(sess)[0].contains(r#""uri":"test://item/42","text":"forty-two""#));
    // prompts/get without the required argument is answered by the layer.
    feed(sess, 0, &req(6, "prompts/get", r#"{"name":"greet"}"#));
    let (e, _) = next(sess, srv);
    assert_eq!(e.kind, picomcp_event_kind::None as u32);
    assert!(drain(sess)[0].contains("-32602"));
    // completion/complete: argument and value decoded.
    let params = r#"{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"w\u0068o","value":"A\"b"}}"#;
    feed(sess, 0, &req(7, "completion/complete", params));
    let (e, call) = next(sess, srv);
    assert_eq!(e.kind, picomcp_event_kind::CallComplete as u32);
    assert_eq!(
        (call.target, call.index),
        (picomcp_call_target::Prompt as u32, 0)
    );
    assert_eq!(
        (text(call.argument), text(call.value)),
        ("who".into(), "A\"b".into())
    );
    let values = [s("Ada"), s("Alan")];
    let done = picomcp_completion {
        values: values.as_ptr(),
        value_count: 2,
        has_total: true,
        total: 2,
        has_more: false,
    };
    // SAFETY: live server and session; readable completion.
    let st = unsafe { picomcp_server_respond_completion(srv, sess, e.id, &done) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(drain(sess)[0].contains(r#""values":["Ada","Alan"],"total":2"#));
    // A server pointer that is not one.
    let bogus = picomcp_server {
        opaque: [0; PICOMCP_SERVER_WORDS],
    };
    let mut ev = picomcp_event::EMPTY;
    let mut cl = picomcp_call::EMPTY;
    // SAFETY: live session; a readable (dead) server block.
    let st = unsafe { picomcp_session_poll_served(sess, &bogus, &mut ev, &mut cl) };
    assert_eq!(st, picomcp_status::InvalidServer);
    // SAFETY: a live session made by init.
    assert_eq!(unsafe { picomcp_session_deinit(sess) }, picomcp_status::Ok);
}

#[test]
fn percent_decoding_for_template_variables() {
    let mut buf = [0 as c_char; 16];
    let mut n = 0;
    // SAFETY: readable text, writable buffer and length in every call.
    unsafe {
        let st = picomcp_percent_decode(s("a%20b%2Fc"), buf.as_mut_ptr(), buf.len(), &mut n);
        assert_eq!((st, n), (picomcp_status::Ok, 5));
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), "a b/c");
        let st = picomcp_percent_decode(s("a%20b"), buf.as_mut_ptr(), 3, &mut n);
        assert_eq!((st, n), (picomcp_status::BufferTooSmall, 4));
        let st = picomcp_percent_decode(s(""), ptr::null_mut(), 0, &mut n);
        assert_eq!((st, n), (picomcp_status::BufferTooSmall, 1));
        let st = picomcp_percent_decode(s("100%"), buf.as_mut_ptr(), buf.len(), &mut n);
        assert_eq!(st, picomcp_status::InvalidArgument);
        let st = picomcp_percent_decode(s("%C0%AE"), buf.as_mut_ptr(), buf.len(), &mut n);
        assert_eq!(st, picomcp_status::InvalidUtf8);
    }
}

#[test]
fn arguments_read_without_a_second_validation() {
    let t = tables();
    let owned = server(&t.catalog);
    let srv = &owned.server[0];
    let mut mem = Mem(Vec::new());
    let sess = served(srv, &mut mem);
    let arg = |key: &str| {
        let mut v = picomcp_str::NONE;
        // SAFETY: live session; readable key; writable output.
        let st = unsafe { picomcp_session_argument(sess, s(key), &mut v) };
        (st, v)
    };
    let block = |v: picomcp_str| picomcp_content {
        kind: picomcp_content_kind::Text as u32,
        text: v,
        text_is_json: true,
        data: picomcp_str::NONE,
        mime_type: picomcp_str::NONE,
        uri: picomcp_str::NONE,
        name: picomcp_str::NONE,
        description: picomcp_str::NONE,
        json: picomcp_str::NONE,
    };
    let respond = |id: u32, b: &picomcp_content| {
        let r = picomcp_tool_result {
            content: b,
            content_count: 1,
            structured: picomcp_str::NONE,
            is_error: false,
            meta: picomcp_str::NONE,
        };
        // SAFETY: live server and session; readable result.
        unsafe { picomcp_server_respond_tool(srv, sess, id, 0, &r, ptr::null_mut()) }
    };
    // No call yet.
    assert_eq!(arg("text").0, picomcp_status::NotFound);
    let args = r#"{"text":"h\u00e9 \"q\"","n":1}"#;
    feed(
        sess,
        0,
        &req(
            3,
            "tools/call",
            &format!(r#"{{"name":"echo","arguments":{args}}}"#),
        ),
    );
    let (e, call) = next(sess, srv);
    assert_eq!(e.kind, picomcp_event_kind::CallTool as u32);
    let (st, v) = arg("text");
    assert_eq!(st, picomcp_status::Ok);
    assert_eq!(text(v), r#""h\u00e9 \"q\"""#);
    assert_eq!(arg("nope").0, picomcp_status::NotFound);
    // The very view picomcp_json_get gives.
    let mut w = picomcp_str::NONE;
    // SAFETY: readable views; writable output.
    let st = unsafe { picomcp_json_get(call.arguments, s("text"), &mut w) };
    assert_eq!(st, picomcp_status::Ok);
    assert!(ptr::eq(w.ptr, v.ptr) && w.len == v.len);
    // Part of a known value is not known: checked as before (and refused, not a JSON
    // string); the request stays open and the call current.
    let part = picomcp_str {
        ptr: v.ptr,
        len: v.len - 1,
    };
    assert_eq!(respond(e.id, &block(part)), picomcp_status::InvalidJson);
    // A known value given back: echoed byte for byte.
    assert_eq!(respond(e.id, &block(v)), picomcp_status::Ok);
    assert_eq!(arg("n").0, picomcp_status::Ok);
    assert_eq!(
        drain(sess),
        [
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"h\u00e9 \"q\""}]}}"#
        ]
    );
    // Any other call on the session (here the drain) ends the call.
    assert_eq!(arg("text").0, picomcp_status::NotFound);
    // SAFETY: a live session from `init`.
    let st = unsafe { picomcp_session_deinit(sess) };
    assert_eq!(st, picomcp_status::Ok);
}
