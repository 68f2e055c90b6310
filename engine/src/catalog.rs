//! The rule catalog: every option of every rule field, described as data.
//!
//! A client builds its variant menus from [`catalog`] (the server serves it
//! as JSON), and the docs are checked against it: a test asks serde which
//! option names each field accepts and fails if the catalog lists any more
//! or any fewer. Adding a rule is adding its enum variant (with its
//! implementation) and one [`RuleOption`] here, nothing else. Options of
//! games with 3-, 4- or 6-faced tiles ([`crate::poly`]) are the fields
//! `poly.*`.
//!
//! ```
//! let cat = capicua_engine::catalog();
//! let greater = cat.iter().find(|o| o.id == "matching.greater").unwrap();
//! assert_eq!(greater.field, "matching");
//! assert!(greater.params.is_empty());
//! let sum_to = cat.iter().find(|o| o.id == "matching.sum-to").unwrap();
//! assert_eq!(sum_to.params[0].kind, capicua_engine::ParamKind::Integer { min: 0, max: 36 });
//! ```

use serde::Serialize;

/// One option of one rule field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct RuleOption {
    /// Stable id: `field.option`, as written in a variant file.
    pub id: &'static str,
    /// The variant field it is an option of (dotted).
    pub field: &'static str,
    /// The option's name in a variant file.
    pub option: &'static str,
    /// A human name.
    pub name: &'static str,
    /// One sentence.
    pub description: &'static str,
    /// Parameters, in order.
    pub params: Vec<Param>,
}

/// A parameter of an option.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Param {
    /// Its name (for a single parameter, the option's value itself).
    pub name: &'static str,
    /// Its type and range.
    pub kind: ParamKind,
    /// Its default, as the presets and the rules menus write it in a
    /// variant file. (A few choices added after games were stored read an
    /// omitted field as the older rule; their fields' docs say which.)
    pub default: &'static str,
}

/// The type of a parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", rename_all_fields = "kebab-case", tag = "type")]
pub enum ParamKind {
    /// A whole number in a range.
    Integer {
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
    },
    /// A yes/no.
    Bool,
    /// A tile, `[a, b]`.
    Tile,
    /// A list of tiles.
    Tiles,
    /// Other rules of the same field (composition).
    Rules,
    /// A number from 0 to 1.
    Fraction,
    /// One of a list of names.
    Choice {
        /// The names allowed.
        options: &'static [&'static str],
    },
}

fn int(name: &'static str, min: i64, max: i64, default: &'static str) -> Param {
    Param { name, kind: ParamKind::Integer { min, max }, default }
}

macro_rules! opt {
    ($field:literal, $option:literal, $name:literal, $desc:literal $(, $param:expr)* $(,)?) => {
        RuleOption {
            id: concat!($field, ".", $option),
            field: $field,
            option: $option,
            name: $name,
            description: $desc,
            params: vec![$($param),*],
        }
    };
}

/// Every rule option, grouped by field in variant-file order.
pub fn catalog() -> Vec<RuleOption> {
    vec![
        opt!("tiles.value", "pip-sum", "Pip sum", "A tile is worth the sum of its faces."),
        opt!("tiles.value", "difference", "Difference", "A tile is worth the difference of its faces."),
        opt!("tiles.value", "largest-face", "Largest face", "A tile is worth its larger face."),
        opt!("tiles.value", "doubles-double", "Doubles count double", "The pip sum, doubled for a double."),
        opt!(
            "tiles.value",
            "random-formula",
            "Random formula",
            "Each tile is valued, per deal, by one of the four formulas drawn at random (public once dealt)."
        ),
        opt!(
            "tiles.value",
            "random-faces",
            "Random face values",
            "Each pip is worth, per deal, a number drawn from lo..=hi; a tile is worth its two faces.",
            int("lo", -1000, 1000, "0"),
            int("hi", -1000, 1000, "6")
        ),
        opt!("players.teams", "none", "No teams", "Every seat plays for itself."),
        opt!("players.teams", "pairs", "Partners opposite", "Seat i partners seat i + n/2."),
        opt!(
            "players.teams",
            "pairs-if-four-plus",
            "Partners from four",
            "Partners opposite with 4, 6, 8 or 10 seats; fewer or odd play alone."
        ),
        opt!("players.teams", "alternate", "Two alternate teams", "Even seats against odd seats."),
        opt!(
            "players.teams",
            "fixed",
            "Fixed teams",
            "An explicit partition of the seats.",
            Param { name: "teams", kind: ParamKind::Rules, default: "[]" }
        ),
        opt!("deal.method", "random", "Random", "Each seat takes the next tiles of the shuffled set."),
        opt!(
            "deal.method",
            "all-of-a-suit",
            "All of a suit",
            "Each seat gets as many tiles of one pip as it can hold, the rest at random."
        ),
        opt!("deal.rest", "stock", "Stock", "Undealt tiles form a stock seats may draw from."),
        opt!("deal.rest", "out-of-play", "Out of play", "Undealt tiles lie face down for the whole hand."),
        opt!(
            "lead.first",
            "holder-of",
            "Holder of a tile",
            "The holder of this tile leads it.",
            Param { name: "tile", kind: ParamKind::Tile, default: "[6, 6]" }
        ),
        opt!("lead.first", "highest-double", "Highest double", "The holder of the highest double leads it."),
        opt!("lead.first", "seat", "Fixed seat", "A given seat leads.", int("seat", 0, 9, "0")),
        opt!("lead.first", "lot", "By lot", "A seat drawn by lot leads."),
        opt!(
            "lead.first",
            "round-double",
            "Round double",
            "Hand k is led with the double N-k by its holder, dealing again until it is dealt."
        ),
        opt!("lead.later", "winner", "Winner leads", "The winner of the previous hand leads."),
        opt!("lead.later", "next", "Next seat leads", "The seat after the previous leader leads."),
        opt!("lead.later", "as-first", "As the first hand", "The first-hand rule picks the leader again."),
        opt!("lead.tile", "any", "Any tile", "The leader may lead any tile."),
        opt!("lead.tile", "any-double", "Any double", "The leader must lead a double."),
        opt!("lead.tile", "highest-double", "Its highest double", "The leader must lead its highest double."),
        opt!("board", "line", "Line", "A single line with two open ends."),
        opt!(
            "board",
            "spinner",
            "Spinners",
            "Doubles open on four sides once their long sides are covered.",
            Param { name: "doubles", kind: ParamKind::Rules, default: "first" },
            Param { name: "opens", kind: ParamKind::Rules, default: "after-both-sides" }
        ),
        opt!(
            "board",
            "longana",
            "Longana",
            "The lead double opens one arm per seat; by pagat.com's rule a double may go on any arm, even a closed one.",
            Param { name: "access", kind: ParamKind::Rules, default: "own-or-opened" },
            Param {
                name: "doubles",
                kind: ParamKind::Choice { options: &["any-arm", "like-other-tiles"] },
                default: "any-arm"
            }
        ),
        opt!(
            "board",
            "trains",
            "Trains",
            "The lead double is a hub starting a private train per seat, open to others while marked, and a public train; by pagat.com's rule the player of a double covers it first.",
            Param { name: "public", kind: ParamKind::Bool, default: "true" },
            Param { name: "satisfy-doubles", kind: ParamKind::Bool, default: "true" },
            Param { name: "cover", kind: ParamKind::Choice { options: &["player", "next-seat"] }, default: "player" }
        ),
        opt!(
            "board",
            "chicken-foot",
            "Chicken foot",
            "The lead double takes tiles on all sides first; every later double needs its toes covered first.",
            int("centre", 2, 8, "4"),
            int("toes", 1, 5, "3")
        ),
        opt!("matching", "equal", "Equal", "Touching faces show the same pips."),
        opt!("matching", "greater", "Greater", "The face played is greater than the end."),
        opt!("matching", "smaller", "Smaller", "The face played is smaller than the end."),
        opt!("matching", "consecutive", "Consecutive", "The two differ by exactly one."),
        opt!("matching", "zero-wild", "Blanks are wild", "Equal, and a blank joins anything."),
        opt!("matching", "multiple", "Multiple", "One is a multiple of the other."),
        opt!("matching", "congruent-mod", "Congruent", "Equal modulo n.", int("n", 1, 18, "2")),
        opt!("matching", "gcd", "Common divisor", "Their greatest common divisor is n.", int("n", 1, 18, "1")),
        opt!("matching", "sum-to", "Sum to", "They sum to k (Matador: 7).", int("k", 0, 36, "7")),
        opt!("matching", "same-parity", "Same parity", "Both even or both odd."),
        opt!("matching", "coprime", "Coprime", "Their greatest common divisor is 1."),
        opt!(
            "matching",
            "all",
            "All of",
            "Every listed rule holds.",
            Param { name: "rules", kind: ParamKind::Rules, default: "[]" }
        ),
        opt!(
            "matching",
            "any",
            "Any of",
            "Some listed rule holds.",
            Param { name: "rules", kind: ParamKind::Rules, default: "[]" }
        ),
        opt!(
            "matching",
            "not",
            "Not",
            "The rule does not hold.",
            Param { name: "rule", kind: ParamKind::Rules, default: "equal" }
        ),
        opt!("wild", "none", "No wild tiles", "No tile plays anywhere."),
        opt!(
            "wild",
            "list",
            "Wild tiles",
            "These tiles play on any end, either way round.",
            Param { name: "tiles", kind: ParamKind::Tiles, default: "[]" }
        ),
        opt!("wild", "matadors", "Matadors", "Tiles summing to the highest pip + 1, and [0|0], play anywhere."),
        opt!("turn.direction", "clockwise", "Clockwise", "Seat s is followed by seat s + 1."),
        opt!("turn.direction", "counter-clockwise", "Counter-clockwise", "Seat s is followed by seat s - 1."),
        opt!("turn.order", "fixed", "Round the table", "Seats move in turn in the direction of play."),
        opt!("turn.order", "random-seat", "Random seat", "A seat drawn at random moves each turn."),
        opt!("turn.order", "reverse-on-pass", "Reverse on pass", "The direction reverses whenever a seat passes."),
        opt!("turn.order", "repeat-while-able", "Repeat while able", "A seat that played moves again while it can."),
        opt!("stuck.when-unable", "pass", "Pass", "A seat that cannot play passes."),
        opt!(
            "stuck.when-unable",
            "draw-until-playable",
            "Draw until playable",
            "Draw until a tile fits or the stock is down to its reserve."
        ),
        opt!(
            "stuck.when-unable",
            "draw-up-to",
            "Draw up to",
            "Draw at most n tiles, then pass.",
            int("n", 1, 255, "1")
        ),
        opt!("blocked.compare", "seat", "Lightest hand", "The seat with the fewest pips wins a blocked hand."),
        opt!("blocked.compare", "team", "Lightest team", "The team with the fewest pips wins a blocked hand."),
        opt!("blocked.tie", "no-score", "Nobody scores", "An equal lowest count scores nothing."),
        opt!("blocked.tie", "leader-wins", "Leader wins", "The side that led the hand wins a tie."),
        opt!("blocked.tie", "blocker-wins", "Blocker wins", "The side that made the last play wins a tie."),
        opt!("blocked.tie", "next-hand-double", "Next hand double", "Nobody scores; the next hand counts double."),
        opt!("scoring.out", "opponents", "Opponents' pips", "The winners score the pips left in the losers' hands."),
        opt!("scoring.out", "all-others", "All other hands", "Every hand but the winning seat's, partner included."),
        opt!("scoring.out", "all", "All hands", "Every hand's pips, the winners' included."),
        opt!("scoring.out", "difference", "Difference", "The losers' pips minus the winners'."),
        opt!("scoring.out", "nothing", "Nothing", "Only bonuses and play scoring count."),
        opt!(
            "scoring.out",
            "own-pips",
            "Penalty points",
            "Every side scores the pips left in its own hands; the lowest total wins the match."
        ),
        opt!("scoring.blocked", "opponents", "Opponents' pips", "A blocked hand's winners score the losers' pips."),
        opt!("scoring.blocked", "all-others", "All other hands", "Every hand but the lightest winning seat's."),
        opt!("scoring.blocked", "all", "All hands", "Every hand's pips, the winners' included."),
        opt!("scoring.blocked", "difference", "Difference", "The losers' pips minus the winners'."),
        opt!("scoring.blocked", "nothing", "Nothing", "Only bonuses and play scoring count."),
        opt!(
            "scoring.blocked",
            "own-pips",
            "Penalty points",
            "Every side scores the pips left in its own hands; the lowest total wins the match."
        ),
        opt!("scoring.capicua", "none", "No capicúa bonus", "Going out with a capicúa earns nothing extra."),
        opt!("scoring.capicua", "double", "Capicúa doubles", "A capicúa doubles the hand's points."),
        opt!("scoring.capicua", "bonus", "Capicúa bonus", "A capicúa adds fixed points.", int("points", 0, 1000, "25")),
        opt!("scoring.during-play", "none", "No play scoring", "Nothing scores during play."),
        opt!(
            "scoring.during-play",
            "ends-multiple-of",
            "Ends multiple of",
            "Open ends summing to a multiple of k score the sum (All Fives: 5).",
            int("k", 1, 255, "5")
        ),
        opt!(
            "scoring.during-play",
            "fives-and-threes",
            "Fives and threes",
            "Ends divisible by 5 and/or 3 score sum/5 + sum/3."
        ),
        opt!(
            "scoring.during-play",
            "headers",
            "Double and triple headers",
            "Equal ends score 2, or 3 when one of them is a double (Bergen)."
        ),
        opt!(
            "target",
            "points",
            "Points",
            "The first side to reach the target wins.",
            int("points", 1, 100_000, "100"),
            Param { name: "exact", kind: ParamKind::Bool, default: "false" },
            Param { name: "immediate", kind: ParamKind::Bool, default: "false" }
        ),
        opt!("target", "hands", "Hands", "A fixed number of hands; the highest total wins.", int("hands", 1, 500, "1")),
        opt!("visibility.hands", "own", "Own hand", "A seat sees only its own hand."),
        opt!("visibility.hands", "partners", "Partners' hands", "A seat sees its own and its partners' hands."),
        opt!("visibility.hands", "open", "Open hands", "Every hand is face up."),
        opt!("visibility.hands", "counts-only", "Counts only", "A seat sees its own hand and the others' tile counts."),
        opt!(
            "visibility.hands",
            "shown",
            "Some tiles shown",
            "Besides its own hand, a seat sees n tiles of every hand, chosen at random when dealt.",
            int("tiles", 0, 255, "1")
        ),
        opt!(
            "end",
            "most-passed",
            "Most seats passed",
            "The hand ends, decided as blocked, once more than half the seats have passed n times.",
            int("n", 1, 255, "2")
        ),
        opt!(
            "end",
            "hand-score",
            "Hand score",
            "The hand ends, won by that side, once a side's play points this hand reach n.",
            int("n", 1, 100_000, "30")
        ),
        opt!("ranking.by", "standard", "Standard", "Blocked hands go by blocked.compare; seats rank by fewest points."),
        opt!("ranking.by", "fewest-points", "Fewest points", "The seat with the fewest points left wins."),
        opt!("ranking.by", "most-points", "Most points", "The seat with the most points left wins."),
        opt!("ranking.by", "median-points", "Median points", "The seat holding the median count wins."),
        opt!("ranking.by", "fewest-tiles", "Fewest tiles", "The seat with the fewest tiles left wins."),
        opt!("ranking.by", "most-tiles", "Most tiles", "The seat with the most tiles left wins."),
        opt!("ranking.by", "team-most", "Team with most", "The team with the most points in total wins."),
        opt!("ranking.by", "team-fewest", "Team with fewest", "The team with the fewest points in total wins."),
        opt!("referee", "strict", "Strict", "Every illegal move is refused."),
        opt!(
            "referee",
            "lenient",
            "Lenient judge",
            "A well-formed illegal play is accepted with probability accept, and the side loses a fraction of its score.",
            Param { name: "accept", kind: ParamKind::Fraction, default: "0.5" },
            Param { name: "penalty", kind: ParamKind::Fraction, default: "0.3333333333333333" },
            int("points", -100_000, 100_000, "0")
        ),
        opt!(
            "when.if",
            "seat-passes",
            "Seat passed n times",
            "The seat to move has passed n times this hand.",
            int("n", 1, 255, "2")
        ),
        opt!(
            "when.if",
            "any-seat-passes",
            "Any seat passed n times",
            "Some seat has passed n times this hand.",
            int("n", 1, 255, "2")
        ),
        opt!(
            "when.if",
            "team-passes",
            "Team passed n times",
            "The team of the seat to move has passed n times this hand.",
            int("n", 1, 255, "2")
        ),
        opt!("when.if", "passed-last-turn", "Passed last turn", "The seat to move passed on its last turn."),
        opt!(
            "when.if",
            "nobody-can-play",
            "Nobody can play",
            "No tile in any hand fits an open end under the variant's own matching."
        ),
        opt!(
            "when.if",
            "pips-above",
            "Pips above",
            "The seat to move holds more than x points.",
            int("x", -100_000, 100_000, "20")
        ),
        opt!(
            "when.if",
            "turns-above",
            "Turns above",
            "More than x turns have been played this hand.",
            int("x", 0, 100_000, "20")
        ),
        opt!(
            "when.if",
            "hands-above",
            "Hands above",
            "More than x hands of the match have been played.",
            int("x", 0, 100_000, "3")
        ),
        // Games of 3-, 4- and 6-faced tiles (`capicua_engine::poly`).
        opt!(
            "poly.set",
            "ascending",
            "Ascending tiles",
            "One tile per multiset of pips, faces non-decreasing clockwise (Tri-Ominos: 56 triangles)."
        ),
        opt!("poly.set", "all", "Every tile", "Every distinct tuple of pips up to rotation, mirror images included."),
        opt!(
            "poly.board",
            "graph",
            "N-dimensional graph",
            "Every face of a placed tile is an open connection; a tile joins one open face with equal pips."
        ),
        opt!(
            "poly.board",
            "lattice",
            "Lattice",
            "Cells of a triangle, square or hex lattice; a tile must match every placed tile it touches.",
            Param {
                name: "lattice",
                kind: ParamKind::Choice { options: &["triangle", "square", "hex"] },
                default: "triangle"
            }
        ),
        opt!("poly.stuck", "pass", "Pass", "A seat that cannot play passes; the stock is never drawn."),
        opt!("poly.stuck", "draw-one", "Draw one", "Draw one tile, play it if it fits, else pass."),
        opt!(
            "poly.stuck",
            "draw-up-to",
            "Draw up to",
            "Draw at most n tiles, playing as soon as one fits, then pass.",
            int("n", 1, 255, "3")
        ),
        opt!(
            "poly.stuck",
            "draw-until-playable",
            "Draw until playable",
            "Draw until a tile fits or the stock is empty."
        ),
        opt!(
            "poly.scoring",
            "opponents",
            "Opponents' pips",
            "The hand's winner scores the pips left in every other hand."
        ),
        opt!(
            "poly.scoring",
            "own-pips",
            "Penalty points",
            "Every seat scores its own pips left; the lowest total wins the match."
        ),
        opt!("poly.play-points", "none", "No play points", "Nothing scores during play."),
        opt!(
            "poly.play-points",
            "tile-pips",
            "Tile pips",
            "Placing a tile scores its pips for the placer (Tri-Ominos)."
        ),
        opt!("poly.matching", "edges", "Sides match", "Pips sit on the sides; every touching side must match."),
        opt!(
            "poly.matching",
            "corners",
            "Corners match",
            "Pips sit on the corners (Tri-Ominos); every shared corner must agree and a tile shares a whole side."
        ),
        opt!("poly.opening", "rotate", "Leader rotates", "Hand k is led by seat k modulo the seats, with any tile."),
        opt!(
            "poly.opening",
            "highest-triple",
            "Highest triple opens",
            "The seat with the highest tile of equal numbers leads with it; with none, the highest-sum tile."
        ),
        opt!(
            "poly.target",
            "points",
            "Points",
            "The match ends after the hand in which a seat reaches the target.",
            int("points", 1, 100_000, "400")
        ),
        opt!(
            "poly.target",
            "hands",
            "Hands",
            "The match ends after a fixed number of hands.",
            int("hands", 1, 500, "1")
        ),
    ]
}

/// The catalog's options by field, built once.
fn options_by_field() -> &'static std::collections::HashMap<&'static str, Vec<RuleOption>> {
    static BY_FIELD: std::sync::OnceLock<std::collections::HashMap<&'static str, Vec<RuleOption>>> =
        std::sync::OnceLock::new();
    BY_FIELD.get_or_init(|| {
        let mut map: std::collections::HashMap<&'static str, Vec<RuleOption>> = std::collections::HashMap::new();
        for o in catalog() {
            map.entry(o.field).or_default().push(o);
        }
        map
    })
}

/// Checks every whole-number parameter of the options a variant uses
/// against the range the catalog advertises for it, so that what a client
/// reads in the catalog is exactly what validation accepts.
///
/// `variant` is the variant as JSON (the serde form of a variant file);
/// `prefix` selects the catalog's fields: `""` for two-faced variants (every
/// field but `poly.*`), `"poly."` for [`crate::poly`] variants, whose fields
/// are written without the prefix.
pub(crate) fn check_ranges(variant: &serde_json::Value, prefix: &str) -> Result<(), crate::VariantError> {
    for (field, options) in options_by_field() {
        let Some(path) = field.strip_prefix(prefix) else { continue };
        if prefix.is_empty() && field.starts_with("poly.") {
            continue;
        }
        let mut at = vec![variant];
        for key in path.split('.') {
            at = at
                .into_iter()
                .flat_map(|v| match v {
                    serde_json::Value::Array(items) => items.iter().filter_map(|i| i.get(key)).collect(),
                    _ => v.get(key).into_iter().collect::<Vec<_>>(),
                })
                .collect();
        }
        for value in at {
            check_value(field, options, value)?;
        }
    }
    Ok(())
}

/// Checks one value of `field`: a list of values, an option's name, or
/// `{option: value}` where the value is the single parameter itself or an
/// object of named parameters.
fn check_value(field: &str, options: &[RuleOption], value: &serde_json::Value) -> Result<(), crate::VariantError> {
    use serde_json::Value;
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            for item in items {
                check_value(field, options, item)?;
            }
        }
        return Ok(());
    };
    for (name, inner) in map {
        let Some(option) = options.iter().find(|o| o.option == name) else { continue };
        for param in &option.params {
            let arg = match inner {
                Value::Object(args) if args.contains_key(param.name) => args.get(param.name),
                _ if option.params.len() == 1 => Some(inner),
                _ => None,
            };
            let Some(arg) = arg else { continue };
            match param.kind {
                ParamKind::Integer { min, max } => {
                    let n = arg.as_i64();
                    if n.is_none_or(|n| n < min || n > max) {
                        // Poly variants name their fields without the
                        // prefix, and the option too (`stuck.draw-up-to`).
                        let at = match field.strip_prefix("poly.") {
                            Some(f) => format!("{f}.{name}"),
                            None => field.to_string(),
                        };
                        return Err(crate::VariantError::new(
                            at,
                            format!("{name}: {} is {arg}, outside {min}..={max}", param.name),
                        ));
                    }
                }
                // Nested rules of the same field (`all`, `any`, `not`).
                ParamKind::Rules => check_value(field, options, arg)?,
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::variant::*;

    /// The option names serde accepts for a field, read from its error for
    /// an unknown option.
    fn accepted<T: serde::de::DeserializeOwned + std::fmt::Debug>() -> BTreeSet<String> {
        let err = serde_json::from_str::<T>("\"no-such-option\"").unwrap_err().to_string();
        // "expected `a`", "expected `a` or `b`", "expected one of `a`, `b`, ..."
        let list = err.split(", expected ").nth(1).unwrap_or_else(|| panic!("no list in {err:?}"));
        let list = list.split(" at line").next().unwrap();
        list.split('`').skip(1).step_by(2).map(str::to_string).collect()
    }

    fn listed(field: &str) -> BTreeSet<String> {
        catalog().into_iter().filter(|o| o.field == field).map(|o| o.option.to_string()).collect()
    }

    #[test]
    fn the_catalog_lists_exactly_the_options_serde_accepts() {
        let fields: Vec<(&str, BTreeSet<String>)> = vec![
            ("tiles.value", accepted::<TileValue>()),
            ("players.teams", accepted::<Teams>()),
            ("deal.rest", accepted::<Rest>()),
            ("deal.method", accepted::<DealMethod>()),
            ("lead.first", accepted::<FirstLeader>()),
            ("lead.later", accepted::<LaterLeader>()),
            ("lead.tile", accepted::<LeadTile>()),
            ("board", accepted::<BoardLayout>()),
            ("matching", accepted::<MatchRule>()),
            ("wild", accepted::<WildTiles>()),
            ("turn.direction", accepted::<Direction>()),
            ("turn.order", accepted::<TurnOrder>()),
            ("stuck.when-unable", accepted::<WhenUnable>()),
            ("blocked.compare", accepted::<BlockedCompare>()),
            ("blocked.tie", accepted::<BlockedTie>()),
            ("scoring.out", accepted::<HandPoints>()),
            ("scoring.blocked", accepted::<HandPoints>()),
            ("scoring.capicua", accepted::<Capicua>()),
            ("scoring.during-play", accepted::<PlayScoring>()),
            ("target", accepted::<MatchTarget>()),
            ("visibility.hands", accepted::<HandVisibility>()),
            ("end", accepted::<EndRule>()),
            ("ranking.by", accepted::<RankBy>()),
            ("referee", accepted::<Referee>()),
            ("when.if", accepted::<Condition>()),
            ("poly.set", accepted::<crate::poly::SetRule>()),
            ("poly.board", accepted::<crate::poly::BoardKind>()),
            ("poly.stuck", accepted::<crate::poly::PolyStuck>()),
            ("poly.scoring", accepted::<crate::poly::PolyScoring>()),
            ("poly.play-points", accepted::<crate::poly::PolyPlayPoints>()),
            ("poly.target", accepted::<crate::poly::PolyMatchTarget>()),
            ("poly.matching", accepted::<crate::poly::PolyMatching>()),
            ("poly.opening", accepted::<crate::poly::PolyOpening>()),
        ];
        for (field, options) in &fields {
            assert_eq!(&listed(field), options, "catalog vs serde for {field}");
        }
        // A choice parameter lists exactly what serde accepts.
        let lattice = catalog().into_iter().find(|o| o.id == "poly.board.lattice").unwrap();
        let ParamKind::Choice { options } = lattice.params[0].kind else { panic!("lattice is a choice") };
        let options: BTreeSet<String> = options.iter().map(|s| s.to_string()).collect();
        assert_eq!(options, accepted::<crate::poly::Lattice>());
        let longana = catalog().into_iter().find(|o| o.id == "board.longana").unwrap();
        let ParamKind::Choice { options } = longana.params[1].kind else { panic!("longana doubles is a choice") };
        let options: BTreeSet<String> = options.iter().map(|s| s.to_string()).collect();
        assert_eq!(options, accepted::<ArmDoubles>());
        let trains = catalog().into_iter().find(|o| o.id == "board.trains").unwrap();
        let ParamKind::Choice { options } = trains.params[2].kind else { panic!("trains cover is a choice") };
        let options: BTreeSet<String> = options.iter().map(|s| s.to_string()).collect();
        assert_eq!(options, accepted::<DoubleCover>());
        let covered: BTreeSet<&str> = fields.iter().map(|(f, _)| *f).collect();
        for o in catalog() {
            assert!(covered.contains(o.field), "{} belongs to no checked field", o.id);
            assert!(!o.description.is_empty() && o.description.ends_with('.'), "{}: one sentence", o.id);
        }
        let ids: BTreeSet<&str> = catalog().iter().map(|o| o.id).collect();
        assert_eq!(ids.len(), catalog().len(), "ids are unique");
    }

    #[test]
    fn the_catalog_serializes_for_clients() {
        let json = serde_json::to_value(catalog()).unwrap();
        assert_eq!(json[0]["id"], "tiles.value.pip-sum");
        let ct = json.as_array().unwrap().iter().find(|o| o["id"] == "matching.congruent-mod").unwrap();
        assert_eq!(ct["params"][0]["kind"]["type"], "integer");
        let lattice = json.as_array().unwrap().iter().find(|o| o["id"] == "poly.board.lattice").unwrap();
        assert_eq!(lattice["params"][0]["kind"]["type"], "choice");
        assert_eq!(lattice["params"][0]["kind"]["options"][2], "hex");
    }
}
