"""Every sample pipeline, fused by the cost model and with --fuse-all, intermediates live and
dead, equals the original on every output element under emulation (odd sizes, so partial
blocks and every border are exercised)."""

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


# `make test` runs these four samples here (every sample is fused with --fuse-all and compared
# in test_fuse_block.py's test_samples_with_another_block); `make test-slow` the other four.
SLICE = ("harris", "unsharp", "blur", "canny")


@pytest.mark.parametrize("name", [n if n in SLICE else pytest.param(n, marks=pytest.mark.slow)
                                  for n in NAMES])
def test_sample_fused_equals_original(name: str, tmp_path: Path) -> None:
    src = SAMPLES / f"{name}.cu"
    entry = f"{name}_pipeline"
    scratch = _intermediates(src, entry)
    variants = {
        "model": dict(scratch=frozenset()),
        "all-scratch-tiles": dict(scratch=scratch, fuse_all=True, tiles="always"),
        "model-scratch-recompute": dict(scratch=scratch, tiles="never"),
    }
    fused_any = False
    for label, kw in variants.items():
        out = tmp_path / f"{name}.{label}.cu"
        result = fuse_file(src, out, **kw)
        # (a tile --tiles always asks for and cannot stage is said, not refused: blur's)
        refused = [n for n in result.notes if "not staged" not in n]
        assert not refused, refused
        fused_any |= bool(result.groups)
        for w, h in SIZES:
            run_both(src, out, entry, w, h, skip=kw["scratch"])
    assert fused_any, f"nothing in {name} was fused"
