"""capicua.Game, capicua.View and the built-in strategies from Python."""

import json

import pytest

import capicua


def test_every_preset_of_both_families_plays_to_its_end():
    presets = capicua.presets()
    assert "block" in presets["tiles"] and "hexominoes" in presets["poly"]
    for family, names in presets.items():
        for name in names:
            game = capicua.Game(name, seed=3)
            assert game.family == family
            while not game.is_over and game.plies < 3000:
                game.play(0)
            result = game.result()
            assert set(result) >= {"over", "scores", "seat-scores", "winner", "hands", "outcome"}


def test_a_variant_file_in_toml_and_json_and_its_errors():
    toml = 'base = "latin"\nname = "latin-200"\ntarget = { points = { points = 200 } }\n'
    assert capicua.Game(toml).name == "latin-200"
    assert capicua.Game(json.dumps({"base": "hexominoes", "name": "hex"})).family == "poly"
    with pytest.raises(capicua.VariantError) as e:
        capicua.Game('base = "latin"\nmatching = "equl"\n')
    assert str(e.value).startswith('variant.toml:2: matching: unknown option "equl"; expected one of: equal,')
    assert isinstance(e.value, ValueError)
    with pytest.raises(capicua.VariantError, match="unknown preset"):
        capicua.Game("blok")
    # A variant as a dict (the protocol's JSON), e.g. Game.variant of another game.
    assert capicua.Game(capicua.Game("draw").variant).name == "draw"


def test_an_illegal_move_raises_and_changes_nothing():
    game = capicua.Game("block", seed=1, seats=2)
    before = game.view()
    with pytest.raises(capicua.IllegalMoveError):
        game.play({"kind": "draw"})
    with pytest.raises(capicua.IllegalMoveError):
        game.play(99)
    with pytest.raises(capicua.IllegalMoveError):
        game.play({"kind": "fly"})
    assert game.view() == before
    events = game.play(game.legal_moves()[0])
    assert events[0]["event"] == "played"


def test_views_have_the_protocols_keys_and_legal_moves():
    game = capicua.Game("block", seed=1, seats=2)
    seat = game.to_move
    view = game.view(seat)
    assert view["seat"] == seat and view["to-move"] == seat
    assert view["legal-moves"] == game.legal_moves()
    assert game.view(1 - seat)["legal-moves"] == []
    assert "hand" in view and "history" in view and "ends" in view
    # JSON round trip: the shape a server sends.
    json.dumps(view)
    poly = capicua.Game("triominoes", seed=1)
    pview = poly.view(poly.to_move)
    assert pview["legal-moves"] == poly.legal_moves()
    with pytest.raises(ValueError):
        game.view(7)


def _tiles(value, holds=False):
    """Every two-faced tile a view names: under a `tile` key anywhere, and in
    the hands it lists (`hand`, `hands`, `drawn`, `shown`)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "tile" and isinstance(v, (list, tuple)):
                yield (min(v), max(v))
            else:
                yield from _tiles(v, holds=k in ("hand", "hands", "drawn", "shown"))
    elif isinstance(value, (list, tuple)):
        if holds and len(value) == 2 and all(isinstance(v, int) for v in value):
            yield (min(value), max(value))
        else:
            for v in value:
                yield from _tiles(v, holds)


@pytest.mark.parametrize("variant,seats", [("block", 2), ("draw", 4), ("latin", 4), ("mexican-train", 4)])
def test_no_view_names_another_seats_hidden_tile(variant, seats):
    checked = 0
    for seed in range(3):
        game = capicua.Game(variant, seed=seed, seats=seats)
        while not game.is_over and game.plies < 300:
            hands = [{(min(t), max(t)) for t in game.view(s)["hand"]} for s in range(seats)]
            for s in range(seats):
                view = game.view(s)
                # Public by rule: the tile the leader must lead (the table
                # knows who holds the highest double).
                named = set(_tiles({k: v for k, v in view.items() if k != "lead-requirement"}))
                for other in range(seats):
                    if other != s:
                        assert not (named & hands[other]), f"seat {s} sees seat {other}'s {named & hands[other]}"
                checked += 1
            game.play(game.plies % len(game.legal_moves()))
    assert checked > 100


def test_the_hidden_tile_check_can_fail():
    game = capicua.Game("block", seed=1, seats=2)
    own = {(min(t), max(t)) for t in game.view(1)["hand"]}
    assert set(_tiles(game.view(1))) & own == own
    assert not set(_tiles({"hand": game.view(0)["hand"]})) & own


def test_built_in_strategies_choose_in_a_game_and_in_a_view():
    assert "pimc" in dict(capicua.strategies()["tiles"])
    game = capicua.Game("block", seed=2, seats=2)
    smart = capicua.strategy("smart", seed=1)
    view = game.view(game.to_move)
    assert smart.choose(game) in game.legal_moves()
    assert smart(view) in game.legal_moves()
    assert capicua.strategy("pimc:samples=20")(game) in game.legal_moves()
    poly = capicua.Game("hexominoes", seed=2)
    greedy = capicua.strategy("greedy")
    assert greedy(poly) in poly.legal_moves()
    assert greedy(poly.view(poly.to_move), variant="hexominoes") in poly.legal_moves()
    with pytest.raises(capicua.StrategyError):
        capicua.strategy("nobody")
    with pytest.raises(ValueError):
        smart(game.view((game.to_move + 1) % 2))
