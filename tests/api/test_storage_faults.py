"""F6: a full or read-only disk gives 503 ``storage_unavailable`` with every security
header, ``/api/health`` says "degraded" while the writes fail (issue 22.5: what the last
writes met, not what its own tiny probe meets), and writes work again once the disk does."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient

from yahtzee.server.settings import Limits
from yahtzee.storage import SQLiteStorage
from yahtzee.storage.base import RECHECK_SECONDS

from .helpers import NO_HOLD, Api, error_code, on_app_loop
from .test_fastpath import _without_fast_path
from .test_same_origin import assert_security_headers


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """SQLite only: these faults are a disk's (PostgreSQL's are in test_storage.py and
    test_multiprocess.py)."""
    return tmp_path / "games.db"


def _storage(client: TestClient) -> SQLiteStorage:
    return cast(SQLiteStorage, client.app.state.service.storage)  # type: ignore[attr-defined]


class Later:
    """The clock of the storage's write health, moved on by hand."""

    def __init__(self, client: TestClient) -> None:
        self.now = 1000.0
        _storage(client).write_health.clock = lambda: self.now

    def quiet_for(self, seconds: float = RECHECK_SECONDS) -> None:
        """Time passes with no write."""
        self.now += seconds


@contextlib.contextmanager
def read_only(client: TestClient) -> Iterator[None]:
    """The database refuses writes ("attempt to write a readonly database") meanwhile."""
    conn = _storage(client)._conn
    conn.execute("PRAGMA query_only = 1")
    try:
        yield
    finally:
        conn.execute("PRAGMA query_only = 0")


@contextlib.contextmanager
def disk_full(client: TestClient) -> Iterator[None]:
    """The database cannot grow by a single page ("database or disk is full")."""
    conn = _storage(client)._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    try:
        yield
    finally:
        conn.execute("PRAGMA max_page_count = 4294967294")


def assert_unavailable(response: Any) -> None:
    assert (response.status_code, error_code(response)) == (503, "storage_unavailable"), (
        response.text
    )
    assert "没有生效" in response.json()["error"]["message"]
    assert response.headers["retry-after"] == "30"
    assert response.headers["cache-control"] == "no-store"
    assert_security_headers(response)


def assert_degraded(client: TestClient, detail: str) -> None:
    r = client.get("/api/health")
    assert r.status_code == 503
    assert r.json() == {"status": "degraded", "storage": "unavailable", "detail": detail}
    assert_security_headers(r)


@pytest.mark.parametrize("fast_path", [True, False])
def test_f6_read_only_database_503_then_recovers_without_restart(
    client: TestClient, fast_path: bool
) -> None:
    if not fast_path:
        _without_fast_path(client)
    api = Api(client)
    later = Later(client)
    game = api.roll(api.new())
    assert client.get("/api/health").json() == {"status": "ok"}
    with read_only(client):
        assert_unavailable(api.post(game, "roll", hold=NO_HOLD))
        assert_unavailable(api.post(game, "score", category="chance", confirm_zero=True))
        assert_unavailable(client.post("/api/games", json={"mode": "solo", "replace": True}))
        assert_degraded(client, "attempt to write a readonly database")
        # Reads still work, and show the game as it was: nothing was half-written.
        assert api.get(game["id"]) == game
        assert client.get("/api/games/current").json()["id"] == game["id"]
        assert client.get("/api/records").status_code == 200
        later.quiet_for()  # nobody writes: health tries a write itself, which fails too
        assert_degraded(client, "attempt to write a readonly database")
    # The disk is back, but the last write failed: health says so until a write works,
    # or, with nobody playing, until its own write works once the failure is old.
    assert_degraded(client, "attempt to write a readonly database")
    later.quiet_for()
    assert client.get("/api/health").json() == {"status": "ok"}
    # The same action now works, from the same version (the in-memory cache did not run
    # ahead of the database).
    rolled = api.roll(game)
    assert rolled["version"] == game["version"] + 1
    assert _storage(client).write_failure is None
    service = client.app.state.service  # type: ignore[attr-defined]
    replayed = on_app_loop(client, service.replayed, game["id"])
    assert replayed.game.rolls_left == rolled["rolls_left"] == 1


def test_f6_disk_full_503_then_recovers(client: TestClient) -> None:
    api = Api(client)
    later = Later(client)
    game = api.new()
    with disk_full(client):
        failure = None
        for _ in range(300):  # until the page in hand is full
            if game["status"] != "in_progress":
                r = client.post("/api/games", json={"mode": "solo", "replace": True})
            elif game["rolls_left"]:
                r = api.post(game, "roll", hold=NO_HOLD)
            else:
                allowed = next(c for c, o in game["preview"].items() if o["allowed"])
                r = api.post(game, "score", category=allowed, confirm_zero=True)
            if r.status_code == 503:
                failure = r
                break
            assert r.status_code in (200, 201), r.text
            game = r.json()
        assert failure is not None
        assert_unavailable(failure)
        assert _storage(client).write_failure == "database or disk is full"
        # Issue 22.5: health reports what the writes met. (Its own probe, a one-row
        # rewrite, still fits in the pages in hand: it used to say "ok" here, each time.)
        for _ in range(3):
            assert_degraded(client, "database or disk is full")
        assert api.get(game["id"]) == game
    assert_degraded(client, "database or disk is full")  # no write has worked since
    later.quiet_for()
    assert client.get("/api/health").json() == {"status": "ok"}
    if game["status"] != "in_progress":
        r = client.post("/api/games", json={"mode": "solo", "replace": True})
    elif game["rolls_left"]:
        r = api.post(game, "roll", hold=NO_HOLD)
    else:
        allowed = next(c for c, o in game["preview"].items() if o["allowed"])
        r = api.post(game, "score", category=allowed, confirm_zero=True)
    assert r.status_code in (200, 201), r.text  # the very write that failed, now done
    assert _storage(client).integrity_check() == "ok"


def test_f6_a_new_player_during_the_fault_gets_its_cookie_later(client: TestClient) -> None:
    """Refused requests leave no half-made player behind either."""
    with read_only(client):
        r = client.post("/api/games", json={"mode": "solo", "replace": True})
        assert_unavailable(r)
    r = client.post("/api/games", json={"mode": "solo", "replace": True})
    assert r.status_code == 201


def test_f6_f5_a_new_visitor_can_still_read_while_the_disk_refuses_writes(
    make_client: Callable[..., TestClient],
) -> None:
    """The new-id limit is a write to the shared buckets (F5); while the disk refuses
    writes the id is issued uncounted, so a new visitor's reads still work."""
    client = make_client(limits=Limits())
    with read_only(client):
        r = client.get("/api/records")
        assert r.status_code == 200
        assert r.json()["games_played"] == 0
        assert "set-cookie" in r.headers
        assert_unavailable(client.post("/api/games", json={"mode": "solo"}))
    assert client.post("/api/games", json={"mode": "solo"}).status_code == 201


def test_f6_an_unexpected_error_is_a_500_with_every_header(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generic 500 (a bug) also leaves in the error shape with the security headers
    (before, Starlette's outermost middleware answered it without them)."""
    api = Api(client)
    game = api.new()
    service = client.app.state.service  # type: ignore[attr-defined]

    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(service, "roll", broken)
    monkeypatch.setattr(service, "new_game", broken)
    for r in (
        api.post(game, "roll", hold=NO_HOLD),
        client.post("/api/games", json={"mode": "solo", "replace": True}),
    ):
        assert (r.status_code, error_code(r)) == (500, "internal_error")
        assert "a bug" not in r.text
        assert_security_headers(r)


# -- a real full filesystem (root only: it mounts a tiny tmpfs) ---------------------------


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs mounted for the test; skipped where mounting is not permitted."""
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where = tmp_path / "tiny"
    where.mkdir()
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.skip(f"mount not permitted here: {result.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(where: Path) -> Path:
    """Fill the filesystem to the last byte; returns the filler file."""
    filler = where / f"filler-{uuid.uuid4().hex}"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 512, 1):  # big blocks, then the crumbs
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)
    return filler


def test_f6_a_really_full_disk_503_then_recovers(
    tiny_fs: Path, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(db=tiny_fs / "games.db")
    api = Api(client)
    later = Later(client)
    game = api.roll(api.new())
    filler = _fill(tiny_fs)
    failure = None
    for _ in range(2000):  # the WAL grows until a page cannot be written
        r = api.post(game, "hint")
        if r.status_code == 503:
            failure = r
            break
        r = api.post(game, "roll", hold=NO_HOLD)
        if r.status_code == 503:
            failure = r
            break
        game = r.json() if r.status_code == 200 else api.roll(api.new())
    assert failure is not None
    assert_unavailable(failure)
    r = client.get("/api/health")
    assert r.status_code == 503
    assert r.json()["status"] == "degraded"
    later.quiet_for()  # its own write fails too
    assert client.get("/api/health").status_code == 503
    filler.unlink()  # space again
    later.quiet_for()
    assert client.get("/api/health").json() == {"status": "ok"}
    current = client.get("/api/games/current").json()
    if current["rolls_left"]:
        assert api.post(current, "roll", hold=NO_HOLD).status_code == 200
    assert _storage(client).integrity_check() == "ok"


# -- a --db that cannot be used ------------------------------------------------------------


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "yahtzee.cli", "serve", "--port", "1", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ},
        check=False,
    )


def _bad_paths(tmp_path: Path) -> list[Path]:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not an SQLite database, not at all " * 100)
    return [blocker / "games.db", tmp_path, garbage]


def test_f6_a_db_path_that_cannot_be_used_exits_2_with_one_line(tmp_path: Path) -> None:
    for path in _bad_paths(tmp_path):
        result = _serve("--db", str(path))
        assert result.returncode == 2, (path, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert str(path) in lines[0]
        assert "Traceback" not in result.stderr
        assert result.stdout == ""  # failed before printing anything else
    # The module entry point the benchmarks use says the same.
    result = subprocess.run(
        [sys.executable, "-m", "yahtzee.server", "--port", "1", "--db", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
