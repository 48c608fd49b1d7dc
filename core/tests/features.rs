//! `Features::of` and `Caps::defined_in` against the official schema of each revision
//! (tests/schema/<rev>/), and the facts no schema shows against a table written from the
//! digests.

use picomcp::json::Json;
use picomcp::protocol::{Caps, FEATURES, Feature, Features, ProtocolVersion};

fn schema(v: ProtocolVersion) -> String {
    let path = format!(
        "{}/../tests/schema/{}/schema.json",
        env!("CARGO_MANIFEST_DIR"),
        v.as_str()
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `$defs` (2025-11-25 on) or `definitions` (before).
fn defs(root: Json<'_>) -> Json<'_> {
    root.get("$defs")
        .or_else(|| root.get("definitions"))
        .expect("schema without definitions")
}

fn path<'a>(mut j: Json<'a>, keys: &[&str]) -> Option<Json<'a>> {
    for k in keys {
        j = j.get(k)?;
    }
    Some(j)
}

/// The properties of a definition's params, inline (older schemas) or in `<Name>Params`.
fn has_param(d: Json<'_>, request: &str, param: &str) -> bool {
    path(d, &[request, "properties", "params", "properties", param]).is_some()
        || path(d, &[&format!("{request}Params"), "properties", param]).is_some()
}

/// What the schema of `v` says about `f`, for the features a schema can show.
fn in_schema(f: Feature, d: Json<'_>) -> Option<bool> {
    let def = |name: &str| d.get(name).is_some();
    let prop = |ty: &str, p: &str| path(d, &[ty, "properties", p]).is_some();
    Some(match f {
        Feature::Batches => def("JSONRPCBatchRequest"),
        Feature::ToolAnnotations => prop("Tool", "annotations"),
        Feature::AudioContent => def("AudioContent"),
        Feature::ProgressMessage => has_param(d, "ProgressNotification", "message"),
        Feature::CompletionsCapability => prop("ServerCapabilities", "completions"),
        Feature::Title => prop("Tool", "title") && prop("Prompt", "title"),
        Feature::OutputSchema => prop("Tool", "outputSchema"),
        Feature::StructuredContent => prop("CallToolResult", "structuredContent"),
        Feature::ResourceLinks => def("ResourceLink"),
        Feature::CompletionContext => has_param(d, "CompleteRequest", "context"),
        Feature::Elicitation => def("ElicitRequest"),
        Feature::ElicitationModes => def("ElicitRequestURLParams"),
        Feature::ElicitationEnums => def("MultiSelectEnumSchema"),
        Feature::Icons => prop("Tool", "icons") && prop("Implementation", "icons"),
        Feature::SamplingTools => def("ToolUseContent"),
        Feature::ErrorWithoutId => {
            let err = d
                .get("JSONRPCErrorResponse")
                .or_else(|| d.get("JSONRPCError"))?;
            !err.get("required")?
                .elements()
                .any(|r| r.as_str().is_some_and(|s| s.eq_str("id")))
        }
        Feature::Tasks => prop("ClientCapabilities", "tasks"),
        Feature::ToolExecution => prop("Tool", "execution"),
        Feature::UrlElicitationRequiredError => def("URLElicitationRequiredError"),
        Feature::ServerRequests => def("ServerRequest"),
        Feature::InputRequired => def("InputRequiredResult"),
        Feature::ResultType => prop("CallToolResult", "resultType"),
        // Error codes and tool-error conventions are prose, not schema.
        Feature::ArgumentErrorsAsToolResults | Feature::ResourceNotFoundInvalidParams => {
            return None;
        }
        _ => return None,
    })
}

#[test]
fn every_schema_visible_feature_matches_the_schema_of_each_revision() {
    let mut checked = 0;
    for v in ProtocolVersion::ALL {
        let text = schema(v);
        let root = Json::with_max_depth(&text, 256).unwrap();
        let d = defs(root);
        let features = Features::of(v);
        for spec in FEATURES {
            if let Some(want) = in_schema(spec.feature, d) {
                assert_eq!(
                    features.has(spec.feature),
                    want,
                    "{} in {v}: the schema says {want}",
                    spec.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 5 * 20, "only {checked} facts checked");
}

/// The facts from prose, per revision: (feature, [2024-11-05, 2025-03-26, 2025-06-18,
/// 2025-11-25, 2026-07-28]).
const PROSE: &[(Feature, [bool; 5])] = &[
    // DIGEST §8.4: 2025-11-25 settles argument errors as tool execution errors.
    (
        Feature::ArgumentErrorsAsToolResults,
        [false, false, false, true, true],
    ),
    // DIGEST §5, MODERN §12: -32002 up to 2025-11-25, -32602 from 2026-07-28.
    (
        Feature::ResourceNotFoundInvalidParams,
        [false, false, false, false, true],
    ),
];

#[test]
fn prose_facts_per_revision() {
    for (f, row) in PROSE {
        for (v, want) in ProtocolVersion::ALL.iter().zip(row) {
            assert_eq!(f.in_version(*v), *want, "{f} in {v}");
            assert_eq!(v.has(*f), *want);
        }
    }
}

#[test]
fn every_feature_is_checked_somewhere() {
    let d_text = schema(ProtocolVersion::V2025_11_25);
    let d = defs(Json::with_max_depth(&d_text, 256).unwrap());
    for spec in FEATURES {
        let by_schema = in_schema(spec.feature, d).is_some();
        let by_prose = PROSE.iter().any(|(f, _)| *f == spec.feature);
        assert!(
            by_schema || by_prose,
            "{}: add a schema check or a prose row",
            spec.name
        );
    }
}

#[test]
fn iter_lists_what_has_says() {
    for v in ProtocolVersion::ALL {
        let f = Features::of(v);
        let listed: Vec<Feature> = f.iter().collect();
        for spec in FEATURES {
            assert_eq!(listed.contains(&spec.feature), f.has(spec.feature));
        }
    }
}

/// True when `ClientCapabilities` or `ServerCapabilities` has the member `outer` (and, with
/// `inner`, the member `inner` inside it).
fn capability_in_schema(d: Json<'_>, outer: &str, inner: Option<&str>) -> bool {
    ["ClientCapabilities", "ServerCapabilities"]
        .iter()
        .any(|c| match (path(d, &[c, "properties", outer]), inner) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(m), Some(i)) => path(m, &["properties", i]).is_some(),
        })
}

/// The capability flags each revision defines (what a session keeps of a peer's
/// capabilities, `Caps::in_version`) are the members of its schema's capabilities objects.
#[test]
fn defined_capabilities_match_the_schema_of_each_revision() {
    for v in ProtocolVersion::ALL {
        let text = schema(v);
        let d = defs(Json::with_max_depth(&text, 256).unwrap());
        let defined = Caps::defined_in(v);
        for (flag, name, inner, _) in Caps::MEMBERS {
            let want = capability_in_schema(d, name, None);
            assert_eq!(defined.contains(flag), want, "{name} in {v}");
            for (i, n) in inner {
                let want = capability_in_schema(d, name, Some(n));
                assert_eq!(defined.contains(*i), want, "{name}.{n} in {v}");
            }
        }
    }
}
