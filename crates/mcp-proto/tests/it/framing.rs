//! Newline framing: line ends, blank lines, the last unterminated line, and
//! the async twin behind the `tokio` feature.

use mcp_proto::framing::{FrameError, FrameReader, FrameWriter, encode_line};
use mcp_proto::{Message, Notification};

#[test]
fn crlf_blank_lines_and_last_unterminated_line() {
    let input = b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n   \r\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}";
    let lines: Vec<Vec<u8>> = FrameReader::new(&input[..]).map(Result::unwrap).collect();
    assert_eq!(
        lines,
        vec![
            b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}".to_vec(),
            b"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}".to_vec()
        ]
    );
}

#[test]
fn over_long_line_at_end_of_input_is_reported() {
    let input = b"ok\n0123456789";
    let mut reader = FrameReader::with_max_line_len(&input[..], 4);
    assert_eq!(reader.read_line().unwrap(), Some(b"ok".to_vec()));
    assert!(matches!(
        reader.read_line(),
        Err(FrameError::LineTooLong {
            max: 4,
            len: 10,
            id: None
        })
    ));
    assert_eq!(reader.read_line().unwrap(), None);
}

#[test]
fn writer_puts_one_message_per_line_even_with_newlines_in_strings() {
    let msg = Message::Notification(Notification::new(
        "notifications/message",
        Some(serde_json::json!({"level": "info", "data": "two\nlines\r\n"})),
    ));
    let mut out = Vec::new();
    FrameWriter::new(&mut out).write_message(&msg).unwrap();
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
    assert_eq!(out.last(), Some(&b'\n'));
    assert_eq!(out, encode_line(&msg).unwrap());
    let back = FrameReader::new(&out[..])
        .read_message()
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(back, msg);
}

#[cfg(feature = "tokio")]
#[tokio::test]
async fn async_reader_and_writer() {
    use mcp_proto::framing::{AsyncFrameReader, AsyncFrameWriter};

    let mut out = Vec::new();
    let mut writer = AsyncFrameWriter::new(&mut out);
    for method in ["one", "two"] {
        writer
            .write_message(&Message::Notification(Notification::new(method, None)))
            .await
            .unwrap();
    }
    out.extend_from_slice(&[b'x'; 100]);
    out.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"three\"}\n");

    let mut reader = AsyncFrameReader::with_max_line_len(&out[..], 64);
    let mut methods = Vec::new();
    let mut too_long = 0;
    loop {
        match reader.read_message().await {
            Ok(Some(Ok(Message::Notification(n)))) => methods.push(n.method),
            Ok(None) => break,
            Err(FrameError::LineTooLong {
                max: 64, len: 100, ..
            }) => too_long += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(methods, ["one", "two", "three"]);
    assert_eq!(too_long, 1);
}
