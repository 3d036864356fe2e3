"""Storage of practice (L6-L8): puzzles served, answers, the player's flashcards and the
Glicko-2 ratings of players and bank puzzles, on SQLite or PostgreSQL.

Self-contained: its own tables (``practice_*``, the owner ``practice`` of the one
migration mechanism, :data:`MIGRATIONS`), reached as every feature's are
(:mod:`~yahtzee.storage.feature_db`, on the app's connections), so it changes nothing of
the games' storage. One SQL text serves both databases, with ``:name`` parameters; every
method is a coroutine whose statements run in one transaction (:meth:`FeatureDb.run`).

Guarantees:

* **One graded answer per serving.** The answer's transaction marks the serving answered
  only if it is not yet (a compare-and-set) and only if it is still the one the player is
  being served (``practice_players.serving``); the ratings and the card move in the same
  transaction. A second answer is refused (:class:`PuzzleAnsweredError`), an answer to
  an older serving or to another player's is not found (:class:`PuzzleNotFoundError`).
* **Durability.** PostgreSQL: as the games. SQLite: its writes are relaxed
  (:meth:`FeatureDb.relaxed`: a batch of nothing but 练习's writes commits with
  ``synchronous=NORMAL``, the games and the other features keep ``FULL``): a practice
  write survives a crash of the server, and a power cut may lose the last few answers,
  never a game; so asking for a puzzle costs no disk flush of its own.
* **Ratings are read and written in the transaction** (rows locked on PostgreSQL, the
  database locked on SQLite), so two players answering one bank puzzle at once both count.
* **A puzzle counts for the ratings once per player** (F15). A serving of a puzzle the
  player has answered before (「练习这一步」 asked again, a card due again, a bank puzzle
  drawn again) is a *review*: graded, its card rescheduled (FSRS), but neither the
  player's rating nor the puzzle's moves. Otherwise anyone could farm a rating by asking
  for a decision they had just been shown the best answer to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from yahtzee.practice.errors import PuzzleAnsweredError, PuzzleNotFoundError
from yahtzee.storage.feature_db import FeatureDb, Tx
from yahtzee.storage.player_data import MergeNote, keeps
from yahtzee.storage.schema import Migrations
from yahtzee.training.progress import Glicko, new_card, rate, review_card

_SCHEMA: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE practice_players (
            player_id TEXT PRIMARY KEY,
            rating DOUBLE PRECISION NOT NULL,
            rd DOUBLE PRECISION NOT NULL,
            vol DOUBLE PRECISION NOT NULL,
            serving TEXT,
            updated_at TEXT NOT NULL
        )""",
        """CREATE TABLE practice_servings (
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            puzzle_key TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('mine', 'bank')),
            position TEXT NOT NULL,
            themes TEXT NOT NULL,
            served_at TEXT NOT NULL,
            answered_at TEXT,
            answer TEXT,
            loss DOUBLE PRECISION,
            mark TEXT,
            rating_after DOUBLE PRECISION,
            rating_change DOUBLE PRECISION,
            puzzle_rating DOUBLE PRECISION  -- the puzzle's rating as shown when served
        )""",
        "CREATE INDEX practice_servings_player ON practice_servings (player_id, served_at)",
        """CREATE TABLE practice_cards (
            player_id TEXT NOT NULL,
            puzzle_key TEXT NOT NULL,
            position TEXT NOT NULL,
            themes TEXT NOT NULL,
            game_id TEXT NOT NULL,
            decision INTEGER NOT NULL,
            chosen TEXT NOT NULL,
            loss DOUBLE PRECISION NOT NULL,
            card TEXT NOT NULL,
            due TEXT NOT NULL,
            rating DOUBLE PRECISION NOT NULL,
            rd DOUBLE PRECISION NOT NULL,
            vol DOUBLE PRECISION NOT NULL,
            answers INTEGER NOT NULL,
            best_answers INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (player_id, puzzle_key)
        )""",
        "CREATE INDEX practice_cards_due ON practice_cards (player_id, due)",
        """CREATE TABLE practice_imports (
            player_id TEXT NOT NULL,
            game_id TEXT NOT NULL,
            PRIMARY KEY (player_id, game_id)
        )""",
        """CREATE TABLE practice_bank (
            puzzle_key TEXT PRIMARY KEY,
            rating DOUBLE PRECISION NOT NULL,
            rd DOUBLE PRECISION NOT NULL,
            vol DOUBLE PRECISION NOT NULL,
            answers INTEGER NOT NULL
        )""",
    ),
    # v2: a puzzle counts for the ratings once per player (F15): the answered servings of
    # a (player, puzzle) are found by an index.
    (
        """CREATE INDEX practice_servings_answered ON practice_servings (player_id, puzzle_key)
            WHERE answered_at IS NOT NULL""",
    ),
)

#: The practice tables' migrations (:mod:`yahtzee.storage.schema`; never edit a shipped one).
MIGRATIONS = Migrations.shared("practice", _SCHEMA)
"""Each entry is one schema version's statements (never edit a shipped one)."""


def _iso(t: datetime) -> str:
    """UTC times as fixed-width ISO text, so that text order is time order."""
    return t.isoformat(timespec="microseconds")


def themes_text(themes: Sequence[str]) -> str:
    """``",a,b,"``: stored so that ``LIKE '%,a,%'`` finds a theme."""
    return "," + ",".join(themes) + "," if themes else ","


def themes_of_text(text: str) -> tuple[str, ...]:
    """The inverse of :func:`themes_text`."""
    return tuple(t for t in text.split(",") if t)


@dataclass(frozen=True, slots=True)
class NewCard:
    """A decision of a finished game that becomes one of the player's puzzles (L7)."""

    puzzle_key: str
    position: str
    themes: tuple[str, ...]
    game_id: str
    decision: int
    chosen: str
    loss: float


@dataclass(frozen=True, slots=True)
class CardRow:
    """One of the player's puzzles as stored."""

    puzzle_key: str
    position: str
    themes: tuple[str, ...]
    game_id: str
    decision: int
    chosen: str
    loss: float
    due: str
    rating: Glicko
    answers: int
    best_answers: int


@dataclass(frozen=True, slots=True)
class Serving:
    """One puzzle served to a player: the id the answer names."""

    id: str
    player_id: str
    puzzle_key: str
    source: str
    position: str
    themes: tuple[str, ...]
    served_at: str
    answered_at: str | None = None
    puzzle_rating: float | None = None
    """The puzzle's rating shown with it (「难度分」), which the answer is rated against."""


@dataclass(frozen=True, slots=True)
class Answered:
    """What one graded answer changed: the player's rating before and after, and the
    puzzle's after."""

    player_before: Glicko
    player_after: Glicko
    puzzle_after: Glicko
    puzzle_shown: float
    """The puzzle's rating shown when it was served (L14)."""
    puzzle_before: Glicko
    review: bool = False  # answered before: no rating moved (F15)


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One answered serving, for 统计 (oldest first)."""

    answered_at: str
    source: str
    puzzle_key: str
    themes: tuple[str, ...]
    mark: str
    rating_after: float


class PracticeStore:
    """The practice tables on a :class:`~yahtzee.storage.feature_db.FeatureDb`, its writes
    relaxed (see the module docstring)."""

    FEATURE = "practice"

    def __init__(self, db: FeatureDb) -> None:
        self.db = db.relaxed()
        self.postgres = db.dialect == "postgresql"

    def _lock(self) -> str:
        """Rows read to be changed in the same transaction are locked on PostgreSQL (SQLite
        locks the database for the whole write transaction)."""
        return " FOR UPDATE" if self.postgres else ""

    # -- players ------------------------------------------------------------------------

    async def player_rating(self, player_id: str) -> Glicko:
        """The player's rating (1500 before the first answer)."""
        return await self.db.run(lambda tx: self._player(tx, player_id, lock=False), write=False)

    async def answered_before(self, player_id: str, puzzle_key: str) -> bool:
        """Whether the player has answered this puzzle before (then it is a review, F15)."""
        return await self.db.run(lambda tx: self._answered(tx, player_id, puzzle_key), write=False)

    @staticmethod
    async def _answered(tx: Tx, player_id: str, puzzle_key: str) -> bool:
        sql = (
            "SELECT 1 FROM practice_servings WHERE player_id = :player AND puzzle_key = :key "
            "AND answered_at IS NOT NULL LIMIT 1"
        )
        return await tx.one(sql, {"player": player_id, "key": puzzle_key}) is not None

    async def _player(self, tx: Tx, player_id: str, *, lock: bool) -> Glicko:
        sql = "SELECT rating, rd, vol FROM practice_players WHERE player_id = :player"
        row = await tx.one(sql + (self._lock() if lock else ""), {"player": player_id})
        return Glicko(row[0], row[1], row[2]) if row else Glicko()

    # -- the player's own puzzles -------------------------------------------------------

    async def imported_games(self, player_id: str) -> set[str]:
        """The finished games whose mistakes are already cards."""
        rows = await self.db.run(
            lambda tx: tx.all(
                "SELECT game_id FROM practice_imports WHERE player_id = :player",
                {"player": player_id},
            ),
            write=False,
        )
        return {r[0] for r in rows}

    async def import_game(
        self, player_id: str, game_id: str, cards: Sequence[NewCard], now: datetime
    ) -> None:
        """Add a finished game's cards (due now) and remember it was imported, at once."""
        start = Glicko()

        async def work(tx: Tx) -> None:
            inserted = await tx.all(
                "INSERT INTO practice_imports (player_id, game_id) VALUES (:player, :game) "
                "ON CONFLICT DO NOTHING RETURNING game_id",
                {"player": player_id, "game": game_id},
            )
            if not inserted:  # another request imported it meanwhile
                return
            for n, c in enumerate(cards):
                await _insert_card(tx, player_id, c, now, n, start)

        await self.db.run(work)

    async def add_card(self, player_id: str, card: NewCard, now: datetime) -> CardRow:
        """Add one card (「练习这一步」) unless the player has it already; the card."""

        async def work(tx: Tx) -> CardRow:
            await _insert_card(tx, player_id, card, now, 0, Glicko())
            row = await _card_in(tx, player_id, card.puzzle_key)
            assert row is not None
            return row

        return await self.db.run(work)

    async def due_card(
        self, player_id: str, now: datetime, theme: str | None = None
    ) -> CardRow | None:
        """The player's card due longest ago (at or before ``now``), of ``theme`` if given."""
        sql = _CARD + "WHERE player_id = :player AND due <= :now"
        params: dict[str, Any] = {"player": player_id, "now": _iso(now)}
        if theme is not None:
            sql += " AND themes LIKE :theme"
            params["theme"] = f"%,{theme},%"
        sql += " ORDER BY due LIMIT 1"
        row = await self.db.run(lambda tx: tx.one(sql, params), write=False)
        return _card(row) if row else None

    async def card(self, player_id: str, puzzle_key: str) -> CardRow | None:
        """One of the player's cards."""
        return await self.db.run(lambda tx: _card_in(tx, player_id, puzzle_key), write=False)

    async def cards(self, player_id: str) -> list[CardRow]:
        """All the player's cards (统计)."""
        rows = await self.db.run(
            lambda tx: tx.all(_CARD + "WHERE player_id = :player", {"player": player_id}),
            write=False,
        )
        return [_card(r) for r in rows]

    # -- the bank -----------------------------------------------------------------------

    async def bank_ratings(self, keys: Sequence[str]) -> dict[str, Glicko]:
        """The ratings of these bank puzzles (1500 for those never answered)."""
        if not keys:
            return {}
        names = [f"k{i}" for i in range(len(keys))]
        sql = (
            "SELECT puzzle_key, rating, rd, vol FROM practice_bank "
            f"WHERE puzzle_key IN ({', '.join(':' + n for n in names)})"
        )
        params = dict(zip(names, keys, strict=True))
        rows = await self.db.run(lambda tx: tx.all(sql, params), write=False)
        found = {r[0]: Glicko(r[1], r[2], r[3]) for r in rows}
        return {k: found.get(k, Glicko()) for k in keys}

    async def recent_keys(self, player_id: str, n: int) -> set[str]:
        """The puzzles of the player's last ``n`` servings (not served again soon)."""
        rows = await self.db.run(
            lambda tx: tx.all(
                "SELECT puzzle_key FROM practice_servings WHERE player_id = :player "
                "ORDER BY served_at DESC LIMIT :n",
                {"player": player_id, "n": n},
            ),
            write=False,
        )
        return {r[0] for r in rows}

    # -- servings and answers -----------------------------------------------------------

    async def serve(self, serving: Serving) -> Glicko:
        """Store a serving and make it the player's current one; the player's rating. The
        older ones never answered go stale, and are deleted now (F14: a cookie asking for
        puzzles without answering them leaves one row, not one per request); the answered
        ones are the player's history."""
        start = Glicko()
        params = {
            "id": serving.id,
            "player": serving.player_id,
            "key": serving.puzzle_key,
            "source": serving.source,
            "position": serving.position,
            "themes": themes_text(serving.themes),
            "served_at": serving.served_at,
            "rating": start.rating,
            "rd": start.rd,
            "vol": start.vol,
        }

        async def work(tx: Tx) -> Glicko:
            await tx.all(
                "DELETE FROM practice_servings WHERE player_id = :player AND answered_at IS NULL",
                {"player": serving.player_id},
            )
            await tx.all(
                "INSERT INTO practice_servings (id, player_id, puzzle_key, source, position, "
                "themes, served_at, puzzle_rating) VALUES "
                "(:id, :player, :key, :source, :position, :themes, :served_at, :shown)",
                {**params, "shown": serving.puzzle_rating},
            )
            await tx.all(
                "INSERT INTO practice_players (player_id, rating, rd, vol, serving, updated_at) "
                "VALUES (:player, :rating, :rd, :vol, :id, :served_at) "
                "ON CONFLICT (player_id) DO UPDATE SET "
                "serving = excluded.serving, updated_at = excluded.updated_at",
                params,
            )
            return await self._player(tx, serving.player_id, lock=False)

        return await self.db.run(work)

    async def serving(self, player_id: str, serving_id: str) -> Serving:
        """The player's current serving ``serving_id``: :class:`PuzzleNotFoundError` if it
        is unknown, another player's or not the current one; :class:`PuzzleAnsweredError`
        if it was answered."""
        return await self.db.run(
            lambda tx: self._current(tx, player_id, serving_id, lock=False), write=False
        )

    async def _current(self, tx: Tx, player_id: str, serving_id: str, *, lock: bool) -> Serving:
        sql = (
            "SELECT s.id, s.player_id, s.puzzle_key, s.source, s.position, s.themes, "
            "s.served_at, s.answered_at, p.serving, s.puzzle_rating FROM practice_servings s "
            "JOIN practice_players p ON p.player_id = s.player_id "
            "WHERE s.id = :id AND s.player_id = :player"
        )
        row = await tx.one(
            sql + (self._lock() if lock else ""), {"id": serving_id, "player": player_id}
        )
        if row is None:
            raise PuzzleNotFoundError(f"no puzzle {serving_id!r} for this player")
        if row[7] is not None:
            raise PuzzleAnsweredError(f"puzzle {serving_id!r} was answered at {row[7]}")
        if row[8] != serving_id:
            raise PuzzleNotFoundError(f"puzzle {serving_id!r} is not the one served now")
        return Serving(
            row[0], row[1], row[2], row[3], row[4], themes_of_text(row[5]), row[6], None, row[9]
        )

    async def answer(
        self,
        player_id: str,
        serving_id: str,
        *,
        answer: str,
        loss: float,
        mark: Any,
        now: datetime,
    ) -> Answered:
        """Record the graded answer of the current serving and move the ratings (player
        and puzzle, Glicko-2) and, for one of the player's cards, its schedule (FSRS), in
        one transaction. Refusals as :meth:`serving`."""

        async def work(tx: Tx) -> Answered:
            serving = await self._current(tx, player_id, serving_id, lock=True)
            player = await self._player(tx, player_id, lock=True)
            at = {"key": serving.puzzle_key, "player": player_id}
            if serving.source == "bank":
                sql = "SELECT rating, rd, vol FROM practice_bank WHERE puzzle_key = :key"
            else:
                sql = (
                    "SELECT rating, rd, vol, card FROM practice_cards "
                    "WHERE puzzle_key = :key AND player_id = :player"
                )
            row = await tx.one(sql + self._lock(), at)
            puzzle = Glicko(row[0], row[1], row[2]) if row else Glicko()
            shown = puzzle.rating if serving.puzzle_rating is None else serving.puzzle_rating
            review = await self._answered(tx, player_id, serving.puzzle_key)
            # A review moves no rating (F15): its answer may be the one shown last time.
            new_player, new_puzzle = (
                (player, puzzle) if review else rate(player, puzzle, mark, shown)
            )
            rated = {
                **at,
                "rating": new_puzzle.rating,
                "rd": new_puzzle.rd,
                "vol": new_puzzle.vol,
            }
            if serving.source == "bank" and not review:
                await tx.all(
                    "INSERT INTO practice_bank (puzzle_key, rating, rd, vol, answers) "
                    "VALUES (:key, :rating, :rd, :vol, 1) ON CONFLICT (puzzle_key) DO UPDATE SET "
                    "rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, "
                    "answers = practice_bank.answers + 1",
                    rated,
                )
            elif serving.source != "bank" and row is not None:
                card, due = review_card(row[3], mark, now)
                await tx.all(
                    "UPDATE practice_cards SET card = :card, due = :due, rating = :rating, "
                    "rd = :rd, vol = :vol, answers = answers + 1, "
                    "best_answers = best_answers + :best "
                    "WHERE player_id = :player AND puzzle_key = :key",
                    {**rated, "card": card, "due": _iso(due), "best": int(mark == "best")},
                )
            await tx.all(
                "UPDATE practice_players SET rating = :rating, rd = :rd, vol = :vol, "
                "updated_at = :now WHERE player_id = :player",
                {
                    "rating": new_player.rating,
                    "rd": new_player.rd,
                    "vol": new_player.vol,
                    "now": _iso(now),
                    "player": player_id,
                },
            )
            done = await tx.all(
                "UPDATE practice_servings SET answered_at = :now, answer = :answer, "
                "loss = :loss, mark = :mark, rating_after = :after, rating_change = :change "
                "WHERE id = :id AND answered_at IS NULL RETURNING id",
                {
                    "now": _iso(now),
                    "answer": answer,
                    "loss": loss,
                    "mark": mark,
                    "after": new_player.rating,
                    "change": new_player.rating - player.rating,
                    "id": serving_id,
                },
            )
            if len(done) != 1:  # (the lock above makes this unreachable; never grade twice)
                raise PuzzleAnsweredError(f"puzzle {serving_id!r} was answered meanwhile")
            return Answered(player, new_player, new_puzzle, shown, puzzle, review)

        return await self.db.run(work)

    async def progress(
        self, player_id: str, limit: int = 2000
    ) -> tuple[list[HistoryRow], list[CardRow], Glicko]:
        """统计's rows, read together: the player's last ``limit`` answered servings
        (oldest first), their cards and their rating."""

        async def work(tx: Tx) -> tuple[list[HistoryRow], list[CardRow], Glicko]:
            rows = await tx.all(
                "SELECT answered_at, source, puzzle_key, themes, mark, rating_after "
                "FROM practice_servings WHERE player_id = :player AND answered_at IS NOT NULL "
                "ORDER BY answered_at DESC LIMIT :limit",
                {"player": player_id, "limit": limit},
            )
            history = [
                HistoryRow(r[0], r[1], r[2], themes_of_text(r[3]), r[4], r[5]) for r in rows
            ][::-1]
            cards = await tx.all(_CARD + "WHERE player_id = :player", {"player": player_id})
            return history, [_card(c) for c in cards], await self._player(tx, player_id, lock=False)

        return await self.db.run(work, write=False)


_CARD = (
    "SELECT puzzle_key, position, themes, game_id, decision, chosen, loss, due, rating, "
    "rd, vol, answers, best_answers FROM practice_cards "
)


def _card(row: Sequence[Any]) -> CardRow:
    return CardRow(
        row[0],
        row[1],
        themes_of_text(row[2]),
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        Glicko(row[8], row[9], row[10]),
        row[11],
        row[12],
    )


async def _card_in(tx: Tx, player_id: str, puzzle_key: str) -> CardRow | None:
    row = await tx.one(
        _CARD + "WHERE player_id = :player AND puzzle_key = :key",
        {"player": player_id, "key": puzzle_key},
    )
    return _card(row) if row else None


async def _insert_card(
    tx: Tx, player_id: str, c: NewCard, now: datetime, n: int, start: Glicko
) -> None:
    card_id = int(now.timestamp() * 1000) * 100 + n % 100
    await tx.all(
        "INSERT INTO practice_cards (player_id, puzzle_key, position, themes, game_id, "
        "decision, chosen, loss, card, due, rating, rd, vol, answers, best_answers, "
        "created_at) VALUES (:player, :key, :position, :themes, :game, :decision, :chosen, "
        ":loss, :card, :now, :rating, :rd, :vol, 0, 0, :now) "
        "ON CONFLICT DO NOTHING",
        {
            "player": player_id,
            "key": c.puzzle_key,
            "position": c.position,
            "themes": themes_text(c.themes),
            "game": c.game_id,
            "decision": c.decision,
            "chosen": c.chosen,
            "loss": c.loss,
            "card": new_card(card_id, now),
            "now": _iso(now),
            "rating": start.rating,
            "rd": start.rd,
            "vol": start.vol,
        },
    )


_PRACTICE_EXPORT = {
    "rating": ("practice_players", ("rating", "rd", "vol", "serving", "updated_at")),
    "servings": (
        "practice_servings",
        (
            "id",
            "puzzle_key",
            "source",
            "position",
            "themes",
            "served_at",
            "answered_at",
            "answer",
            "loss",
            "mark",
            "rating_after",
            "rating_change",
            "puzzle_rating",
        ),
    ),
    "cards": (
        "practice_cards",
        (
            "puzzle_key",
            "position",
            "themes",
            "game_id",
            "decision",
            "chosen",
            "loss",
            "card",
            "due",
            "rating",
            "rd",
            "vol",
            "answers",
            "best_answers",
            "created_at",
        ),
    ),
    "imported_games": ("practice_imports", ("game_id",)),
}


class PracticeData:
    """练习's rows of a player: its rating, servings, cards (the FSRS schedule) and the
    games it took puzzles from (I1, I4; see :mod:`yahtzee.storage.player_data`)."""

    name = "practice"

    async def export(self, tx: Tx, player_id: str) -> Any:
        out: dict[str, Any] = {}
        for key, (table, columns) in _PRACTICE_EXPORT.items():
            rows = await tx.all(
                f"SELECT {', '.join(columns)} FROM {table} WHERE player_id = :player_id "
                f"ORDER BY {columns[0]}",
                {"player_id": player_id},
            )
            out[key] = [dict(zip(columns, row, strict=True)) for row in rows]
        out["rating"] = out["rating"][0] if out["rating"] else None
        return out

    async def has_data(self, tx: Tx, player_id: str) -> bool:
        return await keeps(tx, self, player_id)

    def kept_sql(self, player: str) -> str:
        return " OR ".join(
            f"EXISTS (SELECT 1 FROM {table} WHERE player_id = {player})"
            for table in ("practice_servings", "practice_cards")
        )

    async def merge(self, tx: Tx, source: str, target: str) -> Sequence[MergeNote]:
        # The linked player's rating and cards win where both have one; the rest moves.
        for table, key in (
            ("practice_players", None),
            ("practice_cards", "puzzle_key"),
            ("practice_imports", "game_id"),
        ):
            if key is None:
                if await tx.one(
                    "SELECT 1 FROM practice_players WHERE player_id = :target", {"target": target}
                ):
                    await tx.all(
                        f"DELETE FROM {table} WHERE player_id = :source", {"source": source}
                    )
            else:
                await tx.all(
                    f"DELETE FROM {table} WHERE player_id = :source AND {key} IN "
                    f"(SELECT {key} FROM {table} WHERE player_id = :target)",
                    {"source": source, "target": target},
                )
            await tx.all(
                f"UPDATE {table} SET player_id = :target WHERE player_id = :source",
                {"target": target, "source": source},
            )
        await tx.all(
            "UPDATE practice_servings SET player_id = :target WHERE player_id = :source",
            {"target": target, "source": source},
        )
        return ()  # (its only cap is an hourly rate: nothing a merge could exceed)

    async def erase(self, tx: Tx, player_id: str) -> None:
        for table in ("practice_players", "practice_servings", "practice_cards"):
            await tx.all(
                f"DELETE FROM {table} WHERE player_id = :player_id", {"player_id": player_id}
            )
        await tx.all(
            "DELETE FROM practice_imports WHERE player_id = :player_id", {"player_id": player_id}
        )
