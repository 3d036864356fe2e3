"""Exact moments of each level's points still to come, split by the big lumps.

The points a player still scores from a turn-start state are lumpy: the large straight is
40 or nothing, the upper bonus 35 or nothing, the 快艇 box 50 or nothing, each further 快艇
100 more. So the moments are kept per **event combination** ``c`` (bit 8: the large
straight will get its 40; bit 4: the upper bonus will be made; bit 2: the 快艇 box will get
its 50; bit 1: at least one 100-point 快艇 bonus will come): P(c) and the mean and standard
deviation of the points still to come given ``c``. Within one combination what is left is
smooth enough for a normal curve (:mod:`yahtzee.review.winprob`).

``scripts/winprob_moments.py`` computes them exactly, once, by a backward pass over every
reachable canonical state with each level's exact turn policy (:mod:`yahtzee.review.turns`)
and ships them as ``winprob_moments.npz.xz`` (see :func:`pack`) for the states with at
least :data:`MIN_TURNS_LEFT` turns left (since :data:`~yahtzee.review.winprob.EXACT_TURNS`
became 5 the win probability reads only those with 6 or more; the file was built before).
A state only stores the combinations its card still allows (:func:`combos`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import lzma
import os
import tempfile
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
import numpy.typing as npt

from yahtzee.rules import UPPER_BONUS_THRESHOLD, Category
from yahtzee.solver import ValueTable, load_table
from yahtzee.solver.build import canonical_upper, reachable_states
from yahtzee.solver.cache import RULES_VERSION, cache_dir
from yahtzee.solver.tables import N_UP, NUM_CATS, YAHTZEE_BIT

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
LEVEL_NAMES = ("expert", "intermediate", "novice")
MIN_TURNS_LEFT = 5
"""Moments are shipped for states with at least this many turns left."""
LARGE_STRAIGHT, BONUS, YAHTZEE, YAHTZEE_BONUS = 8, 4, 2, 1
"""The event bits of a combination."""
N_COMBOS = 16


def reachable_canonical() -> npt.NDArray[np.bool_]:
    """Flat boolean over (mask, upper, flag): reachable states that are their own canonical
    representative (hopeless upper subtotals share one)."""
    own = canonical_upper() == np.arange(N_UP)[None, :]
    out: npt.NDArray[np.bool_] = (reachable_states() & own[:, :, None]).reshape(-1)
    return out


@cache
def stored_states() -> I64:
    """Flat indices of the states the moments are shipped for, ascending."""
    flat = np.flatnonzero(reachable_canonical())
    mask = flat // (2 * N_UP)
    filled = sum((mask >> b) & 1 for b in range(NUM_CATS))
    out: I64 = flat[filled <= NUM_CATS - MIN_TURNS_LEFT].astype(np.int64)
    return out


def combos(flat: I64) -> npt.NDArray[np.bool_]:
    """(len(flat), 16): which event combinations each state still allows. The straight's
    40 only while its box is open; the bonus only while it is open and within reach; the
    50 only while the 快艇 box is open; a 100-point bonus only with 50 in the box (now, or
    together with the 50 event)."""
    flag = flat % 2
    up = (flat // 2) % N_UP
    mask = flat // (2 * N_UP)
    bonus_open = (up < UPPER_BONUS_THRESHOLD) & (canonical_upper()[mask, up] == up)
    # A hopeless subtotal is stored as 0: it is open only if 0 itself is not hopeless.
    open_faces = sum(f * ((mask >> (f - 1)) & 1 == 0) for f in range(1, 7))
    bonus_open &= up + 5 * open_faces >= UPPER_BONUS_THRESHOLD
    y_open = (mask & YAHTZEE_BIT) == 0
    ls_open = (mask >> Category.LARGE_STRAIGHT.index) & 1 == 0
    c = np.arange(N_COMBOS)[None, :]
    ok = ((c & LARGE_STRAIGHT) == 0) | ls_open[:, None]
    ok &= ((c & BONUS) == 0) | bonus_open[:, None]
    ok &= ((c & YAHTZEE) == 0) | y_open[:, None]
    ok &= ((c & YAHTZEE_BONUS) == 0) | (((c & YAHTZEE) != 0) | (flag == 1)[:, None])
    out: npt.NDArray[np.bool_] = ok
    return out


def pack(raw: dict[str, tuple[F64, F64, F64]], table: ValueTable | None = None) -> bytes:
    """Raw sums per level — (16, n) P(c), E[S·1c], E[S²·1c] over the states of
    :func:`reachable_canonical` in flat order — into the shipped file's bytes.

    Per stored state and level a bit set of the combinations kept (those :func:`combos` allows
    with P(c) ≥ 1/510), and per kept combination P(c) in 255ths, the shortfall of the
    conditional mean against the solver's value in quarter points and the conditional sd
    in thirds of a point (at most 85): about 6 MB for the three levels (lzma). The kept
    means are shifted together so that each state's overall mean stays exact (to the
    quarter point) despite the rounded and left-out probabilities."""
    table = table or load_table()
    flat = stored_states()
    at = np.searchsorted(np.flatnonzero(reachable_canonical()), flat)
    allowed = combos(flat)
    value = table.flat[flat].astype(np.float64)
    arrays: dict[str, npt.NDArray[np.generic]] = {"rules_version": np.array(RULES_VERSION)}
    for level, (p, m1, m2) in raw.items():
        pc, s1, s2 = p[:, at].T, m1[:, at].T, m2[:, at].T
        if np.any(pc[~allowed] > 1e-9):
            raise ValueError(f"{level}: an event combination outside combos() happens")
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(pc > 0, s1 / pc, 0.0)
            sd = np.sqrt(np.maximum(np.where(pc > 0, s2 / pc, 0.0) - mean**2, 0.0))
        # Combinations rarer than 1/510 are left out (the rest renormalised on reading):
        # merging them into another would smear it with their lump.
        q = np.round(pc * 255)
        kept = allowed & (q > 0)
        # What is read back is P in 255ths, renormalised: shift the kept means so that
        # the state's overall mean stays exact all the same.
        approx = np.where(kept, q, 0.0)
        approx /= approx.sum(axis=1, keepdims=True)
        overall = s1.sum(axis=1) / pc.sum(axis=1)
        mean += (overall - (approx * mean).sum(axis=1))[:, None]
        bits = (kept * (1 << np.arange(N_COMBOS))[None, :]).sum(axis=1)
        arrays[f"{level}_kept"] = bits.astype(np.uint16)
        arrays[f"{level}_p"] = q[kept].astype(np.uint8)
        shortfall = np.round((value[:, None] - mean) * 4)[kept]
        arrays[f"{level}_shortfall"] = shortfall.astype(np.int16)
        arrays[f"{level}_sd"] = np.round(np.minimum(sd[kept], 85.0) * 3).astype(np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return lzma.compress(buffer.getvalue(), preset=9)


@dataclass(frozen=True, slots=True)
class Moments:
    """One level's shipped moments. For the state at flat index ``i`` its entries are
    ``first[i]`` up to ``first[i] + count[i]`` of ``p``, ``shortfall`` and ``sd`` (``count``
    0: not stored), one per kept event combination, in the order of their bits ``combo``.

    The arrays use the smallest types that hold them (every server process that reviews a
    game or shows the meter keeps all three levels in memory: 68 MiB as float32, 170 MiB
    as float64): float32 holds the shortfall (quarter points) exactly, the sd and P(c) to
    a relative 1e-7, far below what they were rounded to when packed."""

    first: npt.NDArray[np.int32]
    count: npt.NDArray[np.uint8]
    combo: npt.NDArray[np.uint8]
    p: npt.NDArray[np.float32]
    shortfall: npt.NDArray[np.float32]
    sd: npt.NDArray[np.float32]

    def entries(self, flat: npt.NDArray[np.intp]) -> tuple[I64, I64]:
        """For states ``flat``: the owning position in ``flat`` and the entry index of each
        of their event combinations."""
        counts = self.count[flat].astype(np.int64)
        if np.any(counts == 0):
            raise ValueError(f"no moments stored for states {flat[counts == 0].tolist()}")
        owner = np.repeat(np.arange(len(flat)), counts)
        start = np.repeat(self.first[flat] - np.cumsum(counts) + counts, counts)
        return owner, start + np.arange(len(owner))


FILE = "winprob_moments.npz.xz"


def _read() -> dict[str, npt.NDArray[np.generic]]:
    raw = resources.files("yahtzee.review").joinpath(FILE).read_bytes()
    with np.load(io.BytesIO(lzma.decompress(raw))) as data:
        return {k: data[k] for k in data.files}


def moments(level: str) -> Moments:
    """The shipped moments of ``level`` (the file is read once per process, for all
    three levels; the packed arrays are not kept)."""
    if level not in LEVEL_NAMES:
        raise ValueError(f"unknown level {level!r}")
    return _all()[level]


FIELDS = ("first", "count", "combo", "p", "shortfall", "sd")


def unpacked_path() -> Path:
    """Where the unpacked arrays are kept between processes: the solver's cache directory,
    under a name of the rules and of the shipped file's contents."""
    raw = resources.files("yahtzee.review").joinpath(FILE).read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return cache_dir() / f"winprob-moments-{RULES_VERSION}-{digest}.npz"


@cache
def _all() -> dict[str, Moments]:
    # Decompressing and unpacking the shipped file takes seconds (3.3 s on this machine),
    # which every process paid on its first meter or review; the unpacked arrays, stored
    # once in the cache directory, load in a small fraction of that.
    path = unpacked_path()
    try:
        with np.load(path, allow_pickle=False) as stored:
            return {
                level: Moments(*(stored[f"{level}_{f}"] for f in FIELDS)) for level in LEVEL_NAMES
            }
    except (OSError, KeyError, ValueError):
        pass  # not there yet (or unreadable): unpack the shipped file and store it
    data = _read()
    if str(data["rules_version"]) != RULES_VERSION:
        raise ValueError(f"{FILE} was computed for other rules ({data['rules_version']})")
    out = {level: _unpack(data, level) for level in LEVEL_NAMES}
    with contextlib.suppress(OSError):  # (a read-only cache: unpack again next time)
        _store(path, out)
    return out


def _store(path: Path, levels: dict[str, Moments]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # A temporary file in the same directory, then a rename: a process reading it at the
    # same time never sees half a file.
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            arrays = {f"{level}_{f}": getattr(m, f) for level, m in levels.items() for f in FIELDS}
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _unpack(data: dict[str, npt.NDArray[np.generic]], level: str) -> Moments:
    flat = stored_states()
    bits = data[f"{level}_kept"].astype(np.int64)
    if len(bits) != len(flat):
        raise ValueError(f"{FILE} does not match the stored states")
    has = (bits[:, None] >> np.arange(N_COMBOS)[None, :]) & 1 == 1
    counts = has.sum(axis=1)
    size = (1 << NUM_CATS) * N_UP * 2
    first = np.zeros(size, dtype=np.int32)
    count = np.zeros(size, dtype=np.uint8)
    first[flat] = np.cumsum(counts) - counts
    count[flat] = counts
    combo = np.nonzero(has)[1].astype(np.uint8)
    q = data[f"{level}_p"].astype(np.float64)
    # P(c) back from 255ths, renormalised so each state's combinations add up to 1.
    owner = np.repeat(np.arange(len(flat)), counts)
    p = (q / np.bincount(owner, weights=q)[owner]).astype(np.float32)
    shortfall = data[f"{level}_shortfall"].astype(np.float32) * np.float32(0.25)
    sd = (data[f"{level}_sd"].astype(np.float64) / 3).astype(np.float32)
    return Moments(first, count, combo, p, shortfall, sd)
