"""Stores inside a switch (issue 25, session 10; the held-out survey's Canny): a switch whose
cases each end in `break` is read as the if/else chain it means (kernel/respell/
switches.py), so that a kernel storing its own element case by case (some cases leaving
it as it was) fuses as a producer and as a consumer. A case that falls into the next, an
impure controlling expression, a default that is not last, or a break inside a loop of an
arm leave the switch as written. Original and fused programs run under emulation on the
same garbage, every byte of every buffer compared (odd sizes, grids the block does not
divide)."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion
from cudafuse.passes.vertical.kernel.respell.switches import switches

PROGRAM = Path(__file__).parent / "programs" / "switch_stores_s10.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("switch_stores") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_switch_stores_fuse(fused) -> None:
    _, result = fused
    groups = {tuple(g.kernels) for g in result.groups}
    assert ("quantise", "suppress", "threshold") in groups
    assert not any("fallthrough" in g for g in groups)
    why = " | ".join(str(e) for e in result.edges)
    assert "'fallthrough' has no store at its own element" in why


def test_respelled_chain_keeps_lines_and_fallthrough() -> None:
    parsed, written = parse_for_fusion(str(PROGRAM), ParseOptions())
    assert written is not None
    text = parsed.unit.source.data.decode()
    assert text.count("\n") == written.decode().count("\n")
    assert "switch (i % 3)" in text  # fallthrough's, as written
    assert "switch (seg[i])" not in text and "switch ((int)(v > lo)" not in text
    suppress = text[text.index("void suppress"):text.index("void threshold")]
    assert "if ((seg[i]) == (1) || (seg[i]) == (5)) {" in suppress
    assert "else if ((seg[i]) == (2)) " in suppress and "break" not in suppress


KERNELS = {
    "impure": "switch (next(i)) { case 0: o[i] = 1; break; default: o[i] = 2; break; }",
    "default_first": "switch (i % 3) { default: o[i] = 1; break; case 1: o[i] = 2; break; }",
    "falls": "switch (i % 3) { case 0: o[i] = 1; case 1: o[i] = 2; break; }",
    "loop_break": "switch (i % 3) { case 0: for (int k = 0; k < 3; ++k) { if (k == i) break;"
                  " o[i] = k; } break; default: o[i] = 0; }",
    "chain": "switch (i % 3) { case 0: case 2: o[i] = 1; break; case 1: { float t = 2; "
             "o[i] = t; break; } default: o[i] = 0; }",
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_which_switches_are_chains(tmp_path: Path, name: str) -> None:
    src = tmp_path / "k.cu"
    src.write_text("__device__ int next(int i);\n__global__ void k(float *o, int n) {\n"
                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n"
                   f"  {KERNELS[name]}\n}}\n")
    unit = parse_file(str(src)).unit
    fn = unit.function("k")
    assert fn is not None
    edits, _ = switches(fn, unit.source.data)
    assert bool(edits) == (name == "chain"), name


@pytest.mark.slow
@pytest.mark.parametrize("w,h", ((37, 19), (1, 5), (13, 1)))
@pytest.mark.parametrize("entry", ["canny_tail", "kept"])
def test_fused_matches_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    compare_entry(PROGRAM, path, entry, {"w": w, "h": h})
