//! Client role: tool-definition pins (rug-pull detection).
//!
//! The client records a digest of every tool definition it sees in a `tools/list`
//! result, keyed by the tool's name, in caller memory ([`Storage::pins`](super::Storage)).
//! A later definition with another digest, on a relist, after `list_changed`, or in a
//! later session whose table was preloaded from [`Session::pins`](super::Session::pins),
//! is reported as [`Event::ToolChanged`](super::Event::ToolChanged) before the
//! response itself. docs/DESIGN.md, "Tool pinning", states the rules:
//!
//! - the digest is SHA-256 over the canonical JSON ([`write_canonical`]) of the object
//!   made of the members in [`PINNED_MEMBERS`] the definition has, truncated to 128 bits;
//! - the pin's key is SHA-256 of the decoded name, truncated likewise (the table holds
//!   no names: a host that wants them keeps its own copy, as the probe does);
//! - a new tool is pinned quietly (trust on first use) and a tool that disappears keeps
//!   its pin (so it is checked if it comes back); neither is an event;
//! - a tool that finds no free pin, or a change whose event does not fit the event
//!   queue now (its pin keeps the old digest, so the next list reports it), is counted
//!   in one [`Event::PinsIncomplete`](super::Event::PinsIncomplete): never a silent drop;
//! - a table of zero pins turns pinning off.

use super::storage::Slice;
use crate::json::{Json, JsonStr, write_canonical};

/// The members of a tool definition a pin covers, in canonical (sorted) order.
pub const PINNED_MEMBERS: [&str; 6] = [
    "annotations",
    "description",
    "inputSchema",
    "name",
    "outputSchema",
    "title",
];

/// The first 128 bits of a SHA-256: a tool definition's digest, or a tool name's key.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct ToolDigest(pub [u8; 16]);

impl ToolDigest {
    /// Reads 32 hex digits (either case).
    pub fn from_hex(hex: &str) -> Option<Self> {
        let b = hex.as_bytes();
        if b.len() != 32 {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            let h = |c: u8| (c as char).to_digit(16);
            *o = (h(b[2 * i])? << 4 | h(b[2 * i + 1])?) as u8;
        }
        Some(ToolDigest(out))
    }

    /// The digest as 32 lowercase hex digits, written into `buf`.
    pub fn to_hex<'b>(&self, buf: &'b mut [u8; 32]) -> &'b str {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for (i, b) in self.0.iter().enumerate() {
            buf[2 * i] = HEX[(b >> 4) as usize];
            buf[2 * i + 1] = HEX[(b & 15) as usize];
        }
        core::str::from_utf8(buf).unwrap_or("")
    }
}

impl core::fmt::Display for ToolDigest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut buf = [0u8; 32];
        f.write_str(self.to_hex(&mut buf))
    }
}

impl core::fmt::Debug for ToolDigest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

/// One pin: which tool (the key of its name) and the digest of its definition. Export
/// them with [`Session::pins`](super::Session::pins), store them, and preload them into
/// a later session's [`Storage::pins`](super::Storage).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ToolPin {
    /// [`tool_name_key`] of the tool's name.
    pub name: ToolDigest,
    /// [`tool_digest`] of its definition.
    pub digest: ToolDigest,
}

#[cfg(feature = "client")]
impl ToolPin {
    /// The pin of a tool definition (an object with a string `name`), as the session
    /// records it.
    pub fn of_tool(tool: Json<'_>) -> Option<ToolPin> {
        let name = tool.get("name")?.as_str()?;
        Some(ToolPin {
            name: name_key(name),
            digest: tool_digest(tool),
        })
    }
}

#[cfg(feature = "client")]
fn truncate(h: sha2::Sha256) -> ToolDigest {
    use sha2::Digest;
    let full = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    ToolDigest(out)
}

#[cfg(feature = "client")]
/// The key of a tool name: SHA-256 of its UTF-8 bytes, truncated to 128 bits.
pub fn tool_name_key(name: &str) -> ToolDigest {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(name.as_bytes());
    truncate(h)
}

#[cfg(feature = "client")]
fn name_key(name: JsonStr<'_>) -> ToolDigest {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for c in name.chars() {
        let mut b = [0u8; 4];
        h.update(c.encode_utf8(&mut b).as_bytes());
    }
    truncate(h)
}

#[cfg(feature = "client")]
/// The digest of a tool definition: SHA-256 over the canonical JSON of the object of
/// its [`PINNED_MEMBERS`] (the first of each name, absent ones left out), truncated to
/// 128 bits. Other members (`_meta`, `icons`, ...) do not count.
pub fn tool_digest(tool: Json<'_>) -> ToolDigest {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    let mut sink = |b: &[u8]| h.update(b);
    sink(b"{");
    let mut first = true;
    for key in PINNED_MEMBERS {
        let Some(v) = tool.get(key) else { continue };
        if !first {
            sink(b",");
        }
        first = false;
        sink(b"\"");
        sink(key.as_bytes());
        sink(b"\":");
        write_canonical(v, &mut sink);
    }
    sink(b"}");
    truncate(h)
}

/// The pin table in caller memory.
pub(crate) struct PinTable<'s> {
    slots: Slice<'s, Option<ToolPin>>,
}

impl<'s> PinTable<'s> {
    pub(crate) fn new(slots: Slice<'s, Option<ToolPin>>) -> Self {
        PinTable { slots }
    }

    pub(crate) fn is_off(&self) -> bool {
        self.slots.is_empty()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = ToolPin> + '_ {
        self.slots.iter().flatten().copied()
    }

    fn find(&mut self, name: ToolDigest) -> Option<&mut ToolPin> {
        self.slots.iter_mut().flatten().find(|p| p.name == name)
    }

    /// Records a new pin; false when the table is full.
    fn insert(&mut self, pin: ToolPin) -> bool {
        match self.slots.iter_mut().find(|s| s.is_none()) {
            Some(s) => {
                *s = Some(pin);
                true
            }
            None => false,
        }
    }
}

#[cfg(feature = "client")]
impl super::route::Core<'_> {
    /// Checks each tool of a `tools/list` result against its pin, before the response
    /// event (`result`) is queued: queues [`Event::ToolChanged`](super::Event::ToolChanged)
    /// per change that fits, then one `PinsIncomplete` if anything went unchecked.
    pub(crate) fn check_pins(&mut self, ev: &mut super::events::EventQueue<'_>, result: Json<'_>) {
        use super::events::Entry;
        if self.pins.is_off() {
            return;
        }
        let Some(tools) = result.get("tools") else {
            return;
        };
        let (mut unpinned, mut unreported) = (0u16, 0u16);
        for tool in tools.elements() {
            let Some(name) = tool.get("name").and_then(|n| n.as_str()) else {
                continue;
            };
            let key = name_key(name);
            let digest = tool_digest(tool);
            let Some(pin) = self.pins.find(key) else {
                if !self.pins.insert(ToolPin { name: key, digest }) {
                    unpinned = unpinned.saturating_add(1);
                }
                continue;
            };
            if pin.digest == digest {
                continue;
            }
            // Keep one entry for `PinsIncomplete` and one for the response itself.
            let text = 64 + name.raw().len() + result.as_raw().len();
            if ev.free() < 3 || ev.text_free() < text {
                unreported = unreported.saturating_add(1);
                continue;
            }
            let old = pin.digest;
            pin.digest = digest;
            let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
            let entry = Entry::ToolChanged {
                escaped: name.is_escaped(),
            };
            ev.push(
                entry,
                &[old.to_hex(&mut a), digest.to_hex(&mut b), name.raw()],
            );
        }
        if unpinned > 0 || unreported > 0 {
            ev.push(
                Entry::PinsIncomplete {
                    unpinned,
                    unreported,
                },
                &[],
            );
        }
    }
}

#[cfg(all(test, feature = "client"))]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let d = ToolDigest([0xab; 16]);
        let mut buf = [0u8; 32];
        assert_eq!(d.to_hex(&mut buf), "abababababababababababababababab");
        assert_eq!(
            ToolDigest::from_hex("ABABABABABABABABABABABABABABABAB"),
            Some(d)
        );
        assert_eq!(ToolDigest::from_hex("abab"), None);
        assert_eq!(
            ToolDigest::from_hex("zbababababababababababababababab"),
            None
        );
    }

    #[test]
    fn digest_covers_the_pinned_members_only() {
        let t = |s| tool_digest(Json::new(s).unwrap());
        let base = t(r#"{"name":"a","description":"d","inputSchema":{"type":"object"}}"#);
        assert_eq!(
            base,
            t(
                r#"{"inputSchema":{"type":"object"},"_meta":{"x":1},"icons":[],"description":"d","name":"a"}"#
            )
        );
        assert_ne!(
            base,
            t(r#"{"name":"a","description":"d2","inputSchema":{"type":"object"}}"#)
        );
        assert_ne!(
            base,
            t(r#"{"name":"a","description":"d","inputSchema":{"type":"object"},"annotations":{}}"#)
        );
        let key = ToolPin::of_tool(Json::new(r#"{"name":"\u0061"}"#).unwrap()).unwrap();
        assert_eq!(key.name, tool_name_key("a"));
    }
}
