"""U18: the sentences the server writes — 练习's and 复盘's explanations (one source,
``review/explain.py``) and the command line's choices — put a space between a number and
Chinese text wherever they join them (「至少三个 2 的机会」, 「留 6、6 再掷」, 「二点 6 分」),
scanned over what they produce for a sample of the bank's positions and answers."""

from __future__ import annotations

import random
import re

from yahtzee import cli
from yahtzee.i18n import Lang, chunk_of, placeholders
from yahtzee.i18n.catalog import SERVER_CHUNKS, fill
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
            said = explain(grade(puzzle.position, Answer.of(option), table), table)
            sentences += [m.render(lang) for m in said for lang in (Lang.ZH_HANS, Lang.ZH_HANT)]
    # the sample reaches the sentences that used to join: a keep's chance of a face
    assert any(re.search(r"个 \d 的机会是", s) for s in sentences)
    assert any(re.search(r"留 [0-9、]+ ?(再掷|点数)", s) for s in sentences)
    assert [s for s in sentences if JOINED.search(s)] == []


def test_u18_the_command_lines_choices_space_their_points() -> None:
    text = cli._choice_text(Lang.ZH_HANS, {"category": "twos", "points": 6})
    assert text == "二点 6 分"
    assert not JOINED.search(text)
    assert cli._choice_text(Lang.ZH_HANT, {"category": "twos", "points": 6}) == "二點 6 分"


# Placeholders that hold words (a name typed, a box, a mode, a phrase or sentence said by
# another key or the server, a date as the language writes it: 「5月3日」), not figures.
WORD_VALUES = {
    *("who", "what", "name", "where", "level", "kind"),
    *("yours", "share", "date", "message", "why"),
}
# A seat's default name is one word with its number (U13): 「电脑3（普通）」, 「玩家1」.
NAMES = {"table.seats.player", "core.computer_number_level"}


def test_u18_the_chinese_catalogs_space_their_figures() -> None:
    """Every sentence of the zh-Hans and zh-Hant catalogs, its figures filled in (a
    placeholder that holds a word gets a word): no figure runs into Chinese text. The
    server's own sentences (chunks ``error``, ``server``, ``cli``) are filled as the
    server fills them (:func:`yahtzee.i18n.catalog.fill` spaces a figure that a value
    puts next to a character: a value may be a figure or a word, 「留 6、6」 or
    「全部重掷」); the page's as the page fills them (as they are)."""
    from pathlib import Path

    from babel.messages.pofile import read_po

    locale = Path(cli.__file__).with_name("locale")
    joined: list[tuple[str, str]] = []
    said = 0
    for folder in ("zh_Hans", "zh_Hant"):
        with (locale / folder / "LC_MESSAGES" / "messages.po").open("rb") as po:
            catalog = read_po(po)
        lang = Lang.parse(folder)
        for message in catalog:
            strings = message.string
            texts = [strings] if isinstance(strings, str) else list(strings or ())
            for text in texts:
                if not message.id or not text:
                    continue
                key = str(message.id[0] if isinstance(message.id, tuple) else message.id)
                if key in NAMES:
                    continue
                values = {
                    name: "甲" if name in WORD_VALUES else "12" for name in placeholders(text)
                }
                if chunk_of(key) in SERVER_CHUNKS:
                    filled = fill(text, values, lang)
                else:
                    filled = text
                    for name, value in values.items():
                        filled = filled.replace("{" + name + "}", value)
                said += 1
                if JOINED.search(filled):
                    joined.append((f"{folder} {message.id}", filled))
    assert said > 200
    assert joined == []
