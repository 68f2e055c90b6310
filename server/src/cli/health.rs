//! `capicua-server health`: a probe for container health checks.

use std::time::Duration;

/// Succeeds when `url` answers `GET` with a 2xx status within `timeout_ms`.
pub(crate) async fn run(url: &str, timeout_ms: u64) -> anyhow::Result<()> {
    let timeout = Duration::from_millis(timeout_ms);
    let answer = tokio::time::timeout(timeout, super::http::request("GET", url, None, None))
        .await
        .map_err(|_| anyhow::anyhow!("{url}: no answer within {timeout_ms} ms"))??;
    let status = answer.status;
    if !(200..300).contains(&status) {
        // The server's reason (`/healthz` names what fails) goes with the
        // status, on the same line.
        let body: String = answer.body.chars().take(300).collect();
        let reason = body.split_whitespace().collect::<Vec<_>>().join(" ");
        if reason.is_empty() {
            anyhow::bail!("{url}: HTTP status {status}");
        }
        anyhow::bail!("{url}: HTTP status {status}: {reason}");
    }
    outln!("{url}: HTTP status {status}");
    Ok(())
}
