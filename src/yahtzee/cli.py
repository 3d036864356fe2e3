"""The ``yahtzee`` command line: ``solve``, ``advise``, ``simulate``, ``review`` and ``serve``.

Invalid input exits with status 2 and a single line on stderr (never a traceback).
Heavy imports (numpy via the solver, the web server) happen inside the subcommands, so
``yahtzee --help`` and the server start stay quick.

The commands' text output speaks one of the game's languages (G1, the catalogs' ``cli.*``
keys): ``--lang zh-Hans|zh-Hant|en``, by default the environment's (``LC_ALL``,
``LC_MESSAGES``, ``LANG``: ``zh_TW.UTF-8`` is 繁體中文, ``en_GB.UTF-8`` English, as
``Accept-Language`` would choose), else 简体中文 (also for the ``C`` and ``POSIX``
locales, which name no language). Box names are followed by their ids, which ``--scores``
takes. The ``--json`` outputs are data and the same in every language (a review's
sentences said in the language chosen); error messages and ``--help`` are English.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

PROG = "yahtzee"
EXIT_USAGE = 2

if TYPE_CHECKING:
    from yahtzee.i18n import Lang


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse's default prints the usage block too)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    """Left-justify ``text`` to ``width`` terminal columns (CJK characters count two),
    with at least one space after it."""
    return text + " " * max(1, width - _width(text))


def env_language(environ: Any = os.environ) -> Lang:
    """The language the environment asks for (see the module docstring)."""
    from yahtzee.i18n import DEFAULT, negotiate

    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            tag = value.split(".", 1)[0].split("@", 1)[0]
            if tag in ("C", "POSIX"):
                return DEFAULT
            return negotiate(tag.replace("_", "-"))
    return DEFAULT


def _language(text: str) -> Lang:
    """``--lang``'s value: one of the languages a player may read."""
    from yahtzee.i18n import REAL, Lang

    try:
        lang = Lang.parse(text)
    except ValueError:
        lang = None
    if lang not in REAL:
        known = ", ".join(str(x) for x in REAL)
        raise argparse.ArgumentTypeError(f"unknown language {text!r}; expected one of: {known}")
    return lang


def _lang(args: argparse.Namespace) -> Lang:
    """The command's language: ``--lang``, else the environment's."""
    lang: Lang = args.lang if args.lang is not None else env_language()
    return lang


def _box(lang: Lang, category: Any) -> str:
    """A box's name in ``lang``, then its id (``--scores`` takes it)."""
    from yahtzee.i18n import text

    return f"{text(lang, category.name_key)} {category.value}"


# -- solve ---------------------------------------------------------------------------------


def _cmd_solve(args: argparse.Namespace) -> int:
    from yahtzee.i18n import text
    from yahtzee.solver import build_table, table_path

    lang = _lang(args)

    start = time.perf_counter()
    table = build_table(force=args.force, progress=True)
    elapsed = time.perf_counter() - start
    print(text(lang, "cli.solve.table", path=table.path or table_path()))
    print(
        text(
            lang,
            "cli.solve.start_value",
            value=f"{table.start_value:.5f}",
            seconds=f"{elapsed:.2f}",
        )
    )
    return 0


# -- advise --------------------------------------------------------------------------------


def _cmd_advise(args: argparse.Namespace) -> int:
    from yahtzee.i18n import text
    from yahtzee.rules import Dice, Scorecard
    from yahtzee.solver import CategoryOption, KeepOption, StopOption, advise, load_table

    lang = _lang(args)

    card = Scorecard.parse(args.scores or "")
    if card.is_complete:
        raise UsageError("the scorecard is full: all 13 boxes are filled, nothing to advise")
    dice = Dice.parse(args.dice) if args.dice is not None else None
    rolls_left = args.rolls_left
    if rolls_left not in (0, 1, 2):
        raise UsageError(f"--rolls-left must be 0, 1 or 2, got {rolls_left}")
    advice = advise(card, dice, rolls_left, load_table(progress=True))
    if args.json:
        print(json.dumps(advice.to_json(), ensure_ascii=False))
        return 0
    filled = str(card) or text(lang, "cli.advise.empty_card")
    print(text(lang, "cli.advise.scores", scores=filled))
    if dice is None:
        print(text(lang, "cli.advise.to_come", value=f"{advice.state_value:.3f}"))
        return 0
    print(text(lang, "cli.advise.position", dice=dice, rolls=rolls_left))
    print(text(lang, "cli.advise.state_value", value=f"{advice.state_value:.3f}"))
    best = advice.best
    best_mark = "  ← " + text(lang, "cli.advise.best")
    value = text(lang, "cli.advise.value")
    if rolls_left > 0:
        print(_pad(text(lang, "cli.advise.keep"), 40) + value)
        for option in advice.options:
            if isinstance(option, StopOption):
                label = text(
                    lang, "cli.advise.stop", box=_box(lang, option.category), points=option.points
                )
            else:
                assert isinstance(option, KeepOption)
                label = " ".join(str(f) for f in option.keep) or "-"
            mark = best_mark if option is best else ""
            print(_pad(label, 40) + f"{option.value:9.3f}{mark}")
    else:
        print(
            _pad(text(lang, "cli.advise.box"), 26)
            + _pad(text(lang, "cli.advise.points"), 12)
            + value
        )
        for option in advice.options:
            assert isinstance(option, CategoryOption)
            name = _box(lang, option.category)
            mark = best_mark if option is best else ""
            print(_pad(name, 26) + _pad(str(option.points), 12) + f"{option.value:9.3f}{mark}")
    return 0


# -- simulate ------------------------------------------------------------------------------


def _cmd_simulate(args: argparse.Namespace) -> int:
    from yahtzee.i18n import text
    from yahtzee.players import Difficulty, get_player
    from yahtzee.progress import progress_bar
    from yahtzee.simulation import simulate_expert, simulate_player
    from yahtzee.solver import load_table

    lang = _lang(args)

    try:
        level = Difficulty.parse(args.player)
    except ValueError as exc:
        raise UsageError(str(exc).replace("level", "player", 1)) from None
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    progress = progress_bar(text(lang, "cli.simulate.progress", player=args.player), sys.stderr)
    if level is Difficulty.EXPERT:
        result = simulate_expert(
            args.games, args.seed, table=load_table(progress=True), progress=progress
        )
    else:
        result = simulate_player(
            lambda rng: get_player(level, rng), args.games, args.seed, progress=progress
        )
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
        return 0
    pct = summary["percentiles"]
    name = f"{text(lang, level.name_key)} {level.value}"
    print(text(lang, "cli.simulate.player", level=name, games=summary["games"]))
    print(text(lang, "cli.simulate.mean", mean=f"{summary['mean']:.2f}", sd=f"{summary['sd']:.2f}"))
    points = "  ".join(f"{k}%={v:g}" for k, v in pct.items())
    print(text(lang, "cli.simulate.percentiles", points=points))
    rate = f"{100 * summary['upper_bonus_rate']:.1f}"
    print(text(lang, "cli.simulate.upper_bonus_rate", rate=rate))
    print(text(lang, "cli.simulate.yahtzee_rate", rate=f"{100 * summary['yahtzee_rate']:.1f}"))
    print(text(lang, "cli.simulate.speed", speed=f"{summary['games_per_second']:.0f}"))
    return 0


# -- review --------------------------------------------------------------------------------


def _choice_text(lang: Lang, choice: dict[str, object]) -> str:
    from yahtzee.i18n import text
    from yahtzee.rules import Category

    if "category" in choice:
        box = text(lang, Category(choice["category"]).name_key)
        return text(lang, "cli.review.box", box=box, points=choice["points"])
    keep = choice["keep"]
    if keep == "stop":
        return text(lang, "cli.review.stop")
    assert isinstance(keep, list)
    return text(lang, "cli.review.keep", faces="".join(str(f) for f in keep) or "-")


#: The catalog key of each mode's title (the review's heading).
_MODE_TITLES = {
    "solo": "core.kind.solo",
    "vs_computer": "core.kind.vs_computer",
    "table": "core.kind.table",
}


def _cmd_review(args: argparse.Namespace) -> int:
    from yahtzee.errors import NotReviewableError
    from yahtzee.game import GameKind, Status
    from yahtzee.i18n import render, text
    from yahtzee.log import Event
    from yahtzee.players import Difficulty
    from yahtzee.review import MARK_NAMES, review_events, review_json
    from yahtzee.server.settings import default_db_path
    from yahtzee.storage import StorageError, is_postgres_url, open_storage, run_coroutine

    lang = _lang(args)
    db = args.db if args.db is not None else default_db_path()
    if not is_postgres_url(db) and not Path(db).is_file():
        raise UsageError(f"no database at {db}")

    async def load() -> tuple[GameKind, list[Event]]:
        storage = open_storage(db)
        try:
            await storage.open()
            stored = await storage.get_game(args.game_id)
            if stored is None:
                raise UsageError(f"no game {args.game_id!r} in {db}")
            if stored.status is not Status.FINISHED:
                status = stored.status.value
                raise NotReviewableError(f"game {args.game_id} is {status}: only finished games")
            return stored.kind, await storage.events(args.game_id)
        finally:
            await storage.close()

    try:
        kind, events = run_coroutine(load())
    except StorageError as exc:
        raise UsageError(str(exc)) from None
    out = review_json(review_events(events), args.game_id, kind=kind)
    if args.json:
        print(json.dumps(render(out, lang), ensure_ascii=False))
        return 0
    mode = text(lang, _MODE_TITLES.get(out["mode"], "core.kind.unknown"))
    if out["difficulty"] is not None:
        level = text(lang, Difficulty(out["difficulty"]).name_key)
        mode = text(lang, "cli.review.mode_level", mode=mode, level=level)
    print(text(lang, "cli.review.title", game=out["game_id"], mode=mode))
    print(
        text(
            lang,
            "cli.review.sum",
            final=out["final_score"],
            start=f"{out['start_value']:.2f}",
            luck=f"{out['luck']:+.2f}",
            skill=f"{out['skill_loss']:.2f}",
        )
    )
    marks = {k: text(lang, key) for k, key in MARK_NAMES.items()}
    counts = "  ".join(f"{marks[k]} {v}" for k, v in out["counts"].items())
    print(text(lang, "cli.review.accuracy", accuracy=f"{out['accuracy']:.1f}", counts=counts))
    columns = [
        (text(lang, "cli.review.head.round"), 4),
        (text(lang, "cli.review.head.roll"), 4),
        (text(lang, "cli.review.head.dice"), 8),
        (text(lang, "cli.review.head.chosen"), 18),
        (text(lang, "cli.review.head.best"), 18),
        (text(lang, "cli.review.head.loss"), 8),
    ]
    widths = [max(width, _width(name) + 1) for name, width in columns]
    print(
        "".join(_pad(name, w) for (name, _), w in zip(columns, widths, strict=True))
        + text(lang, "cli.review.head.mark")
    )
    for d in out["decisions"]:
        cells = [
            str(d["round"]),
            str(d["roll"]),
            "".join(str(f) for f in d["dice"]),
            _choice_text(lang, d["chosen"]),
            _choice_text(lang, d["best"]),
            f"{d['loss']:.2f}",
        ]
        print("".join(_pad(c, w) for c, w in zip(cells, widths, strict=True)) + marks[d["mark"]])
    points = " ".join(f"{p['expected_final']:.1f}" for p in out["timeline"])
    print(text(lang, "cli.review.expected", points=points))
    if any("win_probability" in p for p in out["timeline"]):
        chances = " ".join(f"{100 * p['win_probability']:.0f}%" for p in out["timeline"])
        print(text(lang, "cli.review.chances", chances=chances))
    if "computer" in out:
        c = out["computer"]
        print(
            text(
                lang,
                "cli.review.computer",
                final=c["final_score"],
                accuracy=f"{c['accuracy']:.1f}",
                luck=f"{c['luck']:+.2f}",
                skill=f"{c['skill_loss']:.2f}",
            )
        )
    return 0


# -- serve ---------------------------------------------------------------------------------


def _cmd_serve(args: argparse.Namespace) -> int:
    from yahtzee.server.settings import SettingsError, from_flags
    from yahtzee.web import serving  # lazy: the web stack only here

    try:
        serving.serve(from_flags(args.settings_source, args))
    except (serving.StartupError, SettingsError) as exc:  # e.g. a database it cannot use
        raise UsageError(str(exc)) from None
    return 0


def _command(argv: Sequence[str] | None) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), if any."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if not w.startswith("-")), None)


def _parser(command: str | None = None) -> _Parser:
    """The command line's parser. ``serve``'s flags are the server's settings (the app's
    :class:`yahtzee.web.Settings`: the platform's and every feature's), added only when
    ``command`` is ``serve``: the app and pydantic-settings take a noticeable fraction of
    a second to import, which ``advise`` should not pay."""
    parser = _Parser(
        prog=PROG, description="Yacht Dice (a Yahtzee-style game): optimal solver, advisor, game"
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    # The commands that print text say it in one of the game's languages.
    said = _Parser(add_help=False)
    said.add_argument(
        "--lang",
        type=_language,
        default=None,
        help="zh-Hans | zh-Hant | en (default: from LC_ALL, LC_MESSAGES or LANG, else zh-Hans)",
    )

    solve = sub.add_parser("solve", help="build the solver table (cached)", parents=[said])
    solve.add_argument("--force", action="store_true", help="rebuild even if cached")
    solve.set_defaults(func=_cmd_solve)

    adv = sub.add_parser("advise", help="rank every option of a position", parents=[said])
    adv.add_argument(
        "--scores", default="", help="filled boxes, e.g. ones=3,twos=6,yahtzee=50 (empty = new)"
    )
    adv.add_argument("--dice", help="five digits 1-6, e.g. 13356")
    adv.add_argument(
        "--rolls-left", type=int, default=2, help="0, 1 or 2 (default 2: after the first roll)"
    )
    adv.add_argument("--json", action="store_true", help="print one JSON object")
    adv.set_defaults(func=_cmd_advise)

    from yahtzee.players.levels import DEFAULT_DIFFICULTY, Difficulty  # light: no numpy

    sim = sub.add_parser("simulate", help="simulate games of a computer player", parents=[said])
    sim.add_argument(
        "--player",
        default=DEFAULT_DIFFICULTY.value,
        help=" | ".join(d.value for d in Difficulty),
    )
    sim.add_argument("--games", type=int, default=10000)
    sim.add_argument("--seed", type=int, default=None)
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(func=_cmd_simulate)

    rev = sub.add_parser("review", help="review a finished game from the database", parents=[said])
    rev.add_argument("game_id", help="the game's id (as in the URL /review/GAME_ID)")
    rev.add_argument("--db", default=None, help="SQLite database file or postgresql:// URL")
    rev.add_argument("--json", action="store_true", help="print the API's review object")
    rev.set_defaults(func=_cmd_review)

    srv = sub.add_parser(
        "serve",
        help="serve the browser game",
        description="Serve the browser game. Every flag can also be set by the environment "
        "variable named in its help (a flag wins); YAHTZEE_SECRET is the cookie secret.",
    )
    if command == "serve":
        from yahtzee.server.settings import add_flags
        from yahtzee.web.app import Settings  # (the features' sections: the web stack)

        srv.set_defaults(func=_cmd_serve, settings_source=add_flags(srv, Settings))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``yahtzee`` console script; returns the exit status."""
    from yahtzee.errors import YahtzeeError

    try:
        args = _parser(_command(argv)).parse_args(argv)
        func: Callable[[argparse.Namespace], int] = args.func
        return func(args)
    except (UsageError, YahtzeeError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (e.g. `yahtzee advise ... | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
