//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1): the
//! `Bearer` challenge of a 401 or 403 and its `resource_metadata`, `scope` and `error`.
//!
//! The header may hold several challenges (`Basic realm="x", Bearer scope="a"`) and may
//! be sent on several lines; parameters come in any order, their names match
//! case-insensitively, and values are tokens or quoted strings with `\` escapes. The
//! parser borrows the header text and never allocates: a value with escapes is copied
//! out with [`ParamValue::unescape`].

use crate::InsufficientSize;

/// One parameter value of a challenge, borrowed from the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamValue<'a> {
    /// The text as written, without the surrounding quotes of a quoted string.
    raw: &'a str,
    /// Whether `raw` holds `\` escapes (only possible in a quoted string).
    escaped: bool,
}

impl<'a> ParamValue<'a> {
    /// The value, when it has no escapes (the common case: URLs and scope lists).
    pub fn as_str(&self) -> Option<&'a str> {
        (!self.escaped).then_some(self.raw)
    }

    /// The value with its escapes removed, in `out` when there were any.
    pub fn unescape<'b>(&self, out: &'b mut [u8]) -> Result<&'b str, InsufficientSize>
    where
        'a: 'b,
    {
        if !self.escaped {
            return Ok(self.raw);
        }
        let mut n = 0;
        let mut bytes = self.raw.bytes();
        while let Some(b) = bytes.next() {
            let b = if b == b'\\' {
                bytes.next().unwrap_or(b)
            } else {
                b
            };
            if n == out.len() {
                return Err(InsufficientSize {
                    required: self.raw.len(),
                });
            }
            out[n] = b;
            n += 1;
        }
        // Escapes only remove ASCII backslashes before a byte, so the rest stays UTF-8.
        core::str::from_utf8(&out[..n]).map_err(|_| InsufficientSize { required: 0 })
    }
}

/// One challenge: its scheme and its parameters (or token68).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Challenge<'a> {
    /// The auth scheme as written (`Bearer`); compare with
    /// [`str::eq_ignore_ascii_case`].
    pub scheme: &'a str,
    /// The parameter list as written (empty for a token68 or bare challenge).
    params: &'a str,
    /// A token68 instead of parameters (`Basic dXNlcjpwYXNz`).
    pub token68: Option<&'a str>,
}

impl<'a> Challenge<'a> {
    /// The value of parameter `name` (case-insensitive), when present and well formed.
    pub fn param(&self, name: &str) -> Option<ParamValue<'a>> {
        let mut at = 0;
        while let Some((n, v, next)) = param_at(self.params, at) {
            if n.eq_ignore_ascii_case(name) {
                return Some(v);
            }
            at = next;
        }
        None
    }

    /// `resource_metadata`: the URL of the protected resource metadata (RFC 9728 §5.1).
    pub fn resource_metadata(&self) -> Option<ParamValue<'a>> {
        self.param("resource_metadata")
    }

    /// `scope`: the space-delimited scopes the request needs (RFC 6750 §3).
    pub fn scope(&self) -> Option<ParamValue<'a>> {
        self.param("scope")
    }

    /// `error`: `invalid_request`, `invalid_token` or `insufficient_scope`.
    pub fn error(&self) -> Option<ParamValue<'a>> {
        self.param("error")
    }

    /// Whether `error="insufficient_scope"` (the step-up trigger of a 403).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error()
            .and_then(|e| e.as_str())
            .is_some_and(|e| e == "insufficient_scope")
    }
}

/// Why a header value is not a list of challenges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MalformedChallenge {
    /// Byte offset of the first character that does not fit the grammar.
    pub at: usize,
}

/// The challenges of one `WWW-Authenticate` value, in order. A malformed part ends the
/// iteration with an `Err`.
pub fn challenges(value: &str) -> Challenges<'_> {
    Challenges {
        text: value,
        at: 0,
        failed: false,
    }
}

/// The first `Bearer` challenge among several `WWW-Authenticate` values (header lines),
/// skipping malformed ones: a server's bad header is treated as no challenge.
pub fn find_bearer<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge<'a>> {
    values.into_iter().find_map(|v| {
        challenges(v)
            .map_while(Result::ok)
            .find(|c| c.scheme.eq_ignore_ascii_case("Bearer"))
    })
}

/// Iterator of [`challenges`].
#[derive(Clone, Debug)]
pub struct Challenges<'a> {
    text: &'a str,
    at: usize,
    failed: bool,
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && (s[i] == b' ' || s[i] == b'\t') {
        i += 1;
    }
    i
}

fn token_end(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && is_tchar(s[i]) {
        i += 1;
    }
    i
}

/// The parameter at `at` in `params`: name, value, and where the next one starts.
fn param_at(params: &str, at: usize) -> Option<(&str, ParamValue<'_>, usize)> {
    let s = params.as_bytes();
    let mut i = at;
    while i < s.len() && (s[i] == b',' || s[i] == b' ' || s[i] == b'\t') {
        i += 1;
    }
    let start = i;
    i = token_end(s, i);
    if i == start {
        return None;
    }
    let name = &params[start..i];
    i = skip_ws(s, i);
    if s.get(i) != Some(&b'=') {
        return None;
    }
    i = skip_ws(s, i + 1);
    let (value, end) = value_at(params, i)?;
    Some((name, value, end))
}

/// A token or quoted-string value at `i`; returns it and the index after it.
fn value_at(text: &str, i: usize) -> Option<(ParamValue<'_>, usize)> {
    let s = text.as_bytes();
    if s.get(i) == Some(&b'"') {
        let mut j = i + 1;
        let mut escaped = false;
        while j < s.len() {
            match s[j] {
                b'\\' => {
                    escaped = true;
                    j += 2;
                }
                b'"' => {
                    let raw = &text[i + 1..j];
                    return Some((ParamValue { raw, escaped }, j + 1));
                }
                _ => j += 1,
            }
        }
        None
    } else {
        let end = token_end(s, i);
        (end > i).then(|| {
            (
                ParamValue {
                    raw: &text[i..end],
                    escaped: false,
                },
                end,
            )
        })
    }
}

impl<'a> Iterator for Challenges<'a> {
    type Item = Result<Challenge<'a>, MalformedChallenge>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let text = self.text;
        let s = text.as_bytes();
        let mut i = self.at;
        while i < s.len() && (s[i] == b',' || s[i] == b' ' || s[i] == b'\t') {
            i += 1;
        }
        if i == s.len() {
            return None;
        }
        let fail = |this: &mut Self, at: usize| {
            this.failed = true;
            Some(Err(MalformedChallenge { at }))
        };
        let start = i;
        i = token_end(s, i);
        if i == start {
            return fail(self, i);
        }
        let scheme = &text[start..i];
        let mut challenge = Challenge {
            scheme,
            params: "",
            token68: None,
        };
        let after_scheme = i;
        i = skip_ws(s, i);
        if i == after_scheme || i == s.len() || s[i] == b',' {
            // A bare scheme.
            self.at = i;
            return Some(Ok(challenge));
        }
        // token68: its characters, then `=` padding, then the end or a comma.
        let mut j = i;
        while j < s.len() && is_token68(s[j]) {
            j += 1;
        }
        let chars_end = j;
        while j < s.len() && s[j] == b'=' {
            j += 1;
        }
        let k = skip_ws(s, j);
        if chars_end > i && (k == s.len() || s[k] == b',') {
            challenge.token68 = Some(&text[i..j]);
            self.at = k;
            return Some(Ok(challenge));
        }
        // auth-params until the end or the start of the next challenge.
        let params_start = i;
        let mut at = i;
        loop {
            let Some((_, _, end)) = param_at(text, at) else {
                return fail(self, at);
            };
            let mut n = skip_ws(s, end);
            if n == s.len() {
                challenge.params = &text[params_start..n];
                self.at = n;
                return Some(Ok(challenge));
            }
            if s[n] != b',' {
                return fail(self, n);
            }
            let comma = n;
            while n < s.len() && (s[n] == b',' || s[n] == b' ' || s[n] == b'\t') {
                n += 1;
            }
            let t = token_end(s, n);
            let after = skip_ws(s, t);
            if n == s.len() || (t > n && s.get(after) != Some(&b'=')) {
                // The next challenge's scheme (or a trailing comma).
                challenge.params = &text[params_start..comma];
                self.at = comma;
                return Some(Ok(challenge));
            }
            at = comma;
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn s<'a>(v: Option<ParamValue<'a>>) -> Option<&'a str> {
        v.and_then(|v| v.as_str())
    }

    #[test]
    fn mcp_challenges() {
        let h = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#;
        let c = find_bearer([h]).unwrap();
        assert_eq!(
            s(c.resource_metadata()),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(s(c.scope()), Some("files:read"));
        assert!(!c.is_insufficient_scope());
        // The conformance step-up mock's order, names in another case.
        let h = r#"Bearer Scope="mcp:basic mcp:write", RESOURCE_METADATA="http://localhost:1/.well-known/oauth-protected-resource/mcp", error="insufficient_scope""#;
        let c = find_bearer([h]).unwrap();
        assert_eq!(s(c.scope()), Some("mcp:basic mcp:write"));
        assert!(c.is_insufficient_scope());
        // A token value, no spaces around `=` needed either way.
        let c = find_bearer(["Bearer error = invalid_token ,realm=x"]).unwrap();
        assert_eq!(s(c.error()), Some("invalid_token"));
        assert_eq!(s(c.param("realm")), Some("x"));
        assert_eq!(c.resource_metadata(), None);
    }

    #[test]
    fn several_challenges_and_lines() {
        let h = r#"Basic realm="a, b", Negotiate abc==, Bearer scope="s1 s2", error="insufficient_scope", Digest nonce="1""#;
        let all: Vec<_> = challenges(h).collect();
        let schemes: Vec<_> = all.iter().map(|c| c.unwrap().scheme).collect();
        assert_eq!(schemes, ["Basic", "Negotiate", "Bearer", "Digest"]);
        assert_eq!(all[1].unwrap().token68, Some("abc=="));
        assert_eq!(s(all[0].unwrap().param("realm")), Some("a, b"));
        let b = find_bearer([h]).unwrap();
        assert_eq!(s(b.scope()), Some("s1 s2"));
        assert_eq!(b.param("nonce"), None);
        // Several header lines: the Bearer one is found on the second.
        let b = find_bearer(["Basic realm=\"x\"", "bearer scope=\"z\""]).unwrap();
        assert_eq!(s(b.scope()), Some("z"));
        // A bare scheme.
        let b = find_bearer(["Bearer"]).unwrap();
        assert_eq!(b.scope(), None);
    }

    #[test]
    fn escapes() {
        let c = find_bearer([r#"Bearer error_description="say \"hi\"\\", scope="a""#]).unwrap();
        let v = c.param("error_description").unwrap();
        assert_eq!(v.as_str(), None);
        let mut buf = [0u8; 32];
        assert_eq!(v.unescape(&mut buf), Ok(r#"say "hi"\"#));
        let mut small = [0u8; 3];
        assert!(v.unescape(&mut small).is_err());
        assert_eq!(s(c.scope()), Some("a"));
    }

    #[test]
    fn malformed() {
        for bad in [
            "Bearer scope=\"unterminated",
            "Bearer a=b c",
            "Bearer a=\"x\" b",
            "\"x\"",
        ] {
            assert!(challenges(bad).any(|c| c.is_err()), "{bad}");
            assert_eq!(find_bearer([bad]).and_then(|c| s(c.scope())), None, "{bad}");
        }
        // `scope=` alone is a token68, not a parameter.
        assert_eq!(
            find_bearer(["Bearer scope="]).unwrap().token68,
            Some("scope=")
        );
        assert_eq!(challenges("").count(), 0);
        assert_eq!(challenges(" , ").count(), 0);
    }
}
