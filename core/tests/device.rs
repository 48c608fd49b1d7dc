//! `picomcp::device`: a session served over an in-memory port that implements the
//! `embedded_io` traits the way a UART driver does (short reads and writes, "nothing
//! ready", end of input as `read` → 0).

use core::convert::Infallible;

use embedded_io::{ErrorKind, ErrorType, Read, ReadReady, Write};
use picomcp::device::{Device, DeviceError, Status};
use picomcp::json::Json;
use picomcp::protocol::Method;
use picomcp::session::{Config, Event, Phase, Session, StaticStorage};

/// An in-memory serial port: `input` is delivered in pieces of at most `read_max`
/// bytes, `gaps` steps of "nothing ready" between pieces; writes accept at most
/// `write_max` bytes per call.
struct Port {
    input: Vec<u8>,
    at: usize,
    read_max: usize,
    gaps: usize,
    wait: usize,
    /// End of input once `input` is used up (otherwise the line stays silent).
    eof: bool,
    output: Vec<u8>,
    write_max: usize,
    flushed: bool,
}

impl Port {
    fn new(input: &str) -> Self {
        Port {
            input: input.as_bytes().to_vec(),
            at: 0,
            read_max: 7,
            gaps: 2,
            wait: 0,
            eof: true,
            output: Vec::new(),
            write_max: 5,
            flushed: false,
        }
    }

    fn lines(&self) -> Vec<serde_json::Value> {
        std::str::from_utf8(&self.output)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl ErrorType for Port {
    type Error = Infallible;
}

impl ReadReady for Port {
    fn read_ready(&mut self) -> Result<bool, Infallible> {
        if self.at == self.input.len() {
            return Ok(self.eof);
        }
        if self.wait > 0 {
            self.wait -= 1;
            return Ok(false);
        }
        Ok(true)
    }
}

impl Read for Port {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let n = buf.len().min(self.read_max).min(self.input.len() - self.at);
        buf[..n].copy_from_slice(&self.input[self.at..self.at + n]);
        self.at += n;
        self.wait = self.gaps;
        Ok(n)
    }
}

impl Write for Port {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        let n = buf.len().min(self.write_max);
        self.output.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        self.flushed = true;
        Ok(())
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn script(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Answers `tools/list` with an empty list and every other request with -32601, the
/// way a board's handler does: take the event, drop it, answer.
fn handler(s: &mut Session<'_>) {
    while let Some(event) = s.poll_event() {
        let Event::Request { id, method, .. } = event else {
            continue;
        };
        if method == Method::ToolsList {
            s.respond(id, Json::new(r#"{"tools":[]}"#).unwrap())
                .unwrap();
        } else {
            s.respond_error(id, picomcp::ErrorCode::METHOD_NOT_FOUND, "no", None)
                .unwrap();
        }
    }
}

fn config() -> Config<'static> {
    let mut c = Config::server("dev", "1.0", Json::new(r#"{"tools":{}}"#).unwrap());
    c.limits.max_line = 1024;
    c.arena_bytes = 0; // no subscriptions
    c.batch_bytes = 0; // no batches
    c
}

#[test]
fn run_serves_a_session_until_end_of_input() {
    let mut mem: StaticStorage<1024, 2048, 2048, 2, 0, 256> = StaticStorage::new();
    let session = Session::new(&config(), mem.as_storage(), 0).unwrap();
    let input = script(&[
        INIT,
        INITIALIZED,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
    ]);
    let mut device = Device::new(session, Port::new(&input));
    let mut idles = 0;
    let mut clock = 0u64;
    device
        .run(
            || {
                clock += 1;
                clock
            },
            handler,
            |deadline| {
                assert_eq!(
                    deadline, None,
                    "a server with no requests out has no deadline"
                );
                idles += 1;
            },
        )
        .unwrap();
    assert!(idles > 0, "the port's gaps reach the idle hook");
    let (session, port) = device.into_parts();
    assert_eq!(session.phase(), Phase::Closed);
    assert!(port.flushed);
    let lines = port.lines();
    let ids: Vec<_> = lines.iter().map(|l| l["id"].clone()).collect();
    assert_eq!(ids, [1, 2, 3, 4].map(serde_json::Value::from));
    assert_eq!(lines[0]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(lines[1]["result"]["tools"], serde_json::json!([]));
    assert_eq!(lines[2]["result"], serde_json::json!({}));
}

#[test]
fn poll_never_waits_and_reports_idle_and_closed() {
    let mut mem: StaticStorage<1024, 2048, 2048, 1, 0, 256> = StaticStorage::new();
    let session = Session::new(&config(), mem.as_storage(), 0).unwrap();
    let mut port = Port::new(&script(&[INIT]));
    port.eof = false;
    port.read_max = 64;
    port.gaps = 0;
    let mut device = Device::new(session, port);
    let mut on_event = handler;
    let mut steps = 0;
    while device.poll(0, &mut on_event).unwrap() == Status::Busy {
        steps += 1;
        assert!(steps < 100);
    }
    assert_eq!(device.poll(0, &mut on_event).unwrap(), Status::Idle(None));
    assert_eq!(
        device.port().lines().len(),
        1,
        "the initialize result is written"
    );
    device.port().eof = true;
    while device.poll(0, &mut on_event).unwrap() == Status::Busy {}
    assert_eq!(device.poll(0, &mut on_event).unwrap(), Status::Closed);
}

#[test]
fn one_request_slot_is_enough_when_the_handler_answers_at_once() {
    // Two requests in one read: the second waits (backpressure) until the first is
    // answered, instead of getting -32603 for a full table.
    let mut mem: StaticStorage<1024, 2048, 2048, 1, 0, 256> = StaticStorage::new();
    let session = Session::new(&config(), mem.as_storage(), 0).unwrap();
    let mut port = Port::new(&script(&[
        INIT,
        INITIALIZED,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":"b","method":"tools/list"}"#,
    ]));
    port.read_max = 4096;
    port.write_max = 4096;
    let mut device = Device::new(session, port);
    device.run(|| 0, handler, |_| {}).unwrap();
    let lines = device.into_parts().1.lines();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["id"], "a");
    assert_eq!(lines[2]["id"], "b");
    assert!(lines[2].get("error").is_none(), "{}", lines[2]);
}

#[test]
fn a_handler_that_keeps_events_stalls_input_without_spinning() {
    let mut mem: StaticStorage<1024, 2048, 2048, 1, 0, 256> = StaticStorage::new();
    let session = Session::new(&config(), mem.as_storage(), 0).unwrap();
    let mut port = Port::new(&script(&[
        INIT,
        INITIALIZED,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
    ]));
    port.read_max = 4096;
    port.gaps = 0;
    port.eof = false;
    let mut device = Device::new(session, port);
    let mut calls = 0;
    let mut keep = |_: &mut Session<'_>| calls += 1;
    for _ in 0..40 {
        device.poll(0, &mut keep).unwrap(); // returns: no busy loop inside
    }
    assert!(calls > 0);
    let ids = |d: &mut Device<'_, Port>| -> Vec<_> {
        d.port().lines().iter().map(|l| l["id"].clone()).collect()
    };
    // Only the core's own answer: the request waits in the event queue, and the next
    // one in the port's bytes.
    assert_eq!(ids(&mut device), [serde_json::Value::from(1)]);
    // Now answer: the held bytes are fed and the second request is served.
    let mut on_event = handler;
    while device.poll(0, &mut on_event).unwrap() == Status::Busy {}
    assert_eq!(ids(&mut device), [1, 2, 3].map(serde_json::Value::from));
}

/// A port whose writes fail.
struct Broken;
impl ErrorType for Broken {
    type Error = ErrorKind;
}
impl ReadReady for Broken {
    fn read_ready(&mut self) -> Result<bool, ErrorKind> {
        Ok(true)
    }
}
impl Read for Broken {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ErrorKind> {
        let line = format!("{INIT}\n");
        let n = buf.len().min(line.len());
        buf[..n].copy_from_slice(&line.as_bytes()[..n]);
        Ok(n)
    }
}
impl Write for Broken {
    fn write(&mut self, _: &[u8]) -> Result<usize, ErrorKind> {
        Err(ErrorKind::BrokenPipe)
    }
    fn flush(&mut self) -> Result<(), ErrorKind> {
        Ok(())
    }
}

#[test]
fn port_errors_are_returned() {
    let mut mem: StaticStorage<1024, 2048, 2048, 1, 0, 256> = StaticStorage::new();
    let session = Session::new(&config(), mem.as_storage(), 0).unwrap();
    let mut device = Device::new(session, Broken);
    let r = device.run(|| 0, handler, |_| {});
    assert_eq!(r, Err(DeviceError::Write(ErrorKind::BrokenPipe)));
}
