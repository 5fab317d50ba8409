"""Kernel and host parameters declared as arrays (`double vx[]`, `const double e[4]`) are
pointers to their element, as C adjusts them: before, `T x[]` was read as a by-value
parameter that may carry pointers (every launch taking one refused), and `T x[4]` as a
by-value array, so a producer writing `e[i]` and a consumer reading it were independent
kernels (no edge, hfuse suggested for them). Now the edge energy -> relative fuses; compared
with the original under emulation, garbage-filled, at odd sizes (a grid-stride loop walked
more than once)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import _unit, call_both, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "array_params.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("arrays") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_array_parameters_are_pointers() -> None:
    unit = _unit(str(PROGRAM), PROGRAM.stat().st_mtime)
    energy = unit.function("energy")
    e = energy.params[0]
    assert (e.type, e.is_pointer, e.pointee, e.holds_pointers) == ("double *", True, "double",
                                                                   False)
    vx = energy.params[1]
    assert (vx.type, vx.is_pointer, vx.pointee_const) == ("const double *", True, True)
    host = unit.function("leapfrog")
    assert all(p.is_pointer for p in host.params[:8])


def test_producer_and_consumer_fuse(fused) -> None:
    _, result = fused
    assert [tuple(g.kernels) for g in result.groups] == [("energy", "relative")]


@pytest.mark.slow
@pytest.mark.parametrize("n", [37, 1, 70])
def test_fused_equals_original(fused, n: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(n)
    bufs = [rng.random(n + 8) * 4.0 - 2.0 for _ in range(8)]
    before, after = call_both(PROGRAM, path, "leapfrog", [*bufs, n, 2])
    names = [p.name for p in _unit(str(PROGRAM), PROGRAM.stat().st_mtime)
             .function("leapfrog").params]
    for name, a, b in zip(names[:8], before[:8], after[:8], strict=True):
        assert np.array_equal(a, b), f"n={n}: '{name}' differs"
