//! Where each preset's rules come from, in words for players: the sources
//! a preset follows, and the option that gives the other reading where
//! they disagree. The rules pages show it under the preset's rules.

/// The sources a preset (of either family) follows and its choices where
/// sources disagree, or `None` for a name that is no preset.
///
/// ```
/// use capicua_engine::{PRESETS, poly::POLY_PRESETS, preset_sources};
/// for name in PRESETS.iter().chain(POLY_PRESETS) {
///     assert!(preset_sources(name).is_some(), "{name}");
/// }
/// assert!(preset_sources("longana").unwrap().contains("any arm"));
/// assert_eq!(preset_sources("no-such-game"), None);
/// ```
pub fn preset_sources(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(names, _)| names.contains(&name)).map(|(_, text)| *text)
}

/// Every preset's sources, by its names (a former name beside the current one).
const SOURCES: &[(&[&str], &str)] = &[
    (
        &["block"],
        "pagat.com's Block game: no drawing; a blocked hand goes to the lightest hand, and a tie scores nothing.",
    ),
    (
        &["draw"],
        "pagat.com's Draw game, with the common rule that the last 2 tiles of the stock stay undrawn \
          (stuck.keep = 0 draws them all).",
    ),
    (
        &["all-fives"],
        "pagat.com's All Fives (Muggins): 7 tiles to every table size (pagat gives 9, 7, 5 for 2, 3, 4 players: \
          deal.hand-size), the first double spins once both long sides are covered, to 150 (sources give 61 to 250).",
    ),
    (
        &["fives-and-threes"],
        "pagat.com's Fives and Threes: no drawing, 5s and 3s score during play, 1 point for going out, \
          exactly 61 to win.",
    ),
    (
        &["latin"],
        "The Latin American partnership game (pagat.com and the players' common rules): [6|6] leads the \
          first hand, the next seat leads later ones (variant: the winner), play counter-clockwise, a block \
          goes to the lighter team and a tie scores nothing, losers' pips to 100 (variant: 200; capicua bonuses \
          vary by house).",
    ),
    (
        &["puerto-rico"],
        "Puerto Rican partnership scoring: going out scores all three other hands; a blocked hand gives both \
          teams' pips to the lighter team; to 200.",
    ),
    (
        &["cuban"],
        "Cuban double-nine partnership game: lead by lot (variant: highest double), losers' pips (variant: \
          all pips), a block compared by team totals (eastern Cuba: single hands, the cuban-eastern file), to 100 \
          (sources: 100 or 150).",
    ),
    (
        &["longana"],
        "pagat.com's Longana: an arm per player, open to everyone once its owner passes and closed when the \
          owner plays on it again; a double may go on any arm, even a closed one (board.longana.doubles = \
          \"like-other-tiles\" keeps doubles where other tiles go).",
    ),
    (
        &["matador"],
        "pagat.com's Matador: joined ends sum to 7, the matadors play anywhere, 7 tiles to two players and 5 \
          to more (some sources: 5 to all), drawing to the last tile (some: keep 2).",
    ),
    (
        &["bergen"],
        "pagat.com's Bergen: double- and triple-headers score 2 and 3, going out or winning a block 2; to 15 \
          at every table size (sources: 15 for two, 10 for three or four); a block goes to the lightest hand \
          (sources vary).",
    ),
    (
        &["sniff"],
        "pagat.com, domino-games.com and domino-play.com: the sniff opens all four sides at once (US rules: \
          after both long sides, board.spinner.opens), draw at most two a turn, the last 2 tiles of the stock \
          stay undrawn only with two players (stuck.keep = 2 keeps them at every table size), to 200.",
    ),
    (
        &["mexican-train"],
        "pagat.com's Mexican Train: a double must be covered before any other play, and its player covers it \
          at once, drawing if unable and then marking its train (board.trains.cover = \"next-seat\" passes the \
          turn and lets the next seat cover it); the round's double from whoever holds it; [0|0] counts 0 \
          (house rules: 25 or 50).",
    ),
    (
        &["chicken-foot"],
        "The common Chicken Foot rules: the centre double takes 4 tiles (6 in double chicken foot: \
          board.chicken-foot.centre), every later double 3 toes before play goes on; hand sizes by the common \
          table (sources range from 7 to 21 for two).",
    ),
    (
        &["tri-ominos"],
        "Pressman's Tri-Ominos rules as printed in the box: numbers at the corners, every shared corner \
          agrees; the highest triple opens for its sum + 10 (0-0-0: 40); a bridge +40, a hexagon +50 (two at \
          once +60, three +70: editions differ, bonuses.ring); drawing -5 a tile, at most 3, then passing \
          -10; going out +25 and the others' numbers; to 400.",
    ),
    (
        &["quad-ominos"],
        "Pressman's Quad-Ominos (1978) as its Wikipedia article and domino-play.com describe it: numbers at \
          the corners, hands of 30/20/15/12/10 for 2-6 players, the highest quad opens, every tile scores its \
          numbers, to 800. Not known here: its bonuses (all zero; a variant file may set bonuses); this set \
          keeps 0-2-4-5 (126 tiles; the box has 125).",
    ),
    (
        &["edge-triominoes", "triominoes"],
        "The seed engine's triominoes, named for what they are: numbers on the sides, matched side to side, \
          with Tri-Ominos' set, hands, three draws, placement points and 400 target, without its bonuses and \
          penalties (those are in tri-ominos).",
    ),
    (
        &["edge-quadominoes", "quadominoes"],
        "The seed engine's quadominoes: squares with 0..=3 on the sides, every tile up to rotation, matched \
          side to side; no commercial set of this kind.",
    ),
    (
        &["hexominoes"],
        "The seed engine's hexominoes: hexagons with 0..=2 on the sides, every tile up to rotation, matched \
          side to side; no commercial set of this kind.",
    ),
    (
        &["graph-triominoes"],
        "The seed engine's graph board: the triomino set joined face to face as a tree in which every face \
          stays open.",
    ),
];
