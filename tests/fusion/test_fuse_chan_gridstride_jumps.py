"""A break or continue inside a grid-stride loop's body that belongs to a loop nested in it
(or a break of a switch there) does not leave the grid-stride loop's iteration: the body at an
element still runs to its end, so the kernel is a producer like any other (issue 25: PCampi's
n-body compute_a skips the body itself with `if (tid == j) continue;` in its all-pairs loop).
Each fused program is compared with the original under the emulator, every byte of every
buffer, garbage-filled, at odd sizes; a jump of the grid-stride loop itself is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.recognise import build_view

# Two spellings: a for-form grid-stride loop whose inner for loop skips the thread's own
# element with continue; a while-form one whose inner do-while leaves with break and whose
# body picks a term with a switch (its breaks the switch's).
PROGRAM = r"""
__global__ void pair_sum(const float *x, float *a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
      if (j == i) continue;
      s += x[j] * x[i];
    }
    a[i] = s;
  }
}

__global__ void near_terms(const float *x, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    float s = x[i];
    int j = 0;
    do {
      if (j >= n) break;
      switch (j % 3) {
        case 0: s += x[j]; break;
        case 1: s -= x[j] * x[i]; break;
        default: break;
      }
      j++;
    } while (j < 9);
    c[i] = s;
    i += blockDim.x * gridDim.x;
  }
}

__global__ void combine(const float *a, const float *c, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    b[i] = a[i] * 0.5f + c[i];
    i += blockDim.x * gridDim.x;
  }
}

void pairs(const float *x, float *a, float *c, float *b, int n) {
  pair_sum<<<2, 32>>>(x, a, n);
  near_terms<<<1, 64>>>(x, c, n);
  combine<<<3, 32>>>(a, c, b, n);
}
"""


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("jumps")
    src, out = folder / "pairs.cu", folder / "pairs.fused.cu"
    src.write_text(PROGRAM)
    result = fuse_file(src, out, fuse_all=True)
    assert [sorted(g.kernels) for g in result.groups] == [
        ["combine", "near_terms", "pair_sum"]]
    return src, out


def test_inner_jumps_fuse(fused: tuple[Path, Path]) -> None:
    assert "cudafuse: pair_sum fused into" in fused[1].read_text()


@pytest.mark.slow
def test_inner_jumps_match(fused: tuple[Path, Path]) -> None:
    """(slow: 15 s, two emulator builds; shared 2-core VM, 2026-11-29)"""
    for n in (37, 1, 131):
        compare_entry(*fused, "pairs", {"n": n})


KERNEL = r"""
__global__ void k(const float *in, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float s = in[i];
    %s
    out[i] = s;
  }
}
"""


@pytest.mark.parametrize(("body", "why"), [
    # the grid-stride loop's own continue and break: the store is skipped at some elements
    ("for (int j = 0; j < 4; j++) s += in[j]; if (s < 0.0f) continue;", "break or continue"),
    ("if (s > 2.0f) { for (int j = 0; j < 4; j++) s -= in[j]; break; }", "break or continue"),
    # a continue inside a switch is the enclosing loop's: here the grid-stride loop's
    ("switch (n & 3) { case 1: continue; default: s += 1.0f; }", "break or continue"),
    # the nested loops' and the switch's own jumps
    ("for (int j = 0; j < n; j++) { if (j == i) continue; if (j > 8) break; s += in[j]; }",
     None),
    ("int j = 0; while (true) { if (++j > 3) break; s *= 0.5f; }", None),
    ("switch (n & 3) { case 1: s += 2.0f; break; default: break; }", None),
])
def test_which_loop_a_jump_leaves(tmp_path: Path, body: str, why: str | None) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL % body)
    fn = parse_file(str(src)).unit.function("k")
    assert fn is not None
    view = build_view(fn)
    assert view.grid_stride
    if why is None:
        assert view.producer_reason is None, view.producer_reason
    else:
        assert view.producer_reason is not None and why in view.producer_reason, \
            view.producer_reason
