//! Playing a two-faced deal out with every hand open: rollout policies,
//! an exact solver for small endings, and what the end of a hand is worth
//! to a side. `pimc`, `ismcts` and the oracle all play their sampled or
//! open deals out with these.

use capicua_engine::{Game, Move, MoveList, Side};

use crate::rng::BotRng;

/// How a determinized deal is played out after a candidate move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// Every seat plays uniformly at random.
    Random,
    /// Every seat plays its heaviest playable tile (random among equals).
    Heavy,
    /// Every seat plays to leave the next seat the fewest playable tiles
    /// (the deal is open in a rollout), then the heaviest.
    Block,
    /// The deciding side plays as in `Block`, the other sides as in `Heavy`.
    OwnBlock,
}

/// 1 if the engine names `side` the winner of the hand that followed
/// `hands_before` finished hands, else 0.
pub(crate) fn hand_won(game: &Game, hands_before: usize, side: Side) -> f64 {
    match game.hand_results().get(hands_before).and_then(|r| r.winner) {
        Some(w) if w == side => 1.0,
        _ => 0.0,
    }
}

/// The value of the finished hand (or match) for `side`.
///
/// Under the usual scoring: +1 won, -1 lost, 0 nobody won, plus a little
/// for the points so that among equally likely wins the bigger one is
/// preferred. Under penalty scoring ([`Rules::penalty_scoring`], e.g.
/// mexican train: every side keeps its own pips and the lowest total wins)
/// who went out does not matter: the value is how many fewer pips the side
/// keeps than the other sides on average, scaled by the value of the whole
/// set shared among the seats (about -1..1).
pub(crate) fn hand_value(game: &Game, hands_before: usize, side: Side) -> f64 {
    let Some(r) = game.hand_results().get(hands_before) else { return 0.0 };
    if game.rules().penalty_scoring() {
        return penalty_value(game, r, side);
    }
    let points = 0.001 * r.points.min(200) as f64;
    match r.winner {
        Some(w) if w == side => 1.0 + points,
        Some(_) => -1.0 - points,
        None => 0.0,
    }
}

/// [`hand_value`] under penalty scoring: the other sides' mean pips minus
/// `side`'s, over the set's total value per seat.
fn penalty_value(game: &Game, r: &capicua_engine::HandResult, side: Side) -> f64 {
    let table = game.table();
    let mut totals = [0i64; capicua_engine::MAX_SEATS];
    for (s, &p) in r.pips.iter().enumerate() {
        totals[table.side_of(capicua_engine::Seat(s as u8)).index()] += p as i64;
    }
    let sides = table.sides() as usize;
    let own = totals[side.index()] as f64;
    let others = if sides > 1 { (totals[..sides].iter().sum::<i64>() as f64 - own) / (sides - 1) as f64 } else { 0.0 };
    let cat = game.rules().catalog();
    let whole: i64 = cat.all().iter().map(|t| game.tile_value(t).abs() as i64).sum();
    let scale = (whole as f64 / table.seats().max(1) as f64).max(1.0);
    (others - own) / scale
}

/// The exact value of the hand for `side` with every seat playing
/// perfectly on open cards (the other sides against it): +1 won, 0 tied,
/// -1 lost, or under penalty scoring the [`hand_value`] of the end reached;
/// paired with whether the engine names `side` the winner of the hand at
/// the end of the line found (1 or 0). Alpha-beta on the value, heaviest
/// tiles tried first. `None` once `nodes` positions have been visited.
pub(crate) fn solve(
    game: &Game,
    hands_before: usize,
    side: Side,
    mut alpha: f64,
    mut beta: f64,
    nodes: &mut u32,
) -> Option<(f64, f64)> {
    let Some(seat) = game.to_move().filter(|_| game.hand_results().len() == hands_before) else {
        let won = hand_won(game, hands_before, side);
        if game.rules().penalty_scoring() {
            return Some((hand_value(game, hands_before, side), won));
        }
        return Some(match game.hand_results().get(hands_before).and_then(|r| r.winner) {
            Some(w) if w == side => (1.0, won),
            Some(_) => (-1.0, won),
            None => (0.0, won),
        });
    };
    *nodes = nodes.checked_sub(1)?;
    let mut moves = MoveList::new();
    game.fill_legal_moves(&mut moves);
    moves.sort_unstable_by_key(|m| match *m {
        Move::Play { tile, .. } => -game.tile_value(tile),
        _ => i32::MAX,
    });
    let maximizing = game.table().side_of(seat) == side;
    let mut best = if maximizing { (f64::NEG_INFINITY, 0.0) } else { (f64::INFINITY, 0.0) };
    for &m in moves.iter() {
        let mut g = game.clone();
        g.play(m).expect("legal moves are accepted");
        let v = solve(&g, hands_before, side, alpha, beta, nodes)?;
        if maximizing {
            if v.0 > best.0 {
                best = v;
            }
            alpha = alpha.max(v.0);
        } else {
            if v.0 < best.0 {
                best = v;
            }
            beta = beta.min(v.0);
        }
        if alpha >= beta {
            break;
        }
    }
    Some(best)
}

/// Tiles left in all hands.
pub(crate) fn tiles_in_hands(game: &Game) -> u32 {
    (0..game.table().seats()).map(|s| game.hand_len(capicua_engine::Seat(s)) as u32).sum()
}

/// Plays `game` to the end of the current hand with `policy`.
pub(crate) fn roll_out(
    game: &mut Game,
    hands_before: usize,
    policy: Rollout,
    side: Side,
    rng: &mut BotRng,
    moves: &mut MoveList,
) {
    while game.hand_results().len() == hands_before && game.to_move().is_some() {
        game.fill_legal_moves(moves);
        let policy = match policy {
            Rollout::OwnBlock if game.to_move().map(|s| game.table().side_of(s)) == Some(side) => Rollout::Block,
            Rollout::OwnBlock => Rollout::Heavy,
            p => p,
        };
        let m = match policy {
            Rollout::Random => moves[rng.below(moves.len())],
            Rollout::Block | Rollout::OwnBlock => pick_max(moves, rng, |m| block_score(game, m)),
            Rollout::Heavy => {
                let mut best = moves[0];
                let mut best_value = i32::MIN;
                let mut ties = 0;
                for &m in moves.iter() {
                    let v = match m {
                        Move::Play { tile, .. } => game.tile_value(tile),
                        _ => i32::MIN + 1,
                    };
                    if v > best_value {
                        best_value = v;
                        best = m;
                        ties = 1;
                    } else if v == best_value {
                        ties += 1;
                        if rng.below(ties) == 0 {
                            best = m;
                        }
                    }
                }
                best
            }
        };
        game.play(m).expect("rollouts play legal moves");
    }
}

/// The move of `moves` with the highest `score`, random among equals.
fn pick_max(moves: &MoveList, rng: &mut BotRng, score: impl Fn(Move) -> i32) -> Move {
    let mut best = moves[0];
    let mut best_score = i32::MIN;
    let mut ties = 0;
    for &m in moves.iter() {
        let v = score(m);
        if v > best_score {
            (best, best_score, ties) = (m, v, 1);
        } else if v == best_score {
            ties += 1;
            if rng.below(ties) == 0 {
                best = m;
            }
        }
    }
    best
}

/// Fewer playable tiles left to the next seat first, then heavier tiles
/// (by the deal's tile values).
fn block_score(game: &Game, m: Move) -> i32 {
    let cat = game.rules().catalog();
    let Move::Play { tile, end, face } = m else { return i32::MIN };
    let (lo, hi) = tile.faces();
    let ends = game.board().ends();
    let open = if ends.is_empty() {
        (1u32 << lo) | (1 << hi)
    } else {
        let far = if face == 0 { hi } else { lo };
        ends.iter().enumerate().filter(|&(i, _)| i != end.0 as usize).fold(1u32 << far, |m, (_, e)| m | (1 << e.pip))
    };
    let Some(seat) = game.to_move() else { return 0 };
    let next = game.hand(game.next_seat(seat));
    let mut reachable = capicua_engine::TileSet::EMPTY;
    let mut bits = open;
    while bits != 0 {
        reachable = reachable.or(cat.suit(bits.trailing_zeros() as u8));
        bits &= bits - 1;
    }
    -1000 * next.and(reachable).len() as i32 + game.tile_value(tile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use capicua_engine::{MatchTarget, Rules, Seat, Seating, preset};
    use std::sync::Arc;

    /// Under penalty scoring a seat that did not go out but kept fewer pips
    /// than the others did well: the value follows the pips, not the winner.
    #[test]
    fn penalty_scoring_values_own_pips_not_the_winner() {
        let mut v = preset("mexican-train").unwrap();
        v.target = MatchTarget::Hands(1);
        let rules: Arc<Rules> = v.validate().unwrap().into();
        assert!(rules.penalty_scoring());
        let (mut rng, mut moves) = (BotRng::new(1), MoveList::new());
        let mut not_winner_but_ahead = 0;
        for seed in 0..16 {
            let mut g = Game::new(rules.clone(), Seating::new(4), seed).unwrap();
            roll_out(&mut g, 0, Rollout::Heavy, Side(0), &mut rng, &mut moves);
            let r = g.hand_results()[0].clone();
            let total: i32 = r.pips.iter().sum();
            for s in 0..4u8 {
                let side = g.table().side_of(Seat(s));
                let own = r.pips[s as usize];
                let others = (total - own) as f64 / 3.0;
                let value = hand_value(&g, 0, side);
                assert_eq!(value.partial_cmp(&0.0), (others - own as f64).partial_cmp(&0.0), "seed {seed} seat {s}");
                assert!(value.abs() <= 1.0);
                if r.winner != Some(side) && (own as f64) < others {
                    not_winner_but_ahead += 1;
                    assert!(value > 0.0);
                }
            }
            // The exact solver agrees with the value of the end it reaches.
            let solved = solve(&g, 0, Side(0), f64::NEG_INFINITY, f64::INFINITY, &mut 10);
            assert_eq!(solved.map(|v| v.0), Some(hand_value(&g, 0, Side(0))));
        }
        assert!(not_winner_but_ahead > 0, "no seat kept fewer pips without going out");
    }
}
