"""新手教程 (L10): the guided first game — its fixed dice and its steps.

**The game.** A tutorial is a real game of mode :attr:`~yahtzee.game.Mode.TUTORIAL` (one
person, the rules of a solo game), played through the ordinary actions and the one
:func:`yahtzee.log.apply`. It never counts for records, statistics or practice (the
storage leaves the mode out), and a new game replaces an unfinished tutorial without
asking (nothing of it is worth keeping).

**The dice** are injected like any fixed face sequence (:class:`~yahtzee.dice.RoundStreams`):
each round has a sequence of :data:`~yahtzee.dice.FACES_PER_ROUND` faces, a turn's
first roll takes the next five, each reroll the next ones for the dice not held, in die
order. The first faces of rounds 1 and 2 are written by hand (:data:`SCRIPTED`) so that
the steps can be written against them; every other face comes from a generator seeded
with ``"yahtzee-tutorial-v1:<round>"``, so the game can be played on to round 13 and is
the same for everyone. A player who does something else than a step asks simply takes
other faces of the same sequences (the page then says the tutorial is off its script).

**The steps** (:data:`STEPS`, served by ``GET /api/tutorial``) say in short sentences
(catalog keys, said in the reader's language) what to do, which elements of the table to
highlight (their ``data-testid``), and when the step is done, as a condition on what the
server answered (:class:`Until`); ``dice`` is what the table shows when the step begins.
The page only compares these with the game it holds: it does no rules maths.
``tests/unit/test_tutorial.py`` plays the steps through the rules and the expert: every
choice a step asks for is the expert's own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Final

from yahtzee.dice import FACES_PER_ROUND, ROUNDS, RoundStreams
from yahtzee.errors import IllegalMoveError
from yahtzee.i18n import DEFAULT, N_, Lang, text
from yahtzee.rules import Category

#: Seeds the faces not written by hand (change it and every tutorial game changes).
SEED: Final = "yahtzee-tutorial-v1"

#: The hand-written first faces of a round's sequence, by round.
SCRIPTED: Final[dict[int, tuple[int, ...]]] = {
    # 6 2 6 3 6; keep the 6s: 1 4 -> 6 1 6 4 6; keep them again: 6 5 -> 6 6 6 5 6 (六点 24).
    1: (6, 2, 6, 3, 6, 1, 4, 6, 5),
    # 2 3 4 5 5; the hint keeps 2 3 4 5: 6 -> 2 3 4 5 6 (大顺 40).
    2: (2, 3, 4, 5, 5, 6),
}


def round_faces(round_: int) -> tuple[int, ...]:
    """The :data:`FACES_PER_ROUND` faces of the tutorial's round ``round_`` (1..13)."""
    if not 1 <= round_ <= ROUNDS:
        raise IllegalMoveError(f"a game has rounds 1..{ROUNDS}, not {round_}")
    head = SCRIPTED.get(round_, ())
    rng = random.Random(f"{SEED}:{round_}")  # a generator of its own: no shared state
    tail = tuple(rng.randint(1, 6) for _ in range(FACES_PER_ROUND - len(head)))
    return head + tail


class TutorialStream(RoundStreams):
    """The tutorial's dice: the same for everyone, every time."""

    def __init__(self) -> None:
        super().__init__(tuple(round_faces(r) for r in range(1, ROUNDS + 1)))


# -- the steps --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Until:
    """When a step is done; exactly one field is set.

    * ``next``: the player pressed 「下一步」 (a step that only explains);
    * ``round`` and ``rolls_left``: the game reached that roll (a later round, or this round
      with at most ``rolls_left`` rolls left);
    * ``hints_left``: at most that many hints are left (a hint was asked);
    * ``box``: that box of the card is written;
    * ``hold``: the dice the player has picked to keep are exactly these (page state, sent
      with the next roll);
    * ``declined``: the player was asked to confirm a 0 in that box and said 「再想想」;
    * ``done``: the last step (the page offers what comes next).
    """

    next: bool = False
    round: int | None = None
    rolls_left: int | None = None
    hints_left: int | None = None
    box: Category | None = None
    hold: tuple[bool, bool, bool, bool, bool] | None = None
    declined: Category | None = None
    done: bool = False

    def __post_init__(self) -> None:
        kinds = [
            self.next,
            self.round is not None,
            self.hints_left is not None,
            self.box is not None,
            self.hold is not None,
            self.declined is not None,
            self.done,
        ]
        if sum(kinds) != 1 or (self.round is None) != (self.rolls_left is None):
            raise ValueError(f"a step ends in exactly one way, got {self!r}")

    def to_json(self) -> dict[str, Any]:
        """The condition as ``docs/api.md`` shows it (one key, two for a roll)."""
        if self.round is not None:
            return {"round": self.round, "rolls_left": self.rolls_left}
        if self.hints_left is not None:
            return {"hints_left": self.hints_left}
        if self.box is not None:
            return {"box": self.box.value}
        if self.hold is not None:
            return {"hold": list(self.hold)}
        if self.declined is not None:
            return {"declined": self.declined.value}
        return {"done": True} if self.done else {"next": True}


@dataclass(frozen=True, slots=True)
class Step:
    """One step: its ``text`` (what to do, for a child: a catalog key, said in the
    reader's language), the ``target`` elements to highlight (``data-testid`` of the
    table, the first is brought into view), when it is done, and the ``dice`` on the table
    as it begins (``None``: no dice yet this turn)."""

    id: str
    text: str
    target: tuple[str, ...]
    until: Until
    dice: tuple[int, ...] | None = None

    def to_json(self, lang: Lang = DEFAULT) -> dict[str, Any]:
        """``{"id", "text", "target": [...], "until": {...}, "dice"}``, in ``lang``."""
        return {
            "id": self.id,
            "text": text(lang, self.text),
            "target": list(self.target),
            "until": self.until.to_json(),
            "dice": list(self.dice) if self.dice is not None else None,
        }


def _cell(category: Category) -> str:
    return f"cell-0-{category.value}"


_Y, _N = True, False

STEPS: Final[tuple[Step, ...]] = (
    Step(
        "roll",
        N_("server.tutorial.roll"),
        ("roll",),
        Until(round=1, rolls_left=2),
    ),
    Step(
        "hold",
        N_("server.tutorial.hold"),
        ("die-0", "die-2", "die-4"),
        Until(hold=(_Y, _N, _Y, _N, _Y)),
        (6, 2, 6, 3, 6),
    ),
    Step(
        "reroll",
        N_("server.tutorial.reroll"),
        ("roll",),
        Until(round=1, rolls_left=0),
        (6, 2, 6, 3, 6),
    ),
    Step(
        "preview",
        N_("server.tutorial.preview"),
        (_cell(Category.SIXES),),
        Until(box=Category.SIXES),
        (6, 6, 6, 5, 6),
    ),
    Step(
        "upper-bonus",
        N_("server.tutorial.upper_bonus"),
        ("upper-progress-0",),
        Until(next=True),
    ),
    Step(
        "roll-2",
        N_("server.tutorial.roll_2"),
        ("roll",),
        Until(round=2, rolls_left=2),
    ),
    Step(
        "hint",
        N_("server.tutorial.hint"),
        ("hint",),
        Until(hints_left=2),
        (2, 3, 4, 5, 5),
    ),
    Step(
        "follow-hint",
        N_("server.tutorial.follow_hint"),
        ("roll",),
        Until(round=2, rolls_left=1),
        (2, 3, 4, 5, 5),
    ),
    Step(
        "zero",
        N_("server.tutorial.zero"),
        (_cell(Category.YAHTZEE), "confirm-no"),
        Until(declined=Category.YAHTZEE),
        (2, 3, 4, 5, 6),
    ),
    Step(
        "score",
        N_("server.tutorial.score"),
        (_cell(Category.LARGE_STRAIGHT),),
        Until(box=Category.LARGE_STRAIGHT),
        (2, 3, 4, 5, 6),
    ),
    Step(
        "done",
        N_("server.tutorial.done"),
        (),
        Until(done=True),
    ),
)


def steps_json(lang: Lang = DEFAULT) -> dict[str, Any]:
    """``GET /api/tutorial``: ``{"steps": [...]}``, in ``lang``."""
    return {"steps": [s.to_json(lang) for s in STEPS]}
