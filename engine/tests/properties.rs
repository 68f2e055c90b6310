//! Property tests over random variants and seeds: tiles are conserved, the
//! legal moves are exactly what `play` accepts, every hand ends, views do
//! not leak, and seed + log replay the game.
//!
//! Scale with `PROPTEST_CASES` (default 32 variants) and `CAPICUA_PROP_HANDS`
//! (matches per variant and seat count, default 2).

mod common;

use std::sync::Arc;

use capicua_engine::*;
use common::*;
use proptest::prelude::*;

fn arb_variant() -> impl Strategy<Value = Variant> {
    let tiles = (
        3u8..=12,
        prop_oneof![
            Just(TileValue::PipSum),
            Just(TileValue::Difference),
            Just(TileValue::LargestFace),
            Just(TileValue::DoublesDouble)
        ],
    );
    let players = (
        2u8..=6,
        0u8..=2,
        prop_oneof![Just(Teams::None), Just(Teams::Pairs), Just(Teams::PairsIfFourPlus), Just(Teams::Alternate)],
    );
    let deal = (
        1u8..=9,
        prop_oneof![Just(Rest::Stock), Just(Rest::OutOfPlay)],
        prop_oneof![3 => Just(DealMethod::Random), 1 => Just(DealMethod::SameSuit)],
    );
    let lead = (
        prop_oneof![
            (0u8..=6, 0u8..=6).prop_map(|(a, b)| FirstLeader::HolderOf(Tile::domino(a, b))),
            Just(FirstLeader::HighestDouble),
            Just(FirstLeader::Seat(1)),
            Just(FirstLeader::Lot)
        ],
        prop_oneof![Just(LaterLeader::Winner), Just(LaterLeader::Next), Just(LaterLeader::AsFirst)],
        prop_oneof![Just(LeadTile::Any), Just(LeadTile::AnyDouble), Just(LeadTile::HighestDouble)],
        any::<bool>(),
    );
    let board = prop_oneof![
        Just(BoardLayout::Line),
        (any::<bool>(), any::<bool>()).prop_map(|(every, at_once)| BoardLayout::Spinner(SpinnerSpec {
            doubles: if every { SpinnerDoubles::Every } else { SpinnerDoubles::First },
            opens: if at_once { SpinnerOpening::AtOnce } else { SpinnerOpening::AfterBothSides },
        })),
        any::<bool>().prop_map(|any_arm| BoardLayout::Longana(LonganaSpec {
            access: if any_arm { ArmAccess::Any } else { ArmAccess::OwnOrOpened }
        })),
    ];
    let stuck = (
        prop_oneof![
            Just(WhenUnable::Pass),
            Just(WhenUnable::DrawUntilPlayable),
            (1u8..=3).prop_map(WhenUnable::DrawUpTo)
        ],
        0u8..=3,
        any::<bool>(),
    );
    let blocked = (
        prop_oneof![Just(BlockedCompare::Seat), Just(BlockedCompare::Team)],
        prop_oneof![
            Just(BlockedTie::NoScore),
            Just(BlockedTie::LeaderWins),
            Just(BlockedTie::BlockerWins),
            Just(BlockedTie::NextHandDouble)
        ],
    );
    let points = || {
        prop_oneof![
            Just(HandPoints::Opponents),
            Just(HandPoints::AllOthers),
            Just(HandPoints::All),
            Just(HandPoints::Difference),
            Just(HandPoints::Nothing)
        ]
    };
    let scoring = (
        points(),
        points(),
        prop_oneof![Just(0u8), Just(5u8)],
        prop_oneof![Just(Capicua::None), Just(Capicua::Double), Just(Capicua::Bonus(25))],
        0i32..=2,
        prop_oneof![Just(PlayScoring::None), Just(PlayScoring::EndsMultipleOf(5)), Just(PlayScoring::FivesAndThrees)],
    );
    let target = prop_oneof![
        // Exact targets can take hundreds of hands to hit; the scripted tests
        // cover them.
        (20u32..=80, any::<bool>()).prop_map(|(points, immediate)| MatchTarget::Points {
            points,
            exact: false,
            immediate
        }),
        (1u32..=3).prop_map(MatchTarget::Hands),
    ];
    let leaf = prop_oneof![
        Just(MatchRule::Equal),
        Just(MatchRule::Greater),
        Just(MatchRule::Smaller),
        Just(MatchRule::Consecutive),
        Just(MatchRule::ZeroWild),
        Just(MatchRule::Multiple),
        (2u8..=4).prop_map(MatchRule::CongruentMod),
        (1u8..=2).prop_map(MatchRule::Gcd),
        (3u8..=12).prop_map(MatchRule::SumTo),
        Just(MatchRule::SameParity),
        Just(MatchRule::Coprime),
    ];
    let matching = leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..3).prop_map(MatchRule::All),
            prop::collection::vec(inner.clone(), 1..3).prop_map(MatchRule::Any),
            inner.prop_map(|r| MatchRule::Not(Box::new(r))),
        ]
    });
    let matching = prop_oneof![3 => Just(MatchRule::Equal), 2 => matching];
    let wild = prop_oneof![
        4 => Just(WildTiles::None),
        1 => Just(WildTiles::Matadors),
        1 => Just(WildTiles::List(vec![Tile::domino(0, 1)])),
    ];
    let turns = (
        prop_oneof![
            3 => Just(TurnOrder::Fixed),
            1 => Just(TurnOrder::RandomSeat),
            1 => Just(TurnOrder::ReverseOnPass),
            1 => Just(TurnOrder::RepeatWhileAble)
        ],
        prop_oneof![3 => Just(false), 1 => Just(true)],
    );
    let misc = (
        turns,
        matching,
        wild,
        prop_oneof![Just(Direction::Clockwise), Just(Direction::CounterClockwise)],
        prop_oneof![Just(HandVisibility::Own), Just(HandVisibility::Partners), Just(HandVisibility::Open)],
    );
    (tiles, players, deal, lead, board, stuck, blocked, scoring, target, misc)
        .prop_map(
            |(
                (max_pip, value),
                (min, extra, teams),
                (hand, rest, method),
                (first, later, tile, redeal),
                board,
                (when_unable, keep, must_play_drawn),
                (compare, tie),
                (out, blocked_points, round_to, capicua, win_bonus, during_play),
                target,
                ((order, may_pass), matching, wild, direction, hands),
            )| {
                Variant {
                    name: "random".into(),
                    description: String::new(),
                    tiles: TileSpec { max_pip, value },
                    players: PlayersSpec { min, max: (min + extra).min(MAX_SEATS as u8), teams },
                    deal: DealSpec { hand_size: HandSize::Fixed(hand), rest, method },
                    lead: LeadSpec { first, later, tile, redeal_without_double: redeal },
                    board,
                    matching,
                    wild,
                    turn: TurnSpec { direction, order, max_turns: 0 },
                    stuck: StuckSpec { when_unable, keep, must_play_drawn, may_pass },
                    blocked: BlockedSpec { compare, tie },
                    scoring: ScoringSpec { out, blocked: blocked_points, round_to, capicua, win_bonus, during_play },
                    target,
                    visibility: Visibility { hands },
                }
            },
        )
        .prop_map(repair)
}

/// Makes a generated variant playable where it is cheap to do so.
fn repair(mut v: Variant) -> Variant {
    let tiles = (v.tiles.max_pip as usize + 1) * (v.tiles.max_pip as usize + 2) / 2;
    if matches!(v.players.teams, Teams::Pairs | Teams::Alternate) {
        let even = v.players.min.div_ceil(2) * 2;
        v.players.min = even.max(2);
        v.players.max = v.players.min;
    }
    if let HandSize::Fixed(h) = v.deal.hand_size {
        let most = (tiles / v.players.max as usize).max(1) as u8;
        v.deal.hand_size = HandSize::Fixed(h.min(most));
    }
    if matches!(v.board, BoardLayout::Longana(_)) {
        v.lead.redeal_without_double = true;
        v.lead.first = FirstLeader::HighestDouble;
        if v.lead.tile == LeadTile::Any {
            v.lead.tile = LeadTile::AnyDouble;
        }
    }
    if v.stuck.when_unable != WhenUnable::Pass {
        v.deal.rest = Rest::Stock;
    }
    if v.stuck.may_pass || v.turn.order != TurnOrder::Fixed {
        v.turn.max_turns = 100;
    }
    if v.visibility.hands == HandVisibility::Partners && v.players.teams == Teams::None {
        v.visibility.hands = HandVisibility::Own;
    }
    if let FirstLeader::HolderOf(t) = v.lead.first {
        if t.index() >= tiles {
            v.lead.first = FirstLeader::HolderOf(Tile::domino(0, 0));
        }
    }
    v
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A move that is not in `legal` (a random play, or draw/pass).
fn other_moves(g: &Game, legal: &[Move], salt: u64) -> Vec<Move> {
    let n = g.rules().catalog().len() as u64;
    let mut out = vec![Move::Draw, Move::Pass];
    let mut x = salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for _ in 0..6 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let tile = Tile((x % n) as u8);
        let end = if x % 5 == 0 { EndId::LEAD } else { EndId(((x >> 8) % 6) as u8) };
        out.push(Move::Play { tile, end, face: ((x >> 16) % 3) as u8 });
    }
    out.retain(|m| !legal.contains(m));
    out
}

/// Plays seeded random matches of `rules`, checking every invariant at every step.
fn check_rules(rules: Arc<Rules>, seats: u8, seed: u64) -> Result<(), TestCaseError> {
    let mut g = Game::new(rules.clone(), Seating::new(seats), seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut rng = seed | 1;
    let mut steps = 0usize;
    // Every hand ends: a hand has at most (tiles) plays, (stock) draws and a
    // pass per seat between plays; the match at most MAX_HANDS_PER_MATCH hands.
    let cap = MAX_HANDS_PER_MATCH as usize * 2 * (rules.catalog().len() + 2) * (seats as usize + 1);
    let hand_cap = 2 * (rules.catalog().len() + 2) * (seats as usize + 1) + 2 * rules.variant().turn.max_turns as usize;
    let mut hand_steps = 0usize;
    let mut hand_no = g.hand_number();
    // Check the first hands of each match: long matches of rarely-scoring
    // variants add time, not coverage.
    while g.to_move().is_some() && g.hand_number() < 4 {
        steps += 1;
        hand_steps += 1;
        if g.hand_number() != hand_no {
            hand_no = g.hand_number();
            hand_steps = 0;
        }
        prop_assert!(steps < cap, "match did not end within {cap} moves");
        prop_assert!(hand_steps < hand_cap, "hand did not end within {hand_cap} moves");
        assert_tiles_conserved(&g);
        assert_no_leak(&g);
        let legal = g.legal_moves();
        prop_assert!(!legal.is_empty(), "a seat to move always has a move");
        for &m in &legal {
            prop_assert!(g.is_legal(m), "{m} listed but not is_legal");
        }
        if steps % 4 == 0 {
            for &m in &legal {
                let mut c = g.clone();
                prop_assert!(c.play(m).is_ok(), "{m} listed but refused");
            }
        }
        let others = other_moves(&g, &legal, rng);
        let before = (steps % 3 == 0).then(|| state_digest(&g));
        for &m in &others {
            prop_assert!(!g.is_legal(m), "{m} not listed but is_legal");
            prop_assert!(g.play(m).is_err(), "{m} not listed but accepted");
        }
        if let Some(before) = before {
            prop_assert_eq!(&state_digest(&g), &before, "a refused move changed the game");
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let m = legal[(rng % legal.len() as u64) as usize];
        g.play(m).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    if g.outcome().is_some() {
        prop_assert!(g.play(Move::Pass).is_err(), "a finished match accepts nothing");
    }
    let replay =
        Game::replay(rules, Seating::new(seats), seed, g.log()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(state_digest(&replay), state_digest(&g), "replay differs");
    prop_assert_eq!(replay.hand_results(), g.hand_results());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: env("PROPTEST_CASES", 32) as u32, ..ProptestConfig::default() })]

    #[test]
    fn random_variants_keep_every_invariant(v in arb_variant(), seed in any::<u64>()) {
        let Ok(rules) = v.validate() else { return Ok(()) };
        let rules = Arc::new(rules);
        for seats in rules.seat_range() {
            if Game::new(rules.clone(), Seating::new(seats), seed).is_err() {
                continue;
            }
            for h in 0..env("CAPICUA_PROP_HANDS", 2) as u64 {
                check_rules(rules.clone(), seats, seed.wrapping_add(h))?;
            }
        }
    }
}

#[test]
fn random_variants_are_mostly_valid() {
    // The generator must exercise real games, not just validation errors.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = arb_variant();
    let valid = (0..400).filter(|_| strategy.new_tree(&mut runner).unwrap().current().validate().is_ok()).count();
    assert!(valid > 300, "only {valid}/400 random variants validate");
}

#[test]
fn every_preset_keeps_every_invariant() {
    for name in PRESETS {
        let rules = Arc::new(Rules::preset(name).unwrap());
        for seats in rules.seat_range() {
            for seed in 0..env("CAPICUA_PRESET_MATCHES", 2) as u64 {
                check_rules(rules.clone(), seats, seed)
                    .unwrap_or_else(|e| panic!("{name} {seats} seats seed {seed}: {e}"));
            }
        }
    }
}
