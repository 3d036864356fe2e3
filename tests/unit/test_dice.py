"""The injected dice sources that tests use: a script is dealt in order."""

from __future__ import annotations

import secrets

import pytest

from yahtzee.dice import ScriptedDice, SystemDice


def test_a_script_is_dealt_in_order_and_then_runs_out() -> None:
    dice = ScriptedDice([1, 2, 3, 4, 5, 6, 6])
    assert dice.roll(5) == [1, 2, 3, 4, 5]
    with pytest.raises(IndexError, match="wanted 5, 2 left"):
        dice.roll(5)
    assert dice.roll(2) == [6, 6]


def test_a_repeating_script_starts_over_however_often_it_is_asked() -> None:
    dice = ScriptedDice([3, 3, 3, 3, 3, 6], repeat=True)
    assert [dice.roll(5) for _ in range(3)] == [[3, 3, 3, 3, 3], [6, 3, 3, 3, 3], [3, 6, 3, 3, 3]]
    with pytest.raises(ValueError, match="at least one face"):
        ScriptedDice([], repeat=True)


def test_system_dice_read_the_os_randomness_once_a_roll(monkeypatch: pytest.MonkeyPatch) -> None:
    """R1's faces from the OS: a roll of five dice is one draw (issue 31: a room's every
    roll paid five system calls), each face still uniform and every face reachable."""
    draws: list[int] = []
    real = secrets.randbelow

    def counted(n: int) -> int:
        draws.append(n)
        return real(n)

    monkeypatch.setattr(secrets, "randbelow", counted)
    dice = SystemDice()
    rolls = [dice.roll(5) for _ in range(3000)]
    assert len(draws) == 3000
    assert dice.roll(0) == []
    assert all(len(r) == 5 and all(1 <= f <= 6 for f in r) for r in rolls)
    # each position's faces: 500 expected each; a fair die is within ±120 of it
    # (> 5 standard deviations: a false alarm about once in ten million runs)
    for position in range(5):
        counts = [sum(r[position] == face for r in rolls) for face in range(1, 7)]
        assert all(abs(c - 500) < 120 for c in counts), (position, counts)
    # the base-6 digits of the draw, lowest first
    monkeypatch.setattr(secrets, "randbelow", lambda _n: 1 + 6 * 5 + 36 * 2)
    assert dice.roll(3) == [2, 6, 3]
