"""F18: every per-address limit counts an IPv6 /64 as one client, in the app and in the
shipped nginx (issue 35 item 1: "every cap keys on the exact address, so one IPv6 /64 is
enough").

The attacks: new games from many addresses of one /64, each under the per-address limit
(in the database's shared buckets, both backends); room streams from many addresses of one
/64, each under the per-address stream cap (a real server behind a trusted proxy's
``X-Forwarded-For``, as nginx sends it). And nginx's own key, the map in
``deploy/nginx/yahtzee.conf``, checked against the app's on thousands of addresses by a
real nginx told each client address through its realip module.
"""

from __future__ import annotations

import asyncio
import http.client
import ipaddress
import random
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server_process import NO_LIMIT_ARGS, EventStream, RawClient, ServerProcess, free_port
from yahtzee.server.addresses import address_group
from yahtzee.server.settings import Limits

from .helpers import error_code

ROOT = Path(__file__).resolve().parents[2]
NGINX = "/usr/sbin/nginx"


def test_f18_an_ipv6_address_counts_as_its_64_and_an_ipv4_address_as_itself() -> None:
    assert address_group("2001:db8:0:1::a") == "2001:db8:0:1::/64"
    assert address_group("2001:0DB8:0000:0001:ffff:1:2:3") == "2001:db8:0:1::/64"
    assert address_group("2001:db8::1") == "2001:db8:0:0::/64"
    assert address_group("fe80::1%eth0") == "fe80:0:0:0::/64"
    assert address_group("::ffff:192.0.2.7") == "192.0.2.7"  # a dual-stack socket's IPv4
    assert address_group("192.0.2.7") == "192.0.2.7"
    assert address_group("192.0.2.8") != address_group("192.0.2.7")
    assert address_group("testclient") == "testclient"  # (not an address: itself)
    assert address_group("not:an:address") == "not:an:address"


def _from(client: TestClient, address: str) -> TestClient:
    return TestClient(client.app, client=(address, 50000))


def test_f18_the_per_address_limit_of_new_games_counts_one_64(
    make_client: Callable[..., TestClient],
) -> None:
    """The attack: a new address of the /64 for each new game, each under the limit."""
    limits = Limits(0, 0, 0, new_games_per_minute_per_address=3, work_per_second=0)
    app = make_client(limits=limits)
    answers = [
        _from(app, f"2001:db8:0:1::{i:x}").post("/api/games", json={"mode": "solo"})
        for i in range(1, 5)
    ]
    assert [r.status_code for r in answers] == [201, 201, 201, 429]
    assert error_code(answers[3]) == "rate_limited"
    # another /64 (the next one) and an IPv4 address have limits of their own
    assert _from(app, "2001:db8:0:2::1").post("/api/games", json={"mode": "solo"}).status_code == (
        201
    )
    assert _from(app, "192.0.2.1").post("/api/games", json={"mode": "solo"}).status_code == 201


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server that believes 127.0.0.1's X-Forwarded-For (as behind nginx), two streams
    an address."""
    at = NO_LIMIT_ARGS.index("--max-streams-per-address")
    args = [
        *NO_LIMIT_ARGS[:at],
        *NO_LIMIT_ARGS[at + 2 :],
        "--forwarded-allow-ips",
        "127.0.0.1",
        "--max-streams-per-address",
        "2",
        "--max-rooms-per-hour-per-address",
        "0",
    ]
    with ServerProcess(tmp_path / "groups.db", args=args) as server:
        yield server


def test_f18_the_stream_cap_per_address_counts_one_64(proxied: ServerProcess) -> None:
    """The attack: each stream from another address of the /64, each under the cap."""

    async def stream_from(address: str) -> tuple[int, EventStream]:
        client = RawClient("127.0.0.1", proxied.port)
        client.headers["X-Forwarded-For"] = address
        seats = [{"kind": "human", "name": "我"}, {"kind": "computer", "difficulty": "novice"}]
        room = (await client.request("POST", "/api/rooms", {"seats": seats}))["room"]
        await client.close()
        stream = EventStream(
            "127.0.0.1",
            proxied.port,
            f"/api/rooms/{room['id']}/events",
            cookie=client.cookie,
            headers={"X-Forwarded-For": address},
        )
        return await stream.open(), stream

    async def main() -> list[int]:
        opened = [await stream_from(f"2001:db8:0:1::{i:x}") for i in range(1, 4)]
        opened.append(await stream_from("2001:db8:0:2::1"))
        for _, stream in opened:
            await stream.close()
        return [status for status, _ in opened]

    assert asyncio.run(main()) == [200, 200, 429, 200]


# -- nginx's key ------------------------------------------------------------------------


def _shipped_map() -> str:
    """The map of the shipped site configuration that makes ``$yahtzee_address_group``."""
    text = (ROOT / "deploy" / "nginx" / "yahtzee.conf").read_text()
    found = re.search(r"^map \$remote_addr \$yahtzee_address_group \{.*?^\}", text, re.S | re.M)
    assert found is not None, "the shipped configuration has no address-group map"
    return found[0]


@pytest.fixture
def echo_nginx(tmp_path: Path) -> Iterator[int]:
    """nginx with the shipped map, answering each request with the group of the client
    address it is told in ``X-Real-IP`` (its realip module, believed from 127.0.0.1)."""
    port = free_port()
    temp = "".join(
        f"  {kind}_temp_path {tmp_path / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\npid {tmp_path / 'nginx.pid'};\n"
        f"error_log {tmp_path / 'error.log'};\nevents {{ worker_connections 64; }}\n"
        f"http {{\n  access_log off;\n{temp}{_shipped_map()}\n"
        f"  server {{\n    listen 127.0.0.1:{port};\n    set_real_ip_from 127.0.0.1;\n"
        "    real_ip_header X-Real-IP;\n    keepalive_requests 100000;\n"
        '    location / { default_type text/plain; return 200 "$yahtzee_address_group"; }\n'
        "  }\n}\n"
    )
    error_log = str(tmp_path / "error.log")
    subprocess.run([NGINX, "-c", str(conf), "-e", error_log], check=True, timeout=30)
    try:
        yield port
    finally:
        pid = (tmp_path / "nginx.pid").read_text().strip()
        subprocess.run(["kill", "-QUIT", pid], check=False)


def _addresses(n: int) -> list[str]:
    """IPv6 addresses with zero groups anywhere (so that nginx's "::" falls everywhere),
    written in each of their forms, IPv4 and IPv4-mapped ones."""
    rng = random.Random(35)
    out = ["::", "::1", "1::", "::ffff:192.0.2.1", "192.0.2.1", "10.1.2.3"]
    for _ in range(n):
        groups = [0 if rng.random() < 0.5 else rng.choice((1, 0xA, 0xFFFF, rng.getrandbits(16)))]
        groups += [0 if rng.random() < 0.5 else rng.getrandbits(16) for _ in range(7)]
        ip = ipaddress.IPv6Address(sum(g << (16 * (7 - i)) for i, g in enumerate(groups)))
        out.append(rng.choice((ip.compressed, ip.exploded, ip.exploded.upper())))
    return out


def test_f18_nginx_keys_its_limits_by_the_same_group_as_the_app(echo_nginx: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", echo_nginx, timeout=10)
    mismatches: list[tuple[str, str, str]] = []
    try:
        for address in _addresses(3000):
            conn.request("GET", "/", headers={"X-Real-IP": address})
            answer = conn.getresponse().read().decode()
            if answer != address_group(address):
                mismatches.append((address, answer, address_group(address)))
    finally:
        conn.close()
    assert mismatches == []


def test_f18_the_shipped_nginx_limits_key_on_the_address_group() -> None:
    text = (ROOT / "deploy" / "nginx" / "yahtzee.conf").read_text()
    key: Any = re.search(r"map \$yahtzee_limited \$yahtzee_client \{(.*?)\}", text, re.S)
    assert key is not None
    assert "default $yahtzee_address_group;" in key[1]
    assert "limit_conn_zone $yahtzee_client " in text
    assert "limit_req_zone $yahtzee_client " in text
    assert "$binary_remote_addr" not in text
