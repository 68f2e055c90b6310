//! Swiss: pairing by standing, avoiding repeats, as `pairing = "neighbours"`
//! (and a spec without `pairing`) plays it; `pairing = "dutch"` is
//! `dutch.rs`.
//!
//! Two entrants per table: an odd count gives the bye to the lowest-ranked
//! entrant among those with the fewest byes; the rest are paired in ranking
//! order (1-2, 3-4, ...) with the first partner down the list not met before,
//! backtracking when that leaves later entrants stuck, so a repeat happens
//! only when no repeat-free pairing exists (or the search budget runs out).
//! Four entrants per table: sit-outs likewise, then tables filled in ranking
//! order with the entrants that have met the table least; rotating partners
//! split each table into the pairs that have partnered least.

use super::{Ctx, PairCounts, Plan, fill_fours, pairing::pair_avoiding, sit_out, split_pairs};
use crate::table::TableKind;

pub(crate) fn next(
    kind: TableKind,
    ctx: &Ctx<'_>,
    opponents: &PairCounts,
    partners: &PairCounts,
    byes: &[u32],
) -> Option<Plan> {
    let per = kind.entrants_per_table();
    if ctx.ranked.len() < per {
        return None;
    }
    let (out, play) = sit_out(ctx.ranked, ctx.ranked.len() % per, byes);
    let tables = if per == 2 {
        pair_avoiding(&play, opponents).into_iter().map(|(a, b)| vec![vec![a], vec![b]]).collect()
    } else {
        let fours = fill_fours(&play, |table, c| {
            let seen: u32 = table.iter().map(|&t| opponents.get(t, c) + partners.get(t, c)).sum();
            seen
        });
        fours
            .into_iter()
            .map(|t| match kind {
                TableKind::RotatingPartners => split_pairs(&t, partners, opponents),
                _ => t.into_iter().map(|e| vec![e]).collect(),
            })
            .collect()
    };
    Some(Plan { tables, byes: out })
}
