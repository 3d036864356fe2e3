"""The ``yahtzee`` command line (issue 2 §4): advise, simulate, serve and input errors."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from yahtzee.cli import main
from yahtzee.server.settings import Connections, Limits, from_env
from yahtzee.solver import ValueTable
from yahtzee.web import Settings, serving

pytestmark = pytest.mark.usefixtures("table")  # the solver table is built once


@pytest.fixture(autouse=True)
def _no_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment names no language (as the C locale): the text is 简体中文."""
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_advise_text_ranks_boxes_with_chinese_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["advise", "--dice", "66666", "--rolls-left", "0"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    best = next(line for line in lines if "最佳" in line)
    assert best.startswith("快艇")
    assert "机会" in out
    assert "六点" in out


def test_advise_text_keeps(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["advise", "--scores", "ones=3,twos=6", "--dice", "13356"], capsys)
    assert code == 0
    assert "保留" in out
    assert "剩余掷骰: 2" in out  # --rolls-left defaults to 2


def test_advise_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["advise", "--scores", "ones=3,twos=6,yahtzee=50", "--dice", "13356"]
    code, out, _ = run([*argv, "--rolls-left", "2", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"state_value", "options", "best"}
    assert data["best"] == data["options"][0]
    keeps = [o for o in data["options"] if "stop" not in o]
    stops = [o for o in data["options"] if "stop" in o]
    assert all(set(o) == {"keep", "value"} and len(o["keep"]) < 5 for o in keeps)
    assert len(stops) == 1
    assert set(stops[0]) == {"stop", "category", "points", "value"}
    assert stops[0]["stop"] is True

    code, out, _ = run([*argv, "--rolls-left", "0", "--json"], capsys)
    data = json.loads(out)
    assert all(set(o) == {"category", "points", "value"} for o in data["options"])
    chance = next(o for o in data["options"] if o["category"] == "chance")
    assert chance["points"] == 18


def test_advise_stop_with_two_rolls_left_is_worth_the_best_box(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 12 (B2): with 44411 and two rolls left, stopping is worth the full house now
    (253.909…, the rolls-left-0 best), not "keep all five and roll once more" (255.25)."""
    code, out, _ = run(["advise", "--dice", "44411", "--rolls-left", "0", "--json"], capsys)
    assert code == 0
    now = json.loads(out)
    assert now["best"]["category"] == "full_house"
    assert now["state_value"] == pytest.approx(253.909, abs=5e-4)
    for rolls_left in ("1", "2"):
        argv = ["advise", "--dice", "44411", "--rolls-left", rolls_left, "--json"]
        code, out, _ = run(argv, capsys)
        assert code == 0
        data = json.loads(out)
        (stop,) = [o for o in data["options"] if o.get("stop")]
        assert stop == {
            "stop": True,
            "category": "full_house",
            "points": 25,
            "value": now["state_value"],
        }
        assert all(len(o["keep"]) < 5 for o in data["options"] if "keep" in o)
        assert data["state_value"] == max(o["value"] for o in data["options"])

    code, out, _ = run(["advise", "--dice", "44411", "--rolls-left", "2"], capsys)
    assert code == 0
    line = next(line for line in out.splitlines() if "停止掷骰" in line)
    assert "葫芦 full_house (25)" in line
    assert "253.909" in line


def test_g2_advise_speaks_the_language_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    """``--lang`` (G1): the boxes, the headings and the best mark in that language, each
    box still followed by its id."""
    argv = ["advise", "--dice", "66666", "--rolls-left", "0"]
    code, out, err = run([*argv, "--lang", "en"], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "scores: (empty card)"
    best = next(line for line in out.splitlines() if line.endswith("← best"))
    assert best.startswith("Yacht yahtzee ")
    assert "Sixes sixes" in out
    assert "Three of a Kind three_of_a_kind" in out
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in out)  # no Chinese left
    code, out, _ = run([*argv, "--lang", "zh-Hant"], capsys)
    assert code == 0
    assert "計分表: (空白計分表)" in out
    assert "六點 sixes" in out
    code, out, _ = run(["advise", "--dice", "44411", "--lang", "en"], capsys)
    assert "dice: 44411   rolls left: 2" in out
    assert "stop → Full House full_house (25)" in out


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "en_US.UTF-8"}, "scores: (empty card)"),
        ({"LANG": "zh_TW.UTF-8"}, "計分表: (空白計分表)"),
        ({"LANG": "zh_HK"}, "計分表: (空白計分表)"),
        ({"LANG": "zh_CN.UTF-8"}, "记分卡: (空白记分卡)"),
        ({"LANG": "fr_FR.UTF-8"}, "scores: (empty card)"),  # another language: English
        ({"LANG": "C.UTF-8"}, "记分卡: (空白记分卡)"),  # no language: the product's
        ({"LANG": "POSIX"}, "记分卡: (空白记分卡)"),
        ({"LANG": "zh_CN.UTF-8", "LC_ALL": "en_GB.UTF-8"}, "scores: (empty card)"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_TW.UTF-8"}, "計分表: (空白計分表)"),
        ({}, "记分卡: (空白记分卡)"),
    ],
)
def test_g2_the_language_comes_from_the_environment(
    environ: dict[str, str],
    expected: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LANG")
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    code, out, _ = run(["advise"], capsys)
    assert code == 0
    assert out.splitlines()[0] == expected
    # --lang wins over the environment
    code, out, _ = run(["advise", "--lang", "zh-Hans"], capsys)
    assert out.splitlines()[0] == "记分卡: (空白记分卡)"


def test_g2_an_unknown_language_is_one_line_of_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["advise", "--lang", "fr"], capsys)
    assert code == 2
    assert out == ""
    assert err.strip().splitlines() == [
        "yahtzee: error: argument --lang: unknown language 'fr'; expected one of: "
        "zh-Hans, zh-Hant, en"
    ]
    code, _, err = run(["advise", "--lang", "en-XA"], capsys)  # (the tests' pseudo-language)
    assert code == 2


def test_advise_without_dice_reports_the_state_value(
    table: ValueTable, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["advise", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert abs(data["state_value"] - table.start_value) < 1e-9
    assert data["options"] == []
    code, out, _ = run(["advise", "--scores", ""], capsys)
    assert code == 0
    assert f"{table.start_value:.3f}" in out


FULL = (
    "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,three_of_a_kind=0,four_of_a_kind=0,"
    "full_house=0,small_straight=0,large_straight=0,yahtzee=0,chance=5"
)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["advise", "--dice", "1234"], "dice"),
        (["advise", "--dice", "12347"], "dice"),
        (["advise", "--scores", "sevens=7"], "unknown category"),
        (["advise", "--scores", "twos=5"], "twos=5"),
        (["advise", "--scores", "ones=x"], "integer"),
        (["advise", "--scores", FULL], "full"),
        (["advise", "--dice", "12345", "--rolls-left", "3"], "rolls-left"),
        (["advise", "--rolls-left", "two"], "rolls-left"),
        (["simulate", "--player", "grandmaster"], "grandmaster"),
        (["simulate", "--games", "0"], "games"),
        (["frobnicate"], "frobnicate"),
        ([], "command"),
    ],
)
def test_invalid_input_exits_with_one_line(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code != 0
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err
    assert "Traceback" not in err


def test_invalid_input_in_a_real_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "yahtzee", "advise", "--scores", "twos=5"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "yahtzee: error: twos=5 is impossible: no roll scores that"
    ]


SIM_KEYS = {
    "games",
    "mean",
    "sd",
    "percentiles",
    "upper_bonus_rate",
    "yahtzee_rate",
    "games_per_second",
}


@pytest.mark.parametrize(("player", "games"), [("expert", 500), ("novice", 40)])
def test_simulate_json(player: str, games: int, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--player", player, "--games", str(games), "--seed", "1", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0
    assert err == ""  # not a terminal: no progress bar
    data = json.loads(out)
    assert set(data) == SIM_KEYS
    assert data["games"] == games
    assert set(data["percentiles"]) == {"5", "25", "50", "75", "95"}
    p = data["percentiles"]
    assert p["5"] <= p["25"] <= p["50"] <= p["75"] <= p["95"]
    assert 0 <= data["upper_bonus_rate"] <= 1
    assert 0 <= data["yahtzee_rate"] <= 1
    assert data["games_per_second"] > 0
    # Same seed, same games.
    code, again, _ = run(argv, capsys)
    assert json.loads(again)["mean"] == data["mean"]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    code = main(["simulate", "--games", "2048", "--seed", "1"])
    assert code == 0
    assert "[" in fake.getvalue()
    assert "#" in fake.getvalue()
    out, _ = capsys.readouterr()
    assert "平均" in out
    code = main(["simulate", "--games", "64", "--seed", "1", "--player", "novice", "--lang", "en"])
    assert code == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == "player: Beginner novice   games: 64"
    assert "upper bonus rate: " in out
    assert "Yacht rate: " in out


def _fake_serve(monkeypatch: pytest.MonkeyPatch) -> list[Settings]:
    """Replace the server by a recorder of the settings it is given."""
    seen: list[Settings] = []
    monkeypatch.setattr(serving, "serve", seen.append)
    return seen


def test_serve_calls_the_server_lazily(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("YAHTZEE_DB", str(tmp_path / "env.db"))
    seen = _fake_serve(monkeypatch)
    assert main(["serve", "--port", "8123", "--db", "games.db"]) == 0
    assert main(["serve"]) == 0
    url = "postgresql://u@127.0.0.1:5432/y"
    assert main(["serve", "--db", url, "--workers", "3"]) == 0
    assert [(s.host, s.port, s.db, s.workers) for s in seen] == [
        ("127.0.0.1", 8123, Path("games.db"), 1),  # a flag wins over its variable
        ("127.0.0.1", 8000, tmp_path / "env.db", 1),
        ("127.0.0.1", 8000, url, 3),  # a URL is not taken for a file name (S1)
    ]
    assert seen[1].secret_file is None
    assert seen[1].limits == Limits()


def test_serve_flags_and_variables_come_from_the_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every setting has a flag with help text naming its variable; the secret has none."""
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for name in Settings.model_fields:
        env = f"YAHTZEE_{name.upper()}"
        if name == "secret":
            assert "--secret " not in out
            continue
        flag = "--" + name.replace("_", "-")
        assert f"{flag} " in out
        assert env in out.replace("\n", "").replace(" ", "")
    assert "address to listen on" in out
    assert "TCP port to listen on" in out
    monkeypatch.setenv("YAHTZEE_PORT", "9001")
    monkeypatch.setenv("YAHTZEE_MAX_ACTIONS_PER_SECOND", "7")
    seen = _fake_serve(monkeypatch)
    assert main(["serve", "--max-actions-per-second", "8"]) == 0
    assert main(["serve"]) == 0
    assert [(s.port, s.limits.actions_per_second) for s in seen] == [(9001, 8), (9001, 7)]


def test_a2_a_features_settings_are_its_section_given_by_flag_or_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 36, A2: a feature declares its settings once, in its package; the platform
    makes them flags and variables under their old names, and the feature reads its own
    section back under its own names (the flags say "max", the section what it counts)."""
    from yahtzee.daily.settings import DailySettings
    from yahtzee.devices.settings import DeviceSettings
    from yahtzee.rooms.settings import RoomSettings
    from yahtzee.server import settings as platform

    monkeypatch.setenv("YAHTZEE_MAX_ROOM_HOLDS_PER_SECOND", "9")
    monkeypatch.setenv("YAHTZEE_BOARD_MIN_DAYS", "4")
    seen = _fake_serve(monkeypatch)
    argv = ["serve", "--max-open-rooms", "3", "--device-cache-seconds", "0.5"]
    assert main(argv) == 0
    rooms = seen[0].section(RoomSettings)
    assert (rooms.open_rooms, rooms.holds_per_second, rooms.stream_minutes) == (3, 9, 30.0)
    assert seen[0].section(DailySettings).board_min_days == 4
    assert seen[0].section(DeviceSettings).device_cache_seconds == 0.5
    # The platform's own class knows no feature: it has none of their flags.
    assert "max_open_rooms" not in platform.Settings.model_fields
    assert platform.Settings().section(RoomSettings) == RoomSettings()  # (their defaults)
    # A feature's check is the platform's: one line naming the flag and its variable.
    assert main(["serve", "--max-open-rooms", "-1"]) == 2


def test_serve_settings_reach_the_worker_processes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--workers N``: the parent's settings, flags included, are what each worker
    process reads back from its environment."""
    given = Settings(
        db=tmp_path / "g.db",
        secret="w" * 40,
        secret_file=tmp_path / "key",
        workers=2,
        max_actions_per_second=3,
        prune_after_days=1.5,
        max_open_rooms=2,  # (a feature's setting: 好友房间's section)
        max_practice_servings_per_hour=0,
    )
    for name in Settings.model_fields:
        monkeypatch.delenv(f"YAHTZEE_{name.upper()}", raising=False)
    for key, value in given.to_env().items():
        monkeypatch.setenv(key, value)
    assert from_env(Settings) == given


def test_s1_serve_with_an_unreachable_database_fails_with_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from server_process import free_port

    url = f"postgresql://postgres@127.0.0.1:{free_port()}/yahtzee"
    assert main(["serve", "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("yahtzee: error: cannot connect to PostgreSQL at postgresql://")
    assert main(["serve", "--workers", "0"]) == 2


def test_f5_serve_flags_set_the_limits_and_the_secret_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _fake_serve(monkeypatch)
    argv = [
        "serve",
        "--secret-file",
        "/etc/yahtzee.key",
        "--max-new-games-per-minute",
        "5",
        "--max-new-players-per-minute",
        "0",
        "--max-actions-per-second",
        "50",
        "--prune-after-days",
        "2.5",
        "--max-new-games-per-minute-per-address",
        "7",
        "--max-work-per-second",
        "3",
    ]
    assert main(argv) == 0
    assert [(s.secret_file, s.limits) for s in seen] == [
        (Path("/etc/yahtzee.key"), Limits(5, 0, 50, 2.5, 7, 3))
    ]


def test_serve_flags_set_the_socket_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22 item 9: the bare app's socket limits, and whose forwarded headers count."""
    seen = _fake_serve(monkeypatch)
    assert main(["serve"]) == 0
    argv = ["serve", "--max-connections", "50", "--request-timeout", "2.5"]
    argv += ["--keep-alive-timeout", "3", "--forwarded-allow-ips", "127.0.0.1"]
    assert main(argv) == 0
    assert [s.connections for s in seen] == [
        Connections(1000, 10.0, 5.0, None),  # by default nobody's X-Forwarded-For counts
        Connections(50, 2.5, 3.0, "127.0.0.1"),
    ]
    assert main(["serve", "--request-timeout", "0"]) == 2


def test_f5_a_negative_limit_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--max-actions-per-second", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "must be 0 (no limit) or more" in err


WEB_STACK = ("fastapi", "starlette", "uvicorn")


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport sys; print(' '.join(sys.modules), file=sys.stderr)"
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
        check=True,
    )
    return set(proc.stderr.split())


def test_cli_does_not_import_the_web_stack_for_advice() -> None:
    loaded = _modules_after("from yahtzee.cli import main; main(['advise', '--json'])")
    assert "yahtzee.solver" in loaded  # (the probe ran the command)
    assert not loaded & {*WEB_STACK, "pydantic_settings", "pydantic"}


def test_the_server_package_and_its_settings_do_not_force_the_web_stack() -> None:
    loaded = _modules_after("import yahtzee.server, yahtzee.server.settings, yahtzee.web")
    assert "yahtzee.server.settings" in loaded
    assert not loaded & set(WEB_STACK)
    served = _modules_after("import yahtzee.web; yahtzee.web.create_app")
    assert set(WEB_STACK) - {"uvicorn"} <= served  # (the names still resolve, when asked for)


class _Listening:
    """uvicorn's server, stopped at once (a started one that has served)."""

    started = True

    def __init__(self, config: object) -> None:
        self.config = config

    def run(self) -> None:
        return None


@pytest.mark.parametrize(
    ("db", "line"),
    [
        ("games/yahtzee.db", "data: SQLite file {cwd}/games/yahtzee.db"),
        (
            "postgresql://game:s3cret@db.example:5433/yahtzee?sslmode=prefer",
            "data: PostgreSQL database yahtzee on db.example:5433 as game",
        ),
    ],
    ids=["sqlite", "postgresql"],
)
def test_u22_the_server_says_where_its_data_lives_when_it_starts(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    db: str,
    line: str,
) -> None:
    """One line after the address: the SQLite file's absolute path (a relative --db is
    resolved), or the PostgreSQL host, database and user without the password."""
    import uvicorn

    import yahtzee.server.protocol
    import yahtzee.web.app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(serving, "check_storage", lambda *_: None)
    monkeypatch.setattr(serving, "_load_solver", lambda: None)
    monkeypatch.setattr(yahtzee.web.app, "create_app", lambda *_: object())
    monkeypatch.setattr(yahtzee.server.protocol, "ServeConfig", lambda *_, **kw: kw)
    monkeypatch.setattr(yahtzee.server.protocol, "install_log_limits", lambda: None)
    monkeypatch.setattr(uvicorn, "Server", _Listening)
    settings = Settings(db=db, secret="s" * 32)
    serving.serve(settings)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Yacht Dice is running: open http://127.0.0.1:8000/")
    assert out[1] == line.format(cwd=tmp_path.resolve())
    assert "s3cret" not in "\n".join(out)


def test_u22_make_run_keeps_its_database_in_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """`make run` serves on `.data/yahtzee.db` of the checkout (git-ignored), not the
    per-user default an installed `yahtzee serve` keeps; DB=… chooses another."""
    from yahtzee.server.settings import default_db_path

    root = Path(__file__).resolve().parents[2]
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("YAHTZEE_DB", "DB", "MAKEFLAGS", "MAKELEVEL", "MFLAGS")
    }
    recipe = subprocess.run(
        ["make", "--no-print-directory", "-n", "run"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()[-1]
    assert recipe.endswith("--db '.data/yahtzee.db'"), recipe
    other = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", "DB=/tmp/other.db"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()[-1]
    assert other.endswith("--db '/tmp/other.db'"), other
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".data/yahtzee.db"], cwd=root, check=False
    )
    assert ignored.returncode == 0
    monkeypatch.delenv("YAHTZEE_DB", raising=False)
    assert default_db_path() == Path.home() / ".local/share/yahtzee/yahtzee.db"  # installed
