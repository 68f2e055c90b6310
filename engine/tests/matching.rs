//! Each matching rule, and wild tiles, at the level of the legal moves.

mod common;

use std::sync::Arc;

use capicua_engine::*;
use common::*;

fn d(a: u8, b: u8) -> Tile {
    Tile::domino(a, b)
}

/// Block game, 2 seats; seat 0 leads `lead`, then seat 1's legal moves.
fn moves_after_lead(matching: MatchRule, wild: WildTiles, lead: Tile, hand: &[Tile]) -> Vec<(Tile, u8, u8)> {
    let mut v = preset("block").unwrap();
    v.matching = matching;
    v.wild = wild;
    let rules = Arc::new(v.validate().unwrap());
    let all: Vec<Tile> = rules.catalog().all().iter().collect();
    let other: TileSet = all.iter().copied().filter(|t| *t != lead && !hand.contains(t)).take(2).collect();
    let hands = vec![[lead].into_iter().chain(other.iter()).collect(), hand.iter().copied().collect()];
    let setup = Setup { seed: 1, hand: 1, scores: vec![], hands, stock: vec![], leader: Seat(0) };
    let mut g = Game::from_setup(rules, Seating::new(2), setup).unwrap();
    play_checked(&mut g, Move::Play { tile: lead, end: EndId::LEAD, face: 0 });
    let mut out: Vec<(Tile, u8, u8)> = g
        .legal_moves()
        .iter()
        .filter_map(|m| match *m {
            Move::Play { tile, end, face } => Some((tile, end.0, face)),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

#[test]
fn each_rule_joins_what_it_says() {
    let table: &[(MatchRule, &[(u8, u8)])] = &[
        (MatchRule::Equal, &[(3, 3)]),
        (MatchRule::Greater, &[(3, 4), (3, 6)]),
        (MatchRule::Smaller, &[(3, 0), (3, 2)]),
        (MatchRule::Consecutive, &[(3, 2), (3, 4), (0, 1)]),
        (MatchRule::ZeroWild, &[(3, 3), (3, 0), (0, 5)]),
        (MatchRule::Multiple, &[(3, 6), (6, 3), (2, 4), (0, 5), (5, 0), (1, 4)]),
        (MatchRule::CongruentMod(3), &[(1, 4), (0, 6), (2, 5)]),
        (MatchRule::Gcd(2), &[(2, 4), (4, 6), (0, 2)]),
        (MatchRule::SumTo(7), &[(1, 6), (3, 4), (0, 7)]),
        (MatchRule::SameParity, &[(1, 5), (2, 6), (0, 4)]),
        (MatchRule::Coprime, &[(2, 3), (1, 6), (4, 5), (0, 1)]),
    ];
    for (rule, yes) in table {
        for e in 0..=6u8 {
            for f in 0..=6u8 {
                let expected = yes.contains(&(e, f)) || (is_symmetric(rule) && yes.contains(&(f, e)));
                if yes.contains(&(e, f)) {
                    assert!(rule.joins(e, f), "{rule:?} should join end {e} with face {f}");
                } else if !expected {
                    let by_def = definition(rule, e, f);
                    assert_eq!(rule.joins(e, f), by_def, "{rule:?} end {e} face {f}");
                }
            }
        }
    }
}

fn is_symmetric(rule: &MatchRule) -> bool {
    !matches!(rule, MatchRule::Greater | MatchRule::Smaller)
}

/// The definitions, written independently of the engine's.
fn definition(rule: &MatchRule, e: u8, f: u8) -> bool {
    let gcd = |mut a: u8, mut b: u8| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    match rule {
        MatchRule::Equal => e == f,
        MatchRule::Greater => f > e,
        MatchRule::Smaller => f < e,
        MatchRule::Consecutive => e + 1 == f || f + 1 == e,
        MatchRule::ZeroWild => e == f || e == 0 || f == 0,
        MatchRule::Multiple => (1..=6).any(|k| e * k == f || f * k == e) || e == 0 || f == 0,
        MatchRule::CongruentMod(n) => e % n == f % n,
        MatchRule::Gcd(n) => gcd(e, f) == *n,
        MatchRule::SumTo(k) => e + f == *k,
        MatchRule::SameParity => (e + f).is_multiple_of(2),
        MatchRule::Coprime => gcd(e, f) == 1,
        _ => unreachable!(),
    }
}

#[test]
fn greater_gives_both_faces_when_both_fit() {
    // Lead [0|1]: ends 0 and 1. [2|3] is greater than both ends with either
    // face: four moves, each leaving the other face open.
    let moves = moves_after_lead(MatchRule::Greater, WildTiles::None, d(0, 1), &[d(2, 3)]);
    assert_eq!(moves, vec![(d(2, 3), 0, 0), (d(2, 3), 0, 1), (d(2, 3), 1, 0), (d(2, 3), 1, 1)]);
}

#[test]
fn composed_rules() {
    // Equal, or consecutive but not across parity... (consecutive pips always
    // differ in parity, so "all(consecutive, same-parity)" never joins).
    let never = MatchRule::All(vec![MatchRule::Consecutive, MatchRule::SameParity]);
    let mut v = preset("block").unwrap();
    v.matching = never.clone();
    assert_eq!(v.validate().unwrap_err().field, "matching");
    let rule = MatchRule::Any(vec![MatchRule::Equal, never]);
    let moves = moves_after_lead(rule, WildTiles::None, d(2, 5), &[d(2, 6), d(3, 4)]);
    assert_eq!(moves, vec![(d(2, 6), 0, 0)]);
}

#[test]
fn matador_sums_to_seven_with_wild_matadors() {
    // Lead [2|3]: ends 2 and 3. [1|4]: 4 + 3 = 7 on end 1 (face 1, the 4);
    // [0|5]: 5 + 2 = 7 on end 0. [4|3] is a matador: anywhere, either way.
    let hand = [d(1, 4), d(0, 5), d(3, 4), d(6, 6)];
    let moves = moves_after_lead(MatchRule::SumTo(7), WildTiles::Matadors, d(2, 3), &hand);
    let mut expected =
        vec![(d(0, 5), 0, 1), (d(1, 4), 1, 1), (d(3, 4), 0, 0), (d(3, 4), 0, 1), (d(3, 4), 1, 0), (d(3, 4), 1, 1)];
    expected.sort();
    assert_eq!(moves, expected);
    // A blank end is dead for sums (nothing sums 0 to 7 with a 7-less set).
    assert!(!MatchRule::SumTo(7).joins(0, 6));
}
