"""The reminders' service (W4, W6): the devices' subscriptions, the players' quiet hours,
the platform's reminders decided and queued, and the senders that deliver them.

**Deciding** (:meth:`PushService.deliver`, the platform's
:class:`~yahtzee.server.reminders.ReminderSender`): one transaction picks the player's
devices that are out of their quiet hours now (each in its own time zone), claims the hour's
mark about the thing (none if the player was reminded about it within the hour, whatever
process did it), and writes one outbox row per device. Only then does it answer ``queued``.

**Sending** (:meth:`PushService.run`, a background task of every process): a loop takes
due rows from the outbox — as many as it has free senders, so that what a process holds in
memory is what it is sending at that moment — and sends each in a worker thread
(:mod:`yahtzee.push.delivery`). Before sending, it asks the devices table which player the
device names now (:meth:`~yahtzee.server.identity.DeviceBook.live_player`, not a visit): a
device that ended, or that names another player, gets nothing (the subscription follows
the device's player, or goes with the device). The quiet hours are checked once more. A
404 or 410 deletes the subscription; a 429, a 5xx or no answer puts the reminder back with
a later due time (``Retry-After``, else 30 s, 2 min, 8 min; :data:`MAX_ATTEMPTS` in all, and
never once it is an hour old); any other answer drops it (logged).

**What the queue guarantees.** A reminder answered ``queued`` is in the database, so it
survives the death of the process that decided it: another process (or the same one
restarted) takes it within :data:`POLL_SECONDS`. A row is *taken by deleting it* before it
is sent (PostgreSQL's ``SKIP LOCKED`` keeps two processes off the same row), so no device
ever gets one reminder twice: **at most once per device for each hour's mark**. The price:
a reminder a process took and was sending when it died (``kill -9`` in the middle of the
HTTP request: at most ``--push-workers`` of them per process) is lost, not sent again —
a duplicate buzz at night is worse than a reminder missed, and the next one comes. Nothing
the server acknowledged is otherwise lost. The push service itself may deliver late or drop
a message (its ``TTL`` is an hour); the ``Topic`` header makes a newer reminder about the
same thing replace one still waiting there.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from yahtzee.push.delivery import Kind, Message, Result, Sender, topic_of
from yahtzee.push.errors import QuietHoursRefusedError
from yahtzee.push.settings import PushSettings
from yahtzee.push.store import HOUR, Job, PushStore, Subscription, in_quiet_hours
from yahtzee.push.subscription import Address, Endpoints, check_keys, check_time_zone
from yahtzee.push.vapid import VapidKey
from yahtzee.server.feature import Players
from yahtzee.server.limits import Guard, Rate
from yahtzee.server.reminders import Reminder, Sent
from yahtzee.server.revocation import Revoked

log = logging.getLogger("yahtzee.server")

#: Seconds between two looks at the outbox when nothing woke the loop (another process's
#: reminders, retries that came due, the ones a dead process left).
POLL_SECONDS = 2.0
#: Sends of one reminder at most (the first and the retries).
MAX_ATTEMPTS = 4
#: The waits before a retry when the push service named none (seconds).
BACKOFF = (30.0, 120.0, 480.0)
#: A reminder older than this is not sent any more (the next one comes).
EXPIRE_SECONDS = HOUR
#: How often a page's look at its subscription counts as a use (pruning: not for long).
USED_EVERY = 24 * 3600.0
#: The shared bucket of new subscriptions per address group (F14).
ADDRESS_BUCKET = "push_subscriptions"
_HHMM = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")


def parse_hhmm(value: str) -> int:
    """``"22:00"`` → minutes after midnight; :class:`QuietHoursRefusedError` otherwise."""
    m = _HHMM.fullmatch(value)
    if m is None:
        raise QuietHoursRefusedError(value)
    return int(m[1]) * 60 + int(m[2])


def hhmm(minutes: int) -> str:
    """Minutes after midnight as ``HH:MM``."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def device_tag(device_id: str) -> str:
    """What the page is told of its device: a short digest that changes when the browser
    becomes another device (it then stops the reminders it set up for the earlier one)."""
    return hashlib.sha256(b"yahtzee-push-device:" + device_id.encode()).hexdigest()[:12]


def contact_for(origin: str, configured: str | None) -> str:
    """The VAPID subject: ``--push-contact``, else the page's https origin (a name the
    push services accept: Apple refuses ``localhost``), else a placeholder for pages
    served over plain http on a developer's machine."""
    if configured:
        return configured
    address = Address.parse(origin + "/")
    public = address is not None and "." in address.host
    if public and address is not None and (address.scheme, address.port) == ("https", 443):
        return address.origin
    return "mailto:webmaster@localhost"


class PushService:
    """See the module docstring."""

    def __init__(
        self,
        store: PushStore,
        limits: PushSettings,
        key: VapidKey,
        *,
        guard: Guard,
        players: Players,
        clock: Callable[[], float] = time.time,
        sender: Sender | None = None,
    ) -> None:
        self.store = store
        self.limits = limits
        self.key = key
        self.endpoints = Endpoints(limits.prefixes)
        # (new subscriptions of a client address group an hour: one device, one each)
        self.new_subscriptions = Rate(
            ADDRESS_BUCKET, limits.subscriptions_per_hour_per_address, HOUR
        )
        self.guard = guard
        self.players = players
        self.clock = clock
        self.sender = sender or Sender(key)
        self.counts: Counter[str] = Counter()  # what became of the sends (tests, the log)
        self._pool: ThreadPoolExecutor | None = None
        self._wake = asyncio.Event()
        self._busy = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- the page's routes ------------------------------------------------------------------

    async def status(self, player_id: str, device_id: str) -> dict[str, Any]:
        """``GET /api/push``: the key to subscribe with, this device's subscription, the
        player's quiet hours. A look counts as a use of the subscription (once a day)."""
        sub = await self.store.subscription(device_id, player_id)
        now = self.clock()
        if sub is not None and now - sub.used_at >= USED_EVERY:
            await self.store.used([device_id], now)
        return await self._state(player_id, device_id, sub)

    async def _state(
        self, player_id: str, device_id: str, sub: Subscription | None
    ) -> dict[str, Any]:
        quiet = await self.store.quiet(player_id)
        return {
            "public_key": self.key.public_key,
            "device": device_tag(device_id),
            "subscribed": sub is not None,
            "endpoint": None if sub is None else sub.endpoint,
            "time_zone": None if sub is None else sub.time_zone,
            "quiet": None if quiet is None else {"from": hhmm(quiet[0]), "to": hhmm(quiet[1])},
        }

    async def subscribe(
        self,
        player_id: str,
        device_id: str,
        *,
        endpoint: str,
        p256dh: str,
        auth: str,
        time_zone: str,
        origin: str,
        address: str,
    ) -> dict[str, Any]:
        """Register this device's subscription (its earlier one replaced): 422 for an
        endpoint that is not a push service's, keys that are not, a time zone nobody
        knows; 409 past the player's cap; 429 past the address group's new ones an hour."""
        self.endpoints.check(endpoint)
        check_keys(p256dh, auth)
        check_time_zone(time_zone)
        if not await self.store.has(device_id, endpoint):
            await self.guard.take(self.guard.charge(self.new_subscriptions, address))
        sub = Subscription(
            device_id, player_id, endpoint, p256dh, auth, time_zone, origin[:200], self.clock()
        )
        await self.store.subscribe(sub, self.clock(), self.limits.subscriptions)
        return await self._state(player_id, device_id, sub)

    async def unsubscribe(self, player_id: str, device_id: str) -> dict[str, Any]:
        """This device takes no more reminders (nothing to do if it took none)."""
        if await self.store.subscription(device_id, player_id) is not None:
            await self.store.unsubscribe([device_id])
        return await self._state(player_id, device_id, None)

    async def set_quiet(
        self, player_id: str, device_id: str, quiet: tuple[str, str] | None
    ) -> dict[str, Any]:
        """The player's quiet hours (``HH:MM`` from and to; ``None``: none)."""
        minutes = None if quiet is None else (parse_hhmm(quiet[0]), parse_hhmm(quiet[1]))
        await self.store.set_quiet(player_id, minutes, self.clock())
        return await self._state(
            player_id, device_id, await self.store.subscription(device_id, player_id)
        )

    # -- the platform's reminders ---------------------------------------------------------------

    async def deliver(self, reminder: Reminder) -> Sent:
        """See :class:`~yahtzee.server.reminders.ReminderSender`: decided and queued in one
        transaction (:meth:`PushStore.decide`), then this process's senders are woken."""
        sent = await self.store.decide(
            reminder.player_id,
            reminder.about,
            topic_of(reminder.about),
            reminder.body,
            self.clock(),
        )
        self.counts[f"decided_{sent.outcome}"] += 1
        if sent.sends:
            self._wake.set()
        return sent

    # -- devices that end -----------------------------------------------------------------------

    def revoked(self, revoked: Revoked) -> None:
        """The platform's notice (F23, on every process): those devices' subscriptions go,
        and what waits for them. (Cheap, never raising: the deletion runs as a task; every
        send asks the devices table anyway.)"""
        if not revoked.devices:
            return
        task = asyncio.get_running_loop().create_task(self._forget(revoked.devices))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _forget(self, device_ids: tuple[str, ...]) -> None:
        try:
            await self.store.unsubscribe(device_ids)
        except Exception:  # (logged; the sends check the devices table anyway)
            log.exception("forgetting the subscriptions of ended devices failed")

    # -- the senders ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Send what the outbox holds, until cancelled (see the module docstring)."""
        workers = max(1, self.limits.workers)
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="push")
        while True:
            free = workers - self._busy
            jobs: list[Job] = []
            if free > 0:
                self._wake.clear()
                try:
                    jobs = await self.store.take(self.clock(), free)
                except Exception:  # (the database away: look again later)
                    log.exception("taking reminders from the outbox failed")
            for job in jobs:
                self._busy += 1
                task = asyncio.get_running_loop().create_task(self._send(job))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            if len(jobs) == free and free > 0:
                continue  # (more may be due: take again as soon as a sender is free)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_SECONDS)

    async def close(self) -> None:
        """Wait for the sends under way (briefly), then stop the threads."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5.0)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    async def _send(self, job: Job) -> None:
        try:
            outcome = await self._send_one(job)
            self.counts[outcome] += 1
        except Exception:
            self.counts["error"] += 1
            log.exception("sending a reminder failed")
        finally:
            self._busy -= 1
            self._wake.set()

    async def _send_one(self, job: Job) -> str:
        sub = job.subscription
        now = self.clock()
        if sub is None or sub.player_id != job.player_id:
            return "dropped_unsubscribed"
        if now - job.created_at > EXPIRE_SECONDS:
            return "dropped_stale"
        identity = self.players.identity
        holder = None if identity is None else await identity.live_player(job.device_id)
        if holder != job.player_id:
            if holder is None:
                await self.store.unsubscribe([job.device_id])
            else:  # (linked alone to another player: its subscription follows it)
                await self.store.moved(job.device_id, holder)
            return "dropped_not_the_players"
        if in_quiet_hours(now, sub.time_zone, job.quiet):
            return "dropped_quiet"
        address = self.endpoints.allowed(sub.endpoint)
        if address is None:  # (no longer allowed: --push-endpoints changed)
            return "dropped_endpoint"
        message = Message(
            endpoint=sub.endpoint,
            audience=address.origin,
            p256dh=sub.p256dh,
            auth=sub.auth,
            contact=contact_for(sub.origin, self.limits.contact),
            body=job.body,
            topic=job.topic,
        )
        assert self._pool is not None
        result: Result = await asyncio.get_running_loop().run_in_executor(
            self._pool, self.sender.send, message
        )
        if result.kind is Kind.DELIVERED:
            if now - sub.used_at >= USED_EVERY:  # (once a day, as a look: not a write a send)
                await self.store.used([job.device_id], self.clock())
        elif result.kind is Kind.GONE:
            await self.store.gone(job.device_id, sub.endpoint)
        elif result.kind is Kind.RETRY:
            if job.attempts + 1 >= MAX_ATTEMPTS:
                return "dropped_attempts"
            wait = result.retry_after
            if wait is None:
                wait = BACKOFF[min(job.attempts, len(BACKOFF) - 1)]
            due = self.clock() + min(wait, EXPIRE_SECONDS)
            if due - job.created_at > EXPIRE_SECONDS:
                return "dropped_stale"
            await self.store.again(job, due)
            self._wake.set()
            return "retry"
        return str(result.kind)
