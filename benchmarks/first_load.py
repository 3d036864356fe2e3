"""What a browser downloads on its first visit: the page, its CSS, its scripts (P6).

``python benchmarks/first_load.py``

Asks the real app (in process, a throwaway database) for ``/`` the way a browser does
(``Accept-Encoding: gzip, deflate, br``), then for every file the page links to (the
stylesheet, the icon and every ES module it preloads or imports), and prints each file's
raw bytes and the bytes sent (the compressed body; headers not counted). The target is
<= 40 KB sent for HTML, JS and CSS together.
"""

from __future__ import annotations

import re
import sys
import tempfile
import warnings
from pathlib import Path

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from yahtzee.web import Settings, create_app

TARGET = 40 * 1024
# The page's own files are linked under the release prefix (/v/<release>/…); other links
# (/rules, the lobby) are views of the same page, not downloads.
_LINKS = re.compile(r'(?:href|src)="(/v/[^"]+)"')
_IMPORTS = re.compile(r'^\s*import\s[^"\n]*"(\./[^"]+)"', re.M)
BROWSER_ENCODINGS = {"Accept-Encoding": "gzip, deflate, br"}


def first_load(client: TestClient) -> list[tuple[str, int, int]]:
    """``(path, raw bytes, bytes sent)`` of the page and every file it loads at once."""
    rows: list[tuple[str, int, int]] = []
    queue = ["/"]
    seen: set[str] = set()
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        r = client.get(path, headers=BROWSER_ENCODINGS)
        r.raise_for_status()
        sent = int(r.headers["content-length"])
        rows.append((path, len(r.content), sent))
        if path == "/":
            # The target counts what the page needs to run (HTML, CSS, JS and the manifest
            # the browser reads with it); the tab's and the home screen's pictures are
            # fetched by the browser on its own schedule (an apple-touch-icon only when the
            # page is added to an iPhone's home screen).
            queue += [p for p in _LINKS.findall(r.text) if not p.endswith((".svg", ".png"))]
        elif path.endswith(".js"):
            base = path.rsplit("/", 1)[0]
            queue += [f"{base}/{rel[2:]}" for rel in _IMPORTS.findall(r.text)]
    return rows


def main() -> int:
    """Print the table; exit 1 if the first load is over the target."""
    with tempfile.TemporaryDirectory() as tmp:
        client = TestClient(create_app(Settings(db=Path(tmp) / "bench.db")))
        rows = first_load(client)
    width = max(len(p) for p, _, _ in rows)
    print(f"{'file':<{width}}  {'raw':>8}  {'sent':>8}")
    for path, raw, sent in rows:
        print(f"{path:<{width}}  {raw:>8,}  {sent:>8,}")
    raw_total = sum(r for _, r, _ in rows)
    sent_total = sum(s for _, _, s in rows)
    print(f"{'total (' + str(len(rows)) + ' files)':<{width}}  {raw_total:>8,}  {sent_total:>8,}")
    ok = sent_total <= TARGET
    verdict = "ok" if ok else "OVER"
    print(f"first load sent: {sent_total / 1024:.1f} KB (target <= {TARGET // 1024} KB): {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
