"""capicua.play against a real capicua-server on port 0.

The server binary is CAPICUA_SERVER_BIN, else the workspace's
target/debug/capicua-server (`cargo build -p capicua-server` or `cargo
test` builds it). Without one the tests skip, unless CAPICUA_REQUIRE_SERVER=1
(CI), where a missing server is a failure.
"""

import json
import os
import pathlib
import re
import subprocess
import threading
import time
import urllib.request

import pytest

import capicua

ROOT = pathlib.Path(__file__).resolve().parents[3]


def server_binary():
    path = os.environ.get("CAPICUA_SERVER_BIN") or str(ROOT / "target" / "debug" / "capicua-server")
    if os.path.exists(path):
        return path
    if os.environ.get("CAPICUA_REQUIRE_SERVER") == "1":
        pytest.fail(f"no capicua-server at {path} (CAPICUA_REQUIRE_SERVER=1)")
    pytest.skip(f"no capicua-server at {path}: cargo build -p capicua-server")


def start_server(tmp_path, *extra):
    """A server on a port of its own: (process, WebSocket address)."""
    proc = subprocess.Popen(
        [server_binary(), "serve", "--listen", "127.0.0.1:0", "--database", str(tmp_path / "capicua.db"), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    for line in proc.stdout:
        lines.append(line)
        found = re.search(r"listening on http://([0-9.]+:[0-9]+)", line)
        if found:
            break
    else:
        proc.wait(timeout=10)
        pytest.fail("the server stopped before listening:\n" + "".join(lines))
    # Keep reading its output so that it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    return proc, f"ws://{found.group(1)}/ws"


def stop_server(proc):
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def server(tmp_path):
    """A server on a port of its own; yields its WebSocket address."""
    proc, address = start_server(tmp_path)
    try:
        yield address
    finally:
        stop_server(proc)


ADMIN = "py-admin-token-for-tests"


@pytest.fixture
def admin_server(tmp_path):
    """A server with an admin token (tournaments are created with it);
    yields (address, token)."""
    proc, address = start_server(tmp_path, "--admin-token", ADMIN)
    try:
        yield address, ADMIN
    finally:
        stop_server(proc)


def http_json(server, path, body=None, token=None):
    """GET (or POST `body` as JSON) on the server's HTTP API."""
    url = server.replace("ws://", "http://").removesuffix("/ws") + path
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=10) as r:
        return json.loads(r.read())


def test_a_python_function_plays_a_match_on_a_server(server):
    views = []

    def choose(view):
        views.append(view.to_dict())
        # Legal moves come with every prompt's view; the server refuses any other.
        return view["legal-moves"][-1]

    counts = capicua.play(choose, server, variant="block", count=4, matches=1)
    assert counts["games"] == 1 and counts["errors"] == 0
    assert counts["moves"] == len(views) > 0
    # Every view is the prompted seat's own, with that seat to move.
    assert all(v["seat"] == v["to-move"] and v["legal-moves"] for v in views)


def test_a_named_bot_registers_once_and_plays_poly(server, tmp_path):
    token_file = tmp_path / "pybot.token"

    def choose(view):
        return 0

    # A named bot plays with its token; three guests fill the table.
    done = []

    def guests():
        done.append(capicua.play(capicua.strategy("random"), server, variant="triominoes", count=3, matches=1))

    t = threading.Thread(target=guests)
    t.start()
    counts = capicua.play(choose, server, name="pybot", token_file=str(token_file), variant="triominoes", matches=1)
    t.join(timeout=60)
    assert token_file.read_text().strip()
    assert counts["games"] == 1 and done and done[0]["games"] == 1


def test_the_functions_error_stops_play(server):
    def boom(view):
        raise ZeroDivisionError("no move")

    with pytest.raises(ZeroDivisionError):
        capicua.play(boom, server, variant="block", count=4, matches=1)


def test_an_unreachable_address_is_a_clear_error():
    with pytest.raises(capicua.RemoteError):
        capicua.play(lambda v: 0, "http://127.0.0.1:1/ws", matches=1)


def test_the_readmes_example_plays_a_match_locally_and_on_a_server(server, capfd):
    readme = (ROOT / "python" / "README.md").read_text()
    example = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    assert len(example.strip().splitlines()) <= 14
    exec(compile(example.replace("ws://127.0.0.1:8080/ws", server), "README.md", "exec"), {})
    # The bot client prints each stored match from Rust, to the process's stdout.
    out = capfd.readouterr().out
    assert "game " in out and "stored" in out, out


def test_two_python_players_play_a_ladder_match(server, tmp_path):
    # Two registered players join the block ladder; the server pairs them in
    # a rated room, and each leaves the ladder after its one match.
    views, done = [], {}

    def choose(view):
        views.append(view.to_dict())
        return view.legal_count - 1

    def player(name):
        done[name] = capicua.play(
            choose, server, name=name, token_file=str(tmp_path / f"{name}.token"), ladder=True, matches=1
        )

    threads = [threading.Thread(target=player, args=(n,)) for n in ("lad-a", "lad-b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert done["lad-a"]["games"] == 1 and done["lad-b"]["games"] == 1, done
    assert views and all(v["seat"] == v["to-move"] and v["variant"] == "block" for v in views)
    board = http_json(server, "/api/ladder?variant=block")
    rows = {r["name"]: r for r in board["players"]}
    assert rows["lad-a"]["games"] == 1 and rows["lad-b"]["games"] == 1, board


def test_a_python_player_plays_its_tournament_tables(admin_server, tmp_path):
    server, admin = admin_server
    token_file = tmp_path / "tourney-py.token"
    seen = []

    def choose(view):
        seen.append(view.seat)
        return 0

    def organiser():
        # The player registers on its first connection, then waits for the
        # tournament, which is created once its name exists.
        for _ in range(600):
            if token_file.exists() and token_file.read_text().strip():
                break
            time.sleep(0.05)
        spec = {
            "name": "python cup", "seed": 3, "table": "duel", "variants": ["block"],
            "entrants": ["tourney-py", "bot:random", "bot:heuristic"],
            "stages": [{"format": "round-robin"}],
        }
        created.append(http_json(server, "/api/tournaments", body=spec, token=admin))

    created = []
    t = threading.Thread(target=organiser)
    t.start()
    counts = capicua.play(choose, server, name="tourney-py", token_file=str(token_file), tournament=1)
    t.join(timeout=60)
    assert created and created[0]["id"] == 1, created
    # A round robin of three: two tables for each entrant, played to the end.
    assert counts["games"] == 2 and counts["errors"] == 0, counts
    assert seen
    detail = http_json(server, "/api/tournaments/1")
    assert detail["status"] == "finished", detail


def test_ladder_and_tournament_need_a_registered_player_and_one_of_them():
    with pytest.raises(ValueError):
        capicua.play(lambda v: 0, "ws://127.0.0.1:1/ws", ladder=True)
    with pytest.raises(ValueError):
        capicua.play(lambda v: 0, "ws://127.0.0.1:1/ws", token="t", ladder=True, tournament=1)
    with pytest.raises(ValueError):
        capicua.play(lambda v: 0, "ws://127.0.0.1:1/ws", token="t", tournament=1, count=2)
    with pytest.raises(ValueError):
        capicua.play(lambda v: 0, "ws://127.0.0.1:1/ws", token="t", ladder=True, variant="base = 'block'\nname = 'x'")
