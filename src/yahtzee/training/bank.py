"""The puzzle bank (L8): positions where a real player goes wrong.

The bank is made by ``scripts/make_puzzle_bank.py`` (see docs/requirements.md L8 for the
command): whole solo games of 入门 and 普通 are played (:func:`yahtzee.review.selfplay.play_log`),
reviewed by the expert, and every decision where the level lost at least
:data:`MIN_LOSS` point becomes a puzzle, tagged with its themes. It ships as
``training/bank.tsv.xz`` (package data, read once per process).

One line per puzzle, tab-separated: the position (:meth:`PuzzlePosition.parse`), the theme ids
(comma-separated), the level, the level's answer (``keep:66``, ``keep:`` for a reroll of
all five, ``keep:stop``, ``box:chance``) and its loss (4 decimals).
"""

from __future__ import annotations

import hashlib
import lzma
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources

from yahtzee.dice import SeededDice
from yahtzee.errors import InvalidPuzzleError
from yahtzee.players import Difficulty, get_player
from yahtzee.review.analysis import STOP, Decision, review_events
from yahtzee.review.selfplay import play_log
from yahtzee.rules import Category, Dice
from yahtzee.solver import load_table
from yahtzee.training.puzzle import Answer, PuzzlePosition
from yahtzee.training.themes import THEMES, themes_of

MIN_LOSS = 1.0
"""A decision that lost at least this much (失误, 大错) becomes a puzzle (L7, L8)."""
BANK_FILE = "bank.tsv.xz"
BANK_LEVELS = (Difficulty.NOVICE, Difficulty.INTERMEDIATE)


def answer_text(answer: Answer) -> str:
    """``keep:66``, ``keep:stop``, ``keep:`` or ``box:chance`` (read back by
    :func:`parse_answer_text`)."""
    if answer.category is not None:
        return f"box:{answer.category.value}"
    if answer.keep == STOP:
        return "keep:stop"
    assert isinstance(answer.keep, tuple)
    return "keep:" + "".join(str(f) for f in answer.keep)


def parse_answer_text(text: str) -> Answer:
    """The inverse of :func:`answer_text`."""
    kind, _, rest = text.partition(":")
    if kind == "box":
        try:
            return Answer(category=Category(rest))
        except ValueError:
            raise InvalidPuzzleError(f"unknown box in {text!r}") from None
    if kind == "keep" and rest == "stop":
        return Answer(keep=STOP)
    if kind == "keep" and len(rest) <= 4 and all(ch in "123456" for ch in rest):
        return Answer(keep=tuple(sorted(int(ch) for ch in rest)))
    raise InvalidPuzzleError(f"an answer is keep:<faces>, keep:stop or box:<id>, got {text!r}")


@dataclass(frozen=True)
class BankPuzzle:
    """One puzzle of the bank: where ``level`` lost ``loss`` points by answering ``chosen``."""

    position: PuzzlePosition
    themes: tuple[str, ...]
    level: str
    chosen: Answer
    loss: float

    @cached_property
    def key(self) -> str:
        """A stable id: ``bank:`` and 12 hex digits of the position's hash."""
        return "bank:" + hashlib.sha256(str(self.position).encode()).hexdigest()[:12]

    def __str__(self) -> str:
        return "\t".join(
            (
                str(self.position),
                ",".join(self.themes),
                self.level,
                answer_text(self.chosen),
                f"{self.loss:.4f}",
            )
        )

    @classmethod
    def parse(cls, line: str) -> BankPuzzle:
        """The inverse of ``str()``."""
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 5:
            raise InvalidPuzzleError(f"a bank line has 5 fields, got {line[:80]!r}")
        position, themes, level, chosen, loss = parts
        tags = tuple(t for t in themes.split(",") if t)
        unknown = [t for t in tags if t not in THEMES]
        if unknown:
            raise InvalidPuzzleError(f"unknown themes {unknown} in {line[:80]!r}")
        return cls(
            PuzzlePosition.parse(position), tags, level, parse_answer_text(chosen), float(loss)
        )


def decision_position(decisions: Sequence[Decision], i: int) -> PuzzlePosition:
    """The puzzle position of decision ``i`` of one side of a review: its card and dice,
    and the faces held into this roll (the previous keep of the same turn)."""
    d = decisions[i]
    held: tuple[int, ...] = ()
    if d.roll > 1:
        for prev in reversed(decisions[:i]):
            if prev.round != d.round:
                break
            if prev.kind == "keep" and prev.roll == d.roll - 1:
                if isinstance(prev.chosen.keep, tuple):
                    held = prev.chosen.keep
                break
    return PuzzlePosition(d.card, Dice.of(d.dice), 3 - d.roll if d.kind == "keep" else 0, held)


def mistakes(
    decisions: Sequence[Decision], min_loss: float = MIN_LOSS
) -> Iterator[tuple[int, PuzzlePosition, Decision]]:
    """The decisions that lost at least ``min_loss``: (index, position, decision)."""
    for i, d in enumerate(decisions):
        if d.loss >= min_loss:
            yield i, decision_position(decisions, i), d


def generate(
    games: int, seed: int, *, levels: Iterable[Difficulty] = BANK_LEVELS
) -> list[BankPuzzle]:
    """Play ``games`` solo games per level (seeded) and keep every decision that lost at
    least :data:`MIN_LOSS`, once per position (the first level to meet it keeps it)."""
    table = load_table()
    seen: set[str] = set()
    out: list[BankPuzzle] = []
    for level in levels:
        rng = random.Random(f"{seed}:{level.value}:choices")
        player = get_player(level, rng=rng)
        dice = SeededDice(f"{seed}:{level.value}:dice")
        for _ in range(games):
            log, _final = play_log(player, dice)
            decisions = review_events(log, table).human.decisions
            for _i, position, d in mistakes(decisions):
                text = str(position)
                if text in seen:
                    continue
                seen.add(text)
                tags = themes_of(position, d.best, d.chosen)
                out.append(
                    BankPuzzle(position, tags, level.value, Answer.of(d.chosen), round(d.loss, 4))
                )
    return out


def write_bank(puzzles: Iterable[BankPuzzle], path: str) -> None:
    """Write the bank, xz-compressed, one puzzle a line."""
    text = "".join(f"{p}\n" for p in puzzles)
    with lzma.open(path, "wt", encoding="utf-8", preset=9) as f:
        f.write(text)


@dataclass(frozen=True, slots=True)
class BankLine:
    """One line of the bank, read but not parsed: its key and themes are all that choosing
    a puzzle needs (parsing all 4,700 positions would cost about a second per process)."""

    key: str
    themes: tuple[str, ...]
    text: str

    @classmethod
    def of(cls, line: str) -> BankLine:
        """The key (the position's hash, as :attr:`BankPuzzle.key`) and themes of a line."""
        position, themes, _rest = line.split("\t", 2)
        key = "bank:" + hashlib.sha256(position.encode()).hexdigest()[:12]
        return cls(key, tuple(t for t in themes.split(",") if t), line)

    def puzzle(self) -> BankPuzzle:
        """The parsed puzzle."""
        return BankPuzzle.parse(self.text)


@cache
def bank_lines() -> tuple[BankLine, ...]:
    """The shipped bank's lines (read once per process)."""
    data = resources.files("yahtzee.training").joinpath(BANK_FILE).read_bytes()
    lines = lzma.decompress(data).decode("utf-8").splitlines()
    return tuple(BankLine.of(line) for line in lines if line)


def load_bank() -> tuple[BankPuzzle, ...]:
    """The shipped bank, every puzzle parsed (the tests and the script)."""
    return tuple(line.puzzle() for line in bank_lines())
