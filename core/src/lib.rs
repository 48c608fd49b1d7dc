#![doc = include_str!("../README.md")]
#![no_std]
#![forbid(unsafe_code)]
#![warn(
    missing_docs,
    unreachable_pub,
    elided_lifetimes_in_paths,
    clippy::std_instead_of_core,
    clippy::alloc_instead_of_core
)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod device;
pub mod error;
pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod json;
pub mod jsonrpc;
mod limits;
pub mod protocol;
pub mod schema;
#[cfg(feature = "server")]
pub mod server;
pub mod session;
pub mod uri;

pub use error::{ErrorCode, InsufficientSize};
pub use limits::Limits;
