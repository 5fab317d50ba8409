"""The vertical pass's entry in passes.REGISTRY."""

from __future__ import annotations

from collections.abc import Sequence

from cudafuse.ir.program import TranslationUnit
from cudafuse.passes.vertical.driver import FuseOptions, FuseResult, fuse_unit
from cudafuse.passes.vertical.kernel.view import remembered


def run(units: Sequence[TranslationUnit], options: FuseOptions) -> FuseResult:
    """Fuse the launch sequences of the unit's host functions (driver.fuse_unit)."""
    (unit,) = units
    with remembered():  # (each kernel's plain view made once: launchshape and the planner)
        return fuse_unit(unit, options)
