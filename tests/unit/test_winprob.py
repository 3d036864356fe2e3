"""Win probability (L4): exact turn outcomes per level, the exact late game, the timeline."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from yahtzee import log as events_log
from yahtzee.dice import SeededDice
from yahtzee.game import Game, Mode
from yahtzee.players import get_player
from yahtzee.review import review_events
from yahtzee.review.moments import MIN_TURNS_LEFT, _read, combos, moments
from yahtzee.review.selfplay import play_log
from yahtzee.review.turns import (
    STOP_SLOT,
    SUBS,
    ExpertModel,
    IntermediateModel,
    Model,
    NoviceModel,
    _Writes,
    canonical,
    flat_index,
    model_for,
    state_at,
    turn_outcomes,
)
from yahtzee.review.winprob import (
    EXACT_TURNS,
    Side,
    compare,
    remaining_distribution,
    side,
    timeline,
    win_probability,
)
from yahtzee.rules import Category, Dice, Scorecard
from yahtzee.solver import ValueTable, state_of
from yahtzee.solver.cache import RULES_VERSION
from yahtzee.solver.tables import KEEP_FACES, LEVELS
from yahtzee.turn import Keep, Position, Score

F64 = npt.NDArray[np.float64]


def _cards(level: str, seed: int) -> list[Scorecard]:
    """The card at the start of each of the 13 turns of a solo game played by ``level``."""
    log, _ = play_log(get_player(level, random.Random(seed)), SeededDice(seed))
    cards = []
    state = Game.new(Mode.SOLO)
    for e in log[1:]:
        if isinstance(e, events_log.Score):
            cards.append(state.current_card)
        state = events_log.apply(state, e)
    return cards


@pytest.mark.parametrize(
    ("model", "level"),
    [(NoviceModel(), "novice"), (IntermediateModel(), "intermediate"), (None, "expert")],
)
def test_l4_turn_models_mirror_the_players(model: object, level: str, table: ValueTable) -> None:
    """Each level's vectorised policy gives the player's decision (deterministic levels)
    or puts weight on it (the intermediate's random choice), roll by roll."""
    m = model if model is not None else ExpertModel(table)
    player = get_player(level, random.Random(1))
    rng = random.Random(5)
    checked = 0
    for card in _cards("intermediate", 2)[::3]:
        state = canonical(state_of(card))
        box, keeps = m.policy(state, _Writes(state))  # type: ignore[attr-defined]
        for d in rng.sample(range(252), 25):
            dice = Dice.of(LEVELS[5][d])
            for rolls_left in (2, 1, 0):
                decision = player.decide(Position(card, dice, rolls_left))
                if rolls_left and isinstance(decision, Keep):
                    slot = list(SUBS[d]).index(
                        next(k for k in SUBS[d] if k >= 0 and KEEP_FACES[k] == decision.faces)
                    )
                    assert keeps[rolls_left][d, slot] > 0
                    if level != "intermediate":
                        assert keeps[rolls_left][d, slot] == 1.0
                    continue
                assert isinstance(decision, Score)
                if rolls_left:
                    assert keeps[rolls_left][d, STOP_SLOT[d]] > 0
                assert box[decision.category.index, d] > 0
                if level != "intermediate":
                    assert box[decision.category.index, d] == 1.0
                checked += 1
    assert checked > 50


def test_l4_expert_turn_outcomes_average_to_the_solver_value(table: ValueTable) -> None:
    """Σ p · (points + value after) over the expert's exact turn outcomes is the table's
    value of the state: the outcome distribution is exact."""
    for card in _cards("novice", 3)[:10]:
        state = canonical(state_of(card))
        succ, gain, prob = turn_outcomes(ExpertModel(table), state)
        assert prob.sum() == pytest.approx(1.0, abs=1e-12)
        mean = float(prob @ (gain + table.flat[succ].astype(np.float64)))
        assert mean == pytest.approx(table.value(card), abs=2e-3)


def test_l4_exact_late_game_distribution_mean_is_the_solver_value(table: ValueTable) -> None:
    card = _cards("expert", 4)[13 - EXACT_TURNS]
    assert card.filled_count == 13 - EXACT_TURNS
    dist = remaining_distribution(ExpertModel(table), canonical(state_of(card)))
    assert dist.sum() == pytest.approx(1.0)
    assert float(np.arange(len(dist)) @ dist) == pytest.approx(table.value(card), abs=2e-3)


def test_l4_compare_exact_components() -> None:
    """Two exact sides: P(H > C) + P(H = C)/2 over their point masses."""
    one = Side.exact(np.array([1.0]), np.array([200]))
    two = Side.exact(np.array([0.5, 0.5]), np.array([190, 200]))
    assert compare(one, two) == pytest.approx(0.5 + 0.25)
    assert compare(two, one) == pytest.approx(0.25)
    assert two.mean == 195.0


def _events(model: Model, state: tuple[int, int, int]) -> dict[int, F64]:
    """Brute force: the exact distribution of the points still to come per event
    combination (40 in the large straight 8, bonus 4, 50 in the 快艇 box 2, a 100 bonus 1),
    by enumerating every turn (memoised per state) and noting the events each turn makes
    from the cards themselves."""
    memo: dict[tuple[int, int, int], dict[int, F64]] = {}

    def dist(s: tuple[int, int, int]) -> dict[int, F64]:
        if s[0] == (1 << 13) - 1:
            return {0: np.ones(1)}
        if s in memo:
            return memo[s]
        out: dict[int, F64] = {}
        succ, gain, prob = turn_outcomes(model, s)
        for i, g, q in zip(succ.tolist(), gain.tolist(), prob.tolist(), strict=True):
            t = state_at(i)
            bonus = s[1] < 63 <= t[1]
            made = 4 * bonus + 2 * (s[2] == 0 and t[2] == 1)
            made += 1 * (s[2] == 1 and g - 35 * bonus >= 100)
            ls = 1 << Category.LARGE_STRAIGHT.index
            made += 8 * (not s[0] & ls and t[0] & ls and g in (40, 140))
            for c, d in dist(t).items():
                acc = out.setdefault(c | made, np.zeros(800))
                d = np.trim_zeros(d, "b")
                acc[g : g + len(d)] += q * d
        memo[s] = out
        return out

    return dist(state)


@pytest.mark.parametrize("level", ["expert", "intermediate", "novice"])
def test_l4_shipped_moments_are_the_exact_ones(level: str, table: ValueTable) -> None:
    """The shipped per-state moments — for each event combination its probability and the
    conditional mean and sd of the points still to come — equal a brute-force enumeration
    (checked at 5 turns left, the latest states they are shipped for)."""
    model = model_for(level, table)
    mom = moments(level)
    checked = 0
    for seed in range(2):
        card = _cards("intermediate", seed)[13 - MIN_TURNS_LEFT]
        state = canonical(state_of(card))
        truth = _events(model, state)
        _, entry = mom.entries(np.array([flat_index(state)]))
        allowed = set(np.flatnonzero(combos(np.array([flat_index(state)]))[0]).tolist())
        assert set(truth) <= allowed
        kept = mom.combo[entry].tolist()
        # Combinations rarer than 1/510 are left out, the others are all there.
        assert set(kept) == {c for c, d in truth.items() if d.sum() >= 1 / 510}
        for c, e in zip(kept, entry.tolist(), strict=True):
            dist = truth[c]
            p = float(dist.sum())
            assert mom.p[e] == pytest.approx(p, abs=4e-3)
            if p > 1e-3:
                x = np.arange(800)
                mean = float(dist @ x) / p
                sd = float(np.sqrt(dist @ (x - mean) ** 2 / p))
                # The kept means are shifted together to keep the overall mean exact.
                assert table.value(card) - mom.shortfall[e] == pytest.approx(mean, abs=1.0)
                assert mom.sd[e] == pytest.approx(min(sd, 85), abs=0.2)
                checked += 1
    assert checked >= 2


def test_l4_moments_match_the_table_and_rules() -> None:
    """Over all combinations the expert's mean is the solver's value (its policy is the
    argmax of that value), probabilities add up to 1, and the shipped data were computed
    under the current rules."""
    mom = moments("expert")
    stored = np.flatnonzero(mom.count)
    owner, entry = mom.entries(stored[::97])
    total_p = np.bincount(owner, weights=mom.p[entry])
    assert np.allclose(total_p, 1.0, atol=5e-3)
    shortfall = np.bincount(owner, weights=mom.p[entry] * mom.shortfall[entry])
    assert np.abs(shortfall).max() < 0.13  # quarter points
    assert str(_read()["rules_version"]) == RULES_VERSION
    with pytest.raises(ValueError, match="'grandmaster'"):
        moments("grandmaster")
    with pytest.raises(ValueError, match="no moments stored"):
        mom.entries(np.array([flat_index(((1 << 13) - 1, 0, 0))]))


def test_l4_moments_stored_unpacked_are_the_shipped_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unpacked arrays kept in the cache directory are exactly what unpacking the
    shipped file gives, the next process reads them instead, and a cache that cannot be
    written (or holds a damaged file) only means unpacking again."""
    from yahtzee.review import moments as module

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    path = module.unpacked_path()
    assert path.parent == tmp_path
    module._all.cache_clear()
    try:
        fresh = module._all()  # unpacked from the shipped file, and stored
        assert path.exists()
        module._all.cache_clear()
        again = module._all()  # read back from the cache directory
        for level in module.LEVEL_NAMES:
            for field in module.FIELDS:
                a, b = getattr(fresh[level], field), getattr(again[level], field)
                assert a.dtype == b.dtype, (level, field)
                assert np.array_equal(a, b), (level, field)
        path.write_bytes(b"not an npz")
        module._all.cache_clear()
        damaged = module._all()
        assert np.array_equal(damaged["novice"].p, fresh["novice"].p)
        path.unlink()
        monkeypatch.setattr(module, "_store", _refuse)
        module._all.cache_clear()
        assert np.array_equal(module._all()["expert"].sd, fresh["expert"].sd)
        assert not path.exists()
    finally:
        module._all.cache_clear()


def _refuse(path: Path, _levels: object) -> None:
    raise PermissionError(f"{path}: read-only")


@pytest.mark.parametrize("level", ["expert", "intermediate", "novice"])
def test_l4_tail_sides_keep_the_exact_mean_and_spread(level: str, table: ValueTable) -> None:
    """Early in the game a side is one enumerated turn + normal curves per event
    combination: its distribution sums to 1 and has the exact mean and sd of the level's
    final total (the law of total variance over turn outcomes and combinations)."""
    model = model_for(level, table)
    mom = moments(level)
    for card in _cards("novice", 5)[1:8:3]:
        state = canonical(state_of(card))
        succ, gain, prob = turn_outcomes(model, state)
        owner, entry = mom.entries(succ)
        w = prob[owner] * mom.p[entry]
        m = card.total + gain[owner] + table.flat[succ[owner]] - mom.shortfall[entry]
        mean = float(w @ m) / float(w.sum())
        sd = float(np.sqrt((w @ (mom.sd[entry] ** 2 + (m - mean) ** 2)) / w.sum()))
        h = side(model, card, table)
        totals = h.start + np.arange(len(h.pmf))
        assert h.pmf.sum() == pytest.approx(1.0, abs=1e-9)
        assert h.mean == pytest.approx(mean, abs=0.1)
        assert float(h.pmf @ totals) == pytest.approx(mean, abs=0.1)
        # Each normal's mass is gathered on whole points: + 1/12 to the variance.
        got = float(np.sqrt(h.pmf @ (totals - h.mean) ** 2 - 1 / 12))
        assert got == pytest.approx(sd, rel=0.01)
        if level == "expert":
            assert h.mean == pytest.approx(card.total + table.value(card), abs=0.1)


@pytest.mark.parametrize("level", ["expert", "intermediate", "novice"])
def test_l4_estimate_agrees_with_exact_enumeration(level: str, table: ValueTable) -> None:
    """After round 6 (7 turns left) the estimate uses the moment mixtures; full enumeration
    of both sides is still affordable there and is the exact answer. Over 36 such positions
    (12 seeded games per level) the largest gap measured was 0.040 and the RMS 0.008
    (README); here two games per level must stay within 0.02 of it. After round 7 (6 turns
    left: one turn enumerated, then the last :data:`EXACT_TURNS` exactly) it is exact."""
    assert EXACT_TURNS == 5
    for seed in (3, 4):
        log, _ = play_log(
            get_player("intermediate", random.Random(seed)),
            SeededDice(seed),
            get_player(level, random.Random(seed)),
        )
        review = review_events(log, table)
        assert review.computer is not None
        for done, tolerance in ((6, 0.02), (7, 1e-9)):
            human, computer = review.human.turn_cards[done], review.computer.turn_cards[done]
            assert human.filled_count == computer.filled_count == done
            truth = compare(
                _exact(ExpertModel(table), human), _exact(model_for(level, table), computer)
            )
            estimate = win_probability(human, computer, level, table)
            assert estimate == pytest.approx(truth, abs=tolerance), (seed, done)


def _exact(model: Model, card: Scorecard) -> Side:
    """A side's final total by full enumeration of its remaining turns."""
    dist = remaining_distribution(model, canonical(state_of(card)))
    support = np.nonzero(dist)[0]
    return Side.exact(dist[support], card.total + support)


@pytest.mark.parametrize("level", ["novice", "intermediate", "expert"])
def test_l4_timeline_ends_with_the_result(level: str, table: ValueTable) -> None:
    for seed in range(4):
        log, state = play_log(
            get_player("intermediate", random.Random(seed)),
            SeededDice(seed),
            get_player(level, random.Random(seed)),
        )
        review = review_events(log, table)
        assert review.computer is not None
        points = timeline(review.human.turn_cards, review.computer.turn_cards, level, table)
        assert len(points) == 14
        assert all(0 <= p <= 1 for p in points)
        human, computer = (c.total for c in state.cards)
        assert points[-1] == (1.0 if human > computer else 0.0 if human < computer else 0.5)


def test_l4_live_meter_mid_turn_matches_the_review(table: ValueTable) -> None:
    """Mid-turn, the meter's expected final is the review's position value, and the human
    side's mean (one enumerated turn from the dice on the table + tails with the exact
    moments, or exact near the end) is that same number."""
    from yahtzee.review.live import live_meter

    log, _ = play_log(
        get_player("novice", random.Random(8)),
        SeededDice(8),
        get_player("expert", random.Random(8)),
    )
    state = Game.new(Mode.VS_COMPUTER)
    checked = 0
    for e in log[1:]:
        assert isinstance(e, events_log.Roll | events_log.Score)
        state = events_log.apply(state, e)
        if e.seat == 0 and state.dice is not None and state.rolls_left > 0:
            meter = live_meter(state, "expert", table)
            card = state.card(0)
            h = side(ExpertModel(table), card, table, state.dice, state.rolls_left)
            assert h.mean == pytest.approx(meter["expected_final"], abs=0.02)
            assert 0 <= meter["win_probability"] <= 1
            checked += 1
    assert checked >= 10
