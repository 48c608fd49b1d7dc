//! Packing of violations and close reasons into event headers.

use super::events::{EvKind, Header};
use super::types::{CloseReason, Violation};
use crate::error::ErrorCode;
use crate::json::JsonErrorKind;
use crate::jsonrpc::ParseErrorKind;
use crate::protocol::{METHODS, Method};

const JSON_KINDS: [JsonErrorKind; 9] = [
    JsonErrorKind::UnexpectedEnd,
    JsonErrorKind::UnexpectedByte,
    JsonErrorKind::InvalidNumber,
    JsonErrorKind::InvalidEscape,
    JsonErrorKind::LoneSurrogate,
    JsonErrorKind::ControlCharacter,
    JsonErrorKind::TooDeep,
    JsonErrorKind::TrailingCharacters,
    JsonErrorKind::Empty,
];

const PARSE_KINDS: [ParseErrorKind; 12] = [
    ParseErrorKind::InvalidUtf8,
    ParseErrorKind::NotAnObject,
    ParseErrorKind::BadVersion,
    ParseErrorKind::BadId,
    ParseErrorKind::IdTooLong,
    ParseErrorKind::DuplicateMember,
    ParseErrorKind::BadMethod,
    ParseErrorKind::BadParams,
    ParseErrorKind::InvalidShape,
    ParseErrorKind::InvalidResponse,
    ParseErrorKind::TooDeep,
    ParseErrorKind::LineTooLong,
];

fn parse_kind_to_u8(k: ParseErrorKind) -> u8 {
    if let ParseErrorKind::Json(j) = k {
        return 100 + JSON_KINDS.iter().position(|x| *x == j).unwrap_or(0) as u8;
    }
    PARSE_KINDS.iter().position(|x| *x == k).unwrap_or(0) as u8
}

fn parse_kind_from_u8(v: u8) -> ParseErrorKind {
    if v >= 100 {
        return ParseErrorKind::Json(
            JSON_KINDS
                .get((v - 100) as usize)
                .copied()
                .unwrap_or(JsonErrorKind::UnexpectedByte),
        );
    }
    PARSE_KINDS
        .get(v as usize)
        .copied()
        .unwrap_or(ParseErrorKind::InvalidShape)
}

fn method_from(v: u8) -> Method {
    METHODS.get(v as usize).map_or(Method::Ping, |m| m.method)
}

pub(crate) fn encode_violation(v: Violation) -> Header {
    let mut h = Header::new(EvKind::Violation);
    let (tag, a, code): (u8, u8, i64) = match v {
        Violation::Malformed { kind, replied } => {
            (1, parse_kind_to_u8(kind), replied.map_or(0, |c| c.0))
        }
        Violation::LineTooLong { limit } => (2, 0, limit as i64),
        Violation::UnknownMethod => (3, 0, 0),
        Violation::NotNegotiated(m) => (4, m as u8, 0),
        Violation::NotInitialized(m) => (5, m as u8, 0),
        Violation::DuplicateInitialize => (6, 0, 0),
        Violation::DuplicateRequestId => (7, 0, 0),
        Violation::TooManyRequests => (8, 0, 0),
        Violation::InvalidParams(m) => (9, m as u8, 0),
        Violation::UnknownResponseId => (10, 0, 0),
        Violation::UncorrelatedError { code } => (11, 0, code),
        Violation::BatchNotAllowed => (12, 0, 0),
        Violation::ProgressNotIncreasing => (13, 0, 0),
        Violation::BadEnvelope(m) => (14, m as u8, 0),
        Violation::UnsupportedVersion => (15, 0, 0),
        Violation::UnexpectedMessage => (16, 0, 0),
        Violation::TooManySubscriptions => (17, 0, 0),
        Violation::InvalidResult => (18, 0, 0),
        Violation::NotInVersion(m) => (19, m as u8, 0),
        Violation::DuplicateResponse => (20, 0, 0),
        Violation::UnknownProgressToken => (21, 0, 0),
    };
    h.small = [tag, a, 0];
    h.code = code;
    h
}

pub(crate) fn decode_violation(h: &Header) -> Violation {
    let [tag, a, _] = h.small;
    match tag {
        1 => Violation::Malformed {
            kind: parse_kind_from_u8(a),
            replied: if h.code == 0 {
                None
            } else {
                Some(ErrorCode(h.code))
            },
        },
        2 => Violation::LineTooLong {
            limit: h.code as usize,
        },
        4 => Violation::NotNegotiated(method_from(a)),
        5 => Violation::NotInitialized(method_from(a)),
        6 => Violation::DuplicateInitialize,
        7 => Violation::DuplicateRequestId,
        8 => Violation::TooManyRequests,
        9 => Violation::InvalidParams(method_from(a)),
        10 => Violation::UnknownResponseId,
        11 => Violation::UncorrelatedError { code: h.code },
        12 => Violation::BatchNotAllowed,
        13 => Violation::ProgressNotIncreasing,
        14 => Violation::BadEnvelope(method_from(a)),
        15 => Violation::UnsupportedVersion,
        16 => Violation::UnexpectedMessage,
        17 => Violation::TooManySubscriptions,
        18 => Violation::InvalidResult,
        19 => Violation::NotInVersion(method_from(a)),
        20 => Violation::DuplicateResponse,
        21 => Violation::UnknownProgressToken,
        _ => Violation::UnknownMethod,
    }
}

pub(crate) fn encode_close(r: CloseReason) -> Header {
    let mut h = Header::new(EvKind::Closed);
    let (tag, code) = match r {
        CloseReason::PeerClosed => (1, 0),
        CloseReason::UnsupportedVersion => (2, 0),
        CloseReason::InitializeRejected { code } => (3, code),
        CloseReason::InitializeTimedOut => (4, 0),
        CloseReason::Local => (5, 0),
        CloseReason::PeerClosedDuringProbe => (6, 0),
        CloseReason::NoCommonVersion => (7, 0),
    };
    h.small[0] = tag;
    h.code = code;
    h
}

pub(crate) fn decode_close(h: &Header) -> CloseReason {
    match h.small[0] {
        2 => CloseReason::UnsupportedVersion,
        3 => CloseReason::InitializeRejected { code: h.code },
        4 => CloseReason::InitializeTimedOut,
        5 => CloseReason::Local,
        6 => CloseReason::PeerClosedDuringProbe,
        7 => CloseReason::NoCommonVersion,
        _ => CloseReason::PeerClosed,
    }
}
