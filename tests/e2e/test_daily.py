"""每日挑战 and 小组 in the browser (D2-D6), at desktop and phone sizes, axe clean in both
themes.

A teacher creates a group (its name looks like markup) and gets its invite link and QR
code; a pupil (another browser) opens the link, joins with a hostile-looking name, plays
the day's challenge without hints or 重新开始, sees the result, the expert's score, the rank
and the share text; the teacher sees the pupil on the group's board and trends, as text,
and removes them. A fresh browser is asked for a name once, is told why a bad one is
refused, and a kept ordinary game is abandoned only on a yes (F2).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.checks import check_view
from e2e.helpers import ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e

HOSTILE = "<img src=x>"  # 11 characters: a valid name, to be shown as text
GROUP = "三年二班<b>"  # a group's name that looks like markup
SIZES = pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])


def _serious(page: Page, where: str) -> list[str]:
    """Serious or critical axe violations, in the light and the dark theme."""
    out: list[str] = []
    check_view(page, where, out, contrast=False)
    return out


def _no_markup(page: Page) -> None:
    """Nothing a person typed became an element: no <img>, no <b> in the lazy views."""
    assert page.locator(".daily-view img:not([data-testid=group-qr])").count() == 0
    assert page.locator(".daily-view b").count() == 0


def _fits(page: Page, where: str) -> list[str]:
    """The page is no wider than the window (a phone never scrolls sideways)."""
    over = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    return [f"{where}: {over} px wider than the window"] if over > 0 else []


@SIZES
def test_d6_d2_teacher_group_pupil_joins_and_plays_the_daily(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    width, height = size
    failures: list[str] = []
    watches = []
    pages = []
    for _ in range(2):
        context = sized_context(browser, width, height)
        page = context.new_page()
        page.set_default_timeout(15_000)
        watch = ConsoleWatch()
        watch.watch(page)
        watches.append(watch)
        pages.append(page)
    teacher, pupil = (Table(p, server_url) for p in pages)

    # The teacher: lobby → 小组 → create a group.
    teacher.open_lobby()
    teacher.by("groups-lobby-link").click()
    expect(teacher.page).to_have_url(re.compile(r"/groups$"))
    expect(teacher.page).to_have_title("快艇骰子 · 小组")
    teacher.page.get_by_label("小组名称").fill(GROUP)
    teacher.page.get_by_label("你在小组里的名字").fill("王老师")
    teacher.by("create-group").click()
    invite = teacher.by("group-invite")
    expect(invite).to_be_visible()
    expect(teacher.page.get_by_role("status").filter(has_text="已创建")).to_contain_text(GROUP)
    # U13: 我的小组 lists it at once, without a reload
    expect(teacher.page.locator(".dl-groups")).to_contain_text(GROUP)
    link = teacher.by("invite-link").inner_text()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/groups/join#[A-Za-z0-9_-]{22}", link), link
    qr = teacher.by("group-qr")
    expect(qr).to_be_visible()
    teacher.page.wait_for_function(
        "() => document.querySelector('[data-testid=group-qr]').naturalWidth > 0"
    )
    _no_markup(teacher.page)
    failures += _serious(teacher.page, "groups") + _fits(teacher.page, "groups")

    # The pupil opens the link and joins with a hostile-looking name.
    pupil.page.goto(link)
    expect(pupil.page.get_by_role("heading", name=f"加入小组「{GROUP}」")).to_be_visible()
    failures += _serious(pupil.page, "join") + _fits(pupil.page, "join")
    pupil.page.get_by_label("你在小组里的名字").fill(HOSTILE)
    pupil.by("join-group").click()
    expect(pupil.page).to_have_url(re.compile(r"/groups/[0-9a-f]{16}$"))
    expect(pupil.by("group-board")).to_be_visible()
    expect(pupil.by("group-name")).to_have_text(GROUP)
    _no_markup(pupil.page)
    failures += _serious(pupil.page, "group page") + _fits(pupil.page, "group page")

    # The day's challenge from the lobby: the name is known now (the join gave it).
    pupil.open_lobby()
    pupil.by("daily-link").click()
    expect(pupil.by("start-daily")).to_be_visible()
    expect(pupil.page.locator("#dl-name")).to_have_count(0)
    failures += _serious(pupil.page, "daily before") + _fits(pupil.page, "daily before")
    pupil.by("start-daily").click()
    expect(pupil.by("roll")).to_be_visible()
    expect(pupil.page.locator("#mode-badge")).to_have_text("每日挑战")
    expect(pupil.by("restart")).to_be_hidden()
    pupil.roll()
    expect(pupil.by("hint")).to_be_hidden()  # U12: no 提示 in 每日挑战 (not a greyed one)
    pupil.page.keyboard.press("h")  # the shortcut is refused as well, with the reason
    expect(pupil.by("message")).to_contain_text("每日挑战不能用提示")
    box = pupil.best_box()
    pupil.score(box)
    pupil.wait_for_my_turn(2)
    pupil.play_to_end(first_round=2)
    expect(pupil.by("play-again")).to_be_hidden()
    expect(pupil.by("game-over-daily")).to_be_focused()
    pupil.by("game-over-daily").click()
    result = pupil.by("daily-result")
    expect(result).to_be_visible()
    expect(pupil.page).to_have_url(re.compile(r"/daily$"))
    expect(pupil.by("daily-expert-score")).to_have_text(re.compile(r"^\d+ 分（技术损失 0\.0）$"))
    # L13: the verdict beside 准确率 (stars from the points lost); the squares' legend.
    expect(result.get_by_test_id("verdict")).to_contain_text("比高手少得")
    expect(pupil.by("daily-share-legend")).to_contain_text("🟩 最佳")
    expect(pupil.by("leaderboard").get_by_test_id("verdict").first).to_be_visible()
    # F13: a browser without earlier days is not on the board of everyone yet: its rank
    # says so and the note explains it (its group's board lists it, below).
    expect(pupil.by("daily-rank")).to_have_text(re.compile(r"^会排第 \d+ 名（还没上公开榜）$"))
    expect(pupil.by("daily-unlisted")).to_contain_text("之前至少 2 天也完成过每日挑战")
    share = pupil.by("daily-share").inner_text()
    first, squares = share.split("\n")
    assert re.fullmatch(r"快艇骰子 每日挑战 \d+月\d+日 \d+ 分 · 准确率 \d+\.\d%", first), first
    assert len(squares) == 13
    assert set(squares) <= set("🟩🟨🟧🟥")
    rows = pupil.by("leaderboard").get_by_test_id("leaderboard-row")
    expect(rows.first).to_be_visible()
    mine = pupil.by("leaderboard").locator("tr.dl-you")
    expect(mine).to_contain_text(HOSTILE)  # as text: no <img> was made of it
    _no_markup(pupil.page)
    pupil.by("week-board").click()
    expect(pupil.by("week-leaderboard").locator("tr.dl-you")).to_contain_text(HOSTILE)
    failures += _serious(pupil.page, "daily result") + _fits(pupil.page, "daily result")
    # A second attempt is refused: the page offers none, and the server says why.
    expect(pupil.by("start-daily")).to_have_count(0)
    watches[1].allowed.append("/api/daily")
    again = pupil.page.evaluate(
        """() => fetch('/api/daily', {method: 'POST', headers: {'Content-Type':
        'application/json', Accept: 'application/json'}, body: '{}'}).then(async (r) =>
        [r.status, (await r.json()).error.code])"""
    )
    assert again == [409, "already_played"]

    # The teacher sees the pupil on the group's board and in the trends, then removes them.
    teacher.page.goto(server_url + "/groups")
    teacher.page.get_by_role("link", name=GROUP).click()
    board = teacher.by("group-board")
    expect(board.get_by_test_id("leaderboard-row").first).to_contain_text(HOSTILE)
    expect(teacher.by("group-trends")).to_contain_text(HOSTILE)
    # who has played today: the pupil has, the teacher not yet
    members = teacher.page.locator(".dl-members li")
    expect(members.filter(has_text=HOSTILE)).to_contain_text("今天已完成")
    expect(members.filter(has_text="王老师")).to_contain_text("今天还没完成")
    expect(teacher.page.get_by_role("heading", name="组员（今天 1/2 人已完成）")).to_be_visible()
    _no_markup(teacher.page)
    failures += _serious(teacher.page, "group page (creator)")
    failures += _fits(teacher.page, "group page (creator)")
    teacher.page.get_by_role("button", name=f"移出 {HOSTILE}").click()
    expect(teacher.by("confirm-dialog")).to_be_visible()
    teacher.by("confirm-yes").click()
    expect(teacher.by("group-board")).not_to_contain_text(HOSTILE)
    expect(teacher.by("group-trends")).not_to_contain_text(HOSTILE)
    # F27: the removal renewed the invite link; the teacher is told to share the new one
    expect(teacher.by("invite-link")).not_to_have_text(link)
    new_link = teacher.by("invite-link").inner_text()
    expect(teacher.by("message")).to_contain_text("旧的邀请链接已失效")
    expect(teacher.by("message")).to_contain_text(new_link)

    for page in pages:
        page.context.close()
    for watch in watches:
        assert watch.errors == [], "console errors:\n" + "\n".join(watch.errors)
    assert failures == [], "\n".join(failures)


@SIZES
def test_d2_d4_name_asked_once_and_a_kept_game_abandoned_only_on_yes(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    context = sized_context(browser, *size)
    page = context.new_page()
    page.set_default_timeout(15_000)
    watch = ConsoleWatch()
    watch.watch(page)
    watch.allowed.append("/api/daily")  # the refusals provoked below
    ui = Table(page, server_url)
    # An ordinary game kept in this browser.
    ui.open_lobby()
    ui.start_solo()
    ui.roll()
    ui.by("lobby").click()
    ui.by("daily-link").click()
    expect(page).to_have_title("快艇骰子 · 每日挑战")
    name = page.get_by_label("你的名字")
    expect(name).to_be_visible()
    # 13 characters: the server's message, the draft kept, the focus back in the field.
    name.fill("一二三四五六七八九十一二三")
    ui.by("start-daily").click()
    expect(ui.by("daily-error")).to_be_visible()
    expect(name).to_have_value("一二三四五六七八九十一二三")
    expect(name).to_be_focused()
    name.fill(HOSTILE)
    ui.by("start-daily").click()
    # F2: the kept game is named; 再想想 keeps it, the yes abandons it for the challenge.
    expect(ui.by("daily-replace")).to_be_visible()
    ui.by("daily-replace").click()
    ui.by("confirm-no").click()
    expect(ui.by("start-daily")).to_be_visible()
    ui.by("daily-replace").click()
    ui.by("confirm-yes").click()
    expect(ui.by("roll")).to_be_visible()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    expect(ui.by("hint")).to_be_hidden()
    expect(ui.by("restart")).to_be_hidden()
    # Back on the day's page: the name is known, the game continues where it was.
    ui.roll()
    dice = ui.dice()
    page.goto(server_url + "/daily")
    expect(page.locator("#dl-name")).to_have_count(0)
    expect(page.get_by_text(f"排行榜上的名字：{HOSTILE}")).to_be_visible()
    expect(ui.by("start-daily")).to_have_text("继续今天的挑战")
    ui.by("start-daily").click()
    expect(ui.by("roll")).to_be_visible()
    assert ui.dice() == dice
    context.close()
    assert watch.errors == [], "console errors:\n" + "\n".join(watch.errors)


def test_d6_several_groups_leave_new_link_and_close(browser: Browser, server_url: str) -> None:
    """A browser in two groups; a member leaves one (off its members and boards); the
    creator's new link kills the old one; a closed group's link opens nothing."""
    pages = []
    watches = []
    for _ in range(2):
        page = sized_context(browser, 1280, 800).new_page()
        page.set_default_timeout(15_000)
        watch = ConsoleWatch()
        watch.watch(page)
        watch.allowed.append("/api/groups/lookup")  # the dead links below
        watches.append(watch)
        pages.append(page)
    teacher, pupil = (Table(p, server_url) for p in pages)

    links = {}
    teacher.open_lobby()
    for name in ("一班<i>", "二班"):
        teacher.page.goto(server_url + "/groups")
        teacher.page.get_by_label("小组名称").fill(name)
        teacher.page.get_by_label("你在小组里的名字").fill("李老师")
        teacher.by("create-group").click()
        expect(teacher.page.get_by_role("status").filter(has_text="已创建")).to_contain_text(name)
        links[name] = teacher.by("invite-link").inner_text()

    # The pupil joins both: 我的小组 lists the two.
    pupil.open_lobby()
    for name, link in links.items():
        pupil.page.goto(link)
        expect(pupil.page.get_by_role("heading", name=f"加入小组「{name}」")).to_be_visible()
        pupil.page.get_by_label("你在小组里的名字").fill(HOSTILE)
        pupil.by("join-group").click()
        expect(pupil.by("group-name")).to_have_text(name)
    pupil.page.goto(server_url + "/groups")
    mine = pupil.page.locator(".dl-groups li")
    expect(mine).to_have_count(2)
    _no_markup(pupil.page)

    # Leaving 一班 (asked first): back on 我的小组 with 二班 only; the teacher no longer sees
    # the pupil among 一班's members.
    pupil.page.get_by_role("link", name="一班<i>").click()
    pupil.by("leave-group").click()
    pupil.by("confirm-yes").click()
    expect(pupil.page).to_have_url(re.compile(r"/groups$"))
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("二班")
    teacher.page.goto(server_url + "/groups")
    teacher.page.get_by_role("link", name="一班<i>").click()
    expect(teacher.page.locator(".dl-members li")).to_have_count(1)
    expect(teacher.page.locator(".dl-members")).not_to_contain_text(HOSTILE)
    _no_markup(teacher.page)

    # 二班: a new link; the old one opens nothing, the new one the group.
    teacher.page.goto(server_url + "/groups")
    teacher.page.get_by_role("link", name="二班").click()
    old = links["二班"]
    expect(teacher.by("invite-link")).to_have_text(old)
    teacher.by("new-invite").click()
    expect(teacher.by("invite-link")).not_to_have_text(old)
    new = teacher.by("invite-link").inner_text()
    pupil.page.goto(old)
    expect(pupil.by("groupJoin-error")).to_be_visible()
    pupil.page.goto(new)
    expect(pupil.by("join-group")).to_have_text("更新名字")  # a member already

    # Closing 二班 (asked first): marked closed; its link opens nothing; the boards stay.
    teacher.by("close-group").click()
    teacher.by("confirm-yes").click()
    expect(teacher.page.locator(".dl-group-head")).to_contain_text("已关闭")
    expect(teacher.by("close-group")).to_have_count(0)
    pupil.page.goto(server_url + "/groups")
    expect(mine).to_contain_text("已关闭")
    pupil.page.goto(new)
    expect(pupil.by("groupJoin-error")).to_be_visible()
    pupil.page.goto(server_url + "/groups")
    pupil.page.get_by_role("link", name="二班").click()
    expect(pupil.by("group-board")).to_be_visible()

    for page in pages:
        page.context.close()
    for watch in watches:
        assert watch.errors == [], "console errors:\n" + "\n".join(watch.errors)
