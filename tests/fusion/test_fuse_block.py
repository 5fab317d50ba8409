"""`--block XxY`: fused 2D groups launched with another block shape, their grid rebuilt from
the image size in the last kernel's guard. Every sample, fused so, equals the original on
every output element (odd sizes: partial blocks in both dimensions, every border), with
shared-memory tiles (sized by the new block) and without. Groups whose kernels assume a
block size keep their launch, with a note."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from equivalence import fuse_file, run_both
from test_samples_fused import NAMES, SAMPLES, SIZES, _intermediates

from cudafuse.cli import main


def _check(name: str, tmp_path: Path, block: tuple[int, int], tiles: str) -> None:
    src = SAMPLES / f"{name}.cu"
    entry = f"{name}_pipeline"
    scratch = _intermediates(src, entry)
    out = tmp_path / f"{name}.{block[0]}x{block[1]}.{tiles}.cu"
    result = fuse_file(src, out, scratch=scratch, fuse_all=True, tiles=tiles, block=block)
    # (a tile the emitter declines is said in a note, and the group is fused without it)
    assert not [m for m in result.notes if " not staged" not in m], result.notes
    text = out.read_text()
    assert f"dim3({block[0]}, {block[1]})>>>" in text
    assert f"__launch_bounds__({block[0] * block[1]})" in text
    for w, h in SIZES:
        run_both(src, out, entry, w, h, skip=scratch)


# A slice in `make test` (a corner detector, the deepest pipeline, a blur with a point stage);
# every sample at this block and at four more shapes runs under `slow`.
BLOCK_SLICE = ("harris", "canny", "unsharp")


@pytest.mark.parametrize("name", [n if n in BLOCK_SLICE else pytest.param(
    n, marks=pytest.mark.slow) for n in NAMES])
def test_samples_with_another_block(name: str, tmp_path: Path) -> None:
    _check(name, tmp_path, (64, 4), "always")


@pytest.mark.slow
@pytest.mark.parametrize("tiles", ["always", "never"])
@pytest.mark.parametrize("block", [(16, 16), (8, 32), (128, 2), (32, 1)])
@pytest.mark.parametrize("name", NAMES)
def test_samples_with_block_shapes(name: str, block: tuple[int, int], tiles: str,
                                   tmp_path: Path) -> None:
    _check(name, tmp_path, block, tiles)


FIXED = r"""
#include <cuda_runtime.h>
__global__ void scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * in[y * w + x];
}
__global__ void offset(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] + 1.0f;
}
extern "C" void fixed_pipeline(const float *in, float *tmp, float *out, int w, int h) {
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  scale<<<grid, block>>>(in, tmp, w, h);
  offset<<<grid, block>>>(tmp, out, w, h);
}
"""


def test_plan_and_report_say_which_block(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["plan", str(SAMPLES / "sobel.cu"), "--block", "64x4",
                                    "--scratch", "gx", "--scratch", "gy", "--report",
                                    str(report)])
    assert res.exit_code == 0, res.output
    assert "launched with a 64x4 block (--block)" in res.output
    import json

    fused = json.loads(report.read_text())["sequences"][0]["fused"]
    assert [g["launch_block"] for g in fused] == [[64, 4]]


def test_a_group_that_assumes_its_block_keeps_it(tmp_path: Path) -> None:
    src = tmp_path / "fixed.cu"
    src.write_text(FIXED)
    out = tmp_path / "fixed.fused.cu"
    res = CliRunner().invoke(main, ["fuse", str(src), "-o", str(out), "--block", "64x4",
                                    "--fuse-all"])
    assert res.exit_code == 0, res.output
    assert "keeps its launch's block: its mapping assumes a block size" in res.output
    assert "<<<grid, block>>>" in out.read_text() and "dim3(64, 4)" not in out.read_text()
    run_both(src, out, "fixed_pipeline", 37, 23)


@pytest.mark.parametrize("bad", ["64", "0x4", "64x32", "axb"])
def test_block_option_errors(tmp_path: Path, bad: str) -> None:
    res = CliRunner().invoke(main, ["fuse", str(SAMPLES / "sobel.cu"), "-o",
                                    str(tmp_path / "o.cu"), "--block", bad])
    assert res.exit_code == 2 and "--block takes XxY" in res.output


# canny's fused file takes nvcc some 18 s of CPU (the others about 1 s): make test-slow.
@pytest.mark.nvcc
@pytest.mark.parametrize("name", ["harris", pytest.param("canny", marks=pytest.mark.slow),
                                  "night"])
def test_relaunched_groups_compile(name: str, tmp_path: Path) -> None:
    import shutil
    import subprocess

    src = SAMPLES / f"{name}.cu"
    out = tmp_path / f"{name}.cu"
    fuse_file(src, out, scratch=_intermediates(src, f"{name}_pipeline"), fuse_all=True,
              tiles="always", block=(64, 4))
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(out), "-o", str(tmp_path / "o.o"),
                          "-I", str(SAMPLES)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


PARTIAL = r"""
#include <cuda_runtime.h>
__global__ void scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * in[y * w + x];
}
__global__ void offset(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] + 1.0f;
}
// The second launch covers only the top half of the image, on purpose.
extern "C" void partial_pipeline(const float *in, float *tmp, float *out, int w, int h) {
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16), top((w + 15) / 16, h / 32);
  scale<<<grid, block>>>(in, tmp, w, h);
  offset<<<top, block>>>(tmp, out, w, h);
}
"""


def test_a_launch_that_covers_part_of_the_image_keeps_its_grid(tmp_path: Path) -> None:
    src = tmp_path / "partial.cu"
    src.write_text(PARTIAL)
    out = tmp_path / "partial.fused.cu"
    res = CliRunner().invoke(main, ["fuse", str(src), "-o", str(out), "--block", "64x4",
                                    "--fuse-all", "--scratch", "tmp"])
    assert res.exit_code == 0, res.output
    assert "keeps its launch's block: its launch may not cover the whole image" in res.output
    assert "fused0<<<top, block>>>" in out.read_text()
    run_both(src, out, "partial_pipeline", 37, 70, skip=frozenset({"tmp"}))

