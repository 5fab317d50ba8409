"""Odd constructs must give an answer (usually `other`), never an exception."""

from __future__ import annotations

import json

from cudafuse.analysis.render import render_dot, render_text
from cudafuse.analysis.report import build_report

ODD = """
struct Img { float* p; int w; __device__ float at(int x) const { return p[x]; } };
template <int R> __device__ float tsum(const float* p, int x) {
  float s = 0; for (int d = -R; d <= R; ++d) s += p[x + d]; return s;
}
__device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ void swap_ref(float& a, float& b) { float t = a; a = b; b = t; }
__global__ void odd(const float* in, float* out, float** pp, Img img, int n, int mode) {
  GX;
  int i = x;
  switch (mode) { case 0: i += 1; break; default: i -= 1; }
  do { i++; } while (i < 0);
  float v = img.at(x) + tsum<2>(in, x) + fact(3);
  float a = in[x], b = in[x];
  swap_ref(a, b);
  auto f = [&](int k) { return in[k]; };
  v += f(x) + pp[0][x] + sizeof(float) + in[i];
  if (x < n) out[x] = v;
  for (;;) { if (v > 0) break; }
  while (true) { break; }
}
__global__ void recursive_helpers(float* out, int n) {
  GX;
  if (x < n) out[x] = fact(x);
}
void host(float* a, float* b, int n) {
  odd<<<1, 1>>>(a, b, nullptr, Img{b, n}, n, 0);
  for (int r = 0; r < 3; ++r) recursive_helpers<<<n / 32, 32>>>(a + r, n);
}
"""


def test_odd_constructs(unit_of):
    rep = build_report(unit_of(ODD))
    json.dumps(rep)
    render_text(rep)
    render_dot(rep)
    odd = next(k for k in rep["kernels"] if k["name"] == "odd")
    loads = {c["pointer"]: c for c in odd["loads"]}
    assert loads["in"]["class"] == "other"
    assert loads["pp"]["class"] == "other"
    rec = next(k for k in rep["kernels"] if k["name"] == "recursive_helpers")
    assert rec["stores"][0]["point"]
    host = rep["host_functions"][0]
    assert [la["kernel"] for la in host["launches"]] == ["odd", "recursive_helpers"]
    assert host["launches"][1]["args"][0]["buffer"] == "a"
