"""F17: behind https the player cookie is ``Secure``; the shipped nginx sends HSTS on https.

Issue 28 item 10: behind a proxy that says ``X-Forwarded-Proto: https`` the player cookie
lacked ``Secure`` (a network attacker who makes the browser fetch ``http://`` of the site
once reads it), and ``deploy/nginx`` sent no ``Strict-Transport-Security``.

The cookie is tested on the real server (``python -m yahtzee.server``): whose
``X-Forwarded-Proto`` is believed is uvicorn's proxy-headers logic, configured by
``--forwarded-allow-ips``. HSTS is tested on Debian's nginx with the shipped
configuration, given a listener with TLS (a self-signed certificate) in front of one app
process.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from server_process import ServerProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
NGINX = Path("/usr/sbin/nginx")


def _cookie(port: int, source: str, proto: str | None) -> str:
    """The ``Set-Cookie`` a new player gets from a request sent from ``source``."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    head = f"GET /api/records HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
    if proto is not None:
        head += f"X-Forwarded-Proto: {proto}\r\n"
    sock.sendall(head.encode() + b"\r\n")
    raw = b""
    while chunk := sock.recv(65536):
        raw += chunk
    sock.close()
    lines = raw.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    assert lines[0].split()[1] == "200", lines
    cookies = [v for k, _, v in (x.partition(":") for x in lines[1:]) if k.lower() == "set-cookie"]
    assert len(cookies) == 1, lines
    return cookies[0].strip()


def _attributes(cookie: str) -> set[str]:
    return {part.strip().partition("=")[0].lower() for part in cookie.split(";")[1:]}


def test_f17_the_cookie_is_secure_behind_a_trusted_https_proxy_only(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "t.db", args=["--forwarded-allow-ips", "127.0.0.1"]) as server:
        secure = _attributes(_cookie(server.port, "127.0.0.1", "https"))
        assert {"secure", "httponly", "samesite", "path", "max-age"} <= secure
        # Plain http through the same proxy: no Secure (the browser would drop the cookie).
        assert "secure" not in _attributes(_cookie(server.port, "127.0.0.1", "http"))
        assert "secure" not in _attributes(_cookie(server.port, "127.0.0.1", None))
        # Anyone else's X-Forwarded-Proto is not believed.
        assert "secure" not in _attributes(_cookie(server.port, "127.0.0.2", "https"))


def test_f17_without_trusted_proxies_nobody_is_believed(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "t.db") as server:
        assert "secure" not in _attributes(_cookie(server.port, "127.0.0.1", "https"))


# -- HSTS from the shipped nginx -------------------------------------------------------------


def _site(
    app_port: int, http_port: int, https_port: int, cert: Path, key: Path, static: Path
) -> str:
    """deploy/nginx/yahtzee.conf as scripts/stack.sh rewrites it, plus a TLS listener."""
    text = (ROOT / "deploy/nginx/yahtzee.conf").read_text()
    text = text.replace(
        "    server 127.0.0.1:8001 max_fails=0;\n", f"    server 127.0.0.1:{app_port};\n"
    )
    text = text.replace("    server 127.0.0.1:8002 max_fails=0;\n", "")
    listen = (
        f"    listen 127.0.0.1:{http_port};\n"
        f"    listen 127.0.0.1:{https_port} ssl;\n"
        f"    ssl_certificate {cert};\n"
        f"    ssl_certificate_key {key};\n"
    )
    text = text.replace("    listen 8080 reuseport backlog=4096;\n", listen)
    text = text.replace(
        "/etc/nginx/snippets/yahtzee-headers.conf", str(ROOT / "deploy/nginx/yahtzee-headers.conf")
    )
    text = text.replace("root /var/lib/yahtzee/static;", f"root {static};")
    text = text.replace("brotli_static on;", "")  # (the module may be missing here)
    assert f"listen 127.0.0.1:{https_port} ssl;" in text
    return text


@pytest.fixture
def nginx_tls(tmp_path: Path) -> Iterator[tuple[int, int]]:
    if not NGINX.exists() or shutil.which("openssl") is None:
        pytest.skip("needs Debian's nginx and openssl (scripts/install-services.sh)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>x</title>")
    http_port, https_port = free_port(), free_port()
    with ServerProcess(tmp_path / "t.db", args=["--forwarded-allow-ips", "127.0.0.1"]) as app:
        site = tmp_path / "site.conf"
        site.write_text(_site(app.port, http_port, https_port, cert, key, static))
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (tmp_path / "tmp" / kind).mkdir(parents=True)
        temp = "".join(
            f"    {k}_temp_path {tmp_path}/tmp/{k};\n"
            for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        main = tmp_path / "nginx.conf"
        main.write_text(
            f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log warn;\n"
            "events { worker_connections 64; }\n"
            f"http {{\n    include /etc/nginx/mime.types;\n    access_log off;\n{temp}"
            f"    include {site};\n}}\n"
        )
        started = subprocess.run(
            [str(NGINX), "-c", str(main), "-e", str(tmp_path / "error.log")],
            capture_output=True,
            text=True,
        )
        assert started.returncode == 0, started.stderr
        try:
            yield http_port, https_port
        finally:
            pid = (tmp_path / "nginx.pid").read_text().strip()
            subprocess.run(["kill", "-QUIT", pid], check=False)


def _headers(conn: http.client.HTTPConnection, path: str) -> dict[str, str]:
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return {k.lower(): v for k, v in response.getheaders()}


def test_f17_the_shipped_nginx_sends_hsts_on_https_only(nginx_tls: tuple[int, int]) -> None:
    http_port, https_port = nginx_tls
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    tls = http.client.HTTPSConnection("127.0.0.1", https_port, context=context, timeout=10)
    plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
    for path in ("/", "/api/health", "/api/records", "/docs", "/nope"):
        hsts = _headers(tls, path).get("strict-transport-security", "")
        assert "max-age=31536000" in hsts, path
        assert "includesubdomains" not in hsts.lower()  # (the operator's call: other hosts)
        assert "strict-transport-security" not in _headers(plain, path), path
    # And the cookie that came through nginx over https is Secure.
    tls.request("GET", "/api/records")
    response = tls.getresponse()
    response.read()
    assert "Secure" in (response.getheader("set-cookie") or "")
