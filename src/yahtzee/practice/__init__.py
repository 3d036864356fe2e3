"""练习 (L6-L8): puzzles from real positions, graded by the solver's values, with a
rating and a review schedule per player.

``store.py`` its tables (servings, answers, cards, ratings), ``service.py`` serving and
grading, ``views.py`` and ``routes.py`` ``/api/puzzles`` with its bodies and output
models, ``errors.py`` its refusals and their HTTP answers. The app gets it all through
:data:`FEATURE` (:mod:`yahtzee.server.feature`).
"""

from __future__ import annotations

import random

from yahtzee.practice.errors import api_error
from yahtzee.practice.routes import router
from yahtzee.practice.service import PracticeService
from yahtzee.practice.settings import PracticeSettings
from yahtzee.practice.store import MIGRATIONS, PracticeData, PracticeStore
from yahtzee.server.feature import Feature, Parts, Platform


def build(platform: Platform) -> Parts:
    """The practice service, its own tables in the same database, on the app's
    connections (its writes relaxed on SQLite: :class:`PracticeStore`)."""
    seed = platform.dice_seed
    rng = random.Random(f"{seed}:practice") if seed else None
    store = PracticeStore(platform.db)
    service = PracticeService(
        store,
        platform.storage,
        guard=platform.guard,
        limits=platform.settings.section(PracticeSettings),
        rng=rng,
    )
    return Parts(
        state={"practice": service},
        warm_up=(service.warm_up,),
        player_data=(PracticeData(),),
    )


#: 练习 as the app factory sees it.
FEATURE = Feature(
    name="practice",
    routers=(router,),
    errors=api_error,
    build=build,
    spa_paths=("/practice", "/practice/{game_id}"),
    settings=PracticeSettings,
    migrations=MIGRATIONS,
)
