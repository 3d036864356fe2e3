"""A device's name (I3, G2): kept language-neutral from its User-Agent, said in each
reader's language; the names stored in 简体中文 before are read back and said the same way."""

from __future__ import annotations

import pytest

from yahtzee.devices.service import device_name, said_device_name
from yahtzee.i18n import Lang, render

IPHONE_WECHAT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47"
)
IPAD = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Safari"
WINDOWS_EDGE = "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131"
CURL = "curl/8.5.0"


@pytest.mark.parametrize(
    ("user_agent", "stored", "zh_hans", "zh_hant", "en"),
    [
        (IPHONE_WECHAT, "phone wechat", "手机 · 微信", "手機 · 微信", "Phone · WeChat"),
        (IPAD, "tablet safari", "平板 · Safari", "平板 · Safari", "Tablet · Safari"),
        (WINDOWS_EDGE, "computer edge", "电脑 · Edge", "電腦 · Edge", "Computer · Edge"),
        (CURL, "computer browser", "电脑 · 浏览器", "電腦 · 瀏覽器", "Computer · Browser"),
    ],
)
def test_g2_a_devices_name_is_kept_neutral_and_said_per_reader(
    user_agent: str, stored: str, zh_hans: str, zh_hant: str, en: str
) -> None:
    assert device_name(user_agent) == stored
    said = said_device_name(stored)
    assert [render(said, lang) for lang in (Lang.ZH_HANS, Lang.ZH_HANT, Lang.EN)] == [
        zh_hans,
        zh_hant,
        en,
    ]


@pytest.mark.parametrize(
    ("stored", "en"),
    [
        ("手机 · Chrome", "Phone · Chrome"),
        ("平板 · Safari", "Tablet · Safari"),
        ("手机 · 微信", "Phone · WeChat"),
        ("电脑 · QQ 浏览器", "Computer · QQ Browser"),
        ("电脑 · 浏览器", "Computer · Browser"),
    ],
)
def test_g2_a_name_stored_in_chinese_before_is_said_in_english(stored: str, en: str) -> None:
    said = said_device_name(stored)
    assert render(said, Lang.EN) == en
    assert render(said, Lang.ZH_HANS) == stored  # 简体中文 reads what it always read


def test_a_name_it_cannot_read_is_said_as_it_is() -> None:
    """A tombstone's empty name, or anything else, passes through unchanged."""
    assert said_device_name("") == ""
    assert said_device_name("phone netscape") == "phone netscape"
