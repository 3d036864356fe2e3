"""P6 on the phone table with the live meter and a cut message: no serious or critical
axe-core violation, in the light and dark themes (the walk through every view, with the
contrast measure, is ``test_contrast.py``).
"""

from __future__ import annotations

import json
import re
from functools import partial

import pytest
from playwright.sync_api import Browser, expect

from e2e.checks import check_view
from e2e.helpers import NO_SERVICE_WORKER, ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e

_check = partial(check_view, contrast=False)


def test_p6_l4_phone_meter_and_a_cut_message_have_no_serious_axe_violation(
    browser: Browser, server_url: str
) -> None:
    """The phone table with the live meter on its totals line (solo, then vs with the bar),
    and with a message too long for it, cut and then opened (「全文」), in both themes."""
    context = sized_context(browser, 360, 640, **NO_SERVICE_WORKER)
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    console.allowed.append("/roll")
    ui = Table(page, server_url)
    failures: list[str] = []
    ui.open_lobby()
    ui.start_solo()
    ui.roll()
    expect(ui.by("live-meter-text")).to_contain_text("预计终局")
    _check(page, "phone solo with the meter", failures)

    refusal = {"error": {"code": "illegal_action", "message": "请把这一段说明读完：" * 12}}
    page.route(
        re.compile(r"/api/games/[^/]+/roll$"),
        lambda route: route.fulfill(
            status=409, content_type="application/json", body=json.dumps(refusal)
        ),
    )
    ui.by("roll").click()
    expect(ui.by("message-more")).to_be_visible()
    _check(page, "phone, a cut message", failures)
    ui.by("message-more").click()
    expect(ui.by("message-more")).to_have_text("收起")
    _check(page, "phone, the message opened", failures)
    page.unroute(re.compile(r"/api/games/[^/]+/roll$"))

    ui.by("lobby").click()
    ui.start_vs("novice")
    ui.roll()
    expect(ui.by("live-meter-bar")).to_be_visible()
    _check(page, "phone vs with the meter", failures)
    context.close()
    assert failures == [], "\n".join(failures)
    assert console.errors == []
