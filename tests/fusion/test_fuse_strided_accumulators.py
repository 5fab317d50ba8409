"""A producer that updates its element twice with rows strided by a #define, not by its
guard's bound (PolyBench correlation's `data[i * M + j] -= mean[j]; data[i * M + j] /= ...`
under `i < n && j < m`): accumulate.py reads its own element by value, y * ROW + x, so the
kernel is a loaded accumulator instead of "may store 'data' twice". The fused program is
compared with the original under emulation, every element of every buffer, at odd sizes with
garbage in every buffer; the same pair over the caller's buffer is refused (the fused kernel
would store it while other threads still load it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "strided_accumulators.cu"
ROW = 48


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("strided") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [
        ("p_strided", ("normalise", "square"))]
    why = {e.host: e.why for e in result.edges if e.refused}
    assert "'normalise' updates 'data' in place" in why["p_strided_live"]


def test_the_local_starts_from_the_strided_element(fused) -> None:
    path, _ = fused
    text = path.read_text()
    at = text[text.index("normalise_data_xy("):]
    assert "_acc0 = data[i * (ROW) + j]" in at[:at.index("\n}\n")]


@pytest.mark.slow  # (building the two emulated programs takes ~45 s on a loaded CI core)
@pytest.mark.parametrize("m,n", [(37, 19), (48, 5), (1, 3), (5, 1)])
def test_fused_equals_original(fused, m: int, n: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(m * 100 + n)
    size = ROW * n
    data = rng.random(size, dtype=np.float32) * 7.0 - 3.0
    mean = rng.random(size, dtype=np.float32) - 0.5
    sd = rng.random(size, dtype=np.float32) + 1.0
    out = rng.random(size, dtype=np.float32) * 9.0  # garbage where nothing is stored
    a, b = call_both(PROGRAM, path, "p_strided", [data, mean, sd, out, m, n])
    for k, name in enumerate(("in", "mean", "sd", "out")):
        assert np.array_equal(a[k], b[k]), f"{m}x{n}: '{name}' differs"
    # (the comparison can fail: the stored elements are not the garbage)
    assert not np.array_equal(a[3], out)
