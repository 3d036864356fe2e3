"""Generate the puzzle bank (L8): ``src/yahtzee/training/bank.tsv.xz``.

Plays ``--games`` seeded solo games of each of 入门 and 普通, reviews them with the expert
and keeps every decision where the level lost at least 1 point, tagged with its themes
(:mod:`yahtzee.training.bank`). The shipped bank is made with the defaults:

    .venv/bin/python scripts/make_puzzle_bank.py              # --games 200 --seed 1

It prints the number of puzzles per level and theme and the file's size.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from yahtzee.training.bank import BANK_FILE, generate, write_bank
from yahtzee.training.themes import THEMES

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "src" / "yahtzee" / "training" / BANK_FILE


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, generate, write, and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="solo games per level")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    puzzles = generate(args.games, args.seed)
    write_bank(puzzles, str(args.out))
    levels = Counter(p.level for p in puzzles)
    themes = Counter(t for p in puzzles for t in p.themes)
    print(f"{len(puzzles)} puzzles in {time.perf_counter() - started:.1f} s -> {args.out}")
    print("levels: " + ", ".join(f"{k} {v}" for k, v in sorted(levels.items())))
    print("themes: " + ", ".join(f"{t} {themes[t]}" for t in THEMES))
    print(f"size: {args.out.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
