//! Fuzzes `mcp_proto::sse::SseParser`: any bytes, fed whole or split at a
//! fuzzer-chosen point, give the same events and never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_proto::sse::SseParser;

fuzz_target!(|data: &[u8]| {
    let Some((&split, stream)) = data.split_first() else {
        return;
    };
    let mut whole = SseParser::with_max_event_size(4096);
    let expected = whole.feed(stream);

    let cut = usize::from(split) % (stream.len() + 1);
    let mut parts = SseParser::with_max_event_size(4096);
    let mut got = parts.feed(&stream[..cut]);
    got.extend(parts.feed(&stream[cut..]));
    assert_eq!(got, expected);
    assert_eq!(parts.last_event_id(), whole.last_event_id());
});
