"""The import contract of the feature packages finds exactly the app's features (issue 26:
a new feature adds nothing to ``pyproject.toml``), so none escapes its rules."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def test_the_contract_finds_every_feature_of_the_app_and_nothing_else() -> None:
    from yahtzee.web.app import FEATURES

    spec = importlib.util.spec_from_file_location(
        "import_contracts", ROOT / "scripts" / "import_contracts.py"
    )
    assert spec is not None
    assert spec.loader is not None
    contracts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(contracts)
    graph = grimp.build_graph("yahtzee", cache_dir=None)
    found = contracts.feature_packages(graph, "yahtzee", "yahtzee.server.feature")
    assert found == sorted(f.build.__module__ for f in FEATURES)
