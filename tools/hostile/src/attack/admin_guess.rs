//! `admin-guess`: `hello` with a wrong token, again and again, over a few
//! connections (a new one whenever the server closes one): guessing the
//! admin token, or a player's, online. Then, given the real admin token,
//! one `hello` with it from the guessing address and one from the probe
//! address: does the real admin still get in?

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Ctx, Tally, hold_noting};
use crate::client::{self, Conn, Rng};
use crate::http::Server;

/// `capicua-hostile admin-guess`.
pub type Args = super::Swarm;

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    // Guesses as long as the real token (hex), or as a player's.
    let length = ctx.admin_token.as_ref().map_or(64, String::len);
    ctx.begin().await;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(args.seconds);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut guessers = tokio::task::JoinSet::new();
    for i in 0..args.connections {
        let (server, tally) = (ctx.server.clone(), tally.clone());
        guessers.spawn(async move { guess(&server, length, i as u64, deadline, &tally).await });
    }
    hold_noting(ctx, deadline, Duration::from_secs(10), || {
        let t = tally.lock().expect("tally lock");
        let secs = t0.elapsed().as_secs_f64();
        format!(
            "{secs:.0} s: {:.1} guesses/s answered bad-token, {:.1}/s rate-limited; all: {t}",
            t.get("hello error:bad-token") as f64 / secs,
            t.get("hello error:rate-limited") as f64 / secs,
        )
    })
    .await;
    guessers.abort_all();
    let t = tally.lock().expect("tally lock").clone();
    let answered: u64 = t.0.iter().filter(|(k, _)| k.starts_with("hello ")).map(|(_, v)| v).sum();
    ctx.note(format!(
        "{answered} guesses in {:.0} s ({:.1}/s) over {} connections: {t}",
        args.seconds,
        answered as f64 / args.seconds.max(1) as f64,
        args.connections
    ));
    if let Some(token) = &ctx.admin_token {
        for (from, server) in [("the guessing address", &ctx.server), ("the probe address", &ctx.probe)] {
            ctx.note(format!("the real admin token from {from}: {}", real_hello(server, token).await));
        }
    }
    Ok(())
}

/// One guesser: `hello`s with random tokens until `deadline`, on a new
/// connection whenever the server ends one.
async fn guess(server: &Server, length: usize, seed: u64, deadline: Instant, tally: &Mutex<Tally>) {
    let mut rng = Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(std::process::id()));
    while Instant::now() < deadline {
        let mut conn = match Conn::open(server).await {
            Ok(c) => c,
            Err(e) => {
                tally.lock().expect("tally lock").add(format!("connect {}", client::why(&e)));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        while Instant::now() < deadline {
            let token: String = (0..length).map(|_| char::from(b"0123456789abcdef"[rng.below(16)])).collect();
            let hello = client::hello(Some(token));
            let reply = client::request(&mut conn, hello).await;
            let (what, ended) = match &reply {
                Ok(r) => (format!("hello {}", client::outcome(r)), false),
                Err(e) => (format!("connection {}", client::why(e)), true),
            };
            tally.lock().expect("tally lock").add(what);
            if ended {
                break;
            }
        }
    }
}

/// How a `hello` with the real admin token goes, on a new connection.
async fn real_hello(server: &Server, token: &str) -> String {
    let mut conn = match Conn::open(server).await {
        Ok(c) => c,
        Err(e) => return format!("connect {}", client::why(&e)),
    };
    let hello = client::hello(Some(token.to_string()));
    let what = match client::request(&mut conn, hello).await {
        Ok(r) if r["player"]["admin"] == true => "GOT IN as the admin".to_string(),
        Ok(r) => format!("refused ({})", client::outcome(&r)),
        Err(e) => format!("refused ({})", client::why(&e)),
    };
    conn.close().await;
    what
}
