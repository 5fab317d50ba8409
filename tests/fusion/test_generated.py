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
# and test_generated_mixed.py draw all five), their chains in one file: each emulated build
# costs about 1.2 s of g++ whatever it holds, so one file of the three borders' chains
# (three builds) costs some 7 CPU-s less than a file per border (nine); issue 27. `make
# test-slow` runs mirror and wrap too, a file each.
SLICE = ("clamp", "mirror101", "constant")


def _kernel_text(text: str, name: str) -> str:
    """The definition of kernel `name` in `text` (to its closing brace at column 0)."""
    start = text.index(f"__global__ void {name}(")
    return text[start:text.index("\n}\n", start)]


def check_chains(borders: tuple[str, ...], tmp_path: Path) -> None:
    """gen.chains of each border, in one file, its pipelines named `<border>_<chain>`."""
    by_border = {b: {f"{b}_{name}": stages for name, stages in chains(b).items()}
                 for b in borders}
    pipelines = {name: stages for p in by_border.values() for name, stages in p.items()}
    tag = "_".join(borders)
    src = tmp_path / f"chains_{tag}.cu"
    src.write_text(file_source(pipelines))
    # Dead intermediates with every stencil input of the last kernel in a shared-memory tile;
    # live intermediates with every producer recomputed.
    for live, tiles in ((False, "always"), (True, "never")):
        names = {name: [f"b{i + 1}" for i in range(len(stages) - 1)]
                 for name, stages in pipelines.items()}
        scratch = frozenset() if live else frozenset(b for bs in names.values() for b in bs)
        out = tmp_path / f"chains_{tag}_{'live' if live else 'scratch'}.fused.cu"
        result = _fuse(src, out, scratch, tiles)
        fused = {g.host: g.kernels for g in result.groups}
        for name, stages in pipelines.items():
            # Every generated pipeline is legal to fuse into a single kernel.
            assert len(fused.get(name, [])) == len(stages), (name, result.edges)
        text = out.read_text()
        for border, mine in by_border.items():  # each border's fused kernels stage tiles
            staged = any("__shared__" in _kernel_text(text, g.name)
                         for g in result.groups if g.host in mine)
            assert staged == (tiles == "always"), (border, tiles)
        assert ("__shared__" in text) == (tiles == "always")
        for name in pipelines:
            for w, h in SIZES:
                run_both(src, out, name, w, h,
                         skip=frozenset() if live else frozenset(names[name]))


def test_chains_fuse_completely_and_match(tmp_path: Path) -> None:
    check_chains(SLICE, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("border", [b for b in BORDERS if b not in SLICE])
def test_chains_of_more_borders(border: str, tmp_path: Path) -> None:
    check_chains((border,), tmp_path)
