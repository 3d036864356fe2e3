"""好友房间 in the browser (O1-O9): a room made in one browser, joined from another through
its invite link (a hostile name, shown as text), played live to its end with two computers
(each screen shows the other seats' dice and holds as they happen), reactions, the
timeout take-over (托管) with a short turn, and 「再来一局」. On the production stack
(nginx, two app processes, PostgreSQL), four people play a whole game whose browsers are
spread over both processes."""

from __future__ import annotations

import re
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

from e2e.helpers import ConsoleWatch, sized_context
from server_process import ServerProcess, Stack, postgres_reachable_dir
from yahtzee.server.middleware import COOKIE_NAME

pytestmark = pytest.mark.e2e

HOSTILE = '<img src=x onerror="window.__pwned=1">'[:12]  # 12 characters of markup


def _page(context: BrowserContext, console: ConsoleWatch) -> Page:
    page = context.new_page()
    page.set_default_timeout(20_000)
    console.watch(page)
    return page


def _create(page: Page, base: str, name: str, friends: int, computers: int, turn: int) -> str:
    """Open a room from the lobby; returns its invite link."""
    page.goto(base + "/")
    page.get_by_test_id("rooms-link").click()
    page.get_by_test_id("room-your-name").fill(name)
    page.get_by_test_id("room-friends").select_option(str(friends))
    page.get_by_test_id("room-computers").select_option(str(computers))
    page.get_by_test_id("room-turn-seconds").fill(str(turn))
    page.get_by_test_id("create-room").click()
    link = page.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/rooms/[0-9a-f]{16}#t=[A-Za-z0-9_-]{22}$"))
    return link.input_value()


def _join(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.get_by_test_id("join-name").fill(name)
    page.get_by_test_id("join-room").click()
    expect(page.get_by_test_id("invite-link")).to_be_visible()  # seated: the invite shows


def _play_turn(page: Page) -> None:
    """Roll once and write the first open box that scores (else the first the server
    allows: all open boxes are 0 then, so no zero confirmation, U11); the turn then passes
    to another person (these tests never seat one person alone with computers)."""
    page.locator('[data-testid="roll"]:enabled').click()
    _score_a_box(page)
    expect(page.get_by_test_id("roll")).to_be_hidden()


def _score_a_box(page: Page) -> None:
    """Write the first open box that scores (else the first the server allows: all open
    boxes are 0 then, so no zero confirmation, U11)."""
    expect(page.locator(".cell.preview .cell-btn:enabled").first).to_be_visible()
    scoring = page.locator(".cell.preview:not(.zero) .cell-btn:enabled")
    if scoring.count():
        scoring.first.click()
    else:
        page.locator(".cell.preview .cell-btn:enabled").first.click()


def _play_to_end(pages: list[Page]) -> None:
    """Each turn from the screen whose turn it is, until every screen shows the ranking."""
    idle_since = time.monotonic()
    while time.monotonic() - idle_since < 60:  # a minute without a turn: stuck
        if all(p.get_by_test_id("rematch").count() for p in pages):
            return
        for p in pages:
            if p.locator('[data-testid="roll"]:enabled').count():
                _play_turn(p)
                idle_since = time.monotonic()
                break
        else:
            pages[0].wait_for_timeout(100)
    screens = "\n\n".join(p.locator("#view-room").inner_text() for p in pages)
    raise AssertionError(f"no screen could play on:\n{screens}")


def test_o1_to_o8_a_room_with_two_people_and_two_computers(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    host_ctx = sized_context(browser, 1280, 800, permissions=["clipboard-read", "clipboard-write"])
    friend_ctx = sized_context(browser, 375, 667)
    host, friend = _page(host_ctx, console), _page(friend_ctx, console)
    invite = _create(host, server_url, "房主", friends=1, computers=2, turn=300)
    # sharing: copy, QR code (an SVG image that loads)
    host.get_by_test_id("copy-invite").click()
    assert host.evaluate("navigator.clipboard.readText()") == invite
    qr = host.get_by_test_id("invite-qr")
    expect(qr).to_be_visible()
    # (made in the CPU pool: the image may come a moment after the page)
    host.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=qr.element_handle())
    expect(host.get_by_test_id("room-seat-1")).to_contain_text("空位")

    # the friend opens the link on a phone, with a hostile name
    _join(friend, invite, HOSTILE)
    for p in (host, friend):
        seat = p.get_by_test_id("room-seat-1")
        expect(seat).to_contain_text(HOSTILE)  # shown as text...
        assert seat.locator("img").count() == 0  # ...never as markup
    assert host.evaluate("window.__pwned") is None
    assert friend.get_by_test_id("start-room").count() == 0  # only the creator starts
    host.get_by_test_id("start-room").click()
    # U13: a latecomer on the invite link of a started room is told they are watching
    late_ctx = sized_context(browser, 390, 844)
    late = _page(late_ctx, console)
    late.goto(invite)
    expect(late.get_by_test_id("room-watching")).to_contain_text("你在观战")
    late_ctx.close()

    # live: the host's roll and holds show on the friend's screen as they happen
    host.get_by_test_id("roll").click()
    expect(host.get_by_test_id("die-4")).to_have_attribute("data-value", re.compile("[1-6]"))
    faces = [host.get_by_test_id(f"die-{i}").get_attribute("data-value") for i in range(5)]
    for i in range(5):
        expect(friend.get_by_test_id(f"die-{i}")).to_have_attribute("data-value", faces[i])
        # U11: drawn with the solo table's pips, not numerals
        pips = friend.get_by_test_id(f"die-{i}").locator(".pip")
        expect(pips).to_have_count(int(faces[i] or 0))
    host.get_by_test_id("die-0").click()
    expect(friend.get_by_test_id("die-0")).to_have_attribute("aria-pressed", "true")
    # U11: the previews are the solo table's: 「+N」 (green) and 「+0」 (grey-red) ...
    chance = host.get_by_test_id("cell-0-chance").locator("button")
    expect(chance).to_have_text(re.compile(r"^\+\d+$"))
    expect(host.locator("td.cell.preview:not(.zero)").first).to_be_visible()
    # ... and a 0 while another box scores asks first (快艇 is 0 unless five alike)
    if len(set(faces)) > 1:
        yahtzee = host.get_by_test_id("cell-0-yahtzee").locator("button")
        expect(yahtzee).to_have_text("+0")
        yahtzee.click()
        expect(host.locator("#confirm-dialog")).to_be_visible()
        host.locator("#confirm-no").click()
        expect(yahtzee).to_be_enabled()  # nothing written
    chance.click()
    # U11: 本局记录 on the other screen says what the host just wrote
    expect(friend.get_by_test_id("turn-log").locator("li").first).to_contain_text("房主")
    expect(friend.get_by_test_id("turn-log").locator("li").first).to_contain_text("机会")
    # reactions, from the fixed set, shown beside the seat on every screen
    friend.get_by_test_id("reaction-nice").click()
    expect(host.get_by_test_id("room-seat-1")).to_contain_text("漂亮")

    _play_to_end([host, friend])
    expect(host.locator(".rm-ranking li")).to_have_count(4)
    # U17: 本局记录 of every turn on both screens (the events carry the last round's only)
    for p in (host, friend):  # (once the last turns' replay is over)
        expect(p.get_by_test_id("turn-log").locator("li")).to_have_count(13 * 4, timeout=30_000)
    # U17: 复盘 of one's own seat from each browser: the friend's opens the friend's
    review = friend.get_by_test_id("room-review")
    expect(review).to_have_attribute("href", re.compile(r"^/review/[0-9a-f]+\?seat=1$"))
    mine = friend.context.new_page()
    console.watch(mine)
    mine.goto(server_url + (review.get_attribute("href") or ""))
    expect(mine.locator(".rv-intro")).to_contain_text(f"{HOSTILE} 第", timeout=90_000)
    mine.close()
    # 「再来一局」: a new room with the same seats; the other screen is offered to go there
    host.get_by_test_id("rematch").click()
    expect(host.get_by_test_id("start-room")).to_be_visible()
    expect(friend.get_by_test_id("rematch")).to_have_attribute("href", re.compile(r"^/rooms/"))
    friend.get_by_test_id("rematch").click()
    expect(friend.get_by_test_id("room-seat-1")).to_contain_text(HOSTILE)
    # O7: the game is in the friend's recent games, by the friend's own place, listed as
    # 好友房间 (K2: never as 多人同屏), and its 复盘 opens on the friend's phone
    friend.goto(server_url + "/")
    recent = friend.locator(".recent-item").first
    expect(recent).to_contain_text(re.compile(r"好友房间 · 4 人 · 第 \d 名"))
    recent.get_by_test_id("recent-review").click()
    expect(friend.get_by_test_id("review-seat")).to_be_visible(timeout=90_000)
    expect(friend.locator(".rv-intro")).to_contain_text("好友房间")
    assert console.errors == [], console.errors
    host_ctx.close()
    friend_ctx.close()


def test_o5_the_timeout_takeover_with_a_short_turn(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    host_ctx, friend_ctx = sized_context(browser, 1280, 800), sized_context(browser, 1280, 800)
    host, friend = _page(host_ctx, console), _page(friend_ctx, console)
    invite = _create(host, server_url, "慢慢", friends=1, computers=0, turn=10)
    _join(friend, invite, "快快")
    host.get_by_test_id("start-room").click()
    # the host does nothing: everyone sees the countdown, then 托管 on the host's seat
    expect(friend.get_by_test_id("countdown")).to_be_visible()
    expect(friend.get_by_test_id("away-0")).to_be_visible(timeout=30_000)
    expect(host.get_by_test_id("away-0")).to_be_visible()
    # L11: 托管 has its 「?」 with the glossary's words
    q = friend.get_by_test_id("term-autopilot").first
    expect(q).to_have_attribute("aria-label", "托管是什么意思？")
    q.click()
    expect(friend.locator("[data-term=autopilot] .term-pop").first).to_contain_text("电脑先替他下")
    # the computer played the host's turn: now it is the friend's
    expect(friend.get_by_test_id("roll")).to_be_enabled()
    # U11: 本局记录 says what 托管 wrote for the host, marked as 托管
    entry = friend.get_by_test_id("turn-log").locator("li").first
    expect(entry).to_contain_text("慢慢")
    expect(entry).to_contain_text("托管")
    # the host takes the seat back
    host.get_by_test_id("room-im-back").click()
    expect(friend.get_by_test_id("away-0")).to_have_count(0)
    assert console.errors == [], console.errors
    host_ctx.close()
    friend_ctx.close()


# -- on the production stack: nginx, two app processes, PostgreSQL ---------------------------


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    """The stack of ``scripts/stack.sh`` with nginx's access log of who is served where."""
    with postgres_reachable_dir("yahtzee-rooms-stack-") as base:
        stack = Stack(base, access_log=True)
        started = stack.run("start")
        try:
            assert started.returncode == 0, started.stdout + started.stderr
            yield stack
        finally:
            stack.run("stop")


def _served_port(stack: Stack, cookie: str) -> int:
    """The app port that served ``cookie``'s last request. nginx writes its access log
    line after the answer has gone, so the line may come a moment after the answer."""
    deadline = time.monotonic() + 10
    while True:
        port = next((p for c, p, _m, _u in reversed(stack.served()) if c == cookie), None)
        if port is not None or time.monotonic() > deadline:
            assert port is not None, f"nginx logged no request of {cookie}"
            return port
        time.sleep(0.05)


def _players_by_process(stack: Stack, each: int) -> list[list[str]]:
    """Signed player ids (cookie values), ``each`` per app process: nginx picks a
    browser's process by a hash of its cookie, so browsers are minted until each process
    serves ``each`` of them (its access log says which served whom)."""
    found: dict[int, list[str]] = {port: [] for port in stack.app_ports}
    url = f"http://127.0.0.1:{stack.port}/api/records"
    for _ in range(60):
        with urllib.request.urlopen(url, timeout=10) as first:  # mints the cookie
            cookie = first.headers["set-cookie"].split(";", 1)[0]
        request = urllib.request.Request(url, headers={"cookie": cookie})
        with urllib.request.urlopen(request, timeout=10):  # with it: served by its process
            pass
        value = cookie.partition("=")[2]
        port = _served_port(stack, value)
        if len(found[port]) < each:
            found[port].append(value)
        if all(len(v) == each for v in found.values()):
            return list(found.values())
    raise AssertionError(f"nginx sent 60 browsers to one process: {found}")


def _browser_of(browser: Browser, url: str, player: str, width: int, height: int) -> BrowserContext:
    context = sized_context(browser, width, height)
    context.add_cookies([{"name": COOKIE_NAME, "value": player, "url": url}])
    return context


def _streams_served(stack: Stack, room_id: str) -> dict[str, set[int]]:
    """Which app processes served each browser's event stream of the room."""
    out: dict[str, set[int]] = {}
    for cookie, port, method, path in stack.served():
        if method == "GET" and path == f"/api/rooms/{room_id}/events" and port:
            out.setdefault(cookie, set()).add(port)
    return out


def _room_id(invite: str) -> str:
    found = re.search(r"/rooms/([0-9a-f]{16})#", invite)
    assert found is not None, invite
    return found[1]


@pytest.mark.parametrize(
    ("friends", "computers"),
    [(1, 2), (3, 0)],
    ids=["two-people-two-computers", "four-people"],
)
def test_o4_a_whole_room_game_behind_nginx_on_the_room_s_process(
    browser: Browser, stack: Stack, console: ConsoleWatch, friends: int, computers: int
) -> None:
    """Four browser contexts' worth of seats (two people and two computers; then four
    people), the people's browsers from both app processes (by their cookies, which serve
    their other requests), the whole game to the ranking on every screen, every page live
    through nginx on the stream of the room's process, which also served every action of
    the room's game: the room's requests meet in one process (its cache hits, each event
    is framed once there)."""
    url = f"http://127.0.0.1:{stack.port}"
    people = friends + 1
    by_process = _players_by_process(stack, -(-people // 2))
    # seat i's browser on process i % 2: the host and the friends alternate
    players = [by_process[i % 2][i // 2] for i in range(people)]
    sizes = [(1280, 800), (375, 667), (1280, 800), (360, 640)]
    contexts = [_browser_of(browser, url, player, *sizes[i]) for i, player in enumerate(players)]
    pages = [_page(c, console) for c in contexts]
    invite = _create(pages[0], url, "房主", friends=friends, computers=computers, turn=300)
    rid = _room_id(invite)
    for n, page in enumerate(pages[1:], start=1):
        _join(page, invite, f"朋友{n}")
    for page in pages:
        for n in range(1, people):
            expect(page.get_by_test_id(f"room-seat-{n}")).to_contain_text(f"朋友{n}")
    pages[0].get_by_test_id("start-room").click()
    _play_to_end(pages)
    for page in pages:
        expect(page.locator(".rm-ranking li")).to_have_count(friends + computers + 1)
        # U17: every turn in 本局记录, each page's events from both processes added up
        turns = page.get_by_test_id("turn-log").locator("li")
        expect(turns).to_have_count(13 * (friends + computers + 1), timeout=30_000)
    assert console.errors == [], console.errors
    for context in contexts:
        context.close()
    # Every page was live on the stream of one process, the room's, which served the
    # game's actions too (nginx logs a stream when it ends: the pages are closed now).
    deadline = time.monotonic() + 10
    while (served := _streams_served(stack, rid)).keys() != set(players):
        assert time.monotonic() < deadline, served
        time.sleep(0.2)
    ports = set().union(*served.values())
    assert len(ports) == 1, served
    actions = {
        p for _c, p, m, u in stack.served() if m == "POST" and u.startswith("/api/games/" + rid)
    }
    assert actions == ports, (actions, ports)
    # ...while the browsers' own requests went to their cookies' processes, both of them
    lobbies = {p for c, p, _m, u in stack.served() if u == "/api/records" and c in players}
    assert lobbies == set(stack.app_ports)


# -- F9: the page's stream ends, is refused, comes back --------------------------------------


@pytest.fixture(scope="module")
def short_streams(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose room streams last 3 s (less up to a tenth), one a browser (F9)."""
    base = tmp_path_factory.mktemp("short-streams")
    args = ["--room-stream-minutes", "0.05", "--max-streams-per-player", "1"]
    with ServerProcess(base / "rooms.db", args=args) as server:
        yield server.url


def test_f9_the_page_reconnects_with_its_last_event_and_says_why_a_stream_is_refused(
    browser: Browser, short_streams: str, console: ConsoleWatch
) -> None:
    """The server ends every stream after 3 s: each page asks again with the id of the last
    event it has (Last-Event-ID) and stays live through a game's turns; a second tab of the
    same browser is refused (one stream a browser here) and says why instead of going
    quiet."""
    console.allowed.append("/events")  # the refused tab's 429 (Chromium logs it)
    host_ctx, friend_ctx = sized_context(browser, 1280, 800), sized_context(browser, 375, 667)
    host, friend = _page(host_ctx, console), _page(friend_ctx, console)
    asked: list[str | None] = []  # the friend page's Last-Event-ID, request after request
    friend.on(
        "request",
        lambda r: asked.append(r.headers.get("last-event-id")) if "/events" in r.url else None,
    )
    invite = _create(host, short_streams, "房主", friends=1, computers=0, turn=300)
    _join(friend, invite, "朋友")
    host.get_by_test_id("start-room").click()
    for turn in range(4):  # four turns, 1.5 s apart: streams end and come back meanwhile
        # the page on turn learns it from its stream alone (the other page acted)
        on_turn = (host, friend)[turn % 2]
        expect(on_turn.locator('[data-testid="roll"]:enabled')).to_be_visible()
        _play_turn(on_turn)
        on_turn.wait_for_timeout(1500)
    totals = host.locator("#scorecard-totals .total-row").text_content() or ""
    expect(friend.locator("#scorecard-totals .total-row")).to_have_text(totals)
    ids = [int(a) for a in asked if a is not None]
    assert len(ids) >= 3, asked  # the first request and at least two reconnections
    assert ids == sorted(ids), ids  # each from the last event it had...
    assert ids[-1] > ids[0], ids  # ...which moved on meanwhile
    # a second tab of the friend's browser: one of the two is refused and says why
    second = _page(friend_ctx, console)
    second.goto(friend.url)
    notes = [p.get_by_test_id("room-stream") for p in (friend, second)]
    deadline = time.monotonic() + 15
    while not any(n.count() for n in notes):
        assert time.monotonic() < deadline, "no tab said why it is not live"
        second.wait_for_timeout(200)
    note = next(n for n in notes if n.count())
    expect(note).to_contain_text("页面太多")
    assert console.errors == [], console.errors
    host_ctx.close()
    friend_ctx.close()


# What a room's board shows, each time it changes (a replay's step lasts one pace of 设置:
# recorded in the page, so that no step is missed between two looks from the test).
_RECORD_BOARD = """() => {
  window.__board = [];
  const board = document.querySelector("#view-room .board");
  const note = () => {
    const shot = {
      turn: board.querySelector('[data-testid="turn"]').textContent,
      dice: [...board.querySelectorAll(".dice-row .die")].map((d) => d.dataset.value).join(),
      replayed: board.querySelector(".dice-row").classList.contains("computer-dice"),
      locked: board.querySelectorAll(".dice-row .die.locked").length,
      log: [...board.querySelectorAll('[data-testid="turn-log"] li')]
        .map((li) => li.textContent),
    };
    const last = window.__board.at(-1);
    if (!last || JSON.stringify(last) !== JSON.stringify(shot)) window.__board.push(shot);
  };
  note();
  const changes = { subtree: true, childList: true, attributes: true, characterData: true };
  new MutationObserver(note).observe(board, changes);
}"""


def _shown(page: Page, since: int, test: str) -> int:
    """Wait until a board shot after index ``since`` passes ``test`` (a JS predicate of a
    shot ``s``); returns its index."""
    try:
        found = page.wait_for_function(
            f"(since) => window.__board.findIndex((s, i) => i > since && ({test})) + 1 || null",
            arg=since,
        )
    except PlaywrightError as err:
        shots = page.evaluate("[document.visibilityState, window.__board]")
        raise AssertionError(f"no board shot after {since} with {test}: {shots}") from err
    return int(found.json_value()) - 1


def _shot(page: Page, index: int) -> dict[str, Any]:
    shot: dict[str, Any] = page.evaluate("(i) => window.__board[i]", index)
    return shot


def test_u8_u11_another_seats_turn_is_replayed_step_by_step_with_its_log_line(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    """Issue 27 (one board): in a room, a friend's and a computer's turns reach the other
    screens as the solo table's computer turn does: each roll, then the box written,
    shown one step at a time on the drawn dice (「X 正在打……」, the dice of that step),
    and 本局记录 gains each seat's line only once its box has been shown (U8, U11); the
    board's keys are the solo table's (B3)."""
    host_ctx = sized_context(browser, 1280, 800)
    friend_ctx = sized_context(browser, 390, 844)
    host, friend = _page(host_ctx, console), _page(friend_ctx, console)
    invite = _create(host, server_url, "房主", friends=1, computers=1, turn=300)
    _join(friend, invite, "小明")
    host.get_by_test_id("start-room").click()
    for p in (host, friend):
        expect(p.get_by_test_id("turn")).to_have_text(re.compile("轮到"))
        p.evaluate(_RECORD_BOARD)

    # The host's roll: the friend's board shows it as a step of the host's turn, drawn.
    host.locator('[data-testid="roll"]:enabled').click()
    expect(host.get_by_test_id("die-4")).to_have_attribute("data-value", re.compile("[1-6]"))
    faces = [host.get_by_test_id(f"die-{i}").get_attribute("data-value") or "" for i in range(5)]
    rolled = ",".join(faces)
    step = _shown(friend, -1, f"s.turn === '房主 正在打……' && s.replayed && s.dice === '{rolled}'")
    _shown(friend, step, "s.turn === '轮到 房主 了' && !s.replayed")  # the step played out
    for i in range(5):
        pips = friend.get_by_test_id(f"die-{i}").locator(".pip")
        expect(pips).to_have_count(int(faces[i]))
    # The board's keys, as on the solo table (B3): 1 holds the first die.
    host.keyboard.press("1")
    expect(host.get_by_test_id("die-0")).to_have_attribute("aria-pressed", "true")
    expect(friend.get_by_test_id("die-0")).to_have_attribute("aria-pressed", "true")

    # The host writes a box: the friend sees it as a step (locked dice, its log line), then
    # their own turn.
    _score_a_box(host)
    step = _shown(friend, -1, "s.turn === '房主 正在打……' && s.locked === 5 && s.log.length === 1")
    assert "房主" in _shot(friend, step)["log"][0]
    _shown(friend, step, "s.turn === '轮到你了'")

    # The friend plays; the computer follows: the host watches the friend's box, then the
    # computer's turn step by step, its log line appearing only with its box.
    _play_turn(friend)
    box = _shown(host, -1, "s.turn === '小明 正在打……' && s.locked === 5 && s.log.length === 2")
    computer = _shown(host, box, "/^电脑.* 正在打……$/.test(s.turn)")
    assert len(_shot(host, computer)["log"]) == 2  # the computer's box not shown yet
    done = _shown(host, computer, "s.turn === '轮到你了'")
    assert len(_shot(host, done)["log"]) == 3
    assert "电脑" in _shot(host, done)["log"][0]
    host_ctx.close()
    friend_ctx.close()


def test_u11_polish8_a_room_asks_before_writing_under_the_confirm_setting(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    """Issue 27 (one score flow): 设置's 「登记前确认」 in a room is the table's (polish 8,
    U11): a first tap only picks the box (framed, nothing sent), 「确定」 at the end of the
    room's message bar — the same button as 多人同屏's — writes it, and the other screen's
    本局记录 then says so."""
    host_ctx = sized_context(browser, 1280, 800)
    friend_ctx = sized_context(browser, 390, 844)
    host, friend = _page(host_ctx, console), _page(friend_ctx, console)
    invite = _create(host, server_url, "房主", friends=1, computers=0, turn=300)
    _join(friend, invite, "小明")
    host.get_by_test_id("settings-open").click()
    host.get_by_test_id("confirm-setting").select_option("on")
    host.get_by_test_id("settings-close").click()
    host.get_by_test_id("start-room").click()
    host.locator('[data-testid="roll"]:enabled').click()
    chance = host.get_by_test_id("cell-0-chance").locator("button")
    expect(chance).to_be_enabled()
    ok = host.get_by_test_id("confirm-score")
    expect(ok).to_be_hidden()
    chance.click()
    expect(host.locator('[data-testid="cell-0-chance"]')).to_have_class(re.compile(r"\bpicked\b"))
    expect(ok).to_be_visible()
    expect(ok).to_have_attribute("aria-label", "确定登记「机会」")
    expect(host.get_by_test_id("message")).to_contain_text("已选「机会」")
    host.wait_for_timeout(300)
    expect(host.get_by_test_id("roll")).to_be_visible()  # nothing was written
    expect(friend.get_by_test_id("turn-log").locator("li")).to_have_count(0)
    ok.click()
    expect(host.get_by_test_id("roll")).to_be_hidden()  # written: the friend's turn
    expect(ok).to_be_hidden()
    # U17: the same words as solo once written (the pick's sentence is gone)
    expect(host.get_by_test_id("message")).to_contain_text("你把")
    expect(host.get_by_test_id("message")).not_to_contain_text("已选")
    # U17: the room's address without its link says how to get in
    console.allowed.append(f"/api/rooms/{_room_id(host.url)}")
    stranger = _page(sized_context(browser, 390, 844), console)
    stranger.goto(host.url.split("#")[0])
    expect(stranger.get_by_test_id("room-error")).to_contain_text("邀请链接")
    stranger.context.close()
    log = friend.get_by_test_id("turn-log").locator("li").first
    expect(log).to_contain_text("房主")
    expect(log).to_contain_text("机会")
    assert console.errors == [], console.errors
    host_ctx.close()
    friend_ctx.close()
