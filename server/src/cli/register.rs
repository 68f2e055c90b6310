//! `capicua-server register`: a player name and its secret token.

/// Registers `name` in `database` and prints its token, shown this once.
pub(crate) async fn run(name: &str, database: &str, allow_foreign_tables: bool) -> anyhow::Result<()> {
    // Checked before the database is opened: a refused name leaves no file
    // behind.
    let name = capicua_protocol::check_name(name).map_err(|rules| anyhow::anyhow!("{name:?}: {rules}"))?;
    let db = super::open_for_writing(database, allow_foreign_tables).await?;
    let (player, token) = db.register(&name).await?;
    outln!("registered {} (id {}); token (shown once): {token}", player.name, player.id);
    db.close().await;
    Ok(())
}
