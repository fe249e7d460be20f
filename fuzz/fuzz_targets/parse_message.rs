//! Fuzzes `mcp_proto::parse_message`: any bytes give a message or an error
//! value, never a panic; an accepted message writes back to bytes that parse
//! to the same message; typed params of known methods decode or fail cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_proto::methods::{CallTool, ListTools, Method};
use mcp_proto::{Message, parse_message};

fuzz_target!(|data: &[u8]| {
    let Ok(message) = parse_message(data) else {
        return;
    };
    let bytes = mcp_proto::framing::encode_line(&message).expect("a parsed message serializes");
    let again = parse_message(&bytes).expect("a written message parses");
    assert_eq!(again, message);
    if let Message::Request(req) = &message {
        match req.method.as_str() {
            CallTool::METHOD => {
                let _ = req.parse_params::<<CallTool as Method>::Params>();
            }
            ListTools::METHOD => {
                let _ = req.parse_params::<<ListTools as Method>::Params>();
            }
            _ => {}
        }
    }
});
