"""Hands a second from Python, back to back in one run, as ratios to PyPI's
`dominoes` (and OpenSpiel's block dominoes when `pyspiel` is installed).

Every contender plays the same game as closely as each allows: four seats,
the double-six set dealt seven tiles each, pass when unable (block), every
move drawn uniformly at random. capicua plays it as a variant file on top
of the `block` preset. Measured:

- `capicua own loop`: random seats in Rust (`capicua.random_hands`, the
  arena's own loop);
- `capicua callback (index)`: a Python `choose(view)` for every move,
  answering with an index below `view.legal_count`;
- `capicua callback (dict)`: a Python `choose(view)` that reads the legal
  moves as dicts and returns one;
- `dominoes`: PyPI's `dominoes`, `Game.new()` and `make_move` on a random
  valid move;
- `open_spiel block`: `pyspiel.load_game("python_block_dominoes")` when
  installed.

The contenders take turns (slices of a quarter of a second or so, round
after round, `--seconds` each in all), so a drift of the machine's speed
weighs on all of them alike.

Usage: python hands_per_sec.py [--seconds 3]
"""

import argparse
import random
import time

import capicua

BLOCK_4X7 = """
base = "block"
name = "block-4x7"
players = { min = 4, max = 4 }
[deal]
hand-size = [[4, 7]]
"""


def calibrated(play, slice_seconds):
    """How many hands of `play(n)` take about `slice_seconds`."""
    n = 4
    while True:
        start = time.perf_counter()
        play(n)
        spent = time.perf_counter() - start
        if spent >= slice_seconds / 4:
            return max(1, int(n * slice_seconds / spent))
        n *= 4


def interleaved(contenders, seconds, slices=12):
    """Hands a second of each `play(n)`, measured in turns: every contender
    plays a slice of about `seconds / slices`, round after round, until each
    has played `seconds`. The machine's speed drifts within minutes; taking
    turns spreads the drift over every contender alike, so their ratios
    hold where back-to-back blocks of seconds would not."""
    sizes, rates = {}, {}
    for name, play in contenders:
        try:
            sizes[name] = calibrated(play, seconds / slices)
        except ImportError as e:
            print(f"{name:26} skipped: {e}")
    spent = {name: 0.0 for name in sizes}
    hands = {name: 0 for name in sizes}
    plays = dict(contenders)
    while any(t < seconds for t in spent.values()):
        for name, n in sizes.items():
            if spent[name] >= seconds:
                continue
            start = time.perf_counter()
            plays[name](n)
            spent[name] += time.perf_counter() - start
            hands[name] += n
    for name in sizes:
        rates[name] = hands[name] / spent[name]
    return rates


def capicua_own(n):
    capicua.random_hands(BLOCK_4X7, n, seed=random.getrandbits(32))


_rng = random.Random(1)


def by_index(view):
    return _rng.randrange(view.legal_count)


def by_dict(view):
    return _rng.choice(view["legal-moves"])


def capicua_index(n):
    capicua.arena(BLOCK_4X7, [by_index] * 4, games=n, seed=random.getrandbits(32))


def capicua_dict(n):
    capicua.arena(BLOCK_4X7, [by_dict] * 4, games=n, seed=random.getrandbits(32))


def dominoes_hands(n):
    import dominoes

    for _ in range(n):
        game = dominoes.Game.new()
        while game.result is None:
            game.make_move(*_rng.choice(game.valid_moves))


def open_spiel_hands(n):
    import pyspiel

    game = pyspiel.load_game("python_block_dominoes")
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(_rng.choices(actions, probs)[0])
            else:
                state.apply_action(_rng.choice(state.legal_actions()))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per contender")
    args = parser.parse_args()
    contenders = [
        ("dominoes (PyPI)", dominoes_hands),
        ("open_spiel block", open_spiel_hands),
        ("capicua own loop", capicua_own),
        ("capicua callback (index)", capicua_index),
        ("capicua callback (dict)", capicua_dict),
    ]
    rates = interleaved(contenders, args.seconds)
    for name, rate in rates.items():
        print(f"{name:26} {rate:>12,.0f} hands/s")
    base = rates.get("dominoes (PyPI)")
    if base:
        print()
        for name, rate in rates.items():
            print(f"{name:26} {rate / base:>8.1f}x dominoes")


if __name__ == "__main__":
    main()
