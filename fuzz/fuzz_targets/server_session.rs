#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| picomcp_fuzz::session::run(picomcp::protocol::Role::Server, data));
