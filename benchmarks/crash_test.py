"""Crash test: ``kill -9`` the server in the middle of a load run, restart, check.

1. start the real server (``python -m yahtzee.server``) on a temporary database;
2. ``--players`` connections play games as fast as they can, each for ``--ids`` players
   (a turn of each in turn, so that no player exceeds the server's default 20 actions a
   second, F5; each connection from its own loopback address); every acknowledged answer
   (a 2xx game object) is remembered;
3. after ``--seconds`` the server gets SIGKILL while requests are in flight;
4. checks, on the file the dead server left: ``PRAGMA integrity_check`` is ``ok``; every
   acknowledged action is in the event log (the stored version is at least the
   acknowledged one, and replaying the log up to that version gives exactly the position
   the player was shown);
5. the server restarts on the same file, and every player continues their game through
   HTTP exactly where it stood (``GET /api/games/current``, then roll if a roll is left,
   and score).

    .venv/bin/python benchmarks/crash_test.py            # 20 players, kill after 5 s
    .venv/bin/python benchmarks/crash_test.py --quick    # what the test suite runs

Exit status 0 when every check passes.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
from server_process import HttpError, RawClient, ServerProcess, check_log


@dataclass
class Player:
    """One simulated browser: its cookie and every game object it was shown, per game."""

    seed: int
    cookie: str | None = None
    acked: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    actions: int = 0


async def _play(port: int, group: list[Player], address: str, stop: asyncio.Event) -> None:
    """One connection playing for the players of ``group``, a turn of each in turn (so
    each player stays under the server's 20 actions a second, F5)."""
    client = RawClient("127.0.0.1", port, local_addr=address)
    rngs = {player.seed: random.Random(player.seed) for player in group}
    games: dict[int, dict[str, Any]] = {}

    async def act(player: Player, method: str, path: str, body: Any = None) -> Any:
        while True:
            try:
                result = await client.request(method, path, body)
                break
            except HttpError as exc:
                if exc.status != 429:
                    raise
                # Over a rate limit (a fast machine): wait as Retry-After asks (1 s).
                await asyncio.sleep(1.0)
        player.cookie = client.cookie
        game = result.get("game", result) if isinstance(result, dict) else result
        if isinstance(game, dict) and "version" in game:
            player.acked.setdefault(game["id"], []).append(game)
            player.actions += 1
        return result

    async def turn(player: Player) -> None:
        rng = rngs[player.seed]
        game = games.get(player.seed)
        if game is None or game["status"] != "in_progress":
            mode = rng.choice(["solo", "vs_computer"])
            games[player.seed] = await act(player, "POST", "/api/games", {"mode": mode})
            return
        gid = game["id"]
        game = await act(player, "POST", f"/api/games/{gid}/roll", {"version": game["version"]})
        if rng.random() < 0.5 and game["rolls_left"]:
            hold = [rng.random() < 0.5 for _ in range(4)] + [False]
            body = {"version": game["version"], "hold": hold}
            game = await act(player, "POST", f"/api/games/{gid}/roll", body)
        if rng.random() < 0.1 and game["hints_left"]:
            hint = await act(player, "POST", f"/api/games/{gid}/hint", {"version": game["version"]})
            game = hint["game"]
        allowed = [c for c, o in game["preview"].items() if o["allowed"]]
        body = {"version": game["version"], "category": rng.choice(allowed)}
        body["confirm_zero"] = True
        games[player.seed] = await act(player, "POST", f"/api/games/{gid}/score", body)

    try:
        while not stop.is_set():
            for player in group:
                if stop.is_set():
                    break
                client.cookie = player.cookie
                await turn(player)
    except (OSError, asyncio.IncompleteReadError, ValueError):
        return  # the server died under us: expected
    finally:
        await client.close()


async def _load(
    port: int, groups: list[list[Player]], seconds: float, server: ServerProcess
) -> None:
    stop = asyncio.Event()
    tasks = [
        # Each connection from its own loopback address, as distinct clients would be.
        asyncio.create_task(_play(port, group, f"127.0.2.{1 + i}", stop))
        for i, group in enumerate(groups)
    ]
    await asyncio.sleep(seconds)
    server.kill()  # SIGKILL with requests in flight
    stop.set()
    await asyncio.gather(*tasks)


def _check_log(db: Path, players: list[Player]) -> tuple[int, list[str]]:
    """Every acknowledged game object must be reproduced by the stored log."""
    return asyncio.run(check_log(db, players))


async def _continue(port: int, players: list[Player]) -> tuple[int, list[str]]:
    """After the restart every player carries on with their unfinished game."""
    problems: list[str] = []
    continued = 0
    for player in players:
        if player.cookie is None:
            continue
        client = RawClient("127.0.0.1", port)
        client.cookie = player.cookie
        try:
            try:
                game = await client.request("GET", "/api/games/current")
            except HttpError as exc:
                if exc.status == 404:  # finished exactly at the kill: a new game then
                    game = await client.request("POST", "/api/games", {"mode": "solo"})
                else:
                    raise
            gid = game["id"]
            if game["rolls_left"]:  # the position as it stood: no fresh turn (F1)
                game = await client.request(
                    "POST", f"/api/games/{gid}/roll", {"version": game["version"]}
                )
            allowed = [c for c, o in game["preview"].items() if o["allowed"]]
            body = {"version": game["version"], "category": allowed[0], "confirm_zero": True}
            await client.request("POST", f"/api/games/{gid}/score", body)
            continued += 1
        except (HttpError, OSError) as exc:
            problems.append(f"player {player.seed} cannot continue: {exc!r}")
        finally:
            await client.close()
    return continued, problems


def main(argv: list[str] | None = None) -> int:
    """Run the crash test; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20, help="concurrent connections")
    parser.add_argument("--ids", type=int, default=8, help="players per connection")
    parser.add_argument("--seconds", type=float, default=5.0, help="load time before the kill")
    parser.add_argument(
        "--quick", action="store_true", help="8 connections (of --ids players), kill after 1.5 s"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.seconds = 8, 1.5

    with tempfile.TemporaryDirectory(prefix="yahtzee-crash-") as tmp:
        db = Path(tmp) / "crash.db"
        server = ServerProcess(db).start()
        groups = [
            [Player(seed=c * args.ids + i) for i in range(args.ids)] for c in range(args.players)
        ]
        players = [player for group in groups for player in group]
        started = time.perf_counter()
        asyncio.run(_load(server.port, groups, args.seconds, server))
        acked = sum(p.actions for p in players)
        print(
            f"killed -9 after {time.perf_counter() - started:.1f} s; {acked} acknowledged actions"
        )

        conn = sqlite3.connect(db)
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        conn.close()
        print(f"PRAGMA integrity_check: {integrity}")
        checked, problems = _check_log(db, players)
        print(
            f"acknowledged game states reproduced by the log: {checked - len(problems)}/{checked}"
        )

        restarted = ServerProcess(db).start()
        try:
            continued, more = asyncio.run(_continue(restarted.port, players))
        finally:
            restarted.stop()
        problems += more
        # A player the kill caught before its first answer has nothing to continue.
        started = sum(1 for p in players if p.cookie is not None)
        print(
            f"games continued after the restart: {continued}/{started} "
            f"(players that had an answer before the kill, of {len(players)})"
        )
    for problem in problems[:20]:
        print("PROBLEM:", problem)
    ok = integrity == "ok" and not problems and acked > 0 and continued == started > 0
    print("crash test:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
