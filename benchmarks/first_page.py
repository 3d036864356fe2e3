"""The first page of a fresh clone: ``git clone`` → ``make run`` → the first 200 of ``/``.

What a new player or operator waits for (target ≤ 15 s): the clone, the venv, the install
of the runtime dependencies (``make run`` installs no dev tools), the solver table's build
(a fresh cache directory each run) and the server's start. The pip cache is the machine's
own, as on any machine that has installed Python packages before; the figure says so.

    python benchmarks/first_page.py [--runs 3] [--source PATH]   # median of the runs
    python benchmarks/first_page.py --quick                     # smoke: serve only

Each run clones ``--source`` (default: this checkout's committed HEAD) into a temporary
directory, runs ``make run HOST=127.0.0.1 PORT=<free port>`` there with its own database
and solver cache, polls ``GET /`` every 50 ms, and then stops the server. The phases are
timed by what appears on disk: the clone, the venv (``.venv/bin/python``, made once uv is
fetched), the install (``.venv/.runtime-stamp``), then the first page. The CPU time of the
whole run (user + system, every process it started) is printed too: on a loaded machine it
is the figure that stays put. ``--quick`` skips the clone and install
and times ``python -m yahtzee.server`` of this interpreter (a check of the script only).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 15.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def page_status(url: str) -> int | None:
    """The status of ``GET url``, or ``None`` while nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


def du_mib(path: Path) -> float:
    """The disk space taken by ``path``, in MiB."""
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            file = Path(dirpath) / name
            if not file.is_symlink():
                total += file.stat().st_size
    return total / 2**20


def session_cpu(sid: int) -> float:
    """CPU seconds (user + system) of the processes of session ``sid`` and of the children
    they have waited for: what the run cost, whatever else the machine was doing."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:  # field 6 of stat: the session id
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / tick


def stop(server: subprocess.Popen[bytes]) -> None:
    """Stop the run's session (make and the server it started), if it still runs."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
    except ProcessLookupError:  # it had exited by itself (the log says why)
        server.wait()
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def one_run(source: Path, quick: bool, timeout: float) -> dict[str, Any]:
    """Clone, ``make run`` and wait for the first page once; the phases' end times (s)."""
    with tempfile.TemporaryDirectory(prefix="first-page-") as tmp:
        work = Path(tmp)
        clone = work / "yahtzee"
        port = free_port()
        env = {
            **os.environ,
            "YAHTZEE_DB": str(work / "games.db"),
            "YAHTZEE_CACHE_DIR": str(work / "cache"),  # the solver table is built afresh
        }
        env.pop("VIRTUAL_ENV", None)
        url = f"http://127.0.0.1:{port}/"
        marks: dict[str, float] = {}
        start = time.perf_counter()
        clone_cpu = 0.0
        if quick:
            cmd = [sys.executable, "-m", "yahtzee.server", "--port", str(port)]
            cwd = ROOT
        else:
            subprocess.run(
                ["git", "clone", "--quiet", str(source), str(clone)], check=True, timeout=timeout
            )
            marks["clone"] = time.perf_counter() - start
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            clone_cpu = usage.ru_utime + usage.ru_stime
            cmd = ["make", "--no-print-directory", "run", "HOST=127.0.0.1", f"PORT={port}"]
            cwd = clone
        log = (work / "run.log").open("w")
        server = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        cpu = 0.0
        try:
            status = None
            while time.perf_counter() - start < timeout:
                now = time.perf_counter() - start
                if "venv" not in marks and (clone / ".venv" / "bin" / "python").exists():
                    marks["venv"] = now
                if "install" not in marks and (clone / ".venv" / ".runtime-stamp").exists():
                    marks["install"] = now
                if server.poll() is not None:
                    break
                status = page_status(url)
                if status is not None:
                    marks["first_page"] = time.perf_counter() - start
                    cpu = session_cpu(server.pid)
                    break
                time.sleep(0.05)
        finally:
            stop(server)
            log.close()
        if status != 200:
            output = (work / "run.log").read_text(errors="replace")[-2000:]
            raise SystemExit(f"no first page (status {status}) within {timeout:.0f} s:\n{output}")
        marks["cpu_seconds"] = round(cpu + clone_cpu, 2)
        if not quick:
            marks["venv_mib"] = round(du_mib(clone / ".venv"), 1)
        return marks


def main(argv: list[str] | None = None) -> None:
    """Run the measurement and print the median figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--source", type=Path, default=ROOT, help="the repository to clone")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a run may take")
    parser.add_argument("--quick", action="store_true", help="serve only: no clone, no install")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else args.runs
    results = [one_run(args.source, args.quick, args.timeout) for _ in range(runs)]
    figures: dict[str, Any] = {"runs": runs, "quick": args.quick}
    for key in results[0]:
        figures[key] = round(statistics.median(r[key] for r in results), 2)
    figures["first_page_all"] = [round(r["first_page"], 2) for r in results]
    figures["target_seconds"] = TARGET_SECONDS
    figures["load_average"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(figures))
        return
    what = "serve only (--quick)" if args.quick else "clone → make run → first 200 of /"
    print(f"first page, {what}: median of {runs} run(s), load average {figures['load_average']}")
    for key in ("clone", "venv", "install"):
        if key in figures:
            print(f"  {key:<10} done at {figures[key]:6.2f} s")
    print(f"  first page at {figures['first_page']:6.2f} s  (target ≤ {TARGET_SECONDS:g} s)")
    print(
        f"  CPU time of the run (clone, make and what they started): {figures['cpu_seconds']:.1f} s"
    )
    print(f"  runs: {', '.join(f'{t:.2f} s' for t in figures['first_page_all'])}")
    if "venv_mib" in figures:
        print(f"  venv {figures['venv_mib']:.0f} MiB (runtime dependencies only, pip cache warm)")


if __name__ == "__main__":
    main()
