//! picomcp::schema: every keyword, error pointers and messages, schema errors, depth and
//! `$ref`-cycle bounds, `missing_defaults`.

use picomcp::json::Json;
use picomcp::schema::{Expected, MAX_DEPTH, POINTER_CAPACITY, Schema, SchemaErrorKind};

fn j(text: &str) -> Json<'_> {
    Json::with_max_depth(text, 256).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn schema(text: &str) -> Schema<'_> {
    Schema::new(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// (schema, instance, None for valid or Some(error message)).
type Row = (&'static str, &'static str, Option<&'static str>);

fn run(table: &[Row]) {
    for &(s, i, want) in table {
        let got = schema(s).validate(j(i)).map_err(|e| e.to_string());
        assert_eq!(
            got.as_ref().err().map(String::as_str),
            want,
            "schema {s} instance {i}"
        );
    }
}

#[test]
fn type_keyword() {
    run(&[
        (r#"{"type":"string"}"#, r#""x""#, None),
        (
            r#"{"type":"string"}"#,
            "1",
            Some("(root): expected a string"),
        ),
        (r#"{"type":"integer"}"#, "1", None),
        (r#"{"type":"integer"}"#, "1.0", None),
        (r#"{"type":"integer"}"#, "1e2", None),
        (
            r#"{"type":"integer"}"#,
            "1.5",
            Some("(root): expected an integer"),
        ),
        (
            r#"{"type":"integer"}"#,
            "true",
            Some("(root): expected an integer"),
        ),
        (r#"{"type":"number"}"#, "1.5", None),
        (
            r#"{"type":"number"}"#,
            r#""1""#,
            Some("(root): expected a number"),
        ),
        (r#"{"type":"null"}"#, "null", None),
        (r#"{"type":"boolean"}"#, "false", None),
        (
            r#"{"type":"boolean"}"#,
            "0",
            Some("(root): expected a boolean"),
        ),
        (r#"{"type":"array"}"#, "[]", None),
        (
            r#"{"type":"object"}"#,
            "[]",
            Some("(root): expected an object"),
        ),
        (r#"{"type":["string","null"]}"#, "null", None),
        (
            r#"{"type":["string","null"]}"#,
            "1",
            Some("(root): expected a string or null"),
        ),
        (
            r#"{"type":["integer","string","boolean"]}"#,
            "[]",
            Some("(root): expected a string, an integer or a boolean"),
        ),
        (
            r#"{"type":["integer","number"]}"#,
            "{}",
            Some("(root): expected a number"),
        ),
    ]);
}

#[test]
fn object_keywords() {
    run(&[
        (
            r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
            "{}",
            Some(r#"(root): missing required property "text""#),
        ),
        (
            r#"{"properties":{"address":{"properties":{"city":{"type":"string"}}}}}"#,
            r#"{"address":{"city":5}}"#,
            Some("/address/city: expected a string"),
        ),
        (
            r#"{"properties":{"a/b":{"properties":{"c~d":{"type":"string"}}}}}"#,
            r#"{"a/b":{"c~d":5}}"#,
            Some("/a~1b/c~0d: expected a string"),
        ),
        (
            r#"{"properties":{"é":{"type":"string"}}}"#,
            r#"{"\u00e9":1}"#,
            Some("/é: expected a string"),
        ),
        (r#"{"required":["a"]}"#, r#"{"\u0061":1}"#, None),
        (r#"{"required":["a"]}"#, "[]", None),
        (
            r#"{"properties":{"a":{}},"additionalProperties":false}"#,
            r#"{"a":1,"b":2}"#,
            Some(r#"(root): unexpected property "b""#),
        ),
        (
            r#"{"properties":{"a":{}},"additionalProperties":false}"#,
            r#"{"a":1}"#,
            None,
        ),
        (
            r#"{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}"#,
            r#"{"a":"x","b":"y"}"#,
            Some("/b: expected an integer"),
        ),
        // patternProperties is not supported: additionalProperties is then not applied.
        (
            r#"{"patternProperties":{"^x":{}},"additionalProperties":false}"#,
            r#"{"y":1}"#,
            None,
        ),
        (
            r#"{"minProperties":2}"#,
            r#"{"a":1}"#,
            Some("(root): expected at least 2 properties"),
        ),
        (
            r#"{"maxProperties":1}"#,
            r#"{"a":1,"b":2}"#,
            Some("(root): expected at most 1 property"),
        ),
        (
            r#"{"dependentRequired":{"a":["b"]}}"#,
            r#"{"a":1}"#,
            Some(r#"(root): missing property "b" (required by "dependentRequired")"#),
        ),
        (r#"{"dependentRequired":{"a":["b"]}}"#, r#"{"c":1}"#, None),
        (
            r#"{"dependentSchemas":{"a":{"required":["b"]}}}"#,
            r#"{"a":1}"#,
            Some(r#"(root): missing required property "b""#),
        ),
        (
            r#"{"propertyNames":{"maxLength":2}}"#,
            r#"{"ab":1,"abc":2}"#,
            Some(r#"(root): property name "abc" is not allowed"#),
        ),
        (
            r#"{"propertyNames":{"enum":["a\"b"]}}"#,
            r#"{"a\"b":1}"#,
            None,
        ),
    ]);
}

#[test]
fn value_keywords() {
    run(&[
        (r#"{"enum":["phone","email"]}"#, r#""email""#, None),
        (
            r#"{"enum":["phone","email"]}"#,
            r#""fax""#,
            Some(r#"(root): expected one of ["phone","email"]"#),
        ),
        (r#"{"enum":[1,{"a":[true]}]}"#, r#"{"a":[true]}"#, None),
        (r#"{"const":1}"#, "1.0", None),
        (r#"{"const":{"a":1,"b":2}}"#, r#"{"b":2.0,"a":1}"#, None),
        (r#"{"const":"é"}"#, r#""\u00e9""#, None),
        (
            r#"{"const":1}"#,
            "true",
            Some("(root): expected the value 1"),
        ),
        (
            r#"{"const":[1,2]}"#,
            "[2,1]",
            Some("(root): expected the value [1,2]"),
        ),
        (r#"{"const":null}"#, "null", None),
    ]);
}

#[test]
fn number_keywords() {
    run(&[
        (r#"{"minimum":5}"#, "5", None),
        (
            r#"{"minimum":5}"#,
            "4.99",
            Some("(root): expected a number >= 5"),
        ),
        (r#"{"minimum":5}"#, r#""4""#, None),
        (
            r#"{"maximum":1.5}"#,
            "2",
            Some("(root): expected a number <= 1.5"),
        ),
        (
            r#"{"exclusiveMinimum":5}"#,
            "5",
            Some("(root): expected a number > 5"),
        ),
        (r#"{"exclusiveMinimum":5}"#, "5.0001", None),
        (
            r#"{"exclusiveMaximum":0}"#,
            "0",
            Some("(root): expected a number < 0"),
        ),
        (r#"{"exclusiveMaximum":0}"#, "-1e-9", None),
        // Draft-04 boolean forms.
        (
            r#"{"minimum":5,"exclusiveMinimum":true}"#,
            "5",
            Some("(root): expected a number > 5"),
        ),
        (r#"{"minimum":5,"exclusiveMinimum":false}"#, "5", None),
        (
            r#"{"maximum":5,"exclusiveMaximum":true}"#,
            "5",
            Some("(root): expected a number < 5"),
        ),
        (r#"{"exclusiveMaximum":true}"#, "500", None),
        // Exact for big integers.
        (
            r#"{"maximum":9007199254740992}"#,
            "9007199254740993",
            Some("(root): expected a number <= 9007199254740992"),
        ),
        (r#"{"multipleOf":3}"#, "9", None),
        (
            r#"{"multipleOf":3}"#,
            "10",
            Some("(root): expected a multiple of 3"),
        ),
        (r#"{"multipleOf":0.01}"#, "0.07", None),
        (
            r#"{"multipleOf":0.5}"#,
            "1.25",
            Some("(root): expected a multiple of 0.5"),
        ),
        (r#"{"multipleOf":2}"#, "4.0", None),
        (
            r#"{"multipleOf":1e-300}"#,
            "1e300",
            Some("(root): expected a multiple of 1e-300"),
        ),
    ]);
}

#[test]
fn string_keywords() {
    run(&[
        (r#"{"minLength":2}"#, r#""é😀""#, None),
        (
            r#"{"minLength":3}"#,
            r#""é😀""#,
            Some("(root): expected at least 3 characters"),
        ),
        (r#"{"maxLength":1}"#, r#""\ud83d\ude00""#, None),
        (
            r#"{"maxLength":1}"#,
            r#""\n\n""#,
            Some("(root): expected at most 1 character"),
        ),
        (r#"{"maxLength":1.0}"#, r#""a""#, None),
        (r#"{"minLength":1}"#, "5", None),
    ]);
}

#[test]
fn array_keywords() {
    run(&[
        (r#"{"items":{"type":"integer"}}"#, "[1,2,3]", None),
        (
            r#"{"items":{"type":"integer"}}"#,
            r#"[1,"x"]"#,
            Some("/1: expected an integer"),
        ),
        (
            r#"{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}"#,
            r#"["a",1]"#,
            None,
        ),
        (
            r#"{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}"#,
            r#"[1]"#,
            Some("/0: expected a string"),
        ),
        (
            r#"{"prefixItems":[{}],"items":false}"#,
            "[1,2]",
            Some("/1: no value is allowed here"),
        ),
        // Draft-07 tuple form and additionalItems.
        (
            r#"{"items":[{"type":"string"}],"additionalItems":false}"#,
            r#"["a"]"#,
            None,
        ),
        (
            r#"{"items":[{"type":"string"}],"additionalItems":false}"#,
            r#"["a",2]"#,
            Some("/1: no value is allowed here"),
        ),
        (
            r#"{"items":[{"type":"string"}]}"#,
            r#"[1]"#,
            Some("/0: expected a string"),
        ),
        (r#"{"additionalItems":false}"#, "[1]", None),
        (
            r#"{"minItems":2}"#,
            "[1]",
            Some("(root): expected at least 2 items"),
        ),
        (
            r#"{"maxItems":1}"#,
            "[1,2]",
            Some("(root): expected at most 1 item"),
        ),
        (
            r#"{"uniqueItems":true}"#,
            r#"[1,"1",true,[1],{"a":1}]"#,
            None,
        ),
        (
            r#"{"uniqueItems":true}"#,
            r#"[{"a":1,"b":2},0,{"b":2,"a":1.0}]"#,
            Some("(root): expected unique items (items 0 and 2 are equal)"),
        ),
        (r#"{"uniqueItems":false}"#, "[1,1]", None),
        (r#"{"contains":{"type":"string"}}"#, r#"[1,"a"]"#, None),
        (
            r#"{"contains":{"type":"string"}}"#,
            "[1,2]",
            Some(r#"(root): expected at least 1 item matching "contains""#),
        ),
        (
            r#"{"contains":{"type":"string"},"minContains":0}"#,
            "[1]",
            None,
        ),
        (
            r#"{"contains":{"type":"string"},"minContains":2}"#,
            r#"["a",1]"#,
            Some(r#"(root): expected at least 2 items matching "contains""#),
        ),
        (
            r#"{"contains":{"type":"string"},"maxContains":1}"#,
            r#"["a","b"]"#,
            Some(r#"(root): expected at most 1 item matching "contains""#),
        ),
        (r#"{"maxContains":0}"#, r#"["a"]"#, None),
    ]);
}

#[test]
fn applicators() {
    run(&[
        (
            r#"{"allOf":[{"type":"integer"},{"minimum":2}]}"#,
            "1",
            Some("(root): expected a number >= 2"),
        ),
        (
            r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#,
            "1",
            None,
        ),
        (
            r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#,
            "1.5",
            Some(r#"(root): expected to match at least one schema of "anyOf""#),
        ),
        (r#"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#, "1", None),
        (
            r#"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#,
            "3",
            Some(r#"(root): expected to match exactly one schema of "oneOf", matched several"#),
        ),
        (
            r#"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#,
            "1.5",
            Some(r#"(root): expected to match one schema of "oneOf", matched none"#),
        ),
        (r#"{"not":{"type":"string"}}"#, "1", None),
        (
            r#"{"not":{"type":"string"}}"#,
            r#""a""#,
            Some(r#"(root): expected not to match the schema of "not""#),
        ),
        (
            r#"{"if":{"minimum":10},"then":{"multipleOf":10},"else":{"maximum":5}}"#,
            "20",
            None,
        ),
        (
            r#"{"if":{"minimum":10},"then":{"multipleOf":10},"else":{"maximum":5}}"#,
            "15",
            Some("(root): expected a multiple of 10"),
        ),
        (
            r#"{"if":{"minimum":10},"then":{"multipleOf":10},"else":{"maximum":5}}"#,
            "7",
            Some("(root): expected a number <= 5"),
        ),
        (r#"{"then":false}"#, "1", None),
        (r#"true"#, "1", None),
        (r#"false"#, "1", Some("(root): no value is allowed here")),
        (
            r#"{"properties":{"a":false}}"#,
            r#"{"a":1}"#,
            Some("/a: no value is allowed here"),
        ),
        // The pointer of a discarded anyOf branch does not leak into later errors.
        (
            r#"{"properties":{"a":{"anyOf":[{"properties":{"b":{"type":"string"}}},{"type":"integer"}]}},"required":["z"]}"#,
            r#"{"a":{"b":"x"}}"#,
            Some(r#"(root): missing required property "z""#),
        ),
    ]);
}

#[test]
fn references() {
    run(&[
        (
            r##"{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}"##,
            r#"{"a":1}"#,
            Some("/a: expected a string"),
        ),
        (
            r##"{"definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s"}"##,
            "1",
            Some("(root): expected a string"),
        ),
        (
            r##"{"$defs":{"a/b":{"type":"string"}},"$ref":"#/$defs/a~1b"}"##,
            r#""x""#,
            None,
        ),
        (
            r##"{"$defs":{"%":{"type":"string"}},"$ref":"#/$defs/%25"}"##,
            "1",
            Some("(root): expected a string"),
        ),
        (
            r##"{"prefixItems":[{"type":"string"}],"items":{"$ref":"#/prefixItems/0"}}"##,
            r#"["a",1]"#,
            Some("/1: expected a string"),
        ),
        // A $ref into a non-schema place (an unknown keyword) is checked on its own.
        (
            r##"{"x":{"y":{"type":"null"}},"$ref":"#/x/y"}"##,
            "1",
            Some("(root): expected null"),
        ),
        // Siblings of $ref apply too (2020-12).
        (
            r##"{"$defs":{"i":{"type":"integer"}},"$ref":"#/$defs/i","minimum":3}"##,
            "2",
            Some("(root): expected a number >= 3"),
        ),
        // Recursion through the instance is fine while it stays within MAX_DEPTH.
        (
            r##"{"type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}"##,
            r#"{"next":{"next":{"v":"x"}}}"#,
            Some("/next/next/v: expected an integer"),
        ),
    ]);
}

#[test]
fn ref_cycles_and_depth_are_bounded() {
    for s in [
        r##"{"$ref":"#"}"##,
        r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
        r##"{"not":{"$ref":"#"}}"##,
        r##"{"anyOf":[{"$ref":"#"}]}"##,
    ] {
        let e = schema(s).validate(j("1")).unwrap_err();
        assert_eq!(e.expected(), Expected::TooDeep, "{s}");
        assert!(e.to_string().contains("nesting deeper"), "{e}");
    }
    // An instance deeper than the schema follows: each level costs two here (`items`,
    // then the `$ref` hop).
    let rec = schema(r##"{"items":{"$ref":"#"}}"##);
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH / 2), "]".repeat(MAX_DEPTH / 2));
    assert!(rec.validate(j(&ok)).is_ok());
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
    let e = rec.validate(j(&deep)).unwrap_err();
    assert_eq!(e.expected(), Expected::TooDeep);
    // A smaller bound for small stacks.
    let nested = schema(r#"{"properties":{"a":{"properties":{"b":{"type":"string"}}}}}"#);
    let i = j(r#"{"a":{"b":1}}"#);
    assert_eq!(
        nested.validate_within(i, 2).unwrap_err().to_string(),
        "/a/b: expected a string"
    );
    let e = nested.validate_within(i, 1).unwrap_err();
    assert_eq!((e.pointer(), e.expected()), ("/a/b", Expected::TooDeep));
    assert!(
        nested
            .validate_within(j(r#"{"a":{"b":"x"}}"#), usize::MAX)
            .is_ok()
    );
    // Deep equality is bounded as well.
    let deep_const = format!(
        r#"{{"const":{}1{}}}"#,
        "[".repeat(MAX_DEPTH + 2),
        "]".repeat(MAX_DEPTH + 2)
    );
    let spaced = format!(
        "{}1{}",
        "[ ".repeat(MAX_DEPTH + 2),
        "]".repeat(MAX_DEPTH + 2)
    );
    let e = schema(&deep_const).validate(j(&spaced)).unwrap_err();
    assert_eq!((e.keyword(), e.expected()), ("const", Expected::TooDeep));
}

#[test]
fn long_pointers_are_cut_with_a_marker() {
    let name = "k".repeat(100);
    let s = format!(
        r#"{{"properties":{{"{name}":{{"properties":{{"{name}":{{"type":"string"}}}}}}}}}}"#
    );
    let i = format!(r#"{{"{name}":{{"{name}":1}}}}"#);
    let e = schema(&s).validate(j(&i)).unwrap_err();
    assert!(e.pointer().ends_with('…'), "{}", e.pointer());
    assert!(e.pointer().len() <= POINTER_CAPACITY);
    assert!(e.pointer().starts_with(&format!("/{name}/k")));
    assert_eq!(e.keyword(), "type");
    assert_eq!(
        e.expected(),
        Expected::Type(picomcp::schema::Types::of_str("string").unwrap())
    );
}

#[test]
fn invalid_accessors() {
    let e = schema(r#"{"properties":{"a":{"required":["b"]}}}"#)
        .validate(j(r#"{"a":{}}"#))
        .unwrap_err();
    assert_eq!(
        (e.pointer(), e.keyword(), e.detail()),
        ("/a", "required", "b")
    );
    assert_eq!(e.expected(), Expected::Required);
    assert_eq!(
        format!("{e:?}"),
        r#"Invalid(/a: missing required property "b")"#
    );
}

#[test]
fn schema_errors() {
    let table: &[(&str, &str, &str)] = &[
        ("", "", "schema (root): not valid JSON: "),
        (
            "[]",
            "",
            "schema (root): expected a schema (an object or a boolean)",
        ),
        ("1", "", "schema (root): expected a schema"),
        (r#"{"type":"str"}"#, "/type", "\"type\" must be a type name"),
        (r#"{"type":[]}"#, "/type", "\"type\" must be a type name"),
        (
            r#"{"required":"a"}"#,
            "/required",
            "\"required\" must be an array of strings",
        ),
        (
            r#"{"required":[1]}"#,
            "/required",
            "\"required\" must be an array of strings",
        ),
        (
            r#"{"minimum":"1"}"#,
            "/minimum",
            "\"minimum\" must be a number",
        ),
        (
            r#"{"exclusiveMinimum":null}"#,
            "/exclusiveMinimum",
            "must be a number (or, draft-04, a boolean)",
        ),
        (r#"{"multipleOf":0}"#, "/multipleOf", "greater than 0"),
        (
            r#"{"minLength":-1}"#,
            "/minLength",
            "a non-negative integer",
        ),
        (r#"{"maxItems":1.5}"#, "/maxItems", "a non-negative integer"),
        (r#"{"uniqueItems":1}"#, "/uniqueItems", "a boolean"),
        (r#"{"enum":{}}"#, "/enum", "an array"),
        (r#"{"anyOf":[]}"#, "/anyOf", "a non-empty array of schemas"),
        (r#"{"allOf":{}}"#, "/allOf", "a non-empty array of schemas"),
        (
            r#"{"properties":[]}"#,
            "/properties",
            "an object of schemas",
        ),
        (
            r#"{"properties":{"a":1}}"#,
            "/properties/a",
            "expected a schema",
        ),
        (
            r#"{"$defs":{"x/y":{"not":3}}}"#,
            "/$defs/x~1y/not",
            "expected a schema",
        ),
        (r#"{"items":[1]}"#, "/items/0", "expected a schema"),
        (
            r#"{"dependentRequired":{"a":"b"}}"#,
            "/dependentRequired",
            "an object of arrays of strings",
        ),
        (r#"{"$ref":"other.json"}"#, "/$ref", "only local"),
        (
            r#"{"$ref":"https://example.com/s#/x"}"#,
            "/$ref",
            "only local",
        ),
        (r##"{"$ref":"#anchor"}"##, "/$ref", "anchor"),
        (r##"{"$ref":"#/$defs/nope"}"##, "/$ref", "does not resolve"),
        (
            r##"{"$ref":"#/enum/0","enum":[1]}"##,
            "/$ref",
            "expected a schema",
        ),
        (r#"{"$ref":1}"#, "/$ref", "\"$ref\" must be a string"),
        (
            r##"{"x":{"a":{"type":7}},"$ref":"#/x/a"}"##,
            "/$ref/type",
            "must be a type name",
        ),
    ];
    for &(s, at, msg) in table {
        let e = Schema::new(s).unwrap_err();
        assert_eq!(e.pointer(), at, "{s}");
        assert!(e.to_string().contains(msg), "{s}: {e}");
    }
    // Unknown and unsupported keywords are not checked.
    for s in [
        r#"{"pattern":7}"#,
        r#"{"patternProperties":1,"format":2,"title":[]}"#,
        r#"{"enum":[]}"#,
        r#"{"const":{"type":1}}"#,
    ] {
        assert!(Schema::new(s).is_ok(), "{s}");
    }
    // Subschemas nested deeper than MAX_DEPTH.
    let deep = format!(
        "{}{{}}{}",
        r#"{"not":"#.repeat(MAX_DEPTH + 1),
        "}".repeat(MAX_DEPTH + 1)
    );
    let e = Schema::new(&deep).unwrap_err();
    assert_eq!(e.kind(), SchemaErrorKind::TooDeep);
    let ok = format!(
        "{}{{}}{}",
        r#"{"not":"#.repeat(MAX_DEPTH),
        "}".repeat(MAX_DEPTH)
    );
    assert!(Schema::new(&ok).is_ok());
    // $ref chains outside the subschema tree terminate.
    let chain = r##"{"x":{"a":{"$ref":"#/x/b"},"b":{"$ref":"#/x/a"}},"$ref":"#/x/a"}"##;
    assert!(matches!(
        Schema::new(chain).unwrap_err().kind(),
        SchemaErrorKind::TooDeep | SchemaErrorKind::RefChainTooLong
    ));
    // A $ref cycle through the subschema tree is accepted (it is bounded at validation).
    assert!(Schema::new(r##"{"$ref":"#"}"##).is_ok());
}

#[test]
fn as_json_and_from_json() {
    let text = r#" {"type":"string"} "#;
    let s = Schema::from_json(j(text)).unwrap();
    assert_eq!(s.as_json().as_raw(), r#"{"type":"string"}"#);
    assert!(Schema::new("true").unwrap().validate(j("[1]")).is_ok());
}

#[test]
fn missing_defaults() {
    let s = schema(
        r##"{"$defs":{"n":{"type":"integer","default":3}},"properties":{"a":{"default":"x"},"b":{"type":"string"},"c":{"$ref":"#/$defs/n"},"d":{"default":{"k":[1]}}}}"##,
    );
    let got: Vec<(String, &str)> = s
        .missing_defaults(j(r#"{"d":null}"#))
        .map(|(k, v)| (k.to_string(), v.as_raw()))
        .collect();
    assert_eq!(got, [("a".to_owned(), r#""x""#), ("c".to_owned(), "3")]);
    assert_eq!(s.missing_defaults(j("[]")).count(), 0);
    // Through a top-level $ref.
    let s =
        schema(r##"{"$defs":{"args":{"properties":{"n":{"default":1}}}},"$ref":"#/$defs/args"}"##);
    assert_eq!(
        s.missing_defaults(j("{}"))
            .map(|(k, _)| k.to_string())
            .collect::<Vec<_>>(),
        ["n"]
    );
    // A cycle ends.
    assert_eq!(
        schema(r##"{"$ref":"#"}"##)
            .missing_defaults(j("{}"))
            .count(),
        0
    );
}

#[test]
fn demo_tool_schemas() {
    let echo = schema(
        r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to return"}},"required":["text"]}"#,
    );
    assert!(echo.validate(j(r#"{"text":"hello"}"#)).is_ok());
    assert_eq!(
        echo.validate(j(r#"{"text":1}"#)).unwrap_err().to_string(),
        "/text: expected a string"
    );
    let fixture = schema(
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##,
    );
    run_with(
        &fixture,
        &[
            (r#"{"name":"a","contactMethod":"phone","phone":"1"}"#, None),
            (
                r#"{"name":"a","email":"e@x","address":{"city":"Paris"}}"#,
                None,
            ),
            (
                r#"{"name":"a","email":"e@x","address":{"city":1}}"#,
                Some("/address/city: expected a string"),
            ),
            (
                r#"{"name":"a","contactMethod":"phone","email":"e"}"#,
                Some(r#"(root): missing required property "phone""#),
            ),
            (
                r#"{"name":"a"}"#,
                Some(r#"(root): expected to match at least one schema of "anyOf""#),
            ),
            (
                r#"{"email":"e","x":1}"#,
                Some(r#"(root): unexpected property "x""#),
            ),
            (
                r#"{"email":"e","contactMethod":"fax"}"#,
                Some(r#"/contactMethod: expected one of ["phone","email"]"#),
            ),
        ],
    );
}

fn run_with(s: &Schema<'_>, rows: &[(&str, Option<&str>)]) {
    for &(i, want) in rows {
        let got = s.validate(j(i)).map_err(|e| e.to_string());
        assert_eq!(got.as_ref().err().map(String::as_str), want, "instance {i}");
    }
}
