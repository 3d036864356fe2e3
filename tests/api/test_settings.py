"""Configuration: database location, production dice, solver loaded once."""

from __future__ import annotations

from pathlib import Path

import pytest

from yahtzee.dice import SeededDice, SystemDice
from yahtzee.players import Difficulty
from yahtzee.server.service import GameService
from yahtzee.web import Settings, Wiring, create_app, default_db_path


def test_db_path_defaults_to_the_data_dir_and_yahtzee_db_overrides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("YAHTZEE_DB", raising=False)
    default = default_db_path()
    assert isinstance(default, Path)
    assert default.name == "yahtzee.db"
    assert "yahtzee" in str(default.parent)
    monkeypatch.setenv("YAHTZEE_DB", str(tmp_path / "x.db"))
    assert default_db_path() == tmp_path / "x.db"
    assert Settings().db == tmp_path / "x.db"
    monkeypatch.setenv("YAHTZEE_DB", "postgresql://u@h:5/d")  # a URL stays text (S1)
    assert Settings().db == "postgresql://u@h:5/d"


def test_production_dice_are_the_os_csprng_and_a_seed_needs_an_explicit_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YAHTZEE_DICE_SEED", "1")  # environment variables cannot seed dice
    service: GameService = create_app(Settings(db=tmp_path / "a.db")).state.service
    assert isinstance(service.dice, SystemDice)
    seeded_app = create_app(Settings(db=tmp_path / "b.db"), Wiring(dice_seed=3))
    seeded: GameService = seeded_app.state.service
    assert isinstance(seeded.dice, SeededDice)


def test_players_are_created_once_per_process(tmp_path: Path) -> None:
    made: list[str] = []

    def factory(name: str) -> object:
        from yahtzee.players import get_player

        made.append(name)
        return get_player(name)

    app = create_app(Settings(db=tmp_path / "c.db"), Wiring(players=factory))  # type: ignore[arg-type]
    service: GameService = app.state.service
    service.warm_up()
    for _ in range(3):
        service.player("expert")
        service.warm_up()
    assert sorted(made) == sorted(d.value for d in Difficulty)  # each level built once
