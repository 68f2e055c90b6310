//! Private rooms: unlisted, refused by number, joined by their invite.

mod common;

use common::TestServer;
use serde_json::json;

#[tokio::test]
async fn a_private_room_is_unlisted_and_joined_only_by_its_invite() {
    let server = TestServer::start().await;
    let mut host = server.guest().await;
    let public = host.create_room(json!({"preset": "latin"})).await;
    let r = host.request(json!({"type": "create-room", "preset": "latin", "private": true})).await;
    assert_eq!(r["type"], "room", "{r}");
    assert_eq!(r["room"]["private"], true, "{r}");
    let room = r["room"]["id"].as_u64().unwrap();
    let invite = r["room"]["invite"].as_str().unwrap().to_string();
    // A UUID v4: 8-4-4-4-12 hex digits, version 4, RFC 4122 variant.
    let parts: Vec<&str> = invite.split('-').collect();
    assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [8, 4, 4, 4, 12], "{invite}");
    assert!(invite.chars().all(|c| c == '-' || c.is_ascii_hexdigit()), "{invite}");
    assert!(parts[2].starts_with('4') && "89ab".contains(&parts[3][..1]), "{invite}");
    let other = host.request(json!({"type": "create-room", "preset": "latin", "private": true})).await;
    assert_ne!(other["room"]["invite"], json!(invite), "every private room has its own invite");

    // Listed nowhere, by either way of asking.
    let mut guest = server.guest().await;
    let listed = guest.request(json!({"type": "list-rooms"})).await;
    let ids: Vec<u64> = listed["rooms"].as_array().unwrap().iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [public], "{listed}");
    let api = server.get_json("/api/rooms").await;
    let ids: Vec<u64> = api.as_array().unwrap().iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [public], "{api}");

    // Not by number, not by a wrong invite, nor with both.
    let r = guest.request(json!({"type": "join", "room": room})).await;
    assert_eq!((r["type"].as_str(), r["code"].as_str()), (Some("error"), Some("invite-only")), "{r}");
    let r = guest.request(json!({"type": "join", "invite": "00000000-0000-4000-8000-000000000000"})).await;
    assert_eq!(r["code"], "no-such-room", "{r}");
    let r = guest.request(json!({"type": "join", "room": room, "invite": invite})).await;
    assert_eq!(r["code"], "bad-request", "{r}");
    let r = guest.request(json!({"type": "join"})).await;
    assert_eq!(r["code"], "bad-request", "{r}");

    // By its invite: seated, in that room, and members never see the invite.
    let r = guest.request(json!({"type": "join", "invite": invite, "seat": 2})).await;
    assert_eq!(r["type"], "seated", "{r}");
    assert_eq!((r["room"].as_u64(), r["seat"].as_u64()), (Some(room), Some(2)), "{r}");
    let info = guest.recv_type("room").await;
    assert_eq!(info["room"]["private"], true, "{info}");
    assert!(info["room"].get("invite").is_none(), "{info}");

    // A public room is still joined by number.
    assert_eq!(guest.join(public, None).await, 0);
}

#[tokio::test]
async fn a_private_room_is_watched_only_with_its_invite() {
    let server = TestServer::start().await;
    let mut host = server.guest().await;
    let public = host.create_room(json!({"preset": "latin"})).await;
    let r = host.request(json!({"type": "create-room", "preset": "latin", "private": true})).await;
    let room = r["room"]["id"].as_u64().unwrap();
    let invite = r["room"]["invite"].as_str().unwrap().to_string();

    // Not by number, not by a wrong invite, nor with both or neither:
    // the same answers as `join`, and no view of the table.
    let mut watcher = server.guest().await;
    let r = watcher.request(json!({"type": "spectate", "room": room})).await;
    assert_eq!((r["type"].as_str(), r["code"].as_str()), (Some("error"), Some("invite-only")), "{r}");
    let r = watcher.request(json!({"type": "spectate", "invite": "00000000-0000-4000-8000-000000000000"})).await;
    assert_eq!(r["code"], "no-such-room", "{r}");
    let r = watcher.request(json!({"type": "spectate", "room": room, "invite": invite})).await;
    assert_eq!(r["code"], "bad-request", "{r}");
    let r = watcher.request(json!({"type": "spectate"})).await;
    assert_eq!(r["code"], "bad-request", "{r}");

    // With the invite: watching that room, whose state follows.
    let r = watcher.request(json!({"type": "spectate", "invite": invite})).await;
    assert_eq!(r["type"], "spectating", "{r}");
    assert_eq!(r["room"].as_u64(), Some(room), "{r}");
    let sync = watcher.recv_type("sync").await;
    assert_eq!(sync["info"]["id"].as_u64(), Some(room), "{sync}");
    assert!(sync["info"].get("invite").is_none(), "{sync}");

    // A public room is still watched by number.
    let r = watcher.request(json!({"type": "spectate", "room": public})).await;
    assert_eq!(r["type"], "spectating", "{r}");
}
