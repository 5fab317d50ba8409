"""Every sample pipeline, fused by the cost model and with --fuse-all, intermediates live and
dead, equals the original on every output element under emulation (odd sizes, so partial
blocks and every border are exercised): `make test` a slice of the pairs of sample and
variant (SLICE), `make test-slow` every one."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

from cudafuse.frontend import parse_file

SAMPLES = Path(__file__).parents[2] / "samples"
NAMES = ["harris", "shitomasi", "sobel", "unsharp", "enhance", "night", "blur", "canny"]
# Sizes that leave partial blocks in both dimensions; blur's mirror-101 needs 3+ pixels.
SIZES = [(37, 23), (5, 3)]


def _intermediates(path: Path, entry: str) -> frozenset[str]:
    fn = parse_file(str(path)).unit.function(entry)
    assert fn is not None
    return frozenset(p.name for p in fn.params
                     if p.is_pointer and not p.pointee_const and p.name != "out")


VARIANTS = ("model", "all-scratch-tiles", "model-scratch-recompute")
# `make test` runs the (sample, variant) pairs below; `make test-slow` every pair (each costs
# an emulated build of the fused file; every sample is also fused with --fuse-all and
# compared in test_fuse_block.py's test_samples_with_another_block). Harris, the deepest
# pipeline (clamp and constant borders, live and dead intermediates), runs every variant;
# unsharp's clamped stencils between min/max stages as the cost model groups them with its
# intermediates live; canny's with --fuse-all and staged tiles; blur's mirror border with
# --fuse-all (a tile --tiles always cannot stage, its run-time stride: recomputed, and said).
# The cost model fuses nothing in blur and canny: their other variants compare the original
# with itself (issue 27).
SLICE = {("harris", v) for v in VARIANTS} | {
    ("unsharp", "model"), ("canny", "all-scratch-tiles"), ("blur", "all-scratch-tiles")}


@pytest.mark.parametrize("name,label", [
    pytest.param(n, v, id=f"{n}-{v}", marks=() if (n, v) in SLICE else pytest.mark.slow)
    for n in NAMES for v in VARIANTS])
def test_sample_fused_equals_original(name: str, label: str, tmp_path: Path) -> None:
    src = SAMPLES / f"{name}.cu"
    entry = f"{name}_pipeline"
    scratch = _intermediates(src, entry)
    kw = {
        "model": dict(scratch=frozenset()),
        "all-scratch-tiles": dict(scratch=scratch, fuse_all=True, tiles="always"),
        "model-scratch-recompute": dict(scratch=scratch, tiles="never"),
    }[label]
    out = tmp_path / f"{name}.{label}.cu"
    result = fuse_file(src, out, **kw)
    # (a tile --tiles always asks for and cannot stage is said, not refused: blur's)
    refused = [n for n in result.notes if "not staged" not in n]
    assert not refused, refused
    for w, h in SIZES:
        run_both(src, out, entry, w, h, skip=kw["scratch"])
    if kw.get("fuse_all"):  # (the cost model may leave a sample as it is: blur, canny)
        assert result.groups, f"nothing in {name} was fused"
