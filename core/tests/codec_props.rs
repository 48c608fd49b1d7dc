//! Property tests of the codec layer: framing, JSON-RPC encode/parse, the JSON scanner.
//!
//! Oracle note for (c): `serde_json::from_str::<IgnoredAny>` does not check `\u` escapes
//! for surrogate pairing (serde_json 1.0.154 `read.rs` `ignore_escape`: "At this point we
//! don't care if the codepoint is valid"), while RFC 8259 text must be Unicode and we reject
//! lone surrogates. Deserializing to `serde_json::Value` does check pairing, but it stops at
//! its first error and also rejects numbers that overflow `f64` (`1e400`), which the grammar
//! allows and we accept, so it cannot tell us about surrogates after such a number. The
//! oracle is therefore: IgnoredAny accepts, and every `\u` surrogate in the (then otherwise
//! valid) text is paired, checked by the small independent `surrogates_paired` below and
//! cross-checked against `Value` whenever `Value` parses. serde_json's own nesting limit is
//! 128; generated documents stay below depth 60 so that our default limit (64) is never
//! reached.

use proptest::prelude::*;
use proptest::sample::Index;

use picomcp::Limits;
use picomcp::error::ErrorCode;
use picomcp::framing::{Frame, LineDecoder};
use picomcp::json::{Json, JsonKind, JsonWriter};
use picomcp::jsonrpc::{
    self, Id, Message, encode_error, encode_notification, encode_request, encode_result, peek_id,
};

// ---------------------------------------------------------------------------------------
// JSON text generators

/// Whitespace between tokens (sometimes none).
fn ws(allow_newline: bool) -> BoxedStrategy<String> {
    let set: &'static [&'static str] = if allow_newline {
        &["", "", "", " ", "\t", "\n", "\r\n", "  "]
    } else {
        &["", "", "", " ", "\t", "  "]
    };
    prop::sample::select(set).prop_map(String::from).boxed()
}

/// Near misses the grammar rejects, mixed into "risky" documents.
const BAD_NUMBERS: &[&str] = &[
    "01",
    "-01",
    "00",
    "1.",
    "-",
    ".5",
    "1e",
    "1e+",
    "+1",
    "1.e3",
    "0x1",
    "NaN",
    "Infinity",
    "-Infinity",
    "1_0",
];
const BAD_STRING_PIECES: &[&str] = &[
    "\\uD800",
    "\\uDC00",
    "\\udfff",
    "\\uD800\\u0041",
    "\\uD83D\\uD83D",
    "\\uDE00\\uD83D",
    "\\uD800\\n",
    "\\u12",
    "\\u00G0",
    "\\x41",
    "\\a",
    "\\'",
    "\\U0041",
    "\\",
    "\u{0}",
    "\u{1f}",
    "\n",
    "\t",
    "\"",
];

fn number() -> BoxedStrategy<String> {
    (
        any::<bool>(),
        prop_oneof![Just(String::from("0")), "[1-9][0-9]{0,20}"],
        prop::option::of("[0-9]{1,6}"),
        prop::option::of(("[eE]", "[+-]?", "[0-9]{1,3}")),
    )
        .prop_map(|(neg, int, frac, exp)| {
            let mut s = String::new();
            if neg {
                s.push('-');
            }
            s += &int;
            if let Some(f) = frac {
                s.push('.');
                s += &f;
            }
            if let Some((e, sign, d)) = exp {
                s += &e;
                s += &sign;
                s += &d;
            }
            s
        })
        .boxed()
}

fn number_with(risky: bool) -> BoxedStrategy<String> {
    if !risky {
        return number();
    }
    prop_oneof![8 => number(), 1 => prop::sample::select(BAD_NUMBERS).prop_map(String::from)]
        .boxed()
}

/// The inside of a JSON string: plain text, every kind of escape, surrogate pairs.
fn string_body() -> BoxedStrategy<String> {
    string_body_with(false)
}

/// Like [`string_body`]; `risky` mixes in invalid escapes, lone surrogates, raw controls.
fn string_body_with(risky: bool) -> BoxedStrategy<String> {
    let piece = prop_oneof![
        4 => "[a-zA-Z0-9 _/.:-]{1,8}",
        1 => prop::sample::select(&[
            "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\u001f", "\\u00e9", "\\u20AC",
            "\\uD83D\\uDE00", "\\udbff\\udfff", "\\uFFFF", "é", "😀", "\u{2028}", "\u{7f}", "{}[],:",
        ][..])
        .prop_map(String::from),
        1 => any::<char>().prop_filter("no raw control, quote or backslash", |c| {
            *c >= ' ' && *c != '"' && *c != '\\'
        })
        .prop_map(String::from),
        u32::from(risky) => prop::sample::select(BAD_STRING_PIECES).prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..6)
        .prop_map(|v| v.concat())
        .boxed()
}

fn string() -> BoxedStrategy<String> {
    string_with(false)
}

fn string_with(risky: bool) -> BoxedStrategy<String> {
    string_body_with(risky)
        .prop_map(|b| format!("\"{b}\""))
        .boxed()
}

/// A JSON value as text, nested at most `depth` levels.
fn value(allow_newline: bool, depth: u32) -> BoxedStrategy<String> {
    value_with(allow_newline, depth, false)
}

/// Like [`value`]; `risky` mixes in near-miss tokens, so the text may be invalid.
fn value_with(allow_newline: bool, depth: u32, risky: bool) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        Just(String::from("null")),
        Just(String::from("true")),
        Just(String::from("false")),
        number_with(risky),
        string_with(risky),
    ];
    leaf.prop_recursive(depth, 48, 6, move |inner| {
        let elem = (ws(allow_newline), inner.clone(), ws(allow_newline))
            .prop_map(|(a, v, b)| format!("{a}{v}{b}"));
        let member = (
            ws(allow_newline),
            string_with(risky),
            ws(allow_newline),
            ws(allow_newline),
            inner,
            ws(allow_newline),
        )
            .prop_map(|(a, k, b, c, v, d)| format!("{a}{k}{b}:{c}{v}{d}"));
        prop_oneof![
            (prop::collection::vec(elem, 0..5), ws(allow_newline)).prop_map(|(v, w)| {
                if v.is_empty() {
                    format!("[{w}]")
                } else {
                    format!("[{}]", v.join(","))
                }
            }),
            (prop::collection::vec(member, 0..5), ws(allow_newline)).prop_map(|(v, w)| {
                if v.is_empty() {
                    format!("{{{w}}}")
                } else {
                    format!("{{{}}}", v.join(","))
                }
            }),
        ]
    })
    .boxed()
}

/// A JSON object as text.
fn object(allow_newline: bool) -> BoxedStrategy<String> {
    prop::collection::vec((string(), value(allow_newline, 4)), 0..5)
        .prop_map(|m| {
            format!(
                "{{{}}}",
                m.into_iter()
                    .map(|(k, v)| format!("{k}:{v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .boxed()
}

/// A whole document: a value, maybe wrapped in extra arrays (depth < 60), with whitespace.
fn document() -> BoxedStrategy<String> {
    document_with(false)
}

fn document_with(risky: bool) -> BoxedStrategy<String> {
    (ws(true), value_with(true, 6, risky), 0usize..50, ws(true))
        .prop_map(|(a, v, wrap, b)| format!("{a}{}{v}{}{b}", "[".repeat(wrap), "]".repeat(wrap)))
        .boxed()
}

#[derive(Debug, Clone)]
enum Mutation {
    Set(Index, u8),
    Insert(Index, u8),
    Remove(Index),
    Truncate(Index),
}

fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => prop::sample::select(&b"\"\\{}[],:/ntfrule0123456789-+.eEuUdDcCaAfF \t\n\r\x00\x1f\x7f"[..]),
        1 => any::<u8>(),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), interesting_byte()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<Index>(), interesting_byte()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<Index>().prop_map(Mutation::Remove),
        any::<Index>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut b: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        match m {
            Mutation::Set(i, x) if !b.is_empty() => {
                let i = i.index(b.len());
                b[i] = *x;
            }
            Mutation::Insert(i, x) => {
                let i = i.index(b.len() + 1);
                b.insert(i, *x);
            }
            Mutation::Remove(i) if !b.is_empty() => {
                let i = i.index(b.len());
                b.remove(i);
            }
            Mutation::Truncate(i) => {
                let i = i.index(b.len() + 1);
                b.truncate(i);
            }
            _ => {}
        }
    }
    b
}

// ---------------------------------------------------------------------------------------
// (c) the scanner accepts exactly what serde_json accepts (see the oracle note on top)

/// Whether every `\u` surrogate escape in `text` is half of a high-low pair. Only for
/// text serde_json's IgnoredAny accepted (so strings and `\u` escapes are well formed).
fn surrogates_paired(text: &str) -> bool {
    let b = text.as_bytes();
    let hex = |i: usize| u16::from_str_radix(&text[i..i + 4], 16).unwrap();
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        match (in_str, b[i]) {
            (false, b'"') => in_str = true,
            (false, _) => {}
            (true, b'"') => in_str = false,
            (true, b'\\') if b[i + 1] == b'u' => {
                let v = hex(i + 2);
                i += 6;
                if (0xDC00..0xE000).contains(&v) {
                    return false;
                }
                if (0xD800..0xDC00).contains(&v) {
                    if !(b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u')) {
                        return false;
                    }
                    if !(0xDC00..0xE000).contains(&hex(i + 2)) {
                        return false;
                    }
                    i += 6;
                }
                continue;
            }
            (true, b'\\') => i += 1,
            (true, _) => {}
        }
        i += 1;
    }
    true
}

fn serde_accepts(text: &str) -> bool {
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
        return false;
    }
    let paired = surrogates_paired(text);
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        assert!(paired, "Value accepted lone surrogates? {text:?}");
    }
    paired
}

/// Checks our view of an accepted document against serde_json's reading.
fn same_reading(ours: Json<'_>, theirs: &serde_json::Value) {
    use serde_json::Value;
    match theirs {
        Value::Null => assert!(ours.is_null()),
        Value::Bool(b) => assert_eq!(ours.as_bool(), Some(*b)),
        Value::Number(n) => {
            assert_eq!(ours.kind(), JsonKind::Number);
            if let Some(i) = n.as_i64() {
                assert_eq!(ours.as_i64(), Some(i), "{ours}");
            } else if let Some(u) = n.as_u64() {
                assert_eq!(ours.as_u64(), Some(u), "{ours}");
            } else {
                // serde_json without its `float_roundtrip` feature may be off by an ulp or
                // so on long inputs; `str::parse` is correctly rounded.
                let (a, b) = (ours.as_f64().unwrap(), n.as_f64().unwrap());
                assert!(
                    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()),
                    "{ours}: {a} vs {b}"
                );
            }
        }
        Value::String(s) => {
            let js = ours.as_str().expect("a string");
            assert!(js.eq_str(s), "{ours} vs {s:?}");
            assert_eq!(js.decoded_len(), s.len());
            assert_eq!(js.chars().collect::<String>(), *s);
        }
        Value::Array(a) => {
            assert_eq!(ours.kind(), JsonKind::Array);
            let elems: Vec<_> = ours.elements().collect();
            assert_eq!(elems.len(), a.len(), "{ours}");
            for (o, t) in elems.into_iter().zip(a) {
                same_reading(o, t);
            }
        }
        Value::Object(m) => {
            assert_eq!(ours.kind(), JsonKind::Object);
            let n = ours.members().count();
            if n == m.len() {
                // no duplicate names (serde_json keeps the last, `get` the first)
                for (k, t) in m {
                    same_reading(ours.get(k).expect("member"), t);
                }
            } else {
                assert!(n > m.len());
            }
        }
    }
}

fn check_against_serde(text: &str) -> Result<(), TestCaseError> {
    let ours = Json::new(text);
    let theirs = serde_accepts(text);
    prop_assert_eq!(ours.is_ok(), theirs, "text {:?}: ours {:?}", text, ours);
    if let (Ok(v), Ok(t)) = (ours, serde_json::from_str::<serde_json::Value>(text)) {
        same_reading(v, &t);
    }
    Ok(())
}

proptest! {
    #[test]
    fn c_scanner_matches_serde_on_generated_json(doc in document()) {
        prop_assert!(Json::new(&doc).is_ok(), "generated JSON must be valid: {:?}", doc);
        check_against_serde(&doc)?;
    }

    #[test]
    fn c_scanner_matches_serde_on_mutated_json(doc in document(), muts in prop::collection::vec(mutation(), 1..4)) {
        let bytes = mutate(doc.into_bytes(), &muts);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            check_against_serde(text)?;
        }
    }

    #[test]
    fn c_scanner_matches_serde_on_near_miss_json(doc in document_with(true)) {
        check_against_serde(&doc)?;
    }

    #[test]
    fn c_scanner_matches_serde_on_json_like_soup(
        soup in prop::collection::vec(prop_oneof![
            4 => prop::sample::select(&["{", "}", "[", "]", ",", ":", "\"", "\"a\"", "1", "-", "0", ".", "e", "true",
                "null", "\\", "\\u", "D800", "DC00", "\\uD83D", "\\uDE00", " ", "\n", "\t", "\u{1}", "é"][..]),
            1 => Just(""),
        ], 0..24)
    ) {
        check_against_serde(&soup.concat())?;
    }
}

// ---------------------------------------------------------------------------------------
// (b) encode then parse is the identity

fn id_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        "-?[1-9][0-9]{18,60}",
        Just(String::from("0")),
        string_body().prop_map(|b| format!("\"{b}\"")),
        any::<String>().prop_map(|s| {
            let mut buf = vec![0u8; 8 * s.len() + 2];
            let mut w = JsonWriter::new(&mut buf);
            w.string(&s);
            let n = w.finish().unwrap();
            String::from_utf8(buf[..n].to_vec()).unwrap()
        }),
    ]
    .prop_filter("ids fit the default limit", |s| {
        s.len() <= Limits::DEFAULT.max_id_len
    })
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[a-z/_]{1,20}", string_body()]
}

/// The raw text a value is encoded as: line breaks between tokens become spaces.
fn one_line(j: Option<Json<'_>>) -> Option<String> {
    j.map(|j| j.as_raw().replace(['\n', '\r'], " "))
}

fn encode(f: impl Fn(&mut JsonWriter<'_>)) -> String {
    let mut buf = vec![0u8; 1 << 16];
    let mut w = JsonWriter::new(&mut buf);
    f(&mut w);
    let n = w.finish().unwrap();
    // An undersized buffer reports the same size exactly.
    if n > 0 {
        let mut small = vec![0u8; n - 1];
        let mut w = JsonWriter::new(&mut small);
        f(&mut w);
        assert_eq!(w.finish().unwrap_err().required, n);
    }
    let s = String::from_utf8(buf[..n].to_vec()).unwrap();
    assert!(!s.contains('\n'));
    s
}

proptest! {
    #[test]
    fn b_request_round_trip(id in id_text(), method in any_text(), params in prop::option::of(object(true))) {
        let id = Id::parse(&id).unwrap();
        let params = params.as_deref().map(|p| Json::new(p).unwrap());
        let line = encode(|w| encode_request(w, id, &method, params));
        let m = jsonrpc::parse(&line, &Limits::DEFAULT);
        let Ok(Message::Request(r)) = m else { return Err(TestCaseError::fail(format!("{line}: {m:?}"))) };
        prop_assert_eq!(r.id.as_raw(), id.as_raw());
        prop_assert!(r.method.eq_str(&method));
        prop_assert_eq!(r.method.chars().collect::<String>(), method);
        prop_assert_eq!(r.params.map(|p| p.as_raw().to_owned()), one_line(params));
    }

    #[test]
    fn b_notification_round_trip(method in any_text(), params in prop::option::of(object(true))) {
        let params = params.as_deref().map(|p| Json::new(p).unwrap());
        let line = encode(|w| encode_notification(w, &method, params));
        let m = jsonrpc::parse(&line, &Limits::DEFAULT);
        let Ok(Message::Notification(n)) = m else { return Err(TestCaseError::fail(format!("{line}: {m:?}"))) };
        prop_assert!(n.method.eq_str(&method));
        prop_assert_eq!(n.params.map(|p| p.as_raw().to_owned()), one_line(params));
    }

    #[test]
    fn b_result_round_trip(id in id_text(), result in object(true)) {
        let id = Id::parse(&id).unwrap();
        let result = Json::new(&result).unwrap();
        let line = encode(|w| encode_result(w, id, result));
        let m = jsonrpc::parse(&line, &Limits::DEFAULT);
        let Ok(Message::Response(r)) = m else { return Err(TestCaseError::fail(format!("{line}: {m:?}"))) };
        prop_assert_eq!(r.id.as_raw(), id.as_raw());
        prop_assert!(r.id.same(&id));
        prop_assert_eq!(Some(r.result.as_raw().to_owned()), one_line(Some(result)));
    }

    #[test]
    fn b_error_round_trip(
        id in prop::option::of(id_text()),
        code in any::<i32>(),
        message in any_text(),
        data in prop::option::of(value(true, 3)),
    ) {
        let id = id.as_deref().map(|i| Id::parse(i).unwrap());
        let data = data.as_deref().map(|d| Json::new(d).unwrap());
        let line = encode(|w| encode_error(w, id, ErrorCode(code), &message, data));
        let m = jsonrpc::parse(&line, &Limits::DEFAULT);
        let Ok(Message::Error(e)) = m else { return Err(TestCaseError::fail(format!("{line}: {m:?}"))) };
        prop_assert_eq!(e.id.map(|i| i.as_raw()), id.map(|i| i.as_raw()));
        prop_assert_eq!(e.error.code, i64::from(code));
        prop_assert!(e.error.message.eq_str(&message));
        prop_assert_eq!(e.error.data.map(|d| d.as_raw().to_owned()), one_line(data));
    }
}

// ---------------------------------------------------------------------------------------
// (a) framing does not depend on how the stream is split

/// An owned copy of a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Owned {
    Line(String),
    Bad(Vec<u8>, Option<String>),
    Long(usize, Option<String>),
}

fn own(f: Frame<'_>) -> Owned {
    let id = |i: Option<Id<'_>>| i.map(|i| i.as_raw().to_owned());
    match f {
        Frame::Line(l) => Owned::Line(l.to_owned()),
        Frame::InvalidUtf8 { line, id: i } => Owned::Bad(line.to_vec(), id(i)),
        Frame::TooLong { limit, id: i } => Owned::Long(limit, id(i)),
    }
}

/// Feeds the chunks in order; returns the frames and the bytes left buffered.
fn feed(cap: usize, chunks: &[&[u8]]) -> (Vec<Owned>, usize) {
    let mut dec = LineDecoder::new(vec![0u8; cap], 64);
    let mut out = Vec::new();
    for chunk in chunks {
        let mut input: &[u8] = chunk;
        while !input.is_empty() {
            let d = dec.decode(input);
            assert!(d.consumed > 0 && d.consumed <= input.len());
            if let Some(f) = d.frame {
                out.push(own(f));
            }
            input = &input[d.consumed..];
        }
    }
    (out, dec.buffered())
}

/// One line of a stream, without its terminator (may still contain a `\r`).
fn stream_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // messages, short and long (with the id first, so an overlong one can be answered)
        4 => (id_text(), "[a-z/]{1,12}", value(false, 3)).prop_map(|(id, m, p)| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{m}","params":{{"p":{p}}}}}"#).into_bytes()
        }),
        // blank and whitespace-only lines
        1 => prop::sample::select(&["", " ", "\t", "\r", " \r", "  \t  "][..]).prop_map(|s| s.as_bytes().to_vec()),
        // arbitrary bytes, UTF-8 or not
        2 => prop::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..80),
        // long lines
        1 => (id_text(), 1usize..300).prop_map(|(id, n)| format!(r#"{{"id":{id},"x":"{}"}}"#, "y".repeat(n)).into_bytes()),
    ]
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(
            (stream_line(), prop::sample::select(&["\n", "\r\n"][..])),
            0..12,
        ),
        prop::option::of(stream_line()),
    )
        .prop_map(|(lines, tail)| {
            let mut s = Vec::new();
            for (l, end) in lines {
                s.extend_from_slice(&l);
                s.extend_from_slice(end.as_bytes());
            }
            if let Some(t) = tail {
                s.extend_from_slice(&t);
            }
            s
        })
}

proptest! {
    #[test]
    fn a_framing_is_independent_of_chunking(
        s in stream(),
        cap in prop_oneof![1usize..48, 48usize..400],
        cuts in prop::collection::vec(any::<Index>(), 0..24),
    ) {
        let whole = feed(cap, &[&s]);
        let bytes: Vec<&[u8]> = s.chunks(1).collect();
        prop_assert_eq!(&feed(cap, &bytes), &whole, "byte by byte");
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(s.len() + 1)).collect();
        at.push(0);
        at.push(s.len());
        at.sort_unstable();
        at.dedup();
        let chunks: Vec<&[u8]> = at.windows(2).map(|w| &s[w[0]..w[1]]).collect();
        prop_assert_eq!(&feed(cap, &chunks), &whole, "random chunks at {:?}", at);
        // And each frame obeys the line rules.
        for f in &whole.0 {
            match f {
                Owned::Line(l) => {
                    prop_assert!(!l.contains('\n'));
                    prop_assert!(l.len() <= cap);
                    prop_assert!(!l.bytes().all(|c| matches!(c, b' ' | b'\t' | b'\r')));
                }
                Owned::Bad(l, _) => prop_assert!(std::str::from_utf8(l).is_err() && l.len() <= cap),
                Owned::Long(limit, _) => prop_assert_eq!(*limit, cap),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// (d) nothing panics on arbitrary bytes

fn exercise(line: &str, limits: &Limits) {
    match jsonrpc::parse(line, limits) {
        Ok(Message::Batch(b)) => {
            let _ = (b.len(), b.is_empty());
            for m in b.iter() {
                let _ = format!("{m:?}");
            }
        }
        Ok(m) => {
            let _ = format!("{m:?}");
        }
        Err(e) => {
            let _ = (e.code(), e.needs_reply(), format!("{e}"));
        }
    }
    if let Ok(v) = Json::new(line) {
        walk(v);
    }
}

fn walk(v: Json<'_>) {
    let _ = (
        v.kind(),
        v.as_i64(),
        v.as_u64(),
        v.as_f64(),
        v.as_bool(),
        v.is_integer(),
        v.get("id"),
    );
    if let Some(s) = v.as_str() {
        let mut buf = [0u8; 64];
        let _ = (
            s.decoded_len(),
            s.eq_str("x"),
            s.unescape_into(&mut buf),
            s.chars().count(),
        );
    }
    for (k, m) in v.members() {
        let _ = k.chars().count();
        walk(m);
    }
    for e in v.elements() {
        walk(e);
    }
}

proptest! {
    #[test]
    fn d_no_panic_on_arbitrary_bytes(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..400),
            prop::collection::vec(interesting_byte(), 0..400),
            stream(),
        ],
        cap in 0usize..200,
        depth in 0usize..8,
        cuts in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let limits = Limits { max_depth: depth, max_id_len: 16, ..Limits::DEFAULT };
        let _ = peek_id(&bytes, depth);
        exercise(&String::from_utf8_lossy(&bytes), &limits);
        exercise(&String::from_utf8_lossy(&bytes), &Limits::DEFAULT);
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        at.push(0);
        at.push(bytes.len());
        at.sort_unstable();
        at.dedup();
        let mut dec = LineDecoder::new(vec![0u8; cap], depth);
        for w in at.windows(2) {
            let mut input = &bytes[w[0]..w[1]];
            while !input.is_empty() {
                let d = dec.decode(input);
                match d.frame {
                    Some(Frame::Line(l)) => {
                        let _ = peek_id(l.as_bytes(), depth);
                        exercise(l, &limits);
                    }
                    Some(Frame::InvalidUtf8 { line, id }) => {
                        let _ = (peek_id(line, depth), id);
                    }
                    Some(Frame::TooLong { id, .. }) => {
                        let _ = id;
                    }
                    None => {}
                }
                input = &input[d.consumed..];
            }
        }
    }
}
