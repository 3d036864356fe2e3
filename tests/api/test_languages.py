"""The languages over HTTP (G1, G3), on SQLite and PostgreSQL: the first page in the
language ``Accept-Language`` asks for, the choice kept for the player on every linked
device and in their data (export, merge, erasure), and the errors in the request's
language."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from .helpers import Api, error_code
from .test_devices import browser, code_of, link

LOBBY_TITLE = re.compile(r'id="lobby-title"[^>]*>([^<]*)<')
HTML_TAG = re.compile(r"<html[^>]*>")


def page(client: TestClient, accept_language: str | None = None) -> tuple[str, str, str]:
    """``(<html> tag, the lobby's title, the page)`` of ``/`` as ``client`` gets it."""
    headers = {"accept-language": accept_language} if accept_language else {}
    r = client.get("/", headers=headers)
    assert r.status_code == 200
    assert r.headers["vary"] == "Accept-Encoding, Accept-Language, Cookie"
    title = LOBBY_TITLE.search(r.text)
    html = HTML_TAG.search(r.text)
    assert title is not None
    assert html is not None
    return html.group(0), title.group(1), r.text


def test_g3_the_first_page_speaks_the_language_accept_language_asks_for(
    client: TestClient,
) -> None:
    cases = {
        None: ("zh-Hans", "大厅"),  # (no header: the product's language, as before)
        "zh-TW,zh;q=0.9,en;q=0.8": ("zh-Hant", "大廳"),
        "zh-HK": ("zh-Hant", "大廳"),
        "zh-mo": ("zh-Hant", "大廳"),
        "zh-CN,zh;q=0.9": ("zh-Hans", "大厅"),
        "zh-SG": ("zh-Hans", "大厅"),
        "en-US,en;q=0.9": ("en", "Lobby"),
        "fr-FR,fr;q=0.9": ("en", "Lobby"),  # anything else: English
        "fr, zh;q=0.5": ("zh-Hans", "大厅"),  # ours, by weight
        "en-XA": ("en", "Lobby"),  # (the pseudo-language only when the server enables it)
    }
    chunk = ""
    for header, (lang, title) in cases.items():
        html, said, text = page(client, header)
        assert html == f'<html lang="{lang}">', header
        assert said == title, header
        # the first view's chunk is preloaded (no round trip more), in that language
        preload = rf'<link rel="modulepreload" href="(/v/\w+/i18n/{lang}/core\.js)">'
        found = re.search(preload, text)
        assert found is not None, header
        chunk = found.group(1)
    # The chunk: module code (no eval), the language's plural rule and its keys alone.
    module = client.get(chunk)
    assert module.headers["content-type"].startswith("text/javascript")
    assert module.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert "export const plural = (function(n)" in module.text
    keys = re.findall(r'"([a-z_]+\.[a-z0-9_.]+)":', module.text)
    assert keys
    assert all(k.startswith("core.") for k in keys)
    assert '"core.brand":"Yacht Dice"' in module.text  # (the last page: English)
    # The words of index.html itself are loaded only when the language changes.
    assert client.get(chunk.replace("core.js", "page.js")).status_code == 200
    assert "/page.js" not in text
    # The configuration names each language in itself.
    assert client.get("/api/config").json()["languages"] == [
        {"id": "zh-Hans", "name": "简体中文"},
        {"id": "zh-Hant", "name": "繁體中文"},
        {"id": "en", "name": "English"},
    ]


def test_g2_each_languages_page_links_its_own_web_app_manifest(client: TestClient) -> None:
    """The home-screen app is named in the reader's language (the manifest was 简体中文's
    for everyone): each page links its language's manifest, the same app (``id``) in each."""
    said = {}
    for header, lang in (("zh-CN", "zh-Hans"), ("zh-TW", "zh-Hant"), ("en-US", "en")):
        text = page(client, header)[2]
        found = re.search(r'<link rel="manifest" href="([^"]+)">', text)
        assert found is not None, header
        assert re.fullmatch(rf"/v/\w+/i18n/{lang}/manifest\.webmanifest", found.group(1))
        r = client.get(found.group(1))
        assert r.headers["content-type"].startswith("application/manifest+json")
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        said[lang] = r.json()
    assert [m["lang"] for m in said.values()] == ["zh-Hans", "zh-Hant", "en"]
    assert [m["name"] for m in said.values()] == ["快艇骰子", "快艇骰子", "Yacht Dice"]
    assert said["zh-Hans"]["description"].startswith("五颗骰子、十三格计分表")
    assert said["zh-Hant"]["description"].startswith("五顆骰子、十三格計分表")
    assert said["en"]["description"].startswith("Yacht Dice with five dice")
    assert len({m["id"] for m in said.values()}) == 1
    assert {m["start_url"] for m in said.values()} == {"/"}
    # An app installed before, or a page of an older release, links the unversioned one.
    assert client.get("/manifest.webmanifest").json() == said["zh-Hans"]


def test_g2_the_rules_view_is_made_in_each_language(client: TestClient) -> None:
    """规则 (U10) in every language: the server fills rules.html's words per language and
    serves each under the release prefix (the view loads its page language's). Before, the
    only rules were rules.html's Chinese, whatever the reader's language."""
    release = re.search(r'src="/v/(\w+)/js/main\.js"', page(client)[2])
    assert release is not None
    said = {}
    for lang in ("zh-Hans", "zh-Hant", "en"):
        r = client.get(f"/v/{release.group(1)}/i18n/{lang}/rules.html")
        assert r.status_code == 200, lang
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        said[lang] = r.text
    assert '<h2 id="rules-intro" data-i18n="rules.intro.title">简介</h2>' in said["zh-Hans"]
    assert 'data-q="问："' in said["zh-Hans"]
    assert "計分表" in said["zh-Hant"]
    assert "计分表" not in said["zh-Hant"]
    assert '<h2 id="rules-faq" data-i18n="rules.faq.title">Questions</h2>' in said["en"]
    assert 'data-label="Needs: "' in said["en"]
    assert re.search(r"[\u4e00-\u9fff]", re.sub(r"<!--.*?-->", "", said["en"], flags=re.S)) is None


def test_g3_the_choice_is_the_players_on_every_linked_device_and_in_their_data(
    client: TestClient,
) -> None:
    phone = browser(client)
    Api(phone).roll(Api(phone).new())  # (a player with a game)
    recovery = phone.post("/api/devices/recovery", json={}).json()["code"]  # (F20's proof)
    assert "data-lang-chosen" not in page(phone, "en")[0]
    r = phone.put("/api/settings/language", json={"language": "zh_hant"})  # (any spelling)
    assert (r.status_code, r.json()) == (200, {"language": "zh-Hant"})
    # Whatever the browser asks for, the player's choice wins, marked as theirs.
    assert page(phone, "en-US")[:2] == ('<html lang="zh-Hant" data-lang-chosen>', "大廳")
    # A linked device opens in it too (I1).
    tablet = browser(client)
    assert link(tablet, code_of(phone)["code"]).status_code == 200
    assert page(tablet, "en")[0] == '<html lang="zh-Hant" data-lang-chosen>'
    # A stranger is not affected.
    assert page(browser(client), "en")[0] == '<html lang="en">'
    # Part of the player's data: exported, kept by a merge, erased with the rest (I4).
    assert phone.get("/api/me/export").json()["settings"]["language"] == "zh-Hant"
    school = browser(client)
    Api(school).play_to_end(Api(school).new())
    assert school.put("/api/settings/language", json={"language": "en"}).status_code == 200
    assert link(school, code_of(phone)["code"], merge=True).status_code == 200
    assert page(school, "en")[0] == '<html lang="zh-Hant" data-lang-chosen>'  # the kept's
    assert school.get("/api/me/export").json()["settings"]["language"] == "zh-Hant"
    erased = phone.post("/api/me/delete", json={"confirm": True, "recovery_code": recovery})
    assert erased.status_code == 200, erased.text
    assert page(phone, "en")[0] == '<html lang="en">'
    # Only the languages of /api/config, said in the request's language; strict JSON (F3).
    r = phone.put(
        "/api/settings/language", json={"language": "fr"}, headers={"accept-language": "en"}
    )
    assert (r.status_code, error_code(r)) == (422, "invalid_request")
    assert r.json()["error"]["message"] == (
        "There is no such language: fr (choose from zh-Hans, zh-Hant, en)."
    )
    for body in ({"language": "en-XA"}, {"language": 1}, {"language": "en", "x": 1}):
        r = phone.put("/api/settings/language", json=body)
        assert (r.status_code, error_code(r)) == (422, "invalid_request"), body
    r = phone.put(
        "/api/settings/language", json={"language": "en"}, headers={"origin": "https://evil.test"}
    )
    assert (r.status_code, error_code(r)) == (403, "forbidden")


def test_g3_the_pseudo_language_is_served_only_when_enabled(make_client: object) -> None:
    client = make_client(pseudo_language=True)  # type: ignore[operator]
    html, title, _text = page(client, "en-XA")
    assert html == '<html lang="en-XA">'
    assert title.startswith("[Łóƀƀý")
    assert title.endswith("]")
    r = client.put("/api/settings/language", json={"language": "en-XA"})
    assert r.status_code == 200
    assert any(lang["id"] == "en-XA" for lang in client.get("/api/config").json()["languages"])


def test_g1_errors_are_said_in_the_language_of_the_request(client: TestClient) -> None:
    def said(lang: str | None, method: str, path: str, **kw: object) -> tuple[int, str, str]:
        headers = {"accept-language": lang} if lang else {}
        r = client.request(method, path, headers=headers, **kw)  # type: ignore[arg-type]
        return r.status_code, error_code(r), r.json()["error"]["message"]

    # A platform error: zh-Hans unchanged without the header, then each language.
    assert said(None, "GET", "/api/games/nope") == (404, "not_found", "找不到这局游戏。")
    assert said("zh-TW", "GET", "/api/games/nope")[2] == "找不到這局遊戲。"
    assert said("en", "GET", "/api/games/nope")[2] == "This game cannot be found."
    # A feature's error (练习).
    answer = ("POST", "/api/puzzles/nope/answer")
    assert said("en", *answer, json={"category": "chance"})[:2] == (404, "not_found")
    assert said("en", *answer, json={"category": "chance"})[2].startswith("This puzzle")
    # A message made of messages: the level's name in the same language (F2).
    api = Api(client)
    api.roll(api.new("vs_computer", "novice"))
    body = {"mode": "solo"}
    code, _, zh = said(None, "POST", "/api/games", json=body)
    assert code == 409
    assert zh.startswith("你有一局人机对战（入门，第 1 回合）还没下完。")
    assert said("en", "POST", "/api/games", json=body)[2].startswith(
        "You have an unfinished game against the computer (Beginner, round 1)."
    )
    # A validation message names the field in the request's language.
    assert said("zh-Hant", "POST", "/api/games", json={"mode": "x"})[2] == (
        "請求格式不正確：欄位 mode 的值 'x' 不在允許的範圍內。"
    )
