"""Host memory between launches that no launch is given (issue 25: fierval's cs344): local
smart pointers owning fresh memory, used through `.get()` and `[i]` (host/pointsto.py), and
calls of the C/C++ library on host memory (`memset`, `memcpy`, `std::fill`, `std::sort`:
hoststmts.py judges them by the memory their pointer arguments reach). Each pipeline of
programs/host_library.cu fuses whole and matches the original under emulation; a library
call on a buffer an earlier launch uses, or on a smart pointer handed to a function, still
splits, with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "host_library.cu"
ENTRIES = ["hl_owned", "hl_host_array"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("hl") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_pipelines_fuse_whole(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        (e, ("hl_square", "hl_shift")) for e in sorted(ENTRIES)]
    assert not result.breaks


@pytest.mark.parametrize("entry", ENTRIES)
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for n in (1, 37, 300):
        compare_entry(PROGRAM, out, entry, {"n": n})


SPLITS = r"""
#include <cstring>
#include <memory>
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
void keep(std::unique_ptr<float> &p);
void memset_launch_buffer(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  memset(t, 0, n * sizeof(float));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void handed_out(const float *in, float *t, float *out, int n) {
  std::unique_ptr<float> h(new float[n]);
  keep(h);
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  memset(h.get(), 0, n * sizeof(float));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""

WHY = {
    "memset_launch_buffer": "its call to 'memset' touches 't', which may be a buffer the "
                            "launch of 'ka' at line 14 uses",
    # (h is handed to a function: what it holds is not known)
    "handed_out": "its call to 'memset' may touch device memory or variables",
}


def test_library_calls_on_launch_buffers_split(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(SPLITS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert not result.groups
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in WHY.items():
        assert first[host].endswith(why), (host, first[host])
