"""每日挑战's and 小组's settings (D6, F13, F14): each a flag and a variable of the server
(:func:`yahtzee.server.settings.setting`); ``0`` switches a limit off."""

from __future__ import annotations

from dataclasses import dataclass

from yahtzee.server.settings import at_least_one, count, days, setting


@dataclass(frozen=True, slots=True)
class DailySettings:
    """The groups' limits and age (D6, F14) and the public board's rule (F13)."""

    # new groups per player and per client address (what bounds the groups an address can
    # make however many player ids it has), joins per player, what one group and one
    # browser may hold
    groups_per_hour: int = setting(
        10,
        name="max_groups_per_hour",
        help="new groups per player and hour, 0 = no limit",
        check=count,
    )
    groups_per_hour_per_address: int = setting(
        20,
        name="max_groups_per_hour_per_address",
        help="new groups per client address and hour, whatever its player ids, 0 = no limit",
        check=count,
    )
    group_joins_per_hour: int = setting(
        30,
        name="max_group_joins_per_hour",
        help="group joins per player and hour, 0 = no limit",
        check=count,
    )
    open_groups: int = setting(
        20,
        name="max_open_groups",
        help="groups a player created and has not closed (409 `too_many_groups`), 0 = no limit",
        check=count,
    )
    group_members: int = setting(
        200,
        name="max_group_members",
        help="members of one group, its creator included (409 `group_full`), 0 = no limit",
        check=count,
    )
    prune_groups_after_days: float = setting(
        90.0,
        help="groups closed, or never joined by anyone but their creator, this many days ago "
        "are deleted (with their members and links)",
        metavar="DAYS",
        check=days,
    )
    # the public daily board (F13): a browser's entry is listed once it finished the
    # challenge on this many earlier days of the last ``board_history_days`` (0: everyone)
    board_min_days: int = setting(
        2,
        help="earlier days with a finished daily challenge a browser needs before the public "
        "board lists it (group boards list everyone); 0 lists everyone",
        metavar="DAYS",
        check=count,
    )
    board_history_days: int = setting(
        28,
        help="how far back (days) `--board-min-days` looks",
        metavar="DAYS",
        check=at_least_one,
    )
