"""Each border mode, in the forms the issue lists."""

from __future__ import annotations

import pytest

TEMPLATE = """
__device__ int clampi(int v, int lo, int hi) {{
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}}
__global__ void f(const float* in, float* out, int w, int h) {{
  GX; GY;
  if (x >= w || y >= h) return;
  float s = 0;
  for (int d = -1; d <= 1; ++d) {{
    int t = x + d;
    {body}
  }}
  out[y * w + x] = s;
}}"""

CASES = {
    "clamp_minmax": ("s += in[y * w + min(max(t, 0), w - 1)];", "clamp"),
    "clamp_maxmin": ("s += in[y * w + max(min(t, w - 1), 0)];", "clamp"),
    "clamp_swapped_args": ("s += in[y * w + min(w - 1, max(0, t))];", "clamp"),
    "clamp_ternary": ("int c = t < 0 ? 0 : (t >= w ? w - 1 : t); s += in[y * w + c];", "clamp"),
    "clamp_ternary_hi_first": ("int c = t > w - 1 ? w - 1 : (t < 0 ? 0 : t);"
                               " s += in[y * w + c];", "clamp"),
    "clamp_helper_if_return": ("s += in[y * w + clampi(t, 0, w - 1)];", "clamp"),
    "mirror": ("int m = t < 0 ? -t - 1 : (t >= w ? 2 * w - t - 1 : t);"
               " s += in[y * w + m];", "mirror"),
    "mirror101": ("int m = t < 0 ? -t : (t >= w ? 2 * w - t - 2 : t);"
                  " s += in[y * w + m];", "mirror101"),
    "mirror101_hi_first": ("int m = t >= w ? 2 * w - t - 2 : (t < 0 ? -t : t);"
                           " s += in[y * w + m];", "mirror101"),
    "wrap_add": ("s += in[y * w + (t + w) % w];", "wrap"),
    "wrap_double_mod": ("s += in[y * w + (t % w + w) % w];", "wrap"),
    "constant_ternary": ("s += (t >= 0 && t < w) ? in[y * w + t] : 0.0f;", "constant"),
    "constant_if_else": ("float v; if (t >= 0 && t < w) v = in[y * w + t]; else v = 0.5f;"
                         " s += v;", "constant"),
    "constant_continue": ("if (t < 0 || t >= w) continue; s += in[y * w + t];", "constant"),
    "unguarded": ("s += in[y * w + t];", "unguarded"),
    "half_guarded": ("if (t >= 0) s += in[y * w + t];", "unguarded"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_border_mode(kernel, name):
    body, mode = CASES[name]
    k = kernel(TEMPLATE.format(body=body))
    c = k.load("in")
    assert c.kind == "stencil", c.reason
    assert c.window == ((-1, 0), (0, 0), (1, 0))
    assert c.border == (mode, "none")
    if mode in ("clamp", "wrap", "constant"):
        assert c.bounds[0] == "w"


def test_vertical_mirror_in_helper(kernel):
    k = kernel("""
__device__ int mirror(int v, int n) { return v < 0 ? -v - 1 : (v >= n ? 2 * n - v - 1 : v); }
__device__ float at(const float* p, int x, int y, int w, int h) {
  return p[mirror(y, h) * w + mirror(x, w)];
}
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x >= w || y >= h) return;
  out[y * w + x] = at(in, x, y - 2, w, h) + at(in, x, y + 2, w, h);
}""")
    c = k.load("in")
    assert c.window == ((0, -2), (0, 2))
    assert c.border == ("mirror", "mirror")
    assert c.bounds == ("w", "h")


def test_mixed_modes_are_reported(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + min(x + 1, w - 1)] + in[y * w + (x - 1 + w) % w];
}""")
    assert k.load("in").border[0] == "mixed(clamp,wrap)"


def test_clamp_on_wrong_side_is_unguarded(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + min(x - 1, w - 1)];
}""")
    assert k.load("in").border[0] == "unguarded"


def test_guard_on_y_does_not_cover_next_row(kernel):
    k = kernel("""
__global__ void f(const float* in, float* out, int w, int h) {
  GX; GY;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[(y + 1) * w + x];
}""")
    assert k.load("in").border == ("none", "unguarded")
