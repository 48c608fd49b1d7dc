//! The rules of an MCP client's authorization (OAuth 2.1, the MCP authorization chapter
//! of 2025-03-26 to 2026-07-28), sans-IO: pure functions over the caller's text and
//! buffers, no heap. A host (the probe through `picomcp-oauth`, a C host, a device) does
//! the fetching, the clock, the randomness and the browser; every decision the spec makes
//! is here, once:
//!
//! - [`challenge`]: the `WWW-Authenticate` challenge of a 401 or 403 (`resource_metadata`,
//!   `scope`, `error`), parsed order- and case-independently, with several challenges and
//!   quoted-string escapes.
//! - [`urls`]: where the protected resource metadata is looked for ([`urls::prm_sources`]:
//!   the challenge's URL, else path-inserted then root well-known), the authorization
//!   server metadata URLs of an issuer ([`urls::metadata_sources`]: RFC 8414 then OpenID,
//!   path-inserted, never the root for an issuer with a path), the 2025-03-26 fallback
//!   endpoints, the canonical resource URI (RFC 8707), the PRM `resource` check, and
//!   which URLs may be fetched at all ([`urls::check_endpoint`]: HTTPS, or HTTP to
//!   loopback; [`urls::classify_ip`] for the SSRF rule on resolved addresses).
//! - [`policy`]: scope selection (challenge, then `scopes_supported`, then none), the
//!   step-up union, `offline_access` gating, [`policy::decide`] (authorize, step up, or
//!   give up, with a cap on attempts), the token endpoint's client authentication, the
//!   PKCE precondition, and the checks of an authorization response (`state`, expiry,
//!   RFC 9207 `iss`).
//!
//! The flows themselves (HTTP requests, PKCE, the token exchange) are the host's; the
//! std one is the `picomcp-oauth` crate of this repository.

pub mod challenge;
pub mod policy;
pub mod urls;
