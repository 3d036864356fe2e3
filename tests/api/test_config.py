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
from yahtzee.players import DEFAULT_DIFFICULTY, Difficulty
from yahtzee.rules import UPPER_BONUS_THRESHOLD, Category

from .helpers import Api, DocumentedResponses

_BLOCK = re.compile(r'<script type="application/json" id="game-config">(.*?)</script>', re.S)


def test_b1_config_names_come_from_the_enums(client: TestClient) -> None:
    config: dict[str, Any] = client.get("/api/config").json()
    assert [c["id"] for c in config["categories"]] == [c.value for c in Category]
    assert [c["zh"] for c in config["categories"]][:3] == ["一点", "二点", "三点"]
    assert [d["id"] for d in config["difficulties"]] == [d.value for d in Difficulty]
    assert [d["zh"] for d in config["difficulties"]] == [d.zh for d in Difficulty]
    assert config["default_difficulty"] == DEFAULT_DIFFICULTY.value == "expert"
    limits = config["limits"]
    assert (limits["rounds"], limits["hints_per_game"]) == (ROUNDS, HINTS_PER_GAME)
    assert limits["upper_bonus_threshold"] == UPPER_BONUS_THRESHOLD


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
