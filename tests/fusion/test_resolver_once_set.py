"""A kernel's integer local is read as its initialiser (host/resolver.py `_once_set`) only
when nothing may change it: not when a reference is bound to it or a call is handed it
(whose parameter may be a reference)."""

from __future__ import annotations

from pathlib import Path

from cudafuse.frontend.parse import parse_file
from cudafuse.passes.vertical.host.resolver import _once_set

SOURCE = r"""
__device__ void halve(int &x) { x /= 2; }
__global__ void k(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int plain = n * 2;
  int bound = n;
  int &r = bound;
  r = n / 2;
  int handed = n;
  halve(handed);
  if (i < plain && i < bound && i < handed) out[i] = 1.0f;
}
"""


def test_locals_a_reference_or_a_call_may_change_are_not_once_set(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(SOURCE)
    kernel = next(f for f in parse_file(str(src)).unit.functions if f.name == "k")
    names = {d.split("@")[0] for d in _once_set(kernel.body)}
    assert "plain" in names and "i" in names
    assert "bound" not in names and "handed" not in names
