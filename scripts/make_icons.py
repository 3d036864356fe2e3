"""Draw the home-screen icons (polish 10): ``.venv/bin/python scripts/make_icons.py``.

The brand's die — ivory, rounded, three red pips on a diagonal, tilted as in the page's
header — on the table's wood, as PNG at 192 and 512 px (what browsers ask of a web app's
manifest). The die stays inside the middle 80 %, so the same picture also serves as a
"maskable" icon that a phone may cut to a circle or a squircle. Drawn with numpy and written
with zlib (no imaging library), four samples per pixel for smooth edges.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "yahtzee" / "static" / "icons"
WOOD = (0x5B, 0x3A, 0x22)
IVORY = (0xFF, 0xFA, 0xF0)
RED = (0xB3, 0x26, 0x1E)
TILT = np.deg2rad(-8)
SAMPLES = 4


def _coverage(size: int) -> tuple[np.ndarray, np.ndarray]:
    """How much of each pixel the die and its pips cover (0..1), supersampled."""
    n = size * SAMPLES
    ys, xs = (np.mgrid[0:n, 0:n] + 0.5) / n - 0.5  # -0.5..0.5 around the middle
    # Rotate the plane instead of the die: the die is then an upright rounded square.
    u = xs * np.cos(TILT) + ys * np.sin(TILT)
    v = -xs * np.sin(TILT) + ys * np.cos(TILT)
    half, radius = 0.29, 0.07  # inside the maskable safe zone (radius 0.4 of the size)
    dx = np.maximum(np.abs(u) - (half - radius), 0)
    dy = np.maximum(np.abs(v) - (half - radius), 0)
    die = (dx**2 + dy**2) <= radius**2
    pips = np.zeros_like(die)
    for p in (-0.15, 0.0, 0.15):
        pips |= ((u - p) ** 2 + (v - p) ** 2) <= 0.055**2
    pool = (size, SAMPLES, size, SAMPLES)
    return die.reshape(pool).mean(axis=(1, 3)), (die & pips).reshape(pool).mean(axis=(1, 3))


def draw(size: int) -> bytes:
    """The icon at ``size`` x ``size`` as PNG bytes (8-bit RGB)."""
    die, pip = _coverage(size)
    wood, ivory, red = (np.array(c, dtype=float) for c in (WOOD, IVORY, RED))
    rgb = wood * (1 - die[..., None]) + ivory * (die - pip)[..., None] + red * pip[..., None]
    pixels = np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
    raw = b"".join(b"\0" + row.tobytes() for row in pixels)  # filter type 0 on every row

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    """Write icon-192.png and icon-512.png."""
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        path = OUT / f"icon-{size}.png"
        path.write_bytes(draw(size))
        print(f"{path.relative_to(OUT.parents[3])}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
