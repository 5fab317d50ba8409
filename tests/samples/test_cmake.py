"""samples/cmake: cudafuse as a CMake build step (cudafuse.cmake's cudafuse_fuse). A small
project fuses a pipeline whose kernels read a local header, builds it with Ninja, and
rebuilds exactly when the source or the header changes (the depfile cudafuse writes); the
samples' own CMakeLists builds a fused sample. Needs nvcc (CMake's CUDA language), cmake
and ninja; skipped without them. Running the binaries needs a GPU and is not done here."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "samples" / "cmake" / "cudafuse.cmake"
CUDAFUSE = Path(sys.executable).parent / "cudafuse"

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(
    shutil.which("cmake") is None or shutil.which("ninja") is None or not CUDAFUSE.exists(),
    reason="needs cmake, ninja and the cudafuse console script")]

PIPE = r"""
#include <cuda_runtime.h>
#include "params.h"
__global__ void scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = GAIN * in[y * w + x];
}
__global__ void offset(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] + 1.0f;
}
extern "C" void pipe_pipeline(const float *in, float *tmp, float *out, int w, int h) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  scale<<<grid, block>>>(in, tmp, w, h);
  offset<<<grid, block>>>(tmp, out, w, h);
}
"""

LISTS = f"""
cmake_minimum_required(VERSION 3.20)
project(pipe LANGUAGES CXX CUDA)
include("{MODULE}")
cudafuse_fuse(fused "${{CMAKE_CURRENT_SOURCE_DIR}}/pipe.cu" SCRATCH tmp OPTIONS --fuse-all)
add_library(pipe_fused STATIC "${{fused}}")
target_include_directories(pipe_fused PRIVATE "${{CMAKE_CURRENT_SOURCE_DIR}}")
"""


def _build(build: Path) -> str:
    res = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    return res.stdout


def test_fused_source_is_rebuilt_when_its_inputs_change(tmp_path: Path) -> None:
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir()
    (src / "pipe.cu").write_text(PIPE)
    (src / "params.h").write_text("#define GAIN 2.0f\n")
    (src / "CMakeLists.txt").write_text(LISTS)
    res = subprocess.run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja",
                          "-DCMAKE_CUDA_ARCHITECTURES=90", f"-DCUDAFUSE={CUDAFUSE}"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    first = _build(build)
    fused = build / "pipe.fused.cu"
    assert "cudafuse fuse pipe.cu" in first and "pipe_pipeline_fused0" in fused.read_text()
    assert "params.h" in (build / "pipe.fused.cu.d").read_text()
    assert "no work to do" in _build(build)
    (src / "params.h").write_text("#define GAIN 3.0f\n")  # a header it read: fuse again
    assert "cudafuse fuse pipe.cu" in _build(build)
    (src / "pipe.cu").write_text(PIPE.replace("+ 1.0f", "+ 2.0f"))  # the source itself
    assert "cudafuse fuse pipe.cu" in _build(build)
    assert "+ 2.0f" in fused.read_text()


def test_the_samples_cmake_project_builds_a_fused_sample(tmp_path: Path) -> None:
    build = tmp_path / "build"
    res = subprocess.run(["cmake", "-S", str(ROOT / "samples" / "cmake"), "-B", str(build),
                          "-G", "Ninja", "-DCMAKE_CUDA_ARCHITECTURES=90",
                          f"-DCUDAFUSE={CUDAFUSE}"], capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    res = subprocess.run(["cmake", "--build", str(build), "--target", "sobel.fused",
                          "sobel.orig"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (build / "sobel.fused").exists() and (build / "sobel.orig").exists()
    assert "sobel_pipeline_fused" in (build / "sobel.fused.cu").read_text()


def test_horizontal_fusion_as_a_build_step(tmp_path: Path) -> None:
    programs = ROOT / "tests" / "hfuse" / "programs" / "rename"
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.20)
project(pair LANGUAGES CXX CUDA)
include("{MODULE}")
cudafuse_hfuse(fused "{programs / 'a.cu'}" "{programs / 'b.cu'}" KERNELS shade,mark
               BLOCK1 64 BLOCK2 64)
add_executable(pair "${{fused}}")
""")
    res = subprocess.run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja",
                          "-DCMAKE_CUDA_ARCHITECTURES=90", f"-DCUDAFUSE={CUDAFUSE}"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "cudafuse hfuse shade,mark" in _build(build)
    text = (build / "shade_mark.hfused.cu").read_text()
    assert "shade_mark_hfused_launch" in text and (build / "pair").exists()
    assert "b.cu" in (build / "shade_mark.hfused.cu.d").read_text()
    assert "no work to do" in _build(build)


def test_the_targets_flags_reach_cudafuse(tmp_path: Path) -> None:
    # The header lives in a directory and needs a macro that only the target's properties
    # give: cudafuse reads both from compile_commands.json (the fused file's entry).
    src, build = tmp_path / "src", tmp_path / "build"
    (src / "inc").mkdir(parents=True)
    (src / "pipe.cu").write_text(PIPE)
    (src / "inc" / "params.h").write_text('#ifndef GAIN\n#error "GAIN is not defined"\n#endif\n')
    (src / "CMakeLists.txt").write_text(LISTS.replace(
        'target_include_directories(pipe_fused PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")',
        'target_include_directories(pipe_fused PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/inc")\n'
        "target_compile_definitions(pipe_fused PRIVATE GAIN=2.0f)"))
    res = subprocess.run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja",
                          "-DCMAKE_CUDA_ARCHITECTURES=90", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                          f"-DCUDAFUSE={CUDAFUSE}"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    out = _build(build)
    assert "not found" not in out and "error" not in out
    assert "pipe_pipeline_fused0" in (build / "pipe.fused.cu").read_text()
    assert str(src / "inc" / "params.h") in (build / "pipe.fused.cu.d").read_text()
