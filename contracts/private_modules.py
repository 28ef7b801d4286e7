"""An import-linter contract type: a private module (a name starting with ``_``) is imported only from inside its
own package.

``bot.service._models`` may be imported by ``bot.service`` and its modules, never by ``bot.games``; what another
package needs goes through the package's public ``__init__``. Registered in ``pyproject.toml`` as ``private``.
"""

from __future__ import annotations

from typing import Any

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


def _private_package(module: str) -> str | None:
    """The package that owns ``module`` privately: the parent of its first ``_name`` segment (None if public)."""
    parts = module.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:index])
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


class PrivateModulesContract(Contract):
    """Modules under ``containers`` import another package's private modules only from inside that package."""

    type_name = "private"

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        containers: list[str] = self.containers  # type: ignore[assignment]
        broken: list[dict[str, Any]] = []
        for imported in sorted(graph.modules):
            owner = _private_package(imported)
            if owner is None or not any(_inside(imported, c) for c in containers):
                continue
            for importer in sorted(graph.find_modules_that_directly_import(imported)):
                if _inside(importer, owner):
                    continue
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    broken.append({"importer": importer, "imported": imported, "line": detail["line_number"]})
        return ContractCheck(kept=not broken, metadata={"broken": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for item in check.metadata["broken"]:
            output.print_error(f"{item['importer']} -> {item['imported']} (l.{item['line']}): private to its package")
            output.new_line()
