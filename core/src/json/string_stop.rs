//! The search for the end of a plain run inside a JSON string: the next `"`, `\\` or raw
//! control character. The scanner spends most of its time here.
//!
//! Bare-metal targets (`target_os = "none"`) scan strings a byte at a time with a
//! comparison instead of a table: the word-at-a-time search and the 256-byte tables (this
//! one and [`skip_valid`](super::skip_valid)'s) are about 1 KiB of flash there, and a Cortex-M without a data cache gains little from
//! them. Hosts keep the fast path. Both give the same offsets (`string_stop_search_at_every_offset`).

/// A byte that ends a plain run inside a string: `"`, `\` or a control character.
#[cfg(any(test, target_os = "none"))]
#[inline(always)]
fn is_string_stop(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// The offset of the first byte at or after `pos` that ends a plain run inside a string
/// (`"`, `\` or a control character), or `b.len()`; one byte at a time.
#[cfg(any(test, target_os = "none"))]
fn find_string_stop_bytewise(b: &[u8], mut pos: usize) -> usize {
    while let Some(&c) = b.get(pos) {
        if is_string_stop(c) {
            break;
        }
        pos += 1;
    }
    pos
}

/// [`find_string_stop_bytewise`] on bare-metal targets.
#[cfg(target_os = "none")]
#[inline]
pub(super) fn find_string_stop(b: &[u8], pos: usize) -> usize {
    find_string_stop_bytewise(b, pos)
}

/// [`find_string_stop`] and the stop byte there (`None` at the end of the input).
#[cfg(target_os = "none")]
#[inline]
pub(super) fn find_string_stop_byte(b: &[u8], pos: usize) -> (usize, Option<u8>) {
    let end = find_string_stop_bytewise(b, pos);
    (end, b.get(end).copied())
}

#[cfg(not(target_os = "none"))]
const fn string_stops() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
}
/// Bytes that end the fast path inside a string.
#[cfg(not(target_os = "none"))]
static STRING_STOPS: [bool; 256] = string_stops();

#[cfg(not(target_os = "none"))]
const LO: u64 = 0x0101_0101_0101_0101;
#[cfg(not(target_os = "none"))]
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that is `"`, `\` or a control character is set
/// (bytes above the first such byte may be flagged too; the lowest flag is exact).
///
/// `"` (0x22) xor 0x02 is 0x20, and xor 0x02 maps the control characters onto themselves,
/// so one "byte below 0x21" test of `w ^ 0x02…` finds both; `\` takes a "zero byte" test.
/// (`x - n` borrows out of a byte only when it is below `n`, and `& !x` drops bytes with
/// their high bit set: the lowest flagged byte is exact.) Eight operations per word.
#[inline(always)]
#[cfg(not(target_os = "none"))]
fn stop_bits(w: u64) -> u64 {
    let cq = w ^ (LO * 0x02);
    let cq = cq.wrapping_sub(LO * 0x21) & !cq;
    let bs = w ^ (LO * b'\\' as u64);
    let bs = bs.wrapping_sub(LO) & !bs;
    (cq | bs) & HI
}

/// The offset of the first byte at or after `pos` that ends a plain run inside a string
/// (`"`, `\` or a control character), or `b.len()`.
#[cfg(not(target_os = "none"))]
#[inline(always)]
pub(super) fn find_string_stop(b: &[u8], pos: usize) -> usize {
    find_string_stop_byte(b, pos).0
}

/// [`find_string_stop`] and the stop byte there (`None` at the end of the input).
///
/// Words of 8 bytes are tested at once (exact position from the lowest flagged byte);
/// long runs are skipped 32 bytes at a time with a branch-free test that the compiler
/// turns into vector compares. Within the first two words the stop byte is taken from
/// the word already in a register: a caller that tests it (closing quote or escape?)
/// does not wait for a second load from the offset just computed.
#[cfg(not(target_os = "none"))]
#[inline(always)]
pub(super) fn find_string_stop_byte(b: &[u8], mut pos: usize) -> (usize, Option<u8>) {
    if let Some(w) = b.get(pos..).and_then(|r| r.first_chunk::<8>()) {
        let w = u64::from_le_bytes(*w);
        let m = stop_bits(w);
        if m != 0 {
            let bit = m.trailing_zeros() & !7;
            return (pos + (bit / 8) as usize, Some((w >> bit) as u8));
        }
        // Keys and short values of 9 to 16 bytes ("description", "inputSchema") end in
        // the second word: tested here, without the call.
        if let Some(w) = b.get(pos + 8..).and_then(|r| r.first_chunk::<8>()) {
            let w = u64::from_le_bytes(*w);
            let m = stop_bits(w);
            if m != 0 {
                let bit = m.trailing_zeros() & !7;
                return (pos + 8 + (bit / 8) as usize, Some((w >> bit) as u8));
            }
            let end = find_string_stop_long(b, pos + 16);
            return (end, b.get(end).copied());
        }
        let end = find_string_stop_long(b, pos + 8);
        return (end, b.get(end).copied());
    }
    while let Some(&c) = b.get(pos) {
        if STRING_STOPS[c as usize] {
            return (pos, Some(c));
        }
        pos += 1;
    }
    (pos, None)
}

/// [`find_string_stop`] past the first word.
#[inline(never)]
#[cfg(not(target_os = "none"))]
fn find_string_stop_long(b: &[u8], mut pos: usize) -> usize {
    // Most strings end within a few words; only long runs use the block test.
    for _ in 0..3 {
        let Some(w) = b.get(pos..).and_then(|r| r.first_chunk::<8>()) else {
            break;
        };
        let m = stop_bits(u64::from_le_bytes(*w));
        if m != 0 {
            return pos + (m.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(block) = b.get(pos..).and_then(|r| r.first_chunk::<32>()) {
        let mut any = false;
        for &c in block {
            any |= ((c ^ 0x02) < 0x21) | (c == b'\\');
        }
        if any {
            break;
        }
        pos += 32;
    }
    while let Some(w) = b.get(pos..).and_then(|r| r.first_chunk::<8>()) {
        let m = stop_bits(u64::from_le_bytes(*w));
        if m != 0 {
            return pos + (m.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&c) = b.get(pos) {
        if STRING_STOPS[c as usize] {
            break;
        }
        pos += 1;
    }
    pos
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::json::{Json, JsonError, JsonErrorKind::*};

    /// Every byte value at every position of a word, over fillers that are not stops.
    #[cfg(not(target_os = "none"))]
    #[test]
    fn stop_bits_flag_exactly_the_stops() {
        for filler in [b'a', 0x80, 0xff, b'#', b'!', 0x21, 0xa2, 0xdc] {
            for v in 0..=255u8 {
                for i in 0..8 {
                    let mut w = [filler; 8];
                    w[i] = v;
                    let m = stop_bits(u64::from_le_bytes(w));
                    let first = (m != 0).then(|| m.trailing_zeros() as usize / 8);
                    let want = is_string_stop(v).then_some(i);
                    assert_eq!(first, want, "filler {filler:#x} byte {v:#x} at {i}");
                }
            }
        }
    }

    #[test]
    fn string_stop_search_at_every_offset() {
        // Plain bytes of all kinds (ASCII, high bytes, DEL) with one stop at each position.
        let plain: Vec<u8> = (0..140u32)
            .map(|i| {
                // Neighbours of the stops, also with the high bit set.
                let plain = [
                    b'a', 0x7f, 0xc3, 0xa9, b' ', b'~', 0x80, b'!', b'#', 0xa2, 0xdc, b']', b'[',
                ];
                plain[i as usize % plain.len()]
            })
            .collect();
        for len in 0..plain.len() {
            for start in [0, 1, 3, 7] {
                if start > len {
                    continue;
                }
                // The target's search and the bare-metal byte-at-a-time one agree.
                for find in [find_string_stop, find_string_stop_bytewise] {
                    assert_eq!(find(&plain[..len], start), len, "no stop, len {len}");
                    assert_eq!(find_string_stop_byte(&plain[..len], start), (len, None));
                    for at in start..len {
                        for stop in [b'"', b'\\', 0x00, 0x02, 0x1f, b'\n'] {
                            let mut h = plain[..len].to_vec();
                            h[at] = stop;
                            assert_eq!(
                                find(&h, start),
                                at,
                                "len {len} start {start} at {at} stop {stop:#x}"
                            );
                            assert_eq!(
                                find_string_stop_byte(&h, start),
                                (at, Some(stop)),
                                "len {len} start {start} at {at} stop {stop:#x}"
                            );
                        }
                    }
                }
            }
        }
        // The same through the scanner: strings of every length, plain and with an escape.
        for n in 0..100 {
            let body = "x".repeat(n);
            let s = std::format!("[\"{body}\",1]");
            assert!(Json::new(&s).is_ok(), "{s}");
            let s = std::format!("[\"{body}\\n{body}\",1]");
            assert!(Json::new(&s).is_ok(), "{s}");
            let s = std::format!("[\"{body}\u{1}\"]");
            assert_eq!(
                Json::new(&s).unwrap_err(),
                JsonError {
                    kind: ControlCharacter,
                    offset: n + 2
                }
            );
            let s = std::format!("[\"{body}");
            assert_eq!(
                Json::new(&s).unwrap_err(),
                JsonError {
                    kind: UnexpectedEnd,
                    offset: n + 2
                }
            );
        }
    }
}
