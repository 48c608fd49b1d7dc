//! Tests of the line parser and the envelope scan.

extern crate std;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use super::*;
use crate::json::JsonErrorKind;

/// `table!(f; input => expected, ...)` calls `f(line, input, expected)` per row.
macro_rules! table {
    ($f:expr; $($input:expr => $expected:expr),* $(,)?) => {{
        $( $f(line!(), $input, $expected); )*
    }};
}

fn opt(j: Option<Json<'_>>) -> String {
    j.map_or("-".into(), |j| j.as_raw().into())
}

/// A one-line rendering of a parse outcome, for tables.
fn show(r: &Result<Message<'_>, ParseError<'_>>) -> String {
    match r {
        Ok(Message::Request(r)) => format!(
            "req id={} method={} params={}",
            r.id,
            r.method,
            opt(r.params)
        ),
        Ok(Message::Notification(n)) => {
            format!("notif method={} params={}", n.method, opt(n.params))
        }
        Ok(Message::Response(r)) => format!("resp id={} result={}", r.id, r.result),
        Ok(Message::Error(e)) => format!(
            "err id={} code={} message={} data={}",
            e.id.map_or("-".into(), |i| i.to_string()),
            e.error.code,
            e.error.message,
            opt(e.error.data)
        ),
        Ok(Message::Batch(b)) => format!("batch n={}", b.len()),
        Err(e) => format!(
            "fail {} {:?} id={}{}",
            e.code().0,
            e.kind,
            e.id.map_or("-".into(), |i| i.to_string()),
            if e.response_like { " resp" } else { "" }
        ),
    }
}

fn check_with(limits: Limits) -> impl Fn(u32, &str, &str) {
    move |line, input, want| {
        let got = show(&parse(input, &limits));
        assert_eq!(got, want, "row {line}: {input}");
        // The error's code is consistent with its kind.
        if let Err(e) = parse(input, &limits) {
            assert_eq!(e.code(), e.kind.code());
            assert_eq!(e.needs_reply(), !e.response_like);
        }
    }
}

fn check(line: u32, input: &str, want: &str) {
    check_with(Limits::DEFAULT)(line, input, want)
}

#[test]
fn requests_and_notifications() {
    table!(check;
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"# => "req id=1 method=ping params=-",
        r#"{"method":"ping","id":"a","jsonrpc":"2.0","params":{}}"# => r#"req id="a" method=ping params={}"#,
        r#"  {"jsonrpc" : "2.0" , "id" : 0 , "method" : "x" , "params" : { "a" : [1] } }  "# => r#"req id=0 method=x params={ "a" : [1] }"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"# => "notif method=notifications/initialized params=-",
        r#"{"jsonrpc":"2.0","method":"n","params":{"id":5}}"# => r#"notif method=n params={"id":5}"#,
        // unknown members are ignored, nested envelope names do not count
        r#"{"jsonrpc":"2.0","id":2,"method":"m","_meta":{"id":1,"method":3},"x":[{"result":1}]}"# => "req id=2 method=m params=-",
        // whitespace the JSON grammar allows, \r included
        "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r" => "notif method=n params=-",
        "\t{\"jsonrpc\":\"2.0\",\n\"method\":\"n\"}" => "notif method=n params=-",
    );
}

#[test]
fn version() {
    table!(check;
        r#"{"jsonrpc":"2\u002e0","id":1,"method":"m"}"# => "req id=1 method=m params=-",
        r#"{"jsonrpc":"\u0032.\u0030","method":"m"}"# => "notif method=m params=-",
        r#"{"id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
        r#"{"jsonrpc":"1.0","id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
        r#"{"jsonrpc":2.0,"id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
        r#"{"jsonrpc":"2.0 ","id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
        r#"{"jsonrpc":"2","id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
        r#"{"jsonrpc":null,"id":1,"method":"m"}"# => "fail -32600 BadVersion id=1",
        r#"{"jsonrpc":["2.0"],"method":"m"}"# => "fail -32600 BadVersion id=-",
        r#"{}"# => "fail -32600 BadVersion id=-",
        r#"{"jsonrpc":"1.0","id":1,"result":{}}"# => "fail -32600 InvalidResponse id=1 resp",
    );
}

#[test]
fn ids() {
    table!(check;
        r#"{"jsonrpc":"2.0","id":-1,"method":"m"}"# => "req id=-1 method=m params=-",
        r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"# => "req id=-0 method=m params=-",
        r#"{"jsonrpc":"2.0","id":"","method":"m"}"# => r#"req id="" method=m params=-"#,
        r#"{"jsonrpc":"2.0","id":123456789012345678901234567890123,"method":"m"}"# => "req id=123456789012345678901234567890123 method=m params=-",
        r#"{"jsonrpc":"2.0","id":"a\"b\u0041\\","method":"m"}"# => r#"req id="a\"b\u0041\\" method=m params=-"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"m"}"# => "fail -32600 BadId id=-",
        r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"# => "fail -32600 BadId id=-",
        r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"# => "fail -32600 BadId id=-",
        r#"{"jsonrpc":"2.0","id":1e3,"method":"m"}"# => "fail -32600 BadId id=-",
        r#"{"jsonrpc":"2.0","id":true,"method":"m"}"# => "fail -32600 BadId id=-",
        r#"{"jsonrpc":"2.0","id":false,"method":"m"}"# => "fail -32600 BadId id=-",
        r#"{"jsonrpc":"2.0","id":{},"method":"m"}"# => "fail -32600 BadId id=-",
        r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"# => "fail -32600 BadId id=-",
    );
    // Ids keep their raw text, so equal numbers written differently stay distinct.
    let Ok(Message::Request(r)) = parse(
        r#"{"jsonrpc":"2.0","id":"\u0061","method":"m"}"#,
        &Limits::DEFAULT,
    ) else {
        panic!()
    };
    assert_eq!(r.id.as_raw(), r#""\u0061""#);
    assert!(r.id.same(&Id::parse("\"a\"").unwrap()));
    assert!(!r.id.same(&Id::parse("1").unwrap()));
    // The id length limit counts raw text; the too-long id is still echoed.
    let limits = Limits {
        max_id_len: 5,
        ..Limits::DEFAULT
    };
    table!(check_with(limits);
        r#"{"jsonrpc":"2.0","id":12345,"method":"m"}"# => "req id=12345 method=m params=-",
        r#"{"jsonrpc":"2.0","id":123456,"method":"m"}"# => "fail -32600 IdTooLong id=123456",
        r#"{"jsonrpc":"2.0","id":"abc","method":"m"}"# => r#"req id="abc" method=m params=-"#,
        r#"{"jsonrpc":"2.0","id":"abcd","method":"m"}"# => r#"fail -32600 IdTooLong id="abcd""#,
        r#"{"jsonrpc":"2.0","id":"abcd","result":{}}"# => r#"resp id="abcd" result={}"#,
    );
}

#[test]
fn method_and_params() {
    table!(check;
        r#"{"jsonrpc":"2.0","id":1,"method":"pi\u006eg"}"# => "req id=1 method=ping params=-",
        r#"{"jsonrpc":"2.0","id":1,"method":""}"# => "req id=1 method= params=-",
        r#"{"jsonrpc":"2.0","id":1,"method":1}"# => "fail -32600 BadMethod id=1",
        r#"{"jsonrpc":"2.0","id":1,"method":null}"# => "fail -32600 BadMethod id=1",
        r#"{"jsonrpc":"2.0","method":{"a":1}}"# => "fail -32600 BadMethod id=-",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}"# => "fail -32600 BadParams id=1",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"# => "fail -32600 BadParams id=1",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"# => "fail -32600 BadParams id=1",
        r#"{"jsonrpc":"2.0","method":"m","params":3}"# => "fail -32600 BadParams id=-",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"# => "fail -32600 InvalidShape id=1",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","error":{"code":1,"message":""}}"# => "fail -32600 InvalidShape id=1",
        r#"{"jsonrpc":"2.0","id":1}"# => "fail -32600 InvalidShape id=1",
        r#"{"jsonrpc":"2.0","params":{}}"# => "fail -32600 InvalidShape id=-",
    );
    let Ok(Message::Request(r)) = parse(
        r#"{"jsonrpc":"2.0","id":1,"method":"pi\u006eg"}"#,
        &Limits::DEFAULT,
    ) else {
        panic!()
    };
    assert!(r.method.eq_str("ping"));
    assert!(r.method.is_escaped());
    assert_eq!(r.method.raw(), r"pi\u006eg");
}

#[test]
fn escaped_member_names() {
    table!(check;
        r#"{"jsonrpc":"2.0","\u0069d":1,"method":"m"}"# => "req id=1 method=m params=-",
        r#"{"\u006asonrpc":"2.0","\u0069\u0064":"x","me\u0074hod":"m","p\u0061rams":{}}"# => r#"req id="x" method=m params={}"#,
        r#"{"jsonrpc":"2.0","id":1,"\u0072esult":{}}"# => "resp id=1 result={}",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","\u0069d":2}"# => "fail -32600 DuplicateMember id=-",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","m\u0065thod":"n"}"# => "fail -32600 DuplicateMember id=1",
        // near misses are just unknown members
        r#"{"jsonrpc":"2.0","id":1,"method":"m","ID":2,"id ":3,"\u0069":4}"# => "req id=1 method=m params=-",
    );
}

#[test]
fn duplicates() {
    table!(check;
        r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"# => "fail -32600 DuplicateMember id=1",
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}"# => "fail -32600 DuplicateMember id=-",
        r#"{"jsonrpc":"2.0","id":1,"id":1,"method":"a"}"# => "fail -32600 DuplicateMember id=-",
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"a"}"# => "fail -32600 DuplicateMember id=1",
        r#"{"jsonrpc":"2.0","id":"q","method":"a","params":{},"params":{}}"# => r#"fail -32600 DuplicateMember id="q""#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"# => "fail -32600 DuplicateMember id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"},"error":{"code":1,"message":"x"}}"# => "fail -32600 DuplicateMember id=1 resp",
        // duplicates of other members are fine
        r#"{"jsonrpc":"2.0","id":1,"method":"a","x":1,"x":2}"# => "req id=1 method=a params=-",
    );
}

#[test]
fn responses() {
    table!(check;
        r#"{"jsonrpc":"2.0","id":1,"result":{"a":[]}}"# => r#"resp id=1 result={"a":[]}"#,
        r#"{"result":{},"id":"s","jsonrpc":"2.0"}"# => r#"resp id="s" result={}"#,
        r#"{"jsonrpc":"2.0","id":99999999999999999999999,"result":{}}"# => "resp id=99999999999999999999999 result={}",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"# => "err id=1 code=-32601 message=Method not found data=-",
        r#"{"jsonrpc":"2.0","id":"x","error":{"message":"m\n","data":{"d":1},"code":5}}"# => "err id=\"x\" code=5 message=m\n data={\"d\":1}",
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"# => "err id=- code=-32700 message=Parse error data=-",
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"# => "err id=- code=-32600 message=x data=-",
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"result":5}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"result":null}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"result":[]}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","result":{}}"# => "fail -32600 InvalidResponse id=- resp",
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"# => "fail -32600 InvalidResponse id=- resp",
        r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"# => "fail -32600 InvalidResponse id=- resp",
        r#"{"jsonrpc":"2.0","id":true,"error":{"code":1,"message":"x"}}"# => "fail -32600 InvalidResponse id=- resp",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"x"}}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":7}}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"jsonrpc":"2.0","id":1,"error":null}"# => "fail -32600 InvalidResponse id=1 resp",
        r#"{"id":1,"result":{}}"# => "fail -32600 InvalidResponse id=1 resp",
        // a JSON error in something that looks like a response is flagged too
        r#"{"jsonrpc":"2.0","id":4,"result":{"a":}}"# => "fail -32700 Json(UnexpectedByte) id=4 resp",
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":"# => "fail -32700 Json(UnexpectedEnd) id=4 resp",
        r#"{"jsonrpc":"2.0","id":4,"result":{},"method":"#  => "fail -32700 Json(UnexpectedEnd) id=4",
    );
}

#[test]
fn json_errors_keep_the_readable_id() {
    table!(check;
        "" => "fail -32700 Json(Empty) id=-",
        "   " => "fail -32700 Json(Empty) id=-",
        "{" => "fail -32700 Json(UnexpectedEnd) id=-",
        "x" => "fail -32700 Json(UnexpectedByte) id=-",
        r#"{"jsonrpc":"2.0","id":"a","method":"x",}"# => r#"fail -32700 Json(UnexpectedByte) id="a""#,
        r#"{"jsonrpc":"2.0","id":7,"method":"#  => "fail -32700 Json(UnexpectedEnd) id=7",
        r#"{"jsonrpc":"2.0","id":7,"params":{"a":NaN},"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=7",
        r#"{"jsonrpc":"2.0","params":{"a":NaN},"id":7,"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
        r#"{"jsonrpc":"2.0","id":7,"method":"m"} x"# => "fail -32700 Json(TrailingCharacters) id=7",
        r#"{"jsonrpc":"2.0","id":7,"method":"m"}{"#  => "fail -32700 Json(TrailingCharacters) id=7",
        r#"{"jsonrpc":"2.0","id":7,"method":"\uD800"}"# => "fail -32700 Json(LoneSurrogate) id=7",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"a\nb\"}" => "fail -32700 Json(ControlCharacter) id=7",
        r#"{"jsonrpc":"2.0","id":7,"method":"\q"}"# => "fail -32700 Json(InvalidEscape) id=7",
        r#"{"jsonrpc":"2.0","id":07,"method":"m"}"# => "fail -32700 Json(InvalidNumber) id=-",
        r#"{"jsonrpc":"2.0","id":1,"id":2,"x":}"# => "fail -32700 Json(UnexpectedByte) id=-",
        // an id is echoed only once its member is complete
        r#"{"jsonrpc":"2.0","id":7"# => "fail -32700 Json(UnexpectedEnd) id=-",
        r#"{"jsonrpc":"2.0","id":7 "# => "fail -32700 Json(UnexpectedEnd) id=7",
        r#"{"jsonrpc":"2.0","id":"s""# => r#"fail -32700 Json(UnexpectedEnd) id="s""#,
        r#"{"jsonrpc":"2.0","id":12x,"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
        r#"{"jsonrpc":"2.0","id":"a""b","method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
        r#"{"jsonrpc":"2.0","id":1 2,"method":"m"}"# => "fail -32700 Json(UnexpectedByte) id=-",
        r#"{"jsonrpc":"2.0","id":null,"x":}"# => "fail -32700 Json(UnexpectedByte) id=-",
        // not an object
        "1" => "fail -32600 NotAnObject id=-",
        "\"{}\"" => "fail -32600 NotAnObject id=-",
        "null" => "fail -32600 NotAnObject id=-",
        "true x" => "fail -32700 Json(TrailingCharacters) id=-",
    );
}

#[test]
fn depth_limit() {
    let limits = Limits {
        max_depth: 3,
        ..Limits::DEFAULT
    };
    table!(check_with(limits);
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":1}}}"# => r#"req id=1 method=m params={"a":{"b":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":{}}}}"# => "fail -32600 TooDeep id=1",
        r#"{"jsonrpc":"2.0","id":1,"result":{"a":[[]]}}"# => "fail -32600 TooDeep id=1 resp",
        r#"[[[[]]]]"# => "fail -32600 TooDeep id=-",
        r#"[[[]]]"# => "batch n=1",
    );
    table!(check_with(Limits { max_depth: 0, ..Limits::DEFAULT });
        r#"{"jsonrpc":"2.0","method":"m"}"# => "fail -32600 TooDeep id=-",
    );
    table!(check_with(Limits { max_depth: 1, ..Limits::DEFAULT });
        r#"{"jsonrpc":"2.0","method":"m"}"# => "notif method=m params=-",
        r#"{"jsonrpc":"2.0","id":"z","method":"m","params":{}}"# => r#"fail -32600 TooDeep id="z""#,
    );
}

#[test]
fn batches() {
    table!(check;
        "[]" => "batch n=0",
        " [ ] " => "batch n=0",
        "[1,2]" => "batch n=2",
        r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}}]"# => "batch n=2",
        "[1," => "fail -32700 Json(UnexpectedEnd) id=-",
        r#"[{"jsonrpc":"2.0","id":1,"method":"a"}] x"# => "fail -32700 Json(TrailingCharacters) id=-",
    );
    let Ok(Message::Batch(b)) = parse("[]", &Limits::DEFAULT) else {
        panic!()
    };
    assert!(b.is_empty());
    assert_eq!(b.iter().count(), 0);
    let text = r#" [ {"jsonrpc":"2.0","method":"a"} , {"jsonrpc":"2.0","id":1,"result":{}}, 5, [], {"jsonrpc":"2.0","id":3,"method":"m","params":[]}, {"id":9} ] "#;
    let Ok(Message::Batch(b)) = parse(text, &Limits::DEFAULT) else {
        panic!()
    };
    assert!(!b.is_empty());
    assert_eq!(b.len(), 6);
    let items: Vec<String> = b.iter().map(|r| show(&r)).collect();
    assert_eq!(
        items,
        [
            "notif method=a params=-",
            "resp id=1 result={}",
            "fail -32600 NotAnObject id=-",
            "fail -32600 NotAnObject id=-",
            "fail -32600 BadParams id=3",
            "fail -32600 BadVersion id=9",
        ]
    );
    // Elements inherit the id length limit.
    let limits = Limits {
        max_id_len: 2,
        ..Limits::DEFAULT
    };
    let Ok(Message::Batch(b)) = parse(r#"[{"jsonrpc":"2.0","id":123,"method":"a"}]"#, &limits)
    else {
        panic!()
    };
    assert_eq!(
        show(&b.iter().next().unwrap()),
        "fail -32600 IdTooLong id=123"
    );
}

#[test]
fn error_kinds_codes_and_messages() {
    let kinds = [
        (ParseErrorKind::Json(JsonErrorKind::UnexpectedEnd), -32700),
        (ParseErrorKind::InvalidUtf8, -32700),
        (ParseErrorKind::NotAnObject, -32600),
        (ParseErrorKind::BadVersion, -32600),
        (ParseErrorKind::BadId, -32600),
        (ParseErrorKind::IdTooLong, -32600),
        (ParseErrorKind::DuplicateMember, -32600),
        (ParseErrorKind::BadMethod, -32600),
        (ParseErrorKind::BadParams, -32600),
        (ParseErrorKind::InvalidShape, -32600),
        (ParseErrorKind::InvalidResponse, -32600),
        (ParseErrorKind::TooDeep, -32600),
        (ParseErrorKind::LineTooLong, -32600),
    ];
    for (k, code) in kinds {
        assert_eq!(k.code().0, code, "{k:?}");
        assert!(!k.message().is_empty());
    }
    let e = parse("{", &Limits::DEFAULT).unwrap_err();
    assert_eq!(format!("{e}"), "Parse error: invalid JSON (UnexpectedEnd)");
    let e = parse("2", &Limits::DEFAULT).unwrap_err();
    assert_eq!(format!("{e}"), ParseErrorKind::NotAnObject.message());
}

fn peek(line: u32, input: &[u8], want: Option<&str>) {
    assert_eq!(
        peek_id(input, 64).map(|i| i.as_raw()),
        want,
        "row {line}: {}",
        String::from_utf8_lossy(input)
    );
}

#[test]
fn peek_id_on_truncated_and_invalid_lines() {
    table!(peek;
        br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":""# => Some("42"),
        br#"{"jsonrpc":"2.0","id":"abc","# => Some(r#""abc""#),
        br#"{"jsonrpc":"2.0","id":"abc""# => Some(r#""abc""#),
        br#"{"id":"a\"b\u00e9"}"# => Some(r#""a\"b\u00e9""#),
        br#"  {"id" : 5 }"# => Some("5"),
        br#"{"id":5 "# => Some("5"),
        br#"{"id":5}trailing"# => Some("5"),
        br#"{"\u0069d":"q","# => Some(r#""q""#),
        br#"{"id":123456789012345678901234567890,"# => Some("123456789012345678901234567890"),
        // a number at the very end may continue past the cut
        br#"{"jsonrpc":"2.0","id":123"# => None,
        br#"{"id":-"# => None,
        br#"{"id":1.5"# => None,
        // incomplete or invalid ids
        br#"{"jsonrpc":"2.0","id":"ab"# => None,
        br#"{"jsonrpc":"2.0","id"# => None,
        br#"{"jsonrpc":"2.0","id":"# => None,
        br#"{"id":null,"# => None,
        br#"{"id":true,"# => None,
        br#"{"id":1.5,"# => None,
        br#"{"id":{"a":1},"# => None,
        br#"{"id":[1],"# => None,
        br#"{"id":"\uD800","# => None,
        // only a top-level id before the first problem counts
        br#"{"a":NaN,"id":1}"# => None,
        br#"{"id":"x","a":NaN}"# => Some(r#""x""#),
        br#"{"params":{"id":1},"# => None,
        br#"{"id":1,"id":2,"# => None,
        br#"{"id":1,"id":2"# => None,
        br#"{"id":1,"\u0069d":"# => None,
        br#"{"id":1,"x":1,"id":2}"# => None,
        br#"[{"id":1}]"# => None,
        b"" => None,
        b"   " => None,
        b"{" => None,
        // bytes that are not UTF-8: after the id they do not matter, inside it they do
        b"{\"id\":7,\"x\":\"\xff\xfe" => Some("7"),
        b"{\"id\":\"\xff\",\"x\":1}" => None,
    );
    // Depth is bounded by the given limit, but an id before the deep part is kept.
    assert_eq!(
        peek_id(br#"{"id":1,"params":[[[[[[[[["#, 3).map(|i| i.as_raw()),
        Some("1")
    );
    assert_eq!(peek_id(br#"{"params":[[[[]]]],"id":1}"#, 3), None);
    // Ids beyond the configured length limit are still read (the caller decides).
    let long = format!(r#"{{"id":"{}","#, "x".repeat(500));
    assert_eq!(peek_id(long.as_bytes(), 64).unwrap().as_raw().len(), 502);
}
