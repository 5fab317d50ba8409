"""extern __shared__ inside member functions, namespaced helpers, macros and at namespace
scope builds and runs on the emulator (it read `extern static` in member functions, which g++
rejects as conflicting specifiers), against numpy references."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

N = 1000


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "extern_shared.cu", opt="-O1") as lib:
        yield lib


def _blocks_reversed(x: np.ndarray, b: int, fill: float) -> np.ndarray:
    padded = np.concatenate([x, np.full(-len(x) % b, fill, x.dtype)])
    return padded.reshape(-1, b)[:, ::-1].reshape(-1)[:len(x)]


@pytest.mark.parametrize("host,dtype,block", [("reverse_f", np.float32, 128),
                                              ("reverse_d", np.float64, 64)])
def test_shared_memory_class_template(lib, host: str, dtype: type, block: int) -> None:
    x = np.random.default_rng(3).random(N).astype(dtype)
    out = np.zeros(N, dtype)
    lib.call(host, x, out, N)
    assert np.array_equal(out, _blocks_reversed(x, block, 0))


def _rotated(x: np.ndarray, b: int, k: int) -> np.ndarray:
    padded = np.concatenate([x, np.zeros(-len(x) % b, x.dtype)]).reshape(-1, b)
    return np.roll(padded, -k, axis=1).reshape(-1)[:len(x)]


@pytest.mark.parametrize("kernel,k", [("rotate_member", 1), ("rotate_macro", 2)])
def test_member_and_macro(lib, kernel: str, k: int) -> None:
    x = np.random.default_rng(4).integers(-99, 99, N, dtype=np.int32)
    out = np.zeros(N, np.int32)
    lib.launch(kernel, (N + 95) // 96, 96, 96 * 4, (x, out, N))
    assert np.array_equal(out, _rotated(x, 96, k))


def test_namespace_scope(lib) -> None:
    x = np.random.default_rng(5).random(N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    lib.launch("scale_namespace_scope", (N + 127) // 128, 128, 128 * 4, (x, out, N))
    assert np.array_equal(out, 2 * _blocks_reversed(x, 128, 0))
