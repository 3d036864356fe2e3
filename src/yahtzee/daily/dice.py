"""The day's dice (每日挑战, D1): one stream of faces per calendar day, the same for everyone.

**The day** is the calendar date in China (Asia/Shanghai). That zone has been UTC+8 all
year round since 1991 (no daylight saving), so :data:`SHANGHAI` is that fixed offset and
needs no time-zone database.

**The stream.** For each round 1..13 the day has a sequence of
:data:`~yahtzee.dice.FACES_PER_ROUND` faces (a :class:`~yahtzee.dice.RoundStreams`). A
turn's first roll takes the next five faces of its round's sequence; each reroll takes the
next faces for the dice not held, in die order (left to right). A turn rolls at
most 5 + 5 + 5 = 15 dice (a reroll may hold nothing), so 15 faces always suffice. Two
players who hold the same dice at the same moment therefore see the same faces; a player
who holds fewer dice simply takes further into the same sequence.

**The secret.** Face ``i`` of round ``r`` on day ``d`` comes from
``HMAC-SHA256(secret, "yahtzee-daily-v1:<d>:<r>:<block>")`` (rejection sampling of its
bytes: a byte below 252 gives ``byte % 6 + 1``, so every face is exactly equally likely).
The secret is the server's own (the one that signs the player cookies, which every
process on a database shares), so nobody can compute a day's dice before rolling them,
and every process agrees on them. The date is in the message, so one day's dice say
nothing about another's.

The stream is randomness like any other, so it is *injected*: :meth:`DailyStream.turn`
gives the :class:`~yahtzee.dice.DiceSource` of one turn, positioned after the faces the
turn has already drawn; the daily kind's rules hand it to the game service (its dice
source, K2), which knows no day.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from yahtzee.dice import KeyedStreams, keyed_faces

#: China's time zone: UTC+8, no daylight saving since 1991.
SHANGHAI = timezone(timedelta(hours=8), "Asia/Shanghai")
_PURPOSE = b"yahtzee-daily-v1:"


def day_of(moment: datetime) -> date:
    """The daily challenge's date at ``moment`` (an aware datetime): Shanghai's date."""
    if moment.tzinfo is None:
        raise ValueError(f"an aware datetime is needed to find the day, got {moment!r}")
    return moment.astimezone(SHANGHAI).date()


def today(now: datetime | None = None) -> date:
    """Today's date in Shanghai (``now`` defaults to the current time)."""
    return day_of(now if now is not None else datetime.now(UTC))


def parse_day(text: str) -> date:
    """A date in ISO form (``2026-12-01``), or :class:`ValueError` naming the text."""
    try:
        return date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(f"not a date (YYYY-MM-DD): {text!r}") from None


def round_faces(secret: bytes, day: date, round_: int) -> tuple[int, ...]:
    """The :data:`FACES_PER_ROUND` faces of round ``round_`` (1..13) of ``day``."""
    return keyed_faces(secret, _PURPOSE, day.isoformat(), round_)


class DailyStream(KeyedStreams):
    """One day's dice under one server secret (see the module docstring)."""

    def __init__(self, secret: bytes, day: date) -> None:
        super().__init__(secret, _PURPOSE, day.isoformat())
        self.day = day
