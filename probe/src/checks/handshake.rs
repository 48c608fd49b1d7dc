//! The handshake (`server/discover` or `initialize`) and what it told about the server.

use picomcp::json::JsonKind;
use picomcp::protocol::{ProtocolVersion, meta};

use super::cache_problem;
use crate::client::{Incoming, Probe};
use crate::report::Outcome;
use crate::text::{elapsed_ms, parse_json, string_member};

impl Probe {
    /// Waits for the `initialize` result and `notifications/initialized`.
    pub(crate) fn handshake(&mut self) -> bool {
        loop {
            match self.next(None) {
                Incoming::Ready => break,
                Incoming::Ended => {
                    let why = self
                        .report
                        .closed
                        .take()
                        .unwrap_or_else(|| "the connection closed".into());
                    self.report
                        .section("handshake")
                        .check("connect", Outcome::Failed(why), None);
                    return false;
                }
                other => self.handle(other),
            }
        }
        self.ready = true;
        let ms = elapsed_ms(self.started);
        let info = &self.report.server;
        let name = if info.modern {
            "server/discover"
        } else {
            "initialize"
        };
        let outcome = match &info.problem {
            Some(problem) => Outcome::Failed(problem.clone()),
            None => Outcome::Ok(format!(
                "{}, time includes the server's start-up",
                info.protocol
            )),
        };
        self.report
            .section("handshake")
            .check(name, outcome, Some(ms));
        if self.restarted {
            let note = "the server exited on the server/discover probe: restarted for initialize";
            self.report.info(note.into());
        }
        true
    }
}

/// What `initialize` told about the server.
#[derive(Default)]
pub(crate) struct ServerInfo {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) protocol: String,
    /// The revision is 2026-07-28 (`server/discover`, no `initialize`).
    pub(crate) modern: bool,
    /// The capabilities object as sent.
    pub(crate) capabilities: String,
    pub(crate) instructions: Option<String>,
    /// What is wrong with the `initialize` or `server/discover` result, if anything.
    pub(crate) problem: Option<String>,
}

impl ServerInfo {
    /// From the `initialize` result (legacy) or the `server/discover` result (2026-07-28),
    /// where the identity is `_meta["io.modelcontextprotocol/serverInfo"]` (a top-level
    /// `serverInfo`, as pre-release servers send it, is accepted too).
    pub(crate) fn from_negotiated(version: ProtocolVersion, result: &str) -> ServerInfo {
        let modern = !version.is_legacy();
        let r = parse_json(result).ok();
        let meta_info = r
            .and_then(|r| r.get("_meta"))
            .and_then(|m| m.get(meta::SERVER_INFO));
        let info = meta_info.or_else(|| r.and_then(|r| r.get("serverInfo")));
        let is_string = |key: &str| {
            info.and_then(|i| i.get(key))
                .is_some_and(|v| v.kind() == JsonKind::String)
        };
        let has_caps = r
            .and_then(|r| r.get("capabilities"))
            .is_some_and(|c| c.is_object());
        let problem = if !has_caps {
            Some("the result lacks the capabilities object".to_string())
        } else if modern {
            r.and_then(cache_problem)
        } else if !is_string("name") || !is_string("version") {
            Some("the result lacks serverInfo.name or serverInfo.version".to_string())
        } else {
            None
        };
        ServerInfo {
            problem,
            name: info
                .and_then(|i| string_member(i, "name"))
                .unwrap_or_default(),
            version: info
                .and_then(|i| string_member(i, "version"))
                .unwrap_or_default(),
            title: info.and_then(|i| string_member(i, "title")),
            protocol: version.as_str().to_owned(),
            modern,
            capabilities: r
                .and_then(|r| r.get("capabilities"))
                .map_or("{}".into(), |c| c.as_raw().to_owned()),
            instructions: r.and_then(|r| string_member(r, "instructions")),
        }
    }

    /// The server is one of our demo servers (`picomcp-demo-<lang>`).
    pub(crate) fn is_demo(&self) -> bool {
        self.name.starts_with("picomcp-demo")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::summarize_capabilities;

    #[test]
    fn modern_server_info() {
        let discover = r#"{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}"#;
        let info = ServerInfo::from_negotiated(ProtocolVersion::V2026_07_28, discover);
        assert!(info.modern && info.problem.is_none());
        assert_eq!((info.name.as_str(), info.version.as_str()), ("s", "1"));
    }

    #[test]
    fn legacy_server_info() {
        let result = r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"picomcp-demo-rust","version":"1"}}"#;
        let info = ServerInfo::from_negotiated(ProtocolVersion::V2025_11_25, result);
        assert!(info.is_demo() && !info.modern && info.problem.is_none());
        assert_eq!(
            summarize_capabilities(&info.capabilities),
            "tools(listChanged) logging"
        );
        let nameless =
            ServerInfo::from_negotiated(ProtocolVersion::V2025_11_25, r#"{"capabilities":{}}"#);
        assert!(nameless.problem.is_some());
    }
}
