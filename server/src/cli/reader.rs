//! Where a reading `tournament` command asks: the serving server's public
//! API (no token needed), which alone knows its rooms and connections.

use std::time::Duration;

use anyhow::Context;

/// Where a reading command asks: the serving server, whose public API
/// answers it (no token needed).
#[derive(clap::Args)]
pub(crate) struct Reader {
    /// The tournament's id.
    id: i64,
    /// The serving server's base URL (plain `http://HOST[:PORT]`).
    #[arg(long, env = "CAPICUA_SERVER", default_value = "http://127.0.0.1:8080")]
    server: String,
}

impl Reader {
    /// `GET` of `path` under the tournament's API URL: the answer's body,
    /// or the server's error.
    pub(crate) async fn get(&self, path: &str) -> anyhow::Result<String> {
        let url = format!("{}/api/tournaments/{}{path}", self.server.trim_end_matches('/'), self.id);
        let call = super::http::request("GET", &url, None, None);
        let answer = tokio::time::timeout(Duration::from_secs(30), call)
            .await
            .map_err(|_| anyhow::anyhow!("{url}: no answer within 30 s"))??;
        if !(200..300).contains(&answer.status) {
            let reason = serde_json::from_str::<serde_json::Value>(&answer.body)
                .ok()
                .and_then(|j| Some(format!("{}: {}", j.get("code")?.as_str()?, j.get("message")?.as_str()?)))
                .unwrap_or_else(|| answer.body.split_whitespace().collect::<Vec<_>>().join(" "));
            anyhow::bail!("tournament {}: HTTP status {}: {reason}", self.id, answer.status);
        }
        Ok(answer.body)
    }

    /// [`Reader::get`] as JSON.
    pub(crate) async fn get_json(&self, path: &str) -> anyhow::Result<serde_json::Value> {
        let body = self.get(path).await?;
        serde_json::from_str(&body).with_context(|| format!("the server's answer to {path} is not JSON"))
    }
}
