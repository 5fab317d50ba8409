"""Outputs accumulated in memory at the thread's own element (`m[j] = 0; for (...) m[j] +=
...; m[j] /= n;`) fuse as producers: the element is a local of the value-at-element function,
and a consumer's reads of another producer at its own element inside a loop are evaluated once.
Compared element by element with the original under emulation (every buffer pre-filled with
garbage), and compiled with nvcc; a kernel whose first access reads the element is refused."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.recognise import build_view

PROGRAM = Path(__file__).parent / "programs" / "accumulate.cu"
SIZES = ((37, 19), (1, 5), (64, 3))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("acc") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == sorted([
        ["col_mean", "col_std", "col_ratio"], ["box_acc", "box_out"]])
    return out


@pytest.mark.parametrize("entry", ["stats", "box", "added"])
def test_accumulations_match(fused: Path, entry: str) -> None:
    for w, h in SIZES:
        run_both(PROGRAM, fused, entry, w, h, garbage=True)


def test_accumulators_are_locals(fused: Path) -> None:
    text = fused.read_text()
    std = text.split("col_std_sd_xy(long long")[1].split("\n}\n")[0]
    assert "float cf_acc0; const float cf_o0 = mean[j];" in std
    assert "sd[" not in std and "mean[j]" not in std.split("cf_o0 = mean[j];")[1]
    assert "return cf_round(cf_acc0);" in std


def test_views() -> None:
    unit = parse_file(str(PROGRAM)).unit
    views = {k: build_view(unit.function(k)) for k in ("col_std", "box_acc", "add_on")}
    assert views["col_std"].accumulators == {"sd"} and views["col_std"].producer_reason is None
    assert views["box_acc"].accumulators == {"acc"}
    assert views["add_on"].accumulators == frozenset()
    assert views["add_on"].producer_reason is not None


@pytest.mark.nvcc
def test_accumulations_compile(fused: Path, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused), "-o", str(tmp_path / "o.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
