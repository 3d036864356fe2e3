"""The import-linter contract of the feature packages (``pyproject.toml``, ``make lint``).

A feature package is found, not listed: every direct subpackage of ``root`` whose
``__init__`` imports the feature interface (``interface``, :mod:`yahtzee.server.feature`)
is one, so a new feature needs no line here or in ``pyproject.toml``. The contract keeps:

* **no feature imports another** (what they share lives below them), even indirectly;
* **only the modules ``above`` import a feature** (the app factory, the command line):
  the platform and everything under it know no feature;
* **a feature imports nothing ``above``** (it never reaches back into the app factory).

``ignore_imports`` works as in import-linter's own contracts.
"""

from __future__ import annotations

from typing import Any

from grimp import ImportGraph
from importlinter.application import contract_utils, output
from importlinter.application.contract_utils import AlertLevel
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


def feature_packages(graph: ImportGraph, root: str, interface: str) -> list[str]:
    """The direct subpackages of ``root`` whose ``__init__`` imports ``interface``."""
    return sorted(
        child
        for child in graph.find_children(root)
        if graph.direct_import_exists(importer=child, imported=interface)
    )


class FeaturePackagesContract(Contract):
    """Feature packages: found by their interface, independent, imported from above only."""

    type_name = "feature_packages"

    root = fields.StringField()
    interface = fields.StringField()
    above = fields.ListField(subfield=fields.StringField())
    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(AlertLevel, default=AlertLevel.ERROR)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:  # noqa: ARG002
        """Every chain of imports that breaks one of the three rules (module docstring)."""
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=self.ignore_imports,  # type: ignore[arg-type]
            unmatched_alerting=self.unmatched_ignore_imports_alerting,  # type: ignore[arg-type]
        )
        root = str(self.root)
        features = feature_packages(graph, root, str(self.interface))
        above: list[str] = [str(m) for m in self.above]  # type: ignore[attr-defined]
        below = sorted(set(graph.find_children(root)) - set(features) - set(above))
        broken: list[tuple[str, str, str]] = []

        def forbid(importer: str, imported: str, rule: str) -> None:
            known = importer in graph.modules and imported in graph.modules
            if known and graph.chain_exists(importer=importer, imported=imported, as_packages=True):
                broken.append((importer, imported, rule))

        for feature in features:
            for other in features:
                if other != feature:
                    forbid(feature, other, "a feature imports another")
            for module in below:
                forbid(
                    module, feature, "only the app factory and the command line import a feature"
                )
            for module in above:
                forbid(feature, module, "a feature imports the app factory or the command line")
        return ContractCheck(
            kept=not broken and len(features) > 0,
            warnings=list(removal.warnings),
            ignored_import_count=removal.ignored_import_count,
            metadata={"features": features, "broken": broken},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Each forbidden chain's ends and the rule it breaks."""
        metadata: dict[str, Any] = check.metadata
        if not metadata["features"]:
            output.print_error(f"no package of {self.root} imports {self.interface}")
        for importer, imported, rule in metadata["broken"]:
            output.print_error(f"{importer} -> {imported} (indirectly or not): {rule}")
            output.new_line()
