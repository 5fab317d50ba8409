"""The `analyze` report: a JSON-able dict built from a TranslationUnit (placeholder)."""

from __future__ import annotations

from typing import Any

from cudafuse.ir.program import TranslationUnit


def build_report(unit: TranslationUnit) -> dict[str, Any]:
    return {"file": unit.path, "kernels": [{"name": k.name} for k in unit.kernels],
            "host_functions": []}
