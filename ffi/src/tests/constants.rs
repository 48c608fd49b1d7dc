//! What the C side reads without a session: every status's description, and the C
//! constants that mirror the core's (capability flags, revision bits, log levels, the
//! library version).

use core::ptr;

use picomcp_core::protocol::{Caps, ProtocolVersion};

use crate::*;

#[test]
fn status_describe() {
    let mut buf = [0 as core::ffi::c_char; 128];
    let read = |b: &[core::ffi::c_char]| {
        let n = b.iter().position(|c| *c == 0).unwrap();
        String::from_utf8(b[..n].iter().map(|c| *c as u8).collect()).unwrap()
    };
    let mut names = std::collections::HashSet::new();
    for st in picomcp_status::ALL {
        // SAFETY: `buf` is writable.
        let r = unsafe { picomcp_status_describe(*st as i32, buf.as_mut_ptr(), buf.len()) };
        assert_eq!(r, picomcp_status::Ok, "{st:?} does not fit 128 bytes");
        let t = read(&buf);
        assert!(t.starts_with(st.name()), "{t}");
        assert!(names.insert(st.name()));
        assert_eq!(picomcp_status::from_i32(*st as i32), Some(*st));
    }
    // SAFETY: `buf` is writable; NULL with 0 is allowed.
    unsafe {
        assert_eq!(
            picomcp_status_describe(12345, buf.as_mut_ptr(), buf.len()),
            picomcp_status::Ok
        );
        assert!(read(&buf).contains("not a picomcp status"));
        assert_eq!(
            picomcp_status_describe(-1, buf.as_mut_ptr(), 6),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(read(&buf), "PICOM");
        assert_eq!(
            picomcp_status_describe(0, ptr::null_mut(), 0),
            picomcp_status::BufferTooSmall
        );
        assert_eq!(
            picomcp_status_describe(0, ptr::null_mut(), 3),
            picomcp_status::NullArgument
        );
    }
}

#[test]
fn mirrors_of_core_constants() {
    // Capability flags.
    let pairs = [
        (PICOMCP_CAP_TOOLS, Caps::TOOLS),
        (PICOMCP_CAP_TOOLS_LIST_CHANGED, Caps::TOOLS_LIST_CHANGED),
        (PICOMCP_CAP_RESOURCES, Caps::RESOURCES),
        (PICOMCP_CAP_RESOURCES_SUBSCRIBE, Caps::RESOURCES_SUBSCRIBE),
        (
            PICOMCP_CAP_RESOURCES_LIST_CHANGED,
            Caps::RESOURCES_LIST_CHANGED,
        ),
        (PICOMCP_CAP_PROMPTS, Caps::PROMPTS),
        (PICOMCP_CAP_PROMPTS_LIST_CHANGED, Caps::PROMPTS_LIST_CHANGED),
        (PICOMCP_CAP_LOGGING, Caps::LOGGING),
        (PICOMCP_CAP_COMPLETIONS, Caps::COMPLETIONS),
        (PICOMCP_CAP_ROOTS, Caps::ROOTS),
        (PICOMCP_CAP_ROOTS_LIST_CHANGED, Caps::ROOTS_LIST_CHANGED),
        (PICOMCP_CAP_SAMPLING, Caps::SAMPLING),
        (PICOMCP_CAP_ELICITATION, Caps::ELICITATION),
        (PICOMCP_CAP_ELICITATION_FORM, Caps::ELICITATION_FORM),
        (PICOMCP_CAP_ELICITATION_URL, Caps::ELICITATION_URL),
        (PICOMCP_CAP_TASKS, Caps::TASKS),
        (PICOMCP_CAP_TASKS_LIST, Caps::TASKS_LIST),
        (PICOMCP_CAP_TASKS_CANCEL, Caps::TASKS_CANCEL),
        (PICOMCP_CAP_SAMPLING_TOOLS, Caps::SAMPLING_TOOLS),
        (PICOMCP_CAP_SAMPLING_CONTEXT, Caps::SAMPLING_CONTEXT),
    ];
    for (c, core) in pairs {
        assert_eq!(c, core.0);
    }
    // Every revision has a bit; log levels round-trip.
    for v in ProtocolVersion::ALL {
        assert_ne!(convert::version_to_c(v), 0);
    }
    for l in 0..8 {
        let level = convert::log_level_from_c(l).unwrap();
        assert_eq!(convert::log_level_to_c(Some(level)), l);
    }
    assert!(convert::log_level_from_c(8).is_err());
    // The library version matches the crate.
    let v = format!(
        "{PICOMCP_LIB_VERSION_MAJOR}.{PICOMCP_LIB_VERSION_MINOR}.{PICOMCP_LIB_VERSION_PATCH}"
    );
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
}
