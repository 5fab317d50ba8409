"""Producers that keep their guard (domain.keeps_guard) read where the plain rules asked for
one shape: a producer read by a consumer of the other dimension over another domain (a 2-D
interior stencil after a 1-D mask, a 1-D producer over fewer elements than the image, a 1-D
kernel over fewer elements than a 2-D stage: each flat index read is recomputed where the
producer wrote it and read from memory elsewhere, legality._flat_read_exact), and an
interior stencil read by a last kernel that stores no element of its own (its views take
its guard's width as the row stride, legality._view_width). Every element compared with the
original under emulation, every buffer pre-filled with garbage, at odd sizes and degenerate
ones (make test-slow); the default suite checks what fuses and the emitted fallback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import _unit, call_both, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "kept_guard_readers.cu"
SIZES = ((19, 37), (1, 23), (23, 1), (2, 2), (3, 5))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object]]:
    d = tmp_path_factory.mktemp("flat")
    out = {}
    for name, scratch in (("live", frozenset()), ("scratch", frozenset({"mask", "out", "t"}))):
        path = d / f"{name}.cu"
        out[name] = (path, fuse_file(PROGRAM, path, scratch=scratch, fuse_all=True))
    return out


def test_what_fuses(fused) -> None:
    assert sorted((g.host, tuple(g.kernels)) for g in fused["scratch"][1].groups) == [
        ("p_flat2", ("shift2", "plus1")), ("p_mask", ("get_mask", "region")),
        ("p_minmax", ("conv_interior", "min_max")), ("p_short", ("get_mask", "region"))]
    # Still stored, the mask would have to be written by the interior's threads alone, and
    # the stencil's output before a store of min_max's own, which it has none of.
    assert not fused["live"][1].groups
    why = {e.host: e.why for e in fused["live"][1].edges if e.refused}
    assert "'min_max' has no store at its own element before which the group's " \
        "intermediates could be stored" in why["p_minmax"]
    assert "'get_mask' and 'region' do not provably have the same iteration space (a 1-D " \
        "kernel's bound must be the 2-D one's width times height" in why["p_mask"]
    assert "'shift2' and 'plus1' do not provably have the same iteration space" in \
        why["p_flat2"]
    # The mask's value function keeps its guard: memory past `size`.
    assert "if (id >= size) return mask[id];" in fused["scratch"][0].read_text()


@pytest.mark.slow  # (two emulated builds: about 15 s on an idle core)
@pytest.mark.parametrize("mode, entry", [("scratch", "p_mask"), ("scratch", "p_short"),
                                         ("scratch", "p_minmax"), ("scratch", "p_flat2")])
def test_every_element_matches(fused, mode: str, entry: str) -> None:
    path = fused[mode][0]
    fn = _unit(str(PROGRAM), PROGRAM.stat().st_mtime).function(entry)
    assert fn is not None
    skip = {"mask", "out", "t"} if mode == "scratch" else set()
    for rows, cols in SIZES:
        rng = np.random.default_rng(rows * 100 + cols)
        if entry == "p_minmax":
            args: list[object] = [rng.integers(-50, 50, rows * cols, dtype=np.int32),
                                  rng.integers(-9, 9, rows * cols, dtype=np.int32),
                                  np.array([1 << 30], dtype=np.int32),
                                  np.array([-(1 << 30)], dtype=np.int32)]
        else:
            args = [rng.random(rows * cols, dtype=np.float32) * 1.2 - 0.1]
            args += [rng.random(rows * cols, dtype=np.float32) * 9.0 - 4.0 for _ in range(3)]
        args += [rows, cols]
        a, b = call_both(PROGRAM, path, entry, args)
        for p, x, y in zip(fn.params, a, b, strict=True):
            if p.is_pointer and p.name not in skip:
                assert np.array_equal(x, y), f"{entry} {rows}x{cols}: '{p.name}' differs"
