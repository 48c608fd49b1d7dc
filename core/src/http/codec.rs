//! The HTTP/1.1 connection codec (in progress).
