//! The envelope scan: one pass over a message's top-level object that validates its
//! JSON and records where each envelope member (`jsonrpc`, `id`, `method`, `params`,
//! `result`, `error`) lies, and the members of an `error` object ([`Spans`]). This is
//! the exact scan, which reports the first JSON error; `envelope_fast` is its fast path
//! for valid messages. [`parse`](super::parse()) applies JSON-RPC's rules to what it found.

use crate::json::{JsonError, JsonErrorKind, JsonStr, Scanner, StrSpan, short_eq};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Member {
    JsonRpc = 0,
    Id = 1,
    Method = 2,
    Params = 3,
    Result = 4,
    Error = 5,
}

/// Which of `names` the key `k` is (its index), after unescaping.
#[inline(always)]
fn classify_key(b: &[u8], k: StrSpan, names: &[&str]) -> Option<u8> {
    let raw = b.get(k.start..k.end)?;
    if !k.escaped {
        return names
            .iter()
            .position(|n| short_eq(n.as_bytes(), raw))
            .map(|i| i as u8);
    }
    let raw = core::str::from_utf8(raw).ok()?;
    let s = JsonStr::from_validated(raw, true);
    names.iter().position(|n| s.eq_str(n)).map(|i| i as u8)
}

/// The envelope members, in [`Member`] order.
pub(super) const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
/// The members of an error object the parser reads, indexed by [`ErrorMember`].
pub(super) const ERROR_MEMBERS: [&str; 3] = ["code", "message", "data"];

#[derive(Clone, Copy)]
pub(super) enum ErrorMember {
    Code = 0,
    Message = 1,
    Data = 2,
}

/// Where the named members of one object lie. Sets of members are bit masks indexed by
/// the member's position in its name table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Spans {
    /// Where each member's value lies; valid for the members in `complete`.
    pub(super) spans: [(usize, usize); 6],
    /// Members whose value is known to be complete (the first occurrence counts).
    pub(super) complete: u8,
    /// Members whose name was seen (even if the value then failed to scan).
    pub(super) seen: u8,
    /// Members seen more than once.
    pub(super) dup: u8,
}

impl Spans {
    pub(super) const NONE: Spans = Spans {
        spans: [(0, 0); 6],
        complete: 0,
        seen: 0,
        dup: 0,
    };

    pub(super) fn span(&self, i: u8) -> Option<(usize, usize)> {
        (self.complete & (1 << i) != 0).then(|| self.spans[i as usize])
    }
}

/// What one pass over a top-level object found.
pub(super) struct Envelope {
    /// The envelope members, indexed by [`Member`].
    pub(super) top: Spans,
    /// The members of the first `error` member's value when it is an object, indexed by
    /// [`ErrorMember`]: read in the same pass, so that a client's error responses cost no
    /// second walk.
    pub(super) error_object: Spans,
    /// The first JSON error, if any (scanning stops there).
    pub(super) error: Option<JsonError>,
}

impl Envelope {
    pub(super) fn new() -> Self {
        Envelope {
            top: Spans::NONE,
            error_object: Spans::NONE,
            error: None,
        }
    }

    pub(super) fn span(&self, m: Member) -> Option<(usize, usize)> {
        self.top.span(m as u8)
    }

    pub(super) fn seen(&self, m: Member) -> bool {
        self.top.seen & (1 << m as u8) != 0
    }

    pub(super) fn dup(&self, m: Member) -> bool {
        self.top.dup & (1 << m as u8) != 0
    }
}

/// Scans a top-level object starting at `sc.pos` (which is at `{`), recording the
/// envelope members in `env` (which must be new). Stops at the first JSON error.
#[inline(always)]
pub(super) fn scan_envelope(sc: &mut Scanner<'_>, max_depth: usize, env: &mut Envelope) {
    #[cfg(target_pointer_width = "64")]
    {
        let fast = super::envelope_fast::scan(
            sc.b,
            sc.pos,
            max_depth,
            &mut env.top,
            &mut env.error_object,
        );
        if let Some(end) = fast {
            sc.pos = end;
            return;
        }
        *env = Envelope::new();
    }
    let r = scan_members::<true>(
        sc,
        1,
        max_depth,
        &ENVELOPE,
        &mut env.top,
        &mut env.error_object,
    );
    if let Err(e) = r {
        env.error = Some(e);
    }
}

/// The exact scan alone (no fast path), for the fast path's differential test: the
/// envelope members, the error object's members, and the offset after the object.
#[cfg(all(test, target_pointer_width = "64"))]
pub(super) fn scan_envelope_exact(
    b: &[u8],
    pos: usize,
    max_depth: usize,
) -> (Spans, Spans, Result<usize, JsonError>) {
    let mut sc = Scanner::new(b);
    sc.pos = pos;
    let (mut top, mut error_object) = (Spans::NONE, Spans::NONE);
    let r = scan_members::<true>(
        &mut sc,
        1,
        max_depth,
        &ENVELOPE,
        &mut top,
        &mut error_object,
    );
    (top, error_object, r.map(|()| sc.pos))
}

/// Scans an object at nesting level `depth` starting at `sc.pos` (at `{`), recording in
/// `found` where the members named in `names` (at most 6) lie. With `ERROR_OBJECT`, the
/// value of the first `error` member, when it is an object, is scanned the same way into
/// `error_object`.
// Inlined where speed is the goal; on small targets one copy per instance saves flash.
#[cfg_attr(target_pointer_width = "64", inline(always))]
fn scan_members<const ERROR_OBJECT: bool>(
    sc: &mut Scanner<'_>,
    depth: usize,
    max_depth: usize,
    names: &[&str],
    found: &mut Spans,
    error_object: &mut Spans,
) -> Result<(), JsonError> {
    if max_depth < depth {
        return Err(JsonError {
            kind: JsonErrorKind::TooDeep,
            offset: sc.pos,
        });
    }
    sc.expect(b'{')?;
    sc.skip_ws();
    if sc.peek() == Some(b'}') {
        sc.pos += 1;
        return Ok(());
    }
    loop {
        sc.skip_ws();
        let key = sc.scan_string()?;
        sc.skip_ws();
        sc.expect(b':')?;
        sc.skip_ws();
        let which = classify_key(sc.b, key, names).map(|m| 1u8 << m);
        if let Some(bit) = which {
            found.dup |= found.seen & bit;
            found.seen |= bit;
        }
        let vstart = sc.pos;
        if ERROR_OBJECT
            && which == Some(1 << Member::Error as u8)
            && found.dup & which.unwrap_or(0) == 0
            && sc.peek() == Some(b'{')
        {
            let mut unused = Spans::NONE;
            scan_members::<false>(
                sc,
                depth + 1,
                max_depth,
                &ERROR_MEMBERS,
                error_object,
                &mut unused,
            )?;
        } else {
            sc.scan_value(depth, max_depth)?;
        }
        let vend = sc.pos;
        sc.skip_ws();
        // Record the value only once it is known to be complete: followed by `,` or `}`, or
        // by the end of (possibly truncated) input after whitespace or a value that cannot
        // go on. A number at the very end may be cut short (`"id":12` of `"id":123`).
        let complete = match sc.peek() {
            Some(b',' | b'}') => true,
            None => sc.pos > vend || !matches!(sc.b.get(vstart), Some(b'-' | b'0'..=b'9')),
            Some(_) => false,
        };
        if let Some(bit) = which
            && complete
            && found.complete & bit == 0
        {
            found.complete |= bit;
            found.spans[bit.trailing_zeros() as usize] = (vstart, vend);
        }
        match sc.peek() {
            Some(b',') => sc.pos += 1,
            Some(b'}') => {
                sc.pos += 1;
                return Ok(());
            }
            Some(_) => {
                return Err(JsonError {
                    kind: JsonErrorKind::UnexpectedByte,
                    offset: sc.pos,
                });
            }
            None => {
                return Err(JsonError {
                    kind: JsonErrorKind::UnexpectedEnd,
                    offset: sc.pos,
                });
            }
        }
    }
}
