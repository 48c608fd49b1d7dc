//! URI templates (`picomcp::uri`): checking, matching (table), expansion (RFC 6570
//! examples for levels 1–3), round trips.

use picomcp::uri::{
    DecodeError, MAX_VARS, TemplateErrorKind as K, UriTemplate, find_match, percent_decode,
};

/// The RFC 6570 §3.2 example variables (string values only).
fn rfc_value(name: &str) -> Option<&'static str> {
    Some(match name {
        "var" => "value",
        "hello" => "Hello World!",
        "empty" => "",
        "path" => "/foo/bar",
        "x" => "1024",
        "y" => "768",
        "base" => "http://example.com/home/",
        "who" => "fred",
        "v" => "6",
        "half" => "50%",
        "dub" => "me/too",
        _ => return None,
    })
}

#[test]
fn expansion_rfc6570_examples() {
    // (template, expected), from RFC 6570 §1.2 and §3.2 (levels 1–3; string values).
    let cases: &[(&str, &str)] = &[
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{half}", "50%25"),
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,y}", "1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("?{x,empty}", "?1024,"),
        ("?{x,undef}", "?1024"),
        ("?{undef,y}", "?768"),
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("{+base}index", "http://example.com/home/index"),
        ("O{+empty}X", "OX"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("up{+path}{var}/here", "up/foo/barvalue/here"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#var}", "#value"),
        ("{#hello}", "#Hello%20World!"),
        ("{#half}", "#50%25"),
        ("foo{#empty}", "foo#"),
        ("foo{#undef}", "foo"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("{.who}", ".fred"),
        ("{.who,who}", ".fred.fred"),
        ("{.half,who}", ".50%25.fred"),
        ("X{.var}", "X.value"),
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("X{.x,y}", "X.1024.768"),
        ("{/who}", "/fred"),
        ("{/who,who}", "/fred/fred"),
        ("{/half,who}", "/50%25/fred"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{/var}", "/value"),
        ("{/var,empty}", "/value/"),
        ("{/var,undef}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;who}", ";who=fred"),
        ("{;half}", ";half=50%25"),
        ("{;empty}", ";empty"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{;x,y,undef}", ";x=1024;y=768"),
        ("{?who}", "?who=fred"),
        ("{?half}", "?half=50%25"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("{?x,y,undef}", "?x=1024&y=768"),
        ("{?undef}", ""),
        ("{&who}", "&who=fred"),
        ("{&half}", "&half=50%25"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        ("map?{x,y}", "map?1024,768"),
        ("{/path}", "/%2Ffoo%2Fbar"),
    ];
    for &(template, expected) in cases {
        let t = match UriTemplate::new(template) {
            Ok(t) => t,
            Err(e) => {
                // Refused for matching: `{+path,x}` (two greedy), `up{+path}{var}`
                // (adjacent), `{.who,who}` (duplicate): not servable as resource templates.
                assert!(
                    matches!(
                        e.kind,
                        K::SeveralGreedy | K::AdjacentVariables | K::DuplicateName
                    ),
                    "{template}: refused with {e:?}"
                );
                continue;
            }
        };
        let mut buf = [0u8; 128];
        assert_eq!(
            t.expand(rfc_value, &mut buf),
            Ok(expected),
            "template {template}"
        );
    }
}

#[test]
fn expansion_encodes_utf8_and_keeps_triplets_only_for_reserved() {
    let t = UriTemplate::new("x:{a}/{+b}").unwrap();
    let mut buf = [0u8; 64];
    let got = t.expand(
        |n| Some(if n == "a" { "é%41" } else { "é%41/%zz" }),
        &mut buf,
    );
    assert_eq!(got, Ok("x:%C3%A9%2541/%C3%A9%41/%25zz"));
}

#[test]
fn expansion_reports_the_size_it_needs() {
    let t = UriTemplate::new("file:///{a}").unwrap();
    let mut small = [0u8; 4];
    let err = t.expand(|_| Some("hello world"), &mut small).unwrap_err();
    assert_eq!(err.required, "file:///hello%20world".len());
    let mut exact = vec![0u8; err.required];
    assert_eq!(
        t.expand(|_| Some("hello world"), &mut exact),
        Ok("file:///hello%20world")
    );
}

#[test]
fn template_checks() {
    let cases: &[(&str, Option<K>)] = &[
        ("file:///{path}", None),
        ("no variables at all", None),
        ("{a}{b}", Some(K::AdjacentVariables)),
        ("{a}{+b}", Some(K::AdjacentVariables)),
        ("{+a}{b}", Some(K::AdjacentVariables)),
        ("{a}{.b}", None),
        ("{a}{#b}", None),
        ("{a}{?b}", None),
        ("{+a}/{+b}", Some(K::SeveralGreedy)),
        ("{+a,b}", Some(K::SeveralGreedy)),
        ("{#a}/{+b}", Some(K::SeveralGreedy)),
        ("{+a}{?b,c}", None),
        ("{a", Some(K::UnclosedExpression)),
        ("{a{b}}", Some(K::UnclosedExpression)),
        ("a}", Some(K::UnopenedExpression)),
        ("{}", Some(K::EmptyExpression)),
        ("{+}", Some(K::EmptyExpression)),
        ("{a,}", Some(K::EmptyExpression)),
        ("{=a}", Some(K::ReservedOperator)),
        ("{!a}", Some(K::ReservedOperator)),
        ("{|a}", Some(K::ReservedOperator)),
        ("{a-b}", Some(K::InvalidName)),
        ("{a..b}", Some(K::InvalidName)),
        ("{.a.}", Some(K::InvalidName)),
        ("{a.b_c9}", None),
        ("{ a}", Some(K::InvalidName)),
        ("{%41}", Some(K::InvalidName)),
        ("{var:3}", Some(K::Unsupported)),
        ("{/list*}", Some(K::Unsupported)),
        ("{a}/{a}", Some(K::DuplicateName)),
        ("{?a,a}", Some(K::DuplicateName)),
    ];
    for &(text, want) in cases {
        let got = UriTemplate::new(text).err().map(|e| e.kind);
        assert_eq!(got, want, "template {text:?}");
    }
    let at = UriTemplate::new("ok/{a}/{b-c}").unwrap_err().at;
    assert_eq!(at, 7);
}

#[test]
fn at_most_max_vars() {
    let mut text = String::new();
    for i in 0..MAX_VARS {
        text.push_str(&format!("/{{v{i}}}"));
    }
    assert!(UriTemplate::new(&text).is_ok());
    text.push_str("/{one_more}");
    assert_eq!(
        UriTemplate::new(&text).unwrap_err().kind,
        K::TooManyVariables
    );
}

/// Expected result: `None` = no match; otherwise (name, raw value) pairs given.
type Want<'a> = Option<&'a [(&'a str, &'a str)]>;

#[test]
fn matching_table() {
    let cases: &[(&str, &str, Want<'_>)] = &[
        // simple
        (
            "file:///{name}",
            "file:///readme.txt",
            Some(&[("name", "readme.txt")]),
        ),
        ("file:///{name}", "file:///a/b", None),
        ("file:///{name}", "file:///", None),
        (
            "file:///{name}",
            "file:///a%2Fb",
            Some(&[("name", "a%2Fb")]),
        ),
        ("file:///{name}", "file:///a b", Some(&[("name", "a b")])),
        ("file:///{name}", "file:///a?x=1", None),
        ("file:///{name}", "file:///a#top", None),
        ("file:///{name}", "file:///a,b", None),
        (
            "users://{id}/profile",
            "users://42/profile",
            Some(&[("id", "42")]),
        ),
        ("users://{id}/profile", "users://42/profile/", None),
        ("users://{id}/profile", "users:///profile", None),
        ("users://{id}/profile", "Users://42/profile", None),
        (
            "test://template/{id}/data",
            "test://template/7/data",
            Some(&[("id", "7")]),
        ),
        // literal repeated inside the value: anchored at the start
        (
            "prefix-{id}",
            "prefix-prefix-123",
            Some(&[("id", "prefix-123")]),
        ),
        // greedy-first like a regex: the earlier variable is longer
        (
            "{name}.{ext}",
            "a.tar.gz",
            Some(&[("name", "a.tar"), ("ext", "gz")]),
        ),
        ("x/{a}-{b}", "x/1-2-3", Some(&[("a", "1-2"), ("b", "3")])),
        ("{a}x{b}", "axbxc", Some(&[("a", "axb"), ("b", "c")])),
        ("{a},{b}", "1,2", Some(&[("a", "1"), ("b", "2")])),
        ("{a},{b}", "1,2,3", None), // ',' stops a simple value
        ("{x,y}", "1024,768", Some(&[("x", "1024"), ("y", "768")])),
        ("{x,y}", "1024", None),
        // reserved
        (
            "file:///{+path}",
            "file:///src/main.rs",
            Some(&[("path", "src/main.rs")]),
        ),
        ("file:///{+path}", "file:///", None),
        ("file:///{+path}", "file:///a?b", None),
        (
            "{+base}index",
            "http://example.com/home/index",
            Some(&[("base", "http://example.com/home/")]),
        ),
        (
            "{+path}/meta/{id}",
            "a/meta/b/meta/c",
            Some(&[("path", "a/meta/b"), ("id", "c")]),
        ),
        ("{a}-{+rest}", "x-y-z", Some(&[("a", "x"), ("rest", "y-z")])),
        (
            "repo://{o}/{r}/blob/{+p}",
            "repo://a/b/blob/c/d.rs",
            Some(&[("o", "a"), ("r", "b"), ("p", "c/d.rs")]),
        ),
        ("repo://{o}/{r}/blob/{+p}", "repo://a/b/tree/c", None),
        ("up{+path}{var}/here", "up/foo/barvalue/here", None), // refused: adjacent
        // fragment
        ("page{#frag}", "page#sec/1?x", Some(&[("frag", "sec/1?x")])),
        ("page{#frag}", "page", None),
        ("{a}{#f}", "x#y", Some(&[("a", "x"), ("f", "y")])),
        // label, path, path-param
        ("X{.var}", "X.value", Some(&[("var", "value")])),
        (
            "X{.x,y}",
            "X.1024.768",
            Some(&[("x", "1024"), ("y", "768")]),
        ),
        ("X{.var}", "X.a.b", None),
        (
            "{/who,dub}",
            "/fred/me%2Ftoo",
            Some(&[("who", "fred"), ("dub", "me%2Ftoo")]),
        ),
        (
            "{/var,x}/here",
            "/value/1024/here",
            Some(&[("var", "value"), ("x", "1024")]),
        ),
        ("{/var}", "/", None),
        ("{/var}", "/a/b", None),
        (
            "{;x,y}",
            ";x=1024;y=768",
            Some(&[("x", "1024"), ("y", "768")]),
        ),
        (
            "{;v,empty,who}",
            ";v=6;empty;who=fred",
            Some(&[("v", "6"), ("empty", ""), ("who", "fred")]),
        ),
        ("{;x}", ";xy=1", None),
        ("{;x}", ";x=", Some(&[("x", "")])),
        // Fuzz finding: the split the template expands to wins over a lenient `;o=`.
        (
            "{;v,emy,o}c{+p}",
            ";v=JJ;emy=U2;o=cdcdef",
            Some(&[("v", "JJ"), ("emy", "U2"), ("o", "cd"), ("p", "def")]),
        ),
        // query tail: order-free, optional, extras ignored, first duplicate kept
        (
            "logs://{service}{?since,level}",
            "logs://api",
            Some(&[("service", "api")]),
        ),
        (
            "logs://{service}{?since,level}",
            "logs://api?level=error",
            Some(&[("service", "api"), ("level", "error")]),
        ),
        (
            "logs://{service}{?since,level}",
            "logs://api?level=error&since=5m&utm=x",
            Some(&[("service", "api"), ("since", "5m"), ("level", "error")]),
        ),
        (
            "logs://{service}{?since,level}",
            "logs://api?level=a&level=b",
            Some(&[("service", "api"), ("level", "a")]),
        ),
        (
            "logs://{service}{?since,level}",
            "logs://api?%6Cevel=a",
            Some(&[("service", "api")]),
        ),
        (
            "logs://{service}{?since,level}",
            "logs://api?level",
            Some(&[("service", "api"), ("level", "")]),
        ),
        (
            "logs://{service}{?since,level}",
            "logs://api?level=x#frag",
            Some(&[("service", "api"), ("level", "x")]),
        ),
        ("logs://{service}{?since,level}", "logs://a/b?level=x", None),
        (
            "search{?q}{&page}",
            "search?page=2&q=mcp",
            Some(&[("q", "mcp"), ("page", "2")]),
        ),
        (
            "{+path}{?q}",
            "a/b?q=1",
            Some(&[("path", "a/b"), ("q", "1")]),
        ),
        ("{+path}{?q}", "?q=1", None),
        // a `{?…}` before the tail makes the whole template strict (fuzz finding)
        (
            "fi{+p}{?a,b}n.ae{?s,l}",
            "fiORU?a=N6&b=Nn.ae?s=1W&l=efg",
            Some(&[
                ("p", "ORU"),
                ("a", "N6"),
                ("b", "N"),
                ("s", "1W"),
                ("l", "efg"),
            ]),
        ),
        // strict query (a literal '?' before): in place, required
        (
            "?fixed=yes{&x}",
            "?fixed=yes&x=1024",
            Some(&[("x", "1024")]),
        ),
        ("?fixed=yes{&x}", "?fixed=yes", None),
        ("?fixed=yes{&x}", "?fixed=yes&x=", Some(&[("x", "")])),
        // literal templates match only themselves
        ("config://app", "config://app", Some(&[])),
        ("config://app", "config://app/", None),
        // unicode
        (
            "docs://{name}",
            "docs://résumé",
            Some(&[("name", "résumé")]),
        ),
        ("docs://é{name}é", "docs://éaéé", Some(&[("name", "aé")])),
    ];
    for &(template, uri, want) in cases {
        let Ok(t) = UriTemplate::new(template) else {
            assert!(
                want.is_none(),
                "{template} refused but a match was expected"
            );
            continue;
        };
        let got = t.match_uri(uri);
        match (want, got) {
            (None, None) => {}
            (Some(pairs), Some(vars)) => {
                let got: Vec<_> = vars.iter().collect();
                assert_eq!(got, pairs.to_vec(), "{template} on {uri}");
                assert_eq!(vars.len(), pairs.len());
                for (n, v) in pairs {
                    assert_eq!(vars.get(n), Some(*v));
                }
            }
            (want, got) => panic!("{template} on {uri}: want {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn find_match_takes_the_first_in_table_order() {
    let table = [
        UriTemplate::new("notes://{id}").unwrap(),
        UriTemplate::new("notes://{+rest}").unwrap(),
        UriTemplate::new("notes://{id}/raw").unwrap(),
    ];
    assert_eq!(find_match(&table, "notes://1").map(|m| m.0), Some(0));
    // The third would match too, but the second comes first.
    assert_eq!(find_match(&table, "notes://1/raw").map(|m| m.0), Some(1));
    assert!(find_match(&table, "other://1").is_none());
    assert_eq!(
        UriTemplate::new("a{b}")
            .unwrap()
            .var_names()
            .collect::<Vec<_>>(),
        ["b"]
    );
}

#[test]
fn long_inputs_stay_cheap() {
    // A pathological shape for a backtracking matcher: many candidate anchors.
    let t = UriTemplate::new("{a}x{b}x{c}x{d}y").unwrap();
    let uri = "x".repeat(20_000);
    assert!(t.match_uri(&uri).is_none());
    let t = UriTemplate::new("{+a}x{b}x{c}").unwrap();
    let vars = t.match_uri(&uri).unwrap();
    assert_eq!((vars.get("b"), vars.get("c")), (Some("x"), Some("x")));
    assert_eq!(vars.get("a").map(str::len), Some(20_000 - 4));
    assert!(t.match_uri(&format!("{uri}/")).is_none());
}

#[test]
fn percent_decoding() {
    let mut buf = [0u8; 16];
    assert_eq!(percent_decode("a%20b", &mut buf), Ok("a b"));
    assert_eq!(percent_decode("%C3%A9", &mut buf), Ok("é"));
    assert_eq!(percent_decode("a+b", &mut buf), Ok("a+b"));
    assert_eq!(
        percent_decode("%zz", &mut buf),
        Err(DecodeError::InvalidEscape { at: 0 })
    );
    assert_eq!(
        percent_decode("ab%4", &mut buf),
        Err(DecodeError::InvalidEscape { at: 2 })
    );
    assert_eq!(
        percent_decode("%C0%AE", &mut buf),
        Err(DecodeError::NotUtf8)
    );
    assert_eq!(percent_decode("%FF", &mut buf), Err(DecodeError::NotUtf8));
    let mut small = [0u8; 2];
    assert_eq!(
        percent_decode("%41bc", &mut small),
        Err(DecodeError::InsufficientSize { required: 3 })
    );
}

#[test]
fn round_trips() {
    // expand -> match -> decode gives the values back, for values without separators.
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "file:///{dir}/{name}",
            &[("dir", "my docs"), ("name", "ä?&#,.txt")],
        ),
        ("file:///{+path}", &[("path", "a/b c/d")]),
        (
            "x{/a,b}{?q,r}",
            &[("a", "1/2"), ("b", "?"), ("q", "a&b=c"), ("r", "#")],
        ),
        ("{;p,q}", &[("p", "x;y"), ("q", "")]),
        (
            "mail:{user}@{host}",
            &[("user", "ann"), ("host", "example.org")],
        ),
    ];
    for &(template, values) in cases {
        let t = UriTemplate::new(template).unwrap();
        let lookup = |n: &str| values.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        let mut buf = [0u8; 128];
        let uri = t.expand(lookup, &mut buf).unwrap();
        let vars = t
            .match_uri(uri)
            .unwrap_or_else(|| panic!("{template}: {uri}"));
        for &(n, v) in values {
            let mut dbuf = [0u8; 64];
            let raw = vars.get(n).unwrap();
            assert_eq!(percent_decode(raw, &mut dbuf), Ok(v), "{template}: {n}");
        }
    }
}
