"""The polynomial/predicate core that the fusion pass reuses."""

from __future__ import annotations

from cudafuse.analysis.access import shape_of
from cudafuse.analysis.evaluate import Evaluator
from cudafuse.analysis.symbolic import (
    ONE,
    Atom,
    Poly,
    Pred,
    builtin,
    compare,
    coord,
    to_coords,
)

W = Poly.atom(Atom("param", "w"))


def gx(order: int) -> Poly:
    t, b, d = (Poly.atom(builtin(n, "x")) for n in ("threadIdx", "blockIdx", "blockDim"))
    return [b * d + t, t + d * b, (d * b) + t][order]


def test_poly_arithmetic_is_canonical():
    a = (W + ONE) * (W - ONE)
    assert a == W * W - ONE
    assert str(a) == "-1 + w*w"
    assert (a - a).is_const and (a - a).const_value == 0
    assert hash(W * W - ONE) == hash(a)


def test_to_coords_any_order_and_scaled():
    for i in range(3):
        assert to_coords(gx(i)) == Poly.atom(coord("x"))
        assert to_coords(gx(i) * W + Poly.const(3)) == Poly.atom(coord("x")) * W + Poly.const(3)
    lone = Poly.atom(builtin("threadIdx", "x"))
    assert to_coords(lone) == lone  # block-local index: not a global coordinate


def test_predicates_normalise_and_negate():
    x = Poly.atom(coord("x"))
    assert compare("<", x, W) == compare("<=", x, W - ONE) == Pred("ge", W - x - ONE)
    assert compare(">=", x, W).negate() == compare("<", x, W)
    both = Pred("or", parts=(compare("<", x, Poly.const(0)), compare(">=", x, W)))
    assert both.negate().conjuncts() == [compare(">=", x, Poly.const(0)), compare("<", x, W)]


def test_evaluator_value_and_shape(unit_of):
    unit = unit_of("""
__global__ void f(const float* in, float* out, int w) {
  GX; GY;
  out[y * w + x] = in[(y + 1) * w + x - 2];
}""")
    ev = Evaluator(unit)
    accesses = ev.run(unit.kernels[0])
    load = next(a for a in accesses if a.mode == "load")
    shape = shape_of(load.index, load.path)
    assert [(d.dim, d.offset, d.stride) for d in shape.dims] == [("x", -2, "1"), ("y", 1, "w")]
    assert str(to_coords(load.index)) == "-2 + X + w + Y*w"


def test_file_scope_dynamic_shared(kernel):
    k = kernel("""
extern __shared__ float smem[];
__global__ void f(const float* in, float* out, int n) {
  GX;
  smem[threadIdx.x] = in[x];
  __syncthreads();
  out[x] = smem[threadIdx.x ^ 1];
}""")
    assert [(s.name, s.dynamic) for s in k.shared] == [("smem", True)]
    assert k.load("in").kind == "point"  # its own element, whatever it exchanges
