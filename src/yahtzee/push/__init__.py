"""Reminders that reach a phone (W4, W6): Web Push to the devices that asked for it.

The package owns the feature whole: ``store.py`` its tables (each device's subscription, the
players' quiet hours, the hour's marks, the outbox) and its part of a player's data;
``subscription.py`` what a subscription may be (the push services' endpoints only, real
keys, an IANA time zone); ``vapid.py`` the server's VAPID key, derived from its secret;
``delivery.py`` one message to one push service (pywebpush, in a worker thread);
``service.py`` deciding, queueing and sending, and what the queue guarantees; ``routes.py``
``/api/push``; ``errors.py`` its refusals. It delivers the platform's reminders
(:mod:`yahtzee.server.reminders`: any feature asks through ``Platform.reminders``, this one
answers as ``Parts.reminders``) and knows no other feature. See docs/push.md.
"""

from __future__ import annotations

from yahtzee.push.errors import api_error
from yahtzee.push.routes import router
from yahtzee.push.service import PushService
from yahtzee.push.settings import PushSettings
from yahtzee.push.store import MIGRATIONS, PushData, PushStore
from yahtzee.push.vapid import VapidKey
from yahtzee.server.feature import Feature, Parts, Platform
from yahtzee.server.pruning import Pruning

#: Days the hour's marks are kept (an hour is all they are for).
MARKS_DAYS = 1.0


def build(platform: Platform) -> Parts:
    """The reminders' service on the features' tables, its key from the server's secret;
    it delivers the platform's reminders, forgets the devices that end (F23) and sends from
    every process."""
    limits = platform.settings.section(PushSettings)
    service = PushService(
        PushStore(platform.db),
        limits,
        VapidKey(platform.secret),
        guard=platform.guard,
        players=platform.players,
        clock=platform.clock,
    )
    return Parts(
        state={"push": service},
        tasks=(service.run,),
        close=(service.close,),
        player_data=(PushData(),),
        revoked=(service.revoked,),
        reminders=service,
        prunings=(
            # F14: a subscription nobody used (no reminder delivered, its page not opened)
            # for --prune-push-subscriptions-after-days; the hour's marks after a day.
            Pruning(
                "push subscriptions", limits.prune_after_days, service.store.prune_subscriptions
            ),
            Pruning("reminder marks", MARKS_DAYS, service.store.prune_marks),
        ),
    )


#: The reminders as the app factory sees them.
FEATURE = Feature(
    name="push",
    routers=(router,),
    errors=api_error,
    build=build,
    migrations=MIGRATIONS,
    settings=PushSettings,
)
