"""The optimal expected-value solver of 快艇骰子 (issue 2 §2).

* :func:`load_table` — the process-wide table of turn-start values (built on first need);
* :func:`advise` — every option of a position ranked by expected points still to come;
* :func:`best_keep` / :func:`best_category` — the expert's action, fast;
* :class:`TurnArrays` / :func:`roll_gains` — one turn's keep values for any valuation of
  the rolls (what a rule-of-thumb player plans with).

Simulated games are in :mod:`yahtzee.simulation`, a layer above the players.
"""

from yahtzee.solver.advice import (
    Advice,
    CategoryOption,
    KeepOption,
    Option,
    StopOption,
    TurnArrays,
    advise,
    best_category,
    best_keep,
    roll_gains,
)
from yahtzee.solver.cache import (
    RULES_VERSION,
    TableMissingError,
    ValueTable,
    build_table,
    cache_dir,
    load_table,
    state_of,
    table_path,
)
from yahtzee.turn import hold_for

__all__ = [
    "RULES_VERSION",
    "Advice",
    "CategoryOption",
    "KeepOption",
    "Option",
    "StopOption",
    "TableMissingError",
    "TurnArrays",
    "ValueTable",
    "advise",
    "best_category",
    "best_keep",
    "build_table",
    "cache_dir",
    "hold_for",
    "load_table",
    "roll_gains",
    "state_of",
    "table_path",
]
