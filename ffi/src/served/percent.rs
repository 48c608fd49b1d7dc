//! Percent-decoding (RFC 3986) for C hosts: a template variable of a `picomcp_call`
//! arrives as the client wrote it, and `picomcp_percent_decode` turns it into text.

use crate::boundary::{out, str_arg};
use crate::status::picomcp_status;
use crate::types::picomcp_str;

/// Decodes the percent-escapes (`%2F` → `/`, RFC 3986; `+` stays `+`) of `text`, e.g. a
/// template variable of a `picomcp_call`, into `buf` with a terminating NUL. `*out_len`
/// = the decoded length (without the NUL); `cap >= text.len + 1` always suffices.
/// `PICOMCP_STATUS_BUFFER_TOO_SMALL`: `*out_len` = the capacity needed (decoded length +
/// 1), `buf` unchanged. A `%` without two hex digits: `PICOMCP_STATUS_INVALID_ARGUMENT`;
/// decoded bytes that are not UTF-8: `PICOMCP_STATUS_INVALID_UTF8`. `%00` decodes to a
/// NUL character: use `*out_len`, not `strlen`, when that matters.
///
/// # Safety
/// `text` must be readable; `buf` must point to `cap` writable bytes (NULL with 0);
/// `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn picomcp_percent_decode(
    text: picomcp_str,
    buf: *mut core::ffi::c_char,
    cap: usize,
    out_len: *mut usize,
) -> picomcp_status {
    crate::boundary::boundary(|| {
        // SAFETY: caller contract for every pointer.
        let (t, n, b) = unsafe {
            (
                str_arg(text)?,
                out(out_len)?,
                crate::boundary::out_bytes(buf.cast::<u8>(), cap)?,
            )
        };
        *n = 0;
        use picomcp_core::uri::{DecodeError, percent_decode};
        let Some(room) = b.len().checked_sub(1) else {
            // No room even for the NUL: measure only.
            return match percent_decode(t, &mut []) {
                Ok(_) => {
                    *n = 1;
                    Err(picomcp_status::BufferTooSmall)
                }
                Err(DecodeError::InsufficientSize { required }) => {
                    *n = required + 1;
                    Err(picomcp_status::BufferTooSmall)
                }
                Err(DecodeError::NotUtf8) => Err(picomcp_status::InvalidUtf8),
                Err(_) => Err(picomcp_status::InvalidArgument),
            };
        };
        match percent_decode(t, &mut b[..room]) {
            Ok(d) => {
                let len = d.len();
                b[len] = 0;
                *n = len;
                Ok(())
            }
            Err(DecodeError::InsufficientSize { required }) => {
                *n = required + 1;
                Err(picomcp_status::BufferTooSmall)
            }
            Err(DecodeError::NotUtf8) => Err(picomcp_status::InvalidUtf8),
            Err(_) => Err(picomcp_status::InvalidArgument),
        }
    })
}
