//! A ratings board, as `standings` and `ladder` print it.

/// A ratings board: rank, name, rating, games and their wins, draws and losses.
pub(crate) fn print(rows: &[capicua_server::db::Standing]) -> anyhow::Result<()> {
    outln!(
        "{:>4}  {:<24} {:>8} {:>8} {:>7} {:>6} {:>6} {:>6} {:>6}",
        "rank",
        "name",
        "ordinal",
        "mu",
        "sigma",
        "games",
        "wins",
        "draws",
        "losses"
    );
    for s in rows {
        outln!(
            "{:>4}  {:<24} {:>8.2} {:>8.2} {:>7.2} {:>6} {:>6} {:>6} {:>6}",
            s.rank,
            s.name,
            s.ordinal,
            s.mu,
            s.sigma,
            s.games,
            s.wins,
            s.draws,
            s.losses
        );
    }
    Ok(())
}
