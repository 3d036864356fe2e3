"""G3 in the browser: the first visit's language from Accept-Language, and 设置's language
changing the page at once, mid-game, without a reload losing anything. G2, G5: 复盘, 练习,
我的设备 and 每日挑战 in each language (one page load each), and a change of language
drawing the open view again."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from e2e.helpers import ConsoleWatch, Table, finish_game

pytestmark = pytest.mark.e2e


def test_g3_the_language_changes_mid_game_without_a_reload(ui: Table) -> None:
    page = ui.page
    ui.start_solo()
    ui.roll()
    ui.die(0).click()
    ui.die(2).click()
    held = [ui.die(i).get_attribute("aria-pressed") for i in range(5)]
    assert held == ["true", "false", "true", "false", "false"]
    dice, rolls = ui.dice(), ui.rolls_left()
    page.evaluate("window.sameDocument = true")  # (gone if the page were loaded again)
    sent: list[Request] = []
    page.on("request", lambda r: sent.append(r) if "/api/settings/language" in r.url else None)
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "zh-Hans")

    ui.by("settings-open").click()
    dialog = ui.by("settings-dialog")
    expect(dialog).to_be_visible()
    choice = ui.by("language-setting")
    expect(choice).to_have_value("zh-Hans")
    assert choice.locator("option").all_inner_texts() == ["简体中文", "繁體中文", "English"]

    choice.select_option("en")
    expect(html).to_have_attribute("lang", "en")
    expect(page.locator("#settings-title")).to_have_text("Settings")
    expect(ui.by("settings-close")).to_have_text("Done")
    expect(dialog).to_be_visible()  # the open dialog stays open
    # The lobby's words (hidden behind the table) and the level picker's, at once.
    assert page.locator("#lobby-title").text_content() == "Lobby"
    assert page.locator('[data-testid="difficulty"] label span').all_text_contents() == [
        "Beginner",
        "Normal",
        "Expert",
    ]
    # The board behind the dialog too, at once (its words are built again: G2).
    expect(ui.by("roll")).to_have_text("Roll again")
    expect(ui.by("rolls-left")).to_have_text(f"{rolls} rolls left")
    expect(ui.by("hint")).to_have_text("Hint (3)")
    expect(ui.by("lobby")).to_have_text("Lobby")
    expect(ui.die(0)).to_have_attribute("aria-label", f"Die 1: {dice[0]}, held")
    # The last thing said, said again in the new language (the roll's sentence).
    expect(ui.by("message")).to_contain_text(f"You rolled {', '.join(map(str, dice))}.")
    assert page.title() == "Yacht Dice · Table"
    # Nothing lost: the same document, the game, its dice and holds.
    assert page.evaluate("window.sameDocument") is True
    assert (ui.dice(), ui.rolls_left()) == (dice, rolls)
    assert [ui.die(i).get_attribute("aria-pressed") for i in range(5)] == held

    choice.select_option("zh-Hant")
    expect(html).to_have_attribute("lang", "zh-Hant")
    expect(page.locator("#settings-title")).to_have_text("設定")
    assert page.locator("#lobby-title").text_content() == "大廳"
    expect(ui.by("roll")).to_have_text("再擲")
    expect(ui.by("rolls-left")).to_have_text(f"剩餘 {rolls} 次")
    expect(ui.by("message")).to_contain_text(f"你擲出了 {'、'.join(map(str, dice))}。")
    assert page.evaluate("window.sameDocument") is True
    ui.by("settings-close").click()
    expect(dialog).to_be_hidden()
    assert [ui.die(i).get_attribute("aria-pressed") for i in range(5)] == held
    # The game goes on: the holds go with the next roll, said in the language now.
    ui.by("roll").click()
    expect(ui.by("rolls-left")).to_have_text(f"剩餘 {rolls - 1} 次")
    expect(ui.by("message")).to_contain_text("你擲出了")
    after = ui.dice()
    assert (after[0], after[2]) == (dice[0], dice[2])

    # Kept for the player on the server (every linked device) and in this browser.
    assert [r.post_data_json for r in sent] == [{"language": "en"}, {"language": "zh-Hant"}]
    page.wait_for_function("() => localStorage.getItem('yahtzee.lang') === 'zh-Hant'")
    page.reload()
    expect(html).to_have_attribute("lang", "zh-Hant")
    expect(html).to_have_attribute("data-lang-chosen", "")
    expect(ui.by("settings-open")).to_have_text("設定")


def test_g3_a_first_visit_from_taiwan_is_in_traditional_chinese(
    browser: Browser, server_url: str
) -> None:
    context = browser.new_context(locale="zh-TW")  # Accept-Language: zh-TW
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/i18n/" in r.url else None)
    ui = Table(page, server_url)
    page.goto(server_url + "/")
    expect(ui.by("start-solo")).to_be_enabled()
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "zh-Hant")
    assert html.get_attribute("data-lang-chosen") is None
    expect(page.locator("#lobby-title")).to_have_text("大廳")
    expect(ui.by("settings-open")).to_have_text("設定")
    expect(ui.by("start-solo")).to_have_text("開始單人挑戰")
    assert page.locator('[data-testid="difficulty"] label span').all_text_contents() == [
        "入門",
        "普通",
        "高手",
    ]
    assert page.title() == "快艇骰子"
    expect(ui.by("language-setting")).to_have_value("zh-Hant")
    # One chunk, the first view's, in its language: preloaded with the page. (设置's 「提醒我」
    # row, W4, loads its own chunk once the service worker is up, and the glossary, L11,
    # once the page is up: in the language too.)
    chunks = [url.rsplit("/i18n/", 1)[1] for url in asked]
    later = ("zh-Hant/push.js", "zh-Hant/glossary.js")
    assert [c for c in chunks if c not in later] == ["zh-Hant/core.js"], chunks
    context.close()
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)


# The day's challenge played through the API from the page (its cookie), as finish_game
# plays a game; then read once as the page does (which records the result).
_FINISH_DAILY_JS = """
async (name) => {
  const post = async (path, body) => {
    await new Promise((resolve) => setTimeout(resolve, 60)); // (under 20 actions a second)
    const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(body)});
    if (!r.ok) throw new Error(path + " " + r.status + " " + await r.text());
    return r.json();
  };
  const order = ["ones","twos","threes","fours","fives","sixes","three_of_a_kind",
    "four_of_a_kind","full_house","small_straight","large_straight","yahtzee","chance"];
  let g = await post("/api/daily", {name});
  while (g.status === "in_progress") {
    if (g.dice === null) g = await post(`/api/games/${g.id}/roll`, {version: g.version});
    const boxes = g.players.human.boxes;
    const cat = order.find((c) => boxes[c] === null && g.preview[c].allowed);
    const body = {version: g.version, category: cat, confirm_zero: true};
    g = await post(`/api/games/${g.id}/score`, body);
  }
  return (await (await fetch("/api/daily")).json()).status;
}
"""


def _go(page: Page, path: str, view: str) -> None:
    """Open a lazy view as the page's own links do (no reload)."""
    page.evaluate(
        """([path, view]) => {
          const a = Object.assign(document.createElement("a"), {href: path});
          a.dataset.page = view;
          document.body.append(a);
          a.click();
          a.remove();
        }""",
        [path, view],
    )


# Each language: the browser's locale, and what each view says in it.
VIEW_WORDS = {
    "zh-Hans": {
        "locale": "zh-CN",
        "points": "{n} 分",
        "decisions": "全部决策（{n}）",
        "another": "换一题",
        "all_themes": "全部题目",
        "pair": "连接另一台设备",
        "data": "我的数据",
        "share": "快艇骰子 每日挑战 ",
        "legend": "分享文字里的方块：每回合最差的一步，🟩 最佳",
        "day_board": "按技术损失",
    },
    "zh-Hant": {
        "locale": "zh-TW",
        "points": "{n} 分",
        "decisions": "全部決策（{n}）",
        "another": "換一題",
        "all_themes": "全部題目",
        "pair": "連接另一台裝置",
        "data": "我的資料",
        "share": "快艇骰子 每日挑戰 ",
        "legend": "分享文字裡的方塊：每回合最差的一步，🟩 最佳",
        "day_board": "按技術損失",
    },
    "en": {
        "locale": "en-US",
        "points": "{n}",
        "decisions": "All decisions ({n})",
        "another": "Another puzzle",
        "all_themes": "All puzzles",
        "pair": "Link another device",
        "data": "My data",
        "share": "Yacht Dice daily challenge, ",
        "legend": "The squares in the share text: each round's worst move, 🟩 Best",
        "day_board": "by skill loss",
    },
}
# A change of language on the open 每日挑战: each language to the next.
NEXT_LANGUAGE = {"zh-Hans": "en", "en": "zh-Hant", "zh-Hant": "zh-Hans"}


@pytest.mark.parametrize("lang", list(VIEW_WORDS))
def test_g2_g5_review_practice_devices_and_daily_speak_the_language(
    browser: Browser, server_url: str, lang: str
) -> None:
    """One page load in ``lang`` (the browser's locale picks it): 复盘, 练习, 我的设备 and
    每日挑战 opened by the page's links say their words in it; the day's share text is the
    sharer's language. Then 设置 changes the language on 每日挑战: the view is drawn again
    in the new language at once (the marks' names asked again), the share text stays the
    sharer's, and the page is not loaded again."""
    words = VIEW_WORDS[lang]
    context = browser.new_context(locale=words["locale"])
    page = context.new_page()
    page.set_default_timeout(15_000)
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)
    ui.open_lobby()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    game_id = finish_game(page)
    assert page.evaluate(_FINISH_DAILY_JS, "Amy") == "finished"
    review = page.evaluate("async (id) => (await fetch(`/api/games/${id}/review`)).json()", game_id)
    page.evaluate("window.sameDocument = true")  # (gone if the page were loaded again)

    _go(page, f"/review/{game_id}", "review")
    expect(ui.by("review-final")).to_have_text(words["points"].format(n=review["final_score"]))
    decisions = words["decisions"].format(n=len(review["decisions"]))
    expect(page.locator("#rv-decisions-title")).to_have_text(decisions)

    _go(page, "/practice", "practice")
    expect(ui.by("puzzle-next")).to_have_text(words["another"])
    expect(ui.by("practice-theme").locator("option").first).to_have_text(words["all_themes"])

    _go(page, "/devices", "devices")
    expect(page.locator("#dv-pair")).to_have_text(words["pair"])
    expect(page.locator("#dv-data")).to_have_text(words["data"])

    _go(page, "/daily", "daily")
    result = ui.by("daily-result")
    expect(result).to_be_visible()
    score = page.evaluate("async () => (await (await fetch('/api/daily')).json()).result.score")
    expect(ui.by("daily-score")).to_have_text(words["points"].format(n=score))
    expect(ui.by("daily-share-legend")).to_contain_text(words["legend"])
    expect(page.locator(".dl-board caption").first).to_contain_text(words["day_board"])
    share = ui.by("daily-share").inner_text()
    assert share.startswith(words["share"]), share
    assert page.evaluate("window.sameDocument") is True

    # 设置's language changes the open view at once; the share text stays the sharer's.
    other = NEXT_LANGUAGE[lang]
    ui.by("settings-open").click()
    ui.by("language-setting").select_option(other)
    expect(page.locator("html")).to_have_attribute("lang", other)
    ui.by("settings-close").click()
    expect(ui.by("daily-share-legend")).to_contain_text(VIEW_WORDS[other]["legend"])
    expect(ui.by("daily-score")).to_have_text(VIEW_WORDS[other]["points"].format(n=score))
    expect(page.locator(".dl-board caption").first).to_contain_text(VIEW_WORDS[other]["day_board"])
    assert ui.by("daily-share").inner_text() == share
    assert page.evaluate("window.sameDocument") is True


#: Each language's words the checks read: (locale, lang, words).
SAID = {
    "zh-Hans": {
        "locale": "zh-CN",
        "lobby": "大厅",
        "settings": "设置",
        "sound": "声音",
        "round": "第 1 / 13 回合",
        "roll": "掷骰子",
        "left": "剩余 2 次",
        "rolled": "你掷出了",
        "hint": "提示 (3)",
        "ones": "一点",
        "title": "快艇骰子 · 牌桌",
        "rules": ["简介", "怎么玩", "计分表", "术语", "看懂这些数", "常见问题"],
        "faq": "问：",
        "term": "预计终局",
        "back": "← 返回",
    },
    "zh-Hant": {
        "locale": "zh-TW",
        "lobby": "大廳",
        "settings": "設定",
        "sound": "聲音",
        "round": "第 1 / 13 回合",
        "roll": "擲骰子",
        "left": "剩餘 2 次",
        "rolled": "你擲出了",
        "hint": "提示 (3)",
        "ones": "一點",
        "title": "快艇骰子 · 牌桌",
        "rules": ["簡介", "怎麼玩", "計分表", "術語", "看懂這些數", "常見問題"],
        "faq": "問：",
        "term": "預估終局",
        "back": "← 返回",
    },
    "en": {
        "locale": "en-US",
        "lobby": "Lobby",
        "settings": "Settings",
        "sound": "Sound",
        "round": "Round 1 / 13",
        "roll": "Roll",
        "left": "2 rolls left",
        "rolled": "You rolled",
        "hint": "Hint (3)",
        "ones": "Ones",
        "title": "Yacht Dice · Table",
        "rules": [
            "About the game",
            "How to play",
            "The scorecard",
            "Terms",
            "What the numbers mean",
            "Questions",
        ],
        "faq": "Q: ",
        "term": "Expected final",
        "back": "← Back",
    },
}
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


@pytest.mark.parametrize("lang", list(SAID))
def test_g2_the_lobby_a_solo_game_the_rules_and_settings_in_each_language(
    browser: Browser, server_url: str, lang: str
) -> None:
    """One page load per language (its browser's Accept-Language): the lobby, 设置, a solo
    game's board, its first roll's words and the rules with their glossary and FAQ, all in
    the language; in English no Chinese character is left on any of them."""
    said = SAID[lang]
    context = browser.new_context(locale=str(said["locale"]))
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)

    def chinese_left() -> list[str]:
        # (the language picker names each language in itself: 简体中文, 繁體中文)
        text: str = page.evaluate("document.body.innerText")
        return [line for line in text.splitlines() if CJK.search(line)] if lang == "en" else []

    ui.open_lobby()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#lobby-title")).to_have_text(str(said["lobby"]))
    assert chinese_left() == []
    # 设置, with the rows its lazy modules add (声音: sound.js).
    ui.by("settings-open").click()
    expect(page.locator("#settings-title")).to_have_text(str(said["settings"]))
    expect(ui.by("language-setting")).to_have_value(lang)
    row = ui.by("sound-setting").locator("xpath=..")
    expect(row).to_contain_text(str(said["sound"]))
    ui.by("settings-close").click()

    # A solo game: the board's words, a roll's sentence, the card's names, the title.
    ui.by("start-solo").click()
    expect(ui.by("round")).to_have_text(str(said["round"]))
    expect(ui.by("roll")).to_have_text(str(said["roll"]))
    ui.by("roll").click()
    expect(ui.by("rolls-left")).to_have_text(str(said["left"]))
    expect(ui.by("message")).to_contain_text(str(said["rolled"]))
    expect(ui.by("hint")).to_have_text(str(said["hint"]))
    expect(page.locator("#scorecard-upper")).to_contain_text(str(said["ones"]))
    assert page.title() == said["title"]
    assert chinese_left() == []

    # The rules (made per language by the server), their glossary and FAQ.
    ui.by("rules-link-game").click()
    rules = page.locator("#view-rules")
    for heading in said["rules"]:
        expect(rules.get_by_role("heading", name=str(heading), exact=True)).to_be_visible()
    faq = rules.locator(".faq dt").first
    assert faq.evaluate("(dt) => getComputedStyle(dt, '::before').content") == f'"{said["faq"]}"'
    expect(rules.locator("#term-expected_final")).to_have_text(str(said["term"]))
    expect(ui.by("rules-back")).to_have_text(str(said["back"]))
    assert chinese_left() == []
    context.close()
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)
