//! The classic games as named presets of variant data.
//!
//! Each preset documents the rule choices it makes and where sources
//! disagree; every disagreement is an option of the [`Variant`] model, so a
//! house rule is an override, not new code. Sources: pagat.com (John
//! McLeod's rules pages) as digested in the project's rules reference.

use crate::tile::Tile;
use crate::variant::*;

/// The names of every preset, in a stable order.
pub const PRESETS: &[&str] = &[
    "block",
    "draw",
    "all-fives",
    "fives-and-threes",
    "latin",
    "puerto-rico",
    "cuban",
    "longana",
    "matador",
    "bergen",
    "sniff",
    "mexican-train",
    "chicken-foot",
];

/// A preset by name, or `None`.
///
/// | name | tiles | seats | hand | rest | stuck | layout | lead (first / later) | scoring | target |
/// |---|---|---|---|---|---|---|---|---|---|
/// | `block` | double-6 | 2-4 | 7 (2 seats), 5 (3-4) | out of play | pass | line | highest double / winner | opponents' pips; blocked: lowest seat, tie scores nothing | 100 |
/// | `draw` | double-6 | 2-4 | 7, 5 | stock, keep 2 | draw until playable, must play it | line | highest double / winner | as block | 100 |
/// | `all-fives` | double-6 | 2-4 (4: pairs) | 7 | stock | draw until playable | first double spins after both sides | lot / winner | ends multiple of 5 during play; opponents' pips rounded to 5 | 150, ends at once |
/// | `fives-and-threes` | double-6 | 2-4 (4: pairs) | 7, 5 | out of play | pass | line | lot / winner | 5s and 3s during play; 1 for winning | exactly 61, ends at once |
/// | `latin` | double-6 | 4, pairs | 7 | none left | pass | line | [6\|6] holder leads it / next seat, any tile | losers' pips; blocked: lower team, tie scores nothing | 100 |
/// | `puerto-rico` | as latin | | | | | | | going out: all three other hands; blocked: both teams' pips to the lighter team | 200 |
/// | `cuban` | double-9 | 4, pairs | 10 | 15 out of play | pass | line | lot / next seat | losers' pips; blocked: lower team | 100 |
/// | `longana` | double-9 | 2-4 | 8 | out of play | pass | longana, arm per seat; own arm or an opened one, a double on any arm | highest double / winner leads any double (redeal if none) | opponents' pips | 100 |
/// | `matador` | double-6 | 2-4 | 7 (2 seats), 5 (3-4) | stock | draw until playable | line; joined ends sum to 7, matadors [0\|0] [1\|6] [2\|5] [3\|4] play anywhere | highest double / winner | opponents' pips | 100 |
/// | `sniff` | double-6 | 2-4 (4: pairs) | 7, 6, 5 | stock, keep 2 with 2 seats (none with 3-4) | draw up to 2, then pass | the first double (the sniff) spins, open at once | lot / winner | ends multiple of 5 during play; opponents' pips rounded to 5 | 200, ends at once |
/// | `bergen` | double-6 | 2-4 | 6 (2-3), 5 (4) | stock | draw until playable | line | highest double / winner | headers during play (2, triple 3); 2 for winning | 15 |
/// | `mexican-train` | double-12 | 2-10 | 15 (2-4), 11 (5-6), 10 (7-8), 8 (9-10) | stock | draw one, play it if it fits, else pass and mark the train | trains: a private train per seat, open while marked, the public Mexican train; a double must be satisfied first, by its player if able (else it draws, then its train is marked) | [12\|12] in hand 0, one lower each hand (redeal until dealt) | penalty: every seat its own pips, lowest total wins | 13 hands |
/// | `chicken-foot` | double-9 | 2-8 | 9 (2), 7 (3-5), 6 (6), 5 (7-8) | stock | draw one, play it if it fits, else pass | chicken foot: the centre double's 4 sides first, then 3 toes on every later double | [9\|9] in hand 0, one lower each hand (redeal until dealt) | penalty: every seat its own pips, lowest total wins | 10 hands |
///
/// Choices where sources differ (each an option): `draw` keeps 2 tiles in the
/// stock (common rules); `all-fives` deals 7 to every count (most sources;
/// pagat gives 9/7/5) and plays to 150 (sources give 61 to 250); `cuban` leads
/// by lot (variant: highest double), scores the losers' pips (variant: all
/// pips), compares team totals when blocked (eastern Cuba: single hands) and
/// plays to 100 (sources: 100 or 150); `latin` and `cuban` later hands are led
/// by the next seat (variant: the winner); `longana` arms open to everyone
/// once their owner passes (variant: all arms always open) and a double
/// may be laid on any arm, even a closed one (pagat.com; variant: doubles
/// only where other tiles may go, `doubles = "like-other-tiles"`); `matador` deals
/// 7 to two seats and 5 to more (some sources: 5 to all) and draws to the
/// last tile (some: keep 2); `bergen` plays to 15 at every table size
/// (sources: 15 for two, 10 for three or four) and decides a block by the
/// lightest hand (sources vary); `sniff` (pagat.com, domino-games.com,
/// domino-play.com, onlinedominogames.com, *The Book of Indoor and Outdoor
/// Games*) opens all four sides of the sniff at once as most sources do
/// (pagat: only one tile on each short side, not modelled; US rules after
/// Grady and Goldberg: a regular spinner, `opens = "after-both-sides"`),
/// draws at most two tiles a turn (domino-games, domino-play; another
/// source: until playable, `when-unable = "draw-until-playable"`), keeps 2
/// in the stock with two players and none with more, as pagat.com does
/// (variant: 2 at every table size, `keep = 2`), leads later hands by the winner (pagat: a blocked hand's
/// successor is led by lot; here the previous leader leads again) and
/// plays to 200 (sources: 100 or 200);
/// `mexican-train` has the player of a double cover it at once (drawing
/// if unable, then marking its train), as pagat.com and most published
/// rules do (variant: the turn passes and the next seat covers it,
/// `cover = "next-seat"`; some rules let the second tile go anywhere, not
/// modelled); `mexican-train` and `chicken-foot` take the
/// round's double from whoever was dealt it and deal again when nobody was
/// (sources: the starter draws from the stock until it turns up), play one
/// tile per turn (house rules: several on your own train) and value
/// [0\|0] at 0 (house rules: 25 or 50); `chicken-foot` opens 4 sides of the
/// centre (variant "double chicken foot": `centre = 6`) and deals by the
/// common table of hand sizes (sources range from 7 to 21 for two).
///
/// ```
/// use capicua_engine::{preset, PRESETS};
/// for name in PRESETS {
///     let v = preset(name).unwrap();
///     assert_eq!(&v.name, name);
///     v.validate().unwrap();
/// }
/// assert!(preset("no-such-game").is_none());
/// ```
pub fn preset(name: &str) -> Option<Variant> {
    Some(match name {
        "block" => block(),
        "draw" => draw(),
        "all-fives" => all_fives(),
        "fives-and-threes" => fives_and_threes(),
        "latin" => latin(),
        "puerto-rico" => puerto_rico(),
        "cuban" => cuban(),
        "longana" => longana(),
        "matador" => matador(),
        "bergen" => bergen(),
        "sniff" => sniff(),
        "mexican-train" => mexican_train(),
        "chicken-foot" => chicken_foot(),
        _ => return None,
    })
}

fn block() -> Variant {
    Variant {
        name: "block".into(),
        description: "Block game: double-six, pass when unable, lowest hand wins a block.".into(),
        tiles: TileSpec { max_pip: 6, value: TileValue::PipSum },
        players: PlayersSpec { min: 2, max: 4, teams: Teams::None },
        deal: DealSpec {
            hand_size: HandSize::BySeats(vec![[2, 7], [3, 5], [4, 5]]),
            rest: Rest::OutOfPlay,
            method: DealMethod::Random,
        },
        lead: LeadSpec {
            first: FirstLeader::HighestDouble,
            later: LaterLeader::Winner,
            tile: LeadTile::Any,
            redeal_without_double: false,
        },
        board: BoardLayout::Line,
        matching: MatchRule::Equal,
        wild: WildTiles::None,
        turn: TurnSpec { direction: Direction::Clockwise, ..TurnSpec::default() },
        stuck: StuckSpec {
            when_unable: WhenUnable::Pass,
            keep: Keep::Fixed(0),
            must_play_drawn: true,
            may_pass: false,
        },
        blocked: BlockedSpec { compare: BlockedCompare::Seat, tie: BlockedTie::NoScore },
        scoring: ScoringSpec {
            out: HandPoints::Opponents,
            blocked: HandPoints::Opponents,
            round_to: 0,
            capicua: Capicua::None,
            win_bonus: 0,
            during_play: PlayScoring::None,
        },
        target: MatchTarget::Points { points: 100, exact: false, immediate: false },
        visibility: Visibility::default(),
        end: Vec::new(),
        ranking: RankingSpec::default(),
        referee: Referee::Strict,
        when: Vec::new(),
    }
}

fn draw() -> Variant {
    Variant {
        name: "draw".into(),
        description: "Draw game: as block, but a seat that cannot play draws until it can (2 tiles stay).".into(),
        deal: DealSpec {
            hand_size: HandSize::BySeats(vec![[2, 7], [3, 5], [4, 5]]),
            rest: Rest::Stock,
            method: DealMethod::Random,
        },
        stuck: StuckSpec {
            when_unable: WhenUnable::DrawUntilPlayable,
            keep: Keep::Fixed(2),
            must_play_drawn: true,
            may_pass: false,
        },
        ..block()
    }
}

fn all_fives() -> Variant {
    Variant {
        name: "all-fives".into(),
        description: "All Fives (Muggins with a spinner): score the open ends when they make a multiple of 5.".into(),
        players: PlayersSpec { min: 2, max: 4, teams: Teams::PairsIfFourPlus },
        deal: DealSpec { hand_size: HandSize::Fixed(7), rest: Rest::Stock, method: DealMethod::Random },
        lead: LeadSpec {
            first: FirstLeader::Lot,
            later: LaterLeader::Winner,
            tile: LeadTile::Any,
            redeal_without_double: false,
        },
        board: BoardLayout::Spinner(SpinnerSpec {
            doubles: SpinnerDoubles::First,
            opens: SpinnerOpening::AfterBothSides,
        }),
        stuck: StuckSpec {
            when_unable: WhenUnable::DrawUntilPlayable,
            keep: Keep::Fixed(0),
            must_play_drawn: true,
            may_pass: false,
        },
        scoring: ScoringSpec {
            out: HandPoints::Opponents,
            blocked: HandPoints::Opponents,
            round_to: 5,
            capicua: Capicua::None,
            win_bonus: 0,
            during_play: PlayScoring::EndsMultipleOf(5),
        },
        target: MatchTarget::Points { points: 150, exact: false, immediate: true },
        ..block()
    }
}

fn sniff() -> Variant {
    let f = all_fives();
    Variant {
        name: "sniff".into(),
        description: "Sniff: a fives game whose first double, the sniff, opens on four sides; draw at most two, two stay in the stock with two players.".into(),
        deal: DealSpec {
            hand_size: HandSize::BySeats(vec![[2, 7], [3, 6], [4, 5]]),
            rest: Rest::Stock,
            method: DealMethod::Random,
        },
        board: BoardLayout::Spinner(SpinnerSpec { doubles: SpinnerDoubles::First, opens: SpinnerOpening::AtOnce }),
        stuck: StuckSpec {
            when_unable: WhenUnable::DrawUpTo(2),
            keep: Keep::BySeats(vec![[2, 2], [3, 0], [4, 0]]),
            must_play_drawn: true,
            may_pass: false,
        },
        target: MatchTarget::Points { points: 200, exact: false, immediate: true },
        ..f
    }
}

fn fives_and_threes() -> Variant {
    Variant {
        name: "fives-and-threes".into(),
        description: "Fives and Threes: ends divisible by 5 and/or 3 score; exactly 61 wins.".into(),
        players: PlayersSpec { min: 2, max: 4, teams: Teams::PairsIfFourPlus },
        lead: LeadSpec {
            first: FirstLeader::Lot,
            later: LaterLeader::Winner,
            tile: LeadTile::Any,
            redeal_without_double: false,
        },
        scoring: ScoringSpec {
            out: HandPoints::Nothing,
            blocked: HandPoints::Nothing,
            round_to: 0,
            capicua: Capicua::None,
            win_bonus: 1,
            during_play: PlayScoring::FivesAndThrees,
        },
        target: MatchTarget::Points { points: 61, exact: true, immediate: true },
        ..block()
    }
}

fn latin() -> Variant {
    Variant {
        name: "latin".into(),
        description: "Latin American partnership: 4 players in pairs, all 28 tiles dealt, [6|6] leads.".into(),
        tiles: TileSpec { max_pip: 6, value: TileValue::PipSum },
        players: PlayersSpec { min: 4, max: 4, teams: Teams::Pairs },
        deal: DealSpec { hand_size: HandSize::Fixed(7), rest: Rest::OutOfPlay, method: DealMethod::Random },
        lead: LeadSpec {
            first: FirstLeader::HolderOf(Tile::domino(6, 6)),
            later: LaterLeader::Next,
            tile: LeadTile::Any,
            redeal_without_double: false,
        },
        board: BoardLayout::Line,
        matching: MatchRule::Equal,
        wild: WildTiles::None,
        turn: TurnSpec { direction: Direction::CounterClockwise, ..TurnSpec::default() },
        stuck: StuckSpec {
            when_unable: WhenUnable::Pass,
            keep: Keep::Fixed(0),
            must_play_drawn: true,
            may_pass: false,
        },
        blocked: BlockedSpec { compare: BlockedCompare::Team, tie: BlockedTie::NoScore },
        scoring: ScoringSpec {
            out: HandPoints::Opponents,
            blocked: HandPoints::Opponents,
            round_to: 0,
            capicua: Capicua::None,
            win_bonus: 0,
            during_play: PlayScoring::None,
        },
        target: MatchTarget::Points { points: 100, exact: false, immediate: false },
        visibility: Visibility::default(),
        end: Vec::new(),
        ranking: RankingSpec::default(),
        referee: Referee::Strict,
        when: Vec::new(),
    }
}

fn puerto_rico() -> Variant {
    let l = latin();
    Variant {
        name: "puerto-rico".into(),
        description: "Puerto Rican partnership: going out scores all three other hands; to 200.".into(),
        scoring: ScoringSpec { out: HandPoints::AllOthers, blocked: HandPoints::All, ..l.scoring },
        target: MatchTarget::Points { points: 200, exact: false, immediate: false },
        ..l
    }
}

fn cuban() -> Variant {
    let l = latin();
    Variant {
        name: "cuban".into(),
        description: "Cuban double-nine partnership: 10 tiles each, 15 out of play, no drawing.".into(),
        tiles: TileSpec { max_pip: 9, value: TileValue::PipSum },
        deal: DealSpec { hand_size: HandSize::Fixed(10), rest: Rest::OutOfPlay, method: DealMethod::Random },
        lead: LeadSpec {
            first: FirstLeader::Lot,
            later: LaterLeader::Next,
            tile: LeadTile::Any,
            redeal_without_double: false,
        },
        ..l
    }
}

fn longana() -> Variant {
    Variant {
        name: "longana".into(),
        description: "Longana: double-nine, the lead double opens an arm for every player; a double may go on any arm."
            .into(),
        tiles: TileSpec { max_pip: 9, value: TileValue::PipSum },
        players: PlayersSpec { min: 2, max: 4, teams: Teams::None },
        deal: DealSpec { hand_size: HandSize::Fixed(8), rest: Rest::OutOfPlay, method: DealMethod::Random },
        lead: LeadSpec {
            first: FirstLeader::HighestDouble,
            later: LaterLeader::Winner,
            tile: LeadTile::AnyDouble,
            redeal_without_double: true,
        },
        board: BoardLayout::Longana(LonganaSpec { access: ArmAccess::OwnOrOpened, doubles: ArmDoubles::AnyArm }),
        turn: TurnSpec { direction: Direction::CounterClockwise, ..TurnSpec::default() },
        blocked: BlockedSpec { compare: BlockedCompare::Seat, tie: BlockedTie::NoScore },
        ..block()
    }
}

fn matador() -> Variant {
    Variant {
        name: "matador".into(),
        description: "Matador: joined ends sum to 7; the matadors play anywhere; a blank end is dead.".into(),
        deal: DealSpec {
            hand_size: HandSize::BySeats(vec![[2, 7], [3, 5], [4, 5]]),
            rest: Rest::Stock,
            method: DealMethod::Random,
        },
        matching: MatchRule::SumTo(7),
        wild: WildTiles::Matadors,
        stuck: StuckSpec {
            when_unable: WhenUnable::DrawUntilPlayable,
            keep: Keep::Fixed(0),
            must_play_drawn: true,
            may_pass: false,
        },
        ..block()
    }
}

fn bergen() -> Variant {
    Variant {
        name: "bergen".into(),
        description: "Bergen: equal ends score 2 (3 with a double); going out or winning a block scores 2.".into(),
        deal: DealSpec {
            hand_size: HandSize::BySeats(vec![[2, 6], [3, 6], [4, 5]]),
            rest: Rest::Stock,
            method: DealMethod::Random,
        },
        stuck: StuckSpec {
            when_unable: WhenUnable::DrawUntilPlayable,
            keep: Keep::Fixed(0),
            must_play_drawn: true,
            may_pass: false,
        },
        scoring: ScoringSpec {
            out: HandPoints::Nothing,
            blocked: HandPoints::Nothing,
            round_to: 0,
            capicua: Capicua::None,
            win_bonus: 2,
            during_play: PlayScoring::Headers,
        },
        target: MatchTarget::Points { points: 15, exact: false, immediate: true },
        ..block()
    }
}

fn mexican_train() -> Variant {
    Variant {
        name: "mexican-train".into(),
        description: "Mexican Train: double-twelve trains from a hub and a public train; a double is covered by its player before any other play; lowest total after 13 rounds.".into(),
        tiles: TileSpec { max_pip: 12, value: TileValue::PipSum },
        players: PlayersSpec { min: 2, max: 10, teams: Teams::None },
        deal: DealSpec {
            hand_size: HandSize::BySeats(vec![
                [2, 15],
                [3, 15],
                [4, 15],
                [5, 11],
                [6, 11],
                [7, 10],
                [8, 10],
                [9, 8],
                [10, 8],
            ]),
            rest: Rest::Stock,
            method: DealMethod::Random,
        },
        lead: LeadSpec {
            first: FirstLeader::RoundDouble,
            later: LaterLeader::AsFirst,
            tile: LeadTile::Any,
            redeal_without_double: true,
        },
        board: BoardLayout::Trains(TrainsSpec { public: true, satisfy_doubles: true, cover: DoubleCover::Player }),
        stuck: StuckSpec { when_unable: WhenUnable::DrawUpTo(1), keep: Keep::Fixed(0), must_play_drawn: true, may_pass: false },
        scoring: ScoringSpec {
            out: HandPoints::OwnPips,
            blocked: HandPoints::OwnPips,
            round_to: 0,
            capicua: Capicua::None,
            win_bonus: 0,
            during_play: PlayScoring::None,
        },
        target: MatchTarget::Hands(13),
        ..block()
    }
}

fn chicken_foot() -> Variant {
    Variant {
        name: "chicken-foot".into(),
        description: "Chicken Foot: double-nine, the centre's four sides first, three toes on every double, lowest total after 10 rounds wins.".into(),
        tiles: TileSpec { max_pip: 9, value: TileValue::PipSum },
        players: PlayersSpec { min: 2, max: 8, teams: Teams::None },
        deal: DealSpec {
            hand_size: HandSize::BySeats(vec![[2, 9], [3, 7], [4, 7], [5, 7], [6, 6], [7, 5], [8, 5]]),
            rest: Rest::Stock,
            method: DealMethod::Random,
        },
        board: BoardLayout::ChickenFoot(ChickenFootSpec { centre: 4, toes: 3 }),
        target: MatchTarget::Hands(10),
        ..mexican_train()
    }
}
