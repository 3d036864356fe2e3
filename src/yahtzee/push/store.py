"""The reminders' tables (W4, W6), on the features' connection.

* ``push_subscriptions`` — one row per **device** (its primary key): the browser's push
  endpoint and keys, its time zone, the player the device named when it subscribed (kept in
  step: a merge moves it, a deletion or the device's end deletes it, and every send asks
  the devices table again), the page's origin (the default VAPID contact), when it was
  made and last used (no client address: none is stored with a player,
  docs/deployment.md). The endpoint is unique: a browser that comes back as another device
  (its old one removed) takes its endpoint along, so the old player's reminders can never
  reach it.
* ``push_quiet`` — a player's quiet hours (minutes after midnight, in each device's time
  zone); no row is the default 22:00-08:00, a row of ``NULL`` s is none.
* ``push_marks`` — when a player was last reminded about a thing (``about``, a room's id):
  the one-an-hour limit, claimed by one conditional upsert, so two processes asking at once
  send one reminder.
* ``push_outbox`` — the reminders decided and not yet sent, one row per device, written in
  the transaction that claims the hour (nothing acknowledged is only in a process's
  memory). A sender *takes* a row by deleting it (PostgreSQL: ``FOR UPDATE SKIP LOCKED``,
  so processes never take the same one) and only then sends it: at most once per device and
  mark, whatever process dies when (see :mod:`yahtzee.push.service`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from yahtzee.push.errors import TooManySubscriptionsError
from yahtzee.push.subscription import zone
from yahtzee.server.reminders import Outcome, Sent
from yahtzee.storage.feature_db import FeatureDb, Tx
from yahtzee.storage.player_data import MergeNote
from yahtzee.storage.schema import Migrations

FEATURE = "push"

MIGRATIONS = Migrations.shared(
    FEATURE,
    (
        (
            """CREATE TABLE push_subscriptions (
            device_id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            endpoint TEXT NOT NULL UNIQUE,
            p256dh TEXT NOT NULL,
            auth TEXT NOT NULL,
            time_zone TEXT NOT NULL,
            origin TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            used_at DOUBLE PRECISION NOT NULL
        )""",
            "CREATE INDEX push_subscriptions_player ON push_subscriptions (player_id)",
            "CREATE INDEX push_subscriptions_used ON push_subscriptions (used_at)",
            """CREATE TABLE push_quiet (
            player_id TEXT PRIMARY KEY,
            quiet_from INTEGER,
            quiet_to INTEGER,
            updated_at DOUBLE PRECISION NOT NULL
        )""",
            """CREATE TABLE push_marks (
            player_id TEXT NOT NULL,
            about TEXT NOT NULL,
            sent_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (player_id, about)
        )""",
            "CREATE INDEX push_marks_sent ON push_marks (sent_at)",
            """CREATE TABLE push_outbox (
            id TEXT PRIMARY KEY,
            device_id TEXT NOT NULL,
            player_id TEXT NOT NULL,
            topic TEXT NOT NULL,
            body TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            due_at DOUBLE PRECISION NOT NULL
        )""",
            "CREATE INDEX push_outbox_due ON push_outbox (due_at)",
            "CREATE INDEX push_outbox_device ON push_outbox (device_id)",
        ),
    ),
)

#: Quiet hours when a player chose none: 22:00-08:00 in each device's time zone.
DEFAULT_QUIET = (22 * 60, 8 * 60)
#: The one-reminder-an-hour window (seconds).
HOUR = 3600.0


def in_quiet_hours(now: float, time_zone: str, quiet: tuple[int, int] | None) -> bool:
    """Whether ``now`` (UNIX seconds) falls in ``quiet`` (minutes after midnight, from and
    to; wrapping past midnight when from > to; ``None`` or from == to: never) in
    ``time_zone``."""
    if quiet is None or quiet[0] == quiet[1]:
        return False
    local = datetime.fromtimestamp(now, zone(time_zone))
    minute = local.hour * 60 + local.minute
    start, end = quiet
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end


def _quiet(row: Sequence[Any] | None) -> tuple[int, int] | None:
    if row is None:
        return DEFAULT_QUIET
    if row[0] is None or row[1] is None:
        return None
    return (int(row[0]), int(row[1]))


@dataclass(frozen=True, slots=True)
class Subscription:
    """A device's subscription as stored."""

    device_id: str
    player_id: str
    endpoint: str
    p256dh: str
    auth: str
    time_zone: str
    origin: str
    used_at: float


@dataclass(frozen=True, slots=True)
class Job:
    """A reminder taken from the outbox for one device, with what it needs to be sent
    (``subscription`` ``None``: the device no longer takes reminders)."""

    id: str
    device_id: str
    player_id: str
    topic: str
    body: bytes
    attempts: int
    created_at: float
    subscription: Subscription | None
    quiet: tuple[int, int] | None


_SUBSCRIPTION = "device_id, player_id, endpoint, p256dh, auth, time_zone, origin, used_at"


def _subscription(row: Sequence[Any]) -> Subscription:
    return Subscription(
        str(row[0]),
        str(row[1]),
        str(row[2]),
        str(row[3]),
        str(row[4]),
        str(row[5]),
        str(row[6]),
        float(row[7]),
    )


def _names(prefix: str, values: Sequence[str]) -> tuple[str, dict[str, str]]:
    """``:p0, :p1, …`` for an ``IN`` list and their parameters."""
    params = {f"{prefix}{i}": v for i, v in enumerate(values)}
    return ", ".join(f":{name}" for name in params), params


class PushStore:
    """The reminders' tables on the features' connection."""

    def __init__(self, db: FeatureDb) -> None:
        self.db = db

    # -- a device's subscription -------------------------------------------------------

    async def subscription(self, device_id: str, player_id: str) -> Subscription | None:
        """The device's subscription, if it is this player's."""
        row = await self.db.one(
            f"SELECT {_SUBSCRIPTION} FROM push_subscriptions WHERE device_id = :device_id "
            "AND player_id = :player_id",
            {"device_id": device_id, "player_id": player_id},
            write=False,
        )
        return None if row is None else _subscription(row)

    async def has(self, device_id: str, endpoint: str) -> bool:
        """Whether the device is subscribed with ``endpoint`` already (a page saying again
        what it has: no new subscription to count)."""
        row = await self.db.one(
            "SELECT 1 FROM push_subscriptions WHERE device_id = :device_id "
            "AND endpoint = :endpoint",
            {"device_id": device_id, "endpoint": endpoint},
            write=False,
        )
        return row is not None

    async def subscribe(self, sub: Subscription, now: float, cap: int) -> None:
        """Keep ``sub`` as its device's one subscription (replacing the device's earlier
        one; the endpoint taken from any other device). At most ``cap`` devices of a player
        (0: no cap): :class:`TooManySubscriptionsError` past it."""

        async def work(tx: Tx) -> None:
            params = {
                "device_id": sub.device_id,
                "player_id": sub.player_id,
                "endpoint": sub.endpoint,
                "p256dh": sub.p256dh,
                "auth": sub.auth,
                "time_zone": sub.time_zone,
                "origin": sub.origin,
                "now": now,
            }
            if cap:
                if tx.dialect == "postgresql":
                    # (two devices of one player subscribing at once count each other:
                    # SQLite's single writer does so already)
                    await tx.one(
                        "SELECT pg_advisory_xact_lock(hashtextextended('push:' || :player_id, 0))",
                        params,
                    )
                row = await tx.one(
                    "SELECT COUNT(*) FROM push_subscriptions WHERE player_id = :player_id "
                    "AND device_id <> :device_id AND endpoint <> :endpoint",
                    params,
                )
                if row is not None and int(row[0]) >= cap:
                    raise TooManySubscriptionsError(
                        f"{sub.player_id} has {row[0]} devices taking reminders", cap
                    )
            await tx.all(
                "DELETE FROM push_subscriptions WHERE endpoint = :endpoint "
                "AND device_id <> :device_id",
                params,
            )
            await tx.all(
                "INSERT INTO push_subscriptions (device_id, player_id, endpoint, p256dh, auth, "
                "time_zone, origin, created_at, used_at) VALUES (:device_id, "
                ":player_id, :endpoint, :p256dh, :auth, :time_zone, :origin, :now, "
                ":now) ON CONFLICT (device_id) DO UPDATE SET player_id = excluded.player_id, "
                "endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth, "
                "time_zone = excluded.time_zone, origin = excluded.origin, "
                "used_at = excluded.used_at",
                params,
            )
            # (reminders queued for the device's earlier player never go to it now)
            await tx.all(
                "DELETE FROM push_outbox WHERE device_id = :device_id AND player_id <> :player_id",
                params,
            )

        await self.db.run(work)

    async def unsubscribe(self, device_ids: Sequence[str]) -> int:
        """Delete the subscriptions of ``device_ids`` and what waits for them; how many."""
        if not device_ids:
            return 0
        names, params = _names("d", device_ids)

        async def work(tx: Tx) -> int:
            await tx.all(f"DELETE FROM push_outbox WHERE device_id IN ({names})", params)
            rows = await tx.all(
                f"DELETE FROM push_subscriptions WHERE device_id IN ({names}) RETURNING device_id",
                params,
            )
            return len(rows)

        return await self.db.run(work)

    async def gone(self, device_id: str, endpoint: str) -> None:
        """The push service said the subscription no longer exists (404, 410): delete it,
        unless the device has subscribed anew since."""
        await self.db.one(
            "DELETE FROM push_subscriptions WHERE device_id = :device_id AND endpoint = :endpoint",
            {"device_id": device_id, "endpoint": endpoint},
        )

    async def used(self, device_ids: Sequence[str], now: float) -> None:
        """The devices got a reminder (or opened their page): used now."""
        if not device_ids:
            return
        names, params = _names("d", device_ids)

        async def work(tx: Tx) -> None:
            await tx.all(
                f"UPDATE push_subscriptions SET used_at = :now WHERE device_id IN ({names})",
                {**params, "now": now},
            )

        await self.db.run(work, single=True)

    async def moved(self, device_id: str, player_id: str) -> None:
        """The device names another player now (linked alone, I1): its subscription is
        that player's from now on."""
        await self.db.one(
            "UPDATE push_subscriptions SET player_id = :player_id WHERE device_id = :device_id",
            {"device_id": device_id, "player_id": player_id},
        )

    # -- a player's quiet hours ----------------------------------------------------------

    async def quiet(self, player_id: str) -> tuple[int, int] | None:
        """The player's quiet hours (from, to in minutes), or ``None`` for none."""
        row = await self.db.one(
            "SELECT quiet_from, quiet_to FROM push_quiet WHERE player_id = :player_id",
            {"player_id": player_id},
            write=False,
        )
        return _quiet(row)

    async def set_quiet(self, player_id: str, quiet: tuple[int, int] | None, now: float) -> None:
        """Keep the player's quiet hours (``None``: none)."""
        start, end = quiet if quiet is not None else (None, None)
        await self.db.one(
            "INSERT INTO push_quiet (player_id, quiet_from, quiet_to, updated_at) "
            "VALUES (:player_id, :start, :end, :now) ON CONFLICT (player_id) DO UPDATE SET "
            "quiet_from = excluded.quiet_from, quiet_to = excluded.quiet_to, "
            "updated_at = excluded.updated_at",
            {"player_id": player_id, "start": start, "end": end, "now": now},
        )

    # -- deciding and queueing a reminder ------------------------------------------------

    async def decide(self, player_id: str, about: str, topic: str, body: bytes, now: float) -> Sent:
        """One transaction: the player's devices that are out of their quiet hours now; if
        any, the hour's mark about ``about`` (claimed only if the last is an hour old) and,
        if claimed, one outbox row per such device.

        Most players have no device that takes reminders: a read (no write transaction,
        no commit) says so first, as every turn a room plays asks (W1's sweeps ask for
        thousands an hour). A subscription registered between that read and now misses
        this one reminder, as if it had come a moment later."""
        text = body.decode()
        if (
            await self.db.one(
                "SELECT 1 FROM push_subscriptions WHERE player_id = :player_id LIMIT 1",
                {"player_id": player_id},
                write=False,
            )
            is None
        ):
            return Sent(Outcome.UNSUBSCRIBED)

        async def work(tx: Tx) -> Sent:
            subs = await tx.all(
                "SELECT device_id, time_zone FROM push_subscriptions WHERE player_id = :player_id",
                {"player_id": player_id},
            )
            if not subs:
                return Sent(Outcome.UNSUBSCRIBED)
            quiet = _quiet(
                await tx.one(
                    "SELECT quiet_from, quiet_to FROM push_quiet WHERE player_id = :player_id",
                    {"player_id": player_id},
                )
            )
            awake = [str(d) for d, tz in subs if not in_quiet_hours(now, str(tz), quiet)]
            if not awake:
                return Sent(Outcome.QUIET)
            claimed = await tx.all(
                "INSERT INTO push_marks (player_id, about, sent_at) VALUES (:player_id, "
                ":about, :now) ON CONFLICT (player_id, about) DO UPDATE SET "
                "sent_at = excluded.sent_at WHERE push_marks.sent_at <= :since "
                "RETURNING sent_at",
                {"player_id": player_id, "about": about, "now": now, "since": now - HOUR},
            )
            if not claimed:
                return Sent(Outcome.TOO_SOON)
            await tx.many(
                "INSERT INTO push_outbox (id, device_id, player_id, topic, body, attempts, "
                "created_at, due_at) VALUES (:id, :device_id, :player_id, :topic, :body, 0, "
                ":now, :now)",
                [
                    {
                        "id": secrets.token_hex(12),
                        "device_id": device_id,
                        "player_id": player_id,
                        "topic": topic,
                        "body": text,
                        "now": now,
                    }
                    for device_id in awake
                ],
            )
            return Sent(Outcome.QUEUED, len(awake))

        return await self.db.run(work)

    async def take(self, now: float, limit: int) -> list[Job]:
        """Take (delete) up to ``limit`` reminders due by ``now``, oldest first, each with
        its device's subscription and its player's quiet hours: no other sender takes them."""

        async def work(tx: Tx) -> list[Job]:
            skip = " FOR UPDATE SKIP LOCKED" if tx.dialect == "postgresql" else ""
            rows = await tx.all(
                "DELETE FROM push_outbox WHERE id IN (SELECT id FROM push_outbox "
                f"WHERE due_at <= :now ORDER BY due_at, id LIMIT :limit{skip}) "
                "RETURNING id, device_id, player_id, topic, body, attempts, created_at",
                {"now": now, "limit": limit},
            )
            if not rows:
                return []
            devices, params = _names("d", sorted({str(r[1]) for r in rows}))
            subs = {
                s.device_id: s
                for s in map(
                    _subscription,
                    await tx.all(
                        f"SELECT {_SUBSCRIPTION} FROM push_subscriptions "
                        f"WHERE device_id IN ({devices})",
                        params,
                    ),
                )
            }
            players, params = _names("p", sorted({str(r[2]) for r in rows}))
            quiet = {
                str(r[0]): _quiet(r[1:])
                for r in await tx.all(
                    "SELECT player_id, quiet_from, quiet_to FROM push_quiet "
                    f"WHERE player_id IN ({players})",
                    params,
                )
            }
            jobs = [
                Job(
                    id=str(r[0]),
                    device_id=str(r[1]),
                    player_id=str(r[2]),
                    topic=str(r[3]),
                    body=str(r[4]).encode(),
                    attempts=int(r[5]),
                    created_at=float(r[6]),
                    subscription=subs.get(str(r[1])),
                    quiet=quiet.get(str(r[2]), DEFAULT_QUIET),
                )
                for r in rows
            ]
            jobs.sort(key=lambda j: (j.created_at, j.id))
            return jobs

        return await self.db.run(work)

    async def again(self, job: Job, due: float) -> None:
        """Queue ``job`` once more (one more attempt), due at ``due``."""
        await self.db.one(
            "INSERT INTO push_outbox (id, device_id, player_id, topic, body, attempts, "
            "created_at, due_at) VALUES (:id, :device_id, :player_id, :topic, :body, "
            ":attempts, :created_at, :due)",
            {
                "id": secrets.token_hex(12),
                "device_id": job.device_id,
                "player_id": job.player_id,
                "topic": job.topic,
                "body": job.body.decode(),
                "attempts": job.attempts + 1,
                "created_at": job.created_at,
                "due": due,
            },
        )

    async def next_due(self) -> float | None:
        """When the next reminder in the outbox is due (``None``: none waits)."""
        row = await self.db.one("SELECT MIN(due_at) FROM push_outbox", write=False)
        return None if row is None or row[0] is None else float(row[0])

    async def waiting(self) -> int:
        """How many reminders wait in the outbox (tests, the benchmark)."""
        row = await self.db.one("SELECT COUNT(*) FROM push_outbox", write=False)
        return 0 if row is None else int(row[0])

    # -- pruning (F14) -------------------------------------------------------------------

    async def prune_subscriptions(self, before: float, batch: int) -> int:
        """Delete up to ``batch`` subscriptions not used since ``before``; how many."""

        async def work(tx: Tx) -> int:
            rows = await tx.all(
                "DELETE FROM push_subscriptions WHERE device_id IN (SELECT device_id FROM "
                "push_subscriptions WHERE used_at < :before LIMIT :batch) RETURNING device_id",
                {"before": before, "batch": batch},
            )
            return len(rows)

        return await self.db.run(work, single=True)

    async def prune_marks(self, before: float, batch: int) -> int:
        """Delete up to ``batch`` marks older than ``before`` (and the outbox's reminders
        made before it, which no sender took: stale); how many marks."""

        async def work(tx: Tx) -> int:
            await tx.all("DELETE FROM push_outbox WHERE created_at < :before", {"before": before})
            rows = await tx.all(
                "DELETE FROM push_marks WHERE (player_id, about) IN (SELECT player_id, about "
                "FROM push_marks WHERE sent_at < :before LIMIT :batch) RETURNING sent_at",
                {"before": before, "batch": batch},
            )
            return len(rows)

        return await self.db.run(work)


class PushData:
    """The reminders' part of a player's data (export, merge, erase: I1, I4)."""

    name = "push"

    async def export(self, tx: Tx, player_id: str) -> Any:
        subs = [
            {
                "device_id": row[0],
                "endpoint": row[1],
                "time_zone": row[2],
                "created_at": row[3],
                "used_at": row[4],
            }
            for row in await tx.all(
                "SELECT device_id, endpoint, time_zone, created_at, used_at FROM "
                "push_subscriptions WHERE player_id = :player_id ORDER BY created_at",
                {"player_id": player_id},
            )
        ]
        quiet = await tx.one(
            "SELECT quiet_from, quiet_to, updated_at FROM push_quiet WHERE player_id = :player_id",
            {"player_id": player_id},
        )
        marks = await tx.all(
            "SELECT about, sent_at FROM push_marks WHERE player_id = :player_id ORDER BY sent_at",
            {"player_id": player_id},
        )
        return {
            "subscriptions": subs,
            "quiet": None
            if quiet is None
            else {"from": quiet[0], "to": quiet[1], "updated_at": quiet[2]},
            "reminded": [{"about": about, "at": at} for about, at in marks],
        }

    async def has_data(self, tx: Tx, player_id: str) -> bool:
        # Reminders are nothing a person would miss by linking elsewhere.
        del tx, player_id
        return False

    def kept_sql(self, player: str) -> str:
        del player
        # (as has_data: a never-played browser's subscription goes with it, F27; the rooms
        # a reminder is about are the rooms' part to keep)
        return "FALSE"

    async def merge(self, tx: Tx, source: str, target: str) -> Sequence[MergeNote]:
        params = {"source": source, "target": target}
        await tx.all(
            "UPDATE push_subscriptions SET player_id = :target WHERE player_id = :source", params
        )
        await tx.all("UPDATE push_outbox SET player_id = :target WHERE player_id = :source", params)
        # The player kept keeps their quiet hours; without them they take the other's.
        await tx.all(
            "UPDATE push_quiet SET player_id = :target WHERE player_id = :source "
            "AND NOT EXISTS (SELECT 1 FROM push_quiet WHERE player_id = :target)",
            params,
        )
        await tx.all("DELETE FROM push_quiet WHERE player_id = :source", params)
        await tx.all(
            "UPDATE push_marks SET player_id = :target WHERE player_id = :source AND NOT EXISTS "
            "(SELECT 1 FROM push_marks m WHERE m.player_id = :target "
            "AND m.about = push_marks.about)",
            params,
        )
        await tx.all("DELETE FROM push_marks WHERE player_id = :source", params)
        # (no cap to keep: --max-push-subscriptions is checked when a device subscribes; a
        # merged player past it keeps every device's reminders rather than silently lose
        # some)
        return ()

    async def erase(self, tx: Tx, player_id: str) -> None:
        params = {"player_id": player_id}
        for table in ("push_outbox", "push_subscriptions", "push_quiet", "push_marks"):
            await tx.all(f"DELETE FROM {table} WHERE player_id = :player_id", params)
