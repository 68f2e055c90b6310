//! `capicua-server ladder`: a preset's ratings board.

/// Prints the ladder of preset `variant`, `limit` lines.
pub(crate) async fn run(database: &str, variant: &str, limit: u32) -> anyhow::Result<()> {
    if capicua_engine::preset(variant).is_none() {
        anyhow::bail!("unknown preset {variant:?}; ladders are the presets: {}", capicua_engine::PRESETS.join(", "));
    }
    let db = super::open_read_only(database).await?;
    let rows = db.leaderboard(variant, limit).await?;
    outln!("{variant} ladder");
    if rows.is_empty() {
        outln!("no rated games yet");
    } else {
        super::board::print(&rows)?;
    }
    db.close().await;
    Ok(())
}
