"""Fair play in the page: a saved game is never lost without the player's word (F2)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from e2e.helpers import ConsoleWatch, Table

pytestmark = pytest.mark.e2e

# 「大厅」 then 「开始人机对战」 in one task: the second click lands before /api/records can
# have answered (the race of issue 7).
_LOBBY_THEN_START = """() => {
    document.querySelector('[data-testid="lobby"]').click();
    document.querySelector('[data-testid="start-vs"]').click();
}"""

# After a fresh load: click 「开始人机对战」 in the very frame the lobby is first shown.
_START_AS_LOBBY_APPEARS = """() => new Promise((resolve) => {
    const tick = () => {
        const lobby = document.getElementById("view-lobby");
        const button = document.querySelector('[data-testid="start-vs"]');
        if (lobby && !lobby.hidden && button) {
            button.click();
            resolve(true);
        } else {
            requestAnimationFrame(tick);
        }
    };
    tick();
})"""


def _current(ui: Table) -> dict[str, Any]:
    """The saved game as the server has it (the page's own cookie)."""
    response = ui.page.request.get(ui.base_url + "/api/games/current")
    assert response.status == 200, response.text()
    game: dict[str, Any] = response.json()
    return game


def _decline_if_asked(ui: Table) -> None:
    dialog = ui.by("confirm-dialog")
    if dialog.is_visible():
        ui.by("confirm-no").click()
        expect(dialog).to_be_hidden()


def test_f2_start_clicked_the_instant_the_lobby_appears_keeps_the_saved_game(ui: Table) -> None:
    ui.start_solo()
    ui.play_round(1)
    ui.roll()
    saved = _current(ui)
    for i in range(20):
        if i % 2 == 0:
            ui.page.evaluate(_LOBBY_THEN_START)
        else:
            ui.page.goto(ui.base_url + "/", wait_until="commit")
            ui.page.evaluate(_START_AS_LOBBY_APPEARS)
        _decline_if_asked(ui)
        expect(ui.by("continue")).to_be_visible()
        assert _current(ui)["id"] == saved["id"], f"saved game lost on try {i + 1}"
        # Once the lobby knows, a click asks, naming the saved game; 取消 keeps it.
        ui.by("start-vs").click()
        expect(ui.by("confirm-dialog")).to_be_visible()
        expect(ui.by("confirm-dialog")).to_contain_text("单人挑战，第 2 回合")
        ui.by("confirm-no").click()
        now = _current(ui)
        assert (now["id"], now["players"]) == (saved["id"], saved["players"])
        ui.by("continue").click()
        expect(ui.by("roll")).to_be_visible()
        expect(ui.by("round")).to_have_text("第 2 / 13 回合")


def test_f2_a_game_saved_in_another_tab_is_asked_about_not_lost(
    ui: Table, console: ConsoleWatch
) -> None:
    """The lobby's data can be old (another tab started a game since): the server's 409
    game_in_progress is the backstop, and the page asks with the server's words."""
    console.allowed.append("/api/games")
    page = ui.page
    expect(ui.by("continue")).to_be_hidden()  # this tab's lobby: nothing saved
    other = Table(page.context.new_page(), ui.base_url)
    other.open_lobby()
    other.start_vs("novice")
    other.play_round(1)
    saved = _current(ui)

    ui.by("start-solo").click()
    dialog = ui.by("confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("人机对战（入门，第 2 回合）")
    ui.by("confirm-no").click()
    expect(dialog).to_be_hidden()
    # Declined: the saved game is intact and the lobby now offers to continue it.
    expect(ui.by("continue")).to_be_visible()
    assert _current(ui)["id"] == saved["id"]

    # Asked again, and this time replaced.
    ui.by("start-solo").click()
    expect(dialog).to_be_visible()
    ui.by("confirm-yes").click()
    # The table is in the page from the start, hidden, and its round line already reads
    # 第 1 回合: only the table shown says the server has answered.
    expect(ui.by("roll")).to_be_visible()
    expect(ui.page.locator("#mode-badge")).to_have_text("单人挑战")
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    expect(ui.cell("chance", "computer")).to_be_hidden()
    assert _current(ui)["mode"] == "solo"
    other.page.close()


def test_f1_no_fourth_roll_through_the_lobby(ui: Table) -> None:
    """The old trick: 「大厅」 → 「继续游戏」 gave a fresh turn. Now the turn stays locked."""
    ui.start_vs("novice")
    dice = [ui.roll() for _ in range(3)][-1]
    expect(ui.by("roll")).to_be_disabled()
    version = _current(ui)["version"]
    for _ in range(5):
        ui.by("lobby").click()
        ui.by("continue").click()
        expect(ui.by("roll")).to_be_visible()
        expect(ui.by("rolls-left")).to_have_text("剩余 0 次")
        expect(ui.by("roll")).to_be_disabled()
        assert ui.dice() == dice
    ui.page.reload()
    expect(ui.by("rolls-left")).to_have_text("剩余 0 次")
    assert ui.dice() == dice
    assert _current(ui)["version"] == version  # continuing wrote nothing
