//! The unchecked description of a variant: plain, serializable data.
//!
//! A [`Variant`] is what a user writes (or a preset returns). It is never
//! played directly: [`Variant::validate`] checks every field and every
//! combination, precomputes the tables the move generator needs and returns
//! [`Rules`](crate::Rules), the only thing a [`Game`](crate::Game) accepts.
//! Each rule choice is a field holding an enum of named options; adding an
//! option is adding an enum variant and its implementation.

use serde::{Deserialize, Serialize};

use crate::tile::Tile;

/// Every rule choice of a domino variant.
///
/// Serialized in kebab-case; unit options are plain strings
/// (`board = "line"`) and options with parameters are one-key tables
/// (`board = { spinner = { doubles = "first" } }`).
///
/// ```
/// use capicua_engine::{preset, Variant};
/// let latin: Variant = preset("latin").unwrap();
/// let json = serde_json::to_string(&latin).unwrap();
/// let back: Variant = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, latin);
/// assert!(back.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Variant {
    /// Stable name of the variant (a preset name, or the user's own).
    pub name: String,
    /// Free text shown to players.
    #[serde(default)]
    pub description: String,
    /// The tile set and how tiles are valued.
    pub tiles: TileSpec,
    /// How many seats, and how they form teams.
    pub players: PlayersSpec,
    /// How tiles are dealt.
    pub deal: DealSpec,
    /// Who leads each hand, and with what.
    pub lead: LeadSpec,
    /// The shape of the layout on the table.
    pub board: BoardLayout,
    /// When a tile may be joined to an open end.
    #[serde(default)]
    pub matching: MatchRule,
    /// Tiles that play anywhere.
    #[serde(default, skip_serializing_if = "is_default")]
    pub wild: WildTiles,
    /// The order in which seats move.
    #[serde(default)]
    pub turn: TurnSpec,
    /// What a seat does when it cannot (or will not) play.
    pub stuck: StuckSpec,
    /// How a blocked hand is decided.
    pub blocked: BlockedSpec,
    /// How hands and plays score.
    pub scoring: ScoringSpec,
    /// When the match ends.
    pub target: MatchTarget,
    /// What each seat may see.
    #[serde(default)]
    pub visibility: Visibility,
    /// Ways a hand ends besides going out, blocking and the turn cap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub end: Vec<EndRule>,
    /// Who wins a hand nobody went out of, and how seats rank.
    #[serde(default, skip_serializing_if = "is_default")]
    pub ranking: RankingSpec,
    /// What the referee does with an illegal play.
    #[serde(default, skip_serializing_if = "is_default")]
    pub referee: Referee,
    /// Conditional rules: "when CONDITION, use RULE", in order (a later
    /// entry wins where two active entries override the same rule).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<WhenRule>,
}

/// The tile set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TileSpec {
    /// The set is double-`max_pip` (0..=18): 6 gives 28 tiles, 9 gives 55, 12 gives 91.
    pub max_pip: u8,
    /// How a tile is valued when hands are counted.
    #[serde(default)]
    pub value: TileValue,
}

/// How a tile is valued when hands are counted (and by value-minded bots).
///
/// ```
/// use capicua_engine::{Tile, TileValue};
/// let t = Tile::domino(2, 5);
/// assert_eq!(TileValue::PipSum.of(t), 7);
/// assert_eq!(TileValue::Difference.of(t), 3);
/// assert_eq!(TileValue::LargestFace.of(t), 5);
/// assert_eq!(TileValue::DoublesDouble.of(Tile::domino(4, 4)), 16);
/// // Random rules are valued per deal by the game; `of` gives the pip sum.
/// assert_eq!(TileValue::RandomFaces { lo: -3, hi: 3 }.of(t), 7);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum TileValue {
    /// The sum of the faces (the usual count).
    #[default]
    PipSum,
    /// The difference of the faces (doubles are worth 0).
    Difference,
    /// The larger face.
    LargestFace,
    /// The sum of the faces, doubled for a double.
    DoublesDouble,
    /// Each tile is valued, per deal, by one of the four formulas above drawn
    /// at random (seeded) for that tile.
    RandomFormula,
    /// Each pip value `0..=max-pip` is worth, per deal, a number drawn at
    /// random (seeded) from `lo..=hi` (possibly negative or zero); a tile
    /// is worth the sum of its two faces' worths.
    RandomFaces {
        /// Smallest worth of a face.
        lo: i32,
        /// Largest worth of a face.
        hi: i32,
    },
}

impl TileValue {
    /// Whether the values are drawn per deal ([`Game::tile_value`](crate::Game::tile_value)
    /// gives them; they are public once the deal is made).
    pub fn is_random(self) -> bool {
        matches!(self, TileValue::RandomFormula | TileValue::RandomFaces { .. })
    }

    /// The value of `t` under this rule (for a random rule, the nominal
    /// pip sum: the game values each deal itself).
    pub fn of(self, t: Tile) -> i32 {
        let (lo, hi) = t.faces();
        let (lo, hi) = (lo as i32, hi as i32);
        match self {
            TileValue::PipSum | TileValue::RandomFormula | TileValue::RandomFaces { .. } => lo + hi,
            TileValue::Difference => hi - lo,
            TileValue::LargestFace => hi,
            TileValue::DoublesDouble => {
                if lo == hi {
                    2 * (lo + hi)
                } else {
                    lo + hi
                }
            }
        }
    }
}

/// How many seats play and how they form teams.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PlayersSpec {
    /// Fewest seats (at least 2).
    pub min: u8,
    /// Most seats (at most 10).
    pub max: u8,
    /// Teams, if any.
    #[serde(default)]
    pub teams: Teams,
}

/// How seats form teams (partnerships).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Teams {
    /// Every seat plays for itself.
    #[default]
    None,
    /// Partners sit opposite: with `n` seats, seat `i` partners seat `i + n/2`
    /// (4 seats: {0,2} and {1,3}; 6 seats: three pairs). Needs an even count.
    Pairs,
    /// As `pairs` with 4, 6, 8 or 10 seats; fewer or an odd number of
    /// seats play for themselves (All Fives, Fives and Threes).
    PairsIfFourPlus,
    /// Two teams on alternate seats (even seats against odd seats).
    Alternate,
    /// An explicit partition of the seats (for exactly that many seats).
    Fixed(Vec<Vec<u8>>),
}

/// How tiles are dealt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DealSpec {
    /// Tiles per seat.
    pub hand_size: HandSize,
    /// What happens to the tiles not dealt.
    pub rest: Rest,
    /// How hands are made from the shuffled tiles.
    #[serde(default)]
    pub method: DealMethod,
}

/// How hands are made from the shuffled tiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum DealMethod {
    /// Each seat takes the next tiles of the shuffled set.
    #[default]
    Random,
    /// All of a suit: each seat in turn, from seat 0, takes as many tiles
    /// as it can of one pip drawn at random (among the pips with the most
    /// tiles left), and the rest of its hand from the shuffled remainder.
    #[serde(rename = "all-of-a-suit")]
    SameSuit,
}

/// Tiles per seat: a number, or a table by seat count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum HandSize {
    /// The same for every seat count.
    Fixed(u8),
    /// `[[seats, tiles], ...]`: e.g. `[[2, 9], [3, 7], [4, 5]]`.
    BySeats(Vec<[u8; 2]>),
}

impl HandSize {
    /// The hand size for `seats` seats, if the table has one.
    pub fn for_seats(&self, seats: u8) -> Option<u8> {
        match self {
            HandSize::Fixed(n) => Some(*n),
            HandSize::BySeats(t) => t.iter().find(|e| e[0] == seats).map(|e| e[1]),
        }
    }
}

/// What happens to the tiles that are not dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Rest {
    /// They form the stock (boneyard) that seats may draw from.
    Stock,
    /// They lie face down out of play for the whole hand.
    OutOfPlay,
}

/// Who leads each hand and what they must lead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LeadSpec {
    /// The leader of the first hand.
    pub first: FirstLeader,
    /// The leader of later hands.
    pub later: LaterLeader,
    /// What a leader chosen by seat (fixed seat, lot, winner, next) must lead.
    #[serde(default)]
    pub tile: LeadTile,
    /// Redeal when the lead needs a double and nobody holds one (otherwise
    /// the designated seat leads any tile).
    #[serde(default)]
    pub redeal_without_double: bool,
}

/// The leader of the first hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum FirstLeader {
    /// The holder of this tile leads it. If it is not dealt (it lies in the
    /// stock or out of play), the holder of the highest double leads it.
    HolderOf(Tile),
    /// The holder of the highest double leads it.
    HighestDouble,
    /// A fixed seat leads.
    Seat(u8),
    /// A seat drawn by lot (seeded) leads.
    Lot,
    /// The round's double, counting down: hand `k` is led with
    /// `[N-k|N-k]` (wrapping after `[0|0]`) by whoever holds it; a deal
    /// that leaves it in the stock or out of play is dealt again (Mexican
    /// Train's engine, Chicken Foot's centre).
    RoundDouble,
}

/// The leader of every hand after the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum LaterLeader {
    /// The seat that won the previous hand (the previous leader if nobody won).
    Winner,
    /// The seat after the previous leader, in turn order.
    Next,
    /// The first-hand rule again.
    AsFirst,
}

/// What a leader chosen by seat must lead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum LeadTile {
    /// Any tile.
    #[default]
    Any,
    /// Any double; a leader without one yields to the next seat holding one.
    AnyDouble,
    /// Its highest double; a leader without one yields to the next seat holding one.
    HighestDouble,
}

/// The shape of the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BoardLayout {
    /// A single line with two open ends.
    Line,
    /// Doubles that open on four sides (All Fives, Five-Up).
    Spinner(SpinnerSpec),
    /// The lead double opens one arm per seat (Longana / Cuban longana).
    Longana(LonganaSpec),
    /// Train games (Mexican Train): the lead double is the hub; it starts a
    /// personal train for every seat, open to others only while marked
    /// (its owner passed and has not played on it since), plus an optional
    /// public train open to everyone.
    Trains(TrainsSpec),
    /// Chicken Foot: the lead double takes tiles on all its sides before
    /// anything else, and every later double needs its toes covered before
    /// play continues elsewhere.
    ChickenFoot(ChickenFootSpec),
}

/// The trains of a train game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TrainsSpec {
    /// A public train (the Mexican train) that every seat may extend.
    #[serde(default = "yes")]
    pub public: bool,
    /// A double must be satisfied (covered) before any other play, even
    /// on another seat's private train.
    #[serde(default = "yes")]
    pub satisfy_doubles: bool,
    /// Who covers a double first (with `satisfy-doubles`). The presets
    /// name it; a variant written without it (every variant stored before
    /// the choice existed) reads as `next-seat`, so stored games replay as
    /// they were played.
    #[serde(default = "DoubleCover::unnamed")]
    pub cover: DoubleCover,
}

impl Default for TrainsSpec {
    fn default() -> Self {
        TrainsSpec { public: true, satisfy_doubles: true, cover: DoubleCover::Player }
    }
}

impl DoubleCover {
    /// The choice of a variant that does not name one.
    fn unnamed() -> DoubleCover {
        DoubleCover::NextSeat
    }
}

/// Who covers a double laid on a train (when doubles must be satisfied).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum DoubleCover {
    /// The seat that laid it moves again and may only cover it: with a
    /// tile from its hand, else with the tile it draws (as `stuck` allows),
    /// else it passes and its train is marked; then the next seats must
    /// cover it (pagat.com's Mexican Train and most published rules).
    #[default]
    Player,
    /// The turn passes at once and the next seat must cover it.
    NextSeat,
}

/// The shape of a chicken foot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ChickenFootSpec {
    /// Sides of the centre double, all covered before any other play
    /// (4; 6 in "double chicken foot").
    #[serde(default = "four")]
    pub centre: u8,
    /// Toes of a later double, all covered before play continues
    /// elsewhere (3, the chicken's foot).
    #[serde(default = "three")]
    pub toes: u8,
}

impl Default for ChickenFootSpec {
    fn default() -> Self {
        ChickenFootSpec { centre: 4, toes: 3 }
    }
}

fn four() -> u8 {
    4
}

fn three() -> u8 {
    3
}

/// Which doubles spin and when their short sides open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SpinnerSpec {
    /// Which doubles are spinners.
    #[serde(default)]
    pub doubles: SpinnerDoubles,
    /// When the two short sides of a spinner open.
    #[serde(default)]
    pub opens: SpinnerOpening,
}

/// Which doubles are spinners.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SpinnerDoubles {
    /// Only the first double played (All Fives).
    #[default]
    First,
    /// Every double (Five-Up, the sources' "every double is a spinner").
    Every,
}

/// When a spinner's two short sides open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SpinnerOpening {
    /// Once both long sides are covered (All Fives).
    #[default]
    AfterBothSides,
    /// As soon as the double is placed.
    AtOnce,
}

/// Who may play on which arm of a longana.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LonganaSpec {
    /// Access to other seats' arms.
    #[serde(default)]
    pub access: ArmAccess,
    /// Where a double may be laid when arms are closed (`own-or-opened`).
    /// The presets name it; a variant written without it (every variant
    /// stored before the choice existed) reads as `like-other-tiles`, so
    /// stored games replay as they were played.
    #[serde(default = "ArmDoubles::unnamed")]
    pub doubles: ArmDoubles,
}

impl ArmDoubles {
    /// The choice of a variant that does not name one.
    fn unnamed() -> ArmDoubles {
        ArmDoubles::LikeOtherTiles
    }
}

/// Where a seat may lay a double in a longana whose arms are closed to
/// other seats until opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ArmDoubles {
    /// On any arm, closed or not (pagat.com's Longana: a double may be
    /// played on any arm).
    #[default]
    AnyArm,
    /// Only where its other tiles may go: its own arm or an opened one.
    LikeOtherTiles,
}

/// Access to the arms of a longana.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ArmAccess {
    /// A seat plays on its own arm, or on an arm whose owner has passed since
    /// last playing on it (the arm is "open"; the owner closes it by playing on it).
    #[default]
    OwnOrOpened,
    /// Any seat plays on any arm.
    Any,
}

/// When a tile may be joined to an open end, from the pips of the end and
/// of the touching face. Rules compose with `all`, `any` and `not`.
///
/// Every rule compiles, at validation, to a table of which faces join which
/// end pips, so the move generator costs the same whatever the rule.
///
/// ```
/// use capicua_engine::MatchRule;
/// let matador = MatchRule::SumTo(7);
/// assert!(matador.joins(3, 4) && !matador.joins(3, 3));
/// let odd_or_equal = MatchRule::Any(vec![MatchRule::Equal, MatchRule::Not(Box::new(MatchRule::SameParity))]);
/// assert!(odd_or_equal.joins(2, 2) && odd_or_equal.joins(2, 5) && !odd_or_equal.joins(2, 4));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum MatchRule {
    /// The touching faces show the same pips (every classic game).
    #[default]
    Equal,
    /// The face played is greater than the end.
    Greater,
    /// The face played is smaller than the end.
    Smaller,
    /// The two differ by exactly one.
    Consecutive,
    /// Equal, and a blank joins anything (either side).
    ZeroWild,
    /// One is a multiple of the other (a blank, 0, is a multiple of everything).
    Multiple,
    /// Equal modulo `n`.
    CongruentMod(u8),
    /// Their greatest common divisor is `n` (gcd(0, x) = x).
    Gcd(u8),
    /// They sum to `k` (Matador: 7 with double-six, n + 1 with double-n).
    SumTo(u8),
    /// Both even or both odd.
    SameParity,
    /// Their greatest common divisor is 1.
    Coprime,
    /// Every listed rule holds.
    All(Vec<MatchRule>),
    /// Some listed rule holds.
    Any(Vec<MatchRule>),
    /// The rule does not hold.
    Not(Box<MatchRule>),
}

impl MatchRule {
    /// Whether a tile face showing `face` may join an end showing `end`.
    pub fn joins(&self, end: u8, face: u8) -> bool {
        fn gcd(a: u8, b: u8) -> u8 {
            if b == 0 { a } else { gcd(b, a % b) }
        }
        match self {
            MatchRule::Equal => end == face,
            MatchRule::Greater => face > end,
            MatchRule::Smaller => face < end,
            MatchRule::Consecutive => end.abs_diff(face) == 1,
            MatchRule::ZeroWild => end == face || end == 0 || face == 0,
            MatchRule::Multiple => end == 0 || face == 0 || face.is_multiple_of(end) || end.is_multiple_of(face),
            MatchRule::CongruentMod(n) => *n > 0 && end % n == face % n,
            MatchRule::Gcd(n) => gcd(end, face) == *n,
            MatchRule::SumTo(k) => end as u16 + face as u16 == *k as u16,
            MatchRule::SameParity => end % 2 == face % 2,
            MatchRule::Coprime => gcd(end, face) == 1,
            MatchRule::All(rules) => rules.iter().all(|r| r.joins(end, face)),
            MatchRule::Any(rules) => rules.iter().any(|r| r.joins(end, face)),
            MatchRule::Not(rule) => !rule.joins(end, face),
        }
    }
}

/// Tiles that play on any open end, either way round.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum WildTiles {
    /// None.
    #[default]
    None,
    /// These tiles.
    List(Vec<Tile>),
    /// Matador's wild tiles: those whose faces sum to the highest pip + 1,
    /// and the double blank.
    Matadors,
}

/// The order in which seats move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TurnSpec {
    /// Seats are numbered clockwise around the table.
    #[serde(default)]
    pub direction: Direction,
    /// How the next seat is chosen.
    #[serde(default)]
    pub order: TurnOrder,
    /// A safety net for rules that could loop (passing while able): a hand
    /// that reaches this many turns ends as blocked. 0: no cap.
    #[serde(default)]
    pub max_turns: u32,
}

/// How the next seat to move is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum TurnOrder {
    /// Round the table in the direction of play.
    #[default]
    Fixed,
    /// A seat drawn at random (seeded) every turn, possibly the same one.
    RandomSeat,
    /// Round the table, reversing the direction whenever a seat passes.
    /// Needs `turn.max-turns`: two stuck seats could otherwise bounce the
    /// turn between them forever.
    ReverseOnPass,
    /// A seat that played moves again while it can play.
    RepeatWhileAble,
}

/// Direction of play. Seats are numbered clockwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Seat `s` is followed by seat `s + 1`.
    Clockwise,
    /// Seat `s` is followed by seat `s - 1` (Latin American and Cuban play).
    #[default]
    CounterClockwise,
}

/// What a seat does when it cannot play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct StuckSpec {
    /// Pass or draw.
    pub when_unable: WhenUnable,
    /// Tiles that must stay in the stock (never drawn): a number, or a
    /// table by seat count.
    #[serde(default)]
    pub keep: Keep,
    /// A drawn tile that fits must be played at once (otherwise the seat may
    /// keep drawing while the stock allows).
    #[serde(default = "yes")]
    pub must_play_drawn: bool,
    /// A seat may pass even when it could play (then a pass no longer
    /// proves a seat lacks the open pips). Needs `turn.max-turns`.
    #[serde(default)]
    pub may_pass: bool,
}

fn yes() -> bool {
    true
}

fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// Tiles that stay in the stock, never drawn: a number, or a table by seat
/// count (as [`HandSize`]; a seat count the table leaves out keeps none).
///
/// ```
/// use capicua_engine::Keep;
/// // Sniff (pagat.com): two stay in the stock only with two players.
/// let sniff = Keep::BySeats(vec![[2, 2], [3, 0], [4, 0]]);
/// assert_eq!((sniff.for_seats(2), sniff.for_seats(3)), (2, 0));
/// assert_eq!(Keep::Fixed(2).for_seats(4), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Keep {
    /// The same for every seat count.
    Fixed(u8),
    /// `[[seats, tiles], ...]`: e.g. `[[2, 2], [3, 0], [4, 0]]`.
    BySeats(Vec<[u8; 2]>),
}

impl Default for Keep {
    fn default() -> Keep {
        Keep::Fixed(0)
    }
}

impl Keep {
    /// The tiles kept with `seats` seats (0 for a count the table leaves out).
    pub fn for_seats(&self, seats: u8) -> u8 {
        match self {
            Keep::Fixed(n) => *n,
            Keep::BySeats(t) => t.iter().find(|e| e[0] == seats).map_or(0, |e| e[1]),
        }
    }
}

/// What a seat that cannot play does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum WhenUnable {
    /// Pass (knock). Block games.
    Pass,
    /// Draw until a tile fits or the stock is down to `keep`, then pass.
    DrawUntilPlayable,
    /// Draw at most this many tiles, then pass if still unable.
    DrawUpTo(u8),
}

/// How a blocked hand (nobody can move) is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct BlockedSpec {
    /// Compare the lowest single hand, or team totals.
    pub compare: BlockedCompare,
    /// What an equal lowest count means.
    pub tie: BlockedTie,
}

/// What is compared in a blocked hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BlockedCompare {
    /// The seat with the fewest pips wins (for its team).
    Seat,
    /// The team with the fewest pips in total wins.
    Team,
}

/// What an equal lowest count in a blocked hand means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BlockedTie {
    /// Nobody scores.
    NoScore,
    /// The side of the seat that led the hand wins.
    LeaderWins,
    /// The side of the seat that made the last play wins.
    BlockerWins,
    /// Nobody scores and the next hand's points count double.
    NextHandDouble,
}

/// How hands and plays score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ScoringSpec {
    /// What the winner scores when a seat goes out.
    pub out: HandPoints,
    /// What the winner scores when the hand is blocked.
    pub blocked: HandPoints,
    /// Round hand points to the nearest multiple of this (0 or 1: no rounding).
    #[serde(default)]
    pub round_to: u8,
    /// Bonus for going out with a capicúa.
    #[serde(default)]
    pub capicua: Capicua,
    /// Fixed points for winning the hand, on top of `out`/`blocked`.
    #[serde(default)]
    pub win_bonus: i32,
    /// Points scored during play.
    #[serde(default)]
    pub during_play: PlayScoring,
}

/// What the winning side of a hand scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum HandPoints {
    /// The pips left in the opponents' hands.
    Opponents,
    /// The pips of every hand but the winning seat's (partner included).
    AllOthers,
    /// The pips of every hand, the winners' included.
    All,
    /// The opponents' pips minus the winning side's.
    Difference,
    /// Nothing (only bonuses and play scoring count).
    Nothing,
    /// Penalty scoring (Mexican Train, Chicken Foot): every side scores the
    /// value left in its own hands, winner or not, and the lowest total
    /// wins the match. Used for both `out` and `blocked`.
    OwnPips,
}

/// Bonus for going out with a capicúa: a last tile, not a double, that fits
/// two open ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Capicua {
    /// No bonus.
    #[default]
    None,
    /// The hand's points are doubled.
    Double,
    /// Fixed points are added.
    Bonus(i32),
}

/// Points scored during play, by the side of the seat that played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PlayScoring {
    /// None.
    #[default]
    None,
    /// The open ends (a double at an end counting both halves) sum to a
    /// multiple of this: score the sum (All Fives: 5).
    EndsMultipleOf(u8),
    /// Fives and Threes: sum/5 if divisible by 5 plus sum/3 if divisible by 3.
    FivesAndThrees,
    /// Bergen, on a line: both ends show the same pip (a double-header) scores
    /// 2, or 3 when one of those ends is a double (a triple-header); a
    /// double alone on the table is a double-header.
    Headers,
}

/// When the match ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum MatchTarget {
    /// The first side to reach `points` wins.
    Points {
        /// The target.
        points: u32,
        /// Points that would take a side past the target score nothing.
        #[serde(default)]
        exact: bool,
        /// The match ends the moment a side reaches the target, even mid-hand
        /// (otherwise it is checked when a hand ends).
        #[serde(default)]
        immediate: bool,
    },
    /// A fixed number of hands; the highest total wins.
    Hands(u32),
}

/// What each seat may see.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Visibility {
    /// Whose hands a seat sees besides its own.
    #[serde(default)]
    pub hands: HandVisibility,
}

/// Whose hands a seat sees besides its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case")]
pub enum HandVisibility {
    /// Only its own.
    #[default]
    Own,
    /// Its own and its partners'.
    Partners,
    /// Every hand (open game).
    Open,
    /// Only tile counts (which are public anyway): the sources' name for
    /// closed hands, the same as `own`.
    CountsOnly,
    /// Its own hand, and `tiles` tiles of every other hand chosen at random
    /// (seeded) when the hand is dealt, public to everyone while held. Tiles
    /// drawn later stay hidden.
    Shown {
        /// Tiles of each hand shown.
        tiles: u8,
    },
}

/// A way a hand ends besides a seat going out, nobody being able to move and
/// the turn cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum EndRule {
    /// Most seats (more than half) have passed at least this many times
    /// this hand: the hand ends and is decided as a blocked hand.
    MostPassed(u8),
    /// A side's points scored during play in this hand reach this many: the
    /// hand ends, that side wins it (scored as going out, without capicúa).
    /// Needs play scoring.
    HandScore(u32),
}

/// Who wins a hand that nobody went out of, and the order of the seats in
/// every hand's [`HandResult::ranking`](crate::HandResult::ranking).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RankingSpec {
    /// The ranking rule.
    #[serde(default)]
    pub by: RankBy,
    /// A seat that never played in the hand has its count multiplied by
    /// this when the hand is counted (1: no penalty).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub never_played: u8,
}

impl Default for RankingSpec {
    fn default() -> RankingSpec {
        RankingSpec { by: RankBy::Standard, never_played: 1 }
    }
}

fn one() -> u8 {
    1
}

fn is_one(n: &u8) -> bool {
    *n == 1
}

/// How seats (and teams) rank in a hand. "Points" are the tile values left
/// in a hand (after the never-played penalty).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RankBy {
    /// The classic rule: a blocked hand goes by `blocked.compare`; seats
    /// rank by fewest points, the winner first.
    #[default]
    Standard,
    /// The seat with the fewest points wins.
    FewestPoints,
    /// The seat with the most points wins.
    MostPoints,
    /// The seat holding the median count wins (the lower median for an even
    /// number of seats); seats rank by distance from it.
    MedianPoints,
    /// The seat with the fewest tiles wins.
    FewestTiles,
    /// The seat with the most tiles wins.
    MostTiles,
    /// The team with the most points in total wins.
    TeamMost,
    /// The team with the fewest points in total wins.
    TeamFewest,
}

/// What the referee does with a play that is not legal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Referee {
    /// Every illegal move is refused (the game is untouched).
    #[default]
    Strict,
    /// The sources' "corrupt judge", through
    /// [`Game::referee_play`](crate::Game::referee_play) only: a well-formed
    /// illegal play (a tile the seat holds, on an existing open end) is
    /// accepted with probability `accept` (seeded by seed, hand and log
    /// position, so a replay is exact) and the seat's side pays `penalty`.
    Lenient(LenientSpec),
}

/// Parameters of the lenient referee.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LenientSpec {
    /// Probability that an illegal play is accepted, 0 to 1.
    pub accept: Fraction,
    /// Fraction of the side's (positive) match score it loses, rounded
    /// down, when an illegal play is accepted (default one third).
    #[serde(default = "Fraction::third")]
    pub penalty: Fraction,
    /// Fixed points lost on top of the fraction.
    #[serde(default)]
    pub points: i32,
}

/// A number from 0 to 1, compared by its bits (so variants stay `Eq`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Fraction(pub f64);

impl Fraction {
    /// One third.
    pub fn third() -> Fraction {
        Fraction(1.0 / 3.0)
    }
}

impl PartialEq for Fraction {
    fn eq(&self, other: &Fraction) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Fraction {}

/// One conditional rule: while `if` holds, the rules of `use` replace the
/// variant's own.
///
/// ```toml
/// [[when]]
/// if = { any-seat-passes = 2 }
/// use = { direction = "clockwise" }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct WhenRule {
    /// The condition.
    #[serde(rename = "if")]
    pub condition: Condition,
    /// The rules that apply while it holds.
    #[serde(rename = "use")]
    pub rules: RuleOverride,
}

/// A condition on the state of the hand or match, re-evaluated after each
/// move that can change it. "Passes" count this hand's passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Condition {
    /// The seat to move has passed at least this many times.
    SeatPasses(u8),
    /// Some seat has passed at least this many times.
    AnySeatPasses(u8),
    /// The team of the seat to move has passed at least this many times in total.
    TeamPasses(u8),
    /// The seat to move passed on its last turn.
    PassedLastTurn,
    /// No tile in any hand joins an open end under the variant's own
    /// matching rule and wild tiles (arm access ignored).
    NobodyCanPlay,
    /// The seat to move holds more than this many points (tile values).
    PipsAbove(i32),
    /// More than this many turns have been played this hand.
    TurnsAbove(u32),
    /// More than this many hands of the match have been played.
    HandsAbove(u32),
}

/// Rule choices a conditional rule may override; unset fields keep the
/// variant's own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RuleOverride {
    /// `turn.direction`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// `turn.order`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<TurnOrder>,
    /// `matching`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matching: Option<MatchRule>,
    /// `stuck.when-unable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_unable: Option<WhenUnable>,
    /// `stuck.may-pass`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub may_pass: Option<bool>,
    /// `scoring.during-play`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during_play: Option<PlayScoring>,
}

impl RuleOverride {
    /// Whether it overrides nothing.
    pub fn is_empty(&self) -> bool {
        *self == RuleOverride::default()
    }

    /// Writes its choices over `v`.
    pub fn apply(&self, v: &mut Variant) {
        if let Some(d) = self.direction {
            v.turn.direction = d;
        }
        if let Some(o) = self.order {
            v.turn.order = o;
        }
        if let Some(m) = &self.matching {
            v.matching = m.clone();
        }
        if let Some(w) = self.when_unable {
            v.stuck.when_unable = w;
        }
        if let Some(p) = self.may_pass {
            v.stuck.may_pass = p;
        }
        if let Some(p) = self.during_play {
            v.scoring.during_play = p;
        }
    }
}
