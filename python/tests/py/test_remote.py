"""capicua.play against a real capicua-server on port 0.

The server binary is CAPICUA_SERVER_BIN, else the workspace's
target/debug/capicua-server (`cargo build -p capicua-server` or `cargo
test` builds it). Without one the tests skip, unless CAPICUA_REQUIRE_SERVER=1
(CI), where a missing server is a failure.
"""

import os
import pathlib
import re
import subprocess
import threading

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


@pytest.fixture
def server(tmp_path):
    """A server on a port of its own; yields its WebSocket address."""
    proc = subprocess.Popen(
        [server_binary(), "serve", "--listen", "127.0.0.1:0", "--database", str(tmp_path / "capicua.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            found = re.search(r"listening on http://([0-9.]+:[0-9]+)", line)
            if found:
                break
        else:
            pytest.fail("the server stopped before listening:\n" + "".join(lines))
        # Keep reading its output so that it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
        yield f"ws://{found.group(1)}/ws"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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
