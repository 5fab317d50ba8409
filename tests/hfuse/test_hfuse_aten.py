"""Kernels as PyTorch's ATen writes them (tests/hfuse/programs/aten/, written for these tests
in that style): templates in `namespace at { namespace native {`, a file's own `min` in an
anonymous namespace, a kernel in `at::cuda` with an enum template parameter and a default,
a shared `#pragma once` header. Fused from two files with qualified `--kernels`, in thread
and block mode, and compared under the emulator with the originals (each launched by its
own host function in the same output) on the same inputs, every element; threads in order
and in a seeded random order."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

ATEN = PROGRAMS / "aten"

IM2COL = "at::native::im2col_kernel<float>"
MAXPOOL = "max_pool_forward_nchw<float, float>"
HIST = "at::cuda::kernelHistogram1D<int, float, int>"


def _fuse(tmp_path: Path, a: str, b: str, kernels: str, mode: str, block2: str = "256") -> Path:
    out = tmp_path / "out" / f"{mode}.cu"  # another folder: the includes must follow
    out.parent.mkdir(exist_ok=True)
    res = hfuse(str(ATEN / a), str(ATEN / b), "--kernels", kernels, "--block1", "128",
                "--block2", block2, "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    return out


def _im2col_args(rng: np.random.Generator) -> tuple:
    c, h, w, k, pad, stride = 3, 11, 9, 3, 1, 2
    hc, wc = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    im = rng.standard_normal(c * h * w).astype(np.float32)
    col = np.full(c * k * k * hc * wc, -7, np.float32)
    n = c * hc * wc
    kernel = (n, im, h, w, k, k, pad, pad, stride, stride, hc, wc, col)
    host = (im, c, h, w, k, k, pad, stride, col)
    return kernel, host, (n + 127) // 128


def _maxpool_args(rng: np.random.Generator) -> tuple:
    b, c, h, w, k, s, pad = 2, 3, 13, 10, 3, 2, 1
    ph, pw = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
    x = rng.standard_normal(b * c * h * w).astype(np.float32)
    out, idx = np.zeros(b * c * ph * pw, np.float32), np.zeros(b * c * ph * pw, np.int64)
    count = b * c * ph * pw
    kernel = (count, x, c, h, w, ph, pw, k, k, s, s, pad, pad, out, idx)
    host = (x, b, c, h, w, k, s, pad, out, idx)
    return kernel, host, (count + 255) // 256


def _hist_args(rng: np.random.Generator) -> tuple:
    n, bins = 3000, 17
    x = rng.uniform(-1, 1, n).astype(np.float32)
    hist = np.zeros(bins, np.int32)
    kernel = (hist, x, bins, np.float32(-0.8), np.float32(0.9), n)
    host = (x, n, bins, np.float32(-0.8), np.float32(0.9), hist)
    return kernel, host, (n + 255) // 256, bins * 4


def _check(out: Path, seed: int | None, first: tuple, second: tuple, launcher: str) -> None:
    """first/second: (host function, its args, kernel args, grid, smem)."""
    lib = library(out, seed)
    copies = [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in kargs)
              for _, _, kargs, _, _ in (first, second)]
    for host, hargs, _, _, _ in (first, second):
        lib.call(host, *hargs)
    lib.call(launcher, *copies[0], *copies[1], (first[3],), (second[3],), first[4],
             second[4], None)
    for (_, _, kargs, _, _), got in zip((first, second), copies, strict=True):
        for want, g in zip(kargs, got, strict=True):
            if isinstance(want, np.ndarray):
                np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize(("mode", "seed"), [
    ("thread", None), pytest.param("thread", 5, marks=pytest.mark.slow),
    pytest.param("block", 7, marks=pytest.mark.slow)])
def test_im2col_and_maxpool_in_at_native(tmp_path: Path, mode: str, seed: int | None) -> None:
    out = _fuse(tmp_path, "im2col.cu", "maxpool.cu", f"{IM2COL},{MAXPOOL}", mode)
    text = out.read_text()
    # The fused kernel is a member of at::native: maxpool's min is the file's own.
    assert "namespace native {\n__global__ void __launch_bounds__" in text
    moved = os.path.relpath(ATEN / "aten_common.cuh", out.parent)
    assert text.count(f'#include "{moved}"') == 2 and '"aten_common.cuh"' not in text
    rng = np.random.default_rng(1)
    k1, h1, g1 = _im2col_args(rng)
    k2, h2, g2 = _maxpool_args(rng)
    # The host functions fill the originals' outputs; the launcher fills the copies.
    _check(out, seed, ("im2col_float", h1, k1, g1, 0),
           ("max_pool_float", h2, k2, g2, 0),
           "im2col_kernel_max_pool_forward_nchw_hfused_launch")



@pytest.mark.slow
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_im2col_and_histogram_in_other_namespaces(tmp_path: Path, mode: str) -> None:
    # at::native and at::cuda: the second part finds at::cuda's names (its enum, getBin)
    # through a using-directive and declares its parameters by their types there.
    out = _fuse(tmp_path, "im2col.cu", "histogram.cu", f"{IM2COL},{HIST}", mode)
    assert "using namespace ::at::cuda;" in out.read_text()
    rng = np.random.default_rng(2)
    k1, h1, g1 = _im2col_args(rng)
    k2, h2, g2, smem = _hist_args(rng)
    _check(out, 3, ("im2col_float", h1, k1, g1, 0), ("histc_float", h2, k2, g2, smem),
           "im2col_kernel_kernelHistogram1D_hfused_launch")


CRYPTO = PROGRAMS / "crypto"


def test_a_commented_out_launch_bounds_is_no_attribute(tmp_path: Path) -> None:
    res = hfuse(str(CRYPTO / "blakeish.cu"), str(ATEN / "maxpool.cu"), "--kernels",
                f"blake_hash,{MAXPOOL}", "--block2", "256", "-o", str(tmp_path / "x.cu"))
    assert res.exit_code == 2 and "has no __launch_bounds__" in res.output  # not 256


@pytest.mark.slow
def test_global_hash_kernel_with_an_at_native_kernel(tmp_path: Path) -> None:
    # A ccminer-style kernel (global namespace) with one of at::native: the fused kernel
    # goes into at::native, where maxpool's own min hides CUDA's (from the global namespace
    # the call would be ambiguous).
    out = tmp_path / "f.cu"
    res = hfuse(str(CRYPTO / "blakeish.cu"), str(ATEN / "maxpool.cu"), "--kernels",
                f"blake_hash,{MAXPOOL}", "--block1", "128", "--block2", "256", "-o", str(out))
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "using cf_pt1_0 = uint32_t;" in text and ":: cf_pt1_0 cf_p1_threads" not in text
    assert "::cf_pt1_0 cf_p1_threads" in text
    rng = np.random.default_rng(6)
    threads = 1000
    data = rng.integers(0, 2**32, 16, dtype=np.uint32)
    res1 = np.zeros(threads, np.uint32)
    k1 = (np.uint32(threads), np.uint32(77), data, res1)
    k2, h2, g2 = _maxpool_args(rng)
    _check(out, None, ("blake_run", k1, k1, (threads + 127) // 128, 0),
           ("max_pool_float", h2, k2, g2, 0), "blake_hash_max_pool_forward_nchw_hfused_launch")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_a_helper_block_under_the_same_guard_is_one_copy(tmp_path: Path, mode: str) -> None:
    # blakeish.cu includes cuda_helper.h; shaish.cu carries the same block pasted in: in the
    # output the second copy is skipped, and nothing in it is renamed apart.
    out = tmp_path / "f.cu"
    res = hfuse(str(CRYPTO / "blakeish.cu"), str(CRYPTO / "shaish.cu"), "--block1", "128",
                "--block2", "128", "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "cf_in2_" not in out.read_text()
    rng = np.random.default_rng(8)
    n1, n2 = 900, 700
    data1 = rng.integers(0, 2**32, 16, dtype=np.uint32)
    data2 = rng.integers(0, 2**32, 8, dtype=np.uint32)
    k1 = (np.uint32(n1), np.uint32(5), data1, np.zeros(n1, np.uint32))
    k2 = (np.uint32(n2), np.uint32(9), data2, np.zeros(n2, np.uint32))
    _check(out, None, ("blake_run", k1, k1, (n1 + 127) // 128, 0),
           ("sha256d_run", k2, k2, (n2 + 127) // 128, 0), "blake_hash_sha256d_hash_hfused_launch")


def test_a_block_under_the_same_guard_that_differs_is_refused(tmp_path: Path) -> None:
    changed = tmp_path / "sha2.cu"
    changed.write_text((CRYPTO / "shaish.cu").read_text().replace("0xff000000u", "0xff00ff00u")
                       .replace('#include "', '#include "' + str(CRYPTO) + "/"))
    res = hfuse(str(CRYPTO / "blakeish.cu"), str(changed), "--block1", "128", "--block2",
                "128", "-o", str(tmp_path / "f.cu"))
    assert res.exit_code == 1 and not (tmp_path / "f.cu").exists()
    assert f"{changed}:3:1: error: this block is guarded by 'CUDA_HELPER_H'" in res.output


def test_the_guarded_copy_is_not_renamed_and_the_output_parses(tmp_path: Path) -> None:
    # The fast half of the test above: hfuse parses its output again before writing it.
    out = tmp_path / "f.cu"
    res = hfuse(str(CRYPTO / "blakeish.cu"), str(CRYPTO / "shaish.cu"), "--block1", "128",
                "--block2", "128", "-o", str(out))
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "cf_in2_" not in text and text.count("#ifndef CUDA_HELPER_H") == 1


BATCHNORM = "batch_norm_collect_statistics_kernel<InvStd, float, float, int>"


def test_template_template_parameter_emitted(tmp_path: Path) -> None:
    # VarTransform (a template template parameter) is an alias template at namespace
    # scope, named in the body instead; BLOCK (int, defaulted) is bound to 128. (hfuse
    # parses its output again before writing it; the slow test below runs it.)
    text = _fuse(tmp_path, "batchnorm.cu", "histogram.cu", f"{BATCHNORM},{HIST}",
                 "thread").read_text()
    assert "template <class... cf_A> using cf_tp1_VarTransform = InvStd<cf_A...>;" in text
    assert "cf_tp1_VarTransform<stat_accscalar_t>{}(shared_sq[0] / n, epsilon)" in text
    assert "constexpr int cf_tp1_BLOCK = 128;" in text


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "seed"), [("thread", 4), ("block", None)])
def test_template_template_parameter_with_a_kernel_of_at_cuda(tmp_path: Path, mode: str,
                                                              seed: int | None) -> None:
    out = _fuse(tmp_path, "batchnorm.cu", "histogram.cu", f"{BATCHNORM},{HIST}", mode)
    rng = np.random.default_rng(9)
    batch, channels, plane = 3, 5, 37
    x = rng.standard_normal(batch * channels * plane).astype(np.float32)
    mean, invstd = np.zeros(channels, np.float32), np.zeros(channels, np.float32)
    k1 = (x, batch, channels, plane, np.float32(1e-5), mean, invstd)
    k2, h2, g2, smem = _hist_args(rng)
    _check(out, seed, ("batch_norm_stats_float", k1, k1, channels, 0),
           ("histc_float", h2, k2, g2, smem),
           "batch_norm_collect_statistics_kernel_kernelHistogram1D_hfused_launch")
    assert np.all(invstd > 0)  # the originals ran


def test_verify_runs_a_template_kernel_by_a_launching_host_function(tmp_path: Path) -> None:
    # verify --hfuse's original side: a copy of the file with a host function in the
    # kernel's namespaces that launches the instantiation the spec names, as it says.
    from cudafuse.cli.verify_hfuse import Side, _runnable
    from cudafuse.codegen.compile_check import reparse
    from cudafuse.frontend import ParseOptions
    from cudafuse.runtime.spec import load_spec

    spec = load_spec(str(ATEN / "histogram.toml"))
    path, run = _runnable(Side(str(ATEN / "histogram.cu"), spec), ParseOptions(),
                          str(tmp_path))
    text = Path(path).read_text()
    assert run.entry == "cudafuse_verify_kernelHistogram1D" and run.grid is None
    assert ("kernelHistogram1D<int, float, int><<<dim3(12), dim3(256), 68>>>(a, b, nbins, "
            "minvalue, maxvalue, totalElements);") in text
    reparse(Path(path).read_bytes(), path, ParseOptions(), generated=(run.entry,))


@pytest.mark.slow
def test_verify_hfuse_with_template_kernels(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cudafuse.cli import main

    out = _fuse(tmp_path, "im2col.cu", "histogram.cu", f"{IM2COL},{HIST}", "thread")
    res = CliRunner().invoke(main, [
        "verify", "--hfuse", str(ATEN / "im2col.cu"), str(ATEN / "histogram.cu"), str(out),
        "--spec1", str(ATEN / "im2col.toml"), "--spec2", str(ATEN / "histogram.toml")])
    assert res.exit_code == 0, res.output
    assert "at::cuda::kernelHistogram1D<int, float, int>.a: max abs err 0" in res.output


def test_a_call_that_would_bind_to_another_overload_is_refused(tmp_path: Path) -> None:
    # kb (global) calls ::f(long); inside A, where the fused kernel goes, f(int) would win:
    # it compiles, so only comparing the calls' targets with the originals' finds it.
    src = tmp_path / "k.cu"
    src.write_text("__device__ int f(long v) { return (int)v * 2; }\n"
                   "namespace A {\n__device__ int f(int v) { return v + 1; }\n"
                   "__global__ void ka(int *o) { o[threadIdx.x] = f((int)threadIdx.x); }\n"
                   "}  // namespace A\n"
                   "__global__ void kb(int *o) { o[threadIdx.x] = f((int)threadIdx.x); }\n")
    out = tmp_path / "f.cu"
    res = hfuse(str(src), "--kernels", "A::ka,kb", "--block1", "32", "--block2", "32", "-o",
                str(out))
    assert res.exit_code == 1 and not out.exists()
    assert "'f' would call the function declared at '__device__ int f(int v)" in res.output
    assert "kernel 'kb' calls in its own file ('__device__ int f(long v)" in res.output
