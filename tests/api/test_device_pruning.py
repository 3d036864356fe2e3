"""F27 (issue 35 item 10), on SQLite and PostgreSQL: the devices of browsers that never
played are pruned by age.

Every request without a cookie makes a player and its ``devices`` row (a read of the
records, of the config's page, of a board), and nothing deleted them: ~16 MB a day from
one address looping cookie-less reads. Now the platform's daily pruning deletes the
devices of players of whom no part keeps anything (no game, daily entry, group, 练习
serving or room seat) and who have no recovery code, once none of their devices was seen
for ``--prune-devices-after-days``; with what little else their player had (a board
name). Browsers that played, made a recovery code, or came back lately stay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from bench_smoke import run_quick
from yahtzee.server.pruning import DAY_SECONDS, prune_features

from .helpers import Api, on_app_loop
from .test_devices import _rows_with, browser, code_of, link, player_of
from .test_rooms import Clock

PRUNED = "devices that never played"


def _devices(client: TestClient) -> dict[str, tuple[str, Any]]:
    """Every row of the devices table: id -> (player, removed_at)."""
    db = client.app.state.devices.store.db  # type: ignore[attr-defined]

    async def read() -> dict[str, tuple[str, Any]]:
        rows = await db.run(
            lambda tx: tx.all("SELECT id, player_id, removed_at FROM devices"), write=False
        )
        return {str(r[0]): (str(r[1]), r[2]) for r in rows}

    return on_app_loop(client, read)


def test_f27_devices_of_browsers_that_never_played_are_pruned_by_age(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    client = make_client(clock=clock, prune_devices_after_days=7.0)
    idle, named, player, recovered, home, school, gone = (browser(client) for _ in range(7))
    assert idle.get("/api/records").status_code == 200  # a cookie-less read: a device
    assert named.put("/api/daily/name", json={"name": "只起了名字"}).status_code == 200
    Api(player).roll(Api(player).new())  # played
    assert recovered.post("/api/devices/recovery", json={}).status_code == 201
    Api(home).roll(Api(home).new())  # a player with a game, and a second device of it
    assert link(school, code_of(home)["code"]).status_code == 200
    # a device of home's, removed: its tombstone stays (it keeps an old cookie out)
    assert link(gone, code_of(home)["code"]).status_code == 200
    gone_id = next(d["id"] for d in gone.get("/api/devices").json()["devices"] if d["this"])
    assert home.post(f"/api/devices/{gone_id}/remove", json={}).status_code == 200
    ids = {who: player_of(who) for who in (idle, named, player, recovered, home)}
    clock.now += 8 * DAY_SECONDS
    late = browser(client)
    assert late.get("/api/records").status_code == 200  # a browser first seen now
    late_id = player_of(late)
    before = _devices(client)
    assert before[gone_id][1] is not None  # (removed)

    counts = on_app_loop(client, prune_features, client.app.state.prunings, clock.now)  # type: ignore[attr-defined]
    assert counts[PRUNED] == 2

    after = _devices(client)
    players = {player for player, _removed in after.values()}
    assert ids[idle] not in players
    assert ids[named] not in players
    for kept in (ids[player], ids[recovered], ids[home], late_id):
        assert kept in players
    # the home player's devices stay (seen long ago, but its player has a game), and the
    # removed device's tombstone; only the two never-played players' devices went
    assert sorted(d for d in before if d not in after) == sorted(
        d for d, (p, _removed) in before.items() if p in (ids[idle], ids[named])
    )
    assert gone_id in after
    # nothing of the pruned players is left (their board name included)
    assert _rows_with(client, ids[named]) == []
    assert _rows_with(client, "只起了名字") == []
    # their browsers are strangers next time; a pruning again deletes nothing more
    assert player_of(idle) != ids[idle]
    counts = on_app_loop(client, prune_features, client.app.state.prunings, clock.now)  # type: ignore[attr-defined]
    assert PRUNED not in counts


def test_f27_a_browser_back_within_the_age_is_kept(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    client = make_client(clock=clock, prune_devices_after_days=7.0)
    idle = browser(client)
    assert idle.get("/api/records").status_code == 200
    clock.now += 6 * DAY_SECONDS
    counts: dict[str, int] = on_app_loop(
        client,
        prune_features,
        client.app.state.prunings,  # type: ignore[attr-defined]
        clock.now,
    )
    assert PRUNED not in counts
    assert _devices(client)


def test_f27_the_device_prune_benchmark_quick_mode_passes() -> None:
    """Every never-played device pruned, every kept player's stays, in short transactions."""
    out = run_quick("device_prune_bench.py")
    assert "pruned                      : 500" in out
    assert "device prune bench: PASS" in out
