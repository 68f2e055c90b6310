//! Several servers on one PostgreSQL database: each records itself as a
//! node, lists every live node's rooms in its lobby, and answers a message
//! for a room another node hosts with `wrong-node` and that node's URL,
//! where the room is joined. A node that stops leaves the lists at once.
//! Each node holds a lock of its own on the database, which it takes again
//! when its session is lost. On SQLite the one server lists itself.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{Client, TestServer, config, wait_for};
use serde_json::json;

#[tokio::test]
async fn a_room_on_another_node_is_listed_everywhere_and_joined_where_it_lives() {
    let Some(pg) = capicua_pgtest::require("a_room_on_another_node_is_listed_everywhere") else {
        return;
    };
    let database = pg.fresh_database();
    let mut a = TestServer::start_with(PathBuf::from(&database), config()).await;
    let b = TestServer::start_with(PathBuf::from(&database), config()).await;
    let (a_url, b_url) = (format!("http://{}", a.addr), format!("http://{}", b.addr));

    // Both nodes are live, whichever is asked, with the URLs they listen at.
    // (Each records itself as its `run` starts: wait for both.)
    for server in [&a, &b] {
        wait_for("both nodes listed", Duration::from_secs(10), async || {
            let nodes = server.get_json("/api/nodes").await;
            let urls: Vec<String> =
                nodes.as_array().unwrap().iter().map(|n| n["url"].as_str().unwrap().to_string()).collect();
            if urls == [a_url.clone(), b_url.clone()] || urls == [b_url.clone(), a_url.clone()] {
                Ok(())
            } else {
                Err(urls)
            }
        })
        .await;
    }

    // Exactly one of them runs the tournaments.
    wait_for("one scheduler among the nodes", Duration::from_secs(10), async || {
        let nodes = b.get_json("/api/nodes").await;
        let n = nodes.as_array().unwrap().iter().filter(|n| n["scheduler"] == json!(true)).count();
        if n == 1 { Ok(()) } else { Err(nodes) }
    })
    .await;

    let mut host = a.guest().await;
    let room = host.create_room(json!({"preset": "block"})).await;
    host.join(room, Some(0)).await;
    let mut secret = a.guest().await;
    let private = secret.create_room(json!({"preset": "block", "private": true})).await;

    // B lists A's room (as of A's next beat), marked with A's URL; A lists
    // it as its own. A private room is listed by neither.
    let listed = wait_for("B to list A's room", Duration::from_secs(10), async || {
        let rooms = b.get_json("/api/rooms").await;
        let found = rooms.as_array().unwrap().iter().find(|r| r["id"] == json!(room)).cloned();
        found.ok_or(rooms)
    })
    .await;
    assert_eq!(listed["node"], json!(a_url), "{listed}");
    let own = a.get_json("/api/rooms").await;
    let own_room = own.as_array().unwrap().iter().find(|r| r["id"] == json!(room)).expect("A lists its room");
    assert!(own_room.get("node").is_none(), "a node's own rooms carry no URL: {own_room}");
    assert_eq!(listed["seats"], own_room["seats"], "B shows who sits in A's room");
    // Guests are named by their node too: B's guest-1 is not A's.
    let nodes = a.get_json("/api/nodes").await;
    let a_id = nodes.as_array().unwrap().iter().find(|n| n["url"] == json!(a_url)).unwrap()["id"].clone();
    let name = listed["seats"][0]["occupant"]["name"].as_str().unwrap();
    assert!(name.starts_with("guest-") && name.ends_with(&format!("@{a_id}")), "{name}");
    for server in [&a, &b] {
        let rooms = server.get_json("/api/rooms").await;
        assert!(rooms.as_array().unwrap().iter().all(|r| r["id"] != json!(private)), "{rooms}");
    }
    // The WebSocket lobby is the same list.
    let mut guest = b.guest().await;
    let r = guest.request(json!({"type": "list-rooms"})).await;
    assert!(r["rooms"].as_array().unwrap().iter().any(|r| r["id"] == json!(room) && r["node"] == json!(a_url)), "{r}");

    // Joining or watching it on B: `wrong-node`, with A's URL.
    for msg in [json!({"type": "join", "room": room}), json!({"type": "spectate", "room": room})] {
        let r = guest.request(msg).await;
        assert_eq!(r["type"], "error", "{r}");
        assert_eq!(r["code"], "wrong-node", "{r}");
        assert_eq!(r["url"], json!(a_url), "{r}");
    }
    // A room nobody opened is still no such room.
    let r = guest.request(json!({"type": "join", "room": room + 1000})).await;
    assert_eq!(r["code"], "no-such-room", "{r}");

    // Followed: the same join at that URL seats the player.
    let mut follower = Client::connect(&format!("{}/ws", listed["node"].as_str().unwrap().replace("http", "ws"))).await;
    follower.hello(None).await;
    assert_eq!(follower.join(room, None).await, 1);

    // A stops: it leaves B's nodes and lobby at once, and its rooms are gone.
    drop((host, secret, follower));
    a.stop().await;
    let nodes = b.get_json("/api/nodes").await;
    let urls: Vec<&str> = nodes.as_array().unwrap().iter().map(|n| n["url"].as_str().unwrap()).collect();
    assert_eq!(urls, [b_url.as_str()], "{nodes}");
    let rooms = b.get_json("/api/rooms").await;
    assert!(rooms.as_array().unwrap().iter().all(|r| r["id"] != json!(room)), "{rooms}");
    let r = guest.request(json!({"type": "join", "room": room})).await;
    assert_eq!(r["code"], "no-such-room", "{r}");
}

#[tokio::test]
async fn one_server_on_sqlite_lists_itself_as_the_only_node() {
    let server = TestServer::start().await;
    let nodes = wait_for("the server listed", Duration::from_secs(10), async || {
        let nodes = server.get_json("/api/nodes").await;
        if nodes.as_array().unwrap().is_empty() { Err(nodes) } else { Ok(nodes) }
    })
    .await;
    let list = nodes.as_array().unwrap();
    assert_eq!(list.len(), 1, "{nodes}");
    assert_eq!(list[0]["url"], json!(format!("http://{}", server.addr)));
    assert!(list[0]["heartbeat-at"].as_i64().unwrap() > 0, "{nodes}");
    // It runs the tournaments, as its beat says.
    wait_for("the beat to say it runs the tournaments", Duration::from_secs(10), async || {
        let nodes = server.get_json("/api/nodes").await;
        if nodes[0]["scheduler"] == json!(true) { Ok(()) } else { Err(nodes) }
    })
    .await;
    let mut c = server.guest().await;
    let r = c.request(json!({"type": "join", "room": 999})).await;
    assert_eq!(r["code"], "no-such-room", "{r}");
}

/// The backend holding node `node`'s lock (`pg_advisory_lock` keyed
/// "capn" and the node id), if any.
async fn lock_holder(pool: &sqlx::AnyPool, node: i64) -> Option<i32> {
    sqlx::query_scalar(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND classid = 1667330158 AND objid::bigint = $1
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .bind(node)
    .fetch_optional(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_node_holds_a_lock_of_its_own_and_takes_it_again_when_its_session_ends() {
    let Some(pg) = capicua_pgtest::require("a_node_holds_a_lock_of_its_own") else {
        return;
    };
    let database = pg.fresh_database();
    let a = TestServer::start_with(PathBuf::from(&database), config()).await;
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&capicua_server::db::database_url(&database)).await.unwrap();
    let id = wait_for("the node listed", Duration::from_secs(10), async || {
        let nodes = a.get_json("/api/nodes").await;
        nodes[0]["id"].as_i64().ok_or(nodes)
    })
    .await;
    let first =
        wait_for("the node's lock held", Duration::from_secs(10), async || lock_holder(&pool, id).await.ok_or(()))
            .await;
    // The database ends the lock's session, as when its connection drops:
    // the node takes its lock again, on a new session, and stays listed.
    let ended: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)").bind(first).fetch_one(&pool).await.unwrap();
    assert!(ended);
    wait_for("the node's lock held again by a new session", Duration::from_secs(10), async || {
        match lock_holder(&pool, id).await {
            Some(pid) if pid != first => Ok(()),
            other => Err(other),
        }
    })
    .await;
    let nodes = a.get_json("/api/nodes").await;
    assert_eq!(nodes[0]["id"], json!(id), "{nodes}");
    pool.close().await;
}
