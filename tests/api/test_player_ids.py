"""F4: player ids are issued and signed by the server; forged or altered ids are ignored."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from yahtzee.server.identity import DeviceSigner, SecretError, load_secret
from yahtzee.web import Settings, create_app

from .helpers import Api, error_code

COOKIE = "yahtzee_player"


def _issued(response: object) -> str:
    """The cookie value a response sets."""
    header: str = response.headers["set-cookie"]  # type: ignore[attr-defined]
    name, _, rest = header.partition("=")
    assert name == COOKIE
    return rest.split(";", 1)[0]


def _device(value: str) -> str:
    """The device id of a cookie value ``v2.<device>.<mac>`` (I3)."""
    return value.split(".")[1] if value.startswith("v2.") else value


def _as(client: TestClient, value: str) -> TestClient:
    client.cookies.clear()
    client.cookies.set(COOKIE, value)
    return client


# SQLite only: with PostgreSQL the secret comes from the configuration (S1).
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_f4_the_issued_id_is_signed_with_the_secret_next_to_the_database(
    client: TestClient, tmp_path: Path
) -> None:
    value = _issued(client.get("/api/records"))
    prefix, device_id, mac = value.split(".")
    assert prefix == "v2"  # I3: the cookie names a device, the devices table its player
    assert len(device_id) >= 22
    assert len(mac) == 22
    secret_file = tmp_path / "games.db.secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    signer = DeviceSigner(load_secret(secret_file))
    assert signer.verify(value) == device_id
    assert signer.sign(device_id) == value


@pytest.mark.parametrize(
    "tamper",
    [
        lambda v: v[:-1] + ("A" if v[-1] != "A" else "B"),  # altered mac
        lambda v: v[:3] + ("B" if v[3] != "B" else "C") + v[4:],  # altered id, same mac
        lambda v: v.rpartition(".")[0] + ".",  # mac removed
        lambda v: "v2." + "A" * 22 + "." + v.rpartition(".")[2],  # invented id, someone's mac
        lambda v: v + v,
    ],
)
def test_f4_an_altered_or_invented_id_is_ignored_and_a_new_one_issued(
    api: Api, tamper: Callable[[str], str]
) -> None:
    game = api.new()
    value = api.client.cookies[COOKIE]
    forged = tamper(value)
    _as(api.client, forged)
    r = api.client.get("/api/games/current")
    assert (r.status_code, error_code(r)) == (404, "not_found")  # not the owner's game
    fresh = _issued(r)
    assert _device(fresh) not in (_device(value), _device(forged))
    assert api.client.get(f"/api/games/{game['id']}").status_code == 404
    r = api.post(game, "roll")
    assert (r.status_code, error_code(r)) == (404, "not_found")
    # The real owner still plays on.
    _as(api.client, value)
    assert api.roll(api.get(game["id"]))["rolls_left"] == 2


def test_f4_an_invented_unsigned_id_is_ignored(api: Api) -> None:
    invented = "Z" * 32
    _as(api.client, invented)
    r = api.client.get("/api/records")
    assert _device(_issued(r)) != invented


# On both backends (issue 22 item 2): the mac can no longer be dropped.
def test_f4_a_bare_id_that_owns_games_is_not_adopted(api: Api) -> None:
    """The attack: the cookie without its ``.mac`` used to be accepted, and re-signed, as
    long as the id owned a game. Now it is no cookie at all: a new id, none of the games."""
    finished = api.play_to_end(api.new())
    saved = api.roll(api.new())
    signed = api.client.cookies[COOKIE]
    bare = signed.rpartition(".")[0]
    _as(api.client, bare)
    r = api.client.get("/api/records")
    assert r.status_code == 200
    assert r.json()["games_played"] == 0
    assert r.json()["current_game"] is None
    assert _device(_issued(r)) != _device(bare)  # a new id, not the bare one signed
    for path in (f"/api/games/{finished['id']}", f"/api/games/{saved['id']}"):
        _as(api.client, bare)
        assert api.client.get(path).status_code == 404, path
    _as(api.client, bare)
    r = api.post(saved, "roll", hold=[True, False, False, False, False])
    assert (r.status_code, error_code(r)) == (404, "not_found")
    # The signed cookie still owns both, untouched.
    _as(api.client, signed)
    assert api.get(saved["id"])["version"] == saved["version"]


def test_f4_rotating_the_secret_logs_every_cookie_out_bare_ids_too(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    """The second half of the attack: after the secret changed, the old signed cookie is
    logged out, and its bare id must not get the games back either."""
    db = tmp_path / "rotated.db"
    old = Api(make_client(db=db, secret="o" * 40))
    game = old.roll(old.new())
    signed = old.client.cookies[COOKIE]
    rotated = make_client(db=db, secret="n" * 40)
    for value in (signed, signed.rpartition(".")[0]):
        r = _as(rotated, value).get("/api/games/current")
        assert (r.status_code, error_code(r)) == (404, "not_found"), value
        assert _device(_issued(r)) != _device(signed)
        assert _as(rotated, value).get(f"/api/games/{game['id']}").status_code == 404


def test_f4_ids_are_minted_only_when_a_player_is_needed(client: TestClient) -> None:
    for path in ("/api/health", "/", "/js/main.js", "/api/advice?dice=13356"):
        assert "set-cookie" not in client.get(path).headers, path
    assert COOKIE in client.get("/api/records").headers["set-cookie"]


def test_f4_the_secret_survives_a_restart_and_can_be_shared(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    first = Api(make_client())
    game = first.new()
    cookie = first.client.cookies[COOKIE]
    # Same database, a restarted (second) process: the cookie is still good.
    again = _as(make_client(), cookie)
    assert again.get("/api/games/current").json()["id"] == game["id"]
    # Another database with the same explicit secret accepts the same cookies...
    secret = "s" * 40
    one = Api(make_client(db=tmp_path / "one.db", secret=secret))
    one.new()
    shared = _as(make_client(db=tmp_path / "one.db", secret=secret), one.client.cookies[COOKIE])
    assert "set-cookie" not in shared.get("/api/records").headers
    # ...and a server with another secret does not.
    other = _as(make_client(db=tmp_path / "one.db", secret="t" * 40), one.client.cookies[COOKIE])
    r = other.get("/api/games/current")
    assert r.status_code == 404
    assert COOKIE in r.headers["set-cookie"]


def test_f4_secret_from_the_environment_and_from_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YAHTZEE_SECRET", "e" * 32)
    secret = Settings(db=tmp_path / "x.db").secret
    assert secret is not None
    assert secret.get_secret_value() == "e" * 32
    secret_file = tmp_path / "shared" / "key"
    made = load_secret(secret_file)
    assert load_secret(secret_file) == made
    assert len(made) >= 32
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600


def test_f4_a_short_secret_is_refused_at_startup(tmp_path: Path) -> None:
    with pytest.raises(SecretError, match="at least 32"):
        create_app(Settings(db=tmp_path / "x.db", secret="short"))
    (tmp_path / "bad.secret").write_text("tiny")
    with pytest.raises(SecretError, match=r"bad\.secret"):
        create_app(Settings(db=tmp_path / "x.db", secret=None, secret_file=tmp_path / "bad.secret"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_f4_an_unwritable_secret_location_is_a_clear_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(SecretError, match="cannot create the secret file"):
            load_secret(locked / "s")
    finally:
        locked.chmod(0o700)
