"""Board bots benchmark (issue 28 item 6, F13): how many bot entries an hour reach the
public top 10 of the day's board.

Starts the real server (``python -m yahtzee.server``, temporary SQLite database) with its
**default** limits, as in production. First ``--people`` browsers with some history play
today's challenge (their earlier days' plays are written into the database beforehand, as
if they had played there on the days before): they follow ``/api/advice`` too, so they
play perfectly, as a strong person can. Then for ``--seconds`` (bounded) a **bot** on one
client address plays the day's challenge again and again, each time with a fresh cookie
(a new browser: one attempt per browser and day), each move the one ``/api/advice``
ranks best (skill loss 0.00); ``--bots`` such clients at once, all from one address (the
attack of issue 28: six cookies, 134 perfect entries in 76 s). After each bot game an
observer reads the public top 10 (``GET /api/daily/{day}/leaderboard?limit=10``).

Then ``--late-people`` more browsers with history play as perfectly, finishing after the
bots. Prints the bot's finished entries an hour, the bot entries an hour that reach the
public top 10 (distinct entries ever seen there, over the run's length), how many of the
top 10 are bots at the end and how many of the people (the late ones too) are in it. A
refused request (429) is waited out as ``Retry-After`` says, as a patient bot would.

    .venv/bin/python benchmarks/board_bots_bench.py             # 60 s of bot
    .venv/bin/python benchmarks/board_bots_bench.py --quick     # smoke test (run by the suite)

Exit status 1 when a request failed otherwise (or, with ``--check``, when a bot entry
reached the top 10).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
from server_process import HttpError, RawClient, ServerProcess
from yahtzee.daily.dice import day_of

BOT_ADDRESS = "127.0.7.1"
OBSERVER_ADDRESS = "127.0.7.2"
MAX_WAITS = 200  # 429s waited out in one run, at most (bounded)


@dataclass
class Tally:
    """What the run saw."""

    bot_entries: int = 0
    in_top: set[str] = field(default_factory=set)
    statuses: Counter[int] = field(default_factory=Counter)
    waits: int = 0
    waited: float = 0.0


async def _call(client: RawClient, tally: Tally, method: str, path: str, body: Any = None) -> Any:
    """One request; a 429 is waited out (``Retry-After``, bounded), any other error raises."""
    while True:
        try:
            status, data = await client.raw(method, path, body)
        except (ConnectionError, asyncio.IncompleteReadError):
            # an idle keep-alive connection the server closed: once more, on a new one
            status, data = await client.raw(method, path, body)
        tally.statuses[status] += 1
        if status != 429:
            if status >= 400:
                raise HttpError(status, data)
            return json.loads(data) if data else None
        if tally.waits >= MAX_WAITS:
            raise HttpError(status, data)
        tally.waits += 1
        # (the RawClient drops the headers: the message says the seconds, "N 秒后再试")
        message = json.loads(data)["error"]["message"]
        digits = "".join(c if c.isdigit() else " " for c in message).split()
        pause = float(digits[0]) if digits else 1.0
        tally.waited += pause
        await asyncio.sleep(pause)


def _scores(game: dict[str, Any]) -> str:
    boxes = game["seats"][0]["scores"]
    return ",".join(f"{k}={v}" for k, v in boxes.items() if v is not None)


def _hold(dice: list[int], keep: list[int]) -> list[bool]:
    wanted = Counter(keep)
    out = []
    for face in dice:
        out.append(wanted[face] > 0)
        wanted[face] -= 1
    return out


async def play_perfectly(client: RawClient, tally: Tally, name: str) -> dict[str, Any]:
    """Today's challenge for this browser, each move the one /api/advice ranks best."""
    game = await _call(client, tally, "POST", "/api/daily", {"name": name})
    while game["status"] == "in_progress":
        gid, version = game["id"], game["version"]
        if game["dice"] is None or game["rolls_left"] == 3:
            game = await _call(
                client, tally, "POST", f"/api/games/{gid}/roll", {"version": version}
            )
            continue
        dice = "".join(str(d) for d in game["dice"])
        query = f"/api/advice?dice={dice}&rolls_left={game['rolls_left']}&scores={_scores(game)}"
        best = (await _call(client, tally, "GET", query))["best"]
        if "keep" in best and len(best["keep"]) < 5 and game["rolls_left"] > 0:
            hold = _hold(game["dice"], best["keep"])
            body = {"version": version, "hold": hold}
            game = await _call(client, tally, "POST", f"/api/games/{gid}/roll", body)
            continue
        if "category" not in best:  # keep all five: the best box for these dice
            query = f"/api/advice?dice={dice}&rolls_left=0&scores={_scores(game)}"
            best = (await _call(client, tally, "GET", query))["best"]
        body = {"version": version, "category": best["category"], "confirm_zero": True}
        game = await _call(client, tally, "POST", f"/api/games/{gid}/score", body)
    finished: dict[str, Any] = game
    return finished


async def _player_id(client: RawClient, tally: Tally) -> str:
    """The browser's player id, as its data export names it (the cookie holds a device's
    credential, not the player id, since I3)."""
    data = await _call(client, tally, "GET", "/api/me/export")
    player: str = data["player_id"]
    return player


def _give_history(db: Path, player_ids: list[str], today: str, days: int) -> None:
    """Finished plays of ``days`` earlier days for each player (as if they had played)."""
    conn = sqlite3.connect(db)
    with conn:
        for player in player_ids:
            for back in range(1, days + 1):
                day = (datetime.fromisoformat(today) - timedelta(days=back)).date().isoformat()
                conn.execute(
                    "INSERT INTO daily_plays (day, player_id, game_id, started_at, finished_at, "
                    "score, skill_loss, accuracy, luck, marks) VALUES (?, ?, ?, ?, ?, 250, 1.0, "
                    "95.0, 0.0, 'bbbbbbbbbbbbb')",
                    (day, player, f"history-{player}-{back}", day, day),
                )
    conn.close()


async def run(
    port: int, db: Path, people: int, late_people: int, bots: int, seconds: float
) -> dict[str, Any]:
    """The scenario of the module docstring; the figures."""
    tally = Tally()
    today = day_of(datetime.now(UTC)).isoformat()
    board = f"/api/daily/{today}/leaderboard?limit=10"
    observer = RawClient("127.0.0.1", port, local_addr=OBSERVER_ADDRESS)
    await _call(observer, tally, "GET", "/api/daily")
    # The people: a cookie each, history on the days before, then today's game.
    persons = [RawClient("127.0.0.1", port, local_addr=f"127.0.8.{i + 1}") for i in range(people)]
    for person in persons:
        await _call(person, tally, "GET", "/api/daily")
    _give_history(db, [await _player_id(p, tally) for p in persons], today, days=3)
    early, late = persons[: people - late_people], persons[people - late_people :]
    for i, person in enumerate(early):
        await play_perfectly(person, tally, f"玩家{i}")
        await _call(person, tally, "GET", "/api/daily")  # its result, as the page asks
    # The bots: `bots` at once from one address, each game on a fresh cookie, for `seconds`.
    started = time.monotonic()

    async def bot_loop() -> None:
        while time.monotonic() - started < seconds:
            bot = RawClient("127.0.0.1", port, local_addr=BOT_ADDRESS)
            try:
                await play_perfectly(bot, tally, f"bot{next(serial)}")
                await _call(bot, tally, "GET", "/api/daily")
            finally:
                await bot.close()
            tally.bot_entries += 1
            async with watching:  # (one connection: one request at a time)
                top = await _call(observer, tally, "GET", board)
            tally.in_top |= {e["name"] for e in top["entries"] if e["name"].startswith("bot")}

    serial = itertools.count()
    watching = asyncio.Lock()
    await asyncio.gather(*(bot_loop() for _ in range(bots)))
    elapsed = time.monotonic() - started
    # The late people: as perfect, but they finish after the bots.
    for i, person in enumerate(late):
        await play_perfectly(person, tally, f"玩家后{i}")
        await _call(person, tally, "GET", "/api/daily")
    top = await _call(observer, tally, "GET", board)
    names = [e["name"] for e in top["entries"]]
    for client in (observer, *persons):
        await client.close()
    hours = elapsed / 3600
    return {
        "seconds": round(elapsed, 1),
        "bot_entries": tally.bot_entries,
        "bot_entries_per_hour": round(tally.bot_entries / hours),
        "bot_entries_reaching_top10": len(tally.in_top),
        "bot_entries_reaching_top10_per_hour": round(len(tally.in_top) / hours),
        "bots_in_top10_at_end": sum(n.startswith("bot") for n in names),
        "people_in_top10_at_end": sum(n.startswith("玩家") for n in names),
        "late_people_in_top10_at_end": sum(n.startswith("玩家后") for n in names),
        "late_people": late_people,
        "people": people,
        "bots": bots,
        "waits_429": tally.waits,
        "seconds_waited": round(tally.waited, 1),
        "statuses": dict(sorted(tally.statuses.items())),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the bot plays")
    parser.add_argument("--people", type=int, default=3, help="browsers with history")
    parser.add_argument(
        "--late-people", type=int, default=2, help="browsers with history that finish last"
    )
    parser.add_argument("--bots", type=int, default=6, help="bot clients at once, one address")
    parser.add_argument("--quick", action="store_true", help="a short run, for the test suite")
    parser.add_argument("--check", action="store_true", help="exit 1 if a bot reached the top")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    seconds = 8.0 if args.quick else args.seconds
    people = min(args.people, 1) if args.quick else args.people
    bots = min(args.bots, 2) if args.quick else args.bots
    late = min(args.late_people, 1) if args.quick else args.late_people
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        server = ServerProcess(db).start()
        try:
            figures = asyncio.run(run(server.port, db, people + late, late, bots, seconds))
        except HttpError as exc:
            print(f"a request failed: {exc.status} {exc.body!r}", file=sys.stderr)
            return 1
        finally:
            server.stop()
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"bot: {figures['bot_entries']} perfect entries in {figures['seconds']} s "
            f"({figures['bot_entries_per_hour']:,} an hour; {figures['bots']} bots at once, "
            "fresh cookies, one address)\n"
            f"bot entries that reached the public top 10: "
            f"{figures['bot_entries_reaching_top10']} "
            f"({figures['bot_entries_reaching_top10_per_hour']:,} an hour)\n"
            f"top 10 at the end: {figures['bots_in_top10_at_end']} bots, "
            f"{figures['people_in_top10_at_end']} of {figures['people']} people (of whom "
            f"{figures['late_people_in_top10_at_end']} of the {figures['late_people']} "
            "who finished after the bots)\n"
            f"429s waited out: {figures['waits_429']} ({figures['seconds_waited']} s)"
        )
    if args.check and figures["bot_entries_reaching_top10"] > 0:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
