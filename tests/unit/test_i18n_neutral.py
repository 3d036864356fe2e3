"""G5: a JSON answer made once for every reader, its messages said per reader
(:mod:`yahtzee.i18n.neutral`: a cached review's ``why`` sentences)."""

from __future__ import annotations

import pickle

import orjson
import pytest

from yahtzee.i18n import REAL, Lang, msg, msg_n, render
from yahtzee.i18n.neutral import NeutralJson


def test_g5_a_neutral_document_reads_as_rendering_it_in_each_language() -> None:
    document = {
        "name": '小明 "<b>" \\u0000',  # (a value that only looks like a marker's text)
        "decisions": [
            {"round": 1, "why": [msg("server.why.best")]},
            {"round": 2, "why": []},
            {
                "round": 3,
                "why": [msg_n("server.why.box.more_now", 1, more=1, box=msg("core.box.ones"))],
            },
        ],
        "mark": msg("server.mark.mistake"),
        "total": 12.5,
    }
    neutral = NeutralJson.dumps(document)
    assert len(neutral.parts) == 4  # three messages
    for lang in REAL:
        assert neutral.said(lang) == orjson.dumps(render(document, lang))
    english = orjson.loads(neutral.said(Lang.EN))
    assert english["decisions"][2]["why"] == ["Ones scores 1 more point right now."]
    assert orjson.loads(neutral.said(Lang.ZH_HANS))["mark"] == "失误"
    # (what crosses the CPU pool: it pickles back to itself)
    again = pickle.loads(pickle.dumps(neutral))
    assert again.said(Lang.ZH_HANT) == neutral.said(Lang.ZH_HANT)


def test_g5_a_document_without_messages_is_its_json() -> None:
    neutral = NeutralJson.dumps({"a": [1, 2], "b": None})
    assert neutral.said(Lang.EN) == b'{"a":[1,2],"b":null}'


def test_g5_a_value_holding_a_marker_is_refused_not_misread() -> None:
    with pytest.raises(ValueError, match="marker"):
        NeutralJson.dumps({"name": "\x00msg:0\x00", "why": [msg("server.why.best")]})
