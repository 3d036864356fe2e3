"""Invite links as QR codes (O8, D6), one drawing for every feature that shows one."""

from __future__ import annotations

import io

import segno


def qr_svg(url: str, title: str) -> bytes:
    """``url`` as a QR code titled ``title``: a standalone SVG document (with its
    namespace), which an ``<img>`` shows and in which no script runs (a job of the CPU
    pool: module-level, so a worker process can run it)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", scale=5, border=2, dark="#000", light="#fff", title=title
    )
    return out.getvalue()
