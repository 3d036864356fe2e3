"""Write the browser game's files to a directory nginx serves, precompressed (S2).

    .venv/bin/python scripts/precompress.py /var/lib/yahtzee/static

The layout is what the app itself serves (:class:`yahtzee.server.assets.StaticAssets`,
P6): ``index.html`` is the page with its files under the release prefix
``/v/<release>/``, and every file is written both at ``/<file>`` and at
``/v/<release>/<file>`` (nginx caches the latter for a year, like the app). Each text file
gets a ``.gz`` (gzip -9) and a ``.br`` (brotli 11) beside it for nginx's ``gzip_static``
and ``brotli_static``: nginx then compresses nothing per request. A compressed copy that
would not be smaller is not written. Files of older releases are removed from the target
(a page of an older release still gets today's files: nginx passes unknown ``/v/`` paths
to the app).
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

import brotli

from yahtzee.i18n import REAL
from yahtzee.server.settings import STATIC_DIR
from yahtzee.web.app import static_assets

COMPRESSIBLE = {".html", ".js", ".mjs", ".css", ".svg", ".json", ".webmanifest", ".txt"}


def precompress(source: Path, target: Path) -> list[tuple[str, int, int, int]]:
    """Write the page and its files from ``source`` into ``target`` with ``.gz``/``.br``
    siblings; returns, per text file, its relative path and sizes (plain, gzip, brotli;
    0 when not written)."""
    # Exactly the app's page and files (the catalogs' modules among them); the page itself
    # is the app's to serve, in the player's language (nginx passes it on): index.html is
    # its zh-Hans variant.
    assets = static_assets(source, REAL)
    bodies = {"/index.html": assets.page.body}
    bodies.update({name: a.body for name, a in assets.files.items() if name != "/index.html"})
    target.mkdir(parents=True, exist_ok=True)
    wanted: set[Path] = set()
    report = []
    for name, data in sorted(bodies.items()):
        packed = {}
        if Path(name).suffix in COMPRESSIBLE:
            gz = gzip.compress(data, compresslevel=9, mtime=0)
            br = brotli.compress(data, quality=11)
            packed = {suffix: p for suffix, p in ((".gz", gz), (".br", br)) if len(p) < len(data)}
            report.append((name.lstrip("/"), len(data), len(gz), len(br)))
        places = [name] if name == "/index.html" else [name, assets.prefix + name]
        for place in places:
            out = target / place.lstrip("/")
            out.parent.mkdir(parents=True, exist_ok=True)
            for path, body in [(out, data)] + [
                (out.with_name(out.name + suffix), p) for suffix, p in packed.items()
            ]:
                if not path.exists() or path.read_bytes() != body:
                    path.write_bytes(body)
                wanted.add(path)
    for stale in [p for p in target.rglob("*") if p.is_file() and p not in wanted]:
        stale.unlink()
    return report


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, precompress, print the sizes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", type=Path, help="directory nginx serves (created)")
    parser.add_argument("--source", type=Path, default=STATIC_DIR, help="default: the package's")
    args = parser.parse_args(argv)
    if args.target.resolve() == args.source.resolve():
        print("error: the target must not be the package's own static directory", file=sys.stderr)
        return 2
    total = [0, 0, 0]
    for rel, plain, gz, br in precompress(args.source, args.target):
        print(f"{rel:32} {plain:8} B  gzip {gz:7} B  brotli {br:7} B")
        total = [total[0] + plain, total[1] + min(gz, plain), total[2] + min(br, plain)]
    print(f"{'total':32} {total[0]:8} B  gzip {total[1]:7} B  brotli {total[2]:7} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
