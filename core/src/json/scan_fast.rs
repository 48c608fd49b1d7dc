//! The fast path of the scanner: accepts valid JSON quickly and says nothing about errors.
//!
//! [`value_end`] returns `None` for anything it does not accept, which is either invalid
//! JSON or a case it leaves to the exact scanner (nesting beyond 64 levels, surrogate
//! escapes). The exact scanner in [`scan`](super::scan) then runs from the same offset and
//! produces the result, so the two together accept exactly what the exact scanner accepts
//! and report the same errors. Returning a plain `Option<usize>` keeps the offset in
//! registers: a `Result` carrying a [`JsonError`](super::JsonError) is returned through
//! memory on every token.
//!
//! Compiled on 64-bit targets only; small 32-bit devices keep the smaller exact scanner.

use super::scan::{digits_end, number_tail};
use super::string_stop::find_string_stop_byte;

#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while let Some(&c) = b.get(pos) {
        if c > b' ' || !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            break;
        }
        pos += 1;
    }
    pos
}

#[inline(always)]
fn hex4(b: &[u8], pos: usize) -> Option<u16> {
    let w = b.get(pos..pos + 4)?;
    let mut v = 0u16;
    for &c in w {
        let h = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | h as u16;
    }
    Some(v)
}

/// The letters of the two-byte escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`).
static SHORT_ESCAPES: [bool; 256] = {
    let mut t = [false; 256];
    let letters = *b"\"\\/bfnrt";
    let mut i = 0;
    while i < letters.len() {
        t[letters[i] as usize] = true;
        i += 1;
    }
    t
};

/// `pos` just after an opening quote; returns the offset of the closing quote.
#[inline(always)]
pub(crate) fn string_end(b: &[u8], mut pos: usize) -> Option<usize> {
    loop {
        let (stop, c) = find_string_stop_byte(b, pos);
        pos = stop;
        match c? {
            b'"' => return Some(pos),
            b'\\' => {
                let e = *b.get(pos + 1)?;
                // A table and a branch that text with many escapes predicts well; a `match`
                // on the letter compiles to an indirect jump per escape.
                pos = if SHORT_ESCAPES[e as usize] {
                    pos + 2
                } else if e == b'u' && !(0xD800..0xE000).contains(&hex4(b, pos + 2)?) {
                    pos + 6
                } else {
                    return None;
                };
            }
            _ => return None,
        }
    }
}

/// `pos` at `-` or a digit; returns the offset after the number.
#[inline(always)]
pub(crate) fn number_end(b: &[u8], mut pos: usize) -> Option<usize> {
    if b.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match *b.get(pos)? {
        b'0' if matches!(b.get(pos + 1), Some(b'0'..=b'9')) => return None,
        b'0' => pos += 1,
        b'1'..=b'9' => pos = digits_end(b, pos + 1),
        _ => return None,
    }
    match b.get(pos) {
        // Fractions and exponents are rarer: the exact scanner's code reads them.
        Some(b'.' | b'e' | b'E') => number_tail(b, pos).ok().map(|(end, _)| end),
        _ => Some(pos),
    }
}

/// `pos` at a key's opening quote (after whitespace); returns the offset after the `:`.
#[inline(always)]
fn key_colon_end(b: &[u8], pos: usize) -> Option<usize> {
    if b.get(pos) != Some(&b'"') {
        return None;
    }
    let mut pos = string_end(b, pos + 1)? + 1;
    if b.get(pos) != Some(&b':') {
        pos = skip_ws(b, pos);
        if b.get(pos) != Some(&b':') {
            return None;
        }
    }
    Some(pos + 1)
}

/// Scans one value starting at `pos` (leading whitespace allowed) that may open at most
/// `room` nested containers; returns the offset after it, or `None` when the exact
/// scanner must decide.
pub(crate) fn value_end(b: &[u8], mut pos: usize, room: usize) -> Option<usize> {
    let room = room.min(64) as u32;
    // One bit per open container, innermost lowest: 1 = object.
    let mut stack: u64 = 0;
    let mut depth: u32 = 0;
    'value: loop {
        let mut c = *b.get(pos)?;
        if c <= b' ' {
            pos = skip_ws(b, pos);
            c = *b.get(pos)?;
        }
        // Tested in the order of how often values are of each kind (strings, containers,
        // numbers, literals), as branches: a jump table on `c` costs an indirect jump
        // per value.
        if c == b'"' {
            pos = string_end(b, pos + 1)? + 1;
        } else if c | 0x20 == b'{' {
            // `{` or `[` (`[` is `{` without the 0x20 bit).
            if depth >= room {
                return None;
            }
            let is_obj = c == b'{';
            pos = skip_ws(b, pos + 1);
            if b.get(pos) == Some(&(c + 2)) {
                // `{}` or `[]` (`}` is `{` + 2, `]` is `[` + 2).
                pos += 1;
            } else {
                depth += 1;
                stack = (stack << 1) | is_obj as u64;
                if is_obj {
                    pos = key_colon_end(b, pos)?;
                }
                continue 'value;
            }
        } else if c.is_ascii_digit() || c == b'-' {
            pos = number_end(b, pos)?;
        } else {
            pos += match (c, b.get(pos..)) {
                (b't', Some([b't', b'r', b'u', b'e', ..])) => 4,
                (b'f', Some([b'f', b'a', b'l', b's', b'e', ..])) => 5,
                (b'n', Some([b'n', b'u', b'l', b'l', ..])) => 4,
                _ => return None,
            };
        }
        // After a value: close containers or go on to the next element.
        loop {
            if depth == 0 {
                return Some(pos);
            }
            // Compact JSON has no whitespace here: the byte is read once, and skipped
            // over only when it is a space or a control character.
            let mut c = *b.get(pos)?;
            if c <= b' ' {
                pos = skip_ws(b, pos);
                c = *b.get(pos)?;
            }
            let in_obj = stack & 1 == 1;
            if c == b',' {
                pos += 1;
                if in_obj {
                    pos = key_colon_end(b, skip_ws(b, pos))?;
                }
                continue 'value;
            }
            if c != if in_obj { b'}' } else { b']' } {
                return None;
            }
            pos += 1;
            depth -= 1;
            stack >>= 1;
        }
    }
}
