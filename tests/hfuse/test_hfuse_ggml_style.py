"""Kernels as ggml's CUDA backend (llama.cpp) writes them (programs/ggml/norm_pool.cu, written
for these tests in that style), two things that broke on the library's own files:

- `norm_f32<WARP_SIZE>`: the part's template names were bound to plain constants, so the
  branch `if constexpr (block_size > WARP_SIZE)` discards in the original was compiled in the
  fused kernel and its `static_assert(block_size == 1024)` failed (exit 1, "does not
  compile"); the fused kernel is now a template over `cf_dep` and the names depend on it
  (passes/horizontal/discarded.py);
- `pool2d_nchw_kernel<Ti, To>`: `max(res, (To)cur)` is unresolved in the template (a
  dependent argument) beside a resolved `max(0, start_h)`; the check that calls bind as in
  the original compared the fused `max(float, float)` with the `int` one and refused
  (passes/horizontal/bindings.py);
- `k_get_rows<qk, qr, dequantize_kernel, dst_t>`: a call of the function-pointer template
  parameter was compared with the part's redeclaration of that name and refused.

Fused from one file in both modes and compared under the emulator with the originals."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

SRC = PROGRAMS / "ggml" / "norm_pool.cu"
POOL = "pool1d_max<float, float>"


def _fuse(tmp_path: Path, norm: str, block1: str, mode: str) -> Path:
    out = tmp_path / f"{mode}.cu"
    res = hfuse(str(SRC), "--kernels", f"{norm},{POOL}", "--block1", block1, "--block2",
                "128", "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.parametrize("mode", ["thread", "block"])
def test_discarded_branch_and_dependent_call_fuse(tmp_path: Path, mode: str) -> None:
    # hfuse parses its output again before writing it: a static_assert that fires or a
    # call bound elsewhere is an error there (the slow test below runs the output).
    text = _fuse(tmp_path, "row_rms_norm<32>", "32", mode).read_text()
    assert "template <int cf_dep>\n__global__ void __launch_bounds__" in text
    assert ("constexpr decltype(cf_tp1_block_size) block_size = ::cf_dependent_v<"
            "decltype(cf_tp1_block_size), cf_tp1_block_size, cf_dep>;") in text
    assert "row_rms_norm_pool1d_max_hfused<0><<<" in text
    # The second part writes no `if constexpr`: its names stay plain aliases.
    assert "using To = cf_tp2_To;" in text


def test_a_function_pointer_template_parameter_is_called_as_bound(tmp_path: Path) -> None:
    out = tmp_path / "f.cu"
    res = hfuse(str(SRC), "--kernels", f"rows_dequant<dequantize_u8>,{POOL}", "--block1", "64",
                "--block2", "128", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "constexpr decltype(cf_tp1_dequantize_kernel) dequantize_kernel = " \
        "cf_tp1_dequantize_kernel;" in out.read_text()


@pytest.mark.slow
def test_function_pointer_pair_matches_the_originals(tmp_path: Path) -> None:
    out = tmp_path / "f.cu"
    res = hfuse(str(SRC), "--kernels", f"rows_dequant<dequantize_u8>,{POOL}", "--block1", "64",
                "--block2", "128", "--mode", "block", "-o", str(out))
    assert res.exit_code == 0, res.output
    rng = np.random.default_rng(9)
    n, m, width = 500, 300, 600
    q = rng.integers(0, 256, n).astype(np.uint8)
    src = rng.standard_normal(width).astype(np.float32)
    want1, want2 = np.full(n, -7, np.float32), np.full(m, -7, np.float32)
    got1, got2 = want1.copy(), want2.copy()
    lib = library(out)
    lib.call("dequant_bytes", q, want1, n)
    lib.call("pool_floats", src, want2, m, width)
    lib.call("rows_dequant_pool1d_max_hfused_launch", q, got1, n, src, got2, m, width,
             ((n + 63) // 64,), ((m + 127) // 128,), 0, 0, None)
    np.testing.assert_array_equal(got1, want1)
    np.testing.assert_array_equal(got2, want2)


def _run(out: Path, rows: int, threads: int) -> None:
    rng = np.random.default_rng(threads)
    ncols, n, width = 300, 700, 1400
    x = rng.standard_normal(rows * ncols).astype(np.float32)
    src = rng.standard_normal(width).astype(np.float32)
    want_norm, want_pool = np.full(rows * ncols, -7, np.float32), np.full(n, -7, np.float32)
    got_norm, got_pool = want_norm.copy(), want_pool.copy()
    lib = library(out, seed=3)
    lib.call("norm_rows", x, want_norm, rows, ncols, threads)
    lib.call("pool_floats", src, want_pool, n, width)
    lib.call("row_rms_norm_pool1d_max_hfused_launch", x, got_norm, ncols, np.float32(1e-6),
             src, got_pool, n, width, (rows,), ((n + 127) // 128,), 0, 0, None)
    np.testing.assert_array_equal(got_norm, want_norm)
    np.testing.assert_array_equal(got_pool, want_pool)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["thread", "block"])
@pytest.mark.parametrize(("norm", "threads"), [("row_rms_norm<32>", 32),
                                               ("row_rms_norm<256>", 256)])
def test_ggml_style_pair_matches_the_originals(tmp_path: Path, mode: str, norm: str,
                                               threads: int) -> None:
    # <256> takes the branch (a shared array and a barrier: bar.sync in thread mode).
    _run(_fuse(tmp_path, norm, str(threads), mode), 5, threads)


@pytest.mark.slow
@pytest.mark.nvcc
def test_discarded_branch_output_compiles_with_nvcc(tmp_path: Path) -> None:
    out = _fuse(tmp_path, "row_rms_norm<32>", "32", "thread")
    done = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-c", str(out), "-o",
                           str(tmp_path / "f.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
