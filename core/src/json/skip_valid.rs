//! Skipping values in text already known to be valid JSON (the value views' walk): only
//! the structural bytes and string ends matter, no grammar is checked.

#[cfg(target_os = "none")]
use super::string_stop::find_string_stop;

/// Bytes that matter when skipping a valid container.
#[cfg(target_os = "none")]
#[inline(always)]
fn is_structural(c: u8) -> bool {
    matches!(c, b'"' | b'{' | b'[' | b'}' | b']')
}

/// Bytes that matter when skipping a valid container.
#[cfg(not(target_os = "none"))]
#[inline(always)]
fn is_structural(c: u8) -> bool {
    STRUCTURAL[c as usize]
}

#[cfg(not(target_os = "none"))]
const fn structural() -> [bool; 256] {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'[' as usize] = true;
    t[b'}' as usize] = true;
    t[b']' as usize] = true;
    t
}
/// Bytes that matter when skipping a valid container.
#[cfg(not(target_os = "none"))]
static STRUCTURAL: [bool; 256] = structural();

/// Skips one value in text that is already known to be valid JSON; returns the offset
/// after it. This is the fast path used by the value view.
pub(crate) fn skip_valid(b: &[u8], mut pos: usize) -> usize {
    while matches!(b.get(pos), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        pos += 1;
    }
    match b.get(pos) {
        Some(b'"') => skip_valid_string(b, pos),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            while let Some(&c) = b.get(pos) {
                if !is_structural(c) {
                    pos += 1;
                    continue;
                }
                match c {
                    b'"' => {
                        pos = skip_valid_string(b, pos);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return pos + 1;
                        }
                    }
                    _ => {}
                }
                pos += 1;
            }
            pos
        }
        Some(_) => {
            while let Some(&c) = b.get(pos) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                    break;
                }
                pos += 1;
            }
            pos
        }
        None => pos,
    }
}

/// `pos` at the opening quote of a valid string; returns the offset after the closing quote.
#[inline]
pub(crate) fn skip_valid_string(b: &[u8], pos: usize) -> usize {
    skip_valid_string_escaped(b, pos).0
}

/// The next `"` or `\\` at or after `pos` in validated text (`b.len()` if none). Hosts:
/// a few bytes one by one (keys and short values end there), then `memchr2`, which
/// searches 16 or 32 bytes per step (long values: an echoed text, a base64 blob).
#[cfg(not(target_os = "none"))]
#[inline]
fn valid_string_stop(b: &[u8], pos: usize) -> usize {
    let head = b.get(pos..).unwrap_or_default();
    let short = head.len().min(16);
    for (i, &c) in head[..short].iter().enumerate() {
        if c == b'"' || c == b'\\' {
            return pos + i;
        }
    }
    match memchr::memchr2(b'"', b'\\', &head[short..]) {
        Some(i) => pos + short + i,
        None => b.len(),
    }
}

/// Bare-metal targets: the scanner's own search (no memchr tables in flash).
#[cfg(target_os = "none")]
#[inline]
fn valid_string_stop(b: &[u8], pos: usize) -> usize {
    find_string_stop(b, pos)
}

/// [`skip_valid_string`], and whether the string has an escape.
#[inline]
pub(crate) fn skip_valid_string_escaped(b: &[u8], mut pos: usize) -> (usize, bool) {
    pos += 1;
    let mut escaped = false;
    loop {
        // Valid strings have no raw control characters, so only `"` and `\\` stop here.
        pos = valid_string_stop(b, pos);
        match b.get(pos) {
            Some(b'"') => return (pos + 1, escaped),
            Some(b'\\') => {
                escaped = true;
                pos += 2;
            }
            Some(_) => pos += 1,
            None => return (pos, escaped),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_valid_finds_value_ends() {
        for (text, start, end) in [
            (r#"{"a":[1,"]",{"b":"}"}]} x"#, 0, 23),
            (r#"  "a\"b" , 1"#, 0, 8),
            ("123,4", 0, 3),
            ("-1.5e3]", 0, 6),
            ("true}", 0, 4),
            ("[[],[[]]] ", 0, 9),
            (r#"[1, "\\", 2]"#, 4, 8),
            ("", 0, 0),
        ] {
            assert_eq!(skip_valid(text.as_bytes(), start), end, "{text}");
        }
        assert_eq!(skip_valid_string(br#""a\\"b"#, 0), 5);
        assert_eq!(
            skip_valid_string(br#""abc"#, 0),
            4,
            "unterminated: stops at the end"
        );
    }
}
