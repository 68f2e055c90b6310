//! Decoding what clients send, refusing what serde would read too
//! leniently.

use serde::Deserialize;

use crate::{ClientFrame, ErrorCode};

/// Errors decoding a client frame.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON.
    #[error("not valid JSON: {0}")]
    Json(serde_json::Error),
    /// JSON, but not a known message.
    #[error("not a known message: {0}")]
    Message(serde_json::Error),
    /// A tag ([`TAG_KEYS`]) that is not a string.
    #[error("not a known message: `{path}` must be a string naming the kind of value")]
    Tag {
        /// Where the tag is, as a dotted path from the frame (`move.kind`).
        path: String,
    },
    /// A tag ([`TAG_KEYS`]) naming no kind this place takes.
    #[error("not a known message: `{path}`: {error}")]
    UnknownTag {
        /// Where the tag is, as a dotted path from the frame (`move.family`).
        path: String,
        /// serde's words: the value and the kinds expected.
        error: serde_json::Error,
    },
}

impl DecodeError {
    /// The error code to answer with.
    pub fn code(&self) -> ErrorCode {
        match self {
            DecodeError::Json(_) => ErrorCode::BadJson,
            DecodeError::Message(_) | DecodeError::Tag { .. } | DecodeError::UnknownTag { .. } => ErrorCode::BadMessage,
        }
    }
}

/// The keys that tag the kind of a JSON object in what clients send
/// (`type` of a message, `family` of a game payload, `kind` of a move, a spot or a timeout policy,
/// `event` of an event). Their values are strings on the wire; serde would
/// also take a number there as the variant's index (`{"kind":1}` read as a
/// draw), so [`decode_strict`] refuses any other value before decoding.
pub const TAG_KEYS: [&str; 4] = ["type", "family", "kind", "event"];

/// The path of the first tag in `value` (at any depth) whose value is not a
/// string, if any.
pub fn non_string_tag(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if TAG_KEYS.contains(&k.as_str()) && !v.is_string() {
                return Some(k.clone());
            }
            non_string_tag(v).map(|inner| format!("{k}.{inner}"))
        }),
        Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, v)| non_string_tag(v).map(|inner| format!("{i}.{inner}")))
        }
        _ => None,
    }
}

/// The path of the first tag in `value` (at any depth) whose value is the
/// string `name`, if any.
fn tag_named(value: &serde_json::Value, name: &str) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if TAG_KEYS.contains(&k.as_str()) && v.as_str() == Some(name) {
                return Some(k.clone());
            }
            tag_named(v, name).map(|inner| format!("{k}.{inner}"))
        }),
        Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, v)| tag_named(v, name).map(|inner| format!("{i}.{inner}")))
        }
        _ => None,
    }
}

/// serde's error reading `value`, with the path of the tag at fault when
/// it names an unknown kind (serde's error says the value, not where it
/// is: internally tagged enums read their tag from a buffer).
fn message_error(value: &serde_json::Value, e: serde_json::Error) -> DecodeError {
    let text = e.to_string();
    let unknown = text.strip_prefix("unknown variant `").and_then(|rest| rest.split_once('`')).map(|(name, _)| name);
    match unknown.and_then(|name| tag_named(value, name)) {
        Some(path) => DecodeError::UnknownTag { path, error: e },
        None => DecodeError::Message(e),
    }
}

/// Decodes JSON a client sent into `T`, accepting only string tags
/// ([`TAG_KEYS`]). Every decoder of client input goes through here.
pub fn decode_strict<T: serde::de::DeserializeOwned>(text: &[u8]) -> Result<T, DecodeError> {
    let value: serde_json::Value = serde_json::from_slice(text).map_err(DecodeError::Json)?;
    if let Some(path) = non_string_tag(&value) {
        return Err(DecodeError::Tag { path });
    }
    T::deserialize(&value).map_err(|e| message_error(&value, e))
}

/// Decodes a client frame, telling malformed JSON from unknown messages,
/// and recovering the request id of a bad message when it can.
pub fn decode_client(text: &str) -> Result<ClientFrame, (Option<u64>, DecodeError)> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| (None, DecodeError::Json(e)))?;
    let id = || value.get("id").and_then(serde_json::Value::as_u64);
    if let Some(path) = non_string_tag(&value) {
        return Err((id(), DecodeError::Tag { path }));
    }
    ClientFrame::deserialize(&value).map_err(|e| (id(), message_error(&value, e)))
}

#[cfg(test)]
mod tests {
    use capicua_engine::Move;
    use capicua_engine::poly::PolyMove;

    use super::*;
    use crate::ClientMsg;

    /// serde reads a number in an internally tagged enum's tag as the
    /// variant's index; only the documented string tags may decode.
    #[test]
    fn numeric_tags_are_bad_messages_naming_the_field() {
        let refused = |text: &str, path: &str| {
            let (id, e) = decode_client(text).expect_err(text);
            assert_eq!(e.code(), ErrorCode::BadMessage, "{text}");
            assert!(matches!(&e, DecodeError::Tag { path: p } if p == path), "{text}: {e:?}");
            assert!(e.to_string().contains(&format!("`{path}`")), "{e}");
            id
        };
        // `{"kind":1}` and `{"kind":2}` would be a draw and a pass.
        for kind in ["1", "2", "0", "1.0", "null", "true", "[\"draw\"]", "{}"] {
            let text =
                format!(r#"{{"id":4,"type":"move","room":1,"prompt":1,"family":"tiles","move":{{"kind":{kind}}}}}"#);
            assert_eq!(refused(&text, "move.kind"), Some(4));
        }
        // The message's own tag: index 0 would be `hello`.
        assert_eq!(refused(r#"{"id":5,"type":0,"version":1}"#, "type"), Some(5));
        assert_eq!(refused(r#"{"type":17}"#, "type"), None);
        // The family: index 1 would be `poly`.
        let text = r#"{"id":6,"type":"move","room":1,"prompt":1,"family":1,"move":{"kind":"pass"}}"#;
        assert_eq!(refused(text, "family"), Some(6));
        // A nested tag: the create-room timeout policy.
        refused(r#"{"type":"create-room","preset":"block","on-timeout":{"kind":1}}"#, "on-timeout.kind");
        // The string tags still decode.
        let ok = decode_client(r#"{"type":"move","room":1,"prompt":2,"family":"tiles","move":{"kind":"draw"}}"#);
        assert_eq!(ok.unwrap().msg, ClientMsg::play(1, 2, Move::Draw));
        let ok = decode_client(r#"{"type":"move","room":1,"prompt":2,"family":"poly","move":{"kind":"draw"}}"#);
        assert_eq!(ok.unwrap().msg, ClientMsg::play(1, 2, PolyMove::Draw));
        assert!(matches!(decode_client(r#"{"type":"ping"}"#), Ok(ClientFrame { msg: ClientMsg::Ping, .. })));
        // Bad JSON stays bad JSON.
        assert_eq!(decode_client("{\"type\":").unwrap_err().1.code(), ErrorCode::BadJson);
    }

    #[test]
    fn an_unknown_string_tag_names_its_field_by_path() {
        let named = |text: &str, path: &str| {
            let (_, e) = decode_client(text).expect_err(text);
            assert_eq!(e.code(), ErrorCode::BadMessage, "{text}");
            assert!(matches!(&e, DecodeError::UnknownTag { path: p, .. } if p == path), "{text}: {e:?}");
            let said = e.to_string();
            assert!(said.contains(&format!("`{path}`")) && said.contains("hex"), "{said}");
        };
        named(r#"{"type":"move","room":1,"prompt":1,"family":"hex","move":{"kind":"pass"}}"#, "family");
        named(r#"{"type":"move","room":1,"prompt":1,"family":"tiles","move":{"kind":"hex"}}"#, "move.kind");
        named(r#"{"type":"hex"}"#, "type");
        let e = decode_strict::<Vec<Move>>(br#"[{"kind":"pass"},{"kind":"hex"}]"#).unwrap_err();
        assert!(matches!(&e, DecodeError::UnknownTag { path, .. } if path == "1.kind"), "{e:?}");
        // Any other mistake keeps serde's words alone.
        let (_, e) = decode_client(r#"{"type":"join","room":"x"}"#).unwrap_err();
        assert!(matches!(e, DecodeError::Message(_)), "{e:?}");
    }

    /// The same check serves every decoder of client input, the engine's
    /// polyomino moves and spots included.
    #[test]
    fn decode_strict_refuses_numeric_tags_at_any_depth() {
        let e = decode_strict::<PolyMove>(br#"{"kind":"play","tile":3,"at":{"kind":1,"x":0,"y":0},"rotation":0}"#)
            .unwrap_err();
        assert!(matches!(&e, DecodeError::Tag { path } if path == "at.kind"), "{e:?}");
        assert!(matches!(decode_strict::<PolyMove>(br#"{"kind":2}"#), Err(DecodeError::Tag { .. })));
        assert_eq!(decode_strict::<PolyMove>(br#"{"kind":"pass"}"#).unwrap(), PolyMove::Pass);
        let e = decode_strict::<Vec<Move>>(br#"[{"kind":"pass"},{"kind":1}]"#).unwrap_err();
        assert!(matches!(&e, DecodeError::Tag { path } if path == "1.kind"), "{e:?}");
        // Without the check serde takes the index inside a message (buffered
        // for its own tag): what the check is for.
        let unchecked: ClientFrame =
            serde_json::from_str(r#"{"type":"move","room":1,"prompt":2,"family":"tiles","move":{"kind":1}}"#).unwrap();
        assert_eq!(unchecked.msg, ClientMsg::play(1, 2, Move::Draw));
    }
}
