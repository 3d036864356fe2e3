"""Copy the browser game's static files to a directory nginx serves, precompressed (S2).

    .venv/bin/python scripts/precompress.py /var/lib/yahtzee/static

Each text file (HTML, JS, CSS, SVG, JSON) gets a ``.gz`` (gzip -9) and a ``.br`` (brotli
11) beside it, with the original's modification time, for nginx's ``gzip_static`` and
``brotli_static``: nginx then compresses nothing per request. A compressed copy that would
not be smaller is not written. Files no longer in the package are removed from the target.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import sys
from pathlib import Path

import brotli

from yahtzee.server.settings import STATIC_DIR

COMPRESSIBLE = {".html", ".js", ".mjs", ".css", ".svg", ".json", ".webmanifest", ".txt"}


def precompress(source: Path, target: Path) -> list[tuple[str, int, int, int]]:
    """Mirror ``source`` into ``target`` with ``.gz``/``.br`` siblings; returns, per text
    file, its relative path and sizes (plain, gzip, brotli; 0 when not written)."""
    target.mkdir(parents=True, exist_ok=True)
    wanted: set[Path] = set()
    report = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        rel = path.relative_to(source)
        out = target / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, out)
        wanted.add(out)
        if path.suffix not in COMPRESSIBLE:
            continue
        data = path.read_bytes()
        sizes = []
        for suffix, packed in (
            (".gz", gzip.compress(data, compresslevel=9, mtime=0)),
            (".br", brotli.compress(data, quality=11)),
        ):
            packed_path = out.with_name(out.name + suffix)
            if len(packed) < len(data):
                packed_path.write_bytes(packed)
                stat = path.stat()
                os.utime(packed_path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
                wanted.add(packed_path)
                sizes.append(len(packed))
            else:
                sizes.append(0)
        report.append((str(rel), len(data), sizes[0], sizes[1]))
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
        total = [total[0] + plain, total[1] + (gz or plain), total[2] + (br or plain)]
    print(f"{'total':32} {total[0]:8} B  gzip {total[1]:7} B  brotli {total[2]:7} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
