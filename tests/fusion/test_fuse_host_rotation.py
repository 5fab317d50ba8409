"""Pointer variables rotated between launches (issue 25, host code by meaning:
passes/vertical/host/pointervalues.py evaluates the host function in order, so each launch
argument is known by the buffer it holds there, not by its variable). Every pipeline of
programs/host_rotation.cu fuses across its exchanges (std::swap, by hand, helpers taking
pointers by address or by reference), copies after a declaration, an if/else choice, a time
loop's swap and a helper that allocates and fills a buffer through its address, the fused
launch naming each buffer by the variable holding it there; each matches the original under
emulation, every byte of every buffer, at odd sizes on garbage. What cannot be known stays
unfused, saying why at the launch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file, fuse_with_api

PROGRAM = Path(__file__).parent / "programs" / "host_rotation.cu"
GROUPS = {
    "hr_std_swap": ("hr_ka", "hr_kb"),
    "hr_triple": ("hr_ka", "hr_kb", "hr_kc"),
    "hr_helpers": ("hr_ka", "hr_kb", "hr_kc", "hr_kc"),
    "hr_assigned": ("hr_ka", "hr_kb", "hr_kc"),
    "hr_select": ("hr_ka", "hr_kb"),
    "hr_loop": ("hr_ka", "hr_kb"),
    "hr_point_at": ("hr_ka", "hr_kb"),
    "hr_stale": ("hr_ka", "hr_kb", "hr_kc"),
    "hr_alloc_fill": ("hr_ka", "hr_kb"),
    "hr_alloc_ref": ("hr_ka", "hr_kb"),
}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("hr"))


def test_every_pipeline_fuses_across_its_rotation(fused) -> None:
    _, api = fused
    groups = {g.host: tuple(g.kernels) for g in api.result.groups}
    assert groups == GROUPS


def test_siblings_across_an_exchange(fused) -> None:
    out, api = fused
    pairs = [(s.first, s.second) for p in api.result.plans for s in p.siblings
             if s.fused and s.host == "hr_siblings"]
    assert pairs == [("hr_ka", "hr_kc")]
    body = out.read_text().split("void hr_siblings(")[1].split("\n}\n")[0]
    assert "std::swap(a, c);" in body and body.count("<<<") == 1


def test_fused_launch_names_buffers_where_it_stands(fused) -> None:
    out, _ = fused
    text = out.read_text()

    def body(name: str) -> str:
        return text.split(f"void {name}(")[1].split("\n}\n")[0]

    # After std::swap(a, b), the producer's input is still `in` and its output, the
    # consumer's input, is called b; the exchange stays where it was.
    swap = body("hr_std_swap")
    assert "std::swap(a, b);\n  cf_hr_std_swap_fused0<<<" in swap
    assert swap.split("cf_hr_std_swap_fused0<<<")[1].split(";")[0].endswith(
        "(aux, out, n, in, b)")
    # In the loop, the producer read `a` before the exchange: `b` at the fused launch (tmp,
    # written first by each iteration, is no longer stored).
    loop = re.split(r"cf_hr_loop_fused\d+<<<", body("hr_loop"))[1].split(";")[0]
    assert loop.endswith("(aux, a, n, b)")


@pytest.mark.parametrize("entry", sorted(GROUPS) + ["hr_siblings"])
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for n in (1, 37, 130):
        compare_entry(PROGRAM, out, entry, {"n": n, "flip": n % 2, "steps": n % 4},
                      seed=n)
    if entry == "hr_select":
        compare_entry(PROGRAM, out, entry, {"n": 37, "flip": 0, "steps": 0}, seed=5)


REFUSED = r"""
#include <cuda_runtime.h>
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
float *pick(float *x, float *y, int n);
// p is a call's result: any buffer.
void unknown(const float *in, float *out, float *tmp, int n) {
  float *p;
  p = pick(tmp, out, n);
  ka<<<(n + 63) / 64, 64>>>(in, p, n);
  kb<<<(n + 63) / 64, 64>>>(p, out, n);
}
// p may be out: the launches cannot be keyed apart.
void maybe_same(const float *in, float *out, float *tmp, int n) {
  float *p;
  p = (n & 1) ? out : tmp;
  ka<<<(n + 63) / 64, 64>>>(in, p, n);
  kb<<<(n + 63) / 64, 64>>>(p, out, n);
}
// a is moved by an offset between the launches: not the same buffer element for element.
void offset(const float *in, float *out, int n) {
  float *a;
  cudaMalloc(&a, 2 * n * sizeof(float));
  ka<<<(n + 63) / 64, 64>>>(in, a, n);
  a += 1;
  kb<<<(n + 63) / 64, 64>>>(a, out, n);
}
// a is bound to a reference that moves it to y: ka writes y, which kb reads.
void by_reference(const float *in, float *out, float *x, float *y, int n) {
  float *a = x;
  float *&r = a;
  r = y;
  ka<<<(n + 63) / 64, 64>>>(in, a, n);
  kb<<<(n + 63) / 64, 64>>>(y, out, n);
}
"""


def test_what_cannot_be_known_stays_unfused(tmp_path: Path) -> None:
    src = tmp_path / "refused.cu"
    src.write_text(REFUSED)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert result.groups == []
    why = {(la.host, la.index): la.why for la in result.launches}
    assert why[("unknown", 0)].startswith(
        "pointer 'p' may name any buffer at this launch (a value cudafuse does not follow "
        "at line 15)")
    edges = {(e.host, e.src, e.dst): e.why for e in result.edges if not e.fused}
    assert "maybe_same" not in {h for h, _, _ in edges} or any(
        "may name the same buffer" in w for (h, _, _), w in edges.items() if h == "maybe_same")
    lone = {la.host: la.why for la in result.launches if la.sequence is None}
    assert "may name the same buffer as 'out'" in lone["maybe_same"], lone
    assert "'a' is moved by an offset at line 31" in why[("offset", 1)] or \
        "it assigns 'a'" in lone["offset"], lone
    # (not keyed as x, which would let ka and kb run as independent siblings)
    assert why[("by_reference", 0)] == (
        "pointer 'a' may be changed through a reference, a kept address or a lambda")
    assert not [s for p in result.plans for s in p.siblings if s.fused]
