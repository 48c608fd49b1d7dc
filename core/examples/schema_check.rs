//! Reads schema/instance pairs as JSON Lines on stdin, `{"schema":S,"instance":I}`, and
//! prints one line per pair: `valid`, `invalid <message>` or `schema_error <message>`.
//! The differential test (tests/schema_diff/run.py) drives it.
//!
//! Run: `cargo run -p picomcp --example schema_check < pairs.jsonl`

use std::io::{BufRead, Write};

use picomcp::json::Json;
use picomcp::schema::Schema;

fn main() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        let answer = match Json::with_max_depth(&line, 256) {
            Err(e) => format!("bad_line {e}"),
            Ok(pair) => match (pair.get("schema"), pair.get("instance")) {
                (Some(s), Some(i)) => match Schema::from_json(s) {
                    Err(e) => format!("schema_error {e}"),
                    Ok(schema) => match schema.validate(i) {
                        Ok(()) => "valid".to_owned(),
                        Err(e) => format!("invalid {e}"),
                    },
                },
                _ => "bad_line missing schema or instance".to_owned(),
            },
        };
        writeln!(out, "{answer}").expect("stdout");
    }
}
