//! `--url`: the server under test over Streamable HTTP (DIGEST §12, MODERN §13).
//!
//! The client session does not change: it writes newline-framed messages and reads
//! newline-framed messages, as over a child's pipes. This module is the pipe: each
//! message the session writes becomes one POST, and each message that comes back (a JSON
//! body, or the events of an SSE stream) is handed back as one line.
//!
//! The protocol rules are the core's [`picomcp::http::client::HttpClient`]: which
//! headers a POST carries in each era, the session id and negotiated version it keeps,
//! which response bodies are messages for the session, the JSON-RPC error that ends a
//! request answered by an HTTP error, when a request's SSE stream is resumed (GET with
//! `Last-Event-ID` after the `retry` hint), the GET stream after `initialize`, DELETE at
//! the end. HTTP bytes go through the core's codec ([`picomcp::http::codec`]) and SSE
//! decoder ([`picomcp::http::sse::Decoder`]). This module owns only sockets, threads
//! (one per POST, one for the GET stream; the client is shared behind a lock), the
//! channel to the session, and the notes: what happened on the wire that the session
//! cannot see (HTTP error statuses, resets), shown as the "server stderr" of the report
//! when a check fails.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use picomcp::http::client::{
    ClientConfig, Exchange, ExchangeKind, HttpClient, Next, ResponseKind, WriteError,
};
use picomcp::http::codec::{ClientResponse, CodecLimits};
use picomcp::http::sse::{Decoder, DecoderLimits};
use picomcp::http::{Header, Method};
use picomcp::json::Json;
use picomcp::session::Slice;

/// The largest JSON answer or SSE event accepted (the session's own line limit applies
/// after this).
const MAX_MESSAGE: usize = 16 << 20;
/// Bytes of the `Mcp-Session-Id` kept (a UUID is 36; a JWT may be long).
const MAX_SESSION_ID: usize = 1024;
/// Bytes of the negotiated version kept (`2025-11-25` is 10).
const MAX_VERSION: usize = 64;
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

/// Credentials for every request (`--token`, `--oauth`).
pub(crate) enum Auth {
    /// `--token`: a static bearer token.
    Static(String),
    /// `--oauth`: the OAuth client of `picomcp-oauth`, which gets (and refreshes, and
    /// steps up) the token on a 401 or 403.
    OAuth(Box<Mutex<picomcp_oauth::Authorizer>>),
}

/// POSTs of one message sent again after a new token (beyond the authorizer's own cap).
const MAX_AUTH_RETRIES: u32 = 4;

/// What the POST threads, the GET stream and the session's pipe share.
struct Shared {
    target: Target,
    /// `--token` or `--oauth`, when given.
    auth: Option<Auth>,
    /// The read timeout of a request's answer (`--timeout-ms`).
    timeout: Duration,
    /// The core's rules of an MCP client over HTTP, and what they keep (the session id,
    /// the negotiated version, the GET stream).
    client: Mutex<HttpClient<'static>>,
    /// Where received messages go; `None` once the probe is done.
    inbox: Mutex<Option<Sender<Vec<u8>>>>,
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

    fn client(&self) -> MutexGuard<'_, HttpClient<'static>> {
        self.client.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The `--header` fields and the bearer token, sent on every request.
    fn extra(&self) -> Vec<(String, String)> {
        let mut fields = self.target.extra.clone();
        if let Some(token) = self.bearer() {
            fields.push(("Authorization".to_string(), format!("Bearer {token}")));
        }
        fields
    }

    /// The bearer token of the moment, if any.
    fn bearer(&self) -> Option<String> {
        match self.auth.as_ref()? {
            Auth::Static(t) => Some(t.clone()),
            Auth::OAuth(a) => a
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .bearer()
                .map(str::to_string),
        }
    }

    /// A 401 or 403 to a request sent with `sent` as its token: whether to send it again
    /// (another thread got a new token meanwhile, or the authorizer just got one).
    fn reauthorize(&self, operation: &str, answered: &Answered, sent: Option<&str>) -> bool {
        let Some(Auth::OAuth(a)) = &self.auth else {
            return false;
        };
        let mut a = a.lock().unwrap_or_else(|e| e.into_inner());
        if a.bearer() != sent && a.bearer().is_some() {
            return true;
        }
        let outcome = a.handle_response(operation, answered.status, &answered.www_authenticate);
        for line in a.take_log() {
            self.note(format!("auth: {line}"));
        }
        outcome.unwrap_or(false)
    }

    /// A request written by the client into a buffer that grows until it fits.
    fn request<T>(
        &self,
        mut write: impl FnMut(
            &mut HttpClient<'static>,
            &[Header<'_>],
            &mut [u8],
        ) -> Result<T, WriteError>,
        hint: usize,
    ) -> io::Result<(T, Vec<u8>)> {
        let owned = self.extra();
        let extra: Vec<Header<'_>> = owned
            .iter()
            .map(|(n, v)| Header {
                name: n,
                value: v.as_bytes(),
            })
            .collect();
        let mut out = vec![0u8; 1024 + hint];
        loop {
            match write(&mut self.client(), &extra, &mut out) {
                Ok(t) => return Ok((t, out)),
                Err(WriteError::InsufficientSize { required }) if required > out.len() => {
                    out.resize(required, 0)
                }
                Err(e) => return Err(io::Error::other(e.to_string())),
            }
        }
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
pub(crate) fn open(
    target: Target,
    auth: Option<Auth>,
    timeout: Duration,
) -> (HttpPeer, HttpReader, HttpWriter) {
    let (tx, rx) = channel();
    // The client borrows its endpoint for as long as the probe runs (one per run).
    let path: &'static str = target.path.clone().leak();
    let host: &'static str = target.host.clone().leak();
    let client = HttpClient::new(
        ClientConfig::new(path, host),
        Slice::Owned(vec![0u8; MAX_SESSION_ID]),
        Slice::Owned(vec![0u8; MAX_VERSION]),
    );
    let shared = Arc::new(Shared {
        target,
        auth,
        timeout,
        client: Mutex::new(client),
        inbox: Mutex::new(Some(tx)),
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

    /// What the authorization did (each line also a note), and the token it ended with
    /// (redacted).
    pub(crate) fn auth_log(&self) -> Option<(Vec<String>, Option<String>)> {
        let Some(Auth::OAuth(_)) = &self.shared.auth else {
            return None;
        };
        let notes = self.shared.notes.lock().unwrap_or_else(|e| e.into_inner());
        let lines = notes
            .iter()
            .filter_map(|n| n.strip_prefix("auth: "))
            .map(str::to_string)
            .collect();
        let token = self.shared.bearer().map(|t| picomcp_oauth::redact(&t));
        Some((lines, token))
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
        let delete = shared.request(|c, extra, out| c.write_delete(extra, out), 0);
        let outcome = match delete {
            Ok((Some(started), bytes)) => {
                let mut ex = started.exchange;
                exchange(shared, Method::Delete, &mut ex, &bytes[..started.len])
                    .map(|_| shared.client().handle_end(&mut ex, None, None))
            }
            Ok((None, _)) => Ok(Next::Done),
            Err(e) => Err(e),
        };
        match outcome {
            Ok(Next::Refused { status }) => {
                shared.note(format!("DELETE (end of session) -> HTTP {status}"))
            }
            Ok(_) => {}
            Err(e) => shared.note(format!("DELETE (end of session): {e}")),
        }
        // The reader ends once every POST thread has delivered what it had.
        shared
            .inbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }
}

/// What [`exchange`] saw of a response besides the messages it delivered.
struct Answered {
    /// The status of the final head.
    status: u16,
    /// Its `WWW-Authenticate` values (a 401 or 403's challenges).
    www_authenticate: Vec<String>,
    /// The body, when it was not an SSE stream (a JSON answer, an error text).
    body: Vec<u8>,
    /// The SSE stream's last event id and `retry` hint.
    last_event_id: Option<String>,
    retry_ms: Option<u32>,
}

/// POSTs one message the session wrote and delivers what comes back, as the core's
/// client says: the answer, an error for a request answered by an HTTP error, the
/// resumption of a stream cut before its answer, the GET stream after `initialize`.
fn post(shared: &Arc<Shared>, message: &[u8]) {
    let mut label = format!("POST {}", method_of(message));
    let mut method = Method::Post;
    let (started, bytes) = match shared.request(
        |c, extra, out| c.write_post(message, extra, out),
        message.len(),
    ) {
        Ok(r) => r,
        Err(e) => return shared.note(format!("{label}: {e}")),
    };
    let mut ex = started.exchange;
    let mut request = bytes;
    request.truncate(started.len);
    let mut last_event_id: Option<String> = None;
    let mut sent = shared.bearer();
    let mut auth_retries = 0;
    loop {
        let r = match exchange(shared, method, &mut ex, &request) {
            Ok(r) => r,
            Err(e) => return shared.note(format!("{label}: {e}")),
        };
        if method == Method::Post
            && matches!(r.status, 401 | 403)
            && auth_retries < MAX_AUTH_RETRIES
            && shared.reauthorize(&method_of(message), &r, sent.as_deref())
        {
            // Sent again with the new token, as a new exchange.
            auth_retries += 1;
            sent = shared.bearer();
            match shared.request(
                |c, extra, out| c.write_post(message, extra, out),
                message.len(),
            ) {
                Ok((started, mut bytes)) => {
                    ex = started.exchange;
                    bytes.truncate(started.len);
                    request = bytes;
                    continue;
                }
                Err(e) => return shared.note(format!("{label}: {e}")),
            }
        }
        last_event_id = r.last_event_id.or(last_event_id);
        let next = shared
            .client()
            .handle_end(&mut ex, last_event_id.as_deref(), r.retry_ms);
        let stream = if ex.kind() == ExchangeKind::Post {
            shared.client().poll_server_stream()
        } else {
            None
        };
        if let Some(stream) = stream {
            let shared = Arc::clone(shared);
            thread::spawn(move || server_stream(&shared, stream));
        }
        let id = ex.request_id().unwrap_or("?").to_string();
        match next {
            Next::Done => return,
            Next::AnswerWithError { status } => {
                // The request ends at once rather than at the session's timeout (a
                // `server/discover` probe then falls back to `initialize`, MODERN §5.7).
                let mut out = vec![0u8; 128 + id.len()];
                if let Ok(n) = ex.write_error_answer(status, &mut out) {
                    shared.deliver(&out[..n]);
                }
                return shared.note(status_note(&label, status, &r.body));
            }
            Next::Refused { status } => return shared.note(status_note(&label, status, &r.body)),
            Next::Lost => {
                return shared.note(format!(
                    "the SSE stream of request {id} ended without its answer"
                ));
            }
            Next::Reconnect { after_ms } => {
                thread::sleep(Duration::from_millis(u64::from(after_ms)));
                if shared.done.load(Ordering::SeqCst) {
                    return;
                }
                let Some(event_id) = last_event_id.as_deref() else {
                    return;
                };
                match shared.request(
                    |c, extra, out| c.write_get(&mut ex, Some(event_id), extra, out),
                    0,
                ) {
                    Ok((n, mut bytes)) => {
                        bytes.truncate(n);
                        request = bytes;
                    }
                    Err(e) => return shared.note(format!("GET (resuming request {id}): {e}")),
                }
                method = Method::Get;
                label = format!("GET (resuming request {id})");
            }
        }
    }
}

/// The method of a message, for notes.
fn method_of(message: &[u8]) -> String {
    std::str::from_utf8(message)
        .ok()
        .and_then(|t| Json::new(t).ok())
        .and_then(|j| j.get("method"))
        .and_then(|m| m.as_str())
        .and_then(|m| m.as_plain())
        .unwrap_or("(response)")
        .to_string()
}

/// A note of an HTTP status the session did not see, with the start of the body.
fn status_note(label: &str, status: u16, body: &[u8]) -> String {
    if body.is_empty() {
        format!("{label} -> HTTP {status}")
    } else {
        format!(
            "{label} -> HTTP {status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        )
    }
}

/// The GET stream of server-initiated messages, opened once after `initialize` and
/// reopened (with `Last-Event-ID`) when the server ends it, until the probe is done.
fn server_stream(shared: &Shared, mut ex: Exchange) {
    let mut last: Option<String> = None;
    while !shared.done.load(Ordering::SeqCst) {
        let outcome = shared
            .request(
                |c, extra, out| c.write_get(&mut ex, last.as_deref(), extra, out),
                0,
            )
            .and_then(|(n, bytes)| exchange(shared, Method::Get, &mut ex, &bytes[..n]));
        let r = match outcome {
            Ok(r) => r,
            Err(e) => {
                if !shared.done.load(Ordering::SeqCst) {
                    shared.note(format!("GET (server stream): {e}"));
                }
                return;
            }
        };
        last = r.last_event_id.or(last);
        let next = shared
            .client()
            .handle_end(&mut ex, last.as_deref(), r.retry_ms);
        match next {
            Next::Reconnect { after_ms } => {
                thread::sleep(Duration::from_millis(u64::from(after_ms)))
            }
            Next::Refused { status } => {
                if !shared.done.load(Ordering::SeqCst) {
                    shared.note(format!("GET (server stream) -> HTTP {status}"));
                }
                return;
            }
            // 405: the server offers no stream of its own.
            _ => return,
        }
    }
}

/// Bytes of an SSE event's data the decoder holds (plus the id and type).
const SSE_BUFFER: usize = 4 << 20;
/// Header fields read of one response.
const MAX_RESPONSE_HEADERS: usize = 64;

/// One HTTP exchange on a connection of its own: writes the request, reads the response,
/// and gives its head and messages to the core's client, delivering the messages it says
/// are the session's (the SSE events as they arrive, a JSON body once whole).
fn exchange(
    shared: &Shared,
    method: Method,
    ex: &mut Exchange,
    request: &[u8],
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
    sock.write_all(request)?;

    let limits = CodecLimits::default();
    let mut status = 0;
    let mut www_authenticate = Vec::new();
    let mut reader = ClientResponse::new(method, &limits);
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    // The head (and any interim 1xx before it).
    let kind = loop {
        let parsed = {
            let mut fields = [Header::EMPTY; MAX_RESPONSE_HEADERS];
            match reader.parse_head(&buf, &mut fields) {
                Ok(Some(head)) => {
                    status = head.status;
                    www_authenticate = head
                        .headers
                        .iter()
                        .filter(|h| h.name.eq_ignore_ascii_case("www-authenticate"))
                        .filter_map(|h| h.value_str().map(str::to_string))
                        .collect();
                    let kind = shared
                        .client()
                        .handle_response_head(ex, &head)
                        .map_err(|e| io::Error::other(e.to_string()))?;
                    Some((kind, head.head_len))
                }
                Ok(None) => None,
                Err(e) => return Err(io::Error::other(e.to_string())),
            }
        };
        match parsed {
            Some((ResponseKind::Interim, len)) => {
                buf.drain(..len);
                reader = ClientResponse::new(method, &limits);
            }
            Some((kind, len)) => {
                buf.drain(..len);
                break kind;
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
    let sse = kind == ResponseKind::EventStream;
    let on_message = |ex: &mut Exchange, data: &[u8]| {
        let deliver = shared.client().handle_message(ex, data);
        match deliver {
            Ok(true) => shared.deliver(data),
            Ok(false) => {}
            Err(e) => {
                shared.note(format!("{e}"));
                shared.deliver(data);
            }
        }
    };
    // The body: SSE events as they complete, or the whole of anything else.
    let mut answered = Answered {
        status,
        www_authenticate,
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
                            on_message(ex, event.data.as_bytes())
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
    if !sse && !answered.body.is_empty() {
        // A JSON answer, or the body of an error status (the session's only when it is
        // the JSON-RPC response to the request).
        on_message(ex, &answered.body);
    }
    answered.last_event_id = decoder.last_event_id().map(str::to_string);
    answered.retry_ms = decoder.retry();
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
}
