"""Hash kernels as ccminer writes them (programs/miner, written for cudafuse's tests): two
files that define the same per-GPU array and pass it through a checking macro's argument
(renamed apart inside the invocation; differential under the emulator in both modes), and
inline PTX, kept where it reads nothing fusion changes and refused, located, where it reads
%tid or waits at a barrier."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

DIR = PROGRAMS / "miner"
N = 300


def _args() -> list:  # type: ignore[type-arg]
    return [N, 17, np.zeros(N, np.uint32)]


def test_a_clashing_array_in_a_macro_argument_is_renamed_apart(tmp_path: Path) -> None:
    out = tmp_path / "o.cu"
    res = hfuse(str(DIR / "mix.cu"), str(DIR / "fold.cu"), "--kernels", "mix_hash,fold_hash",
                "--block1", "64", "--block2", "64", "-o", str(out))
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "SAFE_CALL(cudaMalloc(&cf_in2_d_found[thr_id]" in text
    assert "SAFE_CALL(cudaMalloc(&d_found[thr_id]" in text  # the first file's, unchanged


@pytest.mark.slow  # an emulator build per mode; the rename itself is checked above
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_the_array_renamed_in_a_macro_argument_runs_as_before(tmp_path: Path,
                                                              mode: str) -> None:
    out = tmp_path / "o.cu"
    res = hfuse(str(DIR / "mix.cu"), str(DIR / "fold.cu"), "--kernels", "mix_hash,fold_hash",
                "--block1", "64", "--block2", "64", "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "'d_found' is defined in both inputs: in the output, this file's is " \
           "'cf_in2_d_found'" in res.output
    text = out.read_text()
    assert "SAFE_CALL(cudaMalloc(&cf_in2_d_found[thr_id]" in text
    assert "SAFE_CALL(cudaMemset(cf_in2_d_found[thr_id], 0xff" in text
    assert "SAFE_CALL(cudaMalloc(&d_found[thr_id]" in text  # the first file's, unchanged
    # The output holds both original kernels unchanged: one build runs them and the fused
    # launcher (a build of each input alone would triple this test's time).
    want = []
    for kernel in ("mix_hash", "fold_hash"):
        args = _args()
        library(out).launch(kernel, grid=(5,), block=(64,), args=args)
        want.append(args[2])
    a, b = _args(), _args()
    library(out).call("mix_hash_fold_hash_hfused_launch", *a, *b, (5,), (5,), 0, 0, None)
    assert np.array_equal(a[2], want[0]) and np.array_equal(b[2], want[1])
    assert not np.array_equal(want[0], want[1])


def test_ptx_that_reads_nothing_fusion_changes_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "o.cu"
    res = hfuse(str(DIR / "rot.cu"), str(DIR / "fold.cu"), "--kernels", "rot_hash,fold_hash",
                "--block1", "64", "--block2", "64", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "shf.r.wrap.b32" in out.read_text()


@pytest.mark.parametrize(("kernel", "why", "line"), [
    ("tid_hash", "inline assembly that reads %tid, which fusion changes", 8),
    ("bar_hash", "inline assembly with 'bar' (a barrier or the end of the thread", 15),
])
def test_ptx_that_reads_the_thread_index_or_waits_is_refused(tmp_path: Path, kernel: str,
                                                             why: str, line: int) -> None:
    res = hfuse(str(DIR / "lane.cu"), str(DIR / "fold.cu"), "--kernels", f"{kernel},fold_hash",
                "--block1", "64", "--block2", "64", "-o", str(tmp_path / "o.cu"))
    assert res.exit_code != 0
    assert f"{DIR / 'lane.cu'}:{line}:" in res.output and why in res.output, res.output
    assert not (tmp_path / "o.cu").exists()


@pytest.mark.nvcc
def test_the_fused_ptx_compiles(tmp_path: Path) -> None:
    out = tmp_path / "o.cu"
    res = hfuse(str(DIR / "rot.cu"), str(DIR / "mix.cu"), "--kernels", "rot_hash,mix_hash",
                "--block1", "64", "--block2", "64", "--mode", "block", "-o", str(out))
    assert res.exit_code == 0, res.output
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    done = subprocess.run([nvcc, "-arch=sm_90", "-c", str(out), "-o", str(tmp_path / "o.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _round_outputs(out: Path) -> tuple[list, list]:  # type: ignore[type-arg]
    want = []
    for src, kernel in (("round_a.cu", "round_a"), ("round_b.cu", "round_b")):
        args = _args()
        library(DIR / src).launch(kernel, grid=(5,), block=(64,), args=args)
        want.append(args[2])
    a, b = _args(), _args()
    library(out).call("round_a_round_b_hfused_launch", *a, *b, (5,), (5,), 0, 0, None)
    return want, [a[2], b[2]]


@pytest.mark.slow  # three emulator builds per mode (~15 s each here); the golden
# tests/hfuse/golden/miner_names.cu checks the renamed text in the default suite
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_a_helper_called_through_the_files_own_macros_is_renamed_with_them(
        tmp_path: Path, mode: str) -> None:
    out = tmp_path / "o.cu"
    res = hfuse(str(DIR / "round_a.cu"), str(DIR / "round_b.cu"), "--kernels",
                "round_a,round_b", "--block1", "64", "--block2", "64", "--mode", mode, "-o",
                str(out))
    assert res.exit_code == 0, res.output
    assert "'ROUND' is a macro whose body names this file's 'G': in the output, this file's " \
           "is 'cf_in2_ROUND'" in res.output
    text = out.read_text()
    assert "#define cf_in2_ROUND(r)" in text and "cf_in2_G(v[0], v[1], r);" in text
    assert "#define cf_in2_ROUND_F(x) cf_in2_G(v[0], v[3], x)" in text
    assert text.count("cf_in2_ROUND_F(2);") == 2  # the original and the fused part
    want, got = _round_outputs(out)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert not np.array_equal(want[0], want[1])


def test_a_helper_called_through_a_macro_of_a_macro_is_not_renamed(tmp_path: Path) -> None:
    res = hfuse(str(DIR / "round_a.cu"), str(DIR / "round_c.cu"), "--kernels",
                "round_a,round_c", "--block1", "64", "--block2", "64", "-o",
                str(tmp_path / "o.cu"))
    assert res.exit_code == 1
    assert f"{DIR / 'round_c.cu'}:15:" in res.output
    assert "'G' is defined in both inputs and cannot be renamed" in res.output
