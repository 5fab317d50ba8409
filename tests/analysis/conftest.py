"""Helpers: analyse a .cu snippet written to tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cudafuse.analysis.kernel_facts import KernelFacts, analyze_kernel
from cudafuse.frontend import parse_file
from cudafuse.ir.program import TranslationUnit

PRELUDE = """
#define GX int x = blockIdx.x * blockDim.x + threadIdx.x
#define GY int y = blockIdx.y * blockDim.y + threadIdx.y
"""


def parse_snippet(tmp_path: Path, src: str, name: str = "t.cu") -> TranslationUnit:
    f = tmp_path / name
    f.write_text(PRELUDE + src)
    return parse_file(str(f)).unit


@pytest.fixture
def unit_of(tmp_path: Path) -> Callable[[str], TranslationUnit]:
    return lambda src: parse_snippet(tmp_path, src)


@pytest.fixture
def kernel(tmp_path: Path) -> Callable[[str], KernelFacts]:
    """Facts of the (last) kernel in a snippet."""

    def run(src: str) -> KernelFacts:
        unit = parse_snippet(tmp_path, src)
        return analyze_kernel(unit, unit.kernels[-1])

    return run
