"""On a GPU: the device's limits against the published figures, and `occupancy` against the
CUDA runtime's own occupancy calculation for kernels of several footprints."""

from __future__ import annotations

import ctypes
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from cudafuse.profile.device import query_device
from cudafuse.profile.occupancy import DeviceLimits, occupancy

pytestmark = pytest.mark.gpu

# regs<N> keeps N values live across a dependent loop, so ptxas needs roughly N registers:
# the kernels span few to many registers per thread; shared48 has 48 KiB of static shared.
SOURCE = r"""
#include <cuda_runtime.h>
template <int N> __global__ void regs(const float* in, float* out) {
  float acc[N];
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = in[threadIdx.x + i * blockDim.x];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = acc[i] * acc[(i + 1) % N] + 1.0f;
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < N; ++i) s += acc[i];
  out[threadIdx.x] = s;
}
__global__ void shared48(float* out) {
  __shared__ float s[12 * 1024];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
static const void* kernels[] = {(const void*)regs<2>, (const void*)regs<16>,
                                (const void*)regs<40>, (const void*)regs<100>,
                                (const void*)shared48};
extern "C" int occ(int which, int threads, size_t dyn, int* nregs, int* smem, int* blocks) {
  cudaFuncAttributes a;
  if (cudaFuncGetAttributes(&a, kernels[which]) != cudaSuccess) return -1;
  *nregs = a.numRegs;
  *smem = (int)a.sharedSizeBytes;
  return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernels[which], threads,
                                                            dyn);
}
"""


def test_device_limits_match_the_published_figures() -> None:
    info, attributes = query_device()
    if info.arch not in ("sm_80", "sm_90"):
        pytest.skip(f"no published figures here for {info.arch}")
    limits = DeviceLimits.from_attributes(attributes)
    # The SM count differs between boards of one arch (H100 SXM 132, PCIe 114).
    assert replace(limits, multiprocessors=None) == \
        replace(DeviceLimits.for_arch(info.arch), multiprocessors=None)
    assert info.multiprocessors == attributes["MULTIPROCESSOR_COUNT"]
    assert info.l2_bytes and info.l2_bytes > 2**20


@pytest.mark.nvcc
def test_occupancy_agrees_with_the_cuda_runtime(tmp_path: Path) -> None:
    info, attributes = query_device()
    limits = DeviceLimits.from_attributes(attributes)
    src, lib = tmp_path / "occ.cu", tmp_path / "occ.so"
    src.write_text(SOURCE)
    subprocess.run(["nvcc", "-shared", "-Xcompiler", "-fPIC", f"-arch={info.arch}",
                    "-o", str(lib), str(src)], check=True, capture_output=True)
    occ = ctypes.CDLL(str(lib)).occ
    occ.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t,
                    *(ctypes.POINTER(ctypes.c_int),) * 3]
    seen_regs, mismatches, checked = set(), [], 0
    for which in range(5):
        # Static + dynamic within the default 48 KiB a block gets without opting in.
        for dyn in ((0, 8000, 30000) if which < 4 else (0,)):
            for threads in range(32, 1025, 32):
                nregs, smem, blocks = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
                rc = occ(which, threads, dyn, ctypes.byref(nregs), ctypes.byref(smem),
                         ctypes.byref(blocks))
                assert rc == 0, f"CUDA error {rc}"
                seen_regs.add(nregs.value)
                ours = occupancy(limits, threads, nregs.value, smem.value, dyn)
                checked += 1
                if ours.blocks_per_sm != blocks.value:
                    mismatches.append((which, threads, dyn, nregs.value, smem.value,
                                       blocks.value, ours.blocks_per_sm))
    assert not mismatches, f"(kernel, threads, dyn, regs, smem, cuda, ours): {mismatches}"
    assert checked == 4 * 3 * 32 + 32 and len(seen_regs) >= 3
