"""The optimal expected-value solver of 快艇骰子 (issue 2 §2).

* :func:`load_table` — the process-wide table of turn-start values (built on first need);
* :func:`advise` — every option of a position ranked by expected points still to come;
* :func:`best_keep` / :func:`best_category` — the expert's action, fast;
* :mod:`yahtzee.solver.simulate` — many expert games at once.
"""

from yahtzee.solver.advice import (
    Advice,
    CategoryOption,
    KeepOption,
    Option,
    StopOption,
    advise,
    best_category,
    best_keep,
    hold_for,
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

__all__ = [
    "RULES_VERSION",
    "Advice",
    "CategoryOption",
    "KeepOption",
    "Option",
    "StopOption",
    "TableMissingError",
    "ValueTable",
    "advise",
    "best_category",
    "best_keep",
    "build_table",
    "cache_dir",
    "hold_for",
    "load_table",
    "state_of",
    "table_path",
]
