"""Dynamic shared memory under the emulator (issue 27): a kernel that writes `extern
__shared__` memory past the size its launch gives (the third <<<>>> argument) is an error at
the launch, as the launch fails on a GPU; shared memory nothing wrote holds bytes that
follow the fill of fresh device memory, so `verify` tells an original that reads it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_runtime import PROGRAMS

from cudafuse.runtime import KernelError, load

SOURCE = str(PROGRAMS / "dynamic_shared.cu")


def test_the_launch_size_bounds_extern_shared() -> None:
    values = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    with load(SOURCE) as lib:
        lib.call("run", values, out, 256, 256)  # 64 floats a block: what it uses
        np.testing.assert_array_equal(out.reshape(4, 64), values.reshape(4, 64)[:, ::-1])
        for shared in (0, 128):
            with pytest.raises(KernelError) as info:
                lib.call("run", values, out, 256, shared)
            assert f"dynamic_shared.cu:12: kernel 'rev' wrote dynamic shared memory (extern " \
                f"__shared__) at byte {shared}, past the {shared} bytes its launch gives (the " \
                "third <<<>>> argument): on a GPU the launch fails" in str(info.value)
