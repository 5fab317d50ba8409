"""The GPU benchmark's harnesses build wherever nvcc is (the timing itself needs a GPU)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.nvcc
def test_bench_vertical_harnesses_compile(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_vertical.py"),
                          "--compile-only", "--samples", "sobel", "--work", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "bench_sobel_fused").exists()
    assert (tmp_path / "bench_sobel_unfused").exists()
    # Scratch intermediates are not hashed: only `out` of sobel is compared.
    assert "outputs 1" in (tmp_path / "bench_sobel_fused.cu").read_text()
