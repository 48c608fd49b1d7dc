//! `framing`: the line decoder against a reference model, fed whole, split at offsets
//! taken from the input, and byte by byte.
//!
//! Layout: `[cap] [flags] [n × u16 split offsets] stream`, where `cap` picks the buffer
//! size (0..=200 as is, 201..=250 → 20..=1000 in steps of 20, above → 4096), the low
//! nibble of `flags` is `n` and its high nibble seeds when [`LineDecoder::keep`] is
//! exercised.
//!
//! Invariants:
//! - every call takes at least one byte of non-empty input (or returns a kept frame with
//!   `consumed == 0` right after `keep()`), and never more than offered;
//! - the frames equal the model: split at `\n`, a line longer than `cap` (counting a
//!   trailing `\r`) is one `TooLong` carrying `peek_id` of its first `cap` bytes, one
//!   trailing `\r` is stripped, lines of only space/tab/CR are skipped, the rest is `Line`
//!   or `InvalidUtf8` (id from the valid prefix);
//! - an unfinished last line is buffered (`buffered()`), or, when longer than `cap`,
//!   reported once and discarded (`is_discarding()`);
//! - whole, split and byte-by-byte feeding give identical frames and end state;
//! - after `keep()` the same frame comes back once with `consumed == 0`;
//! - the byte frames of [`LineDecoder::decode_bytes`], each checked afterwards with
//!   [`RawFrame::validate`] (and `RawLine::to_str` agreeing with `str::from_utf8`), are the
//!   same frames, whole, split and byte by byte.

use picomcp::framing::{Frame, LineDecoder, RawFrame};
use picomcp::jsonrpc::{Id, peek_id};

use crate::Rng;

const DEPTH: usize = 64;

/// An owned copy of a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum F {
    Line(String),
    Bad(Vec<u8>, Option<String>),
    Long(usize, Option<String>),
}

fn id_text(i: Option<Id<'_>>) -> Option<String> {
    i.map(|i| i.as_raw().to_string())
}

pub fn own(f: Frame<'_>) -> F {
    match f {
        Frame::Line(l) => F::Line(l.into()),
        Frame::InvalidUtf8 { line, id } => F::Bad(line.to_vec(), id_text(id)),
        Frame::TooLong { limit, id } => F::Long(limit, id_text(id)),
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub frames: Vec<F>,
    pub buffered: usize,
    pub discarding: bool,
}

/// The framing rules, written independently of the decoder.
pub fn model(cap: usize, stream: &[u8]) -> Outcome {
    let mut frames = Vec::new();
    let mut rest = stream;
    while let Some(i) = rest.iter().position(|&c| c == b'\n') {
        let line = &rest[..i];
        rest = &rest[i + 1..];
        if line.len() > cap {
            frames.push(F::Long(cap, id_text(peek_id(&line[..cap], DEPTH))));
            continue;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
            continue;
        }
        frames.push(match std::str::from_utf8(line) {
            Ok(s) => F::Line(s.into()),
            Err(e) => F::Bad(
                line.to_vec(),
                id_text(peek_id(&line[..e.valid_up_to()], DEPTH)),
            ),
        });
    }
    if rest.len() > cap {
        frames.push(F::Long(cap, id_text(peek_id(&rest[..cap], DEPTH))));
        Outcome {
            frames,
            buffered: 0,
            discarding: true,
        }
    } else {
        Outcome {
            frames,
            buffered: rest.len(),
            discarding: false,
        }
    }
}

/// A byte frame checked the way the session checks it, as an owned frame.
fn own_raw(f: RawFrame<'_>) -> F {
    if let RawFrame::Line(l) = f {
        let core = std::str::from_utf8(l.as_bytes()).map_err(|e| e.valid_up_to());
        assert_eq!(l.to_str(), core, "RawLine::to_str differs from str::from_utf8");
    }
    own(f.validate(DEPTH))
}

/// One call of the decoder: `decode` (`&str` frames) or `decode_bytes` (byte frames,
/// checked afterwards); the bytes taken and the frame, owned.
fn call(dec: &mut LineDecoder<Vec<u8>>, bytes: bool, input: &[u8]) -> (usize, Option<F>) {
    if bytes {
        let d = dec.decode_bytes(input);
        (d.consumed, d.frame.map(own_raw))
    } else {
        let d = dec.decode(input);
        (d.consumed, d.frame.map(own))
    }
}

/// Feeds `chunks` in order, through `decode_bytes` when `bytes` (else `decode`); `keep`
/// says, per buffered frame, whether to call `keep()`.
pub fn decode_chunks<'c>(
    cap: usize,
    bytes: bool,
    chunks: impl IntoIterator<Item = &'c [u8]>,
    mut keep: impl FnMut() -> bool,
) -> Outcome {
    let mut dec = LineDecoder::new(vec![0u8; cap], DEPTH);
    assert_eq!(dec.max_line(), cap);
    let mut frames = Vec::new();
    for chunk in chunks {
        let mut input = chunk;
        while !input.is_empty() {
            let (consumed, frame) = call(&mut dec, bytes, input);
            assert!(consumed <= input.len(), "consumed more than offered");
            assert!(consumed > 0, "no progress on {} bytes", input.len());
            if let Some(f) = frame {
                if dec.buffered_line() && keep() {
                    dec.keep();
                    let (again, g) = call(&mut dec, bytes, &input[consumed..]);
                    assert_eq!(again, 0, "a kept frame consumes nothing");
                    let g = g.expect("kept frame returned again");
                    assert_eq!(g, f, "kept frame differs");
                }
                frames.push(f);
            }
            input = &input[consumed..];
        }
        // An empty call changes nothing.
        let (consumed, frame) = call(&mut dec, bytes, &[]);
        assert_eq!(consumed, 0);
        assert!(frame.is_none(), "frame from empty input");
    }
    Outcome {
        frames,
        buffered: dec.buffered(),
        discarding: dec.is_discarding(),
    }
}

pub fn run(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let cap = match data[0] {
        c @ 0..=200 => c as usize,
        c @ 201..=250 => (c as usize - 200) * 20,
        _ => 4096,
    };
    let n = (data[1] & 0x0f) as usize;
    let mut rng = Rng::new((data[1] >> 4) as u64 + 1);
    let keep_often = data[1] >> 4 != 0;
    let offs_end = (2 + 2 * n).min(data.len());
    let stream = &data[offs_end..];
    let mut cuts: Vec<usize> = data[2..offs_end]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]) as usize % (stream.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();

    let want = model(cap, stream);

    let mut pieces = Vec::new();
    let mut at = 0;
    for &c in &cuts {
        pieces.push(&stream[at..c]);
        at = c;
    }
    pieces.push(&stream[at..]);

    for raw in [false, true] {
        let whole = decode_chunks(cap, raw, [stream], || false);
        assert_eq!(whole, want, "whole input differs from the model (raw {raw})");

        let split = decode_chunks(cap, raw, pieces.iter().copied(), || {
            keep_often && rng.next_u64().is_multiple_of(2)
        });
        assert_eq!(split, want, "split input differs (cuts {cuts:?}, raw {raw})");

        if stream.len() <= 1024 {
            let bytes = decode_chunks(cap, raw, stream.chunks(1), || false);
            assert_eq!(bytes, want, "byte-by-byte input differs (raw {raw})");
        }
    }
}
