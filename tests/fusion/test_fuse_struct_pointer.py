"""Buffers in a struct the host function is given a pointer to (`Layer *l`: l->w, l->act),
and an error check that resets the device and ends the process on failure (`cudaDeviceReset();
exit(1);` in a CHECK macro after every launch), as ML layers written from scratch have them
(Infatoshi/mnist-cuda's forward/backward, issue 25): before, each `l->f` argument was no
plain buffer variable and each check's cudaDeviceReset split the sequence. Now
layer_forward's three kernels fuse and match the original under emulation (garbage-filled
buffers, odd sizes); a function that passes the struct to a call, writes a member through
another pointer, or resets the device and returns, still keeps its launches apart, with why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file

from cudafuse.frontend.parse import parse_file
from cudafuse.passes.vertical.host.process_end import releases_before_exit

PROGRAM = Path(__file__).parent / "programs" / "struct_pointer_chain.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("structptr") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [
        ("layer_forward", ("scale_bias", "leaky", "residual"))]


def test_why_the_others_do_not(fused) -> None:
    _, result = fused
    why = {(la.host, la.kernel): la.why for la in result.launches}
    for host in ("layer_retargeted", "layer_aliased"):
        assert why[(host, "leaky")].startswith("the struct carrying pointer 'l->act'"), host
    breaks = [b[3] for b in result.breaks if b[0] == "layer_reset_returns"]
    assert breaks and all(b.endswith("its call to 'cudaDeviceReset' may touch device memory "
                                     "or variables") for b in breaks)


def test_only_resets_before_exit_are_released() -> None:
    unit = parse_file(str(PROGRAM)).unit
    counts = {f.name: len(releases_before_exit(f.body)) for f in unit.functions
              if f.body is not None and f.space == "host"}
    assert counts["layer_forward"] == 3  # one per CHECK
    assert counts["layer_reset_returns"] == 0  # a return leaves the block


@pytest.mark.slow
@pytest.mark.parametrize("n", [300, 1, 129])
def test_fused_equals_original(fused, n: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(n)
    bufs = [(rng.random(n + 16, dtype=np.float32) * 4.0 - 2.0) for _ in range(6)]
    before, after = call_both(PROGRAM, path, "run_layer", [*bufs, n])
    for name, a, b in zip(("w", "b", "act", "tmp", "x", "y"), before, after, strict=False):
        assert np.array_equal(a, b), f"n={n}: '{name}' differs"
