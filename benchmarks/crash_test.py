"""Crash test: ``kill -9`` the server in the middle of a load run, restart, check.

1. start the real server (``python -m yahtzee.server``) on a temporary database;
2. ``--players`` connections play games as fast as they can, each for ``--ids`` players
   (a turn of each in turn, so that no player exceeds the server's default 20 actions a
   second, F5; each connection from its own loopback address); every acknowledged answer
   (a 2xx game object) is remembered;
3. after ``--seconds`` the server gets SIGKILL while requests are in flight;
4. checks, on the database the dead server left: its integrity (SQLite: ``PRAGMA
   integrity_check`` is ``ok``); every acknowledged action is in the event log (the
   stored version is at least the acknowledged one, and replaying the log up to that
   version gives exactly the position the player was shown);
5. the server restarts on the same database, and every player continues their game
   through HTTP exactly where it stood (``GET /api/games/current``, then roll if a roll
   is left, and score).

With ``--db postgresql`` the database is a PostgreSQL cluster of its own with the
durability settings of a real deployment (``fsync=on``, ``synchronous_commit=on``,
``full_page_writes=on``: the test suite's cluster turns fsync off for speed, so its
crash tests prove nothing about the disk), and the test runs twice: once killing the
server as above, once killing the PostgreSQL postmaster (``kill -9``) mid-burst. Then the
cluster restarts (crash recovery from its WAL), the checks of step 4 run (with
``amcheck``'s ``bt_index_check`` on every index of the game tables for integrity), and
the players continue through the *same* server process, which must reconnect by itself.

    .venv/bin/python benchmarks/crash_test.py                   # 20 players, kill after 5 s
    .venv/bin/python benchmarks/crash_test.py --db postgresql   # the same on PostgreSQL
    .venv/bin/python benchmarks/crash_test.py --quick           # what the test suite runs

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
from collections.abc import Callable
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
    except HttpError as exc:
        if exc.status != 503:
            raise
        return  # the database died under the server: 503 storage_unavailable, expected
    finally:
        await client.close()


async def _load(
    port: int, groups: list[list[Player]], seconds: float, kill: Callable[[], None]
) -> None:
    stop = asyncio.Event()
    tasks = [
        # Each connection from its own loopback address, as distinct clients would be.
        asyncio.create_task(_play(port, group, f"127.0.2.{1 + i}", stop))
        for i, group in enumerate(groups)
    ]
    await asyncio.sleep(seconds)
    kill()  # SIGKILL with requests in flight
    stop.set()
    await asyncio.gather(*tasks)


def _check_log(db: Path | str, players: list[Player]) -> tuple[int, list[str]]:
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


def _groups(args: argparse.Namespace, first_seed: int = 0) -> list[list[Player]]:
    return [
        [Player(seed=first_seed + c * args.ids + i) for i in range(args.ids)]
        for c in range(args.players)
    ]


def _burst_and_check(
    db: Path | str,
    server: ServerProcess,
    groups: list[list[Player]],
    args: argparse.Namespace,
    kill: Callable[[], None],
    after_kill: Callable[[], str],
    continue_on: Callable[[], ServerProcess],
) -> bool:
    """Play, ``kill`` mid-burst, then ``after_kill()`` (returns the integrity verdict),
    check the log, and continue every game on ``continue_on()``'s server."""
    players = [player for group in groups for player in group]
    started = time.perf_counter()
    asyncio.run(_load(server.port, groups, args.seconds, kill))
    acked = sum(p.actions for p in players)
    print(f"killed -9 after {time.perf_counter() - started:.1f} s; {acked} acknowledged actions")
    integrity = after_kill()
    checked, problems = _check_log(db, players)
    print(f"acknowledged game states reproduced by the log: {checked - len(problems)}/{checked}")
    survivor = continue_on()
    resumed = time.perf_counter()
    try:
        continued, more = asyncio.run(_continue(survivor.port, players))
    finally:
        survivor.stop()
    print(f"(the continuation took {time.perf_counter() - resumed:.1f} s)")
    problems += more
    # A player the kill caught before its first answer has nothing to continue.
    began = sum(1 for p in players if p.cookie is not None)
    print(
        f"games continued after the restart: {continued}/{began} "
        f"(players that had an answer before the kill, of {len(players)})"
    )
    for problem in problems[:20]:
        print("PROBLEM:", problem)
    return integrity == "ok" and not problems and acked > 0 and continued == began > 0


def _sqlite(args: argparse.Namespace) -> bool:
    with tempfile.TemporaryDirectory(prefix="yahtzee-crash-") as tmp:
        db = Path(tmp) / "crash.db"
        server = ServerProcess(db).start()

        def integrity() -> str:
            conn = sqlite3.connect(db)
            verdict = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
            conn.close()
            print(f"PRAGMA integrity_check: {verdict}")
            return verdict

        return _burst_and_check(
            db,
            server,
            _groups(args),
            args,
            server.kill,
            integrity,
            lambda: ServerProcess(db).start(),
        )


def _pg_integrity(url: str) -> str:
    """``ok``, or what ``amcheck`` found wrong with an index of the game tables."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        indexes = conn.execute(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_class t ON t.oid = i.indrelid WHERE t.relname IN ('games', 'events')"
        ).fetchall()
        try:
            for (name,) in indexes:
                conn.execute("SELECT bt_index_check(%s::regclass, true)", (name,))
        except psycopg.Error as exc:
            return f"index corrupt: {exc}"
    return "ok"


def _postgres(args: argparse.Namespace) -> bool:
    from yahtzee.storage.pgcluster import TempCluster

    with (
        tempfile.TemporaryDirectory(prefix="yahtzee-crash-") as tmp,
        TempCluster(durable=True) as cluster,
    ):
        import psycopg

        url = cluster.create_database("crash")
        with psycopg.connect(url) as conn:
            settings = {
                name: conn.execute(f"SHOW {name}").fetchone()[0]  # type: ignore[index]
                for name in ("fsync", "synchronous_commit", "full_page_writes")
            }
        print("PostgreSQL " + ", ".join(f"{k}={v}" for k, v in settings.items()))
        if settings["fsync"] != "on" or settings["synchronous_commit"] != "on":
            print("crash test: FAIL (the cluster is not durable)")
            return False
        options = ["--secret-file", str(Path(tmp) / "cookie.secret")]

        def server() -> ServerProcess:
            return ServerProcess(url, log=Path(tmp) / "server.log", args=options).start()

        def integrity() -> str:
            verdict = _pg_integrity(url)
            print(f"amcheck of the indexes: {verdict}")
            return verdict

        print("-- kill -9 of the server mid-burst")
        first = server()
        ok = _burst_and_check(url, first, _groups(args), args, first.kill, integrity, server)

        print("-- kill -9 of the PostgreSQL postmaster mid-burst")
        survivor = server()

        def restart_cluster() -> str:
            time.sleep(args.outage)  # the database stays down (the server keeps trying)
            cluster.start()  # crash recovery from the WAL
            return integrity()

        return (
            _burst_and_check(
                url,
                survivor,
                _groups(args, first_seed=100_000),
                args,
                cluster.kill,
                restart_cluster,
                lambda: survivor,  # the same process: it must reconnect by itself
            )
            and ok
        )


def main(argv: list[str] | None = None) -> int:
    """Run the crash test; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20, help="concurrent connections")
    parser.add_argument("--ids", type=int, default=8, help="players per connection")
    parser.add_argument("--seconds", type=float, default=5.0, help="load time before the kill")
    parser.add_argument(
        "--db",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="sqlite (a file) or postgresql (a durable cluster of its own)",
    )
    parser.add_argument(
        "--outage",
        type=float,
        default=0.0,
        help="PostgreSQL: seconds the killed postmaster stays down before its restart",
    )
    parser.add_argument(
        "--quick", action="store_true", help="8 connections (of --ids players), kill after 1.5 s"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.seconds = 8, 1.5
    ok = _sqlite(args) if args.db == "sqlite" else _postgres(args)
    print("crash test:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
