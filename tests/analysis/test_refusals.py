"""Accesses that must not be classified point or stencil (and why)."""

from __future__ import annotations

import pytest

from cudafuse.analysis.kernel_facts import analyze_kernel
from cudafuse.passes.vertical.kernel.view import plain_view

CASES = {
    "data_dependent": ("""
__global__ void f(const float* in, const int* idx, float* out, int n) {
  GX;
  if (x < n) out[x] = in[idx[x]];
}""", "in", "data-dependent"),
    "reduction_loop": ("""
__global__ void f(const float* m, float* out, int n) {
  GX;
  float s = 0;
  for (int i = 0; i < n; ++i) s += m[x * n + i];
  out[x] = s;
}""", "m", "loop variable 'i'"),
    "loop_too_large": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  float s = 0;
  for (int d = -400; d <= 400; ++d) s += in[x + d];
  out[x] = s;
}""", "in", "loop too large"),
    "neighbour_of_written": ("""
__global__ void f(float* a, int n) {
  GX;
  if (x + 1 < n) a[x] = a[x + 1] * 0.5f;
}""", "a", "neighbours of a buffer it also writes"),
    "atomics": ("""
__global__ void f(float* acc, const float* in, int n) {
  GX;
  if (x < n) atomicAdd(&acc[x], in[x]);
}""", "acc", "atomic"),
    "broadcast_row": ("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x < w && y < h) out[y * w + x] = in[x];
}""", "in", "does not depend on y"),
    "strided": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = in[2 * x];
}""", "in", "not contiguous"),
    "block_local": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = in[threadIdx.x];
}""", "in", "threadIdx.x outside a global coordinate"),
    "escape": ("""
__device__ float opaque_fn(const float* p);
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = opaque_fn(in + x);
}""", "in", "escapes"),
    "stale_reads_do_not_cancel": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  int i = n;
  int a = i;
  for (int k = 0; k < n; k++) i++;  // (straight-line writes are followed: i++ alone is n + 1)
  int b = i;
  out[x] = in[x + a - b];
}""", "in", "assigned more than once"),
    "pointer_chosen_at_run_time": ("""
__global__ void f(const float* a, const float* b, float* out, int n) {
  GX;
  const float* p = n > 4 ? a : b;
  out[x] = p[x];
}""", "b", "escapes"),
    "pointer_in_local_array": ("""
__global__ void f(const float* a, const float* b, float* out, int n) {
  GX;
  const float* ps[2] = {a, b};
  out[x] = ps[n & 1][x];
}""", "a", "escapes"),
    "pointer_reassigned_to_other": ("""
__global__ void f(const float* a, const float* b, float* out, int n) {
  GX;
  const float* p = a;
  if (n > 4) p = b;
  out[x] = p[x];
}""", "b", "escapes"),
    "reassigned_pointer": ("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX;
  const float* p = in;
  float s = 0;
  for (int r = 0; r < h; ++r) { s += p[x]; p += w; }
  out[x] = s;
}""", "in", "reassigned"),
    "mutable_index": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  int j = x;
  if (n > 4) j = x + 1;
  out[x] = in[j];
}""", "in", "unrecognised conditional index"),  # j is read as n > 4 ? x + 1 : x
    "nonaffine": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = in[x * x];
}""", "in", ""),
    "clamp_to_nonzero_low": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = in[max(x - 1, 1)];
}""", "in", "lower bound other than 0"),
    "division": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = in[x / 2];
}""", "in", "div"),
    "reinterpret": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = ((const float2*)in)[x].x;
}""", "in", "reinterpret"),
}


# Kernels whose threads exchange data: what each thread reads of `in` is still its own
# element (a consumer's view serves it), but its value is not a function of its element, so
# the fusion view refuses it as a producer (passes/vertical/kernel/view.py).
EXCHANGES = {
    "shared_tiling": ("""
__global__ void f(const float* in, float* out, int n) {
  __shared__ float tile[256];
  GX;
  tile[threadIdx.x] = in[x];
  __syncthreads();
  out[x] = tile[(threadIdx.x + 1) % 256];
}""", "in", "shared memory"),
    "shared_scalar": ("""
__global__ void f(const float* in, float* out, int n) {
  __shared__ float first;
  GX;
  if (threadIdx.x == 0) first = in[x];
  __syncthreads();
  out[x] = first;
}""", "in", "shared memory"),
    "shuffles": ("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  float v = in[x];
  v += __shfl_down_sync(0xffffffffu, v, 1);
  out[x] = v;
}""", "in", "warp shuffles"),
}


@pytest.mark.parametrize("name", sorted(EXCHANGES))
def test_exchanging_kernels_read_their_own_element_and_are_no_producers(unit_of, name):
    src, ptr, _ = EXCHANGES[name]
    unit = unit_of(src)
    fn = unit.kernels[-1]
    assert analyze_kernel(unit, fn).load(ptr).kind == "point"
    assert plain_view(fn).producer_reason  # (shared memory or a collective: why, in words)


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused(kernel, name):
    src, ptr, why = CASES[name]
    c = kernel(src).load(ptr)
    assert c is not None
    assert c.kind == "other"
    assert why in c.reason


def test_store_at_offset_is_not_point(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x + 1 < n) out[x + 1] = in[x];
}""")
    assert k.load("in").kind == "point"
    s = k.store("out")
    assert not s.point and "offset" in s.reason and "dx=1" in s.reason


def test_store_data_dependent(kernel):
    k = kernel("""
__global__ void f(const int* key, float* out, int n) {
  GX;
  if (x < n) out[key[x]] = 1.0f;
}""")
    assert not k.store("out").point
    assert "data-dependent" in k.store("out").reason


def test_in_place_point_is_point(kernel):
    k = kernel("""
__global__ void f(float* a, int n) {
  GX;
  if (x < n) a[x] = a[x] * 2.0f;
}""")
    assert k.load("a").kind == "point"
    assert k.store("a").point
