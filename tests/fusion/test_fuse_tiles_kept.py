"""The figures and notes of a fused group count the shared-memory tiles the emitter staged,
not those the plan asked for. Two separable blurs fused with --tiles always: one whose rows
are as wide as its image (the tile is staged), one whose producer writes rows a run-time
stride apart (blur.cu's style: the producer keeps its guard, the tile is declined, and the
producer is recomputed per read). Each is checked against its emitted code (the tile's
__shared__ arrays, the number of producer evaluations per output those imply) and under the
emulator against the original, every element."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

from cudafuse.analysis.ptxas import compile_figures
from cudafuse.passes.vertical.driver import _Planner, report_dict
from cudafuse.passes.vertical.emit.render import explain_text
from cudafuse.passes.vertical.plan.resources import group_resources

# hblur: 1x5 taps along the row; vblur: 5x1 taps down the column, clamped at the border.
KERNELS = """
#include <cuda_runtime.h>
__global__ void hblur(const float *in, float *out, int w, int h, int stride) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int k = -2; k <= 2; ++k) s += 0.2f * in[y * stride + min(max(x + k, 0), w - 1)];
  out[y * stride + x] = s;
}
__global__ void vblur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int k = -2; k <= 2; ++k) s += 0.2f * in[min(max(y + k, 0), h - 1) * w + x];
  out[y * w + x] = 0.5f * s;
}
extern "C" void pipe(const float *img, float *t, float *out, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  int stride = w;
  hblur<<<grid, block>>>(img, t, w, h, STRIDE);
  vblur<<<grid, block>>>(t, out, w, h);
}
"""
# The producer's rows `w` apart (its width): tileable. `stride` apart: known only at run
# time, so its value-at-element function keeps its guard and a tile would not match it.
# (The first leaves its last parameter unnamed, as code whose kernels share a signature
# does: the fused kernel must not declare an alias for it.)
PROGRAMS = {"kept": KERNELS.replace("STRIDE", "w").replace("y * stride", "y * w")
            .replace(", int stride)", ", int)"),
            "declined": KERNELS.replace("STRIDE", "stride")}
SHARED = re.compile(r"__shared__\s+float\s+\w+\[(\d+)\]")


@pytest.fixture(scope="module", params=sorted(PROGRAMS))
def fused(request, tmp_path_factory) -> tuple[str, Path, Path, object]:
    tmp = tmp_path_factory.mktemp(request.param)
    src, out = tmp / "pipe.cu", tmp / "pipe.fused.cu"
    src.write_text(PROGRAMS[request.param])
    result = fuse_file(src, out, frozenset({"t"}), fuse_all=True, tiles="always")
    return request.param, src, out, result


def test_figures_and_notes_follow_the_emitted_tiles(fused) -> None:
    case, _, out, result = fused
    code = out.read_text()
    tiles = [int(n) for n in SHARED.findall(code)]
    report = report_dict(result)
    (group,) = report["sequences"][0]["fused"]
    text = explain_text(result)
    declined = [line for line in text.splitlines() if "tile of t" in line]
    if case == "kept":
        assert tiles == [(32 + 0) * (8 + 2 * 2)]  # the block plus vblur's halo of 2 rows
        assert group["tiles"] == {"t": [0, 2]} and group["tiles_declined"] == {}
        assert declined == []
    else:
        assert tiles == []
        assert group["tiles"] == {}
        # The plan asked the emitter's predicate, so the tile was never planned: it says
        # why, and the cost model priced recomputation.
        assert len(declined) == 1
        assert "not staged" in declined[0] and "'hblur' keeps its guard" in declined[0]
        assert "'stride' apart, a run-time stride" in declined[0]
        assert declined[0].endswith("recomputed instead")
    # Redundant work from the code: hblur runs once per tile element, or once per tap of
    # vblur's window when it is recomputed at each read.
    model = result.plans[0].model
    ops = [k.n_alu + k.n_sfu for k in model.kernels]
    evals = tiles[0] / (32 * 8) if tiles else len(model.kernels[1].window(
        next(iter(model.kernels[1].reads))))
    assert evals == (1.5 if case == "kept" else 5)
    ratio = (evals * ops[0] + ops[1]) / (ops[0] + ops[1])
    traffic = group["traffic"]["operations"]
    assert traffic["fused"] == pytest.approx(evals * ops[0] + ops[1])
    assert group["traffic"]["redundant_work"] == pytest.approx(ratio)
    assert f"redundant work x{ratio:.2f}" in text
    # The shared memory estimated (no ptxas) for the fused kernel is that of its tiles.
    plan = result.plans[0]
    res = group_resources(plan, plan.groups[0], "sm_90", "no ptxas in this test")
    assert res.fused.shared_bytes == sum(tiles) * 4


def test_fused_matches_the_original(fused) -> None:
    _, src, out, _ = fused
    # 33x9: a partial block in each direction, so the tile's border handling is run.
    run_both(src, out, "pipe", 33, 9, skip=frozenset({"t"}))


def test_a_tile_the_emitter_declines_is_counted_as_recomputed(tmp_path: Path, monkeypatch
                                                              ) -> None:
    # The emitter checks again what the plan asked (a plan built without the predicate, as
    # before it was asked, stands in for a decline the plan cannot foresee): the tile is
    # not staged, a note names it and why, and the figures count the recomputation.
    monkeypatch.setattr(_Planner, "no_tile", lambda self, model, infos: {})
    src, out = tmp_path / "pipe.cu", tmp_path / "pipe.fused.cu"
    src.write_text(PROGRAMS["declined"])
    result = fuse_file(src, out, frozenset({"t"}), fuse_all=True, tiles="always")
    assert SHARED.findall(out.read_text()) == []
    (group,) = report_dict(result)["sequences"][0]["fused"]
    assert group["tiles"] == {} and list(group["tiles_declined"]) == ["t"]
    (note,) = [n for n in result.notes if "tile of t" in n]
    assert note.startswith("pipe: cf_pipe_fused0: tile of t planned, not staged: 'hblur' "
                           "keeps its guard (its rows are 'stride' apart, a run-time stride")
    ops = [k.n_alu + k.n_sfu for k in result.plans[0].model.kernels]
    assert group["traffic"]["operations"]["fused"] == pytest.approx(5 * ops[0] + ops[1])


@pytest.mark.nvcc
def test_ptxas_counts_the_shared_memory_the_figures_say(fused) -> None:
    # The compiled fused kernel holds the staged tiles' bytes of static shared memory and
    # no more: none for the declined tile (hblur recomputed), the tile's for the other.
    _, _, out, result = fused
    figures = compile_figures(out.read_bytes(), "sm_90", ("-std=c++17",))
    assert not isinstance(figures, str), figures
    plan = result.plans[0]
    (note,) = plan.groups
    assert figures[note.name].static_shared == note.tile_bytes == \
        sum((32 + 2 * rx) * (8 + 2 * ry) * 4 for rx, ry in note.tiles.values())
