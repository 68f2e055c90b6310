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
            Just(TileValue::DoublesDouble),
            Just(TileValue::RandomFormula),
            (-5i32..=0, 0i32..=6).prop_map(|(lo, hi)| TileValue::RandomFaces { lo, hi }),
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
            Just(FirstLeader::Lot),
            Just(FirstLeader::RoundDouble)
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
        (any::<bool>(), any::<bool>()).prop_map(|(any_arm, any_double)| BoardLayout::Longana(LonganaSpec {
            access: if any_arm { ArmAccess::Any } else { ArmAccess::OwnOrOpened },
            doubles: if any_double { ArmDoubles::AnyArm } else { ArmDoubles::LikeOtherTiles },
        })),
        (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(public, satisfy_doubles, player)| {
            let cover = if player { DoubleCover::Player } else { DoubleCover::NextSeat };
            BoardLayout::Trains(TrainsSpec { public, satisfy_doubles, cover })
        }),
        (2u8..=6, 1u8..=3).prop_map(|(centre, toes)| BoardLayout::ChickenFoot(ChickenFootSpec { centre, toes })),
    ];
    let stuck = (
        prop_oneof![
            Just(WhenUnable::Pass),
            Just(WhenUnable::DrawUntilPlayable),
            (1u8..=3).prop_map(WhenUnable::DrawUpTo)
        ],
        prop_oneof![
            (0u8..=3).prop_map(Keep::Fixed),
            (0u8..=3, 0u8..=3).prop_map(|(two, more)| Keep::BySeats(vec![[2, two], [3, more], [4, more]])),
        ],
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
            Just(HandPoints::Nothing),
            Just(HandPoints::OwnPips)
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
        prop_oneof![
            Just(HandVisibility::Own),
            Just(HandVisibility::Partners),
            Just(HandVisibility::Open),
            Just(HandVisibility::CountsOnly),
            (0u8..=3).prop_map(|tiles| HandVisibility::Shown { tiles }),
        ],
    );
    let base = (tiles, players, deal, lead, board, stuck, blocked, scoring, target, misc).prop_map(
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
                end: Vec::new(),
                ranking: RankingSpec::default(),
                referee: Referee::Strict,
                when: Vec::new(),
            }
        },
    );
    (base, arb_extras()).prop_map(|(mut v, (end, ranking, referee, when))| {
        v.end = end;
        v.ranking = ranking;
        v.referee = referee;
        v.when = when;
        repair(v)
    })
}

/// The rule options that do not shape the board: end rules,
/// ranking, referee and conditional rules.
fn arb_extras() -> impl Strategy<Value = (Vec<EndRule>, RankingSpec, Referee, Vec<WhenRule>)> {
    let end = prop::collection::vec(
        prop_oneof![(1u8..=3).prop_map(EndRule::MostPassed), (5u32..=40).prop_map(EndRule::HandScore)],
        0..=2,
    );
    let by = prop_oneof![
        3 => Just(RankBy::Standard),
        1 => Just(RankBy::FewestPoints),
        1 => Just(RankBy::MostPoints),
        1 => Just(RankBy::MedianPoints),
        1 => Just(RankBy::FewestTiles),
        1 => Just(RankBy::MostTiles),
        1 => Just(RankBy::TeamMost),
        1 => Just(RankBy::TeamFewest),
    ];
    let ranking =
        (by, prop_oneof![3 => Just(1u8), 1 => 2u8..=3]).prop_map(|(by, never_played)| RankingSpec { by, never_played });
    let referee = prop_oneof![
        2 => Just(Referee::Strict),
        1 => (prop_oneof![Just(0.0), Just(0.3), Just(1.0)], 0i32..=3).prop_map(|(accept, points)| {
            Referee::Lenient(LenientSpec { accept: Fraction(accept), penalty: Fraction::third(), points })
        }),
    ];
    let condition = prop_oneof![
        (1u8..=3).prop_map(Condition::SeatPasses),
        (1u8..=3).prop_map(Condition::AnySeatPasses),
        (1u8..=3).prop_map(Condition::TeamPasses),
        Just(Condition::PassedLastTurn),
        Just(Condition::NobodyCanPlay),
        (0i32..=30).prop_map(Condition::PipsAbove),
        (0u32..=12).prop_map(Condition::TurnsAbove),
        (0u32..=2).prop_map(Condition::HandsAbove),
    ];
    let overrides = prop_oneof![
        prop_oneof![Just(Direction::Clockwise), Just(Direction::CounterClockwise)]
            .prop_map(|d| RuleOverride { direction: Some(d), ..RuleOverride::default() }),
        prop_oneof![Just(TurnOrder::Fixed), Just(TurnOrder::ReverseOnPass), Just(TurnOrder::RepeatWhileAble)]
            .prop_map(|o| RuleOverride { order: Some(o), ..RuleOverride::default() }),
        prop_oneof![Just(MatchRule::ZeroWild), Just(MatchRule::SameParity), Just(MatchRule::Equal)]
            .prop_map(|m| RuleOverride { matching: Some(m), ..RuleOverride::default() }),
        prop_oneof![Just(WhenUnable::Pass), Just(WhenUnable::DrawUpTo(1))]
            .prop_map(|w| RuleOverride { when_unable: Some(w), ..RuleOverride::default() }),
        any::<bool>().prop_map(|p| RuleOverride { may_pass: Some(p), ..RuleOverride::default() }),
        prop_oneof![Just(PlayScoring::None), Just(PlayScoring::EndsMultipleOf(5))]
            .prop_map(|p| RuleOverride { during_play: Some(p), ..RuleOverride::default() }),
    ];
    let when = prop::collection::vec(
        (condition, overrides).prop_map(|(condition, rules)| WhenRule { condition, rules }),
        0..=2,
    );
    let when = prop_oneof![1 => Just(Vec::new()), 1 => when];
    (end, ranking, referee, when)
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
    if v.lead.first == FirstLeader::RoundDouble {
        v.lead.later = LaterLeader::AsFirst;
    }
    if v.scoring.out == HandPoints::OwnPips || v.scoring.blocked == HandPoints::OwnPips {
        v.scoring = ScoringSpec {
            out: HandPoints::OwnPips,
            blocked: HandPoints::OwnPips,
            round_to: v.scoring.round_to,
            capicua: Capicua::None,
            win_bonus: 0,
            during_play: PlayScoring::None,
        };
    }
    if matches!(v.board, BoardLayout::Longana(_) | BoardLayout::Trains(_) | BoardLayout::ChickenFoot(_))
        && v.lead.first != FirstLeader::RoundDouble
    {
        v.lead.redeal_without_double = true;
        v.lead.first = FirstLeader::HighestDouble;
        if v.lead.tile == LeadTile::Any {
            v.lead.tile = LeadTile::AnyDouble;
        }
    }
    if v.stuck.when_unable != WhenUnable::Pass {
        v.deal.rest = Rest::Stock;
    }
    for w in &mut v.when {
        if w.rules.when_unable.is_some_and(|u| u != WhenUnable::Pass) && v.deal.rest != Rest::Stock {
            w.rules.when_unable = Some(WhenUnable::Pass);
        }
    }
    let overrides_turns = v.when.iter().any(|w| w.rules.may_pass == Some(true) || w.rules.order.is_some());
    if v.stuck.may_pass || v.turn.order != TurnOrder::Fixed || overrides_turns {
        v.turn.max_turns = 100;
    }
    let plays_score = v.scoring.during_play != PlayScoring::None
        || v.when.iter().any(|w| w.rules.during_play.is_some_and(|p| p != PlayScoring::None));
    if !plays_score {
        v.end.retain(|e| !matches!(e, EndRule::HandScore(_)));
    }
    if v.visibility.hands == HandVisibility::Partners && v.players.teams == Teams::None {
        v.visibility.hands = HandVisibility::Own;
    }
    if let FirstLeader::HolderOf(t) = v.lead.first
        && t.index() >= tiles
    {
        v.lead.first = FirstLeader::HolderOf(Tile::domino(0, 0));
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
        let end = if x.is_multiple_of(5) { EndId::LEAD } else { EndId(((x >> 8) % 6) as u8) };
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
    let lenient = matches!(rules.variant().referee, Referee::Lenient(_));
    let mut overruled = 0usize;
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
        if steps.is_multiple_of(4) {
            for &m in &legal {
                let mut c = g.clone();
                prop_assert!(c.play(m).is_ok(), "{m} listed but refused");
            }
        }
        // A lenient referee: now and then, a well-formed illegal play (a
        // held tile on end 0) goes through `referee_play`; if accepted, it
        // is this step's move.
        if lenient && steps.is_multiple_of(5) && !g.board().ends().is_empty() {
            let seat = g.to_move().expect("a seat moves");
            let illegal = g
                .hand(seat)
                .iter()
                .map(|tile| Move::Play { tile, end: EndId(0), face: 0 })
                .find(|m| !legal.contains(m));
            if let Some(m) = illegal {
                let before = state_digest(&g);
                match g.referee_play(m) {
                    Ok(ruling) => {
                        prop_assert!(matches!(ruling, Ruling::Overruled { .. }), "{m} was illegal");
                        overruled += 1;
                        continue;
                    }
                    Err(_) => prop_assert_eq!(&state_digest(&g), &before, "a refused play changed the game"),
                }
            }
        }
        let others = other_moves(&g, &legal, rng);
        let before = steps.is_multiple_of(3).then(|| state_digest(&g));
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
    prop_assert_eq!(replay.overruled_plays(), g.overruled_plays());
    prop_assert_eq!(g.overruled_plays().len(), overruled, "every accepted illegal play is logged");
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
