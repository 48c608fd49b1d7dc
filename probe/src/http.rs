//! `--url`: the server under test over Streamable HTTP (DIGEST §12, MODERN §13).
//!
//! The client session does not change: it writes newline-framed messages and reads
//! newline-framed messages, as over a child's pipes. This module is the pipe. Each
//! message the session writes becomes one POST (its MCP headers derived by the core,
//! [`picomcp::http::headers`]); each message the server answers with (a JSON body, or the
//! events of an SSE stream, decoded by the core's [`picomcp::http::sse::Decoder`]) is
//! handed back as one line. HTTP bytes go through the core's codec
//! ([`picomcp::http::codec`]): this module owns only sockets and threads.
//!
//! What it keeps for the session: the `Mcp-Session-Id` the server issued with the
//! `initialize` answer (sent on every later request, and ended with DELETE when the
//! probe is done), the negotiated `MCP-Protocol-Version` (legacy era; a 2026-07-28
//! request names its own), the GET stream of server-initiated messages (opened after
//! `initialize`; a 405 means the server offers none), and resumption: a request's SSE
//! stream that ends before its answer is resumed with GET and `Last-Event-ID` after the
//! server's `retry` hint (2025-11-25 polling). What happened on the wire that the session
//! cannot see (HTTP error statuses, resets) is kept as notes, shown as the "server
//! stderr" of the report when a check fails.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use picomcp::http::codec::{ClientResponse, CodecLimits, write_request};
use picomcp::http::headers::{self, message_headers};
use picomcp::http::sse::{Decoder, DecoderLimits};
use picomcp::http::{Header, Method};
use picomcp::json::Json;

/// The largest JSON answer or SSE event accepted (the session's own line limit applies
/// after this).
const MAX_MESSAGE: usize = 16 << 20;
/// Times a request's SSE stream is resumed before the request is given up to the
/// session's timeout.
const MAX_RESUMES: usize = 10;
/// The wait before resuming when the server sent no `retry` hint.
const DEFAULT_RETRY_MS: u64 = 500;
/// Notes kept for the report.
const MAX_NOTES: usize = 200;

/// Where the MCP endpoint is, from `--url` and `--header`.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// `host:port` to connect to.
    addr: String,
    /// The `Host` header.
    host: String,
    /// The request target (path and query).
    path: String,
    /// `--header NAME:VALUE`, sent on every request (credentials, say).
    extra: Vec<(String, String)>,
}

impl Target {
    /// Parses an `http://host[:port]/path` URL.
    pub(crate) fn parse(url: &str, extra: Vec<(String, String)>) -> Result<Target, String> {
        let rest = if let Some(r) = url.strip_prefix("http://") {
            r
        } else if url.starts_with("https://") {
            return Err(format!(
                "{url}: https is not supported; probe the server behind a TLS-terminating \
                 proxy on plain http, or its local address"
            ));
        } else {
            return Err(format!("{url}: not an http:// URL"));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.is_empty() || authority.contains('@') {
            return Err(format!("{url}: no host (user info is not supported)"));
        }
        let has_port = match authority.rfind(':') {
            Some(i) => !authority[i..].contains(']'),
            None => false,
        };
        let addr = if has_port {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        Ok(Target {
            addr,
            host: authority.to_string(),
            path: path.to_string(),
            extra,
        })
    }
}

/// What the POST threads, the GET stream and the session's pipe share.
struct Shared {
    target: Target,
    /// The read timeout of a request's answer (`--timeout-ms`).
    timeout: Duration,
    session_id: Mutex<Option<String>>,
    /// The revision `initialize` negotiated (legacy era).
    version: Mutex<Option<String>>,
    /// Where received messages go; `None` once the probe is done.
    inbox: Mutex<Option<Sender<Vec<u8>>>>,
    get_opened: AtomicBool,
    /// The sockets of open GET streams, shut down at the end.
    get_sockets: Mutex<Vec<TcpStream>>,
    done: AtomicBool,
    notes: Mutex<Vec<String>>,
}

impl Shared {
    fn note(&self, text: String) {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        if notes.len() < MAX_NOTES {
            notes.push(text);
        }
    }

    /// Hands one message to the session as a line. Raw CR/LF in a JSON text can only be
    /// whitespace between tokens (inside strings they must be escaped), so they become
    /// spaces and the line framing holds for pretty-printed answers too.
    fn deliver(&self, message: &[u8]) {
        let mut line: Vec<u8> = message
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect();
        line.push(b'\n');
        if let Some(tx) = &*self.inbox.lock().unwrap_or_else(|e| e.into_inner()) {
            let _ = tx.send(line);
        }
    }

    fn session_id(&self) -> Option<String> {
        self.session_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// The server end of the probe over HTTP: notes for the report, and the end of the
/// session.
pub(crate) struct HttpPeer {
    shared: Arc<Shared>,
}

/// The session's read side: the messages the server sent, one line each.
pub(crate) struct HttpReader {
    rx: Receiver<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
}

/// The session's write side: every line is POSTed. Dropping it ends the session (DELETE
/// when the server issued a session id) and closes the GET stream.
pub(crate) struct HttpWriter {
    shared: Arc<Shared>,
    pending: Vec<u8>,
}

/// Connects nothing yet: requests open their own connections as the session writes.
pub(crate) fn open(target: Target, timeout: Duration) -> (HttpPeer, HttpReader, HttpWriter) {
    let (tx, rx) = channel();
    let shared = Arc::new(Shared {
        target,
        timeout,
        session_id: Mutex::new(None),
        version: Mutex::new(None),
        inbox: Mutex::new(Some(tx)),
        get_opened: AtomicBool::new(false),
        get_sockets: Mutex::new(Vec::new()),
        done: AtomicBool::new(false),
        notes: Mutex::new(Vec::new()),
    });
    (
        HttpPeer {
            shared: Arc::clone(&shared),
        },
        HttpReader {
            rx,
            current: Vec::new(),
            at: 0,
        },
        HttpWriter {
            shared,
            pending: Vec::new(),
        },
    )
}

impl HttpPeer {
    /// The last `lines` notes (HTTP statuses and connection errors the session did not see).
    pub(crate) fn notes(&self, lines: usize) -> Vec<String> {
        let notes = self.shared.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes[notes.len().saturating_sub(lines)..].to_vec()
    }
}

impl Read for HttpReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.current.len() {
            match self.rx.recv() {
                Ok(line) => {
                    self.current = line;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl Write for HttpWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let message: Vec<u8> = self.pending.drain(..=end).take(end).collect();
            let shared = Arc::clone(&self.shared);
            thread::spawn(move || post(&shared, &message));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for HttpWriter {
    fn drop(&mut self) {
        let shared = &self.shared;
        shared.done.store(true, Ordering::SeqCst);
        for sock in shared
            .get_sockets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            let _ = sock.shutdown(Shutdown::Both);
        }
        if let Some(id) = shared.session_id() {
            let mut hs = vec![(headers::SESSION_ID.to_string(), id)];
            if let Some(v) = shared
                .version
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
            {
                hs.push((headers::PROTOCOL_VERSION.to_string(), v));
            }
            match exchange(shared, Method::Delete, &hs, b"", &mut |_| {}) {
                Ok(r) if matches!(r.status, 200..=299 | 405) => {}
                Ok(r) => shared.note(format!("DELETE (end of session) -> HTTP {}", r.status)),
                Err(e) => shared.note(format!("DELETE (end of session): {e}")),
            }
        }
        // The reader ends once every POST thread has delivered what it had.
        shared
            .inbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }
}

/// What [`exchange`] saw of a response.
struct Answered {
    status: u16,
    /// The body was an SSE stream (its events went to the callback).
    sse: bool,
    /// The body, when it was not an SSE stream (a JSON answer, an error text).
    body: Vec<u8>,
    /// The SSE stream's last event id and `retry` hint.
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
}

/// POSTs one message the session wrote and delivers what comes back.
fn post(shared: &Arc<Shared>, message: &[u8]) {
    let text = String::from_utf8_lossy(message);
    let json = Json::new(&text).ok();
    let mh = json.map(message_headers).unwrap_or_default();
    let modern_version = mh.protocol_version.and_then(|v| v.as_plain());
    let method = mh.method.unwrap_or("(response)");
    let mut hs: Vec<(String, String)> = vec![
        ("Content-Type".into(), "application/json".into()),
        ("Accept".into(), headers::ACCEPT_POST.into()),
    ];
    if let Some(v) = modern_version {
        // 2026-07-28: stateless, and a request names itself in its headers.
        hs.push((headers::PROTOCOL_VERSION.into(), v.into()));
        if mh.request {
            hs.push((headers::METHOD.into(), method.into()));
            if let Some(name) = mh.name {
                let mut decoded = vec![0u8; name.decoded_len()];
                if let Ok(n) = name.unescape_into(&mut decoded) {
                    let mut encoded = vec![0u8; headers::encoded_len(n)];
                    if let Ok(v) = headers::encode_value(n, &mut encoded) {
                        hs.push((headers::NAME.into(), v.into()));
                    }
                }
            }
        }
    } else {
        if let Some(v) = shared
            .version
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            hs.push((headers::PROTOCOL_VERSION.into(), v));
        }
        if let Some(id) = shared.session_id() {
            hs.push((headers::SESSION_ID.into(), id));
        }
    }
    let request_id = json
        .and_then(|j| j.get("id"))
        .filter(|_| mh.request)
        .map(|id| id.as_raw().to_string());
    let initialize = mh.request && method == "initialize";
    let mut answered = false;
    let mut on_event = |data: &[u8]| {
        if let Some(id) = &request_id {
            answered |= answers(data, id);
        }
        if initialize {
            remember_version(shared, data);
        }
        shared.deliver(data);
    };
    let r = match exchange(shared, Method::Post, &hs, message, &mut on_event) {
        Ok(r) => r,
        Err(e) => return shared.note(format!("POST {method}: {e}")),
    };
    let ok = (200..300).contains(&r.status);
    if !r.sse && !r.body.is_empty() {
        // A JSON answer; on an error status, only a JSON-RPC response with an id is for
        // the session (an id-less error body is a note).
        let for_session = request_id.as_deref().is_some_and(|id| answers(&r.body, id));
        if for_session || (ok && request_id.is_some()) {
            if initialize {
                remember_version(shared, &r.body);
            }
            shared.deliver(&r.body);
        }
    }
    if !ok {
        // An HTTP error with no JSON-RPC answer in it still ends the request: the session
        // gets an error for it at once (a `server/discover` probe then falls back to
        // `initialize`, MODERN §5.7) rather than at its timeout. The note keeps the status.
        let delivered = request_id.as_deref().is_some_and(|id| answers(&r.body, id));
        if let (Some(id), false) = (&request_id, delivered) {
            shared.deliver(http_error(id, r.status).as_bytes());
        }
        shared.note(format!(
            "POST {method} -> HTTP {}{}",
            r.status,
            if r.body.is_empty() {
                String::new()
            } else {
                format!(
                    ": {}",
                    String::from_utf8_lossy(&r.body[..r.body.len().min(300)])
                )
            }
        ));
        return;
    }
    if initialize {
        open_get_stream(shared);
    }
    if let (true, false, Some(id)) = (r.sse, answered, &request_id) {
        resume(shared, id, r, modern_version.is_none());
    }
}

/// The JSON-RPC error the session gets for a request answered with an HTTP error status
/// and no JSON-RPC response (code -32000, "HTTP 404 Not Found").
fn http_error(id: &str, status: u16) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{HTTP_ERROR_CODE},"message":"HTTP {status} {}"}}}}"#,
        picomcp::http::reason_phrase(status)
    )
}

/// The code of [`http_error`]: the first of JSON-RPC's implementation-defined server
/// errors.
const HTTP_ERROR_CODE: i32 = -32000;

/// Whether `data` is the response to the request whose id is `id` (as written).
fn answers(data: &[u8], id: &str) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    Json::new(text)
        .ok()
        .is_some_and(|m| m.get("method").is_none() && m.get("id").is_some_and(|i| i.as_raw() == id))
}

/// Keeps `result.protocolVersion` of the `initialize` answer: every later legacy request
/// carries it as `MCP-Protocol-Version`.
fn remember_version(shared: &Shared, data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let version = Json::new(text)
        .ok()
        .and_then(|m| m.get("result"))
        .and_then(|r| r.get("protocolVersion"))
        .and_then(|v| v.as_str())
        .and_then(|v| v.as_plain().map(str::to_string));
    if let Some(v) = version {
        *shared.version.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
    }
}

/// A request's SSE stream ended before its answer: GET with `Last-Event-ID` after the
/// `retry` hint, until the answer arrives (DIGEST §12.3, 2025-11-25 polling). A
/// 2026-07-28 stream is not resumable (MODERN §13.1): its request is lost.
fn resume(shared: &Shared, id: &str, mut last: Answered, legacy: bool) {
    for _ in 0..MAX_RESUMES {
        let Some(event_id) = last.last_event_id.clone().filter(|_| legacy) else {
            shared.note(format!(
                "the SSE stream of request {id} ended without its answer"
            ));
            return;
        };
        thread::sleep(Duration::from_millis(
            last.retry_ms.unwrap_or(DEFAULT_RETRY_MS),
        ));
        if shared.done.load(Ordering::SeqCst) {
            return;
        }
        let mut hs = stream_headers(shared);
        hs.push((headers::LAST_EVENT_ID.into(), event_id));
        let mut answered = false;
        let r = exchange(shared, Method::Get, &hs, b"", &mut |data| {
            answered |= answers(data, id);
            shared.deliver(data);
        });
        match r {
            Ok(_) if answered => return,
            Ok(r) if (200..300).contains(&r.status) => {
                last.last_event_id = r.last_event_id.or(last.last_event_id);
                last.retry_ms = r.retry_ms.or(last.retry_ms);
            }
            Ok(r) => {
                return shared.note(format!("GET (resuming request {id}) -> HTTP {}", r.status));
            }
            Err(e) => return shared.note(format!("GET (resuming request {id}): {e}")),
        }
    }
}

/// The headers of a GET (the server stream, or a resumption).
fn stream_headers(shared: &Shared) -> Vec<(String, String)> {
    let mut hs = vec![("Accept".to_string(), "text/event-stream".to_string())];
    if let Some(id) = shared.session_id() {
        hs.push((headers::SESSION_ID.into(), id));
    }
    if let Some(v) = shared
        .version
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
    {
        hs.push((headers::PROTOCOL_VERSION.into(), v));
    }
    hs
}

/// Opens the GET stream of server-initiated messages once, after `initialize`; it is
/// reopened (with `Last-Event-ID`) when the server ends it, until the probe is done.
fn open_get_stream(shared: &Arc<Shared>) {
    if shared.get_opened.swap(true, Ordering::SeqCst) {
        return;
    }
    let shared = Arc::clone(shared);
    thread::spawn(move || {
        let mut last: Option<String> = None;
        let mut retry = DEFAULT_RETRY_MS;
        while !shared.done.load(Ordering::SeqCst) {
            let mut hs = stream_headers(&shared);
            if let Some(id) = &last {
                hs.push((headers::LAST_EVENT_ID.into(), id.clone()));
            }
            match exchange(&shared, Method::Get, &hs, b"", &mut |data| {
                shared.deliver(data)
            }) {
                // The server offers no stream of its own.
                Ok(r) if r.status == 405 => return,
                Ok(r) if (200..300).contains(&r.status) && r.sse => {
                    last = r.last_event_id.or(last);
                    retry = r.retry_ms.unwrap_or(retry);
                }
                Ok(r) => {
                    if !shared.done.load(Ordering::SeqCst) {
                        shared.note(format!("GET (server stream) -> HTTP {}", r.status));
                    }
                    return;
                }
                Err(e) => {
                    if !shared.done.load(Ordering::SeqCst) {
                        shared.note(format!("GET (server stream): {e}"));
                    }
                    return;
                }
            }
            thread::sleep(Duration::from_millis(retry));
        }
    });
}

/// Bytes of an SSE event's data the decoder holds (plus the id and type).
const SSE_BUFFER: usize = 4 << 20;
/// Header fields read of one response.
const MAX_RESPONSE_HEADERS: usize = 64;

/// One HTTP exchange on a connection of its own: writes the request, reads the response.
/// SSE events go to `on_event` as they arrive; any other body is returned whole. The
/// session id the server issues is kept.
fn exchange(
    shared: &Shared,
    method: Method,
    hs: &[(String, String)],
    body: &[u8],
    on_event: &mut dyn FnMut(&[u8]),
) -> io::Result<Answered> {
    let target = &shared.target;
    let addr = target
        .addr
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::other(format!("{}: no address", target.addr)))?;
    let mut sock = TcpStream::connect_timeout(&addr, shared.timeout)?;
    sock.set_nodelay(true)?;
    if method == Method::Get {
        // A stream may stay quiet for as long as a tool runs: no read timeout; it ends
        // when the server ends it or the probe shuts it down.
        shared
            .get_sockets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(sock.try_clone()?);
    } else {
        sock.set_read_timeout(Some(shared.timeout))?;
    }
    let all: Vec<Header<'_>> = target
        .extra
        .iter()
        .chain(hs.iter())
        .map(|(n, v)| Header {
            name: n,
            value: v.as_bytes(),
        })
        .collect();
    let mut out = vec![0u8; 512 + body.len()];
    let n = match write_request(method, &target.path, &target.host, &all, body, &mut out) {
        Ok(n) => n,
        Err(e) => {
            out.resize(e.required, 0);
            write_request(method, &target.path, &target.host, &all, body, &mut out)
                .map_err(|e| io::Error::other(e.to_string()))?
        }
    };
    sock.write_all(&out[..n])?;

    let limits = CodecLimits::default();
    let mut reader = ClientResponse::new(method, &limits);
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    // The head (and any interim 1xx before it).
    let (status, sse) = loop {
        let parsed = {
            let mut fields = [Header {
                name: "",
                value: &[],
            }; MAX_RESPONSE_HEADERS];
            match reader.parse_head(&buf, &mut fields) {
                Ok(Some(head)) => {
                    let content_type = head.header("content-type").unwrap_or(b"");
                    let sse = content_type
                        .get(..17)
                        .is_some_and(|t| t.eq_ignore_ascii_case(b"text/event-stream"));
                    if let Some(id) = head.header(headers::SESSION_ID) {
                        let id = String::from_utf8_lossy(id).into_owned();
                        let mut kept = shared.session_id.lock().unwrap_or_else(|e| e.into_inner());
                        if kept.is_none() {
                            *kept = Some(id);
                        }
                    }
                    Some((head.status, sse, head.head_len, head.is_interim()))
                }
                Ok(None) => None,
                Err(e) => return Err(io::Error::other(e.to_string())),
            }
        };
        match parsed {
            Some((_, _, len, true)) => {
                buf.drain(..len);
                reader = ClientResponse::new(method, &limits);
            }
            Some((status, sse, len, false)) => {
                buf.drain(..len);
                break (status, sse);
            }
            None => {
                let n = sock.read(&mut chunk)?;
                if n == 0 {
                    return Err(io::Error::other(
                        "connection closed before the response head",
                    ));
                }
                buf.extend_from_slice(&chunk[..n]);
            }
        }
    };
    // The body: SSE events as they complete, or the whole of anything else.
    let mut answered = Answered {
        status,
        sse,
        body: Vec::new(),
        last_event_id: None,
        retry_ms: None,
    };
    let mut sse_buf = if sse {
        vec![0u8; SSE_BUFFER]
    } else {
        Vec::new()
    };
    let mut decoder = Decoder::new(&mut sse_buf, DecoderLimits::default());
    let mut eof = false;
    loop {
        let mut at = 0;
        while at < buf.len() && !reader.is_done() {
            let piece = reader
                .read_body(&buf[at..])
                .map_err(|e| io::Error::other(e.to_string()))?;
            if piece.consumed == 0 {
                break;
            }
            at += piece.consumed;
            if sse {
                let mut data = piece.data;
                while !data.is_empty() {
                    let fed = decoder.feed(data);
                    data = &data[fed.consumed..];
                    match fed.item {
                        Some(Ok(event)) if !event.data.is_empty() => {
                            on_event(event.data.as_bytes())
                        }
                        Some(Err(e)) => shared.note(format!("SSE: {e}")),
                        _ => {}
                    }
                }
            } else if answered.body.len() + piece.data.len() <= MAX_MESSAGE {
                answered.body.extend_from_slice(piece.data);
            } else {
                return Err(io::Error::other(format!(
                    "response body over {MAX_MESSAGE} bytes"
                )));
            }
        }
        buf.drain(..at);
        if reader.is_done() || eof {
            break;
        }
        match sock.read(&mut chunk) {
            Ok(0) => {
                eof = true;
                if reader.handle_eof().is_err() && !sse {
                    return Err(io::Error::other("connection closed inside the response"));
                }
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            // A stream cut by the server or by the probe's shutdown ends here.
            Err(_) if sse => break,
            Err(e) => return Err(e),
        }
    }
    answered.last_event_id = decoder.last_event_id().map(str::to_string);
    answered.retry_ms = decoder.retry().map(u64::from);
    Ok(answered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = Target::parse("http://127.0.0.1:8080/mcp", vec![]).unwrap();
        assert_eq!(
            (t.addr.as_str(), t.host.as_str(), t.path.as_str()),
            ("127.0.0.1:8080", "127.0.0.1:8080", "/mcp")
        );
        let t = Target::parse("http://localhost", vec![]).unwrap();
        assert_eq!((t.addr.as_str(), t.path.as_str()), ("localhost:80", "/"));
        let t = Target::parse("http://[::1]:9/x?y=1", vec![]).unwrap();
        assert_eq!((t.addr.as_str(), t.path.as_str()), ("[::1]:9", "/x?y=1"));
        let t = Target::parse("http://[::1]/x", vec![]).unwrap();
        assert_eq!(t.addr, "[::1]:80");
        assert!(Target::parse("https://x/mcp", vec![]).is_err());
        assert!(Target::parse("ftp://x/mcp", vec![]).is_err());
        assert!(Target::parse("http:///mcp", vec![]).is_err());
    }

    #[test]
    fn answers_matches_responses_only() {
        assert!(answers(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#, "7"));
        assert!(answers(
            br#"{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}"#,
            r#""a""#
        ));
        assert!(!answers(
            br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            "7"
        ));
        assert!(!answers(br#"{"jsonrpc":"2.0","id":8,"result":{}}"#, "7"));
        assert!(answers(http_error(r#""x""#, 404).as_bytes(), r#""x""#));
    }
}
