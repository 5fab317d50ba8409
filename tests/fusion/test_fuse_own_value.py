"""The last kernel evaluates each producer once at its own element (issue 15): a stored live
intermediate and the consumer's reads at that element share one local (`const float cf_e0`),
declared where the store's index exists; neighbour reads still go through the view. Compared
element by element with the original under emulation at odd sizes, and compiled with nvcc."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

PROGRAM = Path(__file__).parent / "programs" / "own_value.cu"
SIZES = ((37, 19), (1, 23), (23, 1), (2, 2))
ENTRIES = ("o_mag", "o_split", "o_smooth", "o_halve", "o_twice", "o_gs")


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("own") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert len(result.groups) == len(ENTRIES)
    return out


def kernel_text(text: str, kernels: str) -> str:
    start = text.index(f"// cudafuse: {kernels} fused into one kernel")
    return text[start:text.index("\n}\n", start)]


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_element_matches(fused: Path, entry: str) -> None:
    for w, h in SIZES:
        run_both(PROGRAM, fused, entry, w, h)


def test_each_producer_is_evaluated_once_at_the_own_element(fused: Path) -> None:
    text = fused.read_text()
    mag = kernel_text(text, "lap, mag")
    assert "const float cf_e0 = l.at2(0 + (x), (y), (w));" in mag
    assert "cf_p4[i] = cf_e0, out[i] = fabsf(cf_e0) * 0.5f;" in mag
    assert len(re.findall(r"\bl(\[|\.at2)", mag)) == 1
    split = kernel_text(text, "lap, split2")
    assert "float v = cf_e0;" in split and "fmaxf(cf_e0, 0.0f)" in split
    assert len(re.findall(r"\bl(\[|\.at2)", split)) == 1
    smooth = kernel_text(text, "lap, smooth")  # the centre is the local, the window the view
    assert "s / 9.0f - cf_e0;" in smooth and "s += l.at2(" in smooth
    halve = kernel_text(text, "lap, halve")  # the unbraced store gets braces
    assert "if (x < w && y < h) { const float cf_e0 = " in halve
    assert "out[y * w + x] = cf_e0 * 0.5f + cf_e0; }" in halve
    twice = kernel_text(text, "lap, twice")  # reads spelled through a macro
    assert len(re.findall(r"\bl(\[|\.at2)", twice)) == 1
    gs = kernel_text(text, "gs_sq, gs_nb, gs_out")  # both evaluated before either store
    assert "const float cf_e0 = a[i];\n    const float cf_e1 = b[i];" in gs
    assert "cf_p3[i] = cf_e0, cf_p4[i] = cf_e1, out[i] = t + cf_e0;" in gs


@pytest.mark.nvcc
def test_fused_file_compiles(fused: Path, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused), "-o", str(tmp_path / "o.o")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr


CHAIN = Path(__file__).parent / "programs" / "own_value_chain.cu"


def test_chain_of_stored_intermediates_matches(tmp_path: Path) -> None:
    out = tmp_path / "chain.cu"
    result = fuse_file(CHAIN, out)
    assert [g.kernels for g in result.groups] == [["p1", "p2", "k"]]
    for w, h in SIZES:
        run_both(CHAIN, out, "pipe", w, h)


@pytest.mark.nvcc
def test_chain_evaluates_each_producer_once_in_machine_code(tmp_path: Path) -> None:
    """p1 is read by p2 (twice, at p2's element), stored, and read by k; p2 is stored and
    read by k. The rounding barrier after each producer is an asm (add.rn of -0.0) that nvcc
    may merge (not volatile), so the fused kernel's PTX computes p1's square root once, loads its
    input once, and stores a, b and out once each."""
    out = tmp_path / "chain.cu"
    fuse_file(CHAIN, out)
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    ptx = tmp_path / "chain.ptx"
    res = subprocess.run([nvcc, "-arch=sm_90", "-ptx", str(out), "-o", str(ptx)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    text = ptx.read_text()
    fused = text[text.index(".entry _Z14cf_pipe_fused0"):]
    fused = fused[:fused.index("\n}\n")]
    assert fused.count("sqrt.rn.f32") == 1, fused
    assert fused.count("ld.global") == 1 and fused.count("st.global") == 3, fused
