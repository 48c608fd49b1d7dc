//! The chunked transfer coding (RFC 9112 §7.1): an incremental decoder shared by the
//! server (request bodies, dechunked in place) and the client (SSE streams), and the
//! writers of chunks.

use core::ops::Range;

use crate::InsufficientSize;

/// Why a chunked body could not be decoded. Every kind is the peer's fault; a server
/// answers it with 400 (see [`RequestError`](super::RequestError)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkError {
    /// A chunk-size line is not `1*HEXDIG [ext] CRLF`, or a chunk's data is not followed
    /// by CRLF, or a line ends in a bare CR or LF.
    Malformed,
    /// A chunk size does not fit 64 bits.
    SizeOverflow,
    /// A chunk-size line's extensions are longer than the configured limit.
    ExtensionTooLong {
        /// The configured maximum (bytes per chunk-size line).
        limit: usize,
    },
    /// The trailer section is longer than the configured limit.
    TrailersTooLong {
        /// The configured maximum (bytes in all trailer lines).
        limit: usize,
    },
}

impl core::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ChunkError::Malformed => f.write_str("malformed chunked body"),
            ChunkError::SizeOverflow => f.write_str("chunk size overflows 64 bits"),
            ChunkError::ExtensionTooLong { limit } => {
                write!(f, "chunk extensions longer than {limit} bytes")
            }
            ChunkError::TrailersTooLong { limit } => {
                write!(f, "trailer section longer than {limit} bytes")
            }
        }
    }
}

impl core::error::Error for ChunkError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Reading the hex digits of a size (`digits` read so far).
    Size { digits: u8 },
    /// After a size, in whitespace: `;` (extensions) or CR may follow, nothing else.
    SizeBws,
    /// In the extensions of a size line (skipped).
    Ext,
    /// After the CR of a size line.
    SizeLf,
    /// In a chunk's data.
    Data,
    /// After a chunk's data: expecting CR.
    DataCr,
    /// After a chunk's data and CR: expecting LF.
    DataLf,
    /// At the start of a trailer line (or of the final CRLF).
    TrailerStart,
    /// Inside a trailer line (skipped).
    TrailerLine,
    /// After the CR of a trailer line.
    TrailerLf,
    /// After the CR of the final empty line.
    FinalLf,
    /// The body is over.
    Done,
    /// An error was reported: nothing more is decoded.
    Failed(ChunkError),
}

/// One step of [`ChunkedDecoder::decode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkStep {
    /// Bytes of the input taken (framing and data).
    pub consumed: usize,
    /// Where, in the input, the body data taken by this step lies (possibly empty).
    pub data: Range<usize>,
}

/// An incremental decoder of the chunked transfer coding.
///
/// Feed it the raw bytes in any pieces: each [`decode`](Self::decode) call takes bytes
/// up to the end of the next run of body data and says where that data is in the input,
/// so nothing is copied. Chunk extensions and trailer fields are skipped, both bounded.
/// The framing is strict (CRLF after every size line, chunk and trailer line; a bare CR
/// or LF is [`ChunkError::Malformed`]), since lenient chunk parsing is what request
/// smuggling through a proxy exploits.
///
/// ```
/// use picomcp::http::codec::ChunkedDecoder;
/// let mut dec = ChunkedDecoder::new(64, 256);
/// let mut input: &[u8] = b"3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n";
/// let mut body = Vec::new();
/// while !dec.is_done() {
///     let step = dec.decode(input).unwrap();
///     body.extend_from_slice(&input[step.data.clone()]);
///     input = &input[step.consumed..];
/// }
/// assert_eq!(body, b"abcde");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ChunkedDecoder {
    state: State,
    /// The size being read, then the data left in the current chunk.
    remaining: u64,
    ext_len: usize,
    trailer_len: usize,
    max_ext: usize,
    max_trailers: usize,
}

impl ChunkedDecoder {
    /// A decoder at the start of a chunked body. `max_ext` bounds the extensions of one
    /// size line, `max_trailers` the whole trailer section (bytes).
    pub fn new(max_ext: usize, max_trailers: usize) -> Self {
        ChunkedDecoder {
            state: State::Size { digits: 0 },
            remaining: 0,
            ext_len: 0,
            trailer_len: 0,
            max_ext,
            max_trailers,
        }
    }

    /// Whether the whole body (last chunk and trailers) has been read.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Decodes from `input` up to the end of the next run of body data (or all of
    /// `input`, or the end of the body). Returns the bytes taken and where the data is.
    /// After the body is done, takes nothing.
    ///
    /// # Errors
    /// A [`ChunkError`] when the input is not a valid chunked body; the decoder then
    /// stays failed and returns the same error.
    pub fn decode(&mut self, input: &[u8]) -> Result<ChunkStep, ChunkError> {
        let mut i = 0;
        while i < input.len() {
            let b = input[i];
            match self.state {
                State::Failed(e) => return Err(e),
                State::Done => break,
                State::Data => {
                    let avail = (input.len() - i) as u64;
                    let take = avail.min(self.remaining) as usize;
                    self.remaining -= take as u64;
                    if self.remaining == 0 {
                        self.state = State::DataCr;
                    }
                    return Ok(ChunkStep {
                        consumed: i + take,
                        data: i..i + take,
                    });
                }
                State::Size { digits } => {
                    if let Some(d) = hex(b) {
                        if self.remaining >> 60 != 0 {
                            return self.fail(ChunkError::SizeOverflow);
                        }
                        self.remaining = (self.remaining << 4) | u64::from(d);
                        self.state = State::Size {
                            digits: digits.saturating_add(1),
                        };
                    } else if digits == 0 {
                        return self.fail(ChunkError::Malformed);
                    } else if b == b';' {
                        self.ext_len = 1;
                        self.state = State::Ext;
                    } else if b == b' ' || b == b'\t' {
                        self.ext_len = 1;
                        self.state = State::SizeBws;
                    } else if b == b'\r' {
                        self.state = State::SizeLf;
                    } else {
                        return self.fail(ChunkError::Malformed);
                    }
                }
                State::SizeBws => {
                    // `chunk-ext = *( BWS ";" ... )` (RFC 9112 §7.1.1): after the size,
                    // whitespace leads to `;` or to the line's end. `1a zz` is not a
                    // size: a peer that reads it otherwise must not get our framing.
                    if b == b';' || b == b' ' || b == b'\t' {
                        self.ext_len += 1;
                        if self.ext_len > self.max_ext {
                            return self.fail(ChunkError::ExtensionTooLong {
                                limit: self.max_ext,
                            });
                        }
                        if b == b';' {
                            self.state = State::Ext;
                        }
                    } else if b == b'\r' {
                        self.state = State::SizeLf;
                    } else {
                        return self.fail(ChunkError::Malformed);
                    }
                }
                State::Ext => {
                    if b == b'\r' {
                        self.state = State::SizeLf;
                    } else if b == b'\n' {
                        return self.fail(ChunkError::Malformed);
                    } else {
                        self.ext_len += 1;
                        if self.ext_len > self.max_ext {
                            return self.fail(ChunkError::ExtensionTooLong {
                                limit: self.max_ext,
                            });
                        }
                    }
                }
                State::SizeLf => {
                    if b != b'\n' {
                        return self.fail(ChunkError::Malformed);
                    }
                    self.ext_len = 0;
                    self.state = if self.remaining == 0 {
                        State::TrailerStart
                    } else {
                        State::Data
                    };
                }
                State::DataCr => {
                    if b != b'\r' {
                        return self.fail(ChunkError::Malformed);
                    }
                    self.state = State::DataLf;
                }
                State::DataLf => {
                    if b != b'\n' {
                        return self.fail(ChunkError::Malformed);
                    }
                    self.state = State::Size { digits: 0 };
                }
                State::TrailerStart => {
                    if b == b'\r' {
                        self.state = State::FinalLf;
                    } else if b == b'\n' {
                        return self.fail(ChunkError::Malformed);
                    } else {
                        self.count_trailer()?;
                        self.state = State::TrailerLine;
                    }
                }
                State::TrailerLine => {
                    self.count_trailer()?;
                    if b == b'\r' {
                        self.state = State::TrailerLf;
                    } else if b == b'\n' {
                        return self.fail(ChunkError::Malformed);
                    }
                }
                State::TrailerLf => {
                    if b != b'\n' {
                        return self.fail(ChunkError::Malformed);
                    }
                    self.count_trailer()?;
                    self.state = State::TrailerStart;
                }
                State::FinalLf => {
                    if b != b'\n' {
                        return self.fail(ChunkError::Malformed);
                    }
                    self.state = State::Done;
                    i += 1;
                    break;
                }
            }
            i += 1;
        }
        if let State::Failed(e) = self.state {
            return Err(e);
        }
        Ok(ChunkStep {
            consumed: i,
            data: i..i,
        })
    }

    fn count_trailer(&mut self) -> Result<(), ChunkError> {
        self.trailer_len += 1;
        if self.trailer_len > self.max_trailers {
            return self
                .fail(ChunkError::TrailersTooLong {
                    limit: self.max_trailers,
                })
                .map(|_| ());
        }
        Ok(())
    }

    fn fail(&mut self, e: ChunkError) -> Result<ChunkStep, ChunkError> {
        self.state = State::Failed(e);
        Err(e)
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Hex digits of `n` (at least one), into the end of `digits`; returns the start.
fn hex_digits(mut n: usize, digits: &mut [u8; 16]) -> usize {
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b"0123456789abcdef"[n & 0xf];
        n >>= 4;
        if n == 0 {
            return i;
        }
    }
}

/// The bytes [`write_chunk`] adds around `len` bytes of data: the hex size, CRLF, and the
/// CRLF after the data.
pub fn chunk_overhead(len: usize) -> usize {
    let mut d = [0u8; 16];
    16 - hex_digits(len, &mut d) + 4
}

/// Writes `data` as one chunk (`size CRLF data CRLF`) into `out`; returns the bytes
/// written, `data.len() + chunk_overhead(data.len())`. Empty `data` writes nothing (an
/// empty chunk would end the body: that is [`write_last_chunk`]).
///
/// # Errors
/// [`InsufficientSize`] when `out` is shorter than that; nothing is written.
pub fn write_chunk(data: &[u8], out: &mut [u8]) -> Result<usize, InsufficientSize> {
    if data.is_empty() {
        return Ok(0);
    }
    let mut d = [0u8; 16];
    let start = hex_digits(data.len(), &mut d);
    let need = data.len() + chunk_overhead(data.len());
    if out.len() < need {
        return Err(InsufficientSize { required: need });
    }
    let size = &d[start..];
    out[..size.len()].copy_from_slice(size);
    let mut at = size.len();
    out[at..at + 2].copy_from_slice(b"\r\n");
    at += 2;
    out[at..at + data.len()].copy_from_slice(data);
    at += data.len();
    out[at..at + 2].copy_from_slice(b"\r\n");
    Ok(at + 2)
}

/// The end of a chunked body: `0 CRLF CRLF` (no trailers), 5 bytes.
pub const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// Writes [`LAST_CHUNK`], which ends a chunked body; returns 5.
///
/// # Errors
/// [`InsufficientSize`] when `out` is shorter than 5 bytes.
pub fn write_last_chunk(out: &mut [u8]) -> Result<usize, InsufficientSize> {
    put(out, LAST_CHUNK)
}

pub(super) fn put(out: &mut [u8], bytes: &[u8]) -> Result<usize, InsufficientSize> {
    match out.get_mut(..bytes.len()) {
        Some(o) => {
            o.copy_from_slice(bytes);
            Ok(bytes.len())
        }
        None => Err(InsufficientSize {
            required: bytes.len(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(input: &[u8], piece: usize) -> Result<([u8; 64], usize, bool), ChunkError> {
        let mut dec = ChunkedDecoder::new(8, 16);
        let mut out = [0u8; 64];
        let mut n = 0;
        let mut at = 0;
        while at < input.len() && !dec.is_done() {
            let end = (at + piece).min(input.len());
            let s = dec.decode(&input[at..end])?;
            let d = &input[at + s.data.start..at + s.data.end];
            out[n..n + d.len()].copy_from_slice(d);
            n += d.len();
            at += s.consumed;
        }
        Ok((out, n, dec.is_done()))
    }

    #[test]
    fn whole_and_byte_by_byte_agree() {
        let body = b"5\r\nhello\r\nA;a=b;c\r\n0123456789\r\n0\r\nX: y\r\n\r\n";
        for piece in [1, 2, 3, 7, body.len()] {
            let (out, n, done) = decode_all(body, piece).unwrap();
            assert_eq!(&out[..n], b"hello0123456789");
            assert!(done);
        }
    }

    #[test]
    fn errors() {
        assert_eq!(decode_all(b"x\r\n", 1), Err(ChunkError::Malformed));
        assert_eq!(decode_all(b"1\nx\r\n", 1), Err(ChunkError::Malformed));
        assert_eq!(decode_all(b"1\r\nxy", 9), Err(ChunkError::Malformed));
        assert_eq!(
            decode_all(b"1;123456789\r\n", 9),
            Err(ChunkError::ExtensionTooLong { limit: 8 })
        );
        assert_eq!(
            decode_all(b"0\r\nA: 1234567890123456\r\n\r\n", 4),
            Err(ChunkError::TrailersTooLong { limit: 16 })
        );
        assert_eq!(
            decode_all(b"10000000000000000\r\n", 4),
            Err(ChunkError::SizeOverflow)
        );
        // Leading zeros are fine.
        assert!(decode_all(b"00000000000000000001\r\nx\r\n0\r\n\r\n", 4).is_ok());
        // Whitespace after a size leads to `;` or the line end (RFC 9112 §7.1.1 BWS),
        // never to more of a "size" another parser might read differently.
        for ok in [&b"1 ;a\r\nx\r\n0\r\n\r\n"[..], b"1\t \r\nx\r\n0\r\n\r\n"] {
            assert!(decode_all(ok, 1).is_ok());
        }
        for bad in [&b"1 2\r\n"[..], b"1 x;a\r\n", b"1 \n"] {
            assert_eq!(decode_all(bad, 1), Err(ChunkError::Malformed));
        }
        assert_eq!(
            decode_all(b"1         \r\n", 9),
            Err(ChunkError::ExtensionTooLong { limit: 8 })
        );
    }

    #[test]
    fn writing() {
        let mut out = [0u8; 32];
        let n = write_chunk(b"hello world, 17 b", &mut out).unwrap();
        assert_eq!(&out[..n], b"11\r\nhello world, 17 b\r\n");
        assert_eq!(n, 17 + chunk_overhead(17));
        assert_eq!(
            write_chunk(&[0; 40], &mut out),
            Err(InsufficientSize { required: 46 })
        );
        assert_eq!(write_last_chunk(&mut out), Ok(5));
        assert_eq!(chunk_overhead(0), 5);
        assert_eq!(chunk_overhead(255), 6);
    }
}
