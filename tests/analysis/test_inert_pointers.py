"""Pointer variables whose values only move between each other (evaluate.inert_pointers):
a kernel that swaps its own copies of two pointers (`temp = lhs; lhs = rhs; rhs = temp;`,
cs344 course code launched as `swap<<<1, 1>>>(a, b)`) touches no memory, so its launch is
no producer or consumer of either buffer. As soon as one of the variables is used (indexed,
passed, computed with), the others it may hold are reached: the assignment is an escape
again (read and written), as before."""

from __future__ import annotations

from cudafuse.analysis.evaluate import Evaluator, inert_pointers


def _accesses(unit, kernel: str) -> dict[str, set[str]]:
    fn = unit.function(kernel)
    assert fn is not None
    out: dict[str, set[str]] = {}
    for a in Evaluator(unit).run(fn):
        out.setdefault(a.name, set()).add(a.mode)
    return out


SRC = """
__global__ void swap(const float *lhs, const float *rhs) {
  const float *temp;
  temp = lhs;
  lhs = rhs;
  rhs = temp;
}
__global__ void swap_used(float *a, float *b, int n) {
  float *t = a;
  a = b;
  b = t;
  GX;
  if (x < n) b[x] = 1.0f;
}
__global__ void moved_then_read(const float *a, const float *b, float *out, int n) {
  const float *p = a;
  p = b;
  GX;
  if (x < n) out[x] = p[x];
}
"""


def test_a_swap_of_pointer_copies_touches_nothing(unit_of) -> None:
    unit = unit_of(SRC)
    fn = unit.function("swap")
    assert fn is not None and {p.decl for p in fn.params} <= inert_pointers(fn)
    assert _accesses(unit, "swap") == {}


def test_a_used_copy_still_reaches_what_it_may_hold(unit_of) -> None:
    unit = unit_of(SRC)
    used = _accesses(unit, "swap_used")
    # b[x] = 1 stores into what was a: a's buffer escapes (read+written) at the move
    assert "escape" in used.get("a", set()) and inert_pointers(unit.function("swap_used")) \
        == frozenset()
    read = _accesses(unit, "moved_then_read")
    assert "escape" in read.get("b", set()), read
