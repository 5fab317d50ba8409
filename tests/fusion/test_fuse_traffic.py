"""DRAM bytes and arithmetic per output element (fusion/traffic.py), in `plan` / `--explain`
text and in `--report`: exact figures, computed by hand below.

Conventions (docs/fusion.md): each kernel reads every distinct buffer once per element (a
stencil's neighbours come from the caches) and writes each output once; element sizes come
from the parameters' types; operations are opcount's ALU + SFU counts per thread."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cudafuse.cli import main

ROOT = Path(__file__).parents[2]
CHAINS = Path(__file__).parent / "programs" / "traffic_chains.cu"

# opcount's operations per thread for traffic_chains.cu's kernels:
#   the mapping and guard of each: x = (* +), y = (* +), x >= w || y >= h -> 2 + 2 + 3 = 7
#   scale:  7 + store index y*w+x (2) + 0.5f * in[y*w+x] (1 + 2)                      = 12
#   offset: 7 + store index (2) + t[y*w+x] + 1.0f (2 + 1)                              = 12
#   hblur:  7 + store index (2) + t[y*w+max(x-1,0)] (* + max -: 4) + t[y*w+x] (2)
#           + t[y*w+min(x+1,w-1)] (* + min + -: 5) + two additions (2)                 = 22
SCALE, OFFSET, HBLUR = 12, 12, 22
# Bytes per element: in is unsigned char (1), t and out are float (4).
# Original, either chain: scale reads in and writes t (1 + 4), the consumer reads t once
# per element whatever its window and writes out (4 + 4): 5 + 8 = 13.
ORIGINAL = 1 + 4 + 4 + 4


def plan(tmp_path: Path, src: Path, *args: str) -> tuple[str, dict]:
    report = tmp_path / "r.json"
    # In this process (the CLI's main): the command minus a Python start (issue 27).
    res = CliRunner().invoke(main, ["plan", str(src), *args, "--report", str(report)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    return res.stdout, json.loads(report.read_text())


def traffic(report: dict, host: str) -> tuple[dict, list[dict]]:
    seq = next(s for s in report["sequences"] if s["host"] == host)
    return seq["traffic"], [g["traffic"] for g in seq["fused"]]


def line(text: str, host: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith(f"  pipeline {host}: "))


def test_scratch_intermediate_point_chain_and_stencil_recomputed(tmp_path: Path) -> None:
    text, report = plan(tmp_path, CHAINS, "--fuse-all", "--tiles", "never", "--scratch", "t")
    # Point chain, t scratch: the fused kernel reads in (1) and stores out (4) = 5, which is
    # also the minimum (in read once, out the only live output). scale runs once per
    # element: work (12 + 12) / (12 + 12) = 1.
    seq, groups = traffic(report, "point_chain")
    assert seq["dram_bytes"] == {"original": ORIGINAL, "fused": 5, "minimum": 5}
    assert seq["operations"] == {"original": SCALE + OFFSET, "fused": SCALE + OFFSET}
    assert seq["redundant_work"] == 1.0
    assert groups == [seq]  # one group holding the whole pipeline
    assert line(text, "point_chain") == (
        "  pipeline point_chain: DRAM bytes per output element 13 -> 5 (minimum 5); "
        "redundant work x1.00")
    # Stencil consumer, recomputed: hblur reads t at x-1, x, x+1, so scale is evaluated 3
    # times per output element: (3 * 12 + 22) / (12 + 22) = 58 / 34 = 1.70588...
    seq, _ = traffic(report, "stencil_chain")
    assert seq["dram_bytes"] == {"original": ORIGINAL, "fused": 5, "minimum": 5}
    assert seq["operations"] == {"original": SCALE + HBLUR, "fused": 3 * SCALE + HBLUR}
    assert seq["redundant_work"] == 58 / 34
    assert line(text, "stencil_chain") == (
        "  pipeline stencil_chain: DRAM bytes per output element 13 -> 5 (minimum 5); "
        "redundant work x1.71")


def test_live_out_intermediate_is_still_stored(tmp_path: Path) -> None:
    # Without --scratch, t is a pointer parameter the caller may read: the fused kernel
    # still stores it. Fused = in (1) + t (4) + out (4) = 9 = the minimum (in read once,
    # t and out both live outputs).
    text, report = plan(tmp_path, CHAINS, "--fuse-all", "--tiles", "never")
    for host in ("point_chain", "stencil_chain"):
        seq, _ = traffic(report, host)
        assert seq["dram_bytes"] == {"original": ORIGINAL, "fused": 9, "minimum": 9}
        assert "DRAM bytes per output element 13 -> 9 (minimum 9)" in line(text, host)
    # The own element of t is among hblur's three reads: still 3 evaluations, 58 / 34.
    assert traffic(report, "stencil_chain")[0]["redundant_work"] == 58 / 34


def test_stencil_staged_in_a_tile(tmp_path: Path) -> None:
    # --tiles always: t is staged for hblur's 32x8 block plus its halo (1 column each
    # side, no rows), scale evaluated once per tile element: (32 + 2) * 8 / (32 * 8) =
    # 1.0625 per output element. Work (1.0625 * 12 + 22) / 34 = 34.75 / 34. Traffic does
    # not change: the halo's re-reads are on chip.
    text, report = plan(tmp_path, CHAINS, "--fuse-all", "--tiles", "always", "--scratch", "t")
    seq, _ = traffic(report, "stencil_chain")
    assert seq["dram_bytes"] == {"original": ORIGINAL, "fused": 5, "minimum": 5}
    assert seq["operations"] == {"original": 34, "fused": 1.0625 * SCALE + HBLUR}
    assert seq["redundant_work"] == 34.75 / 34
    assert line(text, "stencil_chain").endswith("redundant work x1.02")


def test_kernel_left_alone_counts_as_in_the_original(tmp_path: Path) -> None:
    # A barrier makes `scale` no pure producer: scale -> offset is refused, and the two
    # offsets (t -> u -> out) fuse. u and t scratch. Original: scale (in 1 + t 4) +
    # offset (t 4 + u 4) + offset (u 4 + out 4) = 21; fused: scale as it is (5) + the
    # group reading t (4) and storing out (4) = 13; minimum: in (1) + out (4) = 5.
    src = tmp_path / "apart.cu"
    src.write_text(CHAINS.read_text().replace(
        "  if (x >= w || y >= h) return;\n  t[y * w + x] = 0.5f",
        "  __syncthreads();\n  if (x >= w || y >= h) return;\n  t[y * w + x] = 0.5f").replace(
        "extern \"C\" void point_chain(const unsigned char *in, float *t, float *out,",
        "extern \"C\" void point_chain(const unsigned char *in, float *t, float *u, "
        "float *out,").replace(
        "  offset<<<grid, block>>>(t, out, w, h);",
        "  offset<<<grid, block>>>(t, u, w, h);\n  offset<<<grid, block>>>(u, out, w, h);"))
    text, report = plan(tmp_path, src, "--fuse-all", "--scratch", "t,u")
    seq, groups = traffic(report, "point_chain")
    assert seq["dram_bytes"] == {"original": 21, "fused": 13, "minimum": 5}
    # The group alone: original 8 + 8 = 16; fused t (4) + out (4) = 8 = its minimum.
    assert groups == [{**groups[0], "dram_bytes": {"original": 16, "fused": 8, "minimum": 8}}]
    assert seq["redundant_work"] == 1.0


def test_samples_figures(tmp_path: Path) -> None:
    # sobel, gx and gy scratch: original sobel_x (in 4 + gx 4) + sobel_y (4 + 4) +
    # magnitude (gx 4 + gy 4 + out 4) = 28; fused, one group: in once (4) + out (4) = 8 =
    # the minimum; magnitude reads gx and gy at its own element: no recomputation.
    text, report = plan(tmp_path, ROOT / "samples" / "sobel.cu", "--scratch", "gx,gy")
    seq, _ = traffic(report, "sobel_pipeline")
    assert seq["dram_bytes"] == {"original": 28, "fused": 8, "minimum": 8}
    assert seq["redundant_work"] == 1.0
    # harris, all intermediates scratch: original 7 one-in-one-out kernels (8 each) +
    # product_xy (dx, dy, sxy: 12) + harris_response (gx, gy, gxy, out: 16) = 84; the
    # chosen groups {deriv_x .. product_xy} (reads in 4, stores sx, sy, sxy read by the
    # second group: 12) and {gauss_x, gauss_y, gauss_xy, harris_response} (reads sx, sy,
    # sxy: 12, stores out: 4): 16 + 16 = 32; minimum in + out = 8. The split falls between
    # the derivatives and the Gaussians, so nothing is recomputed (the calibrated model:
    # a 3x3 recomputing a 3x3 measured slower than this split on an H200).
    text, report = plan(tmp_path, ROOT / "samples" / "harris.cu",
                        "--scratch", "dx,dy,sx,sy,sxy,gx,gy,gxy")
    seq, groups = traffic(report, "harris_pipeline")
    assert seq["dram_bytes"] == {"original": 84, "fused": 32, "minimum": 8}
    assert [g["dram_bytes"]["fused"] for g in groups] == [16, 16]
    assert seq["redundant_work"] == 1.0
    # Without --scratch every pointer parameter is live: the groups also store dx, dy
    # (first) and gx, gy, gxy (second): 32 + 5 * 4 = 52, minimum in + 9 outputs.
    text, report = plan(tmp_path, ROOT / "samples" / "harris.cu")
    seq, _ = traffic(report, "harris_pipeline")
    assert seq["dram_bytes"] == {"original": 84, "fused": 52, "minimum": 4 + 9 * 4}


def test_unknown_element_size_is_said(tmp_path: Path) -> None:
    src = tmp_path / "structs.cu"
    src.write_text(CHAINS.read_text().replace(
        "#include <cuda_runtime.h>",
        "#include <cuda_runtime.h>\nstruct Pix { float a, b; };").replace(
        "const unsigned char *in", "const Pix *in").replace("* in[y * w + x]",
                                                             "* in[y * w + x].a"))
    text, report = plan(tmp_path, src, "--fuse-all", "--tiles", "never")
    seq, groups = traffic(report, "point_chain")
    assert seq["dram_bytes"] is None and groups[0]["dram_bytes"] is None
    assert seq["unknown"] == "element size of 'in' unknown"
    assert seq["redundant_work"] == 1.0
    assert line(text, "point_chain") == (
        "  pipeline point_chain: DRAM bytes per output element not computed (element size "
        "of 'in' unknown); redundant work x1.00")
