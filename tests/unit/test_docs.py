"""Every path and command the README and docs/ name exists (issue 16 §5).

A path in code quotes (``src/yahtzee/server/limits.py``, ``deploy/nginx/``,
``js/store.js`` under the page's folder) or a relative link must be in the checkout; a
``make`` target must be in the Makefile; ``yahtzee SUB --flag`` must be a subcommand with
that flag; ``python benchmarks/x.py --flag`` must name a script that takes the flag.
Placeholders (``DIR``, ``PATH``, ``{id}``, ``…``), URLs and system paths (``/etc/…``) are
not paths of the checkout and are left alone.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from yahtzee import cli

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "yahtzee"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

INLINE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
# Where a path's first folder says it starts: the checkout, the package or the page.
TOP = {"src", "tests", "benchmarks", "scripts", "deploy", "docs", ".ci"}
IN_PACKAGE = {
    "server",
    "web",
    "rooms",
    "daily",
    "practice",
    "storage",
    "review",
    "solver",
    "players",
    "static",
}
IN_PAGE = {"js", "css"}
PATHLIKE = re.compile(r"^[\w.@-]+(?:/[\w.@-]*)+$")
FILENAME = re.compile(r"^[\w.@-]+\.(?:py|md|toml|sh|js|css|conf|json|service|env|html)$")
PLACEHOLDER = re.compile(r"(?:^|/)[A-Z][A-Z_]+(?:/|$)")


def _text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def _tracked() -> set[str]:
    """The checkout's files (git's list; every file under the root outside a git clone)."""
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode == 0:
        return set(done.stdout.split())
    skip = {".git", ".venv", ".cache", "node_modules"}
    return {
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("*")
        if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
    }


def _fences(text: str) -> list[str]:
    return FENCE.findall(text)


def _outside_fences(text: str) -> str:
    return FENCE.sub("", text)


def _spans(doc: Path) -> Iterator[str]:
    """The inline code spans of ``doc`` and the words of its code blocks."""
    text = _text(doc)
    yield from INLINE.findall(_outside_fences(text))
    for block in _fences(text):
        for line in block.splitlines():
            yield from line.split("#", 1)[0].split()


def _resolve(token: str) -> Path | None:
    """The checkout path a quoted token names, or ``None`` when it names none."""
    token = token.split("::", 1)[0].strip("()[],;:")
    if not token or token[0] in "/~" or "://" in token or PLACEHOLDER.search(token):
        return None
    if PATHLIKE.match(token):
        first = token.split("/", 1)[0]
        if first in TOP:
            return ROOT / token
        if first in IN_PACKAGE:
            return PACKAGE / token
        if first in IN_PAGE:
            return PACKAGE / "static" / token
        if first == "yahtzee":
            return PACKAGE.parent / token
        if first in _folders():
            # Another folder of the checkout (``lazy/meter.js``, ``e2e/...``): some file
            # or folder must end with the token.
            suffix = "/" + token.rstrip("/")
            found = any(
                ("/" + t).endswith(suffix) or ("/" + t).find(suffix + "/") >= 0 for t in _tracked()
            )
            return ROOT / "." if found else ROOT / "no such path" / token
    return None


_FOLDERS: set[str] = set()


def _folders() -> set[str]:
    """The names of the checkout's folders (``lazy``, ``e2e``, ``training``...)."""
    if not _FOLDERS:
        _FOLDERS.update(part for t in _tracked() for part in t.split("/")[:-1])
    return _FOLDERS


def _paths(doc: Path) -> Iterator[tuple[str, Path]]:
    for token in _spans(doc):
        for word in token.split():
            path = _resolve(word)
            if path is not None:
                yield word, path
    for target in LINK.findall(_outside_fences(_text(doc))):
        if "://" not in target and not target.startswith(("/", "mailto:")):
            yield target, (doc.parent / target)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_path_named_exists(doc: Path) -> None:
    missing = sorted({word for word, path in _paths(doc) if not path.exists()})
    assert not missing, f"{doc.name} names paths that are not in the checkout: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_file_name_named_exists(doc: Path) -> None:
    """A bare file name (``limits.py``, ``pyproject.toml``) is some file of the checkout."""
    names = {Path(p).name for p in _tracked()}
    quoted = {w.strip("()[],;:") for t in INLINE.findall(_text(doc)) for w in t.split()}
    unknown = sorted(w for w in quoted if FILENAME.match(w) and "/" not in w and w not in names)
    assert not unknown, f"{doc.name} names files that are not in the checkout: {unknown}"


# -- commands ----------------------------------------------------------------------------------


def _commands(doc: Path) -> Iterator[list[str]]:
    """Each command of ``doc``: the lines of its code blocks and the code spans that start
    with a command word, split into words (``&&`` and ``|`` start a new command)."""
    text = _text(doc)
    lines = [line.split("#", 1)[0] for block in _fences(text) for line in block.splitlines()]
    lines += INLINE.findall(_outside_fences(text))
    for line in lines:
        try:
            words = shlex.split(line.replace("[", " ").replace("]", " "))
        except ValueError:
            words = line.split()
        command: list[str] = []
        for word in [*words, "&&"]:
            if word in ("&&", "|", ";"):
                if command:
                    yield command
                command = []
            else:
                command.append(word)


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*)\s*:(?!=)", text, re.M))


def _subcommands() -> dict[str, set[str]]:
    """Each ``yahtzee`` subcommand and its option strings."""
    found: dict[str, set[str]] = {}
    for name in ("solve", "advise", "simulate", "review", "serve"):
        parser = cli._parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for command, subparser in sub.choices.items():
            if command == name:
                found[command] = {s for a in subparser._actions for s in a.option_strings}
    return found


def _program(words: list[str]) -> tuple[str, list[str]] | None:
    """``("make" | "yahtzee" | "script", arguments)`` of a command, else ``None``."""
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]  # VAR=value before the command
    if not words:
        return None
    head = Path(words[0]).name
    if head == "make":
        return "make", words[1:]
    if head == "yahtzee":
        return "yahtzee", words[1:]
    if head.startswith("python") and len(words) > 1:
        if words[1:3] == ["-m", "yahtzee"]:
            return "yahtzee", words[3:]
        if words[1].endswith(".py"):
            return "script", words[1:]
    if head == words[0] and head.endswith(".py") and any(w.startswith("--") for w in words):
        # A script named bare with its flags (``daily_bench.py --starts 200``).
        where = [f"{d}/{head}" for d in ("benchmarks", "scripts") if (ROOT / d / head).is_file()]
        return "script", [where[0] if where else head, *words[1:]]
    return None


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_command_named_exists(doc: Path) -> None:
    targets, subcommands = _make_targets(), _subcommands()
    wrong: list[str] = []
    for words in _commands(doc):
        found = _program(words)
        if found is None:
            continue
        kind, args = found
        flags = [a.split("=", 1)[0] for a in args if a.startswith("--")]
        if kind == "make":
            wrong += [f"make {a}" for a in args if "=" not in a and a not in targets]
        elif kind == "yahtzee":
            if not args:
                continue  # the program's name alone
            if args[0] not in subcommands:
                wrong.append(" ".join(["yahtzee", *args[:1]]))
                continue
            wrong += [f"yahtzee {args[0]} {f}" for f in flags if f not in subcommands[args[0]]]
        else:
            script = ROOT / args[0]
            if not script.is_file():
                wrong.append(args[0])
                continue
            source = script.read_text(encoding="utf-8")
            wrong += [f"{args[0]} {f}" for f in flags if f'"{f}"' not in source]
    assert not wrong, f"{doc.name} names commands that do not exist: {sorted(set(wrong))}"


def test_the_checker_sees_what_it_checks() -> None:
    """The checks above find the README's paths and commands (they cannot pass vacuously)."""
    readme = ROOT / "README.md"
    assert any(word.startswith("docs/") for word, _ in _paths(readme))
    programs = [p for p in map(_program, _commands(readme)) if p is not None]
    assert ("make", ["run"]) in programs
    assert any(kind == "yahtzee" and args[:1] == ["serve"] for kind, args in programs)
    assert _resolve("static/js/nowhere.js") == PACKAGE / "static" / "js" / "nowhere.js"
    assert _resolve("DIR/pg") is None
    assert (_resolve("lazy/meter.js") or ROOT / "-").exists()
    assert not (_resolve("lazy/nowhere.js") or ROOT).exists()
    assert _resolve("application/json") is None  # (a media type: no such folder)
    assert _program(["daily_bench.py", "--starts", "2"]) == (
        "script",
        ["benchmarks/daily_bench.py", "--starts", "2"],
    )
    assert {"run", "test"} <= _make_targets()
    assert "--max-actions-per-second" in _subcommands()["serve"]


def test_every_setting_is_in_the_deployment_guide() -> None:
    """docs/deployment.md's table is the settings as they are declared (issue 36, A2: each
    setting once, the platform's and each feature's, whose flags, variables, defaults and
    help are the table's rows; a new setting is documented where operators look)."""
    import importlib.util

    from yahtzee.server.settings import flag_name
    from yahtzee.web.app import Settings

    spec = importlib.util.spec_from_file_location(
        "settings_table", ROOT / "scripts" / "settings_table.py"
    )
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    guide = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    assert script.with_table(guide, script.table()) == guide, (
        "docs/deployment.md's settings table is not the declarations': run "
        "python scripts/settings_table.py"
    )
    for name in Settings.model_fields:  # (every flag, every feature's too)
        assert f"`YAHTZEE_{name.upper()}`" in guide
        assert name == "secret" or f"`{flag_name(name)}`" in guide


def test_the_architecture_names_every_feature_package_and_direct_route() -> None:
    """docs/architecture.md has every feature package of the app (issue 26: it once never
    mentioned rooms) and the fast path's every action (it once said three of five)."""
    from yahtzee.server.routers.games import ACTIONS
    from yahtzee.web.app import FEATURES

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    packages = [f.build.__module__.removeprefix("yahtzee.") for f in FEATURES]
    assert len(packages) >= 3
    missing = [p for p in packages if f"**`src/yahtzee/{p}/`**" not in text]
    assert not missing, f"docs/architecture.md has no section for {missing}"
    row = next(line for line in text.splitlines() if "`src/yahtzee/server/fastpath.py`" in line)
    count = {5: "five", 6: "six", 7: "seven"}[len(ACTIONS)]
    assert f"the {count} game actions" in row
    assert all(f"`{name}`" in row for name in ACTIONS), row
    assert "`rooms/fastpath.py`" in row


def test_the_readme_stays_short_and_its_quick_start_exact() -> None:
    """README ≤ 200 lines (issue 26), its quick start the two commands as they are."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    quick = _fences(text.split("## Quick start", 1)[1])[0]
    assert [line.split()[:2] for line in quick.splitlines() if line.startswith("make")] == [
        ["make", "run"],
        ["make", "test"],
    ]
