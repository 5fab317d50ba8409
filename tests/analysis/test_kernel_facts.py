"""Kernel-level facts: parameters, builtins, shared memory, intrinsics, calls, constants."""

from __future__ import annotations


def test_params_qualifiers_and_access(kernel):
    k = kernel("""
__global__ void f(float* __restrict__ out, const float* __restrict__ in, float* acc,
                  float* rw, int n) {
  GX;
  if (x >= n) return;
  out[x] = in[x];
  atomicAdd(acc, 1.0f);
  rw[x] += 1.0f;
}""")
    p = {q.name: q for q in k.params}
    assert p["out"].restrict and not p["out"].const and p["out"].writes and not p["out"].reads
    assert p["in"].const and p["in"].restrict and p["in"].reads and not p["in"].writes
    assert p["acc"].atomic
    assert p["rw"].reads and p["rw"].writes
    assert not p["n"].is_pointer
    assert k.atomics[0].name == "atomicAdd"
    assert k.early_returns == (8,)  # 3 prelude lines + the blank first line


def test_builtins_per_dimension(kernel):
    k = kernel("""
__global__ void f(float* out) {
  out[blockIdx.y * gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x] = warpSize;
}""")
    assert k.builtins == ("blockDim.x", "blockIdx.x", "blockIdx.y", "gridDim.x", "threadIdx.x",
                          "warpSize")


def test_shared_barriers_and_warp_ops(kernel):
    k = kernel("""
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__global__ void f(const float* in, float* out, int n) {
  __shared__ float tile[32][33];
  __shared__ double d[4];
  extern __shared__ int dyn[];
  GX;
  tile[threadIdx.y][threadIdx.x] = in[x];
  __syncthreads();
  int c = __syncthreads_count(x < n);
  __syncwarp();
  unsigned b = __ballot_sync(0xffffffffu, x < n);
  dyn[threadIdx.x] = c + b;
  out[x] = warp_sum(tile[threadIdx.x][threadIdx.y]);
  asm volatile("membar.gl;");
}""")
    shared = {s.name: s for s in k.shared}
    assert shared["tile"].size_bytes == 32 * 33 * 4 and shared["tile"].elem_type == "float"
    assert shared["d"].size_bytes == 32
    assert shared["dyn"].dynamic and shared["dyn"].size_bytes is None
    assert [b.name for b in k.barriers] == ["__syncthreads", "__syncthreads_count", "__syncwarp"]
    assert {w.name for w in k.warp_ops} == {"__ballot_sync", "__shfl_xor_sync"}
    assert k.calls == ("warp_sum",)
    assert len(k.asm) == 1
    # (its reads of `in` are its own element's, whatever it exchanges: see test_refusals)
    assert k.load("in").kind == "point"


def test_transitive_calls_and_constants(kernel):
    k = kernel("""
__constant__ float weights[9];
__constant__ float bias;
__device__ float leaf(float v) { return v * bias; }
__device__ float mid(float v) { return leaf(v) + 1.0f; }
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = mid(in[x]) * weights[0];
}""")
    assert k.calls == ("mid", "leaf")
    assert k.constants == ("bias", "weights")
    assert k.load("in").kind == "point"


def test_enclosing_if_guard(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x < w && y < h) {
    out[y * w + x] = in[y * w + x];
  }
}""")
    assert k.mapping.guard_form == "if"
    assert k.mapping.guard_text == "x < w && y < h"
    assert dict(k.mapping.guard) == {"x": "w", "y": "h"}
    assert k.early_returns == ()
    assert ("x", "X") in k.mapping.variables


def test_inline_asm_operands_escape(kernel):
    k = kernel("""
__global__ void f(const float* a, float* c, int n) {
  GX;
  float r;
  asm("mov.f32 %0, %1;" : "=f"(r) : "f"(a[x]));
  c[x] = r;
}""")
    p = {q.name: q for q in k.params}
    assert p["a"].reads and p["a"].writes
    assert k.load("a").kind == "other" and "inline asm" in k.load("a").reason
    assert k.store("c").point


def test_struct_params_are_flagged(kernel):
    k = kernel("""
struct View { float* p; int pitch; };
__global__ void f(View v, float gain, int n) {
  GX;
  if (x < n) v.p[x] *= gain;
}""")
    p = {q.name: q for q in k.params}
    assert p["v"].aggregate and not p["gain"].aggregate and not p["n"].aggregate
