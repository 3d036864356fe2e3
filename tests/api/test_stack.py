"""The production stack on loopback (S1, S2): ``scripts/stack.sh`` starts PostgreSQL, two app
processes and nginx with ``deploy/nginx/nginx.conf`` and ``yahtzee.conf``; this checks what
nginx adds."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import RawClient, Stack, postgres_reachable_dir
from yahtzee.server.middleware import SECURITY_HEADERS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with postgres_reachable_dir("yahtzee-stack-") as base:
        stack = Stack(base, access_log=True)  # (who served what: the rooms' test reads it)
        started = stack.run("start")
        try:
            assert started.returncode == 0, started.stdout + started.stderr
            assert f"stack up: http://127.0.0.1:{stack.port}/" in started.stdout
            yield stack
        finally:
            stack.run("stop")


def _get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()


@pytest.mark.parametrize("path", ["/", "/lobby", "/js/main.js", "/css/app.css"])
def test_s2_nginx_serves_precompressed_static_files_with_the_apps_headers(
    stack: Stack, path: str
) -> None:
    url = f"http://127.0.0.1:{stack.port}{path}"
    _, plain_headers, plain = _get(url)
    for encoding, decode in (("br", _unbrotli), ("gzip", _gunzip)):
        status, headers, body = _get(url, **{"Accept-Encoding": encoding})
        assert status == 200
        assert headers.get("content-encoding") == encoding
        assert len(body) < len(plain)
        assert decode(body) == plain
        assert "accept-encoding" in headers.get("vary", "").lower()
    assert "content-encoding" not in plain_headers
    for name, value in SECURITY_HEADERS:
        assert plain_headers[name.decode()] == value.decode(), name
    assert plain_headers["cache-control"] == "no-cache"


def test_s2_nginx_serves_the_apps_page_and_its_release_files(stack: Stack) -> None:
    """The same page as the app (P6), its versioned files cached for a year."""
    front = f"http://127.0.0.1:{stack.port}"
    _, _, page = _get(f"{front}/")
    _, _, app_page = _get(f"http://127.0.0.1:{stack.app_ports[0]}/")
    assert page == app_page
    release = re.search(rb'src="(/v/[0-9a-f]+)/js/main\.js"', page)
    assert release is not None
    status, headers, body = _get(f"{front}{release[1].decode()}/js/main.js")
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert body == _get(f"{front}/js/main.js")[2]
    # A page of an older release still gets today's files (from the app).
    status, headers, old = _get(f"{front}/v/000000000000/js/main.js")
    assert (status, old) == (200, body)
    assert headers["cache-control"] == "no-cache"


def _gunzip(data: bytes) -> bytes:
    import gzip

    return gzip.decompress(data)


def _unbrotli(data: bytes) -> bytes:
    import brotli

    result: bytes = brotli.decompress(data)
    return result


def test_s1_a_game_through_nginx_is_the_same_on_every_app_process(stack: Stack) -> None:
    async def main() -> None:
        front = RawClient("127.0.0.1", stack.port)
        game: dict[str, Any] = await front.request("POST", "/api/games", {"mode": "vs_computer"})
        for _ in range(3):
            game = await front.request(
                "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
            )
            allowed = [c for c, o in game["preview"].items() if o["allowed"]]
            body = {"version": game["version"], "category": allowed[0], "confirm_zero": True}
            game = await front.request("POST", f"/api/games/{game['id']}/score", body)
        for port in stack.app_ports:
            direct = RawClient("127.0.0.1", port)
            direct.cookie = front.cookie
            assert await direct.request("GET", f"/api/games/{game['id']}") == game
            await direct.close()
        await front.close()

    asyncio.run(main())


def test_s2_a_slow_request_head_is_cut_off_by_nginx(stack: Stack) -> None:
    """slowloris: a head that never ends is closed (client_header_timeout, 5 s)."""
    with socket.create_connection(("127.0.0.1", stack.port), timeout=30) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: slow\r\n")
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 25:
            try:
                sock.sendall(b"X")
                sock.settimeout(1.0)
                if sock.recv(1024) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:  # reset_timedout_connection: an RST
                closed = True
                break
        assert closed


def test_s1_s2_one_app_process_down_nginx_serves_from_the_other(stack: Stack) -> None:
    pid = int((stack.dir / f"app-{stack.app_ports[0]}.pid").read_text())
    # A read outside the work budget (/api/records costs 2 units since F14, and the
    # stack's tests all come from one address): the failover is what is tested here.
    url = f"http://127.0.0.1:{stack.port}/api/config"
    assert _get(url)[0] == 200
    os.kill(pid, 9)
    try:
        for _ in range(10):  # every request, whatever process its cookie maps to
            assert _get(url)[0] == 200
    finally:
        _restart(stack, stack.app_ports[0])


def _restart(stack: Stack, port: int, *, wait: bool = False) -> None:
    """Start the stack's app process on ``port`` again (killed by a test), so that the
    stack stops cleanly (the pid file names the new one); ``wait``: until it answers."""
    log = (stack.dir / f"app-{port}.log").open("ab")
    url_db = (stack.dir / "db-url").read_text().strip()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "yahtzee.server",
            "--port",
            str(port),
            "--db",
            url_db,
            "--secret-file",
            str(stack.dir / "cookie.secret"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    (stack.dir / f"app-{port}.pid").write_text(str(proc.pid))
    deadline = time.monotonic() + 120
    while wait and time.monotonic() < deadline:
        try:
            if _get(f"http://127.0.0.1:{port}/api/health")[0] == 200:
                return
        except OSError:
            time.sleep(0.2)
    assert not wait, f"the app process on {port} did not come back"


def test_s4_no_app_process_answering_nginx_says_so_at_once_in_the_error_shape(
    stack: Stack,
) -> None:
    """S4: when no process can answer (here both are killed), a POST gets 503
    ``unavailable`` at once, in the app's error shape, with ``Retry-After`` and the
    security headers, not nginx's HTML 502 page (which the page could not read)."""
    pids = [int((stack.dir / f"app-{p}.pid").read_text()) for p in stack.app_ports]
    for pid in pids:
        os.kill(pid, 9)
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{stack.port}/api/games/0123456789abcdef/roll",
            data=b'{"version": 1}',
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        began = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
        took = time.monotonic() - began
        error = caught.value
        assert error.code == 503
        assert json.loads(error.read())["error"]["code"] == "unavailable"
        assert error.headers["Retry-After"] == "1"
        assert error.headers["Cache-Control"] == "no-store"
        assert error.headers["Content-Type"].startswith("application/json")
        for name, _ in SECURITY_HEADERS:
            assert error.headers[name.decode()], name
        assert took < 5  # (connections refused: no timeout is waited out)
    finally:
        for port in stack.app_ports:
            _restart(stack, port, wait=True)


def test_s2_scale_benchmark_quick_mode_has_no_errors() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "scale_bench.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scale benchmark: PASS" in done.stdout
    assert "0 refused" in done.stdout


# -- nginx's per-address limits (S2): real, and only for the address over them -------------


class _Client:
    """One keep-alive HTTP connection to nginx from a loopback address of its own."""

    def __init__(self, port: int, address: str) -> None:
        self.conn = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=30, source_address=(address, 0)
        )
        self.cookie = ""

    def send(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], Any]:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, payload, headers)
        response = self.conn.getresponse()
        data = response.read()
        found = {k.lower(): v for k, v in response.getheaders()}
        if "set-cookie" in found:
            self.cookie = found["set-cookie"].split(";", 1)[0]
        return response.status, found, json.loads(data) if data else None

    def close(self) -> None:
        self.conn.close()


def _play_a_turn(port: int, address: str) -> None:
    """A new solo game, a roll and a score from ``address``, each answered with success."""
    client = _Client(port, address)
    try:
        status, _, game = client.send("POST", "/api/games", {"mode": "solo"})
        assert status == 201, (address, status, game)
        status, _, game = client.send(
            "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
        )
        assert status == 200, (address, status, game)
        allowed = [c for c, o in game["preview"].items() if o["allowed"]]
        body = {"version": game["version"], "category": allowed[0], "confirm_zero": True}
        status, _, game = client.send("POST", f"/api/games/{game['id']}/score", body)
        assert status == 200, (address, status, game)
    finally:
        client.close()


def _assert_rate_limited_answer(headers: dict[str, str], body: Any) -> None:
    """nginx's 429 has the app's error shape, Retry-After and the security headers."""
    assert body["error"]["code"] == "rate_limited"
    assert "秒后再试" in body["error"]["message"]
    assert headers["content-type"] == "application/json"
    assert headers["retry-after"] == "1"
    assert headers["cache-control"] == "no-store"
    for name, value in SECURITY_HEADERS:
        assert headers[name.decode()] == value.decode(), name


def _nginx_log(stack: Stack) -> str:
    return (stack.dir / "nginx-error.log").read_text(errors="replace")


def test_s2_nginx_limit_req_refuses_one_address_over_its_rate_while_another_plays(
    stack: Stack,
) -> None:
    """limit_req (20/s, burst 40, on /api): 10 connections from 127.0.9.1 sending as fast as
    they can get 429 ``rate_limited``; meanwhile 127.0.9.2 plays a turn untouched, and the
    exempt 127.0.0.1 (local health probes) is never refused."""
    flooder = "127.0.9.1"
    refused = threading.Event()
    done = threading.Event()
    answers: list[tuple[int, dict[str, str], Any]] = []

    def flood() -> None:
        client = _Client(stack.port, flooder)
        try:
            for _ in range(300):  # a few seconds at most, even on a slow machine
                if done.is_set():
                    break
                answer = client.send("GET", "/api/health")
                answers.append(answer)
                if answer[0] == 429:
                    refused.set()
        finally:
            client.close()

    threads = [threading.Thread(target=flood) for _ in range(10)]
    for thread in threads:
        thread.start()
    try:
        assert refused.wait(60), "no 429 for 3,000 requests from one address"
        _play_a_turn(stack.port, "127.0.9.2")  # while 127.0.9.1 is being refused
        still_refused = sum(1 for a in answers[-20:] if a[0] == 429)
    finally:
        done.set()
        for thread in threads:
            thread.join()
    statuses = {a[0] for a in answers}
    assert statuses == {200, 429}, statuses
    assert still_refused > 0  # the flood was still being refused while the other played
    _, headers, body = next(a for a in answers if a[0] == 429)
    _assert_rate_limited_answer(headers, body)
    assert f'zone "yahtzee_api", client: {flooder}' in _nginx_log(stack)

    # The exempt address: as fast as it likes.
    local = _Client(stack.port, "127.0.0.1")
    try:
        assert {local.send("GET", "/api/health")[0] for _ in range(200)} == {200}
    finally:
        local.close()


def test_s2_nginx_limit_conn_refuses_the_65th_request_in_progress_of_one_address(
    stack: Stack,
) -> None:
    """limit_conn (64 requests in progress per address): 64 uploads from 127.0.9.3 that
    never end (a body byte a second, so client_body_timeout never fires), opened slower
    than the rate limit; a 65th request from 127.0.9.3 gets 429 ``rate_limited``, while
    127.0.9.4 plays a turn; once the uploads end, 127.0.9.3 is served again."""
    hog = "127.0.9.3"
    held: list[socket.socket] = []
    stop = threading.Event()

    def trickle() -> None:
        while not stop.wait(1.0):
            for sock in held:
                with contextlib.suppress(OSError):
                    sock.sendall(b" ")

    trickler = threading.Thread(target=trickle)
    trickler.start()
    try:
        head = (
            b"POST /api/games HTTP/1.1\r\nHost: hog\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n"
        )
        for _ in range(64):
            sock = socket.create_connection(
                ("127.0.0.1", stack.port), timeout=30, source_address=(hog, 0)
            )
            sock.sendall(head)
            held.append(sock)
            time.sleep(0.06)  # 16 a second: under limit_req's 20/s, so only limit_conn counts
        answer = None
        for _ in range(100):  # until nginx has read all 64 heads (two workers)
            client = _Client(stack.port, hog)
            try:
                answer = client.send("GET", "/api/health")
            finally:
                client.close()
            if answer[0] == 429:
                break
            time.sleep(0.1)
        assert answer is not None
        assert answer[0] == 429, answer
        _assert_rate_limited_answer(answer[1], answer[2])
        assert f'limiting connections by zone "yahtzee_conn", client: {hog}' in _nginx_log(stack)
        _play_a_turn(stack.port, "127.0.9.4")
    finally:
        stop.set()
        trickler.join()
        for sock in held:
            sock.close()
    for _ in range(100):  # nginx notices the closed uploads
        client = _Client(stack.port, hog)
        try:
            status = client.send("GET", "/api/health")[0]
        finally:
            client.close()
        if status == 200:
            break
        time.sleep(0.1)
    assert status == 200
