//! Everything observable of a fixed set of seeded matches, pinned by hash:
//! every preset of both families and every variant file, at their fewest
//! and most seats, played to the end with seeded random moves. Per move the
//! hash takes in the seat to move, its legal moves, every seat's and a
//! spectator's snapshot, the move's events and any hand's final position;
//! per match the log, the hand results, the outcome and the scores. A
//! refused move must leave every snapshot as it was.
//!
//! The engine's speed work keeps its bookkeeping (log, history, events,
//! views, ranking) lazy or incremental; this test says it still shows
//! exactly what it showed. A change meant to alter what a seat sees (a
//! new snapshot field, another deal) changes these hashes: the failure
//! prints the whole table to paste over [`EXPECTED`].

use std::path::Path;
use std::sync::Arc;

use capicua_engine::poly::{FileRules, POLY_PRESETS, PolyGame, PolyRules};
use capicua_engine::*;
use serde::Serialize;

/// Matches per variant and seat count.
const SEEDS: u64 = 2;

/// FNV-1a, 64 bits: stable across platforms and Rust versions (the
/// standard library's hasher is neither).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        // A separator, so ("ab", "c") and ("a", "bc") differ.
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }
    fn json(&mut self, v: &impl Serialize) {
        self.bytes(&serde_json::to_vec(v).expect("observable state serializes"));
    }
}

/// The test's own move picker (xorshift64): seeded, independent of the engine.
struct Pick(u64);

impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Every receiver's snapshot, hashed.
fn hash_snapshots<F: Family>(g: &F, h: &mut Fnv)
where
    F::Snapshot: Serialize,
{
    for s in (0..g.seats()).map(|s| Some(Seat(s))).chain([None]) {
        h.json(&g.snapshot(s));
    }
}

/// Plays `g` to the end of its match with moves from `pick`, hashing what
/// every receiver observes. `illegal` offers a move to try that the game
/// must refuse (or, under a lenient referee, may accept), played every few
/// moves through the referee.
fn play_out<F: Family>(g: &mut F, pick: &mut Pick, h: &mut Fnv, illegal: impl Fn(&F, &mut Pick) -> Option<F::Move>)
where
    F::Snapshot: Serialize,
    F::Move: Serialize,
    F::Event: Serialize,
{
    g.keep_hand_ends(true);
    let mut legal = F::MoveList::default();
    let mut turn = 0u64;
    while let Some(seat) = g.to_move() {
        h.json(&(seat, g.plies(), g.hand_number(), g.stock_len()));
        g.legal_moves_into(&mut legal);
        assert!(!legal.is_empty(), "a seat to move has a move");
        h.json(&legal.to_vec());
        hash_snapshots(g, h);
        turn += 1;
        if turn.is_multiple_of(5)
            && let Some(m) = illegal(g, pick)
        {
            let before: Vec<F::Snapshot> =
                (0..g.seats()).map(|s| Some(Seat(s))).chain([None]).map(|s| g.snapshot(s)).collect();
            assert!(g.play(m).is_err(), "play refuses {m}");
            let after: Vec<F::Snapshot> =
                (0..g.seats()).map(|s| Some(Seat(s))).chain([None]).map(|s| g.snapshot(s)).collect();
            assert!(before == after, "a refused {m} left the game untouched");
            match g.referee(m) {
                Ok(ev) => h.json(&("overruled", m, ev.to_vec())),
                Err(e) => h.json(&("refused", m, e.to_string())),
            }
            continue;
        }
        let m = legal[pick.below(legal.len())];
        let ev = g.play(m).unwrap_or_else(|e| panic!("legal {m} refused: {e}"));
        h.json(&(m, ev.to_vec()));
        if let Some(end) = g.take_hand_end() {
            for s in (0..end.seats()).map(|s| Some(Seat(s))).chain([None]) {
                h.json(&end.revealed_snapshot(s));
            }
        }
    }
    hash_snapshots(g, h);
    h.json(&(g.scores(), g.seat_scores(), g.winner(), g.plies()));
}

/// A well-formed play the rules refuse: a tile of the mover's hand on an
/// open end it does not fit (or any play before the lead is on the table
/// when that tile may not lead), else a pass when passing is not allowed.
fn illegal_tile_move(g: &Game, pick: &mut Pick) -> Option<Move> {
    let seat = g.to_move()?;
    let tiles: Vec<Tile> = g.hand(seat).iter().collect();
    let ends = g.board().ends().len().max(1) as u8;
    for _ in 0..8 {
        if tiles.is_empty() {
            break;
        }
        let tile = tiles[pick.below(tiles.len())];
        let end = EndId(pick.below(ends as usize) as u8);
        let m = Move::Play { tile, end, face: 0 };
        if !g.is_legal(m) {
            return Some(m);
        }
    }
    (!g.is_legal(Move::Pass)).then_some(Move::Pass)
}

fn hash_tiles(rules: Rules, seats: u8) -> u64 {
    let rules = Arc::new(rules);
    let mut h = Fnv::new();
    for seed in 0..SEEDS {
        let mut end = Game::new(rules.clone(), Seating::new(seats), seed).unwrap();
        let mut pick = Pick(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        play_out(&mut end, &mut pick, &mut h, illegal_tile_move);
        h.json(&(end.log(), end.hand_results(), end.outcome(), end.history()));
        let replay = Game::replay(rules.clone(), Seating::new(seats), seed, end.log()).unwrap();
        assert_eq!(replay.spectator_view().snapshot(), end.spectator_view().snapshot(), "the log replays");
    }
    h.0
}

fn hash_poly(rules: PolyRules, seats: u8) -> u64 {
    let rules = Arc::new(rules);
    let mut h = Fnv::new();
    for seed in 0..SEEDS {
        let mut g = PolyGame::new(rules.clone(), seats, seed).unwrap();
        let mut pick = Pick(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        play_out(&mut g, &mut pick, &mut h, |_, _| None);
    }
    h.0
}

/// Every case: name, seats, hash.
fn hashes() -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut seat_counts = |name: &str, range: std::ops::RangeInclusive<u8>, hash: &dyn Fn(u8) -> u64| {
        let (lo, hi) = (*range.start(), *range.end());
        for seats in if lo == hi { vec![lo] } else { vec![lo, hi] } {
            out.push((format!("{name}@{seats}"), hash(seats)));
        }
    };
    for name in PRESETS {
        let rules = Rules::preset(name).unwrap();
        seat_counts(name, rules.seat_range(), &|s| hash_tiles(rules.clone(), s));
    }
    for name in POLY_PRESETS {
        let rules = PolyRules::preset(name).unwrap();
        seat_counts(name, rules.seat_range(), &|s| hash_poly(rules.clone(), s));
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../variants");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for path in files {
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        if PRESETS.contains(&stem) || POLY_PRESETS.contains(&stem) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        match FileRules::from_file_text(&file, &text).unwrap_or_else(|e| panic!("{e}")) {
            FileRules::Tiles(rules) => seat_counts(&file, rules.seat_range(), &|s| hash_tiles((*rules).clone(), s)),
            FileRules::Poly(rules) => seat_counts(&file, rules.seat_range(), &|s| hash_poly(rules.clone(), s)),
        }
    }
    out
}

/// The hashes of today's engine; see the module comment.
const EXPECTED: &[(&str, u64)] = &[
    ("block@2", 0x51202e3301f9e5ff),
    ("block@4", 0x84e2f17744a99711),
    ("draw@2", 0xfe70e9daf63e57ed),
    ("draw@4", 0x80efe79f4fc8e973),
    ("all-fives@2", 0x5156753ba7c74f01),
    ("all-fives@4", 0xbf681e634932e76e),
    ("fives-and-threes@2", 0x90b98c0fbef2284c),
    ("fives-and-threes@4", 0xe286b57de21b737e),
    ("latin@4", 0xc04d9b8b4cd0985b),
    ("puerto-rico@4", 0xebe27e033c9b3c14),
    ("cuban@4", 0x1e187c978d445f7c),
    ("longana@2", 0x4fceebc3aab730a4),
    ("longana@4", 0xda564a400e458145),
    ("matador@2", 0xaf8d12f5e5b08847),
    ("matador@4", 0xf5b2aff7c43a6c8c),
    ("bergen@2", 0x24990ea022ca1fc2),
    ("bergen@4", 0x247848144ddafb91),
    ("sniff@2", 0x96cf98562b2d56cd),
    ("sniff@4", 0xa879afcf7bbbcaea),
    ("mexican-train@2", 0x3eb68e0ffc95986a),
    ("mexican-train@10", 0xac923e6cdd5e64d3),
    ("chicken-foot@2", 0xd4f4ceea3194ae49),
    ("chicken-foot@8", 0x7e950fe998cb1469),
    ("tri-ominos@2", 0x91bb05c25c3289ae),
    ("tri-ominos@4", 0x7fe9658c13a24e6f),
    ("quad-ominos@2", 0xc83b4c2e77383399),
    ("quad-ominos@6", 0x8c9f3f3cc9eb22aa),
    ("edge-triominoes@2", 0x870bd154abebd4b0),
    ("edge-triominoes@4", 0x96518c73a22d2331),
    ("edge-quadominoes@2", 0x62dfa97b03b69810),
    ("edge-quadominoes@4", 0xb1a89c93165b1acb),
    ("hexominoes@2", 0xca2517bdb347eccd),
    ("hexominoes@4", 0x3ed533ea2803e23a),
    ("graph-triominoes@2", 0x96da4537108e6d0a),
    ("graph-triominoes@4", 0x693592bf64989203),
    ("cuban-eastern.toml@4", 0x549fec8f92e18c0f),
    ("double-chicken-foot.toml@2", 0xbf725488b977f0cf),
    ("double-chicken-foot.toml@8", 0x02fd773840fdc3bf),
    ("five-up.json@2", 0xd672734acfe77cd3),
    ("five-up.json@4", 0x422afe535b91c4e4),
    ("house-sampler.toml@2", 0x71cf167a5709d751),
    ("house-sampler.toml@4", 0x53c0081051b84c02),
    ("latin-capicua-200.toml@4", 0xa96c418dda12fc8e),
    ("latin-reverse-after-two-passes.toml@4", 0x5d92f62c281c1d5d),
    ("lenient-block.toml@2", 0x20124fd514bed6be),
    ("lenient-block.toml@4", 0xfe67fce31c4015c4),
    ("triominoes-penalty.toml@2", 0x06a9f9507c1c323c),
    ("triominoes-penalty.toml@6", 0x604a2d2211bf8b8f),
];

#[test]
fn observable_play_is_unchanged() {
    let got = hashes();
    let table: String = got.iter().map(|(n, h)| format!("    ({n:?}, 0x{h:016x}),\n")).collect();
    let expected: Vec<(String, u64)> = EXPECTED.iter().map(|&(n, h)| (n.to_string(), h)).collect();
    let differ: Vec<&str> = got
        .iter()
        .filter(|c| !expected.contains(c))
        .map(|(n, _)| n.as_str())
        .chain(expected.iter().filter(|c| !got.contains(c)).map(|(n, _)| n.as_str()))
        .collect();
    assert!(differ.is_empty(), "observable play changed for {differ:?}; today's table:\n{table}");
}

#[test]
fn the_hash_sees_a_one_character_change() {
    let g = Game::new(Rules::preset("latin").unwrap().into(), Seating::new(4), 1).unwrap();
    let snap = serde_json::to_string(&g.view(Seat(0)).snapshot()).unwrap();
    let mut changed = snap.clone().into_bytes();
    let i = changed.iter().position(|&b| b == b'7').expect("a seven in a latin deal's snapshot");
    changed[i] = b'8';
    let (mut a, mut b) = (Fnv::new(), Fnv::new());
    a.bytes(snap.as_bytes());
    b.bytes(&changed);
    assert_ne!(a.0, b.0);
}
