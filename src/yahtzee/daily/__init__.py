"""每日挑战 and 小组 (D1-D6): one game a day on the day's dice, its boards, and groups of
friends who compare their days.

``store.py`` its tables (results, names, groups, members, invite links), ``service.py``
its rules (the day's game, the boards, the groups, the finished game's marks),
``routes.py`` ``/api/daily`` and ``/api/groups`` with their bodies and output models,
``errors.py`` its refusals and their HTTP answers. The app gets it all through
:data:`FEATURE` (:mod:`yahtzee.server.feature`).
"""

from __future__ import annotations

from yahtzee.daily.errors import api_error
from yahtzee.daily.routes import router
from yahtzee.daily.service import DAILY, RULES, DailyService, daily_dice
from yahtzee.daily.settings import DailySettings
from yahtzee.daily.store import MIGRATIONS, DailyData, DailyStore
from yahtzee.server.feature import Feature, Parts, Platform
from yahtzee.server.pruning import Pruning, by_iso


def build(platform: Platform) -> Parts:
    """The daily service on the features' tables (D1: the day's dice come from the
    server's secret, which every process shares)."""
    limits = platform.settings.section(DailySettings)
    service = DailyService(
        DailyStore(platform.db, platform.secret),
        platform.service,
        platform.clock,
        platform.cpu,
        dice=daily_dice(platform.secret),
        guard=platform.guard,
        limits=limits,
    )
    # F14: groups closed, or never joined by anyone, go after --prune-groups-after-days.
    groups = Pruning("groups", limits.prune_groups_after_days, by_iso(service.store.prune_groups))
    return Parts(
        state={"daily": service},
        close=(service.drain,),
        kinds={DAILY: service.kind_hooks()},
        player_data=(DailyData(limits.open_groups),),  # (a merge keeps the cap, F27)
        prunings=(groups,),
    )


#: 每日挑战 and 小组 as the app factory sees them.
FEATURE = Feature(
    name="daily",
    routers=(router,),
    errors=api_error,
    build=build,
    spa_paths=("/daily", "/groups", "/groups/join", "/groups/{group_id}"),
    settings=DailySettings,
    migrations=MIGRATIONS,
    kinds=(RULES,),
)
