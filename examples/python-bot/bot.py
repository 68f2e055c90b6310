#!/usr/bin/env python3
"""A capicua bot in Python: plays random legal moves.

    pip install websockets
    python3 bot.py --server ws://127.0.0.1:8080/ws            # create a latin room, play forever
    python3 bot.py --server ws://127.0.0.1:8080/ws --fill-bots random --matches 1
    python3 bot.py --preset triominoes --fill-bots greedy --matches 1

Only the protocol is needed (see the book's Protocol reference,
book/src/bots/protocol.md): hello, join, ready, then
answer each `prompt` with a `move` carrying its `prompt` id, its `family`
and one of its `legal-moves`. The family is `tiles` for dominoes and `poly`
in rooms of tiles with 3, 4 or 6 faces (the presets triominoes,
quadominoes, hexominoes, graph-triominoes).
"""

import argparse
import asyncio
import json
import random
import sys

try:
    import websockets
except ImportError:
    # One line a newcomer can act on, not a traceback.
    sys.exit("bot.py needs the websockets package: pip install websockets")

PROTOCOL_VERSION = 2


class Bot:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.pending = []  # frames read while waiting for a reply

    async def send(self, msg):
        self.next_id += 1
        msg["id"] = self.next_id
        await self.ws.send(json.dumps(msg))
        return self.next_id

    async def recv(self):
        if self.pending:
            return self.pending.pop(0)
        return json.loads(await self.ws.recv())

    async def request(self, msg):
        rid = await self.send(msg)
        held = []
        while True:
            frame = json.loads(await self.ws.recv())
            if frame.get("id") == rid:
                self.pending = held + self.pending
                if frame["type"] == "error":
                    raise RuntimeError(f"{frame['code']}: {frame['message']}")
                return frame
            held.append(frame)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server", default="ws://127.0.0.1:8080/ws")
    p.add_argument("--token", default=None)
    p.add_argument("--preset", default="latin",
                   help="the room's preset: two-faced (latin, block, ...) or poly (triominoes, quadominoes, ...)")
    p.add_argument("--room", type=int, default=None)
    p.add_argument("--fill-bots", default=None, help="fill the other seats with this hosted strategy")
    p.add_argument("--matches", type=int, default=0, help="stop after this many matches (0: forever)")
    args = p.parse_args()

    async with websockets.connect(args.server) as ws:
        bot = Bot(ws)
        # It picks from `legal-moves` alone: lean prompts leave out the view.
        hello = {"type": "hello", "version": PROTOCOL_VERSION, "lean-prompts": True}
        if args.token:
            hello["token"] = args.token
        welcome = await bot.request(hello)
        print(f"playing as {welcome['player']['name']}", file=sys.stderr)

        room = args.room
        if room is None:
            created = await bot.request({"type": "create-room", "preset": args.preset})
            room = created["room"]["id"]
        seated = await bot.request({"type": "join", "room": room})
        # People count seats from 1; the protocol, from 0.
        print(f"room {room}, seat {seated['seat'] + 1} (protocol seat {seated['seat']})", file=sys.stderr)
        if args.fill_bots:
            await bot.request({"type": "fill-bots", "room": room, "strategy": args.fill_bots})
        await bot.request({"type": "ready", "room": room})

        played = 0
        moves = 0
        while True:
            frame = await bot.recv()
            kind = frame["type"]
            if kind == "prompt":
                # The same answer in both families: one of the legal moves,
                # tagged with the prompt's family.
                move = random.choice(frame["legal-moves"])
                await bot.send({"type": "move", "room": room, "prompt": frame["prompt"],
                                "family": frame["family"], "move": move})
                moves += 1
            elif kind == "error":
                raise RuntimeError(f"{frame['code']}: {frame['message']}")
            elif kind == "game-over":
                played += 1
                result = frame["result"]
                print(f"game {frame['game']} over: winner side {result['winner']}, "
                      f"scores {result['scores']}, {moves} moves", file=sys.stderr)
                if args.matches and played >= args.matches:
                    return 0
                await bot.request({"type": "ready", "room": room})
            elif kind == "room-closed":
                print(f"room closed: {frame['reason']}", file=sys.stderr)
                return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
