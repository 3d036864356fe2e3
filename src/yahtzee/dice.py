"""Sources of dice rolls. Randomness is always injected, never taken from a global.

Production uses :class:`SystemDice` (the operating system's cryptographic randomness);
tests and simulations use :class:`SeededDice` so every game is reproducible. A game in
which everybody who holds the same dice sees the same faces (a kind of game whose rules
give it its own dice, K2: the tutorial's, a feature's day or race) draws each turn from a
fixed face sequence per round, :class:`RoundStreams`; a secret one is
:class:`KeyedStreams`.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from typing import Protocol

from yahtzee.errors import IllegalMoveError

ROUNDS = 13
#: The faces of a round's sequence: 5 + 5 + 5, the most dice a turn can roll (rerolling
#: all five twice).
FACES_PER_ROUND = 15


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


class StreamDice:
    """The dice of one turn: the next faces of the round's sequence (a DiceSource)."""

    def __init__(self, faces: tuple[int, ...], drawn: int = 0) -> None:
        if not 0 <= drawn <= len(faces):
            raise IllegalMoveError(f"{drawn} faces drawn of a sequence of {len(faces)}")
        self._faces = faces
        self.drawn = drawn

    def roll(self, n: int) -> list[int]:
        """The next ``n`` faces; :class:`IllegalMoveError` past the end (no legal turn
        gets there)."""
        if n < 0 or self.drawn + n > len(self._faces):
            raise IllegalMoveError(
                f"the round's {len(self._faces)} faces are used up "
                f"({self.drawn} drawn, {n} more wanted)"
            )
        out = list(self._faces[self.drawn : self.drawn + n])
        self.drawn += n
        return out


class RoundStreams:
    """A fixed face sequence for each of a game's rounds: the dice of a game in which
    everybody who holds the same dice sees the same faces. A turn's first roll takes the
    next five faces of its round's sequence, each reroll the next ones for the dice not
    held, in die order, so :data:`FACES_PER_ROUND` faces always suffice."""

    def __init__(self, rounds: tuple[tuple[int, ...], ...]) -> None:
        if len(rounds) != ROUNDS:
            raise IllegalMoveError(f"a game has {ROUNDS} rounds, not {len(rounds)}")
        self._rounds = rounds

    def faces(self, round_: int) -> tuple[int, ...]:
        """The face sequence of round ``round_`` (1..13)."""
        if not 1 <= round_ <= ROUNDS:
            raise IllegalMoveError(f"a game has rounds 1..{ROUNDS}, not {round_}")
        return self._rounds[round_ - 1]

    def turn(self, round_: int, drawn: int = 0) -> StreamDice:
        """The dice of round ``round_``'s turn after ``drawn`` faces of it were rolled."""
        return StreamDice(self.faces(round_), drawn)


def keyed_faces(secret: bytes, purpose: bytes, label: str, round_: int) -> tuple[int, ...]:
    """The :data:`FACES_PER_ROUND` faces of round ``round_`` (1..13) of the stream named
    ``label`` for ``purpose`` under the server's ``secret``: the bytes of
    ``HMAC-SHA256(secret, purpose + "<label>:<round>:<block>")``, each byte below 252
    giving ``byte % 6 + 1`` (rejection sampling: every face exactly equally likely).
    Nobody without the secret can compute them, every process that shares it agrees on
    them, and one label's faces say nothing about another's (a day's, a race's)."""
    if not 1 <= round_ <= ROUNDS:
        raise IllegalMoveError(f"a game has rounds 1..{ROUNDS}, not {round_}")
    faces: list[int] = []
    block = 0
    while len(faces) < FACES_PER_ROUND:
        message = purpose + f"{label}:{round_}:{block}".encode()
        for byte in hmac.new(secret, message, hashlib.sha256).digest():
            if byte < 252 and len(faces) < FACES_PER_ROUND:
                faces.append(byte % 6 + 1)
        block += 1
    return tuple(faces)


class KeyedStreams(RoundStreams):
    """The dice of every game on one secret stream (:func:`keyed_faces`): everybody who
    plays the stream ``label`` of ``purpose`` (每日挑战's day, 同骰竞速's race) gets the same
    faces when holding the same dice."""

    def __init__(self, secret: bytes, purpose: bytes, label: str) -> None:
        super().__init__(
            tuple(keyed_faces(secret, purpose, label, r) for r in range(1, ROUNDS + 1))
        )
        self.label = label
