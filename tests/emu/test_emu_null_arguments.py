"""NULL and a literal 0 passed to a kernel's pointer parameters build and run under the
emulator as under nvcc (the launch forwards its arguments generically, which turned them
into integers: emu/rewrite.py casts them to the parameter's type)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import KernelError, load


def test_null_pointer_constants_reach_pointer_parameters() -> None:
    n = 45
    rng = np.random.default_rng(3)
    x = rng.random(n, dtype=np.float32)
    mask = (np.arange(n) % 3 != 0).astype(np.int32)
    outs = [np.full(n, -1.0, np.float32) for _ in range(5)]
    with load(PROGRAMS / "null_args.cu", opt="-O1") as lib:
        lib.call("run_nulls", x, mask, *outs, n)
    a, b, c, d, e = outs
    np.testing.assert_array_equal(a, np.full(n, 2.0, np.float32))
    np.testing.assert_array_equal(b, x * np.float32(3.0))
    np.testing.assert_array_equal(c, np.where(mask != 0, x * np.float32(4.0), -1.0))
    np.testing.assert_array_equal(d, np.full(n, 5.0, np.float32))
    np.testing.assert_array_equal(e, np.full(n, 7.0, np.float32))


def test_trap_stops_the_run_with_a_message() -> None:
    x = np.ones(40, np.float32)
    with load(PROGRAMS / "null_args.cu", opt="-O1") as lib:
        lib.launch("check_positive", 2, 32, 0, (x, 40))  # no trap: runs through
        x[17] = -1.0
        with pytest.raises(KernelError, match=r"a kernel called __trap\(\)"):
            lib.launch("check_positive", 2, 32, 0, (x, 40))


def test_null_constants_in_a_launch_of_a_header() -> None:
    n = 40
    x = np.arange(n, dtype=np.float32)
    out, sums = np.zeros(n, np.float32), np.full(1, -1.0, np.float32)
    with load(PROGRAMS / "header_launch" / "main.cu", opt="-O0") as lib:
        lib.call("run_add_all", out, x, sums, n)
    np.testing.assert_array_equal(out, x + np.float32(1.0))
    assert sums[0] == 0.0  # written by the second launch only, before the third adds 1
