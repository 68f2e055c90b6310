#!/usr/bin/env python3
"""A capicua ladder bot in Python: a registered player on the always-on
ladder of a preset, playing random legal moves in every rated match the
server pairs it into.

    pip install websockets
    python3 ladder_bot.py --name ana --preset block               # until stopped
    python3 ladder_bot.py --name ana --preset block --matches 3

The first run registers NAME and keeps its secret token in NAME.token
(mode 0600); later runs read the file and play as the same player. It
builds on bot.py's `Bot` (requests with ids, frames kept in order).
"""

import argparse
import asyncio
import os
import random
import sys

from bot import PROTOCOL_VERSION, Bot, websockets


async def sign_in(bot, name, token_file):
    """Says hello as NAME: with its saved token, or registers NAME first."""
    if os.path.exists(token_file):
        with open(token_file) as f:
            token = f.read().strip()
        await bot.request({"type": "hello", "version": PROTOCOL_VERSION, "lean-prompts": True, "token": token})
        return
    await bot.request({"type": "hello", "version": PROTOCOL_VERSION, "lean-prompts": True})
    registered = await bot.request({"type": "register", "name": name})
    # The token is shown once: keep it, readable by its owner only.
    fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(registered["token"] + "\n")
    print(f"registered {name}; token kept in {token_file}", file=sys.stderr)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", default="ws://127.0.0.1:8080/ws")
    p.add_argument("--name", required=True, help="the player to register, or to play as")
    p.add_argument("--token-file", default=None, help="where the token is kept (default: NAME.token)")
    p.add_argument("--preset", default="latin", help="the ladder: a preset (block, latin, ...)")
    p.add_argument("--matches", type=int, default=0, help="leave the ladder after this many matches (0: never)")
    args = p.parse_args()

    async with websockets.connect(args.server) as ws:
        bot = Bot(ws)
        await sign_in(bot, args.name, args.token_file or f"{args.name}.token")
        ladder = await bot.request({"type": "join-ladder", "variant": args.preset})
        print(f"{args.name} on the {ladder['variant']} ladder, {ladder['waiting']} waiting", file=sys.stderr)

        played = 0
        while True:
            frame = await bot.recv()
            kind = frame["type"]
            if kind == "ladder-match":
                # A rated room with a seat reserved for us: take it, say ready.
                await bot.request({"type": "join", "room": frame["room"], "seat": frame["seat"]})
                await bot.request({"type": "ready", "room": frame["room"]})
                print(f"room {frame['room']}, seat {frame['seat']}", file=sys.stderr)
            elif kind == "prompt":
                move = random.choice(frame["legal-moves"])
                await bot.send({"type": "move", "room": frame["room"], "prompt": frame["prompt"],
                                "family": frame["family"], "move": move})
            elif kind == "game-over":
                played += 1
                result = frame["result"]
                print(f"game {frame['game']} over: winner side {result['winner']}, scores {result['scores']}",
                      file=sys.stderr)
                if args.matches and played >= args.matches:
                    await bot.request({"type": "leave-ladder"})
                    return 0
            elif kind == "error":
                # An error without a request id, e.g. `rate-limited` when a
                # ladder seat was not taken in time.
                raise RuntimeError(f"{frame['code']}: {frame['message']}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
