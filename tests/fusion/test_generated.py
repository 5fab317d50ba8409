"""Differential tests of vertical fusion on generated pipelines: every border mode across
point->stencil, stencil->point and stencil->stencil chains of depth 1-3, shared inputs,
multi-input stages, intermediates that stay live, producers recomputed and staged in
shared-memory tiles."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import run_both
from gen import BORDERS, chains, file_source

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit

SIZES = [(11, 7), (4, 3)]


def _fuse(src: Path, out: Path, scratch: frozenset[str], tiles: str):
    unit = parse_file(str(src)).unit
    result = fuse_unit(unit, FuseOptions(scratch=scratch, fuse_all=True, tiles=tiles))
    out.write_bytes(result.output)
    return result


# `make test` runs three border modes here (the generated batches of test_generated_styles.py
# and test_generated_mixed.py draw all five); `make test-slow` mirror and wrap too.
SLICE = ("clamp", "mirror101", "constant")


@pytest.mark.parametrize("border", [b if b in SLICE else pytest.param(b, marks=pytest.mark.slow)
                                    for b in BORDERS])
def test_chains_fuse_completely_and_match(border: str, tmp_path: Path) -> None:
    pipelines = chains(border)
    src = tmp_path / f"chains_{border}.cu"
    src.write_text(file_source(pipelines))
    # Dead intermediates with every stencil input of the last kernel in a shared-memory tile;
    # live intermediates with every producer recomputed.
    for live, tiles in ((False, "always"), (True, "never")):
        names = {name: [f"b{i + 1}" for i in range(len(stages) - 1)]
                 for name, stages in pipelines.items()}
        scratch = frozenset() if live else frozenset(b for bs in names.values() for b in bs)
        out = tmp_path / f"chains_{border}_{'live' if live else 'scratch'}.fused.cu"
        result = _fuse(src, out, scratch, tiles)
        fused = {g.host: g.kernels for g in result.groups}
        for name, stages in pipelines.items():
            # Every generated pipeline is legal to fuse into a single kernel.
            assert len(fused.get(name, [])) == len(stages), (name, result.edges)
        assert ("__shared__" in out.read_text()) == (tiles == "always")
        for name in pipelines:
            for w, h in SIZES:
                run_both(src, out, name, w, h,
                         skip=frozenset() if live else frozenset(names[name]))
