//! The request side: POST (both eras) and GET, from headers and body to a slot and a
//! stream, or to a refusal.

use super::checks::{accepts, header_matches, is_json};
use super::sessions::{self, ENTROPY_LEN, SlotState};
use super::streams::{self, Kind, MAX_IDS, Mode};
use super::{Endpoint, Outcome, Refusal, is_method, raw_of, refuse};
use crate::error::ErrorCode;
use crate::http::{Request, headers, params};
use crate::json::Json;
use crate::jsonrpc::{self, Id, Message};
use crate::protocol::{Method, ProtocolVersion};
use crate::session::meta::KEY_VERSION;

fn header_error<'r>(id: Id<'r>, message: &'static str) -> Refusal<'r> {
    Refusal {
        status: 400,
        id: Some(id),
        code: ErrorCode::HEADER_MISMATCH,
        message,
    }
}

/// The `_meta` of a request's params.
fn meta_of(params: Option<Json<'_>>) -> Option<Json<'_>> {
    params.and_then(|p| p.get("_meta"))
}

/// The progress token of a request (from its `_meta`), hashed (0: none).
fn progress_of(meta: Option<Json<'_>>) -> u64 {
    meta.and_then(|m| m.get("progressToken"))
        .map_or(0, |t| streams::hash(raw_of(t)))
}

impl<'e> Endpoint<'e> {
    pub(super) fn post<'r>(
        &mut self,
        now: u64,
        req: &Request<'r>,
        entropy: &[u8; ENTROPY_LEN],
    ) -> Result<Outcome<'static>, Refusal<'r>> {
        if !accepts(req.headers_named("accept"), "application/json")
            || !accepts(req.headers_named("accept"), "text/event-stream")
        {
            return Err(refuse(
                406,
                "Not Acceptable: Accept must list application/json and text/event-stream",
            ));
        }
        if !req.header("content-type").is_some_and(is_json) {
            return Err(refuse(
                415,
                "Unsupported Media Type: Content-Type must be application/json",
            ));
        }
        // A coded body (gzip, ...) would be read as JSON and fail as a parse error;
        // RFC 9110 §8.4.1 answers a coding the server does not know with 415.
        if req
            .headers_named("content-encoding")
            .flat_map(|v| v.split(|&b| b == b','))
            .any(|c| {
                !c.trim_ascii().is_empty() && !c.trim_ascii().eq_ignore_ascii_case(b"identity")
            })
        {
            return Err(refuse(
                415,
                "Unsupported Media Type: Content-Encoding is not supported",
            ));
        }
        if req.body.len() > self.config.max_body {
            return Err(refuse(413, "Content Too Large"));
        }
        // The framing's check: vector instructions on hosts (a 1 KiB body in a third of
        // `core::str::from_utf8`'s instructions), `core` alone on bare metal.
        let Ok(text) = crate::framing::to_str(req.body) else {
            let id = jsonrpc::peek_id(req.body, self.config.limits.max_depth);
            return Err(parse_refusal(
                id,
                jsonrpc::ParseErrorKind::InvalidUtf8.code(),
            ));
        };
        let limits = self.config.limits;
        let message = match jsonrpc::parse(text, &limits) {
            Ok(m) => m,
            Err(e) => {
                return Err(Refusal {
                    status: 400,
                    id: e.id,
                    code: e.code(),
                    message: e.kind.message(),
                });
            }
        };
        // Any line naming 2026-07-28 (a repeated header is refused on either path).
        let modern_header = req
            .headers_named("mcp-protocol-version")
            .any(|v| v.trim_ascii() == ProtocolVersion::V2026_07_28.as_str().as_bytes());
        match message {
            Message::Request(r) => {
                // `_meta` looked up once (past a 1 KiB argument, a lookup is a scan of it):
                // the era claim (as `session::meta::modern_claim`) and the progress token.
                let meta = meta_of(r.params);
                let claim = meta.is_some_and(|m| m.get(KEY_VERSION).is_some());
                if claim || modern_header {
                    return self.post_modern(now, req, r, modern_header);
                }
                if is_method(r.method, Method::Initialize) {
                    return self.post_initialize(now, r, entropy);
                }
                let echo = |mut e: Refusal<'r>| {
                    e.id = Some(r.id);
                    e
                };
                let slot = self.session_of(now, req).map_err(echo)?;
                self.check_version(req).map_err(echo)?;
                let id_hash = streams::hash(r.id.as_raw());
                if self.in_flight(slot, id_hash) {
                    return Err(duplicate_id(Some(r.id)));
                }
                let i = self.open_stream(now, slot, Kind::Post).map_err(echo)?;
                let s = &mut self.streams[i];
                s.ids[0] = id_hash;
                s.waiting = 1;
                s.progress = progress_of(meta);
                self.current = Some(i);
                Ok(Outcome::Deliver {
                    slot,
                    fresh: false,
                    stream: Some(self.handle(i)),
                })
            }
            Message::Batch(b) => {
                let slot = self.session_of(now, req)?;
                self.check_version(req)?;
                if self.slots[slot].version != Some(ProtocolVersion::V2025_03_26) {
                    return Err(Refusal {
                        status: 400,
                        id: None,
                        code: ErrorCode::INVALID_REQUEST,
                        message: "Invalid Request: batches are allowed only in protocol version 2025-03-26",
                    });
                }
                let mut ids = [0u64; MAX_IDS];
                let mut n = 0;
                let mut entries = 0usize;
                let mut invalid = false;
                for m in b.iter() {
                    entries += 1;
                    invalid |= !matches!(
                        m,
                        Ok(Message::Request(_)
                            | Message::Notification(_)
                            | Message::Response(_)
                            | Message::Error(_))
                    );
                    if let Ok(Message::Request(r)) = m {
                        if n == MAX_IDS {
                            return Err(Refusal {
                                status: 400,
                                id: None,
                                code: ErrorCode::INVALID_REQUEST,
                                message: "Invalid Request: too many requests in one batch",
                            });
                        }
                        ids[n] = streams::hash(r.id.as_raw());
                        if self.in_flight(slot, ids[n]) {
                            return Err(duplicate_id(None));
                        }
                        n += 1;
                    }
                }
                if n == 0 && (invalid || entries == 0) {
                    // No request, so no stream for the session's error answers (they
                    // would be dropped unroutable), and 202 would say the body was
                    // accepted: refuse the whole POST (DIGEST §12.3: 400, an id-less
                    // JSON-RPC error), as JSON-RPC answers `[]` and `[1]`.
                    return Err(Refusal {
                        status: 400,
                        id: None,
                        code: ErrorCode::INVALID_REQUEST,
                        message: if entries == 0 {
                            "Invalid Request: empty batch"
                        } else {
                            "Invalid Request: a batch entry is not a JSON-RPC message"
                        },
                    });
                }
                if n == 0 {
                    return Ok(Outcome::Deliver {
                        slot,
                        fresh: false,
                        stream: None,
                    });
                }
                let i = self.open_stream(now, slot, Kind::Post)?;
                self.streams[i].ids = ids;
                self.streams[i].waiting = n as u8;
                self.current = Some(i);
                Ok(Outcome::Deliver {
                    slot,
                    fresh: false,
                    stream: Some(self.handle(i)),
                })
            }
            // Notifications and responses: 2026-07-28 defines none from the client on
            // HTTP (accepted, nothing to deliver); a legacy one goes to its session.
            _ if modern_header && req.header("mcp-session-id").is_none() => Ok(Outcome::Respond {
                head: super::Head::accepted(),
                body: &[],
            }),
            _ => {
                let slot = self.session_of(now, req)?;
                self.check_version(req)?;
                Ok(Outcome::Deliver {
                    slot,
                    fresh: false,
                    stream: None,
                })
            }
        }
    }

    /// Whether a stream of `slot` still waits for the response to an id with this hash:
    /// a request that reuses it would have the session's answers cross (its
    /// duplicate-id error on the first request's stream, the first response on its own).
    fn in_flight(&self, slot: usize, id_hash: u64) -> bool {
        self.streams
            .iter()
            .any(|s| s.live && s.slot as usize == slot && s.waits_for(id_hash).is_some())
    }

    fn post_initialize<'r>(
        &mut self,
        now: u64,
        r: jsonrpc::Request<'r>,
        entropy: &[u8; ENTROPY_LEN],
    ) -> Result<Outcome<'static>, Refusal<'r>> {
        let Some(slot) = self.allocate_slot(now) else {
            return Err(refuse(503, "Service Unavailable: no free session slot"));
        };
        let i = self.open_stream(now, slot, Kind::Post)?;
        let e = &mut self.slots[slot];
        e.state = SlotState::Initializing;
        e.id = sessions::mint(entropy);
        e.last = now;
        e.used = false;
        e.version = None;
        e.owner = self.authorized.then(|| self.principal.owner_key());
        let s = &mut self.streams[i];
        s.initialize = true;
        s.ids[0] = streams::hash(r.id.as_raw());
        s.waiting = 1;
        self.current = Some(i);
        Ok(Outcome::Deliver {
            slot,
            fresh: true,
            stream: Some(self.handle(i)),
        })
    }

    /// A 2026-07-28 request: the headers against the body, then a slot lent for the life
    /// of this POST.
    fn post_modern<'r>(
        &mut self,
        now: u64,
        req: &Request<'r>,
        r: jsonrpc::Request<'r>,
        modern_header: bool,
    ) -> Result<Outcome<'static>, Refusal<'r>> {
        let claimed = r
            .params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(KEY_VERSION))
            .and_then(|v| v.as_str());
        // Each MCP header once: a repeated one is a list (RFC 9110 §5.3) that matches
        // nothing, and an intermediary reading another line than we do must not route
        // one method while we serve another.
        let one = |name: &str, what: &'static str| {
            req.single_header(name)
                .map_err(|_| header_error(r.id, what))
        };
        let version = one(
            "mcp-protocol-version",
            "Header mismatch: MCP-Protocol-Version header is repeated",
        )?;
        let method = one(
            "mcp-method",
            "Header mismatch: Mcp-Method header is repeated",
        )?;
        let name = one("mcp-name", "Header mismatch: Mcp-Name header is repeated")?;
        match (claimed, version) {
            (Some(c), Some(h)) if header_matches(h, c) => {}
            (None, Some(_)) if is_method(r.method, Method::ServerDiscover) => {}
            (_, None) => {
                return Err(header_error(
                    r.id,
                    "Header mismatch: MCP-Protocol-Version header is required",
                ));
            }
            _ => {
                return Err(header_error(
                    r.id,
                    "Header mismatch: MCP-Protocol-Version header does not match the body",
                ));
            }
        }
        let _ = modern_header;
        match method {
            Some(m) if header_matches(m, r.method) => {}
            Some(_) => {
                return Err(header_error(
                    r.id,
                    "Header mismatch: Mcp-Method does not match the body",
                ));
            }
            None => {
                return Err(header_error(
                    r.id,
                    "Header mismatch: Mcp-Method header is required",
                ));
            }
        }
        let name_key = r.method.as_plain().and_then(headers::name_param);
        if let Some(key) = name_key {
            let body = r.params.and_then(|p| p.get(key)).and_then(|v| v.as_str());
            match (body, name) {
                (Some(b), Some(h)) if header_matches(h, b) => {}
                (None, None) => {}
                (Some(_), None) => {
                    return Err(header_error(
                        r.id,
                        "Header mismatch: Mcp-Name header is required",
                    ));
                }
                _ => {
                    return Err(header_error(
                        r.id,
                        "Header mismatch: Mcp-Name does not match the body",
                    ));
                }
            }
        }
        if name_key == Some("name") && is_method(r.method, Method::ToolsCall) {
            self.check_params(req, r)?;
        }
        let Some(slot) = self.allocate_slot(now) else {
            return Err(refuse(503, "Service Unavailable: no free session slot"));
        };
        let i = self.open_stream(now, slot, Kind::Post)?;
        let e = &mut self.slots[slot];
        e.state = SlotState::Stateless;
        e.last = now;
        e.version = Some(ProtocolVersion::V2026_07_28);
        let s = &mut self.streams[i];
        s.modern = true;
        s.ids[0] = streams::hash(r.id.as_raw());
        s.waiting = 1;
        s.progress = progress_of(meta_of(r.params));
        self.current = Some(i);
        Ok(Outcome::Deliver {
            slot,
            fresh: true,
            stream: Some(self.handle(i)),
        })
    }

    /// The `Mcp-Param-{Name}` headers of a 2026-07-28 `tools/call` against its arguments
    /// (MODERN §13.2): first for the annotations of the tool's `inputSchema` found in
    /// [`EndpointConfig::tools`] ([`params::check`]), then for those listed by hand in
    /// [`EndpointConfig::param_headers`]: a value
    /// present and not `null` needs its header, equal after sentinel decoding (integers
    /// compared as numbers); an absent or `null` one must have none.
    fn check_params<'r>(
        &self,
        req: &Request<'r>,
        r: jsonrpc::Request<'r>,
    ) -> Result<(), Refusal<'r>> {
        let params = r.params;
        let Some(tool) = params.and_then(|p| p.get("name")).and_then(|n| n.as_str()) else {
            return Ok(());
        };
        let args = params.and_then(|p| p.get("arguments"));
        if repeated_param_header(req) {
            return Err(header_error(
                r.id,
                "Header mismatch: an Mcp-Param header is repeated",
            ));
        }
        let schema = self
            .config
            .tools
            .and_then(|t| t.input_schema(tool))
            // Most tools have no annotation: no parse of their schema per call.
            .filter(|s| s.contains("x-mcp-header"))
            .and_then(|s| Json::new(s).ok());
        if let Some(schema) = schema {
            let lookup = |name: &str| {
                req.headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case(name))
                    .map(|h| h.value)
            };
            if let Err(e) = params::check(schema, args, lookup) {
                return Err(header_error(
                    r.id,
                    match e {
                        params::ParamError::Missing => {
                            "Header mismatch: an Mcp-Param header the tool's inputSchema asks for is missing"
                        }
                        _ => "Header mismatch: an Mcp-Param header does not match the arguments",
                    },
                ));
            }
        }
        for p in self
            .config
            .param_headers
            .iter()
            .filter(|p| tool.eq_str(p.tool))
        {
            let value = args
                .and_then(|a| a.get(p.property))
                .filter(|v| !v.is_null());
            let header = req
                .headers
                .iter()
                .find(|h| {
                    h.name.len() == 10 + p.header.len()
                        && h.name[..10].eq_ignore_ascii_case("mcp-param-")
                        && h.name[10..].eq_ignore_ascii_case(p.header)
                })
                .map(|h| h.value);
            let ok = match (value, header) {
                (None, None) => true,
                (Some(v), Some(h)) => param_matches(h, v),
                _ => false,
            };
            if !ok {
                return Err(header_error(
                    r.id,
                    "Header mismatch: an Mcp-Param header does not match the arguments",
                ));
            }
        }
        Ok(())
    }

    /// GET: the session's server-to-client stream, or the resumption of any of its
    /// streams with `Last-Event-ID`.
    pub(super) fn get<'r>(
        &mut self,
        now: u64,
        req: &Request<'r>,
    ) -> Result<Outcome<'static>, Refusal<'r>> {
        if !self.config.get_stream {
            return Err(refuse(
                405,
                "Method Not Allowed: no server-to-client stream",
            ));
        }
        if !accepts(req.headers_named("accept"), "text/event-stream") {
            return Err(refuse(
                406,
                "Not Acceptable: Accept must list text/event-stream",
            ));
        }
        let slot = self.session_of(now, req)?;
        self.check_version(req)?;
        let Ok(last) = req.single_header("last-event-id") else {
            return Err(refuse(400, "Bad Request: repeated Last-Event-ID header"));
        };
        if let Some(last) = last {
            let found = streams::parse_event_id(last).and_then(|(number, seq)| {
                let i = self.streams.iter().position(|s| {
                    s.live && !s.modern && s.number == number && s.slot as usize == slot
                })?;
                Some((i, seq))
            });
            match found {
                Some((i, _)) if self.streams[i].attached => {
                    return Err(refuse(409, "Conflict: the stream is already being read"));
                }
                Some((i, seq)) => {
                    let at = i * self.per_stream;
                    let region = &self.bytes[at..at + self.per_stream];
                    let s = &mut self.streams[i];
                    s.rewind_after(region, seq);
                    s.attached = true;
                    s.head_sent = false;
                    s.mode = Mode::Sse;
                    s.last_io = now;
                    return Ok(Outcome::Stream(self.handle(i)));
                }
                None => self.stats.resume_misses += 1,
            }
        }
        let existing = self
            .streams
            .iter()
            .position(|s| s.live && s.kind == Kind::Get && s.slot as usize == slot);
        if let Some(i) = existing {
            if self.streams[i].attached {
                return Err(refuse(409, "Conflict: only one GET stream per session"));
            }
            let s = &mut self.streams[i];
            s.attached = true;
            s.head_sent = false;
            s.last_io = now;
            return Ok(Outcome::Stream(self.handle(i)));
        }
        let i = self.open_stream(now, slot, Kind::Get)?;
        // `open_stream` has primed it already under `ResponseMode::Sse`: one priming
        // event only (a second with the same id would shift every resumption by one).
        if self.streams[i].mode != Mode::Sse {
            self.streams[i].mode = Mode::Sse;
            self.prime(i);
        }
        Ok(Outcome::Stream(self.handle(i)))
    }
}

/// True when some `Mcp-Param-{Name}` appears twice (names compare case-insensitively).
/// Quadratic in the header count, which the codec bounds (32 by default); run for a
/// 2026-07-28 `tools/call` only.
fn repeated_param_header(req: &Request<'_>) -> bool {
    let is_param = |n: &str| n.len() > 10 && n.as_bytes()[..10].eq_ignore_ascii_case(b"mcp-param-");
    req.headers.iter().enumerate().any(|(i, a)| {
        is_param(a.name)
            && req.headers[i + 1..]
                .iter()
                .any(|b| b.name.eq_ignore_ascii_case(a.name))
    })
}

/// An `Mcp-Param-*` value against the argument: a string as is, an integer numerically,
/// a boolean as `true`/`false` (MODERN §13.3).
fn param_matches(header: &[u8], v: Json<'_>) -> bool {
    if let Some(s) = v.as_str() {
        return header_matches(header, s);
    }
    let mut buf = [0u8; 512];
    let Some(text) = super::checks::decode_header(header, &mut buf) else {
        return false;
    };
    if let Some(b) = v.as_bool() {
        return text == if b { "true" } else { "false" };
    }
    match (v.as_f64(), text.parse::<f64>()) {
        (Some(a), Ok(b)) => v.kind() == crate::json::JsonKind::Number && a == b,
        _ => false,
    }
}

/// A request that reuses the id of one still in flight in its session (DIGEST §2.2):
/// refused here, with the same error the session would give, so that its answer cannot
/// be taken for the first request's. A batch is refused whole (no id).
fn duplicate_id(id: Option<Id<'_>>) -> Refusal<'_> {
    Refusal {
        status: 400,
        id,
        code: ErrorCode::INVALID_REQUEST,
        message: "Invalid Request: duplicate id of a request in flight",
    }
}

fn parse_refusal(id: Option<Id<'_>>, code: ErrorCode) -> Refusal<'_> {
    Refusal {
        status: 400,
        id,
        code,
        message: "Parse error",
    }
}
