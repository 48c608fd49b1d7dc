//! Small helpers: JSON in and out with the core's reader and writer, and text shaping.

use std::time::Instant;

use picomcp::json::{Json, JsonWriter, MAX_DEPTH_CAP};

/// `3 tools`, `1 tool`.
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// ` (could not answer: ...)` after a traffic line when answering the server failed.
pub(crate) fn failed_note<E: std::fmt::Display>(r: Result<(), E>) -> String {
    r.err()
        .map(|e| format!(" (could not answer: {e})"))
        .unwrap_or_default()
}

/// Parses JSON the session already validated (or the probe wrote).
pub(crate) fn parse_json(text: &str) -> Result<Json<'_>, picomcp::json::JsonError> {
    Json::with_max_depth(text, MAX_DEPTH_CAP)
}

/// A string member, decoded.
pub(crate) fn string_member(obj: Json<'_>, key: &str) -> Option<String> {
    obj.get(key).and_then(|v| v.as_str()).map(|s| s.to_string())
}

/// Writes JSON with the core's writer, growing the buffer until it fits.
pub(crate) fn json_text(f: impl Fn(&mut JsonWriter<'_>)) -> String {
    let mut buf = vec![0u8; 1024];
    loop {
        let mut w = JsonWriter::new(&mut buf);
        f(&mut w);
        match w.finish() {
            Ok(n) => {
                buf.truncate(n);
                return String::from_utf8_lossy(&buf).into_owned();
            }
            // `finish` also fails on nesting deeper than the writer tracks; the probe's
            // documents are shallow, so that cannot happen.
            Err(e) if e.required > buf.len() => buf.resize(e.required, 0),
            Err(_) => return "null".into(),
        }
    }
}

/// `{"k":v,...}` from members whose values are JSON text (the probe's own); a value
/// that does not parse is written as `null`.
pub(crate) fn raw_object<K: AsRef<str>, V: AsRef<str>>(members: &[(K, V)]) -> String {
    json_text(|w| {
        w.begin_object();
        for (key, value) in members {
            w.key(key.as_ref());
            match parse_json(value.as_ref()) {
                Ok(v) => w.raw(v),
                Err(_) => w.null(),
            }
        }
        w.end_object();
    })
}

/// `  (a, b)`, or nothing for an empty list.
pub(crate) fn paren(list: &str) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!("  ({list})")
    }
}

/// The first line that is not blank, trimmed.
pub(crate) fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// At most `max` characters on one line, with `…` when cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Milliseconds since `since`, with fractions.
pub(crate) fn elapsed_ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Parses JSON a test wrote; panics with the text when it is not valid.
#[cfg(test)]
pub(crate) fn json(text: &str) -> Json<'_> {
    parse_json(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_helpers() {
        assert_eq!(clip("a\nb", 10), "a b");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(count(1, "tool"), "1 tool");
        assert_eq!(count(2, "tool"), "2 tools");
        assert_eq!(json_text(|w| w.string("x\"")), r#""x\"""#);
    }
}
