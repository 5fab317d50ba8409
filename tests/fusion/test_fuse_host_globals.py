"""Host scalars whose values name a host global (issue 25, host/byvalue.py): a grid computed
from a count a helper stored in a global (`gridSize = (h_count + 1023) / 1024;`), reassigned
before the next launches, is read by the value the first launch saw when nothing between
the assignment and that launch may change the global. A helper that writes it, a function
cudafuse cannot see, a write after the launch, or a global whose address is taken (written
through a pointer) still splits the sequence, with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

# The fusing case (a helper in between that only prints the global) is host_facts.cu's
# hf_global_grid, fused and compared under the emulator by test_fuse_host_facts.py.


SPLITS = r"""
#include <cuda_runtime.h>
int h_count;
void count_active(int n) { h_count = n - n / 3; }
void refresh(int n);
__global__ void ka(const float *in, float *t, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, const float *in, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) out[i] = t[i] + in[i];
}
void changed_before(const float *in, float *t, float *out, int n) {
  dim3 grid = (h_count + 127) / 128;
  count_active(n);
  ka<<<grid, 128>>>(in, t, h_count);
  grid = (h_count + 63) / 64;
  kb<<<grid, 64>>>(t, in, out, h_count);
}
void unknown_before(const float *in, float *t, float *out, int n) {
  dim3 grid = (h_count + 127) / 128;
  refresh(n);
  ka<<<grid, 128>>>(in, t, h_count);
  grid = (h_count + 63) / 64;
  kb<<<grid, 64>>>(t, in, out, h_count);
}
void changed_after(const float *in, float *t, float *out, int n) {
  dim3 grid = (h_count + 127) / 128;
  ka<<<grid, 128>>>(in, t, h_count);
  count_active(n);
  grid = (h_count + 63) / 64;
  kb<<<grid, 64>>>(t, in, out, h_count);
}
void assigned_after(const float *in, float *t, float *out, int n) {
  dim3 grid = (h_count + 127) / 128;
  ka<<<grid, 128>>>(in, t, h_count);
  grid = (h_count + 63) / 64;
  h_count = 0;
  kb<<<grid, 64>>>(t, in, out, h_count);
}
void kept(const float *in, float *t, float *out, int n) {
  dim3 grid = (h_count + 127) / 128;
  cudaMemset(t, 0, n * sizeof(float));
  ka<<<grid, 128>>>(in, t, h_count);
  grid = (h_count + 63) / 64;
  kb<<<grid, 64>>>(t, in, out, h_count);
}
int h_other;
int *g_ptr = &h_other;
void bump() { *g_ptr = 5; }
void through_pointer(const float *in, float *t, float *out, int n) {
  dim3 grid = (h_other + 127) / 128;
  bump();
  ka<<<grid, 128>>>(in, t, h_other);
  grid = (h_other + 63) / 64;
  kb<<<grid, 64>>>(t, in, out, h_other);
}
"""

GRID = "it assigns 'grid', which the launch of 'ka' at line {} reads"
WHY = {
    # the value grid holds at the launch is not (h_count + 127) / 128 read there
    "changed_before": GRID.format(17),
    "unknown_before": GRID.format(24),
    # the re-spelled launch names h_count: changing it before the fused launch splits
    "changed_after": "its call to 'count_active' assigns 'h_count', which the launch of 'ka' "
                     "at line 30",
    "assigned_after": "it assigns 'h_count', which the launch of 'ka' at line 37 reads",
    # (bump writes h_other through a pointer: no assignment of it a body shows)
    "through_pointer": GRID.format(55),
}


def test_a_global_that_may_change_still_splits(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(SPLITS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    # (the same pipeline with nothing in between that may change h_count fuses)
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [("kept", ("ka", "kb"))]
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in WHY.items():
        assert why in first[host], (host, first[host])


ALIASED = r"""
#include <cstring>
#include <cuda_runtime.h>
int h_n;
int *g_p = &h_n;
void bump() { *g_p = 3; }
void set3(int *p) { *p = 3; }
__global__ void ka(const float *in, float *t, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) out[i] = t[i] + 1.0f + m;
}
void in_helper(const float *in, float *t, float *out, int n) {
  h_n = n;
  ka<<<(h_n + 127) / 128, 128>>>(in, t, h_n);
  bump();
  kb<<<(h_n + 127) / 128, 128>>>(t, out, h_n);
}
void in_host(const float *in, float *t, float *out, int n) {
  h_n = n;
  ka<<<(h_n + 127) / 128, 128>>>(in, t, h_n);
  *g_p = 3;
  kb<<<(h_n + 127) / 128, 128>>>(t, out, h_n);
}
void as_argument(const float *in, float *t, float *out, int n) {
  h_n = n;
  ka<<<(h_n + 127) / 128, 128>>>(in, t, h_n);
  set3(g_p);
  kb<<<(h_n + 127) / 128, 128>>>(t, out, h_n);
}
void by_memset(const float *in, float *t, float *out, int n) {
  h_n = n;
  ka<<<(h_n + 127) / 128, 128>>>(in, t, h_n);
  memset(g_p, 0, sizeof(int));
  kb<<<(h_n + 127) / 128, 128>>>(t, out, h_n);
}
void by_transfer(const float *in, float *t, float *out, const int *d_n, int n) {
  h_n = n;
  ka<<<(h_n + 127) / 128, 128>>>(in, t, h_n);
  cudaMemcpy(g_p, d_n, sizeof(int), cudaMemcpyDeviceToHost);
  kb<<<(h_n + 127) / 128, 128>>>(t, out, h_n);
}
int *g_q;
void bump_q() { *g_q = 3; }
void local_target(const float *in, float *t, float *out, int n) {
  int m = n;
  g_q = &m;
  ka<<<(m + 127) / 128, 128>>>(in, t, m);
  bump_q();
  kb<<<(m + 127) / 128, 128>>>(t, out, m);
}
"""

MAY_BE = "which may be 'h_n' (its address is taken), which the launch of 'ka' at line {} reads"
ALIASED_WHY = {
    "in_helper": "its call to 'bump' reaches memory through 'g_p', " + MAY_BE.format(18),
    "in_host": "it reads or writes memory through 'g_p', " + MAY_BE.format(24),
    "as_argument": "its call to 'set3' reaches memory through 'g_p', " + MAY_BE.format(30),
    "by_memset": "its call to 'memset' writes through 'g_p', " + MAY_BE.format(36),
    "by_transfer": "its call to 'cudaMemcpy' writes through 'g_p', " + MAY_BE.format(42),
    # (a local of the host function a pointer global is set to)
    "local_target": "its call to 'bump_q' reaches memory through 'g_q', which may be 'm' (its "
                    "address is taken), which the launch of 'ka' at line 51 reads",
}


def test_a_write_through_a_pointer_to_a_global_a_launch_reads_splits(tmp_path: Path) -> None:
    """A launch reads host global h_n by value; a write through a pointer global that may
    point to it (its address is taken) between that launch and the next would change what
    the fused launch, evaluated after it, reads: it splits, whoever writes."""
    src = tmp_path / "aliased.cu"
    src.write_text(ALIASED)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert not result.groups
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in ALIASED_WHY.items():
        assert why in first[host], (host, first[host])


def _included_template(tmp_path: Path) -> Path:
    (tmp_path / "scan_kernel.cuh").write_text(
        "template <bool twice>\n__global__ void tk(const float *in, float *out, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) out[i] = twice ? 2.0f * in[i] : in[i];\n}\n")
    src = tmp_path / "main.cu"
    src.write_text('#include "scan_kernel.cuh"\nvoid run(const float *in, float *t, float *out,'
                   ' int n) {\n  tk<true><<<(n + 127) / 128, 128>>>(in, t, n);\n'
                   '  tk<false><<<(n + 127) / 128, 128>>>(t, out, n);\n}\n')
    return src


def test_a_kernel_template_of_an_included_file_fuses_by_its_instantiations(
        tmp_path: Path) -> None:
    """(Rodinia's scan.cu launches `prescan<true, false>` from scanLargeArray_kernel.cu,
    which it includes; the launch was said to have "no definition in this file", then
    "a template declared in the included file". Each instantiation is now a kernel of its
    own: frontend/instantiate.py, test_fuse_templates.py.)"""
    src = _included_template(tmp_path)
    result = fuse_file(src, tmp_path / "out.cu")
    assert [(g.host, g.kernels) for g in result.groups] == [("run", ["tk", "tk"])]
    assert [la.why for la in result.launches] == ["", ""]


@pytest.mark.slow
def test_included_template_instantiations_fused_equal_original(tmp_path: Path) -> None:
    src = _included_template(tmp_path)
    fuse_file(src, tmp_path / "out.cu")
    for n in (1, 37, 300):
        compare_entry(src, tmp_path / "out.cu", "run", {"n": n})
