"""A fused kernel's head is written as users write CUDA: `__global__` (never the
`__attribute__((global))` the front end's shim defines it as), with the launch bounds of
the kernel it stands for, also when the originals spell their heads through macros."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAMS = Path(__file__).parent / "programs"


def _fused_heads(text: str) -> list[str]:
    return re.findall(r"^.*\bcf_\w+_fused\d+\(", text, re.M)


def test_header_checked_program_spells_global(tmp_path: Path) -> None:
    out = tmp_path / "fused.cu"
    fuse_file(PROGRAMS / "checked_header" / "pipeline.cu", out, fuse_all=True)
    text = out.read_text()
    assert "__attribute__((global))" not in text
    assert _fused_heads(text) == ["__global__ void cf_run_fused0("]


def test_macro_heads_keep_their_bounds(tmp_path: Path) -> None:
    out = tmp_path / "fused.cu"
    fuse_file(PROGRAMS / "macro_heads.cu", out, fuse_all=True)
    text = out.read_text()
    assert "__attribute__" not in text
    # the last kernel's bounds (the fused launch is its launch), written out
    assert _fused_heads(text) == ["__global__ void __launch_bounds__(256, 2) cf_run_fused0("]
    assert text.startswith("// Kernel heads through macros")  # the originals stay as written


@pytest.mark.slow
def test_macro_heads_equal_the_original(tmp_path: Path) -> None:
    fuse_file(PROGRAMS / "macro_heads.cu", tmp_path / "fused.cu", fuse_all=True)
    compare_entry(PROGRAMS / "macro_heads.cu", tmp_path / "fused.cu", "run", {"n": 1000})
