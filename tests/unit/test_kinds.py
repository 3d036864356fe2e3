"""Kinds of game and their rules (K2; issue 36, A2): a kind is a name any package may
declare, one object per name in every process; the registry holds each kind's rules
once, with its maker's hooks once."""

from __future__ import annotations

import pickle

import pytest

from yahtzee.errors import IllegalMoveError
from yahtzee.game import GameKind, Mode
from yahtzee.i18n import DEFAULT, Lang
from yahtzee.server.kinds import PLATFORM_KINDS, KindHooks, KindRegistry, KindRules, no_undo


def test_a2_a_kind_is_one_object_per_name_in_every_process() -> None:
    weekly = GameKind("weekly")
    assert GameKind("weekly") is weekly
    assert pickle.loads(pickle.dumps(weekly)) is weekly  # (the CPU pool's workers)
    assert GameKind.of(Mode.SOLO) is GameKind.SOLO
    with pytest.raises(ValueError, match="'Weekly Game'"):
        GameKind("Weekly Game")
    with pytest.raises(AttributeError):
        weekly.value = "daily"


def test_a2_the_registry_holds_each_kinds_rules_once_with_its_hooks_once() -> None:
    name = "server.kind.unknown"  # (a key of the catalogs: "game")
    weekly = KindRules(GameKind("weekly"), name, Mode.SOLO, undo=no_undo(name))
    kinds = KindRegistry((*PLATFORM_KINDS, weekly))
    assert kinds[GameKind.TUTORIAL].strict
    assert not kinds[GameKind.SOLO].strict
    assert kinds[GameKind.TUTORIAL].hooks.dice is not None  # its fixed dice are its rules'
    assert weekly.undo is not None
    assert weekly.undo.code == "undo_not_allowed"
    # the refusal is said in the reader's language, naming the kind
    tutorial = kinds[GameKind.TUTORIAL].undo
    assert tutorial is not None
    assert tutorial.message.render(DEFAULT) == "新手教程不能撤销：登记了就不能改。"
    assert (
        tutorial.message.render(Lang.parse("en")) == "No undo in this tutorial: a scored box stays."
    )
    hooks = KindHooks(finished=lambda _view: None)
    kinds.hook(weekly.kind, hooks)
    assert kinds[weekly.kind].hooks is hooks
    with pytest.raises(ValueError, match="hooks already"):
        kinds.hook(weekly.kind, hooks)
    with pytest.raises(ValueError, match="declared twice"):
        KindRegistry((*PLATFORM_KINDS, weekly, weekly))
    # a stored game of a kind nobody declares any more reads as its mode's rules alone;
    # no game of it can be started
    gone = kinds[GameKind("gone")]
    assert (gone.hints, gone.undo, gone.abandon, gone.stats) == (None, None, None, None)
    with pytest.raises(IllegalMoveError, match="'gone'"):
        kinds.declared(GameKind("gone"))
