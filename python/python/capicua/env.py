"""Reinforcement-learning environments over capicua's two-faced variants.

``aec_env(variant)`` is a PettingZoo AEC environment: one agent per seat,
each observing its own view only (``Game.view(seat)``), with an action mask
from its legal moves and rewards from the score. ``SingleAgentEnv`` is a
Gymnasium environment for one seat, the others played by built-in
strategies.

Actions index a fixed list per variant: for every tile of the set, every
open end (``capicua.MAX_ENDS`` of them, then the lead) and both faces, then
draw and pass. ``encode_move`` / ``decode_action`` convert.

Observations are a flat ``float32`` vector (see ``Encoding.observe``): the
seat's own hand, the tiles played this hand, the pips of the open ends,
every seat's hand size (from the seat's own on), the stock, and the scores.
"""

from __future__ import annotations

import numpy as np

from . import MAX_ENDS, Game, Strategy

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover
    raise ImportError("capicua.env needs gymnasium (pip install gymnasium pettingzoo numpy)") from e

LEAD = 255
_SLOTS = MAX_ENDS + 1  # every open end, then the lead


def _tile(t):
    return (int(t[0]), int(t[1]))


class Encoding:
    """Actions and observations of one variant at a table of ``seats``."""

    def __init__(self, game: Game):
        if game.family != "tiles":
            raise ValueError("capicua.env plays two-faced variants (tiles with 3, 4 or 6 faces have no fixed action list)")
        self.tiles = [_tile(t) for t in game.tiles]
        self.tile_id = {t: i for i, t in enumerate(self.tiles)}
        self.max_pip = max(max(t) for t in self.tiles)
        self.seats = game.seats
        self.n_actions = len(self.tiles) * _SLOTS * 2 + 2
        self.draw = self.n_actions - 2
        self.pass_ = self.n_actions - 1
        n = len(self.tiles)
        self.obs_size = 2 * n + (self.max_pip + 1) + self.seats + 1 + self.seats

    def encode_move(self, move) -> int:
        """The action index of a move's dict."""
        kind = move["kind"]
        if kind == "draw":
            return self.draw
        if kind == "pass":
            return self.pass_
        tile = self.tile_id[_tile(move["tile"])]
        end = int(move["end"])
        slot = MAX_ENDS if end == LEAD else end
        return (tile * _SLOTS + slot) * 2 + int(move["face"])

    def decode_action(self, action: int) -> dict:
        """The move's dict of an action index (legal or not)."""
        action = int(action)
        if action == self.draw:
            return {"kind": "draw"}
        if action == self.pass_:
            return {"kind": "pass"}
        tile, rest = divmod(action, _SLOTS * 2)
        slot, face = divmod(rest, 2)
        end = LEAD if slot == MAX_ENDS else slot
        return {"kind": "play", "tile": list(self.tiles[tile]), "end": end, "face": face}

    def mask(self, view) -> np.ndarray:
        """1 for each legal action of the view's seat."""
        mask = np.zeros(self.n_actions, dtype=np.int8)
        for m in view["legal-moves"]:
            mask[self.encode_move(m)] = 1
        return mask

    def observe(self, view) -> np.ndarray:
        """The seat's own view as a vector: nothing another seat hides."""
        n = len(self.tiles)
        obs = np.zeros(self.obs_size, dtype=np.float32)
        for t in view["hand"] or ():
            obs[self.tile_id[_tile(t)]] = 1.0
        for record in view["history"]:
            action = record["action"]
            if action.get("kind") == "play":
                obs[n + self.tile_id[_tile(action["tile"])]] = 1.0
        base = 2 * n
        for end in view["ends"]:
            obs[base + int(end["pip"])] += 1.0
        base += self.max_pip + 1
        me = view["seat"] or 0
        sizes = view["hand-sizes"]
        for k in range(self.seats):
            obs[base + k] = sizes[(me + k) % self.seats] / n
        base += self.seats
        obs[base] = view["stock"] / n
        base += 1
        scores = view["scores"]
        for k, s in enumerate(scores[: self.seats]):
            obs[base + k] = s / 100.0
        return obs


def aec_env(variant="block", seats=2, episode="hand", render_mode=None):
    """A PettingZoo AEC environment: one agent (``seat_0``...) per seat.

    ``episode`` is ``"hand"`` (every agent terminates when the first hand
    ends) or ``"match"`` (when the match ends). Rewards: when a move changes
    the scores, each agent gets its side's gain less the mean gain of the
    other sides, so the rewards of a two-sided game sum to zero.
    """
    from pettingzoo import AECEnv

    class _Env(AECEnv):
        metadata = {"render_modes": ["human", "ansi"], "name": "capicua_v0", "is_parallelizable": False}

        def __init__(self):
            super().__init__()
            self.variant = variant
            self.render_mode = render_mode
            self._game = Game(variant, seed=0, seats=seats)
            self.encoding = Encoding(self._game)
            self.possible_agents = [f"seat_{i}" for i in range(self._game.seats)]
            self._index = {a: i for i, a in enumerate(self.possible_agents)}
            n = self.encoding.n_actions
            self.observation_spaces = {
                a: spaces.Dict(
                    {
                        "observation": spaces.Box(-np.inf, np.inf, (self.encoding.obs_size,), np.float32),
                        "action_mask": spaces.Box(0, 1, (n,), np.int8),
                    }
                )
                for a in self.possible_agents
            }
            self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
            self._rng = np.random.default_rng()

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def observe(self, agent):
            view = self._game.view(self._index[agent])
            if self._game.to_move == self._index[agent]:
                mask = self.encoding.mask(view)
            else:
                mask = np.zeros(self.encoding.n_actions, np.int8)
            return {"observation": self.encoding.observe(view), "action_mask": mask}

        def reset(self, seed=None, options=None):
            if seed is not None:
                self._rng = np.random.default_rng(seed)
            self._game = Game(self.variant, seed=int(self._rng.integers(2**63)), seats=len(self.possible_agents))
            self._sides = self._game.sides
            self.agents = self.possible_agents[:]
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.possible_agents[self._game.to_move]

        def _score_rewards(self, before, after):
            gains = [a - b for a, b in zip(after, before)]
            n_sides = len(gains)
            for a in self.agents:
                side = self._sides[self._index[a]]
                others = [g for k, g in enumerate(gains) if k != side]
                mean_other = sum(others) / len(others) if others else 0.0
                self.rewards[a] = float(gains[side] - mean_other) if n_sides > 1 else float(gains[side])

        def step(self, action):
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                return self._was_dead_step(action)
            self._cumulative_rewards[agent] = 0.0
            for a in self.agents:
                self.rewards[a] = 0.0
            move = self.encoding.decode_action(action)
            hand = self._game.hand_number
            before = self._game.result()["scores"][:]
            self._game.play(move)  # an illegal action raises and changes nothing
            self._score_rewards(before, self._game.result()["scores"])
            over = self._game.is_over or (episode == "hand" and self._game.hand_number != hand)
            if over:
                for a in self.agents:
                    self.terminations[a] = True
            self._accumulate_rewards()
            if over:
                # Dead agents step out in seat order.
                self.agent_selection = self.agents[0]
            else:
                self.agent_selection = self.possible_agents[self._game.to_move]
            if self.render_mode == "human":
                self.render()

        def render(self):
            text = repr(self._game)
            if self.render_mode == "human":
                print(text)
            return text

        def close(self):
            pass

    return _Env()


class SingleAgentEnv(gymnasium.Env):
    """One seat of a two-faced variant as a Gymnasium environment; the other
    seats play built-in strategies (``opponents``: one spec, or one per other
    seat). An episode is one hand (``episode="hand"``) or a match; the reward
    is as in ``aec_env``, summed over the opponents' moves too."""

    metadata = {"render_modes": []}

    def __init__(self, variant="block", seats=2, seat=0, opponents="random", episode="hand"):
        super().__init__()
        self.variant = variant
        self.seat = seat
        self.episode = episode
        self._game = Game(variant, seed=0, seats=seats)
        self.encoding = Encoding(self._game)
        others = [s for s in range(self._game.seats) if s != seat]
        specs = [opponents] * len(others) if isinstance(opponents, str) else list(opponents)
        if len(specs) != len(others):
            raise ValueError(f"{len(others)} opponents needed, {len(specs)} given")
        self._specs = dict(zip(others, specs))
        self._opponents = {}
        n = self.encoding.n_actions
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (self.encoding.obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(n)

    def _obs(self):
        view = self._game.view(self.seat)
        return {"observation": self.encoding.observe(view), "action_mask": self.encoding.mask(view)}

    def _gain(self, before):
        after = self._game.result()["scores"]
        sides = self._game.sides
        mine = sides[self.seat]
        gains = [a - b for a, b in zip(after, before)]
        others = [g for k, g in enumerate(gains) if k != mine]
        return float(gains[mine] - (sum(others) / len(others) if others else 0.0))

    def _others_play(self, hand):
        """Plays the other seats until this seat is to move or the episode ends."""
        reward = 0.0
        while not self._done(hand) and self._game.to_move != self.seat:
            before = self._game.result()["scores"][:]
            seat = self._game.to_move
            self._game.play(self._opponents[seat](self._game))
            reward += self._gain(before)
        return reward

    def _done(self, hand):
        return self._game.is_over or (self.episode == "hand" and self._game.hand_number != hand)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        while True:
            deal = int(self.np_random.integers(2**62))
            self._game = Game(self.variant, seed=deal, seats=self._game.seats)
            self._opponents = {s: Strategy(spec, seed=deal + s) for s, spec in self._specs.items()}
            self._hand = self._game.hand_number
            self._others_play(self._hand)
            # A hand the others ended (blocked) before this seat moved is
            # no episode: deal another.
            if not self._done(self._hand):
                return self._obs(), {}

    def step(self, action):
        before = self._game.result()["scores"][:]
        self._game.play(self.encoding.decode_action(action))
        reward = self._gain(before)
        reward += self._others_play(self._hand)
        done = self._done(self._hand)
        return self._obs(), reward, done, False, {"result": self._game.result() if done else None}
