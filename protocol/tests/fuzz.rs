//! Fuzzing the client frame decoder on the stable toolchain: arbitrary
//! bytes, and the documented example frames with hostile edits. Decoding
//! never panics, a refusal carries its error code, and an accepted frame
//! says what its input said: it encodes back to a frame that decodes to
//! itself, with the input's own string tags. `CAPICUA_FUZZ_CASES` sets the
//! cases per test (see `capicua-fuzzkit`).

use capicua_fuzzkit::{apply_with, bytes, config, edits};
use capicua_protocol::decode_client;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Every kind of client message, as the book's Protocol reference writes them.
fn examples() -> Vec<Value> {
    let latin = serde_json::to_value(capicua_engine::preset("latin").unwrap()).unwrap();
    vec![
        json!({"id": 1, "type": "hello", "version": 2, "token": "t", "lean-prompts": true, "batch-events": true, "skip-accepted": true}),
        json!({"id": 2, "type": "register", "name": "ana"}),
        json!({"id": 3, "type": "list-rooms"}),
        json!({"id": 4, "type": "create-room", "preset": "block", "seats": 2, "rated": false,
               "time": {"move-ms": 1000, "bank-ms": 0}, "on-timeout": {"kind": "strategy", "name": "random"}}),
        json!({"id": 5, "type": "create-room", "variant": latin, "teams": [[0, 2], [1, 3]], "private": true}),
        json!({"id": 6, "type": "create-room", "variant-file": "base = \"latin\"\nname = \"x\"\n", "seed": 7}),
        json!({"id": 7, "type": "join", "room": 1, "seat": 0}),
        json!({"id": 8, "type": "join", "invite": "0b8a5f0e-3c1d-4e6f-9a2b-7c4d1e8f0a3b"}),
        json!({"id": 9, "type": "leave", "room": 1}),
        json!({"id": 10, "type": "spectate", "room": 1}),
        json!({"id": 11, "type": "fill-bots", "room": 1, "strategy": "pimc:samples=50"}),
        json!({"id": 12, "type": "ready", "room": 1}),
        json!({"id": 13, "type": "move", "room": 1, "prompt": 1, "family": "tiles",
               "move": {"kind": "play", "tile": [6, 6], "end": 255, "face": 0}}),
        json!({"id": 14, "type": "move", "room": 1, "prompt": 2, "family": "tiles", "move": {"kind": "pass"}}),
        json!({"id": 15, "type": "move", "room": 1, "prompt": 3, "family": "poly", "move": {"kind": "draw"}}),
        json!({"id": 16, "type": "resync", "room": 1}),
        json!({"id": 17, "type": "close-room", "room": 1}),
        json!({"id": 18, "type": "ping"}),
        json!({"id": 19, "type": "chat", "room": 2, "text": "good game, partner"}),
        json!({"id": 20, "type": "await-assignments"}),
        json!({"id": 21, "type": "subscribe-tournament", "tournament": 1}),
        json!({"id": 22, "type": "join-ladder", "variant": "block"}),
        json!({"id": 23, "type": "leave-ladder"}),
        json!({"id": 23, "type": "seek", "preset": "draw", "seats": 2, "rated": false}),
        json!({"id": 23, "type": "cancel-seek"}),
        json!({"id": 24, "type": "move", "room": 1, "prompt": 4, "family": "poly",
               "move": {"kind": "play", "tile": 12, "at": {"kind": "cell", "x": -1, "y": 2}, "rotation": 1}}),
        json!({"id": 25, "type": "move", "room": 1, "prompt": 5, "family": "poly",
               "move": {"kind": "play", "tile": 4, "at": {"kind": "face", "node": 0, "face": 2}, "rotation": 2}}),
    ]
}

/// The protocol's words: message types, families, move kinds, policy kinds.
const WORDS: &[&str] = &[
    "hello",
    "family",
    "tiles",
    "poly",
    "cell",
    "face",
    "register",
    "create-room",
    "join",
    "move",
    "play",
    "pass",
    "draw",
    "strategy",
    "random",
    "latin",
    "block",
    "ping",
    "chat",
    "ready",
    "spectate",
];

/// The tags of an input frame (`type`, and `kind` of a move or policy) are
/// the strings its decoded frame says.
fn check(text: &str) -> Result<(), TestCaseError> {
    match decode_client(text) {
        Err((_, e)) => prop_assert!(!serde_json::to_string(&e.code()).unwrap().is_empty()),
        Ok(frame) => {
            let back = serde_json::to_string(&frame).unwrap();
            let again = decode_client(&back).map_err(|(_, e)| TestCaseError::fail(format!("{back}: {e}")))?;
            prop_assert_eq!(&again, &frame, "re-encoded as {}", back);
            let input: Value = serde_json::from_str(text).unwrap();
            let decoded: Value = serde_json::from_str(&back).unwrap();
            prop_assert_eq!(&input["type"], &decoded["type"], "type tag of {}", text);
            if decoded.get("family").is_some() {
                prop_assert_eq!(&input["family"], &decoded["family"], "family tag of {}", text);
            }
            for field in ["move", "on-timeout"] {
                if decoded[field].is_object() {
                    prop_assert_eq!(&input[field]["kind"], &decoded[field]["kind"], "{} kind of {}", field, text);
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic_the_decoder(b in bytes()) {
        check(&String::from_utf8_lossy(&b))?;
    }

    #[test]
    fn edited_example_frames_decode_faithfully_or_are_refused(which in 0..25usize, e in edits()) {
        let mut doc = examples()[which].clone();
        apply_with(&mut doc, &e, WORDS);
        check(&doc.to_string())?;
    }
}

#[test]
fn the_examples_decode() {
    for e in examples() {
        assert!(decode_client(&e.to_string()).is_ok(), "{e}");
    }
}
