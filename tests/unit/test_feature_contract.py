"""The import contract of the feature packages finds exactly the app's features (issue 26:
a new feature adds nothing to ``pyproject.toml``), so none escapes its rules; and a new
feature touches four files outside its package (K1)."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import Any

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


#: Outside its package and its page's own files (its lazy module under static/js/lazy/,
#: its stylesheet under static/css/), a new feature touches these four files only
#: (docs/architecture.md, "Adding a feature").
FOUR_FILES = (
    "src/yahtzee/web/app.py",  # its entry in FEATURES
    "src/yahtzee/static/index.html",  # its lobby entry
    "src/yahtzee/static/js/views.js",  # its view(s) in the registry: addresses, API paths
    "src/yahtzee/static/js/messages.js",  # its copy
)


def _addresses(feature: Any) -> set[str]:
    """The feature's page addresses (up to their first id) and its API prefixes."""
    found = {re.sub(r"/?\{\w+\}.*", "", path) or path for path in feature.spa_paths}
    for router in feature.routers:
        for route in router.routes:
            found.add("/".join(route.path.split("/")[:3]))  # /api/<resource>
    return found


def test_k1_a_new_feature_touches_four_files_outside_its_package() -> None:
    """What a feature registers reaches the platform through the four files alone: its
    Python side through its ``FEATURE`` (routers, errors, page paths, configuration, its
    tables' migrations: no storage or server module imports it, only the app factory and
    the command line), its page side through the view registry (each view's ``path`` and
    its API paths, ``api``: paths.js names no feature's address) and the lobby's entry."""
    from yahtzee.web.app import FEATURES

    graph = grimp.build_graph("yahtzee", cache_dir=None)
    static = ROOT / "src" / "yahtzee" / "static"
    page = [
        f
        for f in static.rglob("*")
        if f.is_file()
        and f.suffix in (".js", ".html", ".json", ".css")
        and not {"lazy", "css"} & set(f.relative_to(static).parts[:-1])
    ]
    allowed = {ROOT / name for name in FOUR_FILES}
    for feature in FEATURES:
        package = feature.build.__module__
        # Its tables: its own migrations, under its own name (storage/schema.py).
        assert feature.migrations is not None, feature.name
        assert feature.migrations.owner == feature.name
        outside = {
            m
            for m in graph.find_modules_that_directly_import(package)
            | {
                importer
                for child in graph.find_descendants(package)
                for importer in graph.find_modules_that_directly_import(child)
            }
            if not (m == package or m.startswith(package + "."))
        }
        assert outside <= {"yahtzee.web.app", "yahtzee.cli"}, (feature.name, outside)
        # On the page: its addresses and API paths only in the registry and the lobby.
        for address in _addresses(feature):
            pattern = re.compile(re.escape(address) + r"(?![\w-])")
            naming = {f for f in page if pattern.search(f.read_text(encoding="utf-8"))}
            assert naming <= allowed, (feature.name, address, sorted(map(str, naming - allowed)))
        views = (static / "js" / "views.js").read_text(encoding="utf-8")
        for path in feature.spa_paths:
            # (an id's name may differ: {game_id} on the server, :id on the page)
            quoted = '"' + re.sub(r"\\\{\w+\\\}", r":\\w+", re.escape(path)) + '"'
            assert re.search(quoted, views), (feature.name, path)


def test_k1_the_platform_names_no_feature_s_api_path() -> None:
    """The platform below the features (``server/``, ``storage/`` and the core) names none
    of their API paths: what it must know of them (admission's long-lived requests, say)
    the feature declares on its ``FEATURE``. Admission used to match the rooms' event
    stream by a pattern of its own."""
    from yahtzee.web.app import FEATURES

    src = ROOT / "src" / "yahtzee"
    features = {feature.build.__module__.split(".")[1] for feature in FEATURES}
    platform = [
        f
        for f in src.rglob("*.py")
        if f.relative_to(src).parts[0] not in features | {"web"} and f.name != "cli.py"
    ]
    for feature in FEATURES:
        prefixes = {
            "/".join(route.path.split("/")[:3])  # type: ignore[attr-defined]
            for router in feature.routers
            for route in router.routes
        }
        for prefix in prefixes:
            pattern = re.compile(re.escape(prefix) + r"(?![\w-])")
            naming = [str(f.relative_to(src)) for f in platform if pattern.search(f.read_text())]
            assert naming == [], (feature.name, prefix, naming)


#: Names that are plain words, not a feature's kind: (module, identifier or string).
NOT_A_KIND = {
    ("server/pruning.py", "prune_now_and_daily"),  # once a day
    # the game object's field the page reads, the day of a dated kind's game (docs/api.md)
    ("server/views.py", "daily"),
    # a cookie names a device (F4, I3): the platform's identity; the feature keeps the table
    ("server/identity.py", "devices"),
    ("server/revocation.py", "devices"),  # (the devices that ended, F23: the same word)
}
#: Shipped migrations are history, never edited: their statements name the columns and
#: kinds of their day (the one module of the platform that may; nothing reads them).
HISTORY = {"storage/games_schema.py"}


def _words(name: str) -> set[str]:
    """The lowercase words of an identifier or a dotted name (snake_case, CamelCase)."""
    parts = re.split(r"[^A-Za-z0-9]+", name)
    return {w.lower() for p in parts for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", p)}


def _named(tree: ast.Module) -> tuple[set[str], set[str]]:
    """A module's identifiers (names, attributes, definitions, arguments, imports) and its
    strings that are no docstring."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    names: set[str] = set()
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            strings.add(node.value)
    return names, strings


def test_a2_the_platform_names_no_feature() -> None:
    """A2 (issue 36): no platform module — the core, ``review/``, ``storage/``, ``server/``:
    everything but the feature packages, the app factory and the command line — names a
    feature: not its package (no import: the K1 test above), not its API paths (the test
    above), not its kinds (``GameKind.DAILY``, ``kind = 'room'``, a ``room_id`` column,
    ``NoHintsInDailyError``, ``STRICT_KINDS`` of them) and not its dice (a module of the
    platform named after a kind, ``daily_dice``), not its settings or limits (an identifier
    naming its package, ``max_practice_servings_per_hour``, ``room_holds_per_second``:
    A2's second half, each feature's section and rates in its package). What the platform
    must know of a kind it reads from the kind's rules (``server/kinds.py``), which the
    feature declares."""
    from yahtzee.web.app import FEATURES

    src = ROOT / "src" / "yahtzee"
    packages = {feature.build.__module__.split(".")[1] for feature in FEATURES}
    kinds = {rules.kind.value for feature in FEATURES for rules in feature.kinds}
    assert kinds >= {"daily", "room"}, kinds  # (the features declare the kinds they make)
    found = []
    for path in sorted(src.rglob("*.py")):
        module = path.relative_to(src)
        if module.parts[0] in packages | {"web"} or module.name == "cli.py":
            continue
        where = module.as_posix()
        names, strings = _named(ast.parse(path.read_text(encoding="utf-8")))
        names.add(".".join(module.with_suffix("").parts))  # a module named after a kind
        # A feature's package by name, in an identifier (A2: its settings and limits are
        # its own, ``max_practice_servings_per_hour`` was the platform's):
        found += [
            (where, package, n)
            for package in sorted(packages)
            for n in sorted(names)
            if package in _words(n) and (where, n) not in NOT_A_KIND
        ]
        for kind in sorted(kinds):
            said = {n for n in names if kind in _words(n) and (where, n) not in NOT_A_KIND}
            if where not in HISTORY:
                said |= {
                    f"{s!r}"
                    for s in strings
                    if (where, s) not in NOT_A_KIND
                    and (s == kind or re.search(rf"'{kind}'|\b{kind}(_id|:)", s))
                }
            found += [(where, kind, name) for name in sorted(said)]
    assert found == [], found
