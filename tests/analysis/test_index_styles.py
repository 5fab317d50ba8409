"""Index styles that must be recognised as point or stencil accesses."""

from __future__ import annotations

import pytest


def test_linear_2d_point(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] * 2.0f;
}""")
    assert k.load("in").kind == "point"
    assert k.load("in").layout == ("1", "w")
    assert k.store("out").point
    assert k.mapping.dims == ("x", "y")
    assert dict(k.mapping.guard) == {"x": "w", "y": "h"}
    assert k.mapping.guard_form == "return"


@pytest.mark.parametrize("xdef", [
    "int x = threadIdx.x + blockIdx.x * blockDim.x;",
    "int x = blockDim.x * blockIdx.x + threadIdx.x;",
    "int x = threadIdx.x + blockDim.x * blockIdx.x;",
    "int x = (blockIdx.x * blockDim.x) + threadIdx.x;",
])
def test_operand_orders(kernel, xdef):
    k = kernel(f"""
__global__ void f(const float* in, float* out, int n) {{
  {xdef}
  if (x < n) out[x] = in[x];
}}""")
    assert k.load("in").kind == "point"
    assert k.store("out").point
    assert k.mapping.guard_form == "if"
    assert dict(k.mapping.guard) == {"x": "n"}


def test_pitch_offsets_in_loops(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h, int pitch) {
  GX; GY;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  float s = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; dx++)
      s += in[(y + dy) * pitch + x + dx];
  out[y * pitch + x] = s;
}""")
    c = k.load("in")
    assert c.kind == "stencil"
    assert len(c.window) == 9 and (-1, -1) in c.window and (1, 1) in c.window
    assert c.extent == ((-1, 1), (-1, 1))
    assert c.layout == ("1", "pitch")


def test_idx_plus_offset_and_rows(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  int idx = y * w + x;
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1)
    out[idx] = in[idx - 1] + in[idx + 1] + in[idx - w] + in[idx + w];
}""")
    c = k.load("in")
    assert c.kind == "stencil"
    assert set(c.window) == {(-1, 0), (1, 0), (0, -1), (0, 1)}
    assert c.border == ("interior", "interior")


def test_two_level_macros(kernel):
    k = kernel("""
#define IDX(x, y, w) ((y) * (w) + (x))
#define AT(img, x, y) img[IDX((x), (y), w)]
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x >= w || y >= h) return;
  AT(out, x, y) = AT(in, min(x + 1, w - 1), y) - AT(in, max(x - 1, 0), y);
}""")
    c = k.load("in")
    assert c.kind == "stencil"
    assert c.window == ((-1, 0), (1, 0))
    assert c.border[0] == "clamp"
    assert k.store("out").point


def test_const_enum_and_helper(kernel):
    k = kernel("""
enum { RADIUS = 2 };
__device__ int row(int y, int w) { return y * w; }
__device__ float tap(const float* p, int i) { return p[i]; }
__global__ void f(const float* in, float* out, int w, int h) {
  const int R = RADIUS;
  GX; GY;
  if (x >= w || y >= h) return;
  float s = 0;
  for (int d = -R; d <= R; ++d)
    s += tap(in, row(y, w) + min(max(x + d, 0), w - 1));
  out[row(y, w) + x] = s;
}""")
    c = k.load("in")
    assert c.kind == "stencil"
    assert c.window == tuple((d, 0) for d in range(-2, 3))
    assert c.border == ("clamp", "none")
    assert set(k.calls) == {"row", "tap"}


def test_3d(kernel):
    k = kernel("""
__global__ void f(const float* u, float* out, int nx, int ny, int nz) {
  GX; GY;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  out[(z * ny + y) * nx + x] = u[(z * ny + y) * nx + x] + u[((z + 1) * ny + y) * nx + x];
}""")
    c = k.load("u")
    assert c.dims == ("x", "y", "z")
    assert set(c.window) == {(0, 0, 0), (0, 0, 1)}
    assert k.store("out").point


def test_grid_stride_loop(kernel):
    k = kernel("""
__global__ void f(const float* a, float* b, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = idx; i < n; i += blockDim.x * gridDim.x)
    b[i] = 2.0f * a[i];
}""")
    assert k.mapping.grid_stride == (("i", "x"),)
    assert k.load("a").kind == "point"
    assert k.store("b").point


def test_pointer_alias(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x >= w || y >= h) return;
  const float* row = in + y * w;
  float* o = out + y * w + x;
  *o = row[x] + row[min(x + 1, w - 1)];
}""")
    assert k.load("in").kind == "stencil"
    assert k.store("out").point


def test_helper_writes_through_pointer(kernel):
    k = kernel("""
__device__ void put(float* o, int i, float v) { o[i] = v; }
__global__ void f(const float* in, float* out, int n) {
  GX;
  if (x < n) put(out, x, in[x]);
}""")
    params = {p.name: p for p in k.params}
    assert params["out"].writes and not params["out"].reads
    assert k.store("out").point


def test_constant_block_size_assumption(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) out[i] = in[i];
}""")
    assert k.load("in").kind == "point"
    assert k.mapping.assumptions == ("blockDim.x == 256",)


def test_one_block_per_row(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX;
  int y = blockIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x];
}""")
    assert k.load("in").kind == "point"
    assert k.mapping.dims == ("x", "y")
    assert k.mapping.assumptions == ("blockDim.y == 1",)


def test_lone_block_index_with_threads_is_refused(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int n) {
  int b = blockIdx.x;
  out[b * blockDim.x + threadIdx.x] = in[b];
}""")
    assert k.load("in").kind == "other"
