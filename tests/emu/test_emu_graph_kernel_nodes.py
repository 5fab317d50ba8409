"""Graph kernel nodes name their kernel by address (cudaKernelNodeParams::func): the instance of
a kernel template so named runs as the same launch with <<<...>>> does (emu/rewrite.py,
_kernel_addresses), and a pointer the emulator cannot name stops the run at the graph call
(runtime.cpp, node_kernel), instead of the call returning cudaErrorInvalidDeviceFunction,
which the program does not check, and the node doing nothing."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load
from cudafuse.runtime.errors import KernelError

PROGRAM = PROGRAMS / "graph_kernel_nodes.cu"


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, opt="-O0") as built:
        yield built


def _expected(x: np.ndarray, radius: int) -> np.ndarray:
    """run()'s pipeline in numpy, in float32 and in the kernels' order of summation."""
    n = len(x)
    a = x * np.float32(2)
    acc = np.zeros(n, np.float32)
    for d in range(-radius, radius + 1):
        acc = acc + a[np.clip(np.arange(n) + d, 0, n - 1)]
    b = acc / np.float32(2 * radius + 1)
    return b * b + np.float32(-1)


@pytest.mark.parametrize("n", [1, 63, 200])
def test_a_graph_of_template_instances_matches_the_chevron_launches(lib, n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    outs = {mode: (np.zeros(n, np.float32), np.zeros(n, np.float32)) for mode in (0, 1)}
    for mode, (out1, out2) in outs.items():
        lib.call("run", x, out1, out2, n, mode)
    np.testing.assert_allclose(outs[0][0], _expected(x, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[0][1], _expected(x, 2), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    np.testing.assert_array_equal(outs[1][1], outs[0][1])


def _line(text: str) -> int:
    return next(i for i, s in enumerate(PROGRAM.read_text().splitlines(), 1) if text in s)


@pytest.mark.parametrize(("where", "call", "text", "symbol"), [
    (0, "cudaGraphAddKernelNode", "CUDA_TRY(cudaGraphAddKernelNode(&node",
     "void box<3>(float const*, float*, int)"),
    # A static host function has no dynamic symbol: the address alone.
    (1, "cudaGraphExecKernelNodeSetParams", "if (where == 1) cudaGraphExecKernelNodeSetParams",
     None),
])
def test_an_unknown_node_function_stops_at_its_graph_call(lib, where, call, text, symbol):
    x = np.zeros(8, np.float32)
    with pytest.raises(KernelError) as err:
        lib.call("run_unknown", x, 8, where)
    message = str(err.value)
    assert f"graph_kernel_nodes.cu:{_line(text)}: {call} with '&p'" in message
    assert "cannot tell which kernel the node's function pointer names (0x" in message
    assert (f", symbol '{symbol}')" in message) if symbol else ", symbol" not in message
