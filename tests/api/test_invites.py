"""Invite tokens (storage.invites): 128-bit, stored hashed, purpose-bound, revocable.
Run on SQLite and PostgreSQL (the ``db`` fixture)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yahtzee.storage import migrate, run_coroutine
from yahtzee.storage.feature_db import open_feature_db
from yahtzee.storage.invites import MIGRATIONS, InviteTokens, digest_of, is_token, new_token


def test_tokens_are_128_bit_url_safe_and_distinct() -> None:
    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    assert all(is_token(t) and len(t) == 22 for t in tokens)
    assert not is_token("short")
    assert not is_token("x" * 21 + "!")
    assert not is_token(None)


def test_tokens_issue_resolve_check_revoke(db: Path | str) -> None:
    async def scenario() -> None:
        await migrate(db, [MIGRATIONS])
        await migrate(db, [MIGRATIONS])  # migrating twice is a no-op
        feature_db = open_feature_db(db)
        invites = InviteTokens(feature_db)
        token = await invites.issue("group", "g1")
        other = await invites.issue("room", "r1")
        assert await invites.resolve("group", token) == "g1"
        assert await invites.check("group", "g1", token)
        # a token opens only its own purpose and target
        assert await invites.resolve("room", token) is None
        assert not await invites.check("group", "g2", token)
        assert not await invites.check("group", "g1", other)
        # malformed or unknown tokens: nothing
        for bad in ("", "nope", new_token(), token[:-1] + ("A" if token[-1] != "A" else "B")):
            assert await invites.resolve("group", bad) is None
            assert not await invites.check("group", "g1", bad)
        # only the digest is stored
        rows = await feature_db.run(lambda tx: tx.all("SELECT digest, target FROM invite_tokens"))
        assert (digest_of(token), "g1") in rows
        assert all(token not in str(row) for row in rows)
        # rotate: the old link stops, the new one works
        fresh = await invites.rotate("group", "g1")
        assert await invites.resolve("group", token) is None
        assert await invites.resolve("group", fresh) == "g1"
        assert await invites.revoke("group", "g1") == 1
        assert await invites.resolve("group", fresh) is None
        assert not await invites.check("group", "g1", fresh)
        assert await invites.resolve("room", other) == "r1"
        await feature_db.close()

    run_coroutine(scenario())


@pytest.mark.parametrize("value", [12, None, ["x" * 22], "x" * 22 + "\n"])
def test_tokens_of_the_wrong_type_are_refused_before_the_database(value: object) -> None:
    assert not is_token(value)
