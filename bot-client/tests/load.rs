//! `capicua-bot load` (the library behind it) against a live server: it
//! plays, counts stored matches, and measures both response times.

#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::time::Duration;

use capicua_bot::load::{LoadConfig, run};
use capicua_server::Config;
use common::{TestServer, config, temp_db};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_plays_tables_to_stored_matches_and_measures_the_server() {
    let report = play_load(true).await;
    assert_eq!(report.latency_p50_ms, None, "no accepted asked, none measured: {report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_bots_that_ask_for_accepted_measure_it_too() {
    let report = play_load(false).await;
    let (p50, p99) = (report.latency_p50_ms.unwrap_or(0.0), report.latency_p99_ms.unwrap_or(0.0));
    assert!(p50 > 0.0 && p99 >= p50, "{report:?}");
}

/// Three tables for two seconds, a quarter of the seats churning; checks
/// what every run must show and returns the report.
async fn play_load(skip_accepted: bool) -> capicua_bot::load::LoadReport {
    // Bots that answer at once send more than the default rate of a
    // connection: lift it, as the load scripts do.
    let server =
        TestServer::start_with(temp_db(), Config { rate_per_sec: 100_000, rate_burst: 200_000, ..config() }).await;
    let report = run(LoadConfig {
        server: server.url(),
        tables: 3,
        seconds: 2,
        preset: "latin".into(),
        batch_events: true,
        skip_accepted,
        think: None,
        // Every fourth seat churns: it registers, leaves mid-match and comes back.
        churn: 0.25,
        server_pid: Some(std::process::id()),
        report_every: Some(Duration::from_secs(1)),
        rated: false,
        games: None,
        players: Vec::new(),
    })
    .await
    .expect("load runs");
    assert_eq!(report.connections, 12, "{report:?}");
    assert_eq!(report.errors, 0, "{report:?}");
    assert!(report.moves > 0 && report.finished_games > 0, "{report:?}");
    assert_eq!(report.games_not_stored, 0, "{report:?}");
    assert!(report.games_stored >= report.finished_games, "the whole run holds the window: {report:?}");
    assert!(report.reconnects > 0, "churning seats came back: {report:?}");
    assert!(report.next_prompt_p50_ms > 0.0 && report.next_prompt_p99_ms >= report.next_prompt_p50_ms, "{report:?}");
    assert!(report.server_rss_mib.is_some_and(|m| m > 0.0), "{report:?}");
    report
}
