"""A finished game judged by the expert, decision by decision (L1-L3).

Everything is measured in *expected final score*: the points already on the card plus the
solver's value of the position (expected points still to come under optimal play). Along
a game this number moves for exactly two reasons:

* a **roll** moves it by luck (``after - before``; zero on average);
* a **decision** can only lower it: by ``best.value - chosen.value`` (the skill loss).

So ``start_value + luck - skill_loss == final_score`` by construction: every link of the
chain is one or the other, and the chosen value of one decision is the "before" of the
next roll. The tests check it on thousands of simulated games.

A decision is any choice with more than one legal option: each keep after a roll with
rolls left (scoring at once is the keep ``"stop"``, worth the best legal box) and each box
choice with more than one legal box.

A decision the computer made for an away person (托管: the log's ``proxy``, K2) is
reviewed and shown, marked as the computer's, but is not the person's: their skill loss,
accuracy and marks count their own decisions, and 托管's loss is apart
(:attr:`PlayerReview.proxy_loss`), so the chain still adds up.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from yahtzee import log
from yahtzee.errors import CorruptLogError, InvalidSeatsError, NotReviewableError
from yahtzee.game import Game, Mode, SeatKind
from yahtzee.i18n import N_, msg
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard
from yahtzee.solver import ValueTable, load_table, state_of
from yahtzee.solver.advice import category_options, turn_arrays
from yahtzee.solver.tables import KEEP_FACES

Mark = Literal["best", "inaccuracy", "mistake", "blunder"]
MARKS: tuple[Mark, ...] = ("best", "inaccuracy", "mistake", "blunder")
MARK_NAMES = {
    "best": N_("server.mark.best"),
    "inaccuracy": N_("server.mark.inaccuracy"),
    "mistake": N_("server.mark.mistake"),
    "blunder": N_("server.mark.blunder"),
}
BEST_BELOW = 0.01
"""A loss below this is no loss (float noise, exact ties): marked ``best``, accuracy 100."""
INACCURACY_BELOW = 1.0
MISTAKE_BELOW = 5.0
MISTAKE_MARKS: tuple[Mark, ...] = ("mistake", "blunder")
"""The marks that make a decision one of the player's mistakes (U18): 复盘's 失误 and 大错,
统计's 「自己的失误」, 练习's cards of the player's own games (a loss of 1 point or more)."""
STOP: Literal["stop"] = "stop"


def mark_of(loss: float) -> Mark:
    """Verhoeff's buckets (L1): < 0.01 best, < 1 inaccuracy, < 5 mistake, else blunder."""
    if loss < BEST_BELOW:
        return "best"
    if loss < INACCURACY_BELOW:
        return "inaccuracy"
    if loss < MISTAKE_BELOW:
        return "mistake"
    return "blunder"


def accuracy_of(loss: float) -> float:
    """L3: 103.1668 * exp(-0.04354 * 2.5 * loss) - 3.1669, clamped to 0..100."""
    if loss < BEST_BELOW:
        return 100.0
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * 2.5 * loss) - 3.1669))


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a decision: a keep (faces, or ``"stop"``) or a box, and its value.

    ``value`` is the expected final score after taking it.
    """

    value: float
    keep: tuple[int, ...] | Literal["stop"] | None = None
    category: Category | None = None
    points: int | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"keep": [...]|"stop", "value"}`` or ``{"category", "points", "value"}``."""
        value = round(self.value, 4)
        if self.category is not None:
            return {"category": self.category.value, "points": self.points, "value": value}
        keep = self.keep if self.keep == STOP or self.keep is None else list(self.keep)
        return {"keep": keep, "value": value}


class Graded:
    """A choice judged against every option (best first): the review's decisions and the
    trainer's graded answers share these figures, so they are computed in one place."""

    __slots__ = ()
    chosen: Choice
    options: tuple[Choice, ...]

    @property
    def best(self) -> Choice:
        """The expert's choice (the first option)."""
        return self.options[0]

    @property
    def loss(self) -> float:
        """Expected points lost by this choice (>= 0)."""
        return max(0.0, self.best.value - self.chosen.value)

    @property
    def mark(self) -> Mark:
        """The loss's bucket."""
        return mark_of(self.loss)

    @property
    def accuracy(self) -> float:
        """This decision's accuracy, 0..100."""
        return accuracy_of(self.loss)


@dataclass(frozen=True, slots=True)
class Decision(Graded):
    """One counted decision: the position, what was played, the expert's best, the loss.

    ``options`` are every option, best first (the page shows the top three). ``hold`` is
    what was held for the next roll (a keep that rolled on), else ``None``. ``proxy``
    is the computer level that decided for the away person (托管, K2), else ``None``.
    """

    seat: int
    round: int
    roll: int
    kind: Literal["keep", "score"]
    dice: tuple[int, ...]
    card: Scorecard
    chosen: Choice
    options: tuple[Choice, ...]
    hold: tuple[bool, ...] | None = None
    proxy: str | None = None

    def to_json(self, *, top: int = 3) -> dict[str, Any]:
        """The API's decision object (with the position and the ``top`` best options)."""
        out: dict[str, Any] = {
            "round": self.round,
            "roll": self.roll,
            "kind": self.kind,
            "dice": list(self.dice),
            "rolls_left": 3 - self.roll,
            "chosen": self.chosen.to_json(),
            "best": self.best.to_json(),
            "loss": round(self.loss, 4),
            "mark": self.mark,
            "options": [o.to_json() for o in self.options[:top]],
            "card": _card_json(self.card),
            "proxy": self.proxy is not None,
        }
        if self.hold is not None:
            out["hold"] = list(self.hold)
        return out


def _card_json(card: Scorecard) -> dict[str, Any]:
    boxes = {c.value: p for c, p in zip(CATEGORIES, card.boxes, strict=True) if p is not None}
    return {
        "boxes": boxes,
        "upper_subtotal": card.upper_subtotal,
        "upper_bonus": card.upper_bonus,
        "yahtzee_bonus": card.yahtzee_bonus,
        "total": card.total,
    }


@dataclass(frozen=True, slots=True)
class PlayerReview:
    """One player's side of a game: decisions, luck and the expected final per turn.

    ``turn_values[t]`` is the expected final score at the start of turn ``t + 1`` (0..12)
    and, at index 13, the final score.
    """

    seat: int
    start_value: float
    final_score: int
    luck: float
    decisions: tuple[Decision, ...]
    turn_values: tuple[float, ...]
    turn_cards: tuple[Scorecard, ...]
    undos: int = 0
    """Boxes taken back (撤销): each undone box is left out, the box written instead judged."""

    @property
    def own(self) -> tuple[Decision, ...]:
        """The decisions the seat's player made (托管's left out, K2)."""
        return tuple(d for d in self.decisions if d.proxy is None)

    @property
    def mistakes(self) -> tuple[int, ...]:
        """The indexes (in :attr:`decisions`) of the player's own mistakes: their own
        decisions marked 失误 or 大错 (:data:`MISTAKE_MARKS`, U18), the one definition that
        复盘's counts, 统计's 「自己的失误」 and 练习's cards share."""
        return tuple(
            i for i, d in enumerate(self.decisions) if d.proxy is None and d.mark in MISTAKE_MARKS
        )

    @property
    def skill_loss(self) -> float:
        """Sum of the player's own decisions' losses."""
        return sum(d.loss for d in self.own)

    @property
    def proxy_loss(self) -> float:
        """Sum of the losses of 托管's decisions (K2): start + luck - skill loss - this is
        the final score."""
        return sum(d.loss for d in self.decisions if d.proxy is not None)

    @property
    def accuracy(self) -> float:
        """Mean accuracy over the player's own decisions (100 with none)."""
        own = self.own
        if not own:
            return 100.0
        return sum(d.accuracy for d in own) / len(own)

    def counts(self) -> dict[str, int]:
        """How many of the player's own decisions got each mark."""
        out: dict[str, int] = dict.fromkeys(MARKS, 0)
        for d in self.own:
            out[d.mark] += 1
        return out

    def summary_json(self) -> dict[str, Any]:
        """``{"accuracy", "skill_loss", "luck"}`` (rounded)."""
        return {
            "accuracy": round(self.accuracy, 2),
            "skill_loss": round(self.skill_loss, 4),
            "luck": round(self.luck, 4),
        }


@dataclass(frozen=True, slots=True)
class GameReview:
    """The whole game: the reviewed person's side (``human``: seat 0 in solo and vs, at a
    table the seat asked for), the computer's in a vs game, and every seat's (``seats``,
    in playing order, with its kind, the name of its model — ``expert`` for a person, T5 —
    and its person's name)."""

    mode: Mode
    difficulty: str | None
    human: PlayerReview
    computer: PlayerReview | None
    seats: tuple[PlayerReview, ...] = ()
    kinds: tuple[SeatKind, ...] = ()
    models: tuple[str, ...] = ()
    names: tuple[str | None, ...] = ()

    def of_seat(self, seat: int) -> GameReview:
        """This review with seat ``seat`` (a person's) as the reviewed side (T6)."""
        if not 0 <= seat < len(self.seats):
            raise InvalidSeatsError(
                f"there is no seat {seat} in a game of {len(self.seats)}",
                msg("error.review.no_seat", n=seat + 1),
            )
        if self.kinds[seat] is not SeatKind.HUMAN:
            raise InvalidSeatsError(
                f"seat {seat} is a computer: only people are reviewed",
                msg("error.review.computer_seat", n=seat + 1),
            )
        return replace(self, human=self.seats[seat])


def box_choices(card: Scorecard, dice: Dice, table: ValueTable) -> tuple[Choice, ...]:
    """Every legal box for ``dice``, best first, valued as expected final scores (the
    points on ``card`` plus the box's value). The review and the puzzles (L6) grade with
    this one function."""
    total = card.total
    return tuple(
        Choice(total + o.value, category=o.category, points=o.points)
        for o in category_options(card, dice, table)
    )


def keep_choices(
    card: Scorecard,
    dice: Dice,
    rolls_left: int,
    table: ValueTable,
    boxes: tuple[Choice, ...] | None = None,
) -> tuple[Choice, ...]:
    """Every distinct keep of fewer than five dice and ``"stop"`` (worth the best legal
    box, ``boxes[0]`` when the caller has them), best first, as expected final scores."""
    mask, up, flag = state_of(card)
    subs, values = turn_arrays(table, mask, up, flag).candidates(dice, rolls_left)
    total = card.total
    # The last candidate is the whole roll: holding all five cannot be rolled, so it is
    # "stop", worth the best legal box (issue 12), not another roll.
    stop = (boxes or box_choices(card, dice, table))[0].value
    options = [
        Choice(total + v, keep=KEEP_FACES[k]) for k, v in zip(subs[:-1], values[:-1], strict=True)
    ]
    options.append(Choice(stop, keep=STOP))
    options.sort(key=lambda c: -c.value)
    return tuple(options)


def position_choices(
    card: Scorecard, dice: Dice, rolls_left: int, table: ValueTable
) -> tuple[Choice, ...]:
    """The options of a decision, best first: keeps (and ``"stop"``) with rolls left,
    else the legal boxes."""
    if rolls_left > 0:
        return keep_choices(card, dice, rolls_left, table)
    return box_choices(card, dice, table)


class _Side:
    """The running analysis of one seat while the log is folded."""

    def __init__(self, seat: int, table: ValueTable) -> None:
        self.seat = seat
        self.table = table
        self.luck = 0.0
        self.decisions: list[Decision] = []
        self.start_value = table.start_value
        self.current = self.start_value  # expected final score right now
        self.turn_values: list[float] = [self.start_value]
        self.turn_cards: list[Scorecard] = [Scorecard()]
        self.undos = 0
        # The options of the position on the table (after a roll), computed once.
        self._keep_options: tuple[Choice, ...] | None = None
        self._box_options: tuple[Choice, ...] | None = None

    def _turn_start_value(self, card: Scorecard) -> float:
        return card.total + self.table.value(card)

    def box_options(self, card: Scorecard, dice: Dice) -> tuple[Choice, ...]:
        """Every legal box, best first, valued as expected final scores."""
        if self._box_options is None:
            self._box_options = box_choices(card, dice, self.table)
        return self._box_options

    def keep_options(self, card: Scorecard, dice: Dice, rolls_left: int) -> tuple[Choice, ...]:
        """Every distinct keep of fewer than five dice and ``"stop"``, best first."""
        if self._keep_options is None:
            self._keep_options = keep_choices(
                card, dice, rolls_left, self.table, self.box_options(card, dice)
            )
        return self._keep_options

    def position_value(self, card: Scorecard, dice: Dice, rolls_left: int) -> float:
        """Expected final score with ``dice`` on the table (the best option's value)."""
        if rolls_left > 0:
            return self.keep_options(card, dice, rolls_left)[0].value
        return self.box_options(card, dice)[0].value

    def before_roll(self, before: Game, hold: Sequence[bool], proxy: str | None = None) -> None:
        """The keep decision (if dice are on the table) that this roll carries out."""
        state = before
        if state.dice is None:
            return
        card, dice = state.current_card, state.dice
        kept = tuple(sorted(f for f, h in zip(dice.values, hold, strict=True) if h))
        options = self.keep_options(card, dice, state.rolls_left)
        chosen = next(o for o in options if o.keep == kept)
        self._decide("keep", before, chosen, options, tuple(bool(h) for h in hold), proxy)

    def after_roll(self, after: Game) -> None:
        """Luck: how much this roll moved the expected final score."""
        self._keep_options = self._box_options = None
        state = after
        assert state.dice is not None
        value = self.position_value(state.current_card, state.dice, state.rolls_left)
        self.luck += value - self.current
        self.current = value

    def on_score(
        self, before: Game, after: Game, category: Category, proxy: str | None = None
    ) -> None:
        """The stop (with rolls left) and the box choice."""
        state = before
        assert state.dice is not None
        card, dice = state.current_card, state.dice
        if state.rolls_left > 0:
            options = self.keep_options(card, dice, state.rolls_left)
            chosen = next(o for o in options if o.keep == STOP)
            self._decide("keep", before, chosen, options, None, proxy)
        boxes = self.box_options(card, dice)
        chosen = next(o for o in boxes if o.category is category)
        if len(boxes) > 1:
            self._decide("score", before, chosen, boxes, None, proxy)
        self.current = chosen.value
        new_card = after.card(self.seat)
        # The chosen value is the next turn's start value: the same numbers, read the
        # same way (points + the table's value of the new state).
        self.turn_values.append(self.current)
        self.turn_cards.append(new_card)
        self._keep_options = self._box_options = None

    def on_restart(self, after: Game) -> None:
        """A legacy ``restart_turn``: the dice are thrown away, the turn starts over.

        The jump back to the turn's start value is counted as luck (a free re-roll),
        so the identity still holds.
        """
        card = after.card(self.seat)
        value = self._turn_start_value(card)
        self.luck += value - self.current
        self.current = value
        self._keep_options = self._box_options = None

    def _decide(
        self,
        kind: Literal["keep", "score"],
        before: Game,
        chosen: Choice,
        options: tuple[Choice, ...],
        hold: tuple[bool, ...] | None,
        proxy: str | None,
    ) -> None:
        state = before
        assert state.dice is not None
        card = state.current_card
        self.decisions.append(
            Decision(
                seat=self.seat,
                round=card.filled_count + 1,
                roll=3 - state.rolls_left,
                kind=kind,
                dice=state.dice.values,
                card=card,
                chosen=chosen,
                options=options,
                hold=hold,
                proxy=proxy,
            )
        )
        self.current = chosen.value

    def result(self, final: Scorecard) -> PlayerReview:
        """The finished side."""
        return PlayerReview(
            seat=self.seat,
            start_value=self.start_value,
            final_score=final.total,
            luck=self.luck,
            decisions=tuple(self.decisions),
            turn_values=tuple(self.turn_values),
            turn_cards=tuple(self.turn_cards),
            undos=self.undos,
        )


def review_events(events: Iterable[log.Event], table: ValueTable | None = None) -> GameReview:
    """Review a finished game from its event log (first event ``start``).

    Every event goes through :func:`yahtzee.log.apply` once (a stored log: legacy
    ``restart_turn`` events replay); each seat's side watches the positions before and
    after. Raises :class:`NotReviewableError` unless the log ends with the game over, and
    :class:`~yahtzee.errors.IllegalMoveError` for a log that does not replay.

    A box taken back (撤销: a ``score`` that an ``undo`` follows at once) is no decision:
    the position after the undo is the one before that score, so the review judges the
    box written instead, and counts the undo (:attr:`PlayerReview.undos`).
    """
    table = table or load_table()
    stream = list(events)  # (a log is bounded by the rules, F1)
    first = stream[0] if stream else None
    if not isinstance(first, log.Start):
        raise CorruptLogError("a game log must begin with a start event")
    state = first.game()
    sides = [_Side(seat, table) for seat in range(len(state.seats))]
    for i, event in enumerate(stream[1:], start=2):
        if type(event) is log.Abandon:
            raise NotReviewableError("the game was abandoned before its end")
        before = state
        state = log.apply(state, event, stored=True)
        if type(event) is log.Roll:
            sides[event.seat].before_roll(before, event.hold, event.proxy)
            sides[event.seat].after_roll(state)
        elif type(event) is log.Score:
            if i < len(stream) and type(stream[i]) is log.Undo:
                continue  # taken back at once: the box written instead is judged
            sides[event.seat].on_score(before, state, event.category, event.proxy)
        elif type(event) is log.Undo:
            sides[event.seat].undos += 1
        elif type(event) is log.RestartTurn:
            sides[before.turn].on_restart(state)
        # a hint spends a hint and changes nothing else here
    if not state.is_over:
        raise NotReviewableError("the game is still in progress: review it once it is over")
    results = tuple(side.result(state.card(side.seat)) for side in sides)
    people = [i for i, kind in enumerate(state.seats) if kind is SeatKind.HUMAN]
    computer = None
    if first.mode is not Mode.TABLE:
        computer = next(
            (r for r, kind in zip(results, state.seats, strict=True) if kind is SeatKind.COMPUTER),
            None,
        )
    models = tuple(s.difficulty or "expert" for s in first.seats)
    names = tuple(s.name for s in first.seats)
    return GameReview(
        first.mode,
        first.difficulty,
        results[people[0]],
        computer,
        results,
        state.seats,
        models,
        names,
    )
