"""capicua: every domino variant at native speed.

``Game`` plays any preset or variant file of either tile family (two faces,
or 3, 4 or 6), ``Strategy`` / ``strategy`` are the built-in bots, ``arena``
measures strategies (Python functions included) with the statistics of
``capicua-bot arena``, ``play`` puts a Python bot on a capicua server, and
``capicua.env`` holds a PettingZoo AEC environment and a Gymnasium wrapper.
"""

from collections.abc import Mapping as _Mapping

from ._capicua import (
    Game,
    MAX_ENDS,
    IllegalMoveError,
    RemoteError,
    Strategy,
    StrategyError,
    VariantError,
    View,
    arena,
    presets,
    random_hands,
    strategies,
)

try:  # remote play is built in when the extension has it
    from ._capicua import play
except ImportError:  # pragma: no cover
    pass

# A View reads like the dict Game.view returns.
_Mapping.register(View)


def strategy(spec, seed=0):
    """The built-in strategy ``spec`` names (``"random"``, ``"pimc:samples=200"``...).

    The result is callable: ``strategy("smart")(view_or_game)`` returns a move.
    """
    return Strategy(spec, seed)


__all__ = [
    "Game",
    "View",
    "Strategy",
    "strategy",
    "strategies",
    "presets",
    "arena",
    "random_hands",
    "play",
    "VariantError",
    "IllegalMoveError",
    "StrategyError",
    "RemoteError",
    "MAX_ENDS",
]
