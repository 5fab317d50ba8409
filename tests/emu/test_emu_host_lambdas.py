"""Lambdas and deduced templates in host code run under the emulator (issue 31): a device
lambda passed to a template kernel by a host template, an rvalue-reference parameter, a
generic host lambda."""

from __future__ import annotations

import numpy as np
from conftest_emu import PROGRAMS

from cudafuse.runtime import load


def test_lambdas_templates_and_rvalue_references() -> None:
    n = 77
    x = np.arange(n, dtype=np.float32) * np.float32(0.5)
    out = np.zeros(n, np.float32)
    with load(PROGRAMS / "host_lambdas.cu", opt="-O0") as lib:
        lib.call("scale_by", out, x, n, 3.0)
        assert lib.call("plus_one", 2.5) == 3.5
        v = np.array([1, 5, 9, 2, 7], np.int32)
        assert lib.call("count_above", v, 5, 4) == 3
    np.testing.assert_array_equal(out, x * np.float32(3.0) + np.float32(1.0))
