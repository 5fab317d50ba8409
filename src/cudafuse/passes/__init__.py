"""Passes: named TranslationUnit -> edits transformations, looked up in a registry.

A pass is a frozen dataclass with a `name` and typed options, and a `run(unit, rewriter,
sink)` method that adds edits and diagnostics. The registry maps names to pass classes.
"""

from __future__ import annotations

from typing import Protocol

from cudafuse.codegen.splice import Rewriter
from cudafuse.diagnostics import DiagnosticSink
from cudafuse.ir.program import TranslationUnit


class Pass(Protocol):
    name: str

    def run(self, unit: TranslationUnit, rewriter: Rewriter, sink: DiagnosticSink) -> None: ...


REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    REGISTRY[cls.name] = cls
    return cls


def run_pipeline(unit: TranslationUnit, passes: list[Pass], sink: DiagnosticSink) -> bytes:
    """Run passes in order over one rewriter; an empty pipeline returns the input bytes."""
    rewriter = Rewriter(unit.source)
    for p in passes:
        p.run(unit, rewriter, sink)
    return rewriter.apply()
