//! The official JSON-Schema-Test-Suite (draft 2020-12) cases for the keywords
//! `picomcp::schema` supports (data: tests/data/json-schema-test-suite/, see its README).
//! Every case runs except the ones in `SKIP`, each with its reason.

use picomcp::json::Json;
use picomcp::schema::Schema;

/// (file, group description, test description or "" for the whole group, reason).
const SKIP: &[(&str, &str, &str, &str)] = &[
    (
        "additionalProperties",
        "additionalProperties being false does not allow other properties",
        "",
        "patternProperties (not supported): additionalProperties is then not applied",
    ),
    (
        "additionalProperties",
        "non-ASCII pattern with additionalProperties",
        "",
        "patternProperties (not supported): additionalProperties is then not applied",
    ),
    (
        "properties",
        "properties, patternProperties, additionalProperties interaction",
        "",
        "patternProperties (not supported)",
    ),
    (
        "propertyNames",
        "propertyNames validation with pattern",
        "",
        "pattern (not supported)",
    ),
    (
        "not",
        "collect annotations inside a 'not', even if collection is disabled",
        "",
        "unevaluatedProperties (not supported)",
    ),
    (
        "ref",
        "ref creates new scope when adjacent to keywords",
        "",
        "unevaluatedProperties (not supported)",
    ),
    (
        "ref",
        "remote ref, containing refs itself",
        "",
        "remote $ref (the metaschema)",
    ),
    (
        "ref",
        "Recursive references between schemas",
        "",
        "$id + relative $ref",
    ),
    (
        "ref",
        "refs with relative uris and defs",
        "",
        "$id + relative $ref",
    ),
    (
        "ref",
        "relative refs with absolute uris and defs",
        "",
        "$id + relative $ref",
    ),
    (
        "ref",
        "$id must be resolved against nearest parent, not just immediate parent",
        "",
        "$id + relative $ref",
    ),
    (
        "ref",
        "order of evaluation: $id and $ref",
        "",
        "$id + relative $ref",
    ),
    (
        "ref",
        "order of evaluation: $id and $anchor and $ref",
        "",
        "$anchor reference",
    ),
    (
        "ref",
        "order of evaluation: $id and $ref on nested schema",
        "",
        "$id + relative $ref",
    ),
    (
        "ref",
        "simple URN base URI with $ref via the URN",
        "",
        "URN $id + $ref",
    ),
    (
        "ref",
        "URN base URI with URN and JSON pointer ref",
        "",
        "URN $id + $ref",
    ),
    (
        "ref",
        "URN base URI with URN and anchor ref",
        "",
        "URN $id + $ref",
    ),
    (
        "ref",
        "URN ref with nested pointer ref",
        "",
        "URN $id + $ref",
    ),
    ("ref", "ref to if", "", "$id + absolute $ref"),
    ("ref", "ref to then", "", "$id + absolute $ref"),
    ("ref", "ref to else", "", "$id + absolute $ref"),
    (
        "ref",
        "ref with absolute-path-reference",
        "",
        "$id + absolute-path $ref",
    ),
];

#[test]
fn json_schema_test_suite() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/json-schema-test-suite"
    );
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut passed, mut skips, mut failures) = (0, 0, Vec::new());
    let mut used_skips = vec![false; SKIP.len()];
    for path in &files {
        let file = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let doc = Json::with_max_depth(&text, 256).unwrap();
        for group in doc.elements() {
            let gdesc = group
                .get("description")
                .unwrap()
                .as_str()
                .unwrap()
                .to_string();
            let schema = Schema::from_json(group.get("schema").unwrap());
            for case in group.get("tests").unwrap().elements() {
                let tdesc = case
                    .get("description")
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string();
                if let Some(i) = SKIP.iter().position(|(f, g, t, _)| {
                    *f == file && *g == gdesc && (t.is_empty() || *t == tdesc)
                }) {
                    used_skips[i] = true;
                    skips += 1;
                    continue;
                }
                let want = case.get("valid").unwrap().as_bool().unwrap();
                let data = case.get("data").unwrap();
                let got = match &schema {
                    Ok(s) => s.validate(data).map_err(|e| e.to_string()),
                    Err(e) => {
                        failures.push(format!("{file} / {gdesc} / {tdesc}: schema refused: {e}"));
                        continue;
                    }
                };
                if got.is_ok() == want {
                    passed += 1;
                } else {
                    failures.push(format!(
                        "{file} / {gdesc} / {tdesc}: want valid={want}, got {got:?}"
                    ));
                }
            }
        }
    }
    for (i, used) in used_skips.iter().enumerate() {
        assert!(used, "skip entry matches no case: {:?}", SKIP[i]);
    }
    eprintln!("JSON-Schema-Test-Suite: {passed} passed, {skips} skipped");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
