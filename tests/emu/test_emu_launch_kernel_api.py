"""cudaLaunchKernel, cudaLaunchCooperativeKernel and cudaLaunchKernelEx(C) run the kernel
their address names, a kernel template's instance too (emu/rewrite.py, _kernel_addresses;
cudafuse_emu_launch.h, registered and api_site), and a pointer the emulator cannot name
stops the run at its call."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load
from cudafuse.runtime.errors import KernelError

PROGRAM = PROGRAMS / "launch_kernel_api.cu"


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, opt="-O0") as built:
        yield built


def _expected(x: np.ndarray) -> np.ndarray:
    """The pipeline of run(), in numpy: what the <<<...>>> launches compute."""
    n = len(x)
    y = ((x * 3 + 1) - np.float32(0.5)) / np.float32(2)
    y = y * -1 * -1
    return y + 1 if n % 2 else y * 5  # steps[n % 2]


@pytest.mark.parametrize("n", [1, 64, 97, 130])
def test_runtime_api_launches_match_chevron_launches(lib, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    chevrons, api, ex = x.copy(), x.copy(), x.copy()
    lib.call("run", chevrons, n, 0)
    lib.call("run", api, n, 1)
    lib.call("run", ex, n, 2)
    np.testing.assert_allclose(chevrons, _expected(x), rtol=1e-6)
    np.testing.assert_array_equal(api, chevrons)
    np.testing.assert_array_equal(ex, chevrons)


def test_a_pointer_the_emulator_cannot_name_stops_at_its_call(lib):
    x = np.zeros(8, np.float32)
    with pytest.raises(KernelError) as err:
        lib.call("run_unknown", x, 8)
    line = next(i for i, text in enumerate(PROGRAM.read_text().splitlines(), 1)
                if "table[0]" in text)
    assert f"launch_kernel_api.cu:{line}: cudaLaunchKernel of '(const void *)table[0]'" \
        in str(err.value)
    assert "cannot tell which kernel this pointer names" in str(err.value)
