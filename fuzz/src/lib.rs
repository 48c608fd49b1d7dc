//! Shared code of the picomcp fuzz targets. Each target in `fuzz_targets/` is one line
//! that calls a `run` function here; the invariants are documented on those functions and
//! in `docs/RELIABILITY.md`.
//!
//! Input layouts (all targets accept any bytes; the layouts only give the bytes meaning):
//! - `framing`: `[cap] [flags] [split offsets: 2 bytes each] stream...`
//! - `json_scanner`: the JSON text itself.
//! - `float`: `[8 bytes: an f64's bits] number text...` (see [`float`]).
//! - `json_scanner`, `canonical`: the JSON text itself.
//! - `jsonrpc_parse`: `[limits selector] line...`
//! - `uri_template`: `template \0 uri` (see [`uri_template`]).
//! - `roots`: `[rules] roots (newline-separated) \0 target` (see [`roots`]).
//! - `schema_validate`: `schema \0 instance` (see [`schema_validate`]).
//! - `server_session` / `client_session`: `[config] [chunk seed] command...` (see
//!   [`session`]).
//! - `server_layer`: `[mode] [answer seed] line...` (see [`server_layer`]).
//! - `http_codec`: `[flags] [split seed] stream...` (see [`http_codec`]).
//! - `http_endpoint`: requests separated by `0xFF`, each `[op] body...` (see
//!   [`http_endpoint`]).
//! - `http_auth`: requests separated by `0xFF`, each `[op] target \0 authorization \0
//!   body` (see [`http_auth`]).

pub mod float;
pub mod canonical;
pub mod framing;
pub mod http_auth;
pub mod http_codec;
pub mod http_endpoint;
pub mod json_scanner;
pub mod jsonrpc_parse;
pub mod server_layer;
pub mod roots;
pub mod schema_validate;
pub mod session;
pub mod uri_template;
pub mod wire;

/// A tiny deterministic generator (xorshift64*), for choices derived from the input.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `1..=max` (max ≥ 1).
    pub fn size(&mut self, max: usize) -> usize {
        1 + (self.next_u64() % max as u64) as usize
    }
}
