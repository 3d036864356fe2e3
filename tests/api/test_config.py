"""Names, limits and defaults served to the page once (issue 11 §3), and the response
contract every API test enforces."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pydantic
import pytest
from fastapi.testclient import TestClient

from yahtzee.game import HINTS_PER_GAME, ROUNDS
from yahtzee.i18n import REAL, Lang, text
from yahtzee.players import DEFAULT_DIFFICULTY, Difficulty
from yahtzee.rules import UPPER_BONUS_THRESHOLD, Category, Dice, base_score

from .helpers import Api, DocumentedResponses

_BLOCK = re.compile(r'<script type="application/json" id="game-config">(.*?)</script>', re.S)


def test_b1_config_names_come_from_the_enums(client: TestClient) -> None:
    config: dict[str, Any] = client.get("/api/config").json()
    assert [c["id"] for c in config["categories"]] == [c.value for c in Category]
    names = [text(Lang.ZH_HANS, c["name_key"]) for c in config["categories"]]
    assert names[:3] == ["一点", "二点", "三点"]
    assert [d["id"] for d in config["difficulties"]] == [d.value for d in Difficulty]
    assert [d["name_key"] for d in config["difficulties"]] == [d.name_key for d in Difficulty]
    assert config["default_difficulty"] == DEFAULT_DIFFICULTY.value == "expert"
    limits = config["limits"]
    assert (limits["rounds"], limits["hints_per_game"]) == (ROUNDS, HINTS_PER_GAME)
    assert limits["upper_bonus_threshold"] == UPPER_BONUS_THRESHOLD
    # U19: a fixed box's points, as the rules score a roll that fits it (the board's 「?」
    # says them; a box that adds up dice has none)
    fits = {"full_house": "33355", "small_straight": "12346", "large_straight": "23456"}
    fits["yahtzee"] = "44444"
    for c in config["categories"]:
        category = Category(c["id"])
        if c["id"] in fits:
            assert c["points"] == base_score(category, Dice.parse(fits[c["id"]])), c
        else:
            assert c["points"] is None, c


def test_g1_config_names_are_catalog_keys_the_first_chunk_holds(client: TestClient) -> None:
    """/api/config copies no name (G1): every name is a key of the page's first chunk
    (``core``), which says it in each language; the configuration is the same whatever
    the request's language (one block for every variant of the page)."""
    config: dict[str, Any] = client.get("/api/config").json()
    assert client.get("/api/config", headers={"accept-language": "en"}).json() == config
    assert client.get("/api/config", headers={"accept-language": "zh-TW"}).json() == config
    keys = [
        *(c["name_key"] for c in config["categories"]),
        *(d["name_key"] for d in config["difficulties"]),
        *(d["summary_key"] for d in config["difficulties"]),
        *config["modes"].values(),
        *config["kinds"].values(),
        *config["results"].values(),
    ]
    assert all(key.startswith("core.") for key in keys), keys
    assert {r["name_key"] for r in config["rooms"]["reactions"]} <= {
        "room.reaction.good_luck",
        "room.reaction.nice",
        "room.reaction.oops",
        "room.reaction.thumbs_up",
    }
    for lang in REAL:  # each has its text in every language (the catalogs' check)
        assert all(text(lang, key) != key for key in keys)
    assert text(Lang.ZH_HANS, config["kinds"]["daily"]) == "每日挑战"
    assert text(Lang.EN, config["kinds"]["vs_computer"]) == "Against the computer"
    assert text(Lang.ZH_HANT, config["kinds"]["table"]) == "多人同機"
    # (no Chinese in the configuration itself but the languages' own names)
    del config["languages"]
    assert not re.search(r"[\u4e00-\u9fff]", json.dumps(config, ensure_ascii=False))


@pytest.mark.parametrize("path", ["/", "/game", "/index.html"])
def test_the_page_embeds_the_same_config_as_data_not_script(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200
    found = _BLOCK.findall(page.text)
    assert len(found) == 1
    assert json.loads(found[0]) == client.get("/api/config").json()
    # A data block: the CSP still allows only same-origin script files.
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "unsafe-inline" not in page.headers["content-security-policy"]


def test_a_response_with_an_undocumented_field_fails_the_contract(api: Api) -> None:
    game = api.new()
    check = DocumentedResponses(api.client.app)  # type: ignore[arg-type]
    request = httpx.Request("GET", f"http://testserver/api/games/{game['id']}")
    good = httpx.Response(
        200, json=game, request=request, headers={"content-type": "application/json"}
    )
    check(good)
    bad = httpx.Response(200, json={**game, "secret": 1}, request=request)
    with pytest.raises(pydantic.ValidationError, match="secret"):
        check(bad)
    wrong = httpx.Response(200, json={**game, "mode": "duel"}, request=request)
    with pytest.raises(pydantic.ValidationError, match="mode"):
        check(wrong)
