//! What a protocol revision changes, as data: one row per difference a host must know
//! (a field that exists or not, an error shape, a content type), with the set of revisions
//! that have it.
//!
//! Hosts ask [`Features::of`] instead of comparing revisions: a revision list written by
//! hand is easy to get wrong (a `>=` where a later revision removed the thing again:
//! batches in 2025-06-18, core tasks and -32042 in 2026-07-28). The C, Python and Node
//! bindings expose the same table by name.
//!
//! Sources: the digests of the specification (`DIGEST.md` §1 "What changed between
//! versions", §8 tools, §10 elicitation; `MODERN.md` §1, §8, §12) and the `schema.json`
//! of each revision (checked in under `tests/schema/<revision>/`). The test
//! `core/tests/features.rs` reads those schemas and checks every row that a schema can
//! show.

use core::fmt;

use super::{ProtocolVersion, Versions};
use crate::error::ErrorCode;
use ProtocolVersion::{V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28};

/// Revisions from `$first` on (the table reads better with ranges spelled out).
const fn from(first: ProtocolVersion) -> Versions {
    let mut bits = [ProtocolVersion::V2024_11_05; ProtocolVersion::ALL.len()];
    let mut n = 0;
    let mut i = 0;
    while i < ProtocolVersion::ALL.len() {
        if ProtocolVersion::ALL[i] as u8 >= first as u8 {
            bits[n] = ProtocolVersion::ALL[i];
            n += 1;
        }
        i += 1;
    }
    Versions::of(bits.split_at(n).0)
}

/// Exactly these revisions.
const fn only(v: ProtocolVersion) -> Versions {
    Versions::of(&[v])
}

macro_rules! features {
    ($( $(#[$doc:meta])* $var:ident = $name:literal, $versions:expr, $summary:literal; )*) => {
        /// One difference between protocol revisions (a row of [`FEATURES`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Feature { $( #[doc = concat!($summary, ".")] #[doc = ""] $(#[$doc])* $var, )* }

        /// The feature table: one row per difference (variant, snake_case name, revisions
        /// that have it, one-line summary), in [`Feature`] declaration order.
        pub const FEATURES: &[FeatureSpec] = &[
            $( FeatureSpec { feature: Feature::$var, name: $name, versions: $versions, summary: $summary }, )*
        ];
    };
}

/// One row of [`FEATURES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureSpec {
    /// The feature.
    pub feature: Feature,
    /// Its stable snake_case name (what the C, Python and Node bindings call it).
    pub name: &'static str,
    /// The revisions that have it.
    pub versions: Versions,
    /// What it is, in one line (the first line of the variant's documentation).
    pub summary: &'static str,
}

features! {
    /// JSON-RPC batches: a peer must accept an array of messages (and `initialize` must
    /// not be in one). Added in 2025-03-26, removed in 2025-06-18 (DIGEST §1, §2.4;
    /// `JSONRPCBatchRequest` exists only in the 2025-03-26 schema).
    Batches = "batches", only(V2025_03_26), "JSON-RPC batches (arrays of messages) must be accepted";
    /// `Tool.annotations` (`ToolAnnotations` hints: `readOnlyHint`, `destructiveHint`, ...),
    /// from 2025-03-26 (DIGEST §8.1).
    ToolAnnotations = "tool_annotations", from(V2025_03_26), "tools may carry `annotations` (behaviour hints)";
    /// `audio` content blocks in tool results, prompts and sampling messages, from
    /// 2025-03-26 (DIGEST §8.2; `AudioContent`).
    AudioContent = "audio_content", from(V2025_03_26), "`audio` content blocks";
    /// `message` in `notifications/progress`, from 2025-03-26 (DIGEST §6.2).
    ProgressMessage = "progress_message", from(V2025_03_26), "`notifications/progress` may carry `message`";
    /// `completion/complete` needs the server capability `completions`, from 2025-03-26;
    /// 2024-11-05 has no such capability and no gate (DIGEST §1, §5).
    CompletionsCapability = "completions_capability", from(V2025_03_26), "`completion/complete` needs the server capability `completions`";
    /// `title` on tools, resources, resource templates, prompts and `Implementation`,
    /// from 2025-06-18 (DIGEST §1 "Tool metadata", §7, §8.1). Leave it out before.
    Title = "title", from(V2025_06_18), "tools, resources, templates, prompts and `Implementation` may carry `title`";
    /// `Tool.outputSchema`, from 2025-06-18 (DIGEST §8.1, §8.3). Leave it out before.
    OutputSchema = "output_schema", from(V2025_06_18), "tools may carry `outputSchema`";
    /// `structuredContent` in `CallToolResult`, from 2025-06-18 (DIGEST §8.2, §8.3). Leave
    /// it out before (the text block carries the same data).
    StructuredContent = "structured_content", from(V2025_06_18), "tool results may carry `structuredContent`";
    /// `resource_link` content blocks, from 2025-06-18 (DIGEST §8.2; `ResourceLink`).
    ResourceLinks = "resource_links", from(V2025_06_18), "`resource_link` content blocks";
    /// `context.arguments` in `completion/complete` params, from 2025-06-18 (DIGEST §7).
    CompletionContext = "completion_context", from(V2025_06_18), "`completion/complete` params may carry `context`";
    /// Elicitation (`elicitation/create`; in 2026-07-28 an input request), from 2025-06-18
    /// (DIGEST §10; MODERN §8.3).
    Elicitation = "elicitation", from(V2025_06_18), "the server may ask the user for input (elicitation)";
    /// Elicitation modes: the client capability `elicitation.{form,url}` and URL-mode
    /// requests, from 2025-11-25 (DIGEST §10.2; `ElicitRequestURLParams`). 2025-06-18 has
    /// form-like requests only.
    ElicitationModes = "elicitation_modes", from(V2025_11_25), "elicitation has modes: the `elicitation.{form,url}` capability and URL-mode requests";
    /// Enum variants in elicitation forms (titled single-select, multi-select arrays,
    /// defaults), from 2025-11-25. 2025-06-18 allows only a flat schema with plain `enum`
    /// (+`enumNames`) strings (DIGEST §10.1, §10.2; `MultiSelectEnumSchema`).
    ElicitationEnums = "elicitation_enums", from(V2025_11_25), "elicitation forms may use titled and multi-select enums and defaults";
    /// `icons` on tools, resources, resource templates, prompts and `Implementation`, from
    /// 2025-11-25 (DIGEST §1; `Icon`). Leave them out before.
    Icons = "icons", from(V2025_11_25), "tools, resources, templates, prompts and `Implementation` may carry `icons`";
    /// Bad tool arguments are a tool execution error (a result with `isError: true`, so
    /// the model can correct itself, SEP-1303), from 2025-11-25. Before, answer JSON-RPC
    /// -32602 (DIGEST §8.4).
    ArgumentErrorsAsToolResults = "argument_errors_as_tool_results", from(V2025_11_25), "bad tool arguments are an `isError` tool result, not error -32602";
    /// Sampling with tools: `tools`/`toolChoice` params and `tool_use`/`tool_result`
    /// content (needs the client capability `sampling.tools`), from 2025-11-25 (DIGEST §9;
    /// `ToolUseContent`).
    SamplingTools = "sampling_tools", from(V2025_11_25), "sampling with tools (`tools`, `toolChoice`, `tool_use`/`tool_result` content)";
    /// An error response may leave out `id` when the request id could not be read, from
    /// 2025-11-25 (DIGEST §1, §2.3; `JSONRPCErrorResponse` does not require `id`).
    ErrorWithoutId = "error_without_id", from(V2025_11_25), "an error response may leave out `id` when the request id was unreadable";
    /// Core tasks (`tasks/*`, `params.task`, the `tasks` capability) exist only in
    /// 2025-11-25; 2026-07-28 moved them to an extension (DIGEST §11; MODERN §1, §14).
    Tasks = "tasks", only(V2025_11_25), "core tasks (the `tasks/...` methods, `params.task`, the `tasks` capability)";
    /// `Tool.execution` (`taskSupport`), only in 2025-11-25 (DIGEST §8.1; MODERN §1
    /// "`Tool.execution` removed").
    ToolExecution = "tool_execution", only(V2025_11_25), "tools may carry `execution` (`taskSupport`)";
    /// Error -32042 `URLElicitationRequiredError`, only in 2025-11-25 (DIGEST §5; MODERN
    /// §12: reserved, never reused).
    UrlElicitationRequiredError = "url_elicitation_required_error", only(V2025_11_25), "error -32042 (URL elicitation required) exists";
    /// The server sends requests (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`, `ping`) to the client: every legacy revision (DIGEST §4; the schema's
    /// `ServerRequest`). 2026-07-28 servers never do (MODERN §2.1).
    ServerRequests = "server_requests", Versions::LEGACY, "the server sends requests to the client (sampling, elicitation, roots, ping)";
    /// Multi round-trip requests: the server answers `tools/call`, `prompts/get` or
    /// `resources/read` with `resultType: "input_required"` and the client retries with
    /// `inputResponses`, from 2026-07-28 (MODERN §8; `InputRequiredResult`).
    InputRequired = "input_required", from(V2026_07_28), "the server asks for input with an `input_required` result (MRTR)";
    /// Every result carries `resultType`, and the complete results of `server/discover`
    /// and the list/read requests carry `ttlMs` and `cacheScope` (the core adds what a
    /// result lacks), from 2026-07-28 (MODERN §2.3, §7).
    ResultType = "result_type", from(V2026_07_28), "results carry `resultType`; cacheable results `ttlMs` and `cacheScope`";
    /// "Resource not found" is -32602 (`data: {uri}`), from 2026-07-28; before, -32002
    /// (DIGEST §5; MODERN §12). See [`Features::resource_not_found`].
    ResourceNotFoundInvalidParams = "resource_not_found_invalid_params", from(V2026_07_28), "\"resource not found\" is -32602 instead of -32002";
}

/// The `versions` column of [`FEATURES`] alone, as a `const` of its own: the revision
/// checks ([`Feature::in_version`], [`Features::of`]) then keep only these bytes in an
/// image, not every row's name and summary (about 2.6 KiB of text on a device).
const VERSIONS: [Versions; FEATURES.len()] = {
    let mut v = [Versions::NONE; FEATURES.len()];
    let mut i = 0;
    while i < FEATURES.len() {
        v[i] = FEATURES[i].versions;
        i += 1;
    }
    v
};

impl Feature {
    /// The table row of this feature.
    pub fn spec(self) -> &'static FeatureSpec {
        // The table lists every variant in declaration order.
        &FEATURES[self as usize]
    }

    /// The stable snake_case name, e.g. `"output_schema"`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The feature called `name`.
    pub fn from_name(name: &str) -> Option<Feature> {
        FEATURES.iter().find(|f| f.name == name).map(|f| f.feature)
    }

    /// The revisions that have this feature.
    pub fn versions(self) -> Versions {
        // The table lists every variant in declaration order.
        VERSIONS[self as usize]
    }

    /// True when revision `v` has this feature.
    pub fn in_version(self, v: ProtocolVersion) -> bool {
        self.versions().contains(v)
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The features of one protocol revision: a set of [`Feature`]s.
///
/// ```
/// use picomcp::protocol::{Feature, Features, ProtocolVersion};
/// let f = Features::of(ProtocolVersion::V2025_06_18);
/// assert!(f.has(Feature::OutputSchema));
/// assert!(!f.has(Feature::ArgumentErrorsAsToolResults));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Features(u64);

impl Features {
    /// What revision `v` has.
    pub fn of(v: ProtocolVersion) -> Features {
        let mut bits = 0;
        for (i, versions) in VERSIONS.iter().enumerate() {
            if versions.contains(v) {
                bits |= 1 << i;
            }
        }
        Features(bits)
    }

    /// True when the revision has `f`.
    pub fn has(self, f: Feature) -> bool {
        self.0 & (1 << f as u32) != 0
    }

    /// The features of the revision, in table order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        FEATURES
            .iter()
            .map(|s| s.feature)
            .filter(move |f| self.has(*f))
    }

    /// The code of "resource not found": -32602 from 2026-07-28, -32002 before.
    pub fn resource_not_found(self) -> ErrorCode {
        if self.has(Feature::ResourceNotFoundInvalidParams) {
            ErrorCode::INVALID_PARAMS
        } else {
            ErrorCode::RESOURCE_NOT_FOUND
        }
    }
}

impl ProtocolVersion {
    /// The features of this revision ([`Features::of`]).
    pub fn features(self) -> Features {
        Features::of(self)
    }

    /// True when this revision has `f`.
    pub fn has(self, f: Feature) -> bool {
        f.in_version(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_declaration_order_with_unique_names() {
        for (i, s) in FEATURES.iter().enumerate() {
            assert_eq!(s.feature as usize, i);
            assert_eq!(Feature::from_name(s.name), Some(s.feature));
            assert!(!s.versions.is_empty(), "{} is in no revision", s.name);
            assert!(s.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
        }
        assert!(FEATURES.len() <= 64);
    }

    #[test]
    fn ranges() {
        assert_eq!(from(V2025_11_25), Versions::of(&[V2025_11_25, V2026_07_28]));
        assert_eq!(from(ProtocolVersion::V2024_11_05), Versions::ALL);
    }

    #[test]
    fn resource_not_found_code() {
        assert_eq!(
            Features::of(V2025_11_25).resource_not_found(),
            ErrorCode::RESOURCE_NOT_FOUND
        );
        assert_eq!(
            Features::of(V2026_07_28).resource_not_found(),
            ErrorCode::INVALID_PARAMS
        );
    }
}
