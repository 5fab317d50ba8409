"""Default arguments of host functions: a call (from Python or a spec) may leave trailing
parameters out, and the function's own defaults are passed (issue 31)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import load
from cudafuse.runtime.convert import ArgumentError
from cudafuse.runtime.spec import ArgSpec, Spec
from cudafuse.runtime.spec_bind import bind
from cudafuse.runtime.trampoline import Signature


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "host_defaults.cu", opt="-O0") as lib:
        yield lib


def test_trailing_arguments_take_the_functions_defaults(lib):
    assert lib.signatures["clamp_to"].required == 1  # the default of the prototype
    assert lib.call("clamp_to", 300) == 255
    assert lib.call("clamp_to", 300, 100) == 100
    out = np.zeros(100, np.float32)
    lib.call("fill", out, 100)  # value = 2.5f, block = 64
    np.testing.assert_array_equal(out, np.full(100, 2.5, np.float32))
    lib.call("fill", out, 100, 1.0)  # block = 64
    np.testing.assert_array_equal(out, np.ones(100, np.float32))
    assert lib.signatures["fill"].required == 2


def test_a_call_cpp_would_find_ambiguous_is_not_offered(lib):
    # round(x) alone would be ambiguous with libm's round(double): both arguments needed
    assert lib.signatures["round"].required == 2
    assert lib.call("round", 1.55, 1) == 15.0
    with pytest.raises(ArgumentError, match=r"round\(\) takes 2 arguments"):
        lib.call("round", 1.5)


def test_an_overloads_default_is_its_own(lib):
    assert lib.call("scale(int, int)", 3) == 30
    assert lib.call("scale(float)", 3.0) == 1.5
    with pytest.raises(ArgumentError, match=r"takes 1 to 2 arguments"):
        lib.call("scale(int, int)")


def _spec(*names: str) -> Spec:
    return Spec(entry="fill", args=[ArgSpec(name=n, named=True, value=1) for n in names],
                path="s.toml")


def test_a_spec_may_leave_out_the_parameters_with_defaults():
    sig = Signature("host", "fill", "v", ("pf4", "i4", "f4", "i4"),
                    ("out", "n", "value", "block"), required=2)
    assert bind(_spec("n", "out"), sig) == [1, 0]
    assert bind(_spec("out", "n", "value"), sig) == [0, 1, 2]
    with pytest.raises(CudafuseError, match="no \\[\\[args\\]\\] table for parameter 'n'"):
        bind(_spec("out"), sig)
    with pytest.raises(CudafuseError, match="'value'"):  # a gap before a given one
        bind(_spec("out", "n", "block"), sig)
