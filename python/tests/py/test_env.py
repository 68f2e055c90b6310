"""The PettingZoo AEC environment, the Gymnasium wrapper, and a training
smoke test: a linear policy that learns to beat `random` in block."""

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

import capicua  # noqa: E402
from capicua.env import SingleAgentEnv, aec_env  # noqa: E402


def test_the_aec_environment_passes_pettingzoos_api_test():
    api_test(aec_env("block"), num_cycles=300, verbose_progress=False)
    api_test(aec_env("draw", seats=3, episode="match"), num_cycles=300, verbose_progress=False)


def test_observations_come_from_the_seats_own_view():
    env = aec_env("block")
    env.reset(seed=3)
    agent = env.agent_selection
    obs = env.observe(agent)
    seat = int(agent.split("_")[1])
    view = env.unwrapped._game.view(seat)
    enc = env.unwrapped.encoding
    assert np.array_equal(obs["observation"], enc.observe(view))
    legal = {enc.encode_move(m) for m in view["legal-moves"]}
    assert set(np.flatnonzero(obs["action_mask"])) == legal
    # The other seat's hand is nowhere in it: its own-hand block is its hand only.
    other = env.unwrapped._game.view(1 - seat)
    hand = np.zeros(len(enc.tiles), np.float32)
    for t in other["hand"]:
        hand[enc.tile_id[(t[0], t[1])]] = 1
    assert not np.any(obs["observation"][: len(enc.tiles)] * hand)


def features(env, obs):
    """Per legal action: [pips / 12, double, draw or pass]."""
    enc = env.encoding
    acts = np.flatnonzero(obs["action_mask"])
    feats = []
    for a in acts:
        m = enc.decode_action(a)
        if m["kind"] == "play":
            t = m["tile"]
            feats.append([(t[0] + t[1]) / 12, float(t[0] == t[1]), 0.0])
        else:
            feats.append([0.0, 0.0, 1.0])
    return acts, np.array(feats)


def play_episodes(env, w, episodes, seed):
    """The mean outcome (won +1, lost -1) of `episodes` hands played by `w`."""
    total = 0.0
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        done, reward = False, 0.0
        while not done:
            acts, f = features(env, obs)
            obs, r, done, _, _ = env.step(acts[int(np.argmax(f @ w))])
            reward += r
        total += np.sign(reward)
    return total / episodes


def linear_policy(w):
    """The arena seat of weights `w`: the legal move of the highest score."""

    def policy(view):
        f = [
            [(m["tile"][0] + m["tile"][1]) / 12, float(m["tile"][0] == m["tile"][1]), 0.0]
            if m["kind"] == "play"
            else [0.0, 0.0, 1.0]
            for m in view["legal-moves"]
        ]
        return int(np.argmax(np.array(f) @ w))

    return policy


def test_a_linear_policy_learns_to_beat_random_in_block():
    rng = np.random.default_rng(7)

    def win_rate(w, games, seed):
        return capicua.arena("block", [linear_policy(w), "random"], games=games, seed=seed)["seats"][0]

    # Start from a losing policy (lightest tile first) and climb: a
    # candidate replaces the incumbent when it wins more of the same deals
    # (the arena's duplicate deals: every deal from both seats).
    start = np.array([-1.0, 0.0, 0.0])
    w = start
    for round_ in range(15):
        # Only the direction of `w` matters to an argmax.
        candidate = w + rng.normal(0, 0.8, 3)
        candidate /= np.linalg.norm(candidate)
        if win_rate(candidate, 4000, round_)["wins"] > win_rate(w, 4000, round_)["wins"]:
            w = candidate
    # Measured on other deals than it learnt on.
    before = win_rate(start, 6000, 99)
    after = win_rate(w, 6000, 99)
    assert before["ci95_high"] < 0.5, before
    # Beats random: the 95% interval of its win rate lies above one half.
    assert after["ci95_low"] > 0.5, (w, after)


def test_the_gymnasium_wrapper_plays_whole_hands_against_built_in_strategies():
    env = SingleAgentEnv("block", seats=2, opponents="smart")
    # Heaviest first scores more than lightest first against the same deals.
    assert play_episodes(env, np.array([1.0, 0.0, 0.0]), 300, 5) > play_episodes(env, np.array([-1.0, 0.0, 0.0]), 300, 5)
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    with pytest.raises(capicua.IllegalMoveError):
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
