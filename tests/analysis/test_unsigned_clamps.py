"""min/max on unsigned values compare wrapped values (evaluate._unwrapped): `max(x - 1, 0u)`
is x - 1, the largest unsigned value at x = 0, not a clamp at 0, and `min(max(x + d, 0),
w - 1)` with unsigned x and d = -2 is w - 1 there, not 0. Such a read is no clamped
stencil (a fused view clamping it would read another element than the original); it is
left unread, with its reason. An unsigned min whose operands cannot wrap (`min(x + 1, w -
1)`) is still the clamp it means, and the signed spellings are unchanged."""

from __future__ import annotations

from cudafuse.analysis.kernel_facts import analyze_kernel

SRC = """
__global__ void lo_unsigned(const float *in, float *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + max(x - 1, 0u)];
}
__global__ void window_unsigned(const float *in, float *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int d = -2; d <= 2; ++d) s += in[y * w + min(max(x + d, 0u), w - 1)];
  out[y * w + x] = s;
}
__global__ void hi_unsigned(const float *in, float *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + min(x + 1, w - 1)];
}
__global__ void lo_signed(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + max(x - 1, 0)];
}
"""


def _load(unit, kernel: str):
    fn = unit.function(kernel)
    assert fn is not None
    (load,) = [c for c in analyze_kernel(unit, fn).loads if c.pointer == "in"]
    return load


def test_unsigned_clamps_that_wrap_are_not_read_as_clamps(unit_of) -> None:
    unit = unit_of(SRC)
    for kernel in ("lo_unsigned", "window_unsigned"):
        load = _load(unit, kernel)
        assert load.kind == "other" and "unsigned" in load.reason, (kernel, load)
    hi = _load(unit, "hi_unsigned")
    assert hi.kind == "stencil" and hi.border[0] == "clamp" and hi.extent[0] == (1, 1)
    lo = _load(unit, "lo_signed")
    assert lo.kind == "stencil" and lo.border[0] == "clamp" and lo.extent[0] == (-1, -1)


COND = """
__global__ void cond_unsigned(const float *in, float *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  unsigned t = x - 1;
  out[y * w + x] = in[y * w + (t < 0 ? 0 : t)];
}
__global__ void cond_signed(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int t = x - 1;
  out[y * w + x] = in[y * w + (t < 0 ? 0 : t)];
}
"""


def test_unsigned_comparisons_that_wrap_are_not_integer_tests(unit_of) -> None:
    """`t < 0 ? 0 : t` with unsigned t never clamps (t < 0 never holds)."""
    unit = unit_of(COND)
    assert _load(unit, "cond_unsigned").kind == "other"
    signed = _load(unit, "cond_signed")
    assert signed.kind == "stencil" and signed.border[0] == "clamp"
