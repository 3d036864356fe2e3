"""U18: the sentences the server writes — 练习's and 复盘's explanations (one source,
``review/explain.py``) and the command line's choices — put a space between a number and
Chinese text wherever they join them (「至少三个 2 的机会」, 「留 6、6 再掷」, 「二点 6 分」),
scanned over what they produce for a sample of the bank's positions and answers."""

from __future__ import annotations

import random
import re

from yahtzee import cli
from yahtzee.solver import ValueTable
from yahtzee.training.bank import load_bank
from yahtzee.training.explain import explain
from yahtzee.training.puzzle import Answer, grade

JOINED = re.compile(r"[0-9][\u4e00-\u9fff]|[\u4e00-\u9fff][0-9]")


def test_u18_explanations_never_run_a_number_into_chinese_text(table: ValueTable) -> None:
    rng = random.Random(18)
    sentences: list[str] = []
    for puzzle in rng.sample(load_bank(), 60):
        for option in grade(puzzle.position, puzzle.chosen, table).options[:4]:
            sentences += explain(grade(puzzle.position, Answer.of(option), table), table)
    # the sample reaches the sentences that used to join: a keep's chance of a face
    assert any(re.search(r"个 \d 的机会是", s) for s in sentences)
    assert any(re.search(r"留 [0-9、]+ ?(再掷|点数)", s) for s in sentences)
    assert [s for s in sentences if JOINED.search(s)] == []


def test_u18_the_command_lines_choices_space_their_points() -> None:
    text = cli._choice_text({"category": "twos", "points": 6})
    assert text == "二点 6 分"
    assert not JOINED.search(text)


# Placeholders that hold words (a name typed, a box, a mode), not figures.
WORD_VALUES = {"who", "what", "name", "where", "level", "kind"}


def test_u18_the_chinese_catalogs_space_their_figures() -> None:
    """Every sentence of the zh-Hans and zh-Hant catalogs, its figures filled in (a
    placeholder that holds a word gets a word): no figure runs into Chinese text."""
    from pathlib import Path

    from babel.messages.pofile import read_po

    locale = Path(cli.__file__).with_name("locale")
    joined: list[tuple[str, str]] = []
    said = 0
    for folder in ("zh_Hans", "zh_Hant"):
        with (locale / folder / "LC_MESSAGES" / "messages.po").open("rb") as po:
            catalog = read_po(po)
        for message in catalog:
            strings = message.string
            texts = [strings] if isinstance(strings, str) else list(strings or ())
            for text in texts:
                if not message.id or not text:
                    continue
                filled = re.sub(
                    r"\{(\w+)\}", lambda m: "甲" if m.group(1) in WORD_VALUES else "12", text
                )
                said += 1
                if JOINED.search(filled):
                    joined.append((f"{folder} {message.id}", filled))
    assert said > 200
    assert joined == []
