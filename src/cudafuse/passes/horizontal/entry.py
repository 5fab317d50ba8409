"""The horizontal pass's entry in passes.REGISTRY."""

from __future__ import annotations

from collections.abc import Sequence

from cudafuse.codegen.templates import KernelRef
from cudafuse.ir.program import TranslationUnit
from cudafuse.passes.horizontal.driver import HFuseOptions, HFuseResult, hfuse


def run(units: Sequence[TranslationUnit], options: HFuseOptions,
        kernels: tuple[KernelRef, KernelRef]) -> HFuseResult:
    """Fuse kernels[0] of units[0] with kernels[1] of units[1] (the same unit twice when both
    kernels are in one file)."""
    u1, u2 = units
    return hfuse(u1, kernels[0], u2, kernels[1], options)
