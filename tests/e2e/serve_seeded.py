"""Run the real game server with deterministic dice, for the browser tests and screenshots.

``python tests/e2e/serve_seeded.py --port P --db PATH (--seed N | --script 3,3,3,... [--repeat])
[--pseudo-language]``

``yahtzee serve`` has no way to seed the dice (on purpose: production dice come from the
OS), so the tests start the same app through ``create_app(settings, Wiring(...))`` with the
test-only ``dice_seed`` / ``dice`` parts. A subprocess rather than a thread keeps the server's CPU
work (the computer players) off the test process's interpreter lock.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import uvicorn

from yahtzee.dice import ScriptedDice
from yahtzee.web import Settings, Wiring, create_app


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve until terminated."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", type=Path, required=True)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--seed", type=int, help="seed of the server's one dice generator")
    group.add_argument("--script", help="comma-separated faces dealt in order (ScriptedDice)")
    parser.add_argument("--repeat", action="store_true", help="start the script over when done")
    parser.add_argument(
        "--pseudo-language", action="store_true", help="also serve en-XA (the layout walks, G4)"
    )
    args = parser.parse_args(argv)
    if args.script is not None:
        faces = [int(f) for f in args.script.split(",") if f.strip()]
        wiring = Wiring(dice=ScriptedDice(faces, repeat=args.repeat))
    else:
        wiring = Wiring(dice_seed=args.seed)
    uvicorn.run(
        create_app(Settings(db=args.db, pseudo_language=args.pseudo_language), wiring),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
    )


if __name__ == "__main__":
    main()
