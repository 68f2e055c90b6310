use super::*;
use crate::{AppState, Config, Db};

/// The handler over plain channels: no socket, no HTTP.
#[tokio::test]
async fn a_connection_driven_through_channels_answers_in_order() {
    let path = std::env::temp_dir().join(format!("capicua-conn-unit-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let db = Db::open(path.to_str().unwrap()).await.unwrap();
    let (state, _shutdown, _done) = AppState::new(db, Config::default());
    let frames = [
        r#"{"id":1,"type":"ping"}"#,
        r#"{"id":2,"type":"hello","version":2}"#,
        r#"{"oops"#,
        r#"{"id":3,"type":"join","room":77}"#,
    ];
    let input = futures_util::stream::iter(
        frames.iter().map(|f| Ok::<_, std::convert::Infallible>(Message::Text((*f).into()))).collect::<Vec<_>>(),
    );
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let sink = futures_util::sink::unfold(tx, |tx, m: Message| async move {
        tx.send(m).map_err(|_| ())?;
        Ok::<_, ()>(tx)
    });
    serve(state, None, None, Box::pin(sink), input).await;
    let mut got = vec![];
    while let Ok(Message::Text(t)) = rx.try_recv() {
        let v: serde_json::Value = serde_json::from_str(&t).unwrap();
        got.push((v["id"].as_u64(), v["type"].as_str().unwrap().to_string(), v["code"].as_str().map(String::from)));
    }
    assert_eq!(
        got,
        vec![
            (Some(1), "pong".into(), None),
            (Some(2), "welcome".into(), None),
            (None, "error".into(), Some("bad-json".into())),
            (Some(3), "error".into(), Some("no-such-room".into())),
        ]
    );
}

/// A client that never reads: its queue fills, the connection is closed
/// as a slow consumer (4004), and what was queued is still sent first.
#[tokio::test]
async fn a_client_that_never_reads_is_closed_as_a_slow_consumer() {
    let path = std::env::temp_dir().join(format!("capicua-conn-slow-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let db = Db::open(path.to_str().unwrap()).await.unwrap();
    // After the database is open (its pool's timeouts run on real
    // time): the handler's 5 s and 2 s closing waits pass at once.
    tokio::time::pause();
    let config = Config { outbound_buffer: 4, ..Config::default() };
    let (state, _shutdown, _done) = AppState::new(db, config);
    let mut frames = vec![r#"{"id":1,"type":"hello","version":2}"#.to_string()];
    frames.extend((2..40).map(|i| format!(r#"{{"id":{i},"type":"ping"}}"#)));
    let input = futures_util::stream::iter(
        frames.into_iter().map(|f| Ok::<_, std::convert::Infallible>(Message::Text(f.into()))).collect::<Vec<_>>(),
    )
    .chain(futures_util::stream::pending());
    // The socket takes nothing until the gate opens.
    let (gate, gate_rx) = tokio::sync::watch::channel(false);
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let sink = futures_util::sink::unfold((tx, gate_rx), |(tx, mut gate), m: Message| async move {
        let _ = gate.wait_for(|open| *open).await;
        tx.send(m).map_err(|_| ())?;
        Ok::<_, ()>((tx, gate))
    });
    tokio::time::timeout(std::time::Duration::from_secs(60), serve(state, None, None, Box::pin(sink), input))
        .await
        .expect("the handler closes a client that never reads");
    gate.send(true).unwrap();
    let mut got = vec![];
    while let Some(m) = rx.recv().await {
        let end = matches!(m, Message::Close(_));
        got.push(m);
        if end {
            break;
        }
    }
    let Some(Message::Close(Some(close))) = got.last() else { panic!("no close frame: {got:?}") };
    assert_eq!(close.code, close::SLOW_CONSUMER);
    let texts: Vec<serde_json::Value> = got
        .iter()
        .filter_map(|m| match m {
            Message::Text(t) => Some(serde_json::from_str(t).unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(texts[0]["type"], "welcome", "{texts:?}");
    assert!(texts.len() <= 1 + 4, "at most the queue's capacity besides the frame being written: {texts:?}");
}
