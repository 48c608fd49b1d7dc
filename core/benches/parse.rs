//! Parse-and-validate throughput of typical MCP messages, against serde_json in the same
//! run, line framing against a bare `memchr` newline scan, and framing plus UTF-8 check
//! plus parse of a whole stream (the `&str` frames against the byte frames).
//!
//! Run: `cargo bench -p picomcp --bench parse`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group};
use picomcp::Limits;
use picomcp::framing::{Frame, LineDecoder, RawFrame};
use picomcp::jsonrpc::{self, Message};

/// About 1 KiB of tool input text, with the escapes real text has.
fn kib_text() -> String {
    let para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor \
                incididunt ut labore et dolore magna aliqua. \\\"Quoted\\\" words, a tab\\t and \
                a path C:\\\\tmp\\\\x.\\n";
    let mut s = String::new();
    while s.len() < 1024 {
        s.push_str(para);
    }
    s
}

/// (name, line) for each message of the corpus.
fn corpus() -> Vec<(&'static str, String)> {
    vec![
        (
            "initialize",
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"example-client","title":"Example Client Display Name","version":"1.0.0"}}}"#.into(),
        ),
        (
            "tools_call_small",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"New York"},"_meta":{"progressToken":"abc123"}}}"#.into(),
        ),
        (
            "tools_call_1k",
            format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"summarize","arguments":{{"text":"{}","maxWords":120}}}}}}"#,
                kib_text()
            ),
        ),
        (
            "tools_call_result",
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Current weather in New York:\nTemperature: 72°F\nConditions: Partly cloudy"}],"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":65},"isError":false}}"#.into(),
        ),
        (
            "progress",
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"abc123","progress":50,"total":100,"message":"Reticulating splines..."}}"#.into(),
        ),
        (
            "error",
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Unknown tool: invalid_tool_name","data":{"tool":"invalid_tool_name"}}}"#.into(),
        ),
        (
            "tools_list_result",
            r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"get_weather","title":"Weather Information Provider","description":"Get current weather information for a location","inputSchema":{"type":"object","properties":{"location":{"type":"string","description":"City name or zip code"}},"required":["location"]},"outputSchema":{"type":"object","properties":{"temperature":{"type":"number","description":"Temperature in celsius"},"conditions":{"type":"string","description":"Weather conditions description"},"humidity":{"type":"number","description":"Humidity percentage"}},"required":["temperature","conditions","humidity"]}},{"name":"echo","description":"Echoes back the input","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]},"annotations":{"readOnlyHint":true,"idempotentHint":true}},{"name":"add","title":"Add","description":"Adds two numbers","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}}],"nextCursor":"eyJwYWdlIjogM30="}}"#.into(),
        ),
    ]
}

fn ours(line: &str) -> bool {
    // Parse and validate; touch the method so nothing is optimised away.
    match jsonrpc::parse(line, &Limits::DEFAULT) {
        Ok(Message::Request(r)) => r.method.raw().len() > 1,
        Ok(Message::Notification(n)) => n.method.raw().len() > 1,
        Ok(Message::Response(r)) => r.result.as_raw().len() > 1,
        Ok(Message::Error(e)) => e.error.code < 0,
        Ok(Message::Batch(_)) => false,
        Err(_) => false,
    }
}

fn parse(c: &mut Criterion) {
    let corpus = corpus();
    for (name, line) in &corpus {
        assert!(ours(line), "{name} must parse");
        serde_json::from_str::<serde_json::Value>(line).expect(name);
        let mut g = c.benchmark_group(format!("parse/{name}"));
        g.throughput(Throughput::Bytes(line.len() as u64));
        g.bench_function("picomcp", |b| b.iter(|| ours(black_box(line))));
        // The JSON validation alone (no envelope), to show where the time goes.
        g.bench_function("picomcp_json_only", |b| {
            b.iter(|| picomcp::json::Json::new(black_box(line)).is_ok())
        });
        g.bench_function("serde_ignored_any", |b| {
            b.iter(|| {
                serde_json::from_slice::<serde::de::IgnoredAny>(black_box(line.as_bytes())).is_ok()
            })
        });
        g.bench_function("serde_value", |b| {
            b.iter(|| {
                serde_json::from_slice::<serde_json::Value>(black_box(line.as_bytes())).is_ok()
            })
        });
        g.finish();
    }
    // The whole corpus once, as a mixed workload.
    let total: usize = corpus.iter().map(|(_, l)| l.len()).sum();
    let mut g = c.benchmark_group("parse/all");
    g.throughput(Throughput::Bytes(total as u64));
    g.bench_function("picomcp", |b| {
        b.iter(|| corpus.iter().filter(|(_, l)| ours(black_box(l))).count())
    });
    g.bench_function("serde_ignored_any", |b| {
        b.iter(|| {
            corpus
                .iter()
                .filter(|(_, l)| {
                    serde_json::from_slice::<serde::de::IgnoredAny>(black_box(l.as_bytes())).is_ok()
                })
                .count()
        })
    });
    g.bench_function("serde_value", |b| {
        b.iter(|| {
            corpus
                .iter()
                .filter(|(_, l)| {
                    serde_json::from_slice::<serde_json::Value>(black_box(l.as_bytes())).is_ok()
                })
                .count()
        })
    });
    g.finish();
}

/// About 1 MiB of newline-terminated corpus lines.
fn stream() -> (Vec<u8>, usize) {
    let corpus = corpus();
    let mut s = Vec::with_capacity((1 << 20) + 4096);
    let mut lines = 0;
    while s.len() < 1 << 20 {
        for (_, l) in &corpus {
            s.extend_from_slice(l.as_bytes());
            s.push(b'\n');
            lines += 1;
        }
    }
    (s, lines)
}

fn frame_count(stream: &[u8], chunk: usize) -> usize {
    let mut dec = LineDecoder::new([0u8; 4096], 64);
    let mut n = 0;
    for part in stream.chunks(chunk) {
        let mut input = part;
        while !input.is_empty() {
            let d = dec.decode(input);
            if let Some(Frame::Line(l)) = d.frame {
                n += l.len() & 1 | 1;
            }
            input = &input[d.consumed..];
        }
    }
    n
}

/// [`frame_count`] with byte frames ([`LineDecoder::decode_bytes`]): no UTF-8 check.
fn frame_count_bytes(stream: &[u8], chunk: usize) -> usize {
    let mut dec = LineDecoder::new([0u8; 4096], 64);
    let mut n = 0;
    for part in stream.chunks(chunk) {
        let mut input = part;
        while !input.is_empty() {
            let d = dec.decode_bytes(input);
            if let Some(RawFrame::Line(l)) = d.frame {
                n += l.as_bytes().len() & 1 | 1;
            }
            input = &input[d.consumed..];
        }
    }
    n
}

/// Frames the stream (read in 4 KiB chunks, as the std adapter reads), checks each line
/// for UTF-8 and parses it, as `Session::handle_bytes` does; counts the lines parsed.
/// `check` is how a byte line becomes `&str`.
fn frame_and_parse(stream: &[u8], check: fn(&[u8]) -> Option<&str>) -> usize {
    let mut dec = LineDecoder::new([0u8; 4096], 64);
    let mut n = 0;
    for part in stream.chunks(4096) {
        let mut input = part;
        while !input.is_empty() {
            let d = dec.decode_bytes(input);
            if let Some(RawFrame::Line(l)) = d.frame
                && let Some(s) = check(l.as_bytes())
            {
                n += ours(s) as usize;
            }
            input = &input[d.consumed..];
        }
    }
    n
}

/// The end-to-end variants (frame, check UTF-8, parse) by name (see `main`).
fn e2e_variant(name: &str, s: &[u8]) -> usize {
    match name {
        // Before: `&str` frames, checked by the decoder.
        "e2e_line_decoder" => {
            let mut dec = LineDecoder::new([0u8; 4096], 64);
            let mut n = 0;
            for part in s.chunks(4096) {
                let mut input = part;
                while !input.is_empty() {
                    let d = dec.decode(input);
                    if let Some(Frame::Line(l)) = d.frame {
                        n += ours(l) as usize;
                    }
                    input = &input[d.consumed..];
                }
            }
            n
        }
        // Now: byte frames, checked with `RawLine::to_str` before the parse (the session).
        "e2e_decode_bytes" => {
            let mut dec = LineDecoder::new([0u8; 4096], 64);
            let mut n = 0;
            for part in s.chunks(4096) {
                let mut input = part;
                while !input.is_empty() {
                    let d = dec.decode_bytes(input);
                    if let Some(RawFrame::Line(l)) = d.frame
                        && let Ok(s) = l.to_str()
                    {
                        n += ours(s) as usize;
                    }
                    input = &input[d.consumed..];
                }
            }
            n
        }
        // Byte frames checked line by line, without `to_str`'s look-ahead blocks.
        "e2e_decode_bytes_simdutf8_line" => {
            frame_and_parse(s, |l| simdutf8::basic::from_utf8(l).ok())
        }
        "e2e_decode_bytes_core_from_utf8" => frame_and_parse(s, |l| std::str::from_utf8(l).ok()),
        // The floor: a newline scan, a UTF-8 check per line and the parse.
        "e2e_memchr_iter_plus_simdutf8" => {
            let (mut start, mut n) = (0, 0);
            for nl in memchr::memchr_iter(b'\n', s) {
                if let Ok(l) = simdutf8::basic::from_utf8(&s[start..nl]) {
                    n += ours(l) as usize;
                }
                start = nl + 1;
            }
            n
        }
        _ => panic!("unknown end-to-end variant {name}"),
    }
}

/// The variants of the framing group by name (see `main`).
fn framing_variant(name: &str, s: &[u8]) -> usize {
    match name {
        "memchr_iter" => memchr::memchr_iter(b'\n', s).count(),
        "memchr_each" => {
            let (mut start, mut n) = (0, 0);
            while let Some(i) = memchr::memchr(b'\n', &s[start..]) {
                n += 1;
                start += i + 1;
            }
            n
        }
        "memchr_iter_plus_simdutf8" => {
            let (mut start, mut n) = (0, 0);
            for nl in memchr::memchr_iter(b'\n', s) {
                n += simdutf8::basic::from_utf8(&s[start..nl]).is_ok() as usize;
                start = nl + 1;
            }
            n
        }
        "memchr_iter_plus_from_utf8" => {
            let (mut start, mut n) = (0, 0);
            for nl in memchr::memchr_iter(b'\n', s) {
                n += std::str::from_utf8(&s[start..nl]).is_ok() as usize;
                start = nl + 1;
            }
            n
        }
        "simdutf8_whole" => simdutf8::basic::from_utf8(s).is_ok() as usize,
        "line_decoder" => frame_count(s, s.len()),
        "line_decoder_4k_reads" => frame_count(s, 4096),
        "decode_bytes" => frame_count_bytes(s, s.len()),
        "decode_bytes_4k_reads" => frame_count_bytes(s, 4096),
        _ if name.starts_with("e2e_") => e2e_variant(name, s),
        _ => panic!("unknown framing variant {name}"),
    }
}

fn framing(c: &mut Criterion) {
    let (stream, lines) = stream();
    assert_eq!(frame_count(&stream, stream.len()), lines);
    assert_eq!(frame_count(&stream, 4096), lines);
    assert_eq!(frame_count_bytes(&stream, stream.len()), lines);
    assert_eq!(frame_count_bytes(&stream, 4096), lines);
    for name in E2E {
        assert_eq!(e2e_variant(name, &stream), lines, "{name}");
    }
    assert_eq!(memchr::memchr_iter(b'\n', &stream).count(), lines);
    let mut g = c.benchmark_group("framing/1MiB");
    g.throughput(Throughput::Bytes(stream.len() as u64));
    g.bench_function("memchr_iter", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(&stream)).count())
    });
    // The least any framing that hands out `&str` lines can do without `unsafe`: find each
    // newline and run `core::str::from_utf8` over the line. `line_decoder` is compared
    // with this floor as well as with the bare scan.
    g.bench_function("memchr_iter_plus_from_utf8", |b| {
        b.iter(|| framing_variant("memchr_iter_plus_from_utf8", black_box(&stream)))
    });
    // Where the decoder's time goes: a newline search per call (as the decoder does it)
    // rather than one iterator over the stream, and the floor of a safe `&str` framing on
    // the same crates (one `memchr` and one `simdutf8` call per line); the UTF-8 check of
    // the whole stream in one call shows what the per-call overhead of that check is.
    for name in ["memchr_each", "memchr_iter_plus_simdutf8", "simdutf8_whole"] {
        g.bench_function(name, |b| {
            b.iter(|| framing_variant(name, black_box(&stream)))
        });
    }
    g.bench_function("line_decoder", |b| {
        b.iter(|| frame_count(black_box(&stream), stream.len()))
    });
    g.bench_function("line_decoder_4k_reads", |b| {
        b.iter(|| frame_count(black_box(&stream), 4096))
    });
    // Byte frames: the framing alone, the UTF-8 check left to the taker.
    for name in ["decode_bytes", "decode_bytes_4k_reads"] {
        g.bench_function(name, |b| {
            b.iter(|| framing_variant(name, black_box(&stream)))
        });
    }
    g.finish();
    // The honest account: frame, check and parse, `&str` frames against byte frames.
    let mut g = c.benchmark_group("frame_check_parse/1MiB");
    g.throughput(Throughput::Bytes(stream.len() as u64));
    for name in E2E {
        g.bench_function(name, |b| {
            b.iter(|| framing_variant(name, black_box(&stream)))
        });
    }
    g.finish();
}

/// The end-to-end variants ([`e2e_variant`]).
const E2E: [&str; 5] = [
    "e2e_line_decoder",
    "e2e_decode_bytes",
    "e2e_decode_bytes_simdutf8_line",
    "e2e_decode_bytes_core_from_utf8",
    "e2e_memchr_iter_plus_simdutf8",
];

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! { name = benches; config = config(); targets = parse, framing }

/// The variants of the mixed-corpus parse group by name (see `main`): each parses every
/// line of the corpus once and counts the lines accepted.
fn parse_variant(name: &str, corpus: &[(&'static str, String)]) -> usize {
    let each = |f: &dyn Fn(&str) -> bool| corpus.iter().filter(|(_, l)| f(black_box(l))).count();
    match name {
        "picomcp" => each(&ours),
        "picomcp_json_only" => each(&|l| picomcp::json::Json::new(l).is_ok()),
        "serde_ignored_any" => {
            each(&|l| serde_json::from_slice::<serde::de::IgnoredAny>(l.as_bytes()).is_ok())
        }
        _ => panic!("unknown parse variant {name}"),
    }
}

/// `PICOMCP_MIN_OF=ROUNDS`: for a machine too loaded for criterion's means. Each round
/// times a short batch of every parse and framing variant in turn (interleaved, so all
/// see the same load), and the fastest batch of each over all rounds is kept: the time
/// the variant takes when nothing preempts it. Prints those and the ratios the targets of
/// issue 17 are about.
fn min_of(rounds: usize) {
    use std::time::Instant;
    let corpus = corpus();
    let (stream, _) = stream();
    let parse = ["picomcp", "picomcp_json_only", "serde_ignored_any"];
    let framing = [
        "memchr_iter",
        "memchr_each",
        "memchr_iter_plus_simdutf8",
        "memchr_iter_plus_from_utf8",
        "simdutf8_whole",
        "line_decoder",
        "line_decoder_4k_reads",
        "decode_bytes",
        "decode_bytes_4k_reads",
    ]
    .into_iter()
    .chain(E2E);
    let mut best = std::collections::BTreeMap::<&str, f64>::new();
    let mut keep = |name, t: f64| {
        let b = best.entry(name).or_insert(f64::MAX);
        *b = b.min(t);
    };
    for _ in 0..rounds {
        for name in parse {
            let t = Instant::now();
            for _ in 0..50 {
                black_box(parse_variant(name, black_box(&corpus)));
            }
            keep(name, t.elapsed().as_secs_f64() / 50.0);
        }
        for name in framing.clone() {
            let t = Instant::now();
            black_box(framing_variant(name, black_box(&stream)));
            keep(name, t.elapsed().as_secs_f64());
        }
    }
    for (name, t) in &best {
        println!("{name:28} {:10.3} µs", t * 1e6);
    }
    println!(
        "parse: serde_ignored_any / picomcp = {:.2}x; framing: line_decoder / memchr_iter = {:.2}x, \
         floor memchr_iter_plus_simdutf8 / memchr_iter = {:.2}x, line_decoder / floor = {:.2}x",
        best["serde_ignored_any"] / best["picomcp"],
        best["line_decoder"] / best["memchr_iter"],
        best["memchr_iter_plus_simdutf8"] / best["memchr_iter"],
        best["line_decoder"] / best["memchr_iter_plus_simdutf8"],
    );
    let r = |a: &str, b: &str| best[a] / best[b];
    println!(
        "byte frames: decode_bytes / memchr_iter = {:.2}x, decode_bytes_4k_reads / memchr_iter = {:.2}x \
         (line_decoder_4k_reads / memchr_iter = {:.2}x)",
        r("decode_bytes", "memchr_iter"),
        r("decode_bytes_4k_reads", "memchr_iter"),
        r("line_decoder_4k_reads", "memchr_iter"),
    );
    println!(
        "frame + check + parse: e2e_decode_bytes / e2e_line_decoder = {:.3}x, \
         e2e_decode_bytes_simdutf8_line = {:.3}x, e2e_decode_bytes_core_from_utf8 = {:.3}x, \
         floor e2e_memchr_iter_plus_simdutf8 = {:.3}x",
        r("e2e_decode_bytes", "e2e_line_decoder"),
        r("e2e_decode_bytes_simdutf8_line", "e2e_line_decoder"),
        r("e2e_decode_bytes_core_from_utf8", "e2e_line_decoder"),
        r("e2e_memchr_iter_plus_simdutf8", "e2e_line_decoder"),
    );
}

/// `PICOMCP_MIN_OF_LINES=ROUNDS`: [`min_of`] for each corpus line alone, picomcp against
/// `serde_json` `IgnoredAny`: which messages the ratio of the mixed corpus comes from.
fn min_of_lines(rounds: usize) {
    use std::time::Instant;
    let corpus = corpus();
    let parse = ["picomcp", "serde_ignored_any"];
    let mut best = vec![[f64::MAX; 2]; corpus.len()];
    for _ in 0..rounds {
        for (i, line) in corpus.iter().enumerate() {
            let one = std::slice::from_ref(line);
            for (j, name) in parse.iter().enumerate() {
                let t = Instant::now();
                for _ in 0..50 {
                    black_box(parse_variant(name, black_box(one)));
                }
                best[i][j] = best[i][j].min(t.elapsed().as_secs_f64() / 50.0);
            }
        }
    }
    println!(
        "{:20} {:>7} {:>12} {:>12} {:>7}",
        "line", "bytes", "picomcp ns", "serde ns", "ratio"
    );
    for ((name, line), [ours, serde]) in corpus.iter().zip(&best) {
        println!(
            "{name:20} {:7} {:12.1} {:12.1} {:6.2}x",
            line.len(),
            ours * 1e9,
            serde * 1e9,
            serde / ours
        );
    }
}

/// `PICOMCP_FRAMING_LOOP=NAME:N` runs one framing variant N times and exits, and
/// `PICOMCP_PARSE_LOOP=NAME:N` one parse variant (`picomcp`, `picomcp_json_only`,
/// `serde_ignored_any`) over the mixed corpus (`NAME@LINE:N`: over its line LINE only), for `perf stat -e cycles:u,instructions:u`
/// or `valgrind --tool=callgrind`: counts that the load of a shared machine does not move
/// the way it moves wall-clock time.
fn main() {
    if let Ok(rounds) = std::env::var("PICOMCP_MIN_OF") {
        min_of(rounds.parse().expect("PICOMCP_MIN_OF=ROUNDS"));
        return;
    }
    if let Ok(rounds) = std::env::var("PICOMCP_MIN_OF_LINES") {
        min_of_lines(rounds.parse().expect("PICOMCP_MIN_OF_LINES=ROUNDS"));
        return;
    }
    if let Ok(spec) = std::env::var("PICOMCP_PARSE_LOOP") {
        let (name, n) = spec.split_once(':').expect("NAME:N");
        let n: usize = n.parse().expect("N");
        // `NAME@LINE` parses only the corpus line named LINE.
        let (name, only) = name.split_once('@').unwrap_or((name, ""));
        let mut corpus = corpus();
        corpus.retain(|(l, _)| only.is_empty() || *l == only);
        let mut acc = 0usize;
        for _ in 0..n {
            acc += parse_variant(name, &corpus);
        }
        println!("{name} x{n}: {acc}");
        return;
    }
    if let Ok(spec) = std::env::var("PICOMCP_FRAMING_LOOP") {
        let (name, n) = spec.split_once(':').expect("NAME:N");
        let n: usize = n.parse().expect("N");
        let (stream, _) = stream();
        let mut acc = 0usize;
        for _ in 0..n {
            acc += framing_variant(name, black_box(&stream));
        }
        println!("{name} x{n}: {acc}");
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
