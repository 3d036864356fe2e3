"""Reminders through the local push service (W4): the queue's throughput and delay.

Runs the tests' push service (``tests/push_service.py``: it checks each message's VAPID
JWT and decrypts it with the browser's keys, as a browser vendor's service and the browser
would) in a process of its own, and an app on an SQLite file (or ``--db`` PostgreSQL) that
sends there (``--push-endpoints``). ``--devices`` browsers subscribe through the API (each
its own player, quiet hours off); then ``--reminders`` reminders are asked of the platform
(``Platform.reminders.send``, ``--concurrency`` at a time, each about a room of its own,
the players in turn) and the benchmark waits until the service has accepted every one.

Prints the time to decide and queue a reminder (one transaction), the delay from the ask
to the service's acceptance (median, p99), the throughput from the first ask to the last
acceptance, and what the senders counted. Exits 1 when a reminder was not queued, not
accepted within ``--timeout`` seconds, was refused by the service (a signature or an
encryption it could not check), when a send ended otherwise than delivered, or when the
throughput is under :data:`TARGET_PER_SECOND` (full runs).

    .venv/bin/python benchmarks/push_bench.py                  # 200 devices, 4,000 reminders
    .venv/bin/python benchmarks/push_bench.py --db postgresql://…
    .venv/bin/python benchmarks/push_bench.py --quick          # smoke test (the suite)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers

from fastapi.testclient import TestClient

from push_service import LocalPushService
from yahtzee.push.service import PushService
from yahtzee.push.vapid import VapidKey
from yahtzee.server.identity import check_secret
from yahtzee.server.reminders import Outcome, ReminderPayload, Reminders
from yahtzee.server.settings import Limits
from yahtzee.web import Settings, Wiring, create_app

SECRET = "push-bench-secret-" + "x" * 32
#: Reminders a second from the first ask to the last acceptance (full runs): the reminders
#: of 10,000 waiting rooms due across an hour are 3 a second; this leaves a wide margin.
TARGET_PER_SECOND = 50.0
#: Every limit off but the ones measured (the benchmark's browsers share an address).
NO_LIMITS = Limits(
    new_games_per_minute=0,
    new_players_per_minute=0,
    actions_per_second=0,
    new_games_per_minute_per_address=0,
    work_per_second=0,
)


def _serve(service: LocalPushService) -> None:
    """The push service's process: serve until terminated."""
    service.start()
    threading.Event().wait()


def _stats(service: LocalPushService) -> dict[str, Any]:
    with urllib.request.urlopen(f"{service.origin}/_stats", timeout=10) as answer:
        stats: dict[str, Any] = json.loads(answer.read())
        return stats


def _p99(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * 0.99))]


def run(
    url: str, devices: int, reminders: int, concurrency: int, workers: int, timeout: float
) -> dict[str, Any]:
    """Subscribe, remind, wait; the figures (see the module docstring)."""
    key = VapidKey(check_secret(SECRET)).public_key
    service = LocalPushService()
    browsers = [service.subscribe(key) for _ in range(devices)]
    # The service's process is forked before the app starts a thread: it takes the
    # browsers' private keys along (what only the browsers hold), the app never sees them.
    child = multiprocessing.get_context("fork").Process(target=_serve, args=(service,))
    child.start()
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                _stats(service)
                break
            except OSError:
                if time.monotonic() > deadline or not child.is_alive():
                    raise RuntimeError("the push service did not start") from None
                time.sleep(0.05)
        settings = Settings(
            db=url,
            secret=SECRET,
            limits=NO_LIMITS,
            push_endpoints=service.prefix,
            push_workers=workers,
            max_push_subscriptions_per_hour_per_address=0,
        )
        app = create_app(settings, Wiring(cpu_processes=False))
        with TestClient(app) as client:
            return _remind(client, service, browsers, reminders, concurrency, timeout)
    finally:
        child.terminate()
        child.join(10)


def _remind(
    client: TestClient,
    service: LocalPushService,
    browsers: list[Any],
    reminders: int,
    concurrency: int,
    timeout: float,
) -> dict[str, Any]:
    for browser in browsers:
        client.cookies.clear()  # a new browser: a player and a device of its own
        assert client.get("/api/push").status_code == 200
        assert client.put("/api/push/quiet", json={"quiet": None}).status_code == 200
        body = {"subscription": browser.to_json(), "time_zone": "Asia/Shanghai"}
        r = client.post("/api/push/subscriptions", json=body)
        assert r.status_code == 200, r.text
    push: PushService = client.app.state.push  # type: ignore[attr-defined]
    platform: Reminders = client.app.state.reminders  # type: ignore[attr-defined]
    assert client.portal is not None
    db = push.store.db
    rows = client.portal.call(
        db.run, lambda tx: tx.all("SELECT player_id FROM push_subscriptions ORDER BY device_id")
    )
    players = [str(row[0]) for row in rows]
    asked: dict[str, float] = {}
    decide: list[float] = []
    outcomes: dict[str, int] = {}

    async def ask(k: int, gate: asyncio.Semaphore) -> None:
        link = f"/rooms/bench-{k}"
        payload = ReminderPayload(seats=("奶奶", "小明", ""), round=1 + k % 13, link=link)
        async with gate:
            asked[link] = time.time()
            started = time.perf_counter()
            sent = await platform.send(players[k % len(players)], "turn", payload, about=link)
            decide.append(time.perf_counter() - started)
        outcomes[sent.outcome] = outcomes.get(sent.outcome, 0) + 1

    async def ask_all() -> None:
        gate = asyncio.Semaphore(concurrency)
        await asyncio.gather(*(ask(k, gate) for k in range(reminders)))

    started = time.time()
    client.portal.call(ask_all)
    asked_seconds = time.time() - started
    end = time.monotonic() + timeout
    stats = _stats(service)
    while stats["messages"] < reminders and time.monotonic() < end and not stats["refused"]:
        time.sleep(0.05)
        stats = _stats(service)

    # The service counts a message when it accepts it, the sender when the answer is back
    # in its thread: wait for the senders' counts too (else the last one is missing).
    def ended() -> int:
        return sum(v for k, v in push.counts.items() if not k.startswith("decided"))

    while ended() < stats["messages"] and time.monotonic() < end:
        time.sleep(0.05)
    received = {str(link): float(at) for link, at in stats["received"]}
    delays = [received[link] - at for link, at in asked.items() if link in received]
    last = max(received.values(), default=started)
    waiting = client.portal.call(push.store.waiting)
    return {
        "devices": len(browsers),
        "reminders": reminders,
        "queued": outcomes.get(Outcome.QUEUED, 0),
        "accepted": stats["messages"],
        "refused": len(stats["refused"]),
        "refusals": stats["refused"][:3],
        "sends": dict(push.counts),
        "left_in_outbox": waiting,
        "decide_ms_median": statistics.median(decide) * 1e3,
        "decide_ms_p99": _p99(decide) * 1e3,
        "asked_seconds": asked_seconds,
        "delay_s_median": statistics.median(delays) if delays else None,
        "delay_s_p99": _p99(delays) if delays else None,
        "seconds": last - started,
        "per_second": len(received) / max(1e-9, last - started),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--reminders", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=16, help="reminders asked at once")
    parser.add_argument("--workers", type=int, default=4, help="--push-workers")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--db", help="a PostgreSQL URL (default: an SQLite file)")
    parser.add_argument("--quick", action="store_true", help="a few reminders, for the suite")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.quick:
        args.devices, args.reminders, args.timeout = 5, 40, 60.0
    with tempfile.TemporaryDirectory(prefix="yahtzee-push-bench-") as tmp:
        url = args.db or str(Path(tmp) / "bench.db")
        result = run(
            url, args.devices, args.reminders, args.concurrency, args.workers, args.timeout
        )
    failures = []
    if result["queued"] != args.reminders:
        failures.append(f"{result['queued']} of {args.reminders} reminders queued")
    if result["accepted"] != args.reminders:
        failures.append(f"{result['accepted']} of {args.reminders} accepted in time")
    if result["refused"]:
        failures.append(f"the service refused {result['refused']}: {result['refusals']}")
    other = {
        k: v for k, v in result["sends"].items() if v and not k.startswith(("delivered", "decided"))
    }
    if other or result["sends"].get("delivered", 0) != args.reminders:
        failures.append(f"sends other than delivered: {result['sends']}")
    if not args.quick and result["per_second"] < TARGET_PER_SECOND:
        failures.append(f"{result['per_second']:.0f} reminders/s < {TARGET_PER_SECOND:.0f}")
    if args.json:
        print(json.dumps({**result, "ok": not failures}))
    else:
        for name, value in result.items():
            shown = f"{value:.3f}" if isinstance(value, float) else value
            print(f"{name:<20}: {shown}")
        for failure in failures:
            print(f"FAIL: {failure}")
        print(f"push bench: {'FAIL' if failures else 'PASS'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
