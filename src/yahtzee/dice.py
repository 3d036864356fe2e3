"""Sources of dice rolls. Randomness is always injected, never taken from a global.

Production uses :class:`SystemDice` (the operating system's cryptographic randomness);
tests and simulations use :class:`SeededDice` so every game is reproducible.
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol


class DiceSource(Protocol):
    """Anything that can roll ``n`` fair six-sided dice."""

    def roll(self, n: int) -> list[int]:
        """Return ``n`` independent faces in 1..6."""
        ...


class SystemDice:
    """Dice from :mod:`secrets` (the OS CSPRNG): what a real game uses."""

    def roll(self, n: int) -> list[int]:
        """Return ``n`` faces drawn from the operating system's randomness: one number
        below 6**n read in base 6, each digit a face (uniform and independent, as ``n``
        draws of one face would be, for one read of the OS's randomness instead of ``n``:
        every room roll paid five system calls)."""
        draw = secrets.randbelow(6**n) if n > 0 else 0
        faces = []
        for _ in range(n):
            draw, face = divmod(draw, 6)
            faces.append(face + 1)
        return faces


class SeededDice:
    """Reproducible dice from a seeded :class:`random.Random` (tests, simulations)."""

    def __init__(self, seed: int | str | None = None, *, rng: random.Random | None = None) -> None:
        """Dice from ``random.Random(seed)``, or from the caller's generator ``rng``."""
        self._rng = rng if rng is not None else random.Random(seed)

    def roll(self, n: int) -> list[int]:
        """Return ``n`` faces from the seeded generator."""
        return [self._rng.randint(1, 6) for _ in range(n)]


class ScriptedDice:
    """Dice that come out in a fixed order (tests that need a particular roll); with
    ``repeat`` the script starts over when it runs out (a server shared by several tests)."""

    def __init__(self, faces: list[int], *, repeat: bool = False) -> None:
        if repeat and not faces:
            raise ValueError("a repeating script needs at least one face")
        self._script = list(faces)
        self._faces = list(faces)
        self._repeat = repeat

    def roll(self, n: int) -> list[int]:
        """Return the next ``n`` scripted faces; raises :class:`IndexError` when exhausted
        (never with ``repeat``)."""
        while self._repeat and n > len(self._faces):
            self._faces += self._script
        if n > len(self._faces):
            raise IndexError(f"scripted dice exhausted: wanted {n}, {len(self._faces)} left")
        out, self._faces = self._faces[:n], self._faces[n:]
        return out
