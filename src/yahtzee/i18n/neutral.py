"""A JSON answer made once for every reader and said per reader (G5).

A review is computed once and cached as the JSON bytes sent; its sentences (复盘's
``why``) are catalog messages, and each reader reads them in their own language. So the
cached form is language-neutral: :class:`NeutralJson` is the document's JSON bytes cut
where each message stands, with the messages kept as they are (:class:`~yahtzee.i18n.Msg`:
keys and values), packed as bytes (a review's twenty messages as objects took more memory
than the whole document). Saying it in a language (:meth:`NeutralJson.said`) unpacks the
messages, renders each and joins the pieces: a join, never a parse of the document, so a
cached review costs each reader about what it cost when it was one language's bytes.
"""

from __future__ import annotations

import pickle
import re
from dataclasses import dataclass
from typing import Any

import orjson

from yahtzee.i18n.catalog import Msg
from yahtzee.i18n.lang import Lang

# Where a message stands in the dumped bytes: a string no answer's data holds (a name a
# person typed holds no control character, yahtzee.names; the other strings are codes and
# ids). orjson writes U+0000 as the escape ``\u0000``.
_MARK = "\x00msg:{}\x00"
_MARKED = re.compile(rb'"\\u0000msg:(\d+)\\u0000"')


def _marked(value: Any, found: list[Msg]) -> Any:
    if isinstance(value, Msg):
        found.append(value)
        return _MARK.format(len(found) - 1)
    if isinstance(value, dict):
        return {k: _marked(v, found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_marked(v, found) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class NeutralJson:
    """A JSON document whose messages are said per reader (see the module docstring):
    ``parts`` are its bytes around the messages (one more than the messages), ``packed``
    the messages, pickled (our own objects, made in this process or its CPU pool's)."""

    parts: tuple[bytes, ...]
    packed: bytes

    @property
    def messages(self) -> tuple[Msg, ...]:
        """The document's messages, in order."""
        found: tuple[Msg, ...] = pickle.loads(self.packed)  # (our own bytes: see above)
        return found

    @classmethod
    def dumps(cls, value: Any) -> NeutralJson:
        """``value`` (dicts, lists, plain values and :class:`Msg` anywhere in them)."""
        found: list[Msg] = []
        raw = orjson.dumps(_marked(value, found))
        pieces = _MARKED.split(raw)
        # (split keeps the captured index between the pieces: every other item)
        parts = tuple(pieces[0::2])
        order = [int(i) for i in pieces[1::2]]
        if order != list(range(len(found))):  # the data held a marker of its own
            raise ValueError("a value of the document looks like a message marker")
        return cls(parts, pickle.dumps(tuple(found), protocol=pickle.HIGHEST_PROTOCOL))

    def said(self, lang: Lang) -> bytes:
        """The document's JSON bytes with every message in ``lang``."""
        out = [self.parts[0]]
        for message, part in zip(self.messages, self.parts[1:], strict=True):
            out.append(orjson.dumps(message.render(lang)))
            out.append(part)
        return b"".join(out)
