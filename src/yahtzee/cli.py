"""The ``yahtzee`` command line: ``solve``, ``advise``, ``simulate``, ``review`` and ``serve``.

Invalid input exits with status 2 and a single line on stderr (never a traceback).
Heavy imports (numpy via the solver, the web server) happen inside the subcommands, so
``yahtzee --help`` and the server start stay quick.
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
from typing import NoReturn

PROG = "yahtzee"
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse's default prints the usage block too)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    """Left-justify ``text`` to ``width`` terminal columns (CJK characters count two)."""
    return text + " " * max(0, width - _width(text))


# -- solve ---------------------------------------------------------------------------------


def _cmd_solve(args: argparse.Namespace) -> int:
    from yahtzee.solver import build_table, table_path

    start = time.perf_counter()
    table = build_table(force=args.force, progress=True)
    elapsed = time.perf_counter() - start
    print(f"table: {table.path or table_path()}")
    print(f"start value 新局期望得分: {table.start_value:.5f}  ({elapsed:.2f} s)")
    return 0


# -- advise --------------------------------------------------------------------------------


def _cmd_advise(args: argparse.Namespace) -> int:
    from yahtzee.rules import Dice, Scorecard
    from yahtzee.solver import CategoryOption, KeepOption, StopOption, advise, load_table

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
    filled = str(card) or "(empty card 空白记分卡)"
    print(f"scores 记分卡: {filled}")
    if dice is None:
        print(f"下一回合开始的期望得分 expected points still to come: {advice.state_value:.3f}")
        return 0
    print(f"dice 骰子: {dice}   rolls left 剩余掷骰: {rolls_left}")
    print(f"局面价值 state value: {advice.state_value:.3f}")
    best = advice.best
    if rolls_left > 0:
        print(_pad("保留 keep", 40) + "期望 value")
        for option in advice.options:
            if isinstance(option, StopOption):
                name = f"{option.category.zh} {option.category.value}"
                label = f"停止掷骰 stop → {name} ({option.points})"
            else:
                assert isinstance(option, KeepOption)
                label = " ".join(str(f) for f in option.keep) or "-"
            mark = "  ← 最佳 best" if option is best else ""
            print(_pad(label, 40) + f"{option.value:9.3f}{mark}")
    else:
        print(_pad("格子 box", 26) + _pad("得分 points", 12) + "期望 value")
        for option in advice.options:
            assert isinstance(option, CategoryOption)
            name = f"{option.category.zh} {option.category.value}"
            mark = "  ← 最佳 best" if option is best else ""
            print(_pad(name, 26) + _pad(str(option.points), 12) + f"{option.value:9.3f}{mark}")
    return 0


# -- simulate ------------------------------------------------------------------------------


def _cmd_simulate(args: argparse.Namespace) -> int:
    from yahtzee.players import Difficulty, get_player
    from yahtzee.progress import progress_bar
    from yahtzee.simulation import simulate_expert, simulate_player
    from yahtzee.solver import load_table

    try:
        level = Difficulty.parse(args.player)
    except ValueError as exc:
        raise UsageError(str(exc).replace("level", "player", 1)) from None
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    progress = progress_bar(f"模拟 {args.player}", sys.stderr)
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
    print(f"player 玩家: {level.zh} {level.value}   games 局数: {summary['games']}")
    print(f"mean 平均: {summary['mean']:.2f}   sd 标准差: {summary['sd']:.2f}")
    print("percentiles 分位数: " + "  ".join(f"{k}%={v:g}" for k, v in pct.items()))
    print(f"upper bonus rate 上区奖励率: {100 * summary['upper_bonus_rate']:.1f}%")
    print(f"yahtzee rate 快艇率: {100 * summary['yahtzee_rate']:.1f}%")
    print(f"speed 速度: {summary['games_per_second']:.0f} games/s")
    return 0


# -- review --------------------------------------------------------------------------------


def _choice_text(choice: dict[str, object]) -> str:
    from yahtzee.rules import Category

    if "category" in choice:
        return f"{Category(choice['category']).zh} {choice['points']} 分"
    keep = choice["keep"]
    if keep == "stop":
        return "停止掷骰"
    assert isinstance(keep, list)
    return "保留 " + ("".join(str(f) for f in keep) or "-")


def _cmd_review(args: argparse.Namespace) -> int:
    from yahtzee.errors import NotReviewableError
    from yahtzee.game import GameKind, Status
    from yahtzee.log import Event
    from yahtzee.review import MARK_ZH, review_events, review_json
    from yahtzee.server.settings import default_db_path
    from yahtzee.storage import StorageError, is_postgres_url, open_storage, run_coroutine

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
        print(json.dumps(out, ensure_ascii=False))
        return 0
    mode = "单人挑战" if out["mode"] == "solo" else f"人机对战 ({out['difficulty']})"
    print(f"复盘 game {out['game_id']}  {mode}")
    print(
        f"终局 final {out['final_score']} = 开局期望 {out['start_value']:.2f}"
        f" + 运气 luck {out['luck']:+.2f} - 技术损失 skill loss {out['skill_loss']:.2f}"
    )
    counts = "  ".join(f"{MARK_ZH[k]} {v}" for k, v in out["counts"].items())
    print(f"准确率 accuracy {out['accuracy']:.1f}%   {counts}")
    header = (
        _pad("轮", 4)
        + _pad("掷", 4)
        + _pad("骰子", 8)
        + _pad("选择 chosen", 18)
        + _pad("最佳 best", 18)
        + _pad("损失", 8)
        + "评价"
    )
    print(header)
    for d in out["decisions"]:
        dice = "".join(str(f) for f in d["dice"])
        chosen, best = _choice_text(d["chosen"]), _choice_text(d["best"])
        print(
            _pad(str(d["round"]), 4)
            + _pad(str(d["roll"]), 4)
            + _pad(dice, 8)
            + _pad(chosen, 18)
            + _pad(best, 18)
            + _pad(f"{d['loss']:.2f}", 8)
            + MARK_ZH[d["mark"]]
        )
    points = " ".join(f"{p['expected_final']:.1f}" for p in out["timeline"])
    print(f"预计终局 expected final by round: {points}")
    if any("win_probability" in p for p in out["timeline"]):
        chances = " ".join(f"{100 * p['win_probability']:.0f}%" for p in out["timeline"])
        print(f"胜率 chance to win by round: {chances}")
    if "computer" in out:
        c = out["computer"]
        print(
            f"电脑 computer: 终局 {c['final_score']}  准确率 {c['accuracy']:.1f}%"
            f"  运气 {c['luck']:+.2f}  技术损失 {c['skill_loss']:.2f}"
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
    parser = _Parser(prog=PROG, description="快艇骰子 (Yahtzee): optimal solver, advisor, game")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve = sub.add_parser("solve", help="build the solver table (cached)")
    solve.add_argument("--force", action="store_true", help="rebuild even if cached")
    solve.set_defaults(func=_cmd_solve)

    adv = sub.add_parser("advise", help="rank every option of a position")
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

    sim = sub.add_parser("simulate", help="simulate games of a computer player")
    sim.add_argument(
        "--player",
        default=DEFAULT_DIFFICULTY.value,
        help=" | ".join(d.value for d in Difficulty),
    )
    sim.add_argument("--games", type=int, default=10000)
    sim.add_argument("--seed", type=int, default=None)
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(func=_cmd_simulate)

    rev = sub.add_parser("review", help="review a finished game (复盘) from the database")
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
