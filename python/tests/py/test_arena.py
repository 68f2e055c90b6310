"""capicua.arena: the strategy crate's arena with Python functions as seats."""

import random

import pytest

import capicua


def test_the_report_has_the_arenas_statistics_and_is_seeded():
    a = capicua.arena("block", ["smart", "random"], games=400, seed=5)
    b = capicua.arena("block", ["smart", capicua.strategy("random")], games=400, seed=5)
    assert a["games"] == 400 and a["seats"][0]["strategy"] == "smart"
    for key in ("wins", "losses", "ties", "win_rate", "ci95_low", "ci95_high", "mean_score"):
        assert a["seats"][0][key] == b["seats"][0][key]
    assert a["seats"][0]["ci95_low"] < a["seats"][0]["win_rate"] < a["seats"][0]["ci95_high"]
    assert a["seats"][0]["win_rate"] > a["seats"][1]["win_rate"]


def test_python_functions_sit_at_the_table():
    seen = []

    def first(view):
        seen.append(view.seat)
        assert isinstance(view, capicua.View) and view["to-move"] == view.seat
        return view["legal-moves"][0]

    rng = random.Random(1)

    def by_index(view):
        return rng.randrange(view.legal_count)

    report = capicua.arena("latin", [first, by_index, first, by_index], games=40, seed=2)
    assert report["seats"][0]["strategy"] == "python:first"
    assert report["teams"] is not None
    assert set(seen) == {0, 1, 2, 3}


def test_a_functions_error_and_an_illegal_answer_stop_the_arena():
    def boom(view):
        raise KeyError("boom")

    with pytest.raises(KeyError):
        capicua.arena("block", [boom, "random"], games=10)

    def cheat(view):
        return {"kind": "draw"}

    with pytest.raises(capicua.IllegalMoveError):
        capicua.arena("block", [cheat, "random"], games=10)
    with pytest.raises(capicua.StrategyError):
        capicua.arena("block", ["nobody", "random"], games=10)

    def extra(view):
        return {**view["legal-moves"][0], "note": 1}

    with pytest.raises(capicua.IllegalMoveError):
        capicua.arena("block", [extra, "random"], games=2)


def test_an_answer_equal_to_a_legal_moves_dict_is_that_move():
    answered = []

    def copied(view):
        # A new dict, its tile a list: equal to the last legal move's.
        m = dict(view["legal-moves"][-1])
        if "tile" in m:
            m["tile"] = list(m["tile"])
        answered.append(m)
        return m

    report = capicua.arena("draw", [copied, "random"], games=20, seed=6)
    assert report["games"] == 20 and any("tile" in m for m in answered)
    assert any(m["kind"] != "play" for m in answered)


def test_random_hands_runs_the_native_loop():
    report = capicua.random_hands("block", 2000, seats=4)
    assert report["games"] == 2000 and report["games_per_sec"] > 0


KEYS = ("hand", "legal-moves", "to-move", "seat", "history", "ends", "hand-sizes", "scores", "stock", "leader")


def test_a_view_kept_after_its_call_reads_as_it_did_during_it():
    # A view reads its seat in place while the function chooses; one the
    # function keeps (or keeps a bound method of) is given its snapshot.
    kept, methods = [], []

    def keeper(view):
        during = {k: view[k] for k in KEYS}
        kept.append((view, during, view.legal_count))
        methods.append((view.get, view["hand"]))
        return len(kept) % view.legal_count

    def reader(view):
        # Keys read one by one from a view nothing keeps: as its dict says.
        during = {k: view[k] for k in KEYS}
        assert during == {k: v for k, v in view.to_dict().items() if k in KEYS}
        return 0

    capicua.arena("block", [keeper, reader], games=6, seed=4)
    assert len(kept) > 10 and len({id(v) for v, _, _ in kept}) == len(kept)
    for view, during, count in kept:
        assert {k: view[k] for k in KEYS} == during and view.legal_count == count
        assert view.to_dict()["hand"] == during["hand"] and view["to-move"] == view.seat
    for get, hand in methods:
        assert get("hand") == hand


def test_a_view_reused_between_calls_never_shows_an_old_seat():
    seen = []

    def choose(view):
        # Nothing keeps this view: the next call may be handed it again.
        seen.append((id(view), view.seat, view["to-move"], tuple(map(tuple, view["hand"]))))
        return 0

    capicua.arena("block", [choose] * 4, games=3, seed=9)
    assert all(seat == to_move for _, seat, to_move, _ in seen)
    # Views are handed out again, each time seeing the seat to move.
    assert len({i for i, *_ in seen}) < len(seen) and len({s for _, s, _, _ in seen}) == 4


def test_tiles_with_three_four_or_six_faces_play_in_the_poly_arena():
    a = capicua.arena("triominoes", ["greedy", "random"], games=40, seed=3, mode="matches")
    b = capicua.arena("triominoes", [capicua.strategy("greedy"), "random"], games=40, seed=3, mode="matches")
    assert a["games"] == 40 and a["faces"] == 3 and a["hands"] > 40
    for key in ("wins", "losses", "ties", "win_rate", "ci95_low", "ci95_high", "mean_score"):
        assert a["seats"][0][key] == b["seats"][0][key]
    assert a["seats"][0]["wins"] + a["seats"][1]["wins"] + a["seats"][0]["ties"] == 40
    assert a["seats"][0]["win_rate"] > a["seats"][1]["win_rate"], "greedy beats random"

    seen = []

    def first(view):
        seen.append(view.seat)
        assert view["to-move"] == view.seat
        return 0

    report = capicua.arena("quadominoes", [first, "greedy", "random"], games=6, seed=1)
    assert report["mode"] == "hands" and report["hands"] == 6
    assert report["seats"][0]["strategy"] == "python:first" and set(seen) == {0, 1, 2}

    def cheat(view):
        return 999

    with pytest.raises(capicua.IllegalMoveError):
        capicua.arena("hexominoes", [cheat, "random"], games=2)
    with pytest.raises(capicua.StrategyError):
        capicua.arena("triominoes", ["greedy"] * 9, games=2)
    assert capicua.random_hands("triominoes", 50)["hands"] == 50
