//! The four list requests, a page at a time, with only the fields the revision has.
//!
//! A cursor is opaque to the client: `<offset>-<fingerprint>`, where the fingerprint
//! (FNV-1a, 32 bits) covers the list's kind, the page size and every entry's name or URI.
//! A cursor from another list, from before the table changed, or not ours at all is
//! stale and answered -32602 (the spec's answer to an invalid cursor).

use super::defs::{Prompt, Resource, ResourceTemplate, Tool};
use super::{Access, Server, has};
use crate::error::ErrorCode;
use crate::json::{Json, JsonWriter};
use crate::protocol::{Feature, ProtocolVersion};
use crate::session::{Commands, InboundId, RespondError};

type Outcome<'e> = Result<Option<super::Call<'e>>, RespondError>;

/// One of the four lists: its result key and how to write one entry.
pub(super) trait Listed: super::access::Scoped {
    const KEY: &'static str;
    const KIND: u8;
    /// What makes the entry unique (name or URI), for the cursor's fingerprint.
    fn id(&self) -> &str;
    fn write(&self, w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>);
}

/// One of the four tables with its type erased, so that [`page`]'s body is compiled
/// once rather than once per definition type (about 1.5 KiB of flash on a device).
trait Table {
    fn len(&self) -> usize;
    fn kind(&self) -> u8;
    fn key(&self) -> &'static str;
    fn id(&self, i: usize) -> &str;
    fn scopes(&self, i: usize) -> Option<&str>;
    fn write(&self, i: usize, w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>);
}

impl<T: Listed> Table for &[T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn kind(&self) -> u8 {
        T::KIND
    }
    fn key(&self) -> &'static str {
        T::KEY
    }
    fn id(&self, i: usize) -> &str {
        self.get(i).map_or("", |t| t.id())
    }
    fn scopes(&self, i: usize) -> Option<&str> {
        self.get(i)?.scopes()
    }
    fn write(&self, i: usize, w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>) {
        if let Some(t) = self.get(i) {
            t.write(w, v);
        }
    }
}

/// Answers a list request with the page its cursor names: up to `page_size` of the
/// entries `access` allows, from the cursor's offset (an index into the whole table, so
/// hidden entries cost nothing and a cursor stays valid across grants).
pub(super) fn page<'e, T: Listed>(
    s: &Server<'_>,
    cmds: &mut Commands<'_, '_>,
    id: InboundId,
    params: Json<'_>,
    items: &[T],
    access: Access<'_>,
) -> Outcome<'e> {
    page_of(s, cmds, id, params, &items, access)
}

/// [`page`], once for every table type. Not inlined: see `call::tool`.
#[inline(never)]
fn page_of<'e>(
    s: &Server<'_>,
    cmds: &mut Commands<'_, '_>,
    id: InboundId,
    params: Json<'_>,
    items: &dyn Table,
    access: Access<'_>,
) -> Outcome<'e> {
    let size = s.options.page_size;
    let fp = fingerprint(items.kind(), size, items);
    let start = match params.get("cursor") {
        None => 0,
        Some(c) if c.is_null() => 0,
        Some(c) => match c
            .as_str()
            .and_then(|c| c.as_plain())
            .and_then(|c| parse(c, fp))
        {
            Some(offset) if offset < items.len() => offset,
            _ => {
                cmds.respond_error(
                    id,
                    ErrorCode::INVALID_PARAMS,
                    "Invalid params: invalid or expired cursor",
                    None,
                )?;
                return Ok(None);
            }
        },
    };
    let visible = |i: &usize| access.allows(items.scopes(*i));
    // The page ends after `size` visible entries; more follow if any visible one is left.
    let mut end = start;
    let mut taken = 0;
    while end < items.len() && taken < size {
        taken += usize::from(visible(&end));
        end += 1;
    }
    let more = (end..items.len()).any(|i| visible(&i));
    let version = cmds.version();
    cmds.respond_with(id, |w| {
        w.begin_object();
        w.key(items.key());
        w.begin_array();
        for i in (start..end).filter(visible) {
            items.write(i, w, version);
        }
        w.end_array();
        if more {
            w.key("nextCursor");
            let mut buf = [0u8; 32];
            w.string(format(&mut buf, end, fp));
        }
        w.end_object();
    })?;
    Ok(None)
}

fn fingerprint(kind: u8, page_size: usize, items: &dyn Table) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    eat(kind);
    for b in (page_size as u64).to_le_bytes() {
        eat(b);
    }
    for i in 0..items.len() {
        for b in items.id(i).bytes() {
            eat(b);
        }
        eat(0);
    }
    h
}

/// `<offset>-<fingerprint as 8 hex digits>`.
fn format(buf: &mut [u8; 32], offset: usize, fp: u32) -> &str {
    let mut n = 0;
    let mut digits = [0u8; 20];
    let mut d = 0;
    let mut v = offset;
    loop {
        digits[d] = b'0' + (v % 10) as u8;
        d += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    while d > 0 {
        d -= 1;
        buf[n] = digits[d];
        n += 1;
    }
    buf[n] = b'-';
    n += 1;
    for i in (0..8).rev() {
        buf[n] = b"0123456789abcdef"[((fp >> (i * 4)) & 0xf) as usize];
        n += 1;
    }
    core::str::from_utf8(&buf[..n]).unwrap_or("")
}

fn parse(cursor: &str, fp: u32) -> Option<usize> {
    let (offset, hex) = cursor.split_once('-')?;
    if offset.is_empty() || offset.len() > 19 || hex.len() != 8 {
        return None;
    }
    if !offset.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let offset: usize = offset.parse().ok()?;
    let got = u32::from_str_radix(hex, 16).ok()?;
    (got == fp && offset > 0).then_some(offset)
}

/// Writes `"key": <json text>` for an optional JSON field (checked at start-up).
fn raw(w: &mut JsonWriter<'_>, key: &str, text: Option<&str>) {
    if let Some(t) = text {
        w.key(key);
        w.raw(Json::from_validated(t));
    }
}

fn string(w: &mut JsonWriter<'_>, key: &str, text: Option<&str>) {
    if let Some(t) = text {
        w.key(key);
        w.string(t);
    }
}

impl Listed for Tool<'_> {
    const KEY: &'static str = "tools";
    const KIND: u8 = b't';
    fn id(&self) -> &str {
        self.name
    }
    fn write(&self, w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>) {
        w.begin_object();
        names(w, v, self.name, self.title, self.description);
        w.key("inputSchema");
        w.raw(Json::from_validated(self.input_schema));
        if has(v, Feature::OutputSchema) {
            raw(w, "outputSchema", self.output_schema);
        }
        if has(v, Feature::ToolAnnotations) {
            raw(w, "annotations", self.annotations);
        }
        if has(v, Feature::Icons) {
            raw(w, "icons", self.icons);
        }
        if has(v, Feature::ToolExecution) {
            raw(w, "execution", self.execution);
        }
        meta(w, v, self.meta);
        w.end_object();
    }
}

/// `name`, then `title` (2025-06-18 on) and `description`: how every definition starts.
fn names(
    w: &mut JsonWriter<'_>,
    v: Option<ProtocolVersion>,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
) {
    w.key("name");
    w.string(name);
    if has(v, Feature::Title) {
        string(w, "title", title);
    }
    string(w, "description", description);
}

/// `icons` (2025-11-25 on) and `_meta`: how every definition ends.
fn icons_meta(
    w: &mut JsonWriter<'_>,
    v: Option<ProtocolVersion>,
    icons: Option<&str>,
    meta_text: Option<&str>,
) {
    if has(v, Feature::Icons) {
        raw(w, "icons", icons);
    }
    meta(w, v, meta_text);
}

/// `_meta` on definitions arrived with `title`, in 2025-06-18.
fn meta(w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>, text: Option<&str>) {
    if has(v, Feature::Title) {
        raw(w, "_meta", text);
    }
}

impl Listed for Resource<'_> {
    const KEY: &'static str = "resources";
    const KIND: u8 = b'r';
    fn id(&self) -> &str {
        self.uri
    }
    fn write(&self, w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>) {
        w.begin_object();
        w.key("uri");
        w.string(self.uri);
        names(w, v, self.name, self.title, self.description);
        string(w, "mimeType", self.mime_type);
        if let Some(size) = self.size {
            w.key("size");
            w.u64(size);
        }
        raw(w, "annotations", self.annotations);
        icons_meta(w, v, self.icons, self.meta);
        w.end_object();
    }
}

impl Listed for ResourceTemplate<'_> {
    const KEY: &'static str = "resourceTemplates";
    const KIND: u8 = b'T';
    fn id(&self) -> &str {
        self.uri_template
    }
    fn write(&self, w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>) {
        w.begin_object();
        w.key("uriTemplate");
        w.string(self.uri_template);
        names(w, v, self.name, self.title, self.description);
        string(w, "mimeType", self.mime_type);
        raw(w, "annotations", self.annotations);
        icons_meta(w, v, self.icons, self.meta);
        w.end_object();
    }
}

impl Listed for Prompt<'_> {
    const KEY: &'static str = "prompts";
    const KIND: u8 = b'p';
    fn id(&self) -> &str {
        self.name
    }
    fn write(&self, w: &mut JsonWriter<'_>, v: Option<ProtocolVersion>) {
        w.begin_object();
        names(w, v, self.name, self.title, self.description);
        if !self.arguments.is_empty() {
            w.key("arguments");
            w.begin_array();
            for a in self.arguments {
                w.begin_object();
                w.key("name");
                w.string(a.name);
                if has(v, Feature::Title) {
                    string(w, "title", a.title);
                }
                string(w, "description", a.description);
                w.key("required");
                w.bool(a.required);
                w.end_object();
            }
            w.end_array();
        }
        icons_meta(w, v, self.icons, self.meta);
        w.end_object();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trip() {
        let mut buf = [0u8; 32];
        let c = format(&mut buf, 100, 0xdead_beef);
        assert_eq!(c, "100-deadbeef");
        assert_eq!(parse(c, 0xdead_beef), Some(100));
        assert_eq!(parse(c, 0xdead_beee), None);
        assert_eq!(parse("0-deadbeef", 0xdead_beef), None);
        assert_eq!(parse("+1-deadbeef", 0xdead_beef), None);
        assert_eq!(parse("1-deadbee", 0xdead_beef), None);
        assert_eq!(parse("", 0xdead_beef), None);
    }
}
