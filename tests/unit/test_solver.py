"""The optimal solver (issue 2 §2): start value, endgames by brute force, the turn kernel
against the rules engine, obvious decisions, advice JSON, cache keying, simulation."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import combinations_with_replacement, product
from pathlib import Path

import numpy as np
import pytest

from yahtzee.players.expert import ExpertPlayer
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, possible_points, score_options
from yahtzee.simulation import simulate_expert
from yahtzee.solver import (
    CategoryOption,
    KeepOption,
    StopOption,
    TableMissingError,
    ValueTable,
    advise,
    best_category,
    best_keep,
    load_table,
    state_of,
    table_path,
    tables,
)
from yahtzee.solver import cache as solver_cache
from yahtzee.solver.kernel import category_values, single_state_e0, turn_start_e0
from yahtzee.turn import Position, Score

PUBLISHED_START = 254.58773
ROLLS: list[tuple[int, ...]] = list(combinations_with_replacement(range(1, 7), 5))

C = Category


def card_of(**scores: int) -> Scorecard:
    """A card with the named boxes filled, e.g. ``card_of(ones=3, yahtzee=50)``."""
    return Scorecard.from_scores({Category(k): v for k, v in scores.items()})


def all_but(
    *open_boxes: Category, upper: tuple[int, ...] = (1, 2, 3, 4, 5, 6), **given: int
) -> Scorecard:
    """Every box filled except ``open_boxes``; defaults: one die's worth in each upper box,
    zeros below (``given`` overrides)."""
    scores: dict[Category, int] = {}
    for c in CATEGORIES:
        if c in open_boxes:
            continue
        scores[c] = upper[c.index] if c.is_upper else (5 if c is C.CHANCE else 0)
    for k, v in given.items():
        scores[Category(k)] = v
    return Scorecard.from_scores(scores)


# -- an independent brute force: ordered dice, every hold, every outcome ---------------------


def brute_turn(stop: Callable[[tuple[int, ...]], float]) -> float:
    """Expected value of one turn (three rolls) when stopping with roll ``d`` is worth
    ``stop(d)``: enumerates every hold of five positioned dice and every ordered outcome of
    the rerolled dice. Shares no code with the solver."""
    faces = range(1, 7)
    value: dict[tuple[int, ...], float] = {d: stop(d) for d in ROLLS}
    for _ in range(2):  # two rerolls
        keep_value: dict[tuple[int, ...], float] = {}
        for n in range(6):
            for keep in combinations_with_replacement(faces, n):
                outcomes = list(product(faces, repeat=5 - n))
                total = sum(value[tuple(sorted(keep + o))] for o in outcomes)
                keep_value[keep] = total / len(outcomes)
        value = {
            d: max(
                keep_value[tuple(sorted(d[i] for i in range(5) if bits >> i & 1))]
                for bits in range(32)
            )
            for d in ROLLS
        }
    first = [value[tuple(sorted(r))] for r in product(faces, repeat=5)]
    return sum(first) / len(first)


_BRUTE_MEMO: dict[tuple[int, int, int], float] = {}


def _brute_by_state(card: Scorecard) -> float:
    key = state_of(card)  # the value depends on the state only, not on the points
    if key not in _BRUTE_MEMO:
        _BRUTE_MEMO[key] = brute_value(card)
    return _BRUTE_MEMO[key]


def brute_value(card: Scorecard) -> float:
    """Expected points still to come on ``card`` (few open boxes), from the rules engine
    alone: the best legal box's gain plus the brute-forced value of the card after it."""
    if card.is_complete:
        return 0.0

    def stop(d: tuple[int, ...]) -> float:
        dice = Dice.of(d)
        best = -math.inf
        for category, option in score_options(card, dice).items():
            if option.legal:
                after = card.score(category, dice)
                best = max(best, option.gain + _brute_by_state(after))
        return best

    return brute_turn(stop)


def test_start_value_matches_published(table: ValueTable) -> None:
    assert abs(table.start_value - PUBLISHED_START) < 0.001


def test_brute_force_reference_itself_is_sane() -> None:
    # Best-of-three-rolls chance is 23.33 (keep 5s and 6s, then 4s+): a check on the checker.
    assert brute_turn(lambda d: float(sum(d))) == pytest.approx(23.3343, abs=1e-3)


@pytest.mark.parametrize(
    "card",
    [
        pytest.param(all_but(C.CHANCE), id="only-chance"),
        pytest.param(all_but(C.YAHTZEE), id="only-yahtzee"),
        pytest.param(all_but(C.CHANCE, yahtzee=50), id="r5-only-chance-bonus-joker"),
        pytest.param(all_but(C.SIXES, upper=(0, 0, 0, 20, 25, 0)), id="r4-sixes-need-three"),
        pytest.param(
            all_but(C.THREES, upper=(0, 2, 0, 8, 20, 30), yahtzee=50), id="r6-joker-upper-zero"
        ),
        pytest.param(all_but(C.CHANCE, C.YAHTZEE), id="two-boxes-chance-yahtzee"),
        pytest.param(
            all_but(C.FOURS, C.FULL_HOUSE, upper=(3, 6, 9, 0, 15, 24)), id="two-boxes-bonus"
        ),
    ],
)
def test_endgame_values_match_brute_force(table: ValueTable, card: Scorecard) -> None:
    expected = brute_value(card)
    assert table.value(card) == pytest.approx(expected, abs=1e-3)
    assert advise(card, None, 2, table).state_value == pytest.approx(expected, abs=1e-3)


def test_last_turn_known_values(table: ValueTable) -> None:
    assert table.value(all_but(C.CHANCE)) == pytest.approx(23.33, abs=0.01)
    # 50 x P(Yahtzee within three rolls, always chasing it) = 50 x 0.04603.
    assert table.value(all_but(C.YAHTZEE)) == pytest.approx(2.30, abs=0.01)


# -- the turn kernel against the rules engine ---------------------------------------------


def _varied_cards(rng: random.Random, n: int) -> list[Scorecard]:
    cards = [
        Scorecard(),
        card_of(yahtzee=50),
        card_of(yahtzee=0),
        card_of(yahtzee=50, sixes=18, fives=15),
        all_but(C.ONES, C.TWOS, C.SIXES, yahtzee=50),  # Joker: all lower filled
        all_but(C.THREES, C.CHANCE, C.FULL_HOUSE, upper=(3, 6, 0, 16, 20, 18), yahtzee=50),
        all_but(C.LARGE_STRAIGHT, C.SMALL_STRAIGHT, C.FOURS, upper=(1, 2, 3, 0, 5, 6), yahtzee=0),
    ]
    while len(cards) < n:
        boxes: list[int | None] = [None] * 13
        for c in CATEGORIES:
            if rng.random() < 0.5:
                boxes[c.index] = rng.choice(sorted(possible_points(c)))
        card = Scorecard(tuple(boxes))
        if not card.is_complete:
            cards.append(card)
    return cards


def test_turn_kernel_matches_score_options(table: ValueTable) -> None:
    """E0 of the batch kernel, the single-state kernel and the per-position category
    values all agree with rules.score_options + Scorecard.score + the table."""
    cards = _varied_cards(random.Random(5), 12)
    states = np.array([state_of(c) for c in cards], dtype=np.intp)
    e0, shift = turn_start_e0(table.flat, states[:, 0], states[:, 1], states[:, 2])
    batch = e0.astype(np.float64) + shift[None, :]
    for i, card in enumerate(cards):
        mask, up, flag = state_of(card)
        single = single_state_e0(table.flat, mask, up, flag)
        n = len(ROLLS)
        values, points = category_values(
            table.flat,
            np.full(n, mask, dtype=np.intp),
            np.full(n, up, dtype=np.intp),
            np.full(n, flag, dtype=np.intp),
            np.array([tables.dice_index(d) for d in ROLLS], dtype=np.intp),
        )
        for j, d in enumerate(ROLLS):
            dice = Dice.of(d)
            row = tables.dice_index(d)
            reference = -math.inf
            for c in CATEGORIES:
                option = score_options(card, dice).get(c)
                if option is None or not option.legal:
                    assert values[c.index, j] == -math.inf, (str(card), d, c)
                    continue
                value = option.gain + table.value(card.score(c, dice))
                assert values[c.index, j] == pytest.approx(value, abs=1e-4), (str(card), d, c)
                assert points[c.index, j] == option.points
                reference = max(reference, value)
            assert single[row] == pytest.approx(reference, abs=1e-4), (str(card), d)
            assert batch[row, i] == pytest.approx(reference, abs=1e-3), (str(card), d)


def test_index_tables_are_consistent() -> None:
    assert tables.LEVEL_SIZES == (1, 6, 21, 56, 126, 252)
    assert tables.N_KEEPS == 462
    assert math.isclose(float(tables.PROB5.sum()), 1.0)
    for n in range(5):
        for i, keep in enumerate(tables.LEVELS[n]):
            for f in range(1, 7):
                bigger = tables.LEVELS[n + 1][tables.EXPAND[n][i, f - 1]]
                assert sorted((*keep, f)) == list(bigger)
    for d, roll in enumerate(tables.LEVELS[5]):
        subs = {tables.KEEP_FACES[k] for k in tables.SUB_KEEPS[d]}
        expected = {tuple(sorted(roll[i] for i in range(5) if bits >> i & 1)) for bits in range(32)}
        assert subs == expected


# -- decisions ----------------------------------------------------------------------------


def test_yahtzee_is_scored_as_yahtzee(table: ValueTable) -> None:
    dice = Dice.parse("66666")
    assert best_keep(Scorecard(), dice, 2, table) == (6, 6, 6, 6, 6)
    assert best_category(Scorecard(), dice, table) is C.YAHTZEE
    assert ExpertPlayer(table).decide(Position(Scorecard(), dice, 2)) == Score(C.YAHTZEE)
    advice = advise(Scorecard(), dice, 0, table)
    assert isinstance(advice.best, CategoryOption)
    assert advice.best.category is C.YAHTZEE
    assert advice.best.points == 50


def test_four_straight_is_kept_for_the_straights(table: ValueTable) -> None:
    # New card, both straights open, two rolls left: 1234 + junk keeps the 1234.
    assert best_keep(Scorecard(), Dice.parse("12346"), 2, table) == (1, 2, 3, 4)
    assert best_keep(Scorecard(), Dice.parse("61432"), 2, table) == (1, 2, 3, 4)
    # A large straight on a new card: stop and score it there.
    assert best_keep(Scorecard(), Dice.parse("23451"), 2, table) == (1, 2, 3, 4, 5)
    assert best_category(Scorecard(), Dice.parse("23451"), table) is C.LARGE_STRAIGHT


def test_r6_joker_forces_the_matching_upper_box(table: ValueTable) -> None:
    advice = advise(card_of(yahtzee=50), Dice.parse("44444"), 0, table)
    assert [o.category for o in advice.options if isinstance(o, CategoryOption)] == [C.FOURS]
    # Matching box filled: a lower box, worth the full points plus the +100 bonus.
    advice = advise(card_of(yahtzee=50, fours=8), Dice.parse("44444"), 0, table)
    cats = {o.category for o in advice.options if isinstance(o, CategoryOption)}
    assert cats == {
        C.THREE_OF_A_KIND,
        C.FOUR_OF_A_KIND,
        C.FULL_HOUSE,
        C.SMALL_STRAIGHT,
        C.LARGE_STRAIGHT,
        C.CHANCE,
    }
    large = next(
        o
        for o in advice.options
        if isinstance(o, CategoryOption) and o.category is C.LARGE_STRAIGHT
    )
    assert large.points == 40


def test_option_values_are_consistent(table: ValueTable) -> None:
    """Stopping with one or two rolls left is worth exactly the best box now (issue 12);
    the best option with rolls left is never worth less than stopping."""
    card = card_of(ones=2, chance=20)
    for d in ("13356", "22222", "12345", "66611"):
        dice = Dice.parse(d)
        stop = advise(card, dice, 0, table).state_value
        keeps = advise(card, dice, 1, table)
        for rolls_left in (1, 2):
            options = advise(card, dice, rolls_left, table).options
            full = next(o for o in options if isinstance(o, StopOption))
            assert full.value == stop
        assert keeps.state_value >= stop - 1e-9
        assert advise(card, dice, 2, table).state_value >= keeps.state_value - 1e-9


def test_advice_json_shape(table: ValueTable) -> None:
    card = card_of(ones=3, twos=6, yahtzee=50)
    data = advise(card, Dice.parse("13356"), 2, table).to_json()
    assert set(data) == {"state_value", "options", "best"}
    values = [o["value"] for o in data["options"]]
    assert values == sorted(values, reverse=True)
    assert data["best"] == data["options"][0]
    assert data["state_value"] == data["best"]["value"]
    keeps = [o for o in data["options"] if "keep" in o]
    for option in keeps:
        assert set(option) == {"keep", "value"}
        assert option["keep"] == sorted(option["keep"])
        assert len(option["keep"]) < 5
    assert len({tuple(o["keep"]) for o in keeps}) == len(keeps)
    assert [3, 3, 5] in [o["keep"] for o in keeps]
    (stop,) = [o for o in data["options"] if "keep" not in o]  # stop and score, with its box
    now = advise(card, Dice.parse("13356"), 0, table).to_json()["best"]
    assert now["category"] == "threes"
    assert stop == {"stop": True, **now}

    data = advise(card, Dice.parse("13356"), 0, table).to_json()
    for option in data["options"]:
        assert set(option) == {"category", "points", "value"}
        assert Category(option["category"]) in card.open_categories
    assert {o["category"] for o in data["options"]} == {c.value for c in card.open_categories}

    data = advise(card, None, 2, table).to_json()
    assert data == {"state_value": table.value(card), "options": [], "best": None}


def test_advise_rejects_full_card_and_bad_rolls(table: ValueTable) -> None:
    full = all_but()
    with pytest.raises(ValueError, match="full"):
        advise(full, Dice.parse("12345"), 0, table)
    with pytest.raises(ValueError, match="rolls left"):
        advise(Scorecard(), Dice.parse("12345"), 3, table)


# -- the cache ----------------------------------------------------------------------------


def test_table_size_and_loading_is_shared(table: ValueTable) -> None:
    assert table.values.nbytes <= 16 * 2**20
    assert table.path is not None
    assert table.path.stat().st_size <= 16 * 2**20
    assert load_table() is load_table()


def test_cache_is_keyed_by_rules_version(
    table: ValueTable, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    assert table.path is not None
    # A table saved under this rules version is found...
    (tmp_path / table_path().name).write_bytes(table.path.read_bytes())
    loaded = load_table(build_if_missing=False)
    assert loaded.start_value == table.start_value
    # ...but not after the rules version changes.
    monkeypatch.setattr(solver_cache, "RULES_VERSION", solver_cache.RULES_VERSION + "-changed")
    assert table_path().name != table.path.name
    with pytest.raises(TableMissingError):
        load_table(build_if_missing=False)


def test_rules_version_follows_the_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    before = tables.rules_fingerprint()
    assert before in solver_cache.RULES_VERSION
    changed = tables.BASE_SCORE.copy()
    changed[Category.FULL_HOUSE.index][changed[Category.FULL_HOUSE.index] > 0] = 35
    monkeypatch.setattr(tables, "BASE_SCORE", changed)
    assert tables.rules_fingerprint() != before


# -- simulation ---------------------------------------------------------------------------


def test_expert_simulation_mean_matches_solver(table: ValueTable) -> None:
    result = simulate_expert(4000, seed=11, table=table)
    summary = result.summary()
    standard_error = summary["sd"] / math.sqrt(summary["games"])
    assert abs(summary["mean"] - table.start_value) < 3 * standard_error
    assert 0.6 < summary["upper_bonus_rate"] < 0.76  # published ~68%
    assert 0.28 < summary["yahtzee_rate"] < 0.40  # published ~34%


def test_expert_simulation_is_reproducible(table: ValueTable) -> None:
    a = simulate_expert(5000, seed=3, table=table, workers=2)
    b = simulate_expert(5000, seed=3, table=table, workers=1)
    assert np.array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, simulate_expert(300, seed=4, table=table).scores)


def test_advice_is_thread_safe(table: ValueTable) -> None:
    """The server asks from several threads at once; the shared per-state cache must
    give every thread the same answers as a single thread."""
    from concurrent.futures import ThreadPoolExecutor

    from yahtzee.solver import advice as advice_module

    rng = random.Random(31)
    positions = []
    for card in _varied_cards(rng, 40):
        dice = Dice.of(rng.randint(1, 6) for _ in range(5))
        positions.append((card, dice, 2 - rng.randint(0, 1)))

    def answer(i: int) -> list[tuple[tuple[int, ...], float]]:
        card, dice, rolls_left = positions[i % len(positions)]
        options = advise(card, dice, rolls_left, table).options
        return [(o.keep, o.value) for o in options if isinstance(o, KeepOption)]

    advice_module._cache.clear()
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(answer, range(4 * len(positions))))
    advice_module._cache.clear()
    serial = [answer(i) for i in range(4 * len(positions))]
    assert parallel == serial


def test_fast_best_category_agrees_with_the_rules_engine(table: ValueTable) -> None:
    """best_category (plain Python) vs category_options (rules.score_options)."""
    from yahtzee.solver.advice import category_options

    for card in _varied_cards(random.Random(41), 16):
        for d in ROLLS:
            dice = Dice.of(d)
            ranked = category_options(card, dice, table)
            chosen = best_category(card, dice, table)
            value = next(o.value for o in ranked if o.category is chosen)
            assert value == pytest.approx(ranked[0].value, abs=1e-9), (str(card), d)


def test_hopeless_upper_subtotals_share_a_value(table: ValueTable) -> None:
    """Subtotals from which 63 is out of reach all have the same value; reachable ones
    are worth more (the bonus is still possible)."""
    low = all_but(C.SIXES, C.CHANCE, upper=(1, 2, 3, 4, 5, 0))  # 15: hopeless (15 + 30 < 63)
    zero = all_but(C.SIXES, C.CHANCE, upper=(0, 0, 0, 0, 0, 0))
    high = all_but(C.SIXES, C.CHANCE, upper=(3, 6, 9, 12, 15, 0))  # 45: three 6s reach 63
    assert table.value(low) == pytest.approx(table.value(zero), abs=1e-4)
    assert table.value(high) > table.value(zero) + 5
    assert table.value(high) == pytest.approx(brute_value(high), abs=1e-3)


def test_a_damaged_cache_file_is_rebuilt(
    table: ValueTable, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    table_path().write_bytes(b"\x93NUMPY truncated")
    rebuilt = load_table()
    assert rebuilt.start_value == pytest.approx(table.start_value, abs=1e-4)
    assert load_table(build_if_missing=False) is rebuilt
